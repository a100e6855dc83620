/*
 * Descriptive statistics of one set of samples (the "25692 ± 0%" of a
 * compare table) and the spread of per-instance values within one run
 * (seed 002: 32 processes whose throughputs went from very uneven to even).
 * Sums are compensated and the variance is the corrected two-pass one, so
 * that large offsets with a small spread (1e9 ± 1) lose no digits that a
 * naive one-pass formula would. docs/methodology.md states the conventions
 * for n = 0, n = 1 and a zero mean.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/summary.h"
#include "util/xalloc.h"

/* Neumaier's compensated sum. */
static double
summary_sum(const double *x, size_t n)
{
	double	sum = 0, c = 0, t;
	size_t	i;

	for (i = 0; i < n; i++) {
		t = sum + x[i];
		if (fabs(sum) >= fabs(x[i]))
			c += (sum - t) + x[i];
		else
			c += (x[i] - t) + sum;
		sum = t;
	}
	return sum + c;
}

/*
 * The sum of squared deviations from mean, corrected two-pass (Chan, Golub
 * and LeVeque), returned as q * 4^k with the exponent k in *scale: the
 * deviations are scaled by a power of two (exactly) so that squaring
 * 1e200 or 1e-200 neither overflows nor underflows.
 */
static double
summary_sumsq_dev(const double *x, size_t n, double mean, int *scale)
{
	double	s = 0, c = 0, d, m = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		m = fmax(m, fabs(x[i] - mean));
	*scale = 0;
	if (m == 0 || !isfinite(m))
		return m == 0 ? 0 : NAN;
	frexp(m, scale);
	for (i = 0; i < n; i++) {
		d = ldexp(x[i] - mean, -*scale);
		s += d * d;
		c += d;
	}
	return fmax(s - c * c / (double)n, 0);
}

static int
summary_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
summary_compute(struct summary *s, const double *x, size_t n)
{
	double	*sorted, q;
	size_t	 i;
	int	 scale;

	s->n = n;
	if (n == 0) {
		s->mean = s->stddev = s->stddev_pct = NAN;
		s->median = s->min = s->max = NAN;
		return;
	}
	s->mean = summary_sum(x, n) / (double)n;
	if (n == 1)
		s->stddev = NAN;
	else {
		q = summary_sumsq_dev(x, n, s->mean, &scale);
		s->stddev = ldexp(sqrt(q / (double)(n - 1)), scale);
	}
	s->stddev_pct = 100 * s->stddev / fabs(s->mean);

	s->min = s->max = x[0];
	for (i = 1; i < n; i++) {
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}

	sorted = xreallocarray(NULL, n, sizeof *sorted);
	memcpy(sorted, x, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, summary_cmp);
	if (n % 2)
		s->median = sorted[n / 2];
	else
		s->median = sorted[n / 2 - 1] / 2 + sorted[n / 2] / 2;
	free(sorted);
}

void
summary_spread(struct spread *sp, const double *x, size_t n)
{
	struct summary	s;
	double		q, r;
	int		scale = 0;

	summary_compute(&s, x, n);
	sp->n = n;
	sp->mean = s.mean;
	sp->cv = s.stddev_pct;
	sp->min = s.min;
	sp->max = s.max;
	if (n == 0) {
		sp->min_max_ratio = sp->jain = NAN;
		return;
	}
	sp->min_max_ratio = s.min / s.max;

	/*
	 * Jain's index (sum x)^2 / (n sum x^2). As n sum x^2 = (sum x)^2 +
	 * n sum (x - mean)^2, it is 1 / (1 + r^2) with r the population
	 * standard deviation over |mean|: exactly 1 for equal values, no
	 * overflow from squaring large values, 0 when the sum is 0.
	 */
	q = n == 1 ? 0 : summary_sumsq_dev(x, n, s.mean, &scale);
	if (s.mean == 0 && q == 0) {
		sp->jain = NAN;
		return;
	}
	r = ldexp(sqrt(q / (double)n), scale) / fabs(s.mean);
	sp->jain = 1 / (1 + r * r);
}
