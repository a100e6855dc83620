/*
 * Unit tests for bisect_revert_decide: the first look, a revert that
 * restores the good level (at the first look), one that restores none of
 * the change (more runs, then a contradiction), half of it, no change to
 * undo, boots as units, and the check as interleaved pairs with the bad
 * end: under a drift since the ends ran, the pairs say the revert
 * restores where the samples as taken say it does not, and a revert that
 * restores nothing is contradicted on twice the first look's pairs.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-boot.h"
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

/*
 * The ends ran at times 0..39 (bad even, good odd); then the machine
 * slowed by 8% (a drift, a hog that stayed), and the revert check's pairs
 * ran from time 100 on, the bad end's runs among them.
 */
static void
test_paired(void)
{
	double				 good[20], bad[60], rev[40];
	double				 bt[60], rt[40];
	struct bisect_revert_input	 in;
	struct bisect_revert		 out;
	size_t				 i, nb = 20, nr = 0;
	unsigned			 want;

	for (i = 0; i < 20; i++) {
		good[i] = 1000 * (1 + 0.02 * rng_gauss());
		bad[i] = 940 * (1 + 0.02 * rng_gauss());
		bt[i] = (double)(2 * i);
	}
	memset(&in, 0, sizeof in);
	in.good = good;
	in.nr_good = 20;
	in.bad = bad;
	in.bad_times = bt;
	in.revert = rev;
	in.revert_times = rt;
	in.runs = 20;
	in.after = 39;
	in.nr_bad = nb;
	bisect_revert_decide(&out, &in);
	ok(out.paired && out.verdict == BISECT_REVERT_MORE &&
	    out.want == BISECT_REVERT_FIRST &&
	    out.want_bad == 20 + BISECT_REVERT_FIRST, "paired: the first look "
	    "is %d pairs, revert and bad end (want %u, bad %u)",
	    BISECT_REVERT_FIRST, out.want, out.want_bad);
	/* the revert restores all of it, 8% slower, as the bad end's pairs */
	while (out.verdict == BISECT_REVERT_MORE && nr < 40) {
		want = out.want;
		for (; nr < want; nr++, nb++) {
			bad[nb] = 0.92 * 940 * (1 + 0.02 * rng_gauss());
			bt[nb] = 100 + 2 * (double)nr;
			rev[nr] = 0.92 * 1000 * (1 + 0.02 * rng_gauss());
			rt[nr] = 101 + 2 * (double)nr;
		}
		in.nr_bad = nb;
		in.nr_revert = nr;
		bisect_revert_decide(&out, &in);
	}
	is_str(bisect_revert_verdict_name(out.verdict), "restores",
	    "paired, 8%% slower since the ends: restores (%zu pairs, %.0f%%, "
	    "95%% CI %.0f..%.0f%%)", out.pairs, out.restored_pct,
	    out.restored_lo, out.restored_hi);
	ok(out.restored_pct > 60 && out.restored_pct < 140 &&
	    out.restored_lo < out.restored_pct &&
	    out.restored_hi > out.restored_pct, "the pairs' step is the "
	    "change's, inside its interval");
	/* the same runs as taken, unpaired: the drift reads as no revert */
	in.bad_times = NULL;
	in.nr_bad = 20;
	bisect_revert_decide(&out, &in);
	ok(!out.paired && out.restored_pct < 50, "unpaired, the same runs: "
	    "%.0f%% restored, the drift taken for the culprit's",
	    out.restored_pct);
	/* a revert that restores nothing: contradicted on 10 pairs */
	in.bad_times = bt;
	nb = 20;
	nr = 0;
	in.nr_bad = nb;
	in.nr_revert = 0;
	bisect_revert_decide(&out, &in);
	while (out.verdict == BISECT_REVERT_MORE && nr < 40) {
		want = out.want;
		for (; nr < want; nr++, nb++) {
			bad[nb] = 0.92 * 940 * (1 + 0.02 * rng_gauss());
			bt[nb] = 100 + 2 * (double)nr;
			rev[nr] = 0.92 * 940 * (1 + 0.02 * rng_gauss());
			rt[nr] = 101 + 2 * (double)nr;
		}
		in.nr_bad = nb;
		in.nr_revert = nr;
		bisect_revert_decide(&out, &in);
	}
	ok(out.verdict == BISECT_REVERT_CONTRADICTS &&
	    out.pairs >= 2 * BISECT_REVERT_FIRST, "paired, no step: "
	    "contradicts on %zu pairs (p = %.2g)", out.pairs, out.p_value);
	/* a run without a time: the samples as taken */
	bt[3] = NAN;
	bisect_revert_decide(&out, &in);
	ok(!out.paired, "a bad run without a time: unpaired");
}

/*
 * The check's pairs run on two machines at once (a, a, b, b in time):
 * across machines no two runs pair; named, each machine's do, as the
 * fresh check's (stats/bisect-pair.c).
 */
