/*
 * A small YAML tree for the job and config parsers, built from libyaml's
 * events so that every node keeps its 1-based line and column. It holds
 * what our files need and refuses the rest with a located message:
 * anchors and aliases, tags other than the standard str/seq/map ones,
 * non-scalar or empty mapping keys, duplicate keys, NUL bytes in scalars,
 * nesting deeper than YAMLNODE_MAX_DEPTH, maps of more than
 * YAMLNODE_MAX_KEYS keys and (for one-document files) a second document.
 * It also quotes scalars back into YAML for the canonical job text.
 */
#ifndef JOBS_YAMLNODE_H
#define JOBS_YAMLNODE_H

#include <stddef.h>

#define YAMLNODE_MAX_DEPTH 32
#define YAMLNODE_MAX_KEYS 10000	/* per map: duplicates are found by scanning */

enum yamlnode_type {
	YAMLNODE_SCALAR,
	YAMLNODE_SEQUENCE,
	YAMLNODE_MAPPING,
};

struct yamlnode {
	enum yamlnode_type	  type;
	unsigned		  line;		/* 1-based */
	unsigned		  column;	/* 1-based, in characters */
	char			 *value;	/* scalar: NUL-terminated */
	int			  null;		/* plain "", "~" or "null" */
	const char		 *file;		/* borrowed: where it was read, */
						/* NULL: the name given to errors */
	/* Sequence: the items. Mapping: key, value, key, value... */
	struct yamlnode		**items;
	size_t			  nr;
	size_t			  alloc;
};

/*
 * Parse one YAML document. *out is NULL when the stream holds no document
 * at all. Errors are "NAME:LINE:COL: message".
 */
int	 yamlnode_parse(const char *name, const char *buf, size_t len,
	     struct yamlnode **out, char **cause);
/*
 * Every document of a stream, in order (an empty document is a null
 * scalar). Keys "<<" may repeat in a map (LKP's includes); any other
 * duplicate key is refused as by yamlnode_parse.
 */
int	 yamlnode_parse_stream(const char *name, const char *buf, size_t len,
	     struct yamlnode ***out, size_t *nr, char **cause);
void	 yamlnode_free(struct yamlnode *);
void	 yamlnode_list_free(struct yamlnode **, size_t);
/* A deep copy, positions and files kept. */
struct yamlnode *yamlnode_copy(const struct yamlnode *);
/* Set the file of n and every node under it. */
void	 yamlnode_set_file(struct yamlnode *, const char *file);
/* The value of key in a map, or NULL. */
struct yamlnode *yamlnode_map_get(const struct yamlnode *, const char *key);
/* "a scalar", "a list", "a map": for messages. */
const char *yamlnode_kind(const struct yamlnode *);
/* Set *cause to "NAME:LINE:COL: message" at the node; returns -1. */
int	 yamlnode_error(char **cause, const char *name,
	     const struct yamlnode *, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

/*
 * Append s as a YAML scalar that reads back equal: plain when that is
 * safe, else double-quoted with escapes (the result is ASCII).
 */
struct strbuf;
void	 yamlnode_quote(struct strbuf *, const char *s);

#endif
