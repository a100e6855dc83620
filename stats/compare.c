/*
 * Two sets of samples of one metric compared, A (the parent) against B:
 * Welch's t-test for the verdict, Fieller's interval for the %change with
 * the same degrees of freedom, Mann-Whitney U beside it (docs/methodology.md;
 * the unit tests check every number against SciPy 1.10).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>

#include "stats/compare.h"
#include "stats/summary.h"
#include "util/xalloc.h"

#define COMPARE_ALPHA		0.05
/* SciPy's mannwhitneyu uses the exact null distribution up to this size. */
#define COMPARE_MW_EXACT_MAX	8

struct compare_rank {
	double	value;
	size_t	index;
};

/*
 * GSL's default error handler aborts, and an underflowing tail probability
 * counts as an error to GSL. The statistics must never take the daemon
 * down, so GSL calls run with the handler off and their status ignored:
 * the returned values are still the best ones available (0 on underflow).
 */
static double
compare_beta_inc(double a, double b, double x)
{
	gsl_error_handler_t	*old;
	gsl_sf_result		 r;
	int			 status;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	old = gsl_set_error_handler_off();
	status = gsl_sf_beta_inc_e(a, b, x, &r);
	gsl_set_error_handler(old);
	if (status != GSL_SUCCESS && status != GSL_EUNDRFLW)
		return NAN;
	return status == GSL_EUNDRFLW ? 0 : r.val;
}

static double
compare_normal_q(double z)
{
	gsl_error_handler_t	*old;
	double			 q;

	old = gsl_set_error_handler_off();
	q = gsl_cdf_ugaussian_Q(z);
	gsl_set_error_handler(old);
	return q;
}

/*
 * The (1 - alpha/2) quantile of Student's t with df degrees of freedom.
 * GSL's tdist_Qinv is good to about 1e-9 only (SciPy 1.10's t.ppf is no
 * better), so its answer is polished by Newton steps on the tail
 * probability, which compare_t_two_sided computes to full precision.
 */
static double compare_t_two_sided(double, double);

static double
compare_t_quantile(double alpha, double df)
{
	gsl_error_handler_t	*old;
	double			 q, lnb, pdf, step;
	int			 i;

	old = gsl_set_error_handler_off();
	q = gsl_cdf_tdist_Qinv(alpha / 2, df);
	lnb = gsl_sf_lnbeta(df / 2, 0.5);
	gsl_set_error_handler(old);
	if (!isfinite(q) || !isfinite(lnb))
		return q;
	for (i = 0; i < 4; i++) {
		pdf = exp(-(df + 1) / 2 * log1p(q * q / df) - lnb) / sqrt(df);
		step = (compare_t_two_sided(q, df) - alpha) / 2 / pdf;
		if (!isfinite(step))
			break;
		q += step;
		if (fabs(step) <= 1e-15 * q)
			break;
	}
	return q;
}

/*
 * Two-sided Student t tail, 2 P(T > |t|) = I_{df / (df + t^2)}(df/2, 1/2),
 * the regularised incomplete beta function: the formula of SciPy's stdtr
 * (Cephes), accurate far into the tail.
 */
static double
compare_t_two_sided(double t, double df)
{
	double	x;

	if (isnan(t) || isnan(df))
		return NAN;
	if (isinf(t))
		return 0;
	if (t == 0)
		return 1;
	x = df / (df + t * t);
	if (fabs(t) > 1e150)
		x = df / (t * t);
	return compare_beta_inc(df / 2, 0.5, x);
}

struct compare_welch {
	double	mean_a, mean_b;
	double	va, vb;		/* sample variances */
	double	t, df;
	double	p;
};

static void
compare_welch(struct compare_welch *w, const double *a, size_t na,
    const double *b, size_t nb)
{
	struct summary	sa, sb;
	double		vna, vnb, denom;

	summary_compute(&sa, a, na);
	summary_compute(&sb, b, nb);
	w->mean_a = sa.mean;
	w->mean_b = sb.mean;
	w->va = sa.stddev * sa.stddev;
	w->vb = sb.stddev * sb.stddev;
	vna = w->va / (double)na;
	vnb = w->vb / (double)nb;
	w->df = (vna + vnb) * (vna + vnb) /
	    (vna * vna / (double)(na - 1) + vnb * vnb / (double)(nb - 1));
	if (isnan(w->df))
		w->df = 1;	/* SciPy: both variances zero */
	if (isinf(vna + vnb) || isinf(vna * vna + vnb * vnb)) {
		/* squares overflowed: the same ratio, scaled */
		double	s = fmax(vna, vnb), ra = vna / s, rb = vnb / s;

		w->df = (ra + rb) * (ra + rb) /
		    (ra * ra / (double)(na - 1) + rb * rb / (double)(nb - 1));
	}
	denom = sqrt(vna + vnb);
	w->t = (sb.mean - sa.mean) / denom;
	w->p = compare_t_two_sided(w->t, w->df);
	if (isnan(w->t))
		w->p = NAN;
}

