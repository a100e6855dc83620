/*
 * What the files of the program-file parser share (program.c,
 * program-param.c, program-output.c, program-metric.c): the parser's
 * state, the readers of its nodes with their messages, and the sections'
 * parsers program.c's walk of a file calls. jobs/program.h is the API.
 */
#ifndef JOBS_PROGRAM_INTERNAL_H
#define JOBS_PROGRAM_INTERNAL_H

#include "jobs/expr.h"
#include "jobs/program.h"
#include "jobs/yamlnode.h"

/* What a file is parsed with: its name, for messages. */
struct program_parser {
	const char	*file;
	struct program	*p;
	char		**cause;
};

/* For expr_each_name over a default: names declared before, built-ins. */
struct program_names {
	const struct program	*p;
	size_t			 before;	/* params usable */
	const char		*bad;
};


/* program.c: the message at a node, "FILE:LINE:COL: ..." around *cause. */
int	program_error_at(struct program_parser *, const struct yamlnode *);
/* The value of key in map, or NULL. */
const struct yamlnode *program_get(const struct yamlnode *map,
	    const char *key);
/* map is a map of the known keys only. */
int	program_keys(struct program_parser *, const struct yamlnode *map,
	    const char *what, const char *const *known);
/* A non-empty scalar, copied to *out. */
int	program_scalar(struct program_parser *, const struct yamlnode *,
	    const char *what, char **out);
/* Lowercase letters, digits and '_', not starting with a digit. */
int	program_name_ok(const char *s);
/* {name} and {=expr} of a template name what exists. */
int	program_template(struct program_parser *, const struct yamlnode *,
	    const char *text);

/* An expression over the parameters declared before the before-th. */
int	program_expr(struct program_parser *, const struct yamlnode *,
	    const char *text, size_t before, struct expr **out);

/* program-param.c: one entry of params:. */
int	program_param_parse(struct program_parser *,
	    const struct yamlnode *key, const struct yamlnode *decl);

/* program-output.c: output:, and whether name is one of its variables. */
int	program_output_parse(struct program_parser *,
	    const struct yamlnode *);
int	program_output_variable(const struct program *, const char *name,
	    int *word);

/* program-metric.c: one entry of metrics:. */
int	program_metric_parse(struct program_parser *,
	    const struct yamlnode *key, const struct yamlnode *);

#endif
