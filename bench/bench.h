/*
 * What the bench programs share: a monotonic clock in seconds and the
 * median of a set of timings (sorted in place). Each bench is linked
 * on its own (bisect-sim from its sim-*.c too), so these are static
 * inline here.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double
bench_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double
bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