double
compare_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	struct compare_welch	w;

	if (na < 2 || nb < 2)
		return NAN;
	compare_welch(&w, a, na, b, nb);
	return w.p;
}

static int
compare_rank_cmp(const void *x, const void *y)
{
	const struct compare_rank	*p = x, *q = y;

	return (p->value > q->value) - (p->value < q->value);
}

/*
 * The number of arrangements of m + n distinct values where the U of the
 * m-sample is at most kmax, over all C(m + n, m) of them: the coefficients
 * of the Gaussian binomial [m + n choose m]_q = prod_{i=1..m} (1 - q^(n+i))
 * / (1 - q^i), truncated at kmax, built by multiplying and dividing one
 * factor at a time (all intermediate polynomials are exact integers while
 * they stay under 2^53). O(m kmax) for the m <= 8 SciPy uses it for.
 */
static double
compare_mw_exact_cdf(size_t m, size_t n, size_t kmax)
{
	double	*g, sum = 0, total = 1;
	size_t	 i, k;

	if (m > n) {
		k = m;
		m = n;
		n = k;
	}
	g = xcalloc(kmax + 1, sizeof *g);
	g[0] = 1;
	for (i = 1; i <= m; i++) {
		for (k = kmax; k >= n + i && k <= kmax; k--)
			g[k] -= g[k - n - i];
		for (k = i; k <= kmax; k++)
			g[k] += g[k - i];
		total = total * (double)(n + i) / (double)i;
	}
	for (k = 0; k <= kmax; k++)
		sum += g[k];
	free(g);
	return sum / total;
}

double
compare_mannwhitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	struct compare_rank	*r;
	double			 r1 = 0, u1, u, mu, s, z, p, ties = 0, rank;
	double			 nn;
	size_t			 n = na + nb, i, j, k;

	if (na == 0 || nb == 0)
		return NAN;
	for (i = 0; i < na; i++)
		if (isnan(a[i]))
			return NAN;
	for (i = 0; i < nb; i++)
		if (isnan(b[i]))
			return NAN;

	r = xreallocarray(NULL, n, sizeof *r);
	for (i = 0; i < na; i++) {
		r[i].value = a[i];
		r[i].index = i;
	}
	for (i = 0; i < nb; i++) {
		r[na + i].value = b[i];
		r[na + i].index = na + i;
	}
	qsort(r, n, sizeof *r, compare_rank_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && r[j].value == r[i].value; j++)
			;
		/* positions i .. j-1 share the average of ranks i+1 .. j */
		rank = ((double)(i + 1) + (double)j) / 2;
		for (k = i; k < j; k++)
			if (r[k].index < na)
				r1 += rank;
		ties += (double)(j - i) * (double)(j - i) * (double)(j - i) -
		    (double)(j - i);
	}
	free(r);

	u1 = r1 - (double)na * (double)(na + 1) / 2;
	u = fmax(u1, (double)na * (double)nb - u1);

	if ((na <= COMPARE_MW_EXACT_MAX || nb <= COMPARE_MW_EXACT_MAX) &&
	    ties == 0) {
		p = 2 * compare_mw_exact_cdf(na, nb,
		    (size_t)((double)na * (double)nb - u));
	} else {
		nn = (double)n;
		mu = (double)na * (double)nb / 2;
		s = sqrt((double)na * (double)nb / 12 *
		    ((nn + 1) - ties / (nn * (nn - 1))));
		if (s == 0)
			return 1;
		z = (u - mu - 0.5) / s;
		p = 2 * compare_normal_q(z);
	}
	return fmin(fmax(p, 0), 1);
}

/*
 * Fieller's interval for theta = mean_b / mean_a: the thetas for which
 * (mb - theta ma)^2 <= t^2 (vb/nb + theta^2 va/na). Divided through by
 * ma^2, with r = mb/ma, ga = t^2 va/(na ma^2), gb = t^2 vb/(nb ma^2), the
 * bounds of theta - 1 are (d + ga -/+ sqrt(ga r^2 + gb (1 - ga))) / (1 - ga)
 * with d = (mb - ma)/ma computed directly. When ga >= 1 the set is not a
 * bounded interval: mean a is not distinguishable from 0.
 */