static void
test_paired_machines(void)
{
	double				 good[40], bad[60], rev[20];
	double				 bt[60], rt[20];
	const char			*bm[60], *rm[20];
	struct bisect_revert_input	 in;
	struct bisect_revert		 out;
	size_t				 i;

	for (i = 0; i < 40; i++) {
		good[i] = 1000 * (1 + 0.02 * rng_gauss());
		bad[i] = 940 * (1 + 0.02 * rng_gauss());
		bt[i] = (double)i;
	}
	memset(&in, 0, sizeof in);
	in.good = good;
	in.nr_good = 40;
	in.bad = bad;
	in.bad_times = bt;
	in.revert = rev;
	in.revert_times = rt;
	in.after = 39;
	/* two machines at once: a, a, b, b in time, machine by machine */
	for (i = 0; i < 20; i++) {
		bt[40 + i] = rt[i] = 200 + (double)(i / 2) * 4 + (i % 2);
		rt[i] += 2;
		bm[40 + i] = rm[i] = i % 2 ? "m2" : "m1";
		bad[40 + i] = 940;
		rev[i] = 1000;
	}
	for (i = 0; i < 40; i++)
		bm[i] = "m1";
	in.nr_bad = 60;
	in.nr_revert = 20;
	in.runs = 40;
	bisect_revert_decide(&out, &in);
	ok(out.pairs == 0, "two machines, not named: no pair (%zu)",
	    out.pairs);
	in.bad_machines = bm;
	in.revert_machines = rm;
	bisect_revert_decide(&out, &in);
	ok(out.pairs == 20, "two machines, named: each machine's runs pair "
	    "(%zu of 20)", out.pairs);
}

int
main(void)
{
	double				 good[40], bad[40], rev[80];
	const char			*gb[40], *bb[40], *rb[80];
	struct bisect_revert_input	 in;
	struct bisect_revert		 out;
	size_t				 i;

	memset(&in, 0, sizeof in);
	fill(good, 20, 1000);
	fill(bad, 20, 940);
	in.good = good;
	in.nr_good = 20;
	in.bad = bad;
	in.nr_bad = 20;
	in.revert = rev;
	in.runs = 20;

	in.nr_revert = 0;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "more", "no revert run yet: the first look");
	is_int(out.want, BISECT_REVERT_FIRST, "of %d runs", BISECT_REVERT_FIRST);
	fill(rev, 20, 1000);
	in.nr_revert = 5;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "restores", "a revert back at the good level restores at 5 runs");
	ok(out.p_restores < BISECT_REVERT_ALPHA_RESTORES,
	    "significantly better than bad (p = %.2g)", out.p_restores);
	in.nr_revert = 20;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "restores", "and at 20");
	ok(out.restored_pct > 70 && out.restored_pct < 130 &&
	    out.restored_lo <= out.restored_pct &&
	    out.restored_pct <= out.restored_hi, "about all of it (%.0f%%, "
	    "[%.0f%%, %.0f%%])", out.restored_pct, out.restored_lo,
	    out.restored_hi);
	ok(out.change_pct > 4, "the revert against bad: %+.1f%%",
	    out.change_pct);

	fill(rev, 20, 940);
	in.nr_revert = 5;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "more", "none of it restored, 5 runs: asked again");
	is_int(out.want, 20, "on as many runs as bad had");
	in.nr_revert = 20;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "contradicts", "none of it on as many runs as bad: contradicts");
	ok(out.p_value < BISECT_REVERT_ALPHA && out.restored_hi < 50,
	    "significantly less than half (p = %.2g, %.0f%%)", out.p_value,
	    out.restored_pct);
	fill(rev, 20, 955);
	in.nr_revert = 5;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "more", "a quarter of it at 5 runs, neither shown: more");
	is_int(out.want, 8, "a look half as large again");

	fill(rev, 40, 970);
	in.nr_revert = 20;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "restores", "half of it is not less than half");

	in.nr_revert = 20;
	in.bad = good;
	is_str(bisect_revert_verdict_name(bisect_revert_decide(&out, &in)),
	    "unknown", "no change to undo: nothing to say");
	in.bad = bad;

	/*
	 * Boots off by 3% each, 4 runs a boot: the revert's one boot at the
	 * bad level but 3% up reads as restored on runs; in boots it is one
	 * sample, and more boots are asked for.
	 */
	static const char *names[] = { "b0", "b1", "b2", "b3", "b4", "b5",
	    "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14",
	    "b15", "b16", "b17", "b18", "b19" };
	for (i = 0; i < 20; i++) {
		gb[i] = names[i / 4];
		bb[i] = names[5 + i / 4];
	}
	for (i = 0; i < 20; i += 4) {
		double	goff = 0.03 * rng_gauss(), boff = 0.03 * rng_gauss();
		size_t	k;

		for (k = i; k < i + 4; k++) {
			good[k] = 1000 * (1 + 0.003 * rng_gauss()) * (1 + goff);
			bad[k] = 940 * (1 + 0.003 * rng_gauss()) * (1 + boff);
		}
	}
	fill(rev, 5, 940 * 1.05);
	for (i = 0; i < 5; i++)
		rb[i] = "r0";
	in.good_boots = gb;
	in.bad_boots = bb;
	in.revert_boots = rb;
	in.nr_revert = 5;
	bisect_revert_decide(&out, &in);
	ok(out.boot_units, "boots differ more than runs: boot units");
	is_str(bisect_revert_verdict_name(out.verdict), "more",
	    "one boot of the revert: more boots");
	is_int(out.want, 5 + BISECT_BOOT_RUNS, "a new boot of %d runs",
	    BISECT_BOOT_RUNS);
	test_paired();
	test_paired_machines();
	return tap_done();
}
