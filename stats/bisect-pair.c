/*
 * The fresh interleaved check of a culprit against its parent: the pairs
 * of the check's batch found by time among the samples, Wilcoxon's
 * signed-rank test on their differences, and the sequential verdict the
 * driver acts on (found, or tested again, then unconfirmed).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/bisect-pair.h"
#include "util/xalloc.h"

const char *
bisect_pair_verdict_name(enum bisect_pair_verdict v)
{
	switch (v) {
	case BISECT_PAIR_AGREES:
		return "agrees";
	case BISECT_PAIR_DISAGREES:
		return "disagrees";
	case BISECT_PAIR_MORE:
		return "more";
	case BISECT_PAIR_UNDECIDED:
		return "undecided";
	case BISECT_PAIR_UNTIMED:
		return "untimed";
	}
	return "unknown";
}

static int
bisect_pair_cmp_abs(const void *a, const void *b)
{
	double	x = fabs(*(const double *)a), y = fabs(*(const double *)b);

	return x < y ? -1 : x > y;
}

/* P(R+ <= r) and P(R+ >= r) for n untied ranks: subset sums of 1..n */
static void
bisect_pair_exact(size_t n, double r, double *le, double *ge)
{
	size_t	 max = n * (n + 1) / 2, i, k;
	double	*c = xcalloc(max + 1, sizeof *c), total = 0;

	c[0] = 1;
	for (i = 1; i <= n; i++)
		for (k = max; k >= i; k--)
			c[k] += c[k - i];
	*le = *ge = 0;
	for (k = 0; k <= max; k++) {
		total += c[k];
		if ((double)k <= r + 1e-9)
			*le += c[k];
		if ((double)k >= r - 1e-9)
			*ge += c[k];
	}
	*le /= total;
	*ge /= total;
	free(c);
}

double
bisect_pair_signed_rank(const double *d, size_t n, enum bisect_stat_alt alt,
    double *stat)
{
	double	*a, rplus = 0, rminus = 0, mn, se, z, p, le, ge, t;
	size_t	 m = 0, i, j, k;
	int	 ties = 0;

	a = xcalloc(n + 1, sizeof *a);
	for (i = 0; i < n; i++)
		if (d[i] != 0 && !isnan(d[i]))
			a[m++] = d[i];
	if (stat != NULL)
		*stat = NAN;
	if (m == 0) {
		free(a);
		return NAN;
	}
	qsort(a, m, sizeof *a, bisect_pair_cmp_abs);
	se = (double)m * (m + 1) * (2.0 * m + 1);
	for (i = 0; i < m; i = j) {
		double r;

		for (j = i + 1; j < m && fabs(a[j]) == fabs(a[i]); j++)
			;
		r = (double)(i + 1 + j) / 2;	/* mid-rank of i..j-1 */
		if (j - i > 1) {
			ties = 1;
			t = (double)(j - i);
			se -= 0.5 * t * (t * t - 1);
		}
		for (k = i; k < j; k++) {
			if (a[k] > 0)
				rplus += r;
			else
				rminus += r;
		}
	}
	free(a);
	t = alt == BISECT_STAT_TWO_SIDED ? fmin(rplus, rminus) : rplus;
	if (stat != NULL)
		*stat = t;
	if (m <= 50 && !ties) {
		bisect_pair_exact(m, rplus, &le, &ge);
		if (alt == BISECT_STAT_GREATER)
			p = ge;
		else if (alt == BISECT_STAT_LESS)
			p = le;
		else if (fabs(rplus - (double)m * (m + 1) / 4) < 1e-9)
			p = 1;
		else
			p = 2 * fmin(le, ge);
		return p > 1 ? 1 : p;
	}
	mn = (double)m * (m + 1) * 0.25;
	se = sqrt(se / 24);
	if (!(se > 0))
		return NAN;
	z = (t - mn) / se;
	if (alt == BISECT_STAT_GREATER)
		return gsl_cdf_ugaussian_Q(z);
	if (alt == BISECT_STAT_LESS)
		return gsl_cdf_ugaussian_P(z);
	return 2 * gsl_cdf_ugaussian_Q(fabs(z));
}