static void
compare_fieller(double *lo, double *hi, const struct compare_welch *w,
    size_t na, size_t nb, double tq)
{
	double	ca, cb, ga, gb, r, d, root, l, h;

	ca = sqrt(w->va) / fabs(w->mean_a);
	cb = sqrt(w->vb) / fabs(w->mean_a);
	ga = tq * tq * ca * ca / (double)na;
	gb = tq * tq * cb * cb / (double)nb;
	r = w->mean_b / w->mean_a;
	d = (w->mean_b - w->mean_a) / w->mean_a;
	if (!(ga < 1)) {
		*lo = -INFINITY;
		*hi = INFINITY;
		return;
	}
	root = sqrt(ga * r * r + gb * (1 - ga));
	l = (d + ga - root) / (1 - ga);
	h = (d + ga + root) / (1 - ga);
	if (w->mean_a < 0) {
		/* the change is (mb - ma) / |ma| = -(theta - 1) */
		*lo = -h * 100;
		*hi = -l * 100;
	} else {
		*lo = l * 100;
		*hi = h * 100;
	}
}

static void
compare_verdict_set(struct comparison *c, double alpha, double min_effect,
    int direction, int sign)
{
	c->significant = c->p_value < alpha &&
	    (isnan(c->change_pct) || fabs(c->change_pct) >= min_effect);
	if (!c->significant)
		c->verdict = COMPARE_SAME;
	else if (direction == 0)
		c->verdict = COMPARE_CHANGED;
	else if (sign * direction > 0)
		c->verdict = COMPARE_IMPROVEMENT;
	else
		c->verdict = COMPARE_REGRESSION;
}

int
compare_samples(struct comparison *c, const double *a, size_t na,
    const double *b, size_t nb, const struct compare_opts *opts)
{
	struct compare_welch	w;
	double			alpha, min_effect = 0, tq;
	int			direction = 0;
	size_t			i;

	memset(c, 0, sizeof *c);
	if (na < 2 || nb < 2)
		return -1;
	for (i = 0; i < na; i++)
		if (!isfinite(a[i]))
			return -1;
	for (i = 0; i < nb; i++)
		if (!isfinite(b[i]))
			return -1;
	alpha = COMPARE_ALPHA;
	if (opts != NULL) {
		if (opts->alpha != 0)
			alpha = opts->alpha;
		min_effect = fabs(opts->min_effect_pct);
		direction = opts->direction;
	}
	if (!(alpha > 0 && alpha < 1))
		return -1;

	compare_welch(&w, a, na, b, nb);
	c->mean_a = w.mean_a;
	c->mean_b = w.mean_b;
	c->t = w.t;
	c->df = w.df;
	c->p_value = w.p;
	c->mw_p_value = compare_mannwhitney_p(a, na, b, nb);
	c->change_pct = 100 * (w.mean_b - w.mean_a) / fabs(w.mean_a);
	if (w.mean_a == w.mean_b)
		c->change_pct = 0;

	if (w.va == 0 && w.vb == 0) {
		/* constant on both sides: the difference is certain */
		c->p_value = w.mean_a == w.mean_b ? 1 : 0;
		c->ci_lo = c->ci_hi = c->change_pct;
	} else if (w.mean_a == 0) {
		c->ci_lo = -INFINITY;
		c->ci_hi = INFINITY;
	} else {
		tq = compare_t_quantile(alpha, w.df);
		compare_fieller(&c->ci_lo, &c->ci_hi, &w, na, nb, tq);
	}

	compare_verdict_set(c, alpha, min_effect, direction,
	    w.mean_b > w.mean_a ? 1 : -1);
	return 0;
}

/* One machine's samples of each side. */
struct compare_block {
	size_t	id;
	size_t	na, nb;
	double	sa, sb;		/* sums */
	double	qa, qb;		/* sums of squares about the side's mean */
};

static struct compare_block *
compare_block_find(struct compare_block *v, size_t *n, size_t id)
{
	size_t	i;

	for (i = 0; i < *n; i++) {
		if (v[i].id == id)
			return &v[i];
	}
	memset(&v[*n], 0, sizeof v[*n]);
	v[*n].id = id;
	return &v[(*n)++];
}

/*
 * Fieller's interval for rho = tau / mean_a from the estimates' variances
 * and covariance: the rhos with (tau - rho ma)^2 <= t^2 (vtt - 2 rho vta +
 * rho^2 vaa), a quadratic A rho^2 - 2 B rho + C <= 0 that is a bounded
 * interval when A > 0, i.e. when mean a is distinguishable from 0; its
 * bounds are (B -/+ sqrt(B^2 - A C)) / A.
 */
