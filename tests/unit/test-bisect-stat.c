/*
 * Unit tests for the driver's statistics (stats/bisect-stat.c) against
 * SciPy, run at test time on generated samples (Debian's python3-scipy at
 * /usr/bin/python3; the SciPy checks are skipped when it is missing):
 * Mann-Whitney U p-values, exact and asymptotic, with and without ties,
 * every alternative; the Hodges-Lehmann shift; the t location for a known
 * scale against a grid search and tight minimization of SciPy's t
 * log-likelihood (the same maximum, or one as high where two tie).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/bisect-stat.h"
#include "tests/unit/tap.h"
#include "util/xalloc.h"

#define CASES	60

static uint64_t	rng_state = 0x5eed;

static double
rng_uniform(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

static unsigned
rng_next_small(void)
{
	return (unsigned)(rng_uniform() * 1000);
}

static double
rng_gauss(void)
{
	return sqrt(-2 * log(rng_uniform())) * cos(2 * M_PI * rng_uniform());
}

struct sample {
	size_t	na, nb;
	double	a[60], b[60];
};

static const char reference_py[] =
	"import sys\n"
	"import numpy as np\n"
	"from scipy.stats import mannwhitneyu, t\n"
	"from scipy.optimize import minimize_scalar\n"
	"for line in sys.stdin:\n"
	"    f = line.split()\n"
	"    na, nb = int(f[0]), int(f[1])\n"
	"    a = np.array([float(v) for v in f[2:2 + na]])\n"
	"    b = np.array([float(v) for v in f[2 + na:2 + na + nb]])\n"
	"    p = [mannwhitneyu(b, a, alternative=k).pvalue\n"
	"         for k in ('less', 'two-sided', 'greater')]\n"
	"    hl = np.median(np.subtract.outer(b, a))\n"
	"    scale = 0.8\n"
	"    nll = lambda m: -t.logpdf(b, 4, m, scale).sum()\n"
	"    grid = np.linspace(b.min(), b.max(), 20001)\n"
	"    ll = t.logpdf(b[:, None], 4, grid[None, :], scale).sum(axis=0)\n"
	"    g = grid[np.argmax(ll)]\n"
	"    step = grid[1] - grid[0] if len(b) > 1 else 1\n"
	"    r = minimize_scalar(nll, bounds=(g - step, g + step),\n"
	"                        method='bounded', options={'xatol': 1e-12})\n"
	"    loc = r.x\n"
	"    print(' '.join(repr(float(v)) for v in p + [hl, loc, scale,\n"
	"          t.logpdf(b, 4, loc, scale).sum()]))\n";

int
main(void)
{
	static struct sample	 s[CASES];
	char			 dir[] = "/tmp/bisectd-test-stat.XXXXXX";
	char			*in_path = NULL, *py_path = NULL, *cmd = NULL;
	double			 ref[7], p, shift, lo, hi, ll;
	size_t			 i, k, bad_p = 0, bad_hl = 0, bad_loc = 0;
	FILE			*f;

	/* sizes from 2 to 40, shifts, ties from rounding, a few outliers */
	for (i = 0; i < CASES; i++) {
		s[i].na = 2 + (i * 7) % 39;
		s[i].nb = 2 + (i * 13) % 39;
		if (i % 5 == 0)
			s[i].nb = 3 + i % 6;
		for (k = 0; k < s[i].na; k++)
			s[i].a[k] = 100 + rng_gauss();
		for (k = 0; k < s[i].nb; k++)
			s[i].b[k] = 100 + 0.1 * (double)(i % 11) + rng_gauss();
		if (i % 3 == 0)
			for (k = 0; k < s[i].nb; k++)
				s[i].b[k] = round(s[i].b[k] * 2) / 2;
		if (i % 3 == 0)
			for (k = 0; k < s[i].na; k++)
				s[i].a[k] = round(s[i].a[k] * 2) / 2;
		if (i % 4 == 1)
			s[i].b[0] += 30;
	}

	/* the median by selection against a sort, ties and all */
	{
		double	v[64], w[64], want;
		size_t	bad_med = 0, n, trial, a, b;

		for (trial = 0; trial < 2000; trial++) {
			n = 1 + trial % 63;
			for (a = 0; a < n; a++)
				v[a] = trial % 3 == 0 ? (double)(rng_next_small() %
				    4) : rng_gauss();
			memcpy(w, v, n * sizeof *w);
			for (a = 1; a < n; a++)
				for (b = a; b > 0 && w[b - 1] > w[b]; b--) {
					double t = w[b];

					w[b] = w[b - 1];
					w[b - 1] = t;
				}
			want = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
			if (bisect_stat_median(v, n) != want)
				bad_med++;
		}
		is_int(bad_med, 0, "the median of 2000 arrays (1 to 63 values, "
		    "many ties) equals the sorted middle");
	}

	/* plain properties, no SciPy needed */
	ok(bisect_stat_mw(s[0].a, 0, s[0].b, 3, BISECT_STAT_TWO_SIDED) == 1,
	    "an empty side: p = 1");
	{
		double a[5] = { 1, 2, 3, 4, 5 }, b[5] = { 6, 7, 8, 9, 10 };

		is_close(bisect_stat_mw(a, 5, b, 5, BISECT_STAT_GREATER),
		    1.0 / 252, 1e-12, "5 against 5, all above: exact 1/252");
		bisect_stat_hl(a, 5, b, 5, 0.95, &shift, &lo, &hi);
		is_close(shift, 5, 1e-12, "their Hodges-Lehmann shift is 5");
		ok(lo <= shift && shift <= hi, "inside its interval [%g, %g]",
		    lo, hi);
	}

	if (access("/usr/bin/python3", X_OK) != 0 ||
	    system("/usr/bin/python3 -c 'import scipy' 2>/dev/null") != 0) {
		printf("ok %d # skip no python3-scipy at /usr/bin/python3\n",
		    ++tap_count);
		return tap_done();
	}
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	in_path = xasprintf("%s/cases", dir);
	py_path = xasprintf("%s/ref.py", dir);
	f = fopen(py_path, "w");
	fputs(reference_py, f);
	fclose(f);
	f = fopen(in_path, "w");
	for (i = 0; i < CASES; i++) {
		fprintf(f, "%zu %zu", s[i].na, s[i].nb);
		for (k = 0; k < s[i].na; k++)
			fprintf(f, " %.17g", s[i].a[k]);
		for (k = 0; k < s[i].nb; k++)
			fprintf(f, " %.17g", s[i].b[k]);
		fprintf(f, "\n");
	}
	fclose(f);
	cmd = xasprintf("/usr/bin/python3 '%s' < '%s'", py_path, in_path);
	f = popen(cmd, "r");
	for (i = 0; i < CASES; i++) {
		if (f == NULL || fscanf(f, "%lf %lf %lf %lf %lf %lf %lf",
		    &ref[0], &ref[1], &ref[2], &ref[3], &ref[4], &ref[5],
		    &ref[6]) != 7)
			break;
		for (k = 0; k < 3; k++) {
			p = bisect_stat_mw(s[i].a, s[i].na, s[i].b, s[i].nb,
			    (enum bisect_stat_alt)((int)k - 1));
			if (fabs(p - ref[k]) > 1e-9 * fabs(ref[k]) + 1e-15) {
				bad_p++;
				diag("case %zu (%zu, %zu) alt %zu: %.17g, scipy "
				    "%.17g", i, s[i].na, s[i].nb, k, p, ref[k]);
			}
		}
		bisect_stat_hl(s[i].a, s[i].na, s[i].b, s[i].nb, 0.95, &shift,
		    &lo, &hi);
		if (fabs(shift - ref[3]) > 1e-9 * fabs(ref[3]) + 1e-12 ||
		    !(lo <= shift && shift <= hi))
			bad_hl++;
		if (s[i].nb >= 2) {
			double loc = bisect_stat_tloc(s[i].b, s[i].nb, 4,
			    ref[5]);

			/* two maxima can tie: compare the likelihood */
			for (k = 0, ll = 0; k < s[i].nb; k++)
				ll += bisect_stat_tlogpdf(s[i].b[k], loc,
				    ref[5], 4);
			if (ll < ref[6] - 1e-9 * fabs(ref[6]) ||
			    (fabs(loc - ref[4]) > 1e-6 * ref[5] &&
			    fabs(ll - ref[6]) > 1e-9 * fabs(ref[6]))) {
				bad_loc++;
				diag("case %zu: t location %.12g (%.12g), scipy "
				    "%.12g (%.12g)", i, loc, ll, ref[4], ref[6]);
			}
		}
	}
	is_int(i, CASES, "scipy answered all %d cases", CASES);
	if (f != NULL)
		pclose(f);
	is_int(bad_p, 0, "Mann-Whitney p-values equal scipy's mannwhitneyu to "
	    "1e-9 relative (exact and asymptotic, ties, 3 alternatives)");
	is_int(bad_hl, 0, "Hodges-Lehmann shifts equal the median of pairwise "
	    "differences, inside their intervals");
	is_int(bad_loc, 0, "the t(4) location for a known scale is where "
	    "scipy's t log-likelihood is largest");
	unlink(in_path);
	unlink(py_path);
	rmdir(dir);
	free(in_path);
	free(py_path);
	free(cmd);
	return tap_done();
}
