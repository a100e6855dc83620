/*
 * Hand-checked cases for stats/compare.c: closed forms of the Welch test
 * (df = 1 and df = 2), SciPy's own documented Mann-Whitney example, the
 * verdict's direction and minimum effect, the edge cases (n < 2, constant
 * and identical sides, a zero or negative mean), and two properties over
 * many generated cases: the interval excludes 0% exactly when p < alpha,
 * and the test keeps its level at 3 vs 3 under Gaussian and heavy-tailed
 * noise.
 */
#include <math.h>

#include "stats/compare.h"
#include "stats/rng.h"
#include "tests/unit/tap.h"

static void
test_closed_forms(void)
{
	double	a2[] = { 0, 2 }, b2[] = { 2, 4 };
	double	a1[] = { 0, 0 }, b1[] = { 1, 3 };
	double	males[] = { 19, 22, 16, 29, 24 };
	double	females[] = { 20, 11, 17, 12 };
	double	a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	double	ties_a[] = { 1, 2, 2, 3 }, ties_b[] = { 2, 3, 3, 4, 5 };
	double	z, s;

	/* equal variances, n = 2 each: df = 2, t = sqrt 2 */
	is_close(compare_welch_p(a2, 2, b2, 2), 1 - sqrt(2.0) / 2, 1e-14,
	    "Welch df = 2: p = 1 - t / sqrt(2 + t^2)");
	/* a constant, b of two: df = 1 (Cauchy), t = 2 */
	is_close(compare_welch_p(a1, 2, b1, 2), 1 - 2 / M_PI * atan(2.0),
	    1e-14, "Welch df = 1: p = 1 - 2 atan(t) / pi");
	ok(isnan(compare_welch_p(a1, 1, b1, 2)), "Welch needs n >= 2");
	ok(isnan(compare_welch_p(a1, 2, a1, 2)),
	    "Welch on two constant, equal sides is NaN, as in SciPy");

	/* scipy.stats.mannwhitneyu's documented example */
	is_close(compare_mannwhitney_p(males, 5, females, 4), 1.0 / 9,
	    1e-14, "Mann-Whitney exact: SciPy's example p = 0.111");
	is_close(compare_mannwhitney_p(a3, 3, b3, 3), 0.1, 1e-14,
	    "Mann-Whitney 3 vs 3 fully separated: p = 2/20, its minimum");
	/*
	 * Ties: asymptotic with tie and continuity corrections. Ranks of
	 * 1 2 2 2 3 3 3 4 5: a gets 1 + 3 + 3 + 6 = 13, U1 = 3, U = 17;
	 * tie term 2 (24) = 48; s^2 = 20/12 (10 - 48/72).
	 */
	s = sqrt(20.0 / 12 * (10 - 48.0 / 72));
	z = (17 - 10 - 0.5) / s;
	is_close(compare_mannwhitney_p(ties_a, 4, ties_b, 5),
	    erfc(z / sqrt(2.0)), 1e-14,
	    "Mann-Whitney with ties: normal approximation, corrected");
	ok(compare_mannwhitney_p(a1, 2, a1, 2) == 1,
	    "Mann-Whitney on identical constant sides: p = 1");
	ok(isnan(compare_mannwhitney_p(a1, 0, b1, 2)),
	    "Mann-Whitney of an empty side is NaN");
}