static void
compare_fieller_blocked(double *lo, double *hi, double tau, double ma,
    double vtt, double vaa, double vta, double tq)
{
	double	qa = tq * tq, A, B, D, l, h;

	A = ma * ma - qa * vaa;
	B = tau * ma - qa * vta;
	if (!(A > 0)) {
		*lo = -INFINITY;
		*hi = INFINITY;
		return;
	}
	/* B^2 - A C, multiplied out so that tau^2 ma^2 cancels exactly */
	D = fmax(0, qa * (ma * ma * vtt - 2 * tau * ma * vta + tau * tau *
	    vaa) + qa * qa * (vta * vta - vaa * vtt));
	l = (B - sqrt(D)) / A;
	h = (B + sqrt(D)) / A;
	if (ma < 0) {
		/* the change is tau / |ma| = -rho */
		*lo = -h * 100;
		*hi = -l * 100;
	} else {
		*lo = l * 100;
		*hi = h * 100;
	}
}

/*
 * In the additive model with free machine levels, least squares gives the
 * side effect tau as the weighted mean of each machine's difference of
 * means d_m, weights w_m = na_m nb_m / (na_m + nb_m) (0 for a machine that
 * ran one side only); var(tau) = s^2 / W with W the sum of the weights,
 * and the residual sum of squares is every machine's within-side sums of
 * squares plus sum w_m d_m^2 - (sum w_m d_m)^2 / W, on n - machines - 1
 * degrees of freedom. mean a, the plain mean of a, has variance s^2 / na
 * and covariance -s^2 / na with tau.
 */
int
compare_blocked(struct comparison *c, const double *a, const size_t *block_a,
    size_t na, const double *b, const size_t *block_b, size_t nb,
    const struct compare_opts *opts)
{
	struct compare_block	*v = NULL, *m;
	struct summary		 sa, sb;
	double			 alpha = COMPARE_ALPHA, min_effect = 0;
	double			 W = 0, WD = 0, WDD = 0, rss = 0, d, w, tau;
	double			 s2, tq;
	size_t			 nr = 0, i, both = 0;
	int			 direction = 0, r = -1;

	if (compare_samples(c, a, na, b, nb, opts) != 0)
		return -1;
	if (opts != NULL) {
		if (opts->alpha != 0)
			alpha = opts->alpha;
		min_effect = fabs(opts->min_effect_pct);
		direction = opts->direction;
	}
	v = xcalloc(na + nb, sizeof *v);
	for (i = 0; i < na; i++) {
		m = compare_block_find(v, &nr, block_a[i]);
		m->na++;
		m->sa += a[i];
	}
	for (i = 0; i < nb; i++) {
		m = compare_block_find(v, &nr, block_b[i]);
		m->nb++;
		m->sb += b[i];
	}
	for (i = 0; i < na; i++) {
		m = compare_block_find(v, &nr, block_a[i]);
		d = a[i] - m->sa / m->na;
		m->qa += d * d;
	}
	for (i = 0; i < nb; i++) {
		m = compare_block_find(v, &nr, block_b[i]);
		d = b[i] - m->sb / m->nb;
		m->qb += d * d;
	}
	for (i = 0; i < nr; i++) {
		rss += v[i].qa + v[i].qb;
		if (v[i].na == 0 || v[i].nb == 0)
			continue;
		both++;
		w = (double)v[i].na * v[i].nb / (double)(v[i].na + v[i].nb);
		d = v[i].sb / v[i].nb - v[i].sa / v[i].na;
		W += w;
		WD += w * d;
		WDD += w * d * d;
	}
	/* one machine, or the machine and the side confounded: unblocked */
	if (nr < 2 || both == 0 || na + nb < nr + 2) {
		r = 0;
		goto out;
	}
	tau = WD / W;
	rss += fmax(0, WDD - WD * WD / W);
	c->df = (double)(na + nb - nr - 1);
	s2 = rss / c->df;
	summary_compute(&sa, a, na);
	summary_compute(&sb, b, nb);
	c->blocks = (unsigned)both;
	c->mean_a = sa.mean;
	c->mean_b = sb.mean;
	c->change_pct = tau == 0 ? 0 : 100 * tau / fabs(sa.mean);
	if (s2 == 0) {
		c->t = tau == 0 ? 0 : (tau > 0 ? INFINITY : -INFINITY);
		c->p_value = tau == 0 ? 1 : 0;
		c->ci_lo = c->ci_hi = c->change_pct;
	} else {
		c->t = tau / sqrt(s2 / W);
		c->p_value = compare_t_two_sided(c->t, c->df);
		tq = compare_t_quantile(alpha, c->df);
		compare_fieller_blocked(&c->ci_lo, &c->ci_hi, tau, sa.mean,
		    s2 / W, s2 / (double)na, -s2 / (double)na, tq);
	}
	compare_verdict_set(c, alpha, min_effect, direction, tau > 0 ? 1 : -1);
	r = 0;
out:
	free(v);
	return r;
}

const char *
compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME:
		return "same";
	case COMPARE_REGRESSION:
		return "regression";
	case COMPARE_IMPROVEMENT:
		return "improvement";
	case COMPARE_CHANGED:
		return "changed";
	}
	return "unknown";
}
