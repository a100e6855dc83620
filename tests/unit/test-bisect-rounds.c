/*
 * Unit tests for k-point rounds and speculative builds (stats/bisect-rounds.c):
 * the points a round picks from a posterior's quantiles, the batch, the
 * ends' looks and the builds named for the next round, as pure inputs to
 * outputs; then bisect_decide itself with 1 and 4 slots on a line of 101
 * commits, at the ends' first look and at the first search round.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect.h"
#include "stats/bisect-graph.h"
#include "stats/bisect-rounds.h"
#include "tests/unit/tap.h"
#include "util/xalloc.h"

#define NR	101	/* commit 0 the good end, 100 the bad end */

static struct bisect_commit	line[NR];
static size_t			parents[NR];

static void
line_init(void)
{
	size_t	i;

	memset(line, 0, sizeof line);
	for (i = 0; i < NR; i++) {
		parents[i] = i - 1;
		line[i].parents = &parents[i];
		line[i].nr_parents = i > 0;
		line[i].name = "c";
	}
}

/* cdf of a flat posterior over 1..100: P(commit i is bad) = i / 100 */
static void
flat(double *post, double *cdf, unsigned char *elig)
{
	size_t	i;

	for (i = 0; i < NR; i++) {
		post[i] = i > 0 ? 1.0 / (NR - 1) : 0;
		cdf[i] = (double)i / (NR - 1);
		elig[i] = i > 0 && i < NR - 1;
	}
}

static int
near(size_t got, size_t want)
{
	return got + 1 >= want && got <= want + 1;
}

static void
test_points(void)
{
	double		post[NR], cdf[NR];
	unsigned char	elig[NR], built[NR];
	size_t		out[8], n;

	flat(post, cdf, elig);
	n = bisect_rounds_points(out, 1, cdf, elig, NULL, NR);
	ok(n == 1 && out[0] == 50, "one slot: the median (%zu)", out[0]);
	n = bisect_rounds_points(out, 4, cdf, elig, NULL, NR);
	ok(n == 4 && near(out[0], 20) && near(out[1], 40) &&
	    near(out[2], 60) && near(out[3], 80),
	    "four slots: the quintiles (%zu %zu %zu %zu)", out[0], out[1],
	    out[2], out[3]);
	n = bisect_rounds_points(out, 3, cdf, elig, NULL, NR);
	ok(n == 3 && near(out[0], 25) && near(out[1], 50) && near(out[2], 75),
	    "three slots: the quartiles");

	memset(built, 0, sizeof built);
	built[43] = 1;
	n = bisect_rounds_points(out, 4, cdf, elig, built, NR);
	ok(n == 4 && out[1] == 43, "a built commit 0.03 off the quantile is "
	    "taken (%zu)", out[1]);
	built[43] = 0;
	built[47] = 1;
	n = bisect_rounds_points(out, 4, cdf, elig, built, NR);
	ok(n == 4 && near(out[1], 40), "one 0.07 off, more than a quarter "
	    "of the spacing, is not (%zu)", out[1]);

	elig[20] = 0;
	n = bisect_rounds_points(out, 4, cdf, elig, NULL, NR);
	ok(n == 4 && out[0] != 20 && near(out[0], 20),
	    "an ineligible commit gives way to a neighbour (%zu)", out[0]);

	/* the mass on two commits: only they split it, two points at most */
	memset(elig, 0, sizeof elig);
	elig[30] = elig[31] = 1;
	n = bisect_rounds_points(out, 4, cdf, elig, NULL, NR);
	ok(n == 2 && out[0] != out[1], "no more points than eligible "
	    "commits, each once");
	memset(elig, 0, sizeof elig);
	n = bisect_rounds_points(out, 4, cdf, elig, NULL, NR);
	ok(n == 0, "none eligible: no point");
}

