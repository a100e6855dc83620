/*
 * The small arithmetic of adapter files (docs/jobs.md, "Expressions"):
 * numbers, names, + - * / %, parentheses, min/max/floor/ceil, and the
 * aggregates over records (sum, mean, min, max, median, stddev, count,
 * first, last) that turn an output's per-instance lines into metrics.
 * Parsed once into a tree; evaluated against names a caller resolves.
 */
#ifndef JOBS_EXPR_H
#define JOBS_EXPR_H

#include <stddef.h>

#define EXPR_MAX_TEXT	1024
#define EXPR_LATEST	((size_t)-1)	/* no record: the latest values */
#define EXPR_UNSET	1		/* expr_eval: a name had no value */

struct expr;

struct expr_env {
	/*
	 * The value of name in record (EXPR_LATEST outside an aggregate):
	 * 0, EXPR_UNSET when it has none, -1 with *cause.
	 */
	int	(*lookup)(void *payload, size_t record, const char *name,
		    double *out, char **cause);
	void	 *payload;
	size_t	  nr_records;
	int	  aggregates;	/* whether aggregates are allowed */
};

int	 expr_parse(const char *text, struct expr **out, char **cause);
void	 expr_free(struct expr *);
/*
 * 0 with *out finite; EXPR_UNSET with *cause naming the name that has
 * no value (an aggregate skips the records where its argument has
 * none); -1 with *cause (division by zero, an aggregate not allowed).
 */
int	 expr_eval(const struct expr *, const struct expr_env *, double *out,
	     char **cause);
/* As expr_eval, with the names of one record (no aggregate inside). */
int	 expr_eval_at(const struct expr *, const struct expr_env *,
	     size_t record, double *out, char **cause);
/* Whether it holds an aggregate. */
int	 expr_has_aggregate(const struct expr *);
/* fn on each name it uses, until fn returns non-zero (that value). */
int	 expr_each_name(const struct expr *,
	     int (*fn)(void *payload, const char *name), void *payload);

#endif
