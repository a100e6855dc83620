/*
 * stats/ against SciPy: generates some 1500 two-sample cases from a fixed
 * seed (n from 2 to 50, ties, outliers, negative values, magnitudes from
 * 1e-75 to 1e75, constant and identical sides), has
 * tests/unit/stats-reference.py compute NumPy/SciPy's figures for them,
 * and compares summary fields, Welch's p, the Mann-Whitney p, Fieller's
 * interval, the CV and Jain's index. A missing python3 or SciPy is a
 * failure, not a skip: make check installs python3-scipy.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/compare.h"
#include "stats/rng.h"
#include "stats/summary.h"
#include "tests/unit/reference.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define NR_CASES	1500
#define REL		1e-9

struct tcase {
	const char	*kind;
	double		 alpha;
	size_t		 na, nb;
	double		*a, *b;
};

enum field {
	F_MEAN_A, F_STD_A, F_MEDIAN_A, F_MIN_A, F_MAX_A, F_MEAN_B, F_STD_B,
	F_MEDIAN_B, F_WELCH_P, F_MW_P, F_MW_EXACT, F_CI_LO, F_CI_HI, F_DF,
	F_CV_A, F_JAIN_A, F_MINMAX_A, NR_FIELDS
};

static const char *field_names[NR_FIELDS] = {
	"mean_a", "std_a", "median_a", "min_a", "max_a", "mean_b", "std_b",
	"median_b", "welch_p", "mw_p", "mw_exact", "ci_lo", "ci_hi", "df",
	"cv_a", "jain_a", "minmax_a"
};

static size_t
pick_n(struct rng *r, size_t lo, size_t hi)
{
	return lo + (size_t)rng_below(r, hi - lo + 1);
}

/* 10^u for u uniform on [lo, hi] */
static double
pick_mag(struct rng *r, double lo, double hi)
{
	return pow(10, lo + (hi - lo) * rng_uniform(r));
}

static void
fill_normal(struct rng *r, double *x, size_t n, double mu, double sd)
{
	size_t	i;

	for (i = 0; i < n; i++)
		x[i] = mu + sd * rng_normal(r);
}

static void
case_make(struct tcase *c, struct rng *r, unsigned i)
{
	static const double	alphas[] = { 0.05, 0.01, 0.1, 0.2 };
	double			mu, sd, shift, grid;
	size_t			k;

	c->alpha = alphas[rng_below(r, 4)];
	c->na = pick_n(r, 2, 50);
	c->nb = pick_n(r, 2, 50);
	if (rng_below(r, 3) == 0) {
		/* the small runs kernel jobs start with */
		c->na = pick_n(r, 2, 10);
		c->nb = pick_n(r, 2, 10);
	}
	switch (i % 10) {
	case 8:
		/* either side of SciPy's exact/asymptotic boundary */
		c->na = 7 + rng_below(r, 4);
		c->nb = 7 + rng_below(r, 4);
		break;
	}
	c->a = xcalloc(c->na, sizeof *c->a);
	c->b = xcalloc(c->nb, sizeof *c->b);

	mu = pick_mag(r, -1, 6) * (rng_below(r, 8) == 0 ? -1 : 1);
	sd = fabs(mu) * pick_mag(r, -3, -0.5);
	shift = sd * 2 * rng_normal(r);
	switch (i % 10) {
	case 0:
	case 8:
		c->kind = "normal";
		break;
	case 1:
		c->kind = "ties";
		/* a coarse grid: many equal values */
		grid = sd * (0.3 + 2 * rng_uniform(r));
		fill_normal(r, c->a, c->na, mu, sd);
		fill_normal(r, c->b, c->nb, mu + shift, sd);
		for (k = 0; k < c->na; k++)
			c->a[k] = round(c->a[k] / grid) * grid;
		for (k = 0; k < c->nb; k++)
			c->b[k] = round(c->b[k] / grid) * grid;
		return;
	case 2:
		c->kind = "outliers";
		fill_normal(r, c->a, c->na, mu, sd);
		fill_normal(r, c->b, c->nb, mu + shift, sd);
		for (k = 0; k < c->na; k++)
			if (rng_below(r, 10) == 0)
				c->a[k] *= rng_below(r, 2) ? 1.3 : 0.7;
		for (k = 0; k < c->nb; k++)
			if (rng_below(r, 10) == 0)
				c->b[k] *= rng_below(r, 2) ? 10 : 0.1;
		return;
	case 3:
		c->kind = "negative";
		mu = 5 * rng_normal(r);
		sd = pick_mag(r, -1, 1);
		shift = sd * 2 * rng_normal(r);
		break;
	case 4:
		c->kind = "huge";
		mu = pick_mag(r, 10, 75);
		sd = mu * pick_mag(r, -4, -0.5);
		shift = sd * 2 * rng_normal(r);
		break;
	case 5:
		c->kind = "tiny";
		mu = pick_mag(r, -75, -10);
		sd = mu * pick_mag(r, -4, -0.5);
		shift = sd * 2 * rng_normal(r);
		break;
	case 6:
		c->kind = "lognormal";
		for (k = 0; k < c->na; k++)
			c->a[k] = mu * exp(rng_normal(r));
		for (k = 0; k < c->nb; k++)
			c->b[k] = mu * exp(0.5 * rng_normal(r) +
			    rng_uniform(r));
		return;
	case 7:
		c->kind = "far-apart";
		/* p-values down to the subnormal range and below */
		shift = sd * pick_mag(r, 0.7, 7);
		break;
	case 9:
		c->kind = "constant";
		/*
		 * Integers, so that NumPy's sums are exact too: its
		 * pairwise mean of 40 copies of 0.1 is not 0.1, and the
		 * std it then gives is 1e-17, not 0 (ours is 0).
		 */
		mu = round(mu);
		sd = fmax(round(sd), 1);
		fill_normal(r, c->a, c->na, mu, sd);
		fill_normal(r, c->b, c->nb, mu + shift, sd);
		switch (rng_below(r, 4)) {
		case 0:	/* b identical to a */
			c->nb = c->na;
			c->b = xreallocarray(c->b, c->nb, sizeof *c->b);
			memcpy(c->b, c->a, c->na * sizeof *c->a);
			break;
		case 1:	/* a constant */
			for (k = 0; k < c->na; k++)
				c->a[k] = mu;
			break;
		case 2:	/* both constant, different */
			for (k = 0; k < c->na; k++)
				c->a[k] = mu;
			for (k = 0; k < c->nb; k++)
				c->b[k] = mu + sd;
			break;
		case 3: /* both constant, equal */
			for (k = 0; k < c->na; k++)
				c->a[k] = mu;
			for (k = 0; k < c->nb; k++)
				c->b[k] = mu;
			break;
		}
		return;
	}
	fill_normal(r, c->a, c->na, mu, sd);
	fill_normal(r, c->b, c->nb, mu + shift, sd);
}