static void
test_batch(void)
{
	unsigned	b1 = bisect_rounds_batch(1.5, 1, 40);
	unsigned	b4 = bisect_rounds_batch(1.5, 4, 40);
	unsigned	b8 = bisect_rounds_batch(1.5, 8, 40);

	ok(b1 == (unsigned)ceil(2 * 6.0 / 2.25), "batch at 1.5 sd, one point "
	    "(%u)", b1);
	ok(b4 == (unsigned)ceil(2 * (6.0 + log(4)) / 2.25),
	    "batch at 1.5 sd, four points (%u)", b4);
	ok(b1 <= b4 && b4 <= b8, "more points, more samples each: all of "
	    "them right as often as one");
	is_int(bisect_rounds_batch(0.1, 4, 40), 40, "a tiny effect: the cap");
	is_int(bisect_rounds_batch(0, 4, 30), 30, "no effect known: the cap");
	is_int(bisect_rounds_batch(10, 4, 40), 2, "a huge effect: 2 at least");

	is_int(bisect_rounds_first(3, 4), 18, "the ends' first look, 4 slots: "
	    "1.5 times the job's runs a slot");
	is_int(bisect_rounds_first(3, 1), 3, "and 1 slot: the job's runs");
	is_int(bisect_rounds_grow(12, 4), 18, "each look adds half again, "
	    "as one slot does");
	is_int(bisect_rounds_grow(12, 8), 24, "with 8 slots twice that");
	is_int(bisect_rounds_grow(12, 1), 18, "one slot's look: half again");
	is_int(bisect_rounds_pairs(5, 4), 8, "the fresh check's first look, 4 "
	    "slots: 2 pairs a slot");
	is_int(bisect_rounds_pairs(5, 1), 5, "and 1 slot: as given");
	is_int(bisect_rounds_pairs(5, 2), 5, "never fewer than given");
	is_int(bisect_rounds_regrow(2, 4), 8, "the confirmation: 2 a side per "
	    "slot");
}

static void
test_speculate(void)
{
	struct bisect_graph	g;
	double			post[NR], cdf[NR];
	unsigned char		elig[NR], built[NR];
	size_t			pts[4] = { 60, 20, 80, 40 }, out[32], n, i, s;
	size_t			seg[5];
	char			*cause = NULL;

	line_init();
	ok(bisect_graph_init(&g, line, NR, NULL, &cause) == 0,
	    "graph of a line");
	flat(post, cdf, elig);
	n = bisect_rounds_speculate(out, 32, &g, post, elig, NULL, pts, 4, 4,
	    NR);
	is_int(n, 20, "four points, five outcomes, four next points each");
	memset(seg, 0, sizeof seg);
	for (i = 0; i < n; i++) {
		ok(out[i] % 20 != 0, "never a point of this round (%zu)",
		    out[i]);
		seg[out[i] / 20 < 5 ? out[i] / 20 : 4]++;
	}
	for (s = 0; s < 5; s++)
		ok(seg[s] == 4, "outcome %zu: its part's quintiles (%zu)", s,
		    seg[s]);
	ok(near(out[0], 4) && near(out[1], 8), "equal odds: lowest first "
	    "(%zu %zu)", out[0], out[1]);

	/* a part twice as likely: its next points first */
	for (i = 1; i < NR; i++)
		post[i] = i > 60 && i <= 80 ? 3.0 / 160 : 1.0 / 160;
	n = bisect_rounds_speculate(out, 4, &g, post, elig, NULL, pts, 4, 4,
	    NR);
	ok(n == 4 && out[0] > 60 && out[3] < 80, "max 4: the likeliest "
	    "part's points (%zu..%zu)", out[0], out[3]);

	flat(post, cdf, elig);
	memset(built, 0, sizeof built);
	built[24] = built[25] = built[23] = 1;
	n = bisect_rounds_speculate(out, 32, &g, post, elig, built, pts, 4, 4,
	    NR);
	for (i = 0; i < n; i++)
		if (built[out[i]])
			break;
	ok(i == n, "commits built already are not named again");
	is_int(n, 19, "the built one near a quantile stands in for it");

	n = bisect_rounds_speculate(out, 32, &g, post, elig, NULL, pts, 0, 4,
	    NR);
	ok(n == 4 && near(out[0], 20), "no point tested: the next round is "
	    "this posterior's quintiles");
	bisect_graph_release(&g);
}

