/*
 * Noise shared in time (issue 11, item 2): where a run's neighbour in
 * time, at another commit, moves with it (a drift, a burst the monitor
 * does not see), the driver pairs every lone batch of the search with a
 * reference end, dispatched as one interleaved batch, and decides on
 * each paired sample over its partner, so that what hit both cancels
 * (docs/bisection.md, "Noise shared in time").
 */
#ifndef STATS_BISECT_TIME_H
#define STATS_BISECT_TIME_H

#include <stddef.h>

#include "stats/bisect.h"

/* Neighbours move together below this p (Spearman, one-sided). */
#define BISECT_TIME_ALPHA	0.01
/* Neighbour pairs needed before the test is made. */
#define BISECT_TIME_MIN_PAIRS	10

struct bisect_time {
	int		  used;		/* shared noise: samples paired */
	double		  rho;		/* of the neighbours' residuals */
	double		  p;
	size_t		  pairs;	/* neighbour pairs tested */
	size_t		  ref;		/* the reference commit */
	double		**samples;	/* per commit: adjusted, or NULL */
	size_t		  nr;
};

/*
 * The neighbour test and the paired samples. Over every run in time
 * order, runs next to each other at two different commits are taken two
 * by two; the Spearman correlation of their residuals (log sample minus
 * its commit's median log, commits with 3 samples or more) is tested
 * one-sided. When p < BISECT_TIME_ALPHA, each sample of a commit other
 * than ref and not among skip[] (the other ends: their test is on the
 * samples as taken) taken two by two in time with a sample of ref (as
 * the rounds of a batch came) becomes x * L / r, r its partner and L the
 * median of ref's samples, in out[]
 * (a copy of commits[]). Every sample positive and times known, or
 * nothing is done. Returns 1 when out[] was adjusted, 0 otherwise.
 */
int	bisect_time_adjust(struct bisect_time *, struct bisect_commit *out,
	    const struct bisect_commit *commits, size_t nr, size_t ref,
	    const size_t *skip, size_t nr_skip);

/*
 * With shared noise, a want of one commit other than the reference and
 * not among skip[] (the ends; nr_skip) gets the reference beside it with
 * as many new runs, as one batch (the caller dispatches a batch of two
 * as interleaved pairs). *wants is grown; raw[] the caller's commits.
 */
void	bisect_time_wants(const struct bisect_time *,
	    const struct bisect_commit *raw, const size_t *skip, size_t nr_skip,
	    struct bisect_want **wants, size_t *nr_wants);
void	bisect_time_release(struct bisect_time *);


/*
 * One slot, the drift gate (docs/bisection.md, "The one-slot drift
 * gate"). With times known (timed) and the neighbour test quiet, a lone
 * want of the search (one commit, not the reference, not among skip[],
 * the good ends) gets BISECT_TIME_SENTINEL new run of the reference
 * beside it, as one batch, when BISECT_TIME_EVERY runs or more (this
 * want's new ones counted) come after the reference's last run: over the
 * search the reference's runs spread evenly in time, for the F test and
 * the blocking of bisect_time_block. *wants is grown; raw[] the caller's
 * commits. Once a test has fired (bt->used) bisect_time_wants pairs
 * every run instead.
 */
#define BISECT_TIME_SENTINEL	1
#define BISECT_TIME_EVERY	4
void	bisect_time_sentinel(const struct bisect_time *bt,
	    const struct bisect_commit *raw, int timed, const size_t *skip,
	    size_t nr_skip, struct bisect_want **wants, size_t *nr_wants);

/*
 * One slot: where the neighbour test has not fired (bt->used clear),
 * the rounds' blocking (bisect_rounds_block: the F test of the
 * reference's runs in time order, in groups of 3, and each sample of a
 * commit not among skip[] over the median of the reference's 3 runs
 * nearest it). Returns 1 when out[] was blocked.
 */
size_t	bisect_time_block(struct bisect_time *bt, struct bisect_commit *out,
	    const struct bisect_commit *commits, const size_t *skip,
	    size_t nr_skip);

/* One sample of a commit as a run, for walking every run in time order. */
struct bisect_time_run {
	double	t;
	size_t	commit;
	size_t	k;		/* its index in the commit's samples */
};

/*
 * Every sample of commits[0..nr) as a run, sorted by time (then commit,
 * then index), into *out (the caller frees it) and their number into *n.
 * -1, with nothing allocated, when a sample has no finite time.
 */
int	bisect_time_runs(struct bisect_time_run **out, size_t *n,
	    const struct bisect_commit *commits, size_t nr);

/*
 * Spearman's rank correlation of x and y (mid-ranks for ties) into *rho,
 * and its one-sided p (H1: rho > 0) by the t approximation on n - 2
 * degrees of freedom, as scipy.stats.spearmanr(alternative="greater").
 * NaN when n < 3 or either side does not vary.
 */
double	bisect_time_spearman(const double *x, const double *y, size_t n,
	    double *rho);

#endif
