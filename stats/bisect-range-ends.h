/*
 * Do a range's ends differ? The sequential rank test of one range's ends
 * (bisect-range-ends.c), which bisect_range_decide asks first.
 */
#ifndef STATS_BISECT_RANGE_ENDS_H
#define STATS_BISECT_RANGE_ENDS_H

#include <stddef.h>

#include "stats/bisect-range.h"
#include "stats/bisect-stat.h"

/*
 * Do the range's ends differ? 1 yes, 0 no, -1 not yet (wants added). The
 * looks come at first_runs samples per end, then half as many more each
 * time, up to n_max; *shift and *p the ends' shift and p, *n_end the
 * look at which the change was first seen.
 */
int	bisect_range_ends(struct bisect_state *, const struct bisect_range *,
	    double alpha, unsigned n_max, double *shift, double *p,
	    unsigned *n_end);

/*
 * The whole range's ends not told apart while a change could be there:
 * inconclusive, with the smallest change, in %, that n samples of each
 * end would show more often than not (g the good ends' ng samples, b
 * the bad end's nb).
 */
void	bisect_range_ends_set_detectable(struct bisect_state *,
	    const struct bisect_range *, const double *g, size_t ng,
	    const double *b, size_t nb, unsigned n, double alpha);

/* The rank tests' alternative: the direction of a regression. */
enum bisect_stat_alt bisect_range_ends_alt(const struct bisect_state *);

/* HL shift of b over a, in % of a's median, with its interval */
void	bisect_range_ends_shift(const double *a, size_t na, const double *b,
	    size_t nb, double confidence, double *shift, double *pct,
	    double *lo, double *hi);

/*
 * The smallest change worth finding between a range's ends, in %: at
 * least min_eff, and at least the change that a one-sided test at alpha
 * (two-sided when the direction is unknown) would find 80% of the time
 * with max_runs samples of each end, the noise read from the width of
 * the current 98% Hodges-Lehmann interval [lo, hi] (in %) of ng good and
 * nb bad samples.
 */
double	bisect_range_ends_floor(const struct bisect_state *, size_t ng,
	    size_t nb, size_t nr_goods, double lo, double hi, double alpha,
	    double min_eff);

#endif