/* decide on the line: the good end at 100, the bad end at 90 */
static void
test_driver(void)
{
	struct bisect_input	in;
	struct bisect_result	res;
	double			good[24], bad[24];
	size_t			g0 = 0, i, k;
	int			ends = 0, inner = 0;

	for (i = 0; i < 24; i++) {
		good[i] = 100 + 0.25 * (double)((i * 7) % 5) - 0.5;
		bad[i] = 90 + 0.25 * (double)((i * 3) % 5) - 0.5;
	}
	line_init();
	memset(&in, 0, sizeof in);
	in.commits = line;
	in.nr_commits = NR;
	in.bad = NR - 1;
	in.good = &g0;
	in.nr_good = 1;
	in.direction = 1;
	in.min_effect_pct = 1;
	in.initial_runs = 3;
	in.max_runs = 40;

	in.slots = 1;
	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE,
	    "one slot, nothing sampled: continue");
	ok(res.nr_wants == 1 && res.wants[0].samples == 3 &&
	    res.nr_builds == 0, "one slot: one end, the job's runs, no "
	    "speculation");
	bisect_result_release(&res);

	in.slots = 4;
	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE,
	    "four slots, nothing sampled: continue");
	for (k = 0; k < res.nr_wants; k++) {
		ends += (res.wants[k].commit == 0 ||
		    res.wants[k].commit == NR - 1) && res.wants[k].samples == 18;
		inner += (near(res.wants[k].commit, 33) ||
		    near(res.wants[k].commit, 67)) && res.wants[k].samples == 6;
	}
	ok(res.nr_wants == 4 && ends == 2 && inner == 2, "four slots: both "
	    "ends 18 runs, and in the two slots they leave the flat prior's "
	    "thirds, 6 runs each");
	for (i = 0, inner = 0; i < res.nr_builds; i++)
		for (k = 0; k < res.nr_wants; k++)
			inner += res.builds[i] == res.wants[k].commit;
	ok(res.nr_builds > 0 && res.nr_builds <= 20 && inner == 0,
	    "and the next round's points to build meanwhile, none of them "
	    "wanted now (%zu)", res.nr_builds);
	bisect_result_release(&res);

	in.slots = 2;
	ok(bisect_decide(&res, &in) == 0 && res.nr_wants == 2 &&
	    res.nr_builds == 2 && near(res.builds[0], 33) &&
	    near(res.builds[1], 67), "two slots: the ends alone, the thirds "
	    "to build meanwhile");
	bisect_result_release(&res);
	in.slots = 4;

	/* a later look at the ends: the posterior's points beside them */
	line[0].samples = good;
	line[0].nr_samples = 18;
	line[NR - 1].samples = good + 1;
	line[NR - 1].nr_samples = 18;
	line[0].build = line[NR - 1].build = BISECT_BUILD_OK;
	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE &&
	    res.nr_wants == 4, "the ends alike so far: a second look, with "
	    "two points beside them");
	for (k = 0, ends = 0; k < res.nr_wants; k++)
		ends += res.wants[k].commit == 0 || res.wants[k].commit == NR - 1;
	ok(ends == 2, "the ends first");
	bisect_result_release(&res);
	line_init();

	/* the ends told apart, nothing between sampled */
	line[0].samples = good;
	line[0].nr_samples = 24;
	line[NR - 1].samples = bad;
	line[NR - 1].nr_samples = 24;
	line[0].build = line[NR - 1].build = BISECT_BUILD_OK;
	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE,
	    "the ends differ: continue");
	ok(res.nr_wants == 4 && near(res.wants[0].commit, 20) &&
	    near(res.wants[1].commit, 40) && near(res.wants[2].commit, 60) &&
	    near(res.wants[3].commit, 80), "the posterior's quintiles "
	    "(%zu %zu %zu %zu)", res.nr_wants > 0 ? res.wants[0].commit : 0,
	    res.nr_wants > 1 ? res.wants[1].commit : 0,
	    res.nr_wants > 2 ? res.wants[2].commit : 0,
	    res.nr_wants > 3 ? res.wants[3].commit : 0);
	for (k = 0; k < res.nr_wants; k++)
		if (res.wants[k].samples < 5)
			break;
	ok(k == res.nr_wants, "each at least 1.5 times the job's runs");
	is_int(res.nr_builds, 20, "the next round's points under each of "
	    "the five outcomes: k (k + 1)");
	bisect_result_release(&res);
	in.slots = 1;
	ok(bisect_decide(&res, &in) == 0 && res.nr_wants == 1 &&
	    near(res.wants[0].commit, 50) && res.nr_builds == 0,
	    "one slot: the midpoint, as before");
	bisect_result_release(&res);
}

int
main(void)
{
	test_points();
	test_batch();
	test_speculate();
	test_driver();
	return tap_done();
}
