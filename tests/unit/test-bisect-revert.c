/*
 * Unit tests for bisect_revert_decide: a revert that restores the good
 * level, one that restores none of the change (asked again with twice the
 * runs, then a contradiction), half of it, and too few samples to say.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/bisect-revert.h"
#include "tests/unit/tap.h"

static uint64_t	rng_state = 0x7e5e7;

static double
rng_gauss(void)
{
	double		u[2];
	int		i;

	for (i = 0; i < 2; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		u[i] = ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static void
fill(double *x, size_t n, double mean)
{
	size_t	i;

	for (i = 0; i < n; i++)
		x[i] = mean * (1 + 0.02 * rng_gauss());
}

int
main(void)
{
	double				 good[40], bad[40], rev[80];
	struct bisect_revert_input	 in;
	struct bisect_revert		 out;

	fill(good, 20, 1000);
	fill(bad, 20, 940);
	in.good = good;
	in.nr_good = 20;
	in.bad = bad;
	in.nr_bad = 20;
	in.revert = rev;
	in.runs = 20;

	fill(rev, 20, 1000);
	in.nr_revert = 20;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "restores", "a revert back at the good level restores");
	ok(out.restored_pct > 70 && out.restored_pct < 130 &&
	    out.restored_lo <= out.restored_pct &&
	    out.restored_pct <= out.restored_hi, "about all of it (%.0f%%, "
	    "[%.0f%%, %.0f%%])", out.restored_pct, out.restored_lo,
	    out.restored_hi);
	ok(out.change_pct > 4, "the revert against bad: %+.1f%%",
	    out.change_pct);

	fill(rev, 20, 940);
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "more", "none of it restored: asked again");
	is_int(out.want, 40, "with twice the runs");
	ok(out.p_value < BISECT_REVERT_ALPHA && out.restored_hi < 50,
	    "significantly less than half (p = %.2g, %.0f%%)", out.p_value,
	    out.restored_pct);
	fill(rev + 20, 20, 940);
	in.nr_revert = 40;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "contradicts", "and again: the revert contradicts the culprit");

	fill(rev, 40, 970);
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "restores", "half of it is not less than half");

	in.nr_revert = 1;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "unknown", "one sample: nothing to say");
	in.nr_revert = 20;
	in.bad = good;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "unknown", "no change to undo: nothing to say");
	return tap_done();
}