static void
test_verdicts(void)
{
	double			a[] = { 100, 101, 99 }, b[] = { 90, 91, 89 };
	struct compare_opts	o = { 0.05, 0, +1 };
	struct comparison	c;

	ok(compare_samples(&c, a, 3, b, 3, &o) == 0, "3 vs 3 compares");
	is_close(c.change_pct, -10, 1e-14, "change is -10%%");
	ok(c.p_value < 0.001, "Welch separates a -10%% step at 3 vs 3 "
	    "(p = %.2g)", c.p_value);
	ok(c.mw_p_value >= 0.1, "where a rank test cannot (p = %.2g)",
	    c.mw_p_value);
	ok(c.ci_lo < -10 && c.ci_hi > -10 && c.ci_hi < 0,
	    "interval [%.2f, %.2f] holds -10 and excludes 0", c.ci_lo,
	    c.ci_hi);
	ok(c.significant && c.verdict == COMPARE_REGRESSION,
	    "higher is better: a drop is a regression");
	is_str(compare_verdict_name(c.verdict), "regression", "its name");

	o.direction = -1;
	compare_samples(&c, a, 3, b, 3, &o);
	ok(c.verdict == COMPARE_IMPROVEMENT,
	    "lower is better: a drop is an improvement");
	o.direction = 0;
	compare_samples(&c, a, 3, b, 3, &o);
	ok(c.verdict == COMPARE_CHANGED, "unknown direction: changed");
	o.direction = 1;
	compare_samples(&c, b, 3, a, 3, &o);
	ok(c.verdict == COMPARE_IMPROVEMENT && c.change_pct > 11,
	    "the other way round: +11.1%% is an improvement");

	o.min_effect_pct = 15;
	compare_samples(&c, a, 3, b, 3, &o);
	ok(c.p_value < 0.001 && !c.significant &&
	    c.verdict == COMPARE_SAME,
	    "significant but below min_effect_pct 15: same");
	ok(compare_samples(&c, a, 3, b, 3, NULL) == 0 &&
	    c.verdict == COMPARE_CHANGED, "NULL opts: alpha 0.05, no "
	    "direction");
}

static void
test_edges(void)
{
	double			a[] = { 5, 6, 7 }, one[] = { 5 };
	double			k5[] = { 5, 5, 5 }, k6[] = { 6, 6, 6, 6 };
	double			zero[] = { -1, 0, 1 }, nan_[] = { 1, NAN };
	double			neg_a[] = { -10, -10.5, -9.5 };
	double			neg_b[] = { -12, -12.5, -11.5 };
	struct compare_opts	o = { 0.05, 0, +1 };
	struct comparison	c;

	ok(compare_samples(&c, one, 1, a, 3, &o) == -1,
	    "one sample is not enough");
	ok(compare_samples(&c, a, 3, nan_, 2, &o) == -1, "NaN is refused");
	o.alpha = 1.5;
	ok(compare_samples(&c, a, 3, a, 3, &o) == -1, "alpha 1.5 refused");
	o.alpha = 0.05;

	compare_samples(&c, a, 3, a, 3, &o);
	ok(c.change_pct == 0 && c.p_value == 1 && c.verdict == COMPARE_SAME,
	    "identical samples: 0%%, p = 1, same");
	ok(c.ci_lo < 0 && c.ci_hi > 0, "identical samples: interval "
	    "[%.1f, %.1f] around 0", c.ci_lo, c.ci_hi);

	compare_samples(&c, k5, 3, k6, 4, &o);
	ok(c.p_value == 0 && c.verdict == COMPARE_IMPROVEMENT &&
	    c.ci_lo == 20 && c.ci_hi == 20,
	    "constant 5 vs constant 6: a certain +20%%");
	compare_samples(&c, k5, 3, k5, 3, &o);
	ok(c.p_value == 1 && c.change_pct == 0 && c.verdict == COMPARE_SAME,
	    "constant and equal: same");

	compare_samples(&c, zero, 3, a, 3, &o);
	ok(isinf(c.change_pct) && isinf(c.ci_lo) && isinf(c.ci_hi) &&
	    c.verdict == COMPARE_IMPROVEMENT,
	    "mean a = 0: %%change infinite, verdict from p alone");

	compare_samples(&c, neg_a, 3, neg_b, 3, &o);
	is_close(c.change_pct, -20, 1e-14,
	    "negative means: -10 to -12 is -20%% (relative to |a|)");
	ok(c.ci_lo < -20 && c.ci_hi > -20 && c.ci_hi < 0,
	    "negative means: interval [%.1f, %.1f] holds -20", c.ci_lo,
	    c.ci_hi);
}

/*
 * Seed 004's dbench: 25692 ± 0% against 24913 ± 0%, -3.0%, at the eight
 * samples a bisection ends with.
 */
