/*
 * The tail test (changepoint-tail.h): the newest k commits' mean against
 * the reference commits', with the commit-to-commit spread counted and a
 * run far from its commit's median pulled back (docs/design.md, "File
 * notes", has the statistic).
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint-tail.h"
#include "util/error.h"
#include "util/xalloc.h"

#define TAIL_MAX	3
#define TAIL_REFERENCE	20
#define TAIL_MIN_REF	8
#define TAIL_RUNS	12
#define TAIL_SCREEN_P	0.02
#define TAIL_ALPHA	0.0005
/* The one-sided confidence of the commit-to-commit spread used. */
#define TAIL_TAU_CONFIDENCE	0.75
/* Values further than this many sigma from their commit's median are clipped. */
#define TAIL_CLIP	3.0

struct tail_unit {
	size_t	start, nr;
	double	median, mean, var;
};

static int
changepoint_tail_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
changepoint_tail_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, changepoint_tail_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* sigma from the median distance between two runs of one commit. */
static double
changepoint_tail_sigma(const double *values, const struct tail_unit *u, size_t lo,
    size_t hi)
{
	double	*d = NULL, s;
	size_t	 nd = 0, alloc = 0, j, a, b;

	for (j = lo; j < hi; j++)
		for (a = 0; a < u[j].nr; a++)
			for (b = a + 1; b < u[j].nr; b++) {
				ALLOC_GROW(d, nd, alloc);
				d[nd++] = fabs(values[u[j].start + a] -
				    values[u[j].start + b]);
			}
	if (nd == 0)
		return 0;
	/* the median of |N(0, 2 sigma^2)| is 0.6745 sqrt(2) sigma */
	s = changepoint_tail_median(d, nd) / (0.6744897501960817 * M_SQRT2);
	free(d);
	return s;
}

static void
changepoint_tail_unit_stats(struct tail_unit *u, const double *values, double sigma,
    double *scratch)
{
	double	x, lo, hi, sum = 0, ss = 0;
	size_t	i;

	memcpy(scratch, values + u->start, u->nr * sizeof *scratch);
	u->median = changepoint_tail_median(scratch, u->nr);
	lo = u->median - TAIL_CLIP * sigma;
	hi = u->median + TAIL_CLIP * sigma;
	for (i = 0; i < u->nr; i++) {
		x = values[u->start + i];
		if (sigma > 0 && x < lo)
			x = lo;
		else if (sigma > 0 && x > hi)
			x = hi;
		scratch[i] = x;
		sum += x;
	}
	u->mean = sum / (double)u->nr;
	for (i = 0; i < u->nr; i++)
		ss += (scratch[i] - u->mean) * (scratch[i] - u->mean);
	u->var = u->nr > 1 ? ss / (double)(u->nr - 1) : 0;
}

/*
 * The variance of a commit's mean from commit to commit beyond what its
 * runs' noise explains, over commits [lo, hi): an upper bound (the
 * variance of their means at its one-sided 75% confidence limit), since
 * underestimating it makes one commit's own offset a regression.
 */
static double
changepoint_tail_tau2(const struct tail_unit *u, size_t lo, size_t hi, double sw2)
{
	double	m = 0, sb2 = 0, inv = 0, df, x;
	size_t	j;

	if (hi < lo + 2)
		return 0;
	for (j = lo; j < hi; j++) {
		m += u[j].mean;
		inv += 1.0 / (double)u[j].nr;
	}
	m /= (double)(hi - lo);
	inv /= (double)(hi - lo);
	for (j = lo; j < hi; j++)
		sb2 += (u[j].mean - m) * (u[j].mean - m);
	df = (double)(hi - lo - 1);
	sb2 /= df;
	x = sb2 * df / gsl_cdf_chisq_Pinv(1 - TAIL_TAU_CONFIDENCE, df) -
	    sw2 * inv;
	return x > 0 ? x : 0;
}

/*
 * The tail of the newest k commits against the reference before it: the
 * means of their means (*T, *M over *R commits) and the standard error of
 * T - M, the spread from commit to commit counted from ufrom.
 */
static double
changepoint_tail_se(const struct tail_unit *u, size_t ufrom, size_t nu,
    size_t k, size_t reference, double sw2, double *T_, double *M_,
    size_t *R_)
{
	double	T, M, sb2, tau2, vt;
	size_t	lo, R, j;

	/* the spread from commit to commit: every commit since from */
	tau2 = changepoint_tail_tau2(u, ufrom, nu - k, sw2);
	lo = nu - k > ufrom + reference ? nu - k - reference : ufrom;
	R = nu - k - lo;
	M = sb2 = T = vt = 0;
	for (j = lo; j < nu - k; j++)
		M += u[j].mean;
	M /= (double)R;
	for (j = lo; j < nu - k; j++)
		sb2 += (u[j].mean - M) * (u[j].mean - M);
	sb2 /= (double)(R - 1);
	for (j = nu - k; j < nu; j++) {
		T += u[j].mean;
		vt += 1.0 / (double)u[j].nr;
	}
	T /= (double)k;
	vt = tau2 / (double)k + sw2 * vt / (double)(k * k);
	*T_ = T;
	*M_ = M;
	*R_ = R;
	return sqrt(vt + sb2 / (double)R);
}

