/*
 * Drift: whether runs about to be compared ran in the same environment.
 * Each environment key matters (it can move a benchmark by itself), is
 * noted, or is ignored; a kernel built from the run's own commit may differ
 * between commits, never between runs of one. The keys are in
 * docs/monitors.md, the rules in docs/design.md, "File notes".
 */
#ifndef BISECTD_DRIFT_H
#define BISECTD_DRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "bisectd/context.h"
#include "bisectd/repo.h"
#include "schema/store.h"
#include "util/strbuf.h"

enum drift_class {
	DRIFT_IGNORED = 0,
	DRIFT_NOTED,
	DRIFT_MATTERS,
};

/* One run's environment; the arrays are borrowed. */
struct drift_run {
	const char	*label;		/* "good 1a2b3c4d5e" */
	const char	*commit;	/* runs of one commit share it */
	const char	*boot;		/* "AGENT BOOT_ID", or NULL: unknown */
	char *const	*keys;
	char *const	*values;
	size_t		 nr;
};

struct drift_item {
	char	*key;
	int	 matters;
	char	*text;		/* "always at A (3 runs) | never at B (3 runs)" */
};

struct drift {
	struct drift_item	*items;
	size_t			 nr;
	size_t			 nr_matter;
};

/* How a key counts. */
enum drift_class drift_key_class(const char *key);
/* Keys that belong to the commit when its kernel was built from it. */
int	 drift_key_per_commit(const char *key);
/*
 * The value as compared: "64G" of "64G 68719476736" (the exact byte count
 * moves with the kernel's reservations), a command line without its
 * BOOT_IMAGE= and initrd= words. Allocated.
 */
char	*drift_value(const char *key, const char *value);
/*
 * Whether two values of key are the same setting: memory and the
 * kernel's min_free_kbytes within 1% (their exact figures), everything
 * else, counts included, exactly after drift_value. NULL is unset.
 */
int	 drift_same(const char *key, const char *a, const char *b);

/* Compare every run with every other; items sorted by key. */
void	 drift_compare(struct drift *, const struct drift_run *, size_t nr);
void	 drift_release(struct drift *);
/*
 * The differences, one per line, those that matter first:
 * "    thp_enabled: always at A (3 runs) | never at B (3 runs)".
 */
void	 drift_format(struct strbuf *, const struct drift *, const char *indent);

/*
 * The runs of a job at several commits, from the store. labels[i] names
 * oids[i] in the text (NULL: its first 10 hex digits).
 */
int	 drift_check(struct store *, int64_t job, const char *repo,
	     const char *const *oids, const char *const *labels, size_t nr,
	     struct drift *out, char **cause);

/*
 * A bisection's turn: do the runs taken so far at its tested commits
 * (oids[idx[i]]) agree, good and bad first? Returns 0 when they do or
 * when the request allows drift ({"allow_drift": true} in its args), 1
 * with *why saying which keys differ where, -1 on a store error.
 */
int	 drift_bisection_check(struct context *,
	     const struct store_bisection *,
	     const char (*oids)[REPO_OID_HEX + 1], const size_t *idx,
	     size_t nr_idx, char **why, char **cause);

#endif
