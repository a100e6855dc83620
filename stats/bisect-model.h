/*
 * The noise model of one bisection range: where good and bad samples lie
 * and how they scatter, estimated from the samples of the range's ends,
 * and the evidence a commit's samples give for "bad" over "good".
 */
#ifndef STATS_BISECT_MODEL_H
#define STATS_BISECT_MODEL_H

#include <stddef.h>

struct bisect_model {
	double	good;		/* location of the good level */
	double	bad;		/* location of the bad level */
	double	scale;		/* common t scale */
	double	scale_good;	/* predictive: the scale widened by the */
	double	scale_bad;	/*  uncertainty of each location */
	double	effect;		/* |bad - good| / scale */
	double	loglik;		/* of the split, locations integrated out */
};

/*
 * The noise scale of a range: the t scale of every sampled commit's
 * samples around that commit's own location (the good ends pooled as one
 * commit), which does not depend on where the culprit is.
 */
double	bisect_model_scale(const double *const *x, const size_t *n,
	    size_t groups);

/*
 * Fit both levels for a known scale to samples split into good and bad,
 * and the log-likelihood of that split with the two locations integrated
 * out under a flat prior (Laplace's method), so that splits compare
 * fairly.
 */
void	bisect_model_fit(struct bisect_model *, double scale,
	    const double *good, size_t ng, const double *bad, size_t nb);

/*
 * One level fitted to x for a known scale: the location in *loc, and the
 * log-likelihood with the location integrated out (Laplace's method).
 * Levels of a split add up to the split's loglik.
 */
double	bisect_model_level(const double *x, size_t n, double scale,
	    double *loc);

/* log-likelihood ratio of "bad" against "good" for the samples x */
double	bisect_model_llr(const struct bisect_model *, const double *x,
	    size_t n);

/*
 * Samples to take of a commit to move its odds by about e^3 (20 to 1) at
 * this effect size, at least 2, at most max.
 */
unsigned bisect_model_batch(const struct bisect_model *, unsigned max);

#endif