/*
 * Within rel of want, relative to scale (|want| unless a larger scale is
 * the meaningful one); NaN matches NaN and infinities match themselves.
 */
static int
close_enough(double got, double want, double rel, double scale)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= rel * fmax(fabs(want), scale);
}

struct tally {
	unsigned	checked, failed;
	double		worst;		/* worst relative error seen */
};

static void
tally(struct tally *t, const char *field, unsigned id, double got,
    double want, double rel, double scale)
{
	double	err;

	t->checked++;
	if (!isnan(got) && !isnan(want) && !isinf(want) && want != got) {
		err = fabs(got - want) / fmax(fabs(want), scale);
		if (err > t->worst)
			t->worst = err;
	}
	/* STATS_DEBUG=1 shows every difference beyond 1e-13 */
	if (getenv("STATS_DEBUG") != NULL && fabs(got - want) > 1e-13 *
	    fabs(want))
		diag("debug: case %u %s: got %.17g, want %.17g", id, field,
		    got, want);
	if (close_enough(got, want, rel, scale))
		return;
	if (t->failed++ < 5)
		diag("case %u %s: got %.17g, want %.17g", id, field, got,
		    want);
}

int
main(void)
{
	struct tcase		 cases[NR_CASES];
	struct tally		 t[NR_FIELDS];
	struct rng		 r;
	struct strbuf		 out = STRBUF_INIT;
	struct summary		 sa, sb;
	struct spread		 sp;
	struct comparison	 cmp;
	struct compare_opts	 opts;
	const char		*python;
	char			*script, *line, *next, *end, tmpl[] =
	    "/tmp/test-stats-scipy.XXXXXX";
	double			 ref[NR_FIELDS], got[NR_FIELDS], scale, w;
	unsigned		 i, id, seen = 0, nr_exact = 0, nr_ties = 0;
	unsigned		 nr_tiny_p = 0, f;
	size_t			 k;
	FILE			*fp;
	int			 fd, status = 0;

	rng_seed(&r, 20240601);
	for (i = 0; i < NR_CASES; i++)
		case_make(&cases[i], &r, i);

	fd = mkstemp(tmpl);
	if (!ok(fd >= 0, "temporary case file created"))
		return tap_done();
	fp = fdopen(fd, "w");
	for (i = 0; i < NR_CASES; i++) {
		fprintf(fp, "%u %.17g %zu %zu", i, cases[i].alpha,
		    cases[i].na, cases[i].nb);
		for (k = 0; k < cases[i].na; k++)
			fprintf(fp, " %.17g", cases[i].a[k]);
		for (k = 0; k < cases[i].nb; k++)
			fprintf(fp, " %.17g", cases[i].b[k]);
		fprintf(fp, "\n");
	}
	fclose(fp);

	python = getenv("BISECTD_PYTHON");
	if (python == NULL || *python == '\0')
		python = "/usr/bin/python3";
	script = script_find("tests/unit/stats-reference.py");
	if (!ok(script_run(python, script, tmpl, &out, &status) == 0,
	    "reference ran: %s %s", python, script)) {
		diag("the SciPy reference did not run (exit status %d): "
		    "these tests need %s with NumPy and SciPy (Debian: "
		    "python3-scipy, which make check installs)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1, python);
		unlink(tmpl);
		return tap_done();
	}
	unlink(tmpl);

	memset(t, 0, sizeof t);
	for (line = out.buf; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line == '#') {
			diag("reference: %s", line + 2);
			continue;
		}
		id = (unsigned)strtoul(line, &end, 10);
		if (id >= NR_CASES)
			break;
		for (f = 0; f < NR_FIELDS; f++)
			ref[f] = strtod(end, &end);
		seen++;

		summary_compute(&sa, cases[id].a, cases[id].na);
		summary_compute(&sb, cases[id].b, cases[id].nb);
		summary_spread(&sp, cases[id].a, cases[id].na);
		opts.alpha = cases[id].alpha;
		opts.min_effect_pct = 0;
		opts.direction = 1;
		if (compare_samples(&cmp, cases[id].a, cases[id].na,
		    cases[id].b, cases[id].nb, &opts) != 0)
			diag("case %u: compare_samples failed", id);
		got[F_MEAN_A] = sa.mean;
		got[F_STD_A] = sa.stddev;
		got[F_MEDIAN_A] = sa.median;
		got[F_MIN_A] = sa.min;
		got[F_MAX_A] = sa.max;
		got[F_MEAN_B] = sb.mean;
		got[F_STD_B] = sb.stddev;
		got[F_MEDIAN_B] = sb.median;
		got[F_WELCH_P] = compare_welch_p(cases[id].a, cases[id].na,
		    cases[id].b, cases[id].nb);
		got[F_MW_P] = compare_mannwhitney_p(cases[id].a, cases[id].na,
		    cases[id].b, cases[id].nb);
		got[F_MW_EXACT] = ref[F_MW_EXACT];
		got[F_CI_LO] = cmp.ci_lo;
		got[F_CI_HI] = cmp.ci_hi;
		got[F_DF] = cmp.df;
		got[F_CV_A] = sp.cv;
		got[F_JAIN_A] = sp.jain;
		got[F_MINMAX_A] = sp.min_max_ratio;
		if (isnan(ref[F_DF]))
			got[F_DF] = NAN;	/* both sides constant */

		nr_exact += ref[F_MW_EXACT] == 1;
		nr_ties += strcmp(cases[id].kind, "ties") == 0;
		nr_tiny_p += ref[F_WELCH_P] < 1e-300;
		for (f = 0; f < NR_FIELDS; f++) {
			scale = 0;
			if (f == F_CI_LO || f == F_CI_HI) {
				/*
				 * A bound near 0 is a difference of two
				 * nearly equal terms in the textbook form
				 * the reference uses: judge it against the
				 * interval's width.
				 */
				w = ref[F_CI_HI] - ref[F_CI_LO];
				scale = isfinite(w) ? w : 0;
			}
			/*
			 * GSL flushes a tail probability below DBL_MIN
			 * (2.2e-308) to 0 where Cephes returns a
			 * subnormal: below 1e-300, |error| <= 1e-300.
			 */
			if (f == F_WELCH_P && ref[F_WELCH_P] < 1e-300)
				scale = 1e-300 / REL;
			tally(&t[f], field_names[f], id, got[f], ref[f],
			    REL, scale);
		}
	}
	is_int(seen, NR_CASES, "reference answered every case");
	diag("%u cases: %u with exact Mann-Whitney, %u from the ties "
	    "generator, %u with Welch p < 1e-300", seen, nr_exact, nr_ties,
	    nr_tiny_p);
	for (f = 0; f < NR_FIELDS; f++) {
		if (f == F_MW_EXACT)
			continue;
		ok(t[f].failed == 0 && t[f].checked == seen,
		    "%s: %u/%u within %g of SciPy (worst %.2g)",
		    field_names[f], t[f].checked - t[f].failed, t[f].checked,
		    REL, t[f].worst);
	}

	for (i = 0; i < NR_CASES; i++) {
		free(cases[i].a);
		free(cases[i].b);
	}
	free(script);
	strbuf_release(&out);
	return tap_done();
}
