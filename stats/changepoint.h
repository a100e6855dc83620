/*
 * Change points in a series of per-commit measurements, for continuous
 * mode: E-Divisive with means (Matteson and James 2014), its permutation
 * test shuffling whole commits, seeded from the options so that the same
 * input gives the same answer (docs/design.md, "File notes").
 */
#ifndef STATS_CHANGEPOINT_H
#define STATS_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct changepoint_opts {
	unsigned	permutations;	/* 0 means 199 */
	double		alpha;		/* significance level; 0 means 0.05 */
	size_t		min_size;	/* commits on each side to find a change */
					/* (one after it at the series' end); */
					/* 0 means 2 */
	size_t		max_points;	/* 0 means no limit */
	/*
	 * After the search, change points whose segments either side
	 * differ by less than this (% of the earlier one's |mean|) are
	 * dropped, smallest first, merging their segments: a slow drift cut
	 * into small steps is not a change. 0 keeps every significant one.
	 */
	double		min_effect_pct;
	uint64_t	seed;
};

struct changepoint {
	size_t		group;		/* the first commit after the change */
	size_t		index;		/* the first value after the change */
	unsigned	order;		/* 1 for the first (strongest) found */
	double		q;		/* energy statistic of the split */
	double		p_value;	/* permutation test when found */
	double		mean_before;	/* the final segments either side */
	double		mean_after;
	double		change_pct;	/* (after - before) / |before|, % */
};

struct changepoint_result {
	struct changepoint	*points;	/* in series order */
	size_t			 nr_points;
};

/*
 * values[0 .. n-1] in commit order; groups[i] is the commit of values[i]
 * (nondecreasing, gaps allowed), or NULL for one value per commit, the
 * commit then being the value's index. opts may be NULL. Returns -1 with
 * *cause set on bad input (groups out of order, a value not finite).
 */
/*
 * The input every test here takes: finite values, their commits (groups,
 * may be NULL) in order; -1 with *cause naming the first that is not.
 */
int	changepoint_check_values(const double *values, const size_t *groups,
	    size_t n, char **cause);
int	changepoint_detect(struct changepoint_result *, const double *values,
	    const size_t *groups, size_t n, const struct changepoint_opts *,
	    char **cause);
void	changepoint_result_release(struct changepoint_result *);

#endif