/*
 * The options, each 0 for its default, checked: 0, or -1 with *cause.
 */
struct changepoint_tail_params {
	size_t	max_tail, reference, min_ref, runs;
	double	screen, alpha, min_effect;
	int	dir;
};

static int
changepoint_tail_params(struct changepoint_tail_params *pr,
    const struct changepoint_tail_opts *opts, char **cause)
{
	pr->max_tail = TAIL_MAX;
	pr->reference = TAIL_REFERENCE;
	pr->min_ref = TAIL_MIN_REF;
	pr->runs = TAIL_RUNS;
	pr->screen = TAIL_SCREEN_P;
	pr->alpha = TAIL_ALPHA;
	pr->min_effect = 0;
	pr->dir = 0;
	if (opts != NULL) {
		if (opts->max_tail != 0)
			pr->max_tail = opts->max_tail;
		if (opts->reference != 0)
			pr->reference = opts->reference;
		if (opts->min_reference != 0)
			pr->min_ref = opts->min_reference;
		if (opts->runs != 0)
			pr->runs = opts->runs;
		if (opts->screen_p != 0)
			pr->screen = opts->screen_p;
		if (opts->alpha != 0)
			pr->alpha = opts->alpha;
		pr->dir = opts->direction;
		pr->min_effect = fabs(opts->min_effect_pct);
	}
	if (pr->max_tail > TAIL_MAX * 4 || pr->min_ref < 2 || !(pr->alpha > 0 &&
	    pr->alpha < 1) || !(pr->screen >= pr->alpha && pr->screen < 1)) {
		error_set(cause, "tail test: bad options (max_tail %zu, "
		    "min_reference %zu, alpha %g, screen_p %g)", pr->max_tail,
		    pr->min_ref, pr->alpha, pr->screen);
		return -1;
	}
	return 0;
}

/*
 * The tail of the last best units, out's p_value and means set: its
 * group and index, the change, and the verdict: found when it is
 * significant and each unit has the runs, more runs when it passes the
 * screen without them.
 */
static void
changepoint_tail_verdict(struct changepoint_tail *out,
    const struct tail_unit *u, size_t nu, const size_t *groups, size_t best,
    const struct changepoint_tail_params *pr)
{
	size_t	j;
	int	enough;

	for (enough = 1, j = nu - best; j < nu; j++)
		enough &= u[j].nr >= pr->runs;
	out->group = groups != NULL ? groups[u[nu - best].start] :
	    u[nu - best].start;
	out->index = u[nu - best].start;
	out->change_pct = 100 * (out->mean_after - out->mean_before) /
	    fabs(out->mean_before);
	if (out->p_value < pr->alpha && enough)
		out->verdict = CHANGEPOINT_TAIL_FOUND;
	else if (out->p_value < pr->screen && !enough) {
		out->verdict = CHANGEPOINT_TAIL_MORE;
		out->more_runs = pr->runs;
	}
}

