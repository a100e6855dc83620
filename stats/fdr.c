/*
 * Benjamini-Hochberg adjusted p-values (stats/fdr.h): sort the p-values,
 * scale the k-th smallest by m/k, and take the running minimum from the
 * largest down, so that the adjusted values keep the p-values' order.
 */
#include <math.h>
#include <stdlib.h>

#include "stats/fdr.h"
#include "util/xalloc.h"

struct fdr_item {
	double	p;
	size_t	i;
};

static int
fdr_cmp(const void *a, const void *b)
{
	const struct fdr_item	*x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void
fdr_bh(double *q, const double *p, size_t n)
{
	struct fdr_item	*v = xcalloc(n + 1, sizeof *v);
	size_t		 m = 0, k, i;
	double		 run = 1, x;

	for (i = 0; i < n; i++) {
		q[i] = NAN;
		if (isnan(p[i]))
			continue;
		v[m].p = p[i];
		v[m].i = i;
		m++;
	}
	qsort(v, m, sizeof *v, fdr_cmp);
	for (k = m; k > 0; k--) {
		x = v[k - 1].p * (double)m / (double)k;
		if (x < run)
			run = x;
		q[v[k - 1].i] = run;
	}
	free(v);
}