struct pair_run {
	double	t;
	double	v;
	int	side;	/* 0 the parent, 1 the culprit */
	size_t	m;	/* the machine's index, 0 when none is known */
};

static int
bisect_pair_cmp_time(const void *a, const void *b)
{
	const struct pair_run *x = a, *y = b;

	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * The machine index of name among names[*nr] (added when new); 0 for a
 * run whose machine is unknown.
 */
static size_t
bisect_pair_machine(const char **names, size_t *nr, const char *name)
{
	size_t	i;

	if (name == NULL)
		return 0;
	for (i = 0; i < *nr; i++)
		if (strcmp(names[i], name) == 0)
			return i + 1;
	names[(*nr)++] = name;
	return *nr;
}

/*
 * Several machines run a batch at once, so that in time order over all of
 * them a's runs and b's come in threes, not by turns; on one machine they
 * come as dispatch ordered them, each pair next to each other in time and
 * on one machine, its offset cancelled.
 */
size_t
bisect_pair_find_on(double *d, int *ratio, const double *a, const double *ta,
    const char *const *ma, size_t na, const double *b, const double *tb,
    const char *const *mb, size_t nb, double after)
{
	struct pair_run	*runs;
	const char	**names;
	double		 x, y;
	size_t		 i, k, n = 0, pairs = 0, nm = 0, lo, hi;
	int		 positive = 1;

	runs = xcalloc(na + nb + 1, sizeof *runs);
	names = xcalloc(na + nb + 1, sizeof *names);
	for (i = 0; i < 2; i++) {
		const double	*v = i ? b : a, *t = i ? tb : ta;
		const char *const *mm = i ? mb : ma;
		size_t		 m = i ? nb : na;

		for (k = 0; k < m; k++) {
			if (!(t[k] > after) || isnan(v[k]))
				continue;
			runs[n].t = t[k];
			runs[n].v = v[k];
			runs[n].m = ma != NULL && mb != NULL ?
			    bisect_pair_machine(names, &nm, mm[k]) : 0;
			runs[n++].side = (int)i;
			if (!(v[k] > 0))
				positive = 0;
		}
	}
	qsort(runs, n, sizeof *runs, bisect_pair_cmp_time);
	*ratio = positive;
	/* each machine's runs, taken two by two from its last */
	for (hi = n; hi > 0; hi = lo) {
		for (lo = hi - 1; lo > 0 && runs[lo - 1].m == runs[hi - 1].m;
		    lo--)
			;
		for (k = hi; k >= lo + 2 && runs[k - 1].side !=
		    runs[k - 2].side; k -= 2) {
			x = runs[k - 1].side ? runs[k - 2].v : runs[k - 1].v;
			y = runs[k - 1].side ? runs[k - 1].v : runs[k - 2].v;
			d[pairs++] = positive ? log(y / x) : y - x;
		}
	}
	free(runs);
	free(names);
	return pairs;
}

size_t
bisect_pair_find(double *d, int *ratio, const double *a, const double *ta,
    size_t na, const double *b, const double *tb, size_t nb, double after)
{
	return bisect_pair_find_on(d, ratio, a, ta, NULL, na, b, tb, NULL, nb,
	    after);
}

size_t
bisect_pair_fresh(double *d, int *ratio, const struct bisect_commit *commits,
    size_t nr, size_t a, size_t b)
{
	const struct bisect_commit	*c;
	double				 last = -INFINITY, end = -INFINITY;
	size_t				 i, k;

	*ratio = 1;
	/* every sample needs its time (NaN: the run recorded none) */
	for (i = 0; i < nr; i++) {
		c = &commits[i];
		if (c->nr_samples == 0)
			continue;
		if (c->times == NULL)
			return (size_t)-1;
		for (k = 0; k < c->nr_samples; k++) {
			if (!isfinite(c->times[k]))
				return (size_t)-1;
			if ((i == a || i == b) && c->times[k] > end)
				end = c->times[k];
		}
	}
	/* the latest run of another commit before the check's last run */
	for (i = 0; i < nr; i++) {
		c = &commits[i];
		if (i == a || i == b)
			continue;
		for (k = 0; k < c->nr_samples; k++)
			if (c->times[k] > last && c->times[k] < end)
				last = c->times[k];
	}
	return bisect_pair_find_on(d, ratio, commits[a].samples, commits[a].times,
	    commits[a].machines, commits[a].nr_samples, commits[b].samples,
	    commits[b].times, commits[b].machines, commits[b].nr_samples,
	    last);
}

static int
bisect_pair_cmp_val(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
bisect_pair_hl(const double *d, size_t n, double confidence, double *est,
    double *lo, double *hi)
{
	double	*w, z, k;
	size_t	 m = n * (n + 1) / 2, i, j, q = 0, kk;

	*est = *lo = *hi = NAN;
	if (n == 0)
		return;
	w = xcalloc(m, sizeof *w);
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			w[q++] = (d[i] + d[j]) / 2;
	qsort(w, m, sizeof *w, bisect_pair_cmp_val);
	*est = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2);
	k = floor((double)m / 2 - z * sqrt((double)n * (n + 1) *
	    (2.0 * n + 1) / 24));
	kk = k < 0 ? 0 : (size_t)k;
	if (kk >= m / 2 + m % 2)
		kk = 0;
	*lo = w[kk];
	*hi = w[m - 1 - kk];
	free(w);
}

static unsigned
bisect_pair_grow(unsigned n)
{
	unsigned next = (unsigned)ceil(n * 1.5);

	return next > n ? next : n + 1;
}

enum bisect_pair_verdict
bisect_pair_decide(struct bisect_pair_check *out, const double *d, size_t n,
    double change, unsigned first, unsigned cap)
{
	double		*x = NULL, *h = NULL, s = change < 0 ? -1 : 1;
	size_t		 i;
	unsigned	 look;

	memset(out, 0, sizeof *out);
	out->step_pct = out->p_agree = out->p_disagree = NAN;
	out->pairs = n;
	if (first < 2)
		first = 2;
	if (cap < 2 * first)
		cap = 2 * first;
	if (n < first) {
		out->verdict = BISECT_PAIR_MORE;
		out->want = first;
		return out->verdict;
	}
	/* oriented so that the change claimed is positive */
	x = xcalloc(n, sizeof *x);
	h = xcalloc(n, sizeof *h);
	for (i = 0; i < n; i++) {
		x[i] = s * d[i];
		h[i] = x[i] - fabs(change) / 2;
	}
	out->step_pct = 100 * expm1(bisect_stat_median(d, n));
	out->p_agree = bisect_pair_signed_rank(x, n, BISECT_STAT_GREATER,
	    NULL);
	out->p_disagree = bisect_pair_signed_rank(h, n, BISECT_STAT_LESS,
	    NULL);
	if (out->p_disagree < BISECT_PAIR_ALPHA_DISAGREE) {
		out->verdict = BISECT_PAIR_DISAGREES;
		if (n < 2 * (size_t)first) {
			/* tested again, twice the pairs, before it stands */
			out->verdict = BISECT_PAIR_MORE;
			out->want = 2 * first;
		}
		goto out;
	}
	if (out->p_agree < BISECT_PAIR_ALPHA_AGREE) {
		out->verdict = BISECT_PAIR_AGREES;
		goto out;
	}
	if (n >= cap) {
		out->verdict = BISECT_PAIR_UNDECIDED;
		goto out;
	}
	for (look = first; look <= n; look = bisect_pair_grow(look))
		;
	out->verdict = BISECT_PAIR_MORE;
	out->want = look < cap ? look : cap;
out:
	free(x);
	free(h);
	return out->verdict;
}