static void
test_seed_004(void)
{
	struct compare_opts	o = { 0.05, 1, +1 };
	struct comparison	c;
	struct rng		r;
	double			a[8], b[8];
	int			i;

	rng_seed(&r, 4);
	for (i = 0; i < 8; i++) {
		a[i] = 25692 * (1 + 0.004 * rng_normal(&r));
		b[i] = 24913 * (1 + 0.005 * rng_normal(&r));
	}
	compare_samples(&c, a, 8, b, 8, &o);
	ok(c.verdict == COMPARE_REGRESSION && fabs(c.change_pct + 3) < 0.5,
	    "seed 004: %.1f%% [%.1f, %.1f] p = %.2g, a regression",
	    c.change_pct, c.ci_lo, c.ci_hi, c.p_value);
}

/* Interval and test agree: 0 is outside a bounded interval iff p < alpha. */
static void
test_interval_matches_test(void)
{
	struct compare_opts	o = { 0.05, 0, +1 };
	struct comparison	c;
	struct rng		r;
	double			a[20], b[20], mu, sd, shift;
	unsigned		i, agree = 0, bounded = 0, covers = 0;
	size_t			na, nb, k;

	rng_seed(&r, 7);
	for (i = 0; i < 5000; i++) {
		na = 2 + rng_below(&r, 19);
		nb = 2 + rng_below(&r, 19);
		mu = (rng_below(&r, 5) == 0 ? -1 : 1) * 1000;
		sd = 1000 * pow(10, -3 + 2.5 * rng_uniform(&r));
		shift = sd * 3 * rng_normal(&r);
		for (k = 0; k < na; k++)
			a[k] = mu + sd * rng_normal(&r);
		for (k = 0; k < nb; k++)
			b[k] = mu + shift + sd * rng_normal(&r);
		o.alpha = (i % 3 == 0) ? 0.01 : 0.05;
		if (compare_samples(&c, a, na, b, nb, &o) != 0)
			continue;
		if (!isfinite(c.ci_lo) || !isfinite(c.ci_hi))
			continue;
		bounded++;
		agree += (c.ci_lo > 0 || c.ci_hi < 0) == (c.p_value < o.alpha);
		covers += c.ci_lo <= c.change_pct && c.change_pct <= c.ci_hi;
	}
	ok(bounded > 4900 && agree == bounded, "interval excludes 0 "
	    "exactly when p < alpha: %u/%u", agree, bounded);
	ok(covers == bounded, "interval holds the point estimate: %u/%u",
	    covers, bounded);
}

/* Welch's level at 3 vs 3, under the null, for two noise models. */
static void
test_level(void)
{
	struct comparison	c;
	struct rng		r;
	double			a[3], b[3], rate;
	unsigned		i, hits, trials = 40000;
	int			k, model;

	rng_seed(&r, 11);
	for (model = 0; model < 2; model++) {
		hits = 0;
		for (i = 0; i < trials; i++) {
			for (k = 0; k < 3; k++) {
				a[k] = 100 + 2 * rng_normal(&r);
				b[k] = 100 + 2 * rng_normal(&r);
				if (model == 1 && rng_below(&r, 20) == 0)
					a[k] *= rng_below(&r, 2) ? 1.3 : 0.7;
				if (model == 1 && rng_below(&r, 20) == 0)
					b[k] *= rng_below(&r, 2) ? 1.3 : 0.7;
			}
			compare_samples(&c, a, 3, b, 3, NULL);
			hits += c.significant;
		}
		rate = (double)hits / trials;
		/* at most alpha, and not trivially below it */
		ok(rate > (model ? 0.01 : 0.03) && rate < 0.055, "3 vs 3, "
		    "%s noise, no change: %.2f%% called significant at "
		    "alpha 5%%", model ? "heavy-tailed" : "Gaussian",
		    100 * rate);
	}
}

int
main(void)
{
	test_closed_forms();
	test_verdicts();
	test_edges();
	test_seed_004();
	test_interval_matches_test();
	test_level();
	return tap_done();
}
