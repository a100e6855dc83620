/*
 * False discoveries across many tests at once: a compare table tests
 * hundreds of metrics, and at 5% each some of them "move" by chance. The
 * Benjamini-Hochberg step-up procedure keeps the expected share of false
 * discoveries among the rows shown at alpha (docs/methodology.md).
 */
#ifndef STATS_FDR_H
#define STATS_FDR_H

#include <stddef.h>

/*
 * q[i]: the Benjamini-Hochberg adjusted p-value of p[i] among the n, as
 * statsmodels' multipletests(method="fdr_bh") gives it; reject p[i] at a
 * false discovery rate alpha when q[i] <= alpha. A NaN p (a test that
 * could not be made) is left out of the family and gets a NaN q.
 */
void	fdr_bh(double *q, const double *p, size_t n);

#endif