int
changepoint_tail_test(struct changepoint_tail *out, const double *values,
    const size_t *groups, size_t n, size_t from,
    const struct changepoint_tail_opts *opts, char **cause)
{
	struct tail_unit	*u = NULL;
	struct changepoint_tail_params pr;
	double			 sigma, sw2, dfw, *scratch = NULL;
	double			 p[TAIL_MAX * 4 + 1], t[TAIL_MAX * 4 + 1];
	double			 mt[TAIL_MAX * 4 + 1], mr[TAIL_MAX * 4 + 1];
	double			 T, M, se, e, best_p = 2;
	size_t			 nu = 0, ufrom, lo, i, j, k, R, tested = 0;
	size_t			 best = 0;
	int			 r = -1;
	gsl_error_handler_t	*old;

	memset(out, 0, sizeof *out);
	out->p_value = 1;
	if (changepoint_tail_params(&pr, opts, cause) != 0)
		goto out;
	if (changepoint_check_values(values, groups, n, cause) != 0)
		goto out;
	u = xcalloc(n + 1, sizeof *u);
	for (i = 0; i < n; i++) {
		if (i == 0 || groups == NULL || groups[i] != groups[i - 1])
			u[nu++].start = i;
		u[nu - 1].nr++;
	}
	for (ufrom = 0; ufrom < nu && u[ufrom].start < from; ufrom++)
		;
	if (nu < ufrom + pr.max_tail + pr.min_ref)
		pr.max_tail = nu > ufrom + pr.min_ref ? nu - ufrom -
		    pr.min_ref : 0;
	if (pr.max_tail == 0) {
		r = 0;
		goto out;
	}
	out->zone = groups != NULL ? groups[u[nu - pr.max_tail].start] :
	    u[nu - pr.max_tail].start;
	lo = nu - pr.max_tail - pr.reference;
	if (nu < pr.max_tail + pr.reference || lo < ufrom)
		lo = ufrom;
	sigma = changepoint_tail_sigma(values, u, lo, nu);
	scratch = xcalloc(n, sizeof *scratch);
	sw2 = dfw = 0;
	for (j = ufrom; j < nu; j++) {
		changepoint_tail_unit_stats(&u[j], values, sigma, scratch);
		sw2 += u[j].var * (double)(u[j].nr - 1);
		dfw += (double)(u[j].nr - 1);
	}
	if (dfw == 0) {
		r = 0;
		goto out;
	}
	sw2 /= dfw;

	old = gsl_set_error_handler_off();
	for (k = 1; k <= pr.max_tail; k++) {
		p[k] = 2;
		se = changepoint_tail_se(u, ufrom, nu, k, pr.reference, sw2, &T,
		    &M, &R);
		tested++;
		mt[k] = T;
		mr[k] = M;
		if (!(se > 0))
			continue;
		t[k] = (T - M) / se;
		e = M != 0 ? 100 * fabs(T - M) / fabs(M) : INFINITY;
		if (e < pr.min_effect || (pr.dir < 0 && t[k] > 0) ||
		    (pr.dir > 0 && t[k] < 0))
			continue;
		p[k] = gsl_cdf_tdist_Q(fabs(t[k]), (double)(R - 1));
		if (pr.dir == 0)
			p[k] *= 2;
	}
	gsl_set_error_handler(old);
	for (k = 1; k <= pr.max_tail; k++) {
		if (p[k] > 1)
			continue;
		p[k] = p[k] * (double)tested < 1 ? p[k] * (double)tested : 1;
		if (p[k] < best_p) {
			best_p = p[k];
			best = k;
		}
	}
	if (best == 0) {
		r = 0;
		goto out;
	}
	out->p_value = best_p;
	out->t = t[best];
	out->mean_before = mr[best];
	out->mean_after = mt[best];
	changepoint_tail_verdict(out, u, nu, groups, best, &pr);
	r = 0;
out:
	free(u);
	free(scratch);
	return r;
}

int
changepoint_tail_detect(struct changepoint_result *res,
    struct changepoint_tail *out, const double *values, const size_t *groups,
    size_t n, const struct changepoint_tail_opts *opts, char **cause)
{
	struct changepoint	*cp;
	size_t			 max_tail = TAIL_MAX, zone, from = 0, i, j, c;
	size_t			 last;

	memset(out, 0, sizeof *out);
	out->p_value = 1;
	if (opts != NULL && opts->max_tail != 0)
		max_tail = opts->max_tail;
	if (n == 0)
		return 0;
	/* the first value of the last max_tail commits */
	for (c = 1, zone = n - 1; zone > 0; zone--) {
		if (groups != NULL && groups[zone - 1] == groups[zone])
			continue;
		if (c++ == max_tail)
			break;
	}
	for (i = 0; i < res->nr_points; i++)
		if (res->points[i].index < zone && res->points[i].index > from)
			from = res->points[i].index;
	if (changepoint_tail_test(out, values, groups, n, from, opts,
	    cause) != 0)
		return -1;
	/* too short for the test: E-Divisive's tail stands */
	if (out->zone == 0 && out->verdict == CHANGEPOINT_TAIL_NONE)
		return 0;
	for (i = j = 0; i < res->nr_points; i++)
		if (res->points[i].index < zone)
			res->points[j++] = res->points[i];
	res->nr_points = j;
	if (out->verdict != CHANGEPOINT_TAIL_FOUND)
		return 0;
	last = res->nr_points;
	res->points = xreallocarray(res->points, last + 1, sizeof *res->points);
	cp = &res->points[last];
	memset(cp, 0, sizeof *cp);
	cp->group = out->group;
	cp->index = out->index;
	cp->order = (unsigned)last + 1;
	cp->p_value = out->p_value;
	cp->mean_before = out->mean_before;
	cp->mean_after = out->mean_after;
	cp->change_pct = out->change_pct;
	res->nr_points++;
	return 0;
}
