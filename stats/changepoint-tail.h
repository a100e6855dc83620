/*
 * The newest commits of a series against the commits before them, for
 * continuous mode: a step in the last one to three commits has too few
 * commits after it for E-Divisive, whose permutations shuffle whole
 * commits (one commit among 41 can never reach p < 0.01 that way). Here
 * the runs are the units, with the commit-to-commit spread of the
 * reference estimated and added to the variance, and the tail's commits
 * are sampled more before anything is decided: the test says which
 * commits want more runs, and decides once they have them.
 */
#ifndef STATS_CHANGEPOINT_TAIL_H
#define STATS_CHANGEPOINT_TAIL_H

#include <stddef.h>

#include "stats/changepoint.h"

enum changepoint_tail_verdict {
	CHANGEPOINT_TAIL_NONE,		/* nothing at the tail */
	CHANGEPOINT_TAIL_MORE,		/* it looks changed: sample it more */
	CHANGEPOINT_TAIL_FOUND		/* changed, with the runs to say so */
};

struct changepoint_tail_opts {
	size_t	max_tail;	/* tail lengths tried, commits; 0 means 3 */
	size_t	reference;	/* commits before it; 0 means 20 */
	size_t	min_reference;	/* fewer: no test; 0 means 8 */
	size_t	runs;		/* values a tail commit needs; 0 means 12 */
	double	screen_p;	/* below it, more runs; 0 means 0.02 */
	double	alpha;		/* found below it; 0 means 0.0005 */
	int	direction;	/* -1: a fall is looked for, +1 a rise, 0 both */
	double	min_effect_pct;	/* smaller changes are not found */
};

struct changepoint_tail {
	enum changepoint_tail_verdict verdict;
	size_t	group;		/* the tail's first commit (MORE and FOUND) */
	size_t	index;		/* its first value */
	size_t	more_runs;	/* MORE: values each tail commit should have */
	size_t	zone;		/* the first of the last max_tail commits */
	double	p_value;	/* Bonferroni over the tail lengths tried */
	double	t;
	double	mean_before, mean_after, change_pct;
};

/*
 * values[0 .. n-1] in commit order, groups[i] the commit of values[i]
 * (nondecreasing, NULL for one value per commit); the reference starts no
 * earlier than value `from` (the newest change point before the tail).
 */
int	changepoint_tail_test(struct changepoint_tail *, const double *values,
	    const size_t *groups, size_t n, size_t from,
	    const struct changepoint_tail_opts *, char **cause);
/*
 * The tail test after E-Divisive (res, of the same values): its reference
 * starts at the newest change point of res before the last max_tail
 * commits. When the tail is found changed, or wants more runs, the change
 * points res has among those commits give way: a found tail is added to
 * res as a change point (q 0, its p the tail test's).
 */
int	changepoint_tail_detect(struct changepoint_result *res,
	    struct changepoint_tail *, const double *values,
	    const size_t *groups, size_t n,
	    const struct changepoint_tail_opts *, char **cause);

#endif
