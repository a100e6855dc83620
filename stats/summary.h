/*
 * Descriptive statistics of one set of samples, and the spread of
 * per-instance values within one run (per process, per thread, per node).
 */
#ifndef STATS_SUMMARY_H
#define STATS_SUMMARY_H

#include <stddef.h>

struct summary {
	size_t	n;
	double	mean;
	double	stddev;		/* sample standard deviation (n - 1) */
	double	stddev_pct;	/* stddev as a percentage of |mean| */
	double	median;
	double	min;
	double	max;
};

struct spread {
	size_t	n;
	double	mean;
	double	cv;		/* coefficient of variation, % */
	double	min;
	double	max;
	double	min_max_ratio;	/* min / max, 1 is perfectly even */
	double	jain;		/* Jain's fairness index, 1/n .. 1 */
};

/* n == 0 gives zeros and NaNs, never a crash. */
void	summary_compute(struct summary *, const double *, size_t);
void	summary_spread(struct spread *, const double *, size_t);

#endif
