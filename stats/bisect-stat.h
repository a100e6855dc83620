/*
 * The statistics the bisection driver needs, kept apart from the
 * comparison module so that the driver stands alone: the Mann-Whitney U
 * test, the Hodges-Lehmann shift with its distribution-free interval, and
 * a Student-t location-scale fit of two groups sharing one scale.
 */
#ifndef STATS_BISECT_STAT_H
#define STATS_BISECT_STAT_H

#include <stddef.h>

/* Which way the alternative points: b below a, b above a, or either. */
enum bisect_stat_alt {
	BISECT_STAT_LESS = -1,
	BISECT_STAT_TWO_SIDED = 0,
	BISECT_STAT_GREATER = 1,
};

/*
 * p-value of the Mann-Whitney U test of b against a: exact when there are
 * no ties and the samples are small, else the normal approximation with
 * the tie and continuity corrections (as SciPy's mannwhitneyu). 1 when
 * either side is empty.
 */
double	bisect_stat_mw(const double *a, size_t na, const double *b, size_t nb,
	    enum bisect_stat_alt);

/*
 * The Hodges-Lehmann estimate of the shift b - a (the median of all
 * pairwise differences) and its distribution-free interval of the given
 * confidence (from the normal approximation to U's distribution).
 */
void	bisect_stat_hl(const double *a, size_t na, const double *b, size_t nb,
	    double confidence, double *shift, double *lo, double *hi);

double	bisect_stat_median(const double *, size_t);

/*
 * Maximum likelihood fit of x ~ loc[g] + scale * t(nu), the groups
 * sharing one scale (EM, from the medians and the MAD). x[g] has n[g]
 * values; loc[] gets one location per group.
 */
void	bisect_stat_tfit(const double *const *x, const size_t *n, size_t groups,
	    double nu, double *loc, double *scale);

/*
 * The same for two levels when each sample's level is uncertain: sample i
 * is at loc[1] with probability w1[i], else at loc[0].
 */
void	bisect_stat_tfit2(const double *x, const double *w1, size_t n,
	    double nu, double loc[2], double *scale);

/*
 * The t scale of the noise around each group's own location (each group
 * a commit), corrected for the degrees of freedom the locations take:
 * the sum of weighted squares over n - groups rather than n. 0 when no
 * group has two samples.
 */
double	bisect_stat_tscale(const double *const *x, const size_t *n,
	    size_t groups, double nu);

/* The t location of x for a known scale (iteratively reweighted). */
double	bisect_stat_tloc(const double *x, size_t n, double nu, double scale);

/* log density of loc + scale * t(nu) at x; the sum over n values */
double	bisect_stat_tlogpdf(double x, double loc, double scale, double nu);
double	bisect_stat_tloglik(const double *x, size_t n, double loc,
	    double scale, double nu);

#endif
