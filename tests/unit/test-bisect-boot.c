/*
 * Unit tests for stats/bisect-boot.c: boots that differ more than runs
 * do make each boot's mean one sample, boots alike leave the samples as
 * they are, and wants in boots become runs of one new boot.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect.h"
#include "stats/bisect-boot.h"
#include "tests/unit/tap.h"

static uint64_t	rng_state = 0xb007;

static double
rng_gauss(void)
{
	double	u[2];
	int	i;

	for (i = 0; i < 2; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		u[i] = ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

#define NC	4
#define NB	5	/* boots per commit */
#define NR	3	/* runs per boot */

static const char *const names[NC * NB] = {
	"a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4",
	"c0", "c1", "c2", "c3", "c4", "d0", "d1", "d2", "d3", "d4",
};

/* boot_sd and run_sd in % of 1000 */
static int
boot_case(double boot_sd, double run_sd, struct bisect_boot_units *bu,
    struct bisect_commit *out, double v[NC][NB * NR],
    const char *b[NC][NB * NR], struct bisect_commit *c)
{
	size_t	i, k, r;
	double	off;

	memset(c, 0, NC * sizeof *c);
	for (i = 0; i < NC; i++) {
		for (k = 0; k < NB; k++) {
			off = boot_sd / 100 * rng_gauss();
			for (r = 0; r < NR; r++) {
				v[i][k * NR + r] = 1000 * (1 + off +
				    run_sd / 100 * rng_gauss());
				b[i][k * NR + r] = names[i * NB + k];
			}
		}
		c[i].samples = v[i];
		c[i].nr_samples = NB * NR;
		c[i].boots = b[i];
		c[i].build = BISECT_BUILD_OK;
	}
	return bisect_boot_units(bu, out, c, NULL, NC);
}

int
main(void)
{
	static double		 v[NC][NB * NR];
	static const char	*b[NC][NB * NR];
	struct bisect_commit	 c[NC], out[NC];
	struct bisect_boot_units bu;
	struct bisect_want	 w[2];
	double			 m;
	size_t			 r;
	int			 used;

	used = boot_case(2, 2, &bu, out, v, b, c);
	ok(used && bu.p < BISECT_BOOT_ALPHA, "boots off by as much as runs: "
	    "boots are the unit (F %.2f on %.0f and %.0f df, p %.2g)", bu.f,
	    bu.df1, bu.df2, bu.p);
	is_int(out[1].nr_samples, NB, "a commit of 5 boots has 5 samples");
	for (r = 0, m = 0; r < NR; r++)
		m += v[1][NR + r] / NR;
	ok(fabs(out[1].samples[1] - m) < 1e-9, "the second is its second "
	    "boot's mean");
	ok(out[1].times == NULL && out[1].boots == NULL, "times and boots "
	    "dropped from the means");
	w[0].commit = 1;
	w[0].samples = NB + 3;
	w[1].commit = 2;
	w[1].samples = NB;
	bisect_boot_wants(&bu, c, w, 2);
	is_int(w[0].samples, NB * NR + BISECT_BOOT_RUNS, "more boots wanted: "
	    "its runs and one new boot's");
	is_int(w[1].samples, NB, "no more boots wanted: left alone");
	bisect_boot_release(&bu);

	used = boot_case(0, 2, &bu, out, v, b, c);
	ok(!used && !(bu.p < BISECT_BOOT_ALPHA), "boots alike: the runs are "
	    "the samples (p %.2g)", bu.p);
	bisect_boot_release(&bu);

	memset(c, 0, sizeof c);
	c[0].samples = v[0];
	c[0].nr_samples = 4;
	ok(bisect_boot_units(&bu, out, c, NULL, 1) == 0, "no boots known: "
	    "nothing done");
	bisect_boot_release(&bu);
	return tap_done();
}
