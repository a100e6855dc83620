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

/*
 * A line of NR commits with the CLI's defaults, and 24 runs each of a
 * good end near 100 and a bad end near 90 for the caller to give them.
 */
static void
ends_init(struct bisect_input *in, size_t *g0, double *good, double *bad)
{
	size_t	i;

	for (i = 0; i < 24; i++) {
		good[i] = 100 + 0.25 * (double)((i * 7) % 5) - 0.5;
		bad[i] = 90 + 0.25 * (double)((i * 3) % 5) - 0.5;
	}
	line_init();
	memset(in, 0, sizeof *in);
	in->commits = line;
	in->nr_commits = NR;
	in->bad = NR - 1;
	in->good = g0;
	in->nr_good = 1;
	in->direction = 1;
	in->min_effect_pct = 1;
	in->initial_runs = 3;
	in->max_runs = 40;
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

	ok(bisect_rounds_low(5, 14, 14) > 3 && bisect_rounds_low(5, 14, 14) <
	    4, "the effect's lower bound, 5 sd on 14 runs a side: 5 less "
	    "2.33 standard errors (%.2f)", bisect_rounds_low(5, 14, 14));
	ok(fabs(bisect_rounds_low(1.5, 18, 18) - (1.5 - 2.326 * sqrt(2.0 /
	    18 + 2.25 / 68))) < 1e-9, "and 1.5 sd on 18 a side (%.3f)",
	    bisect_rounds_low(1.5, 18, 18));
	ok(bisect_rounds_low(1.5, 18, 18) < bisect_rounds_low(1.5, 40, 40),
	    "more runs, a higher bound");
	is_int(bisect_rounds_low(0.5, 3, 3) == 0, 1, "a small effect on few "
	    "runs: no bound above 0");
	is_int(bisect_rounds_low(5, 1, 14) == 0, 1, "one run of a side: none");
	is_int(bisect_rounds_floor(0, 4, 3, 40), 6, "no bound: the floor, "
	    "twice the job's runs");
	is_int(bisect_rounds_floor(bisect_rounds_low(1.5, 18, 18), 4, 3, 40),
	    6, "1.5 sd on 18 a side: still twice the job's runs");
	is_int(bisect_rounds_floor(bisect_rounds_low(5, 14, 14), 3, 3, 40), 3,
	    "5 sd on 14 a side: the job's runs");
	is_int(bisect_rounds_floor(2.2, 4, 3, 40), 4, "2.2 sd bound: the "
	    "batch at the bound, 4, between the two");
	is_int(bisect_rounds_floor(20, 4, 1, 40), 2, "a job of one run: 2 "
	    "at least");

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
	n = bisect_rounds_spec(out, 32, &g, post, elig, NULL, pts, 4, 4,
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
	n = bisect_rounds_spec(out, 4, &g, post, elig, NULL, pts, 4, 4,
	    NR);
	ok(n == 4 && out[0] > 60 && out[3] < 80, "max 4: the likeliest "
	    "part's points (%zu..%zu)", out[0], out[3]);

	flat(post, cdf, elig);
	memset(built, 0, sizeof built);
	built[24] = built[25] = built[23] = 1;
	n = bisect_rounds_spec(out, 32, &g, post, elig, built, pts, 4, 4,
	    NR);
	for (i = 0; i < n; i++)
		if (built[out[i]])
			break;
	ok(i == n, "commits built already are not named again");
	is_int(n, 19, "the built one near a quantile stands in for it");

	n = bisect_rounds_spec(out, 32, &g, post, elig, NULL, pts, 0, 4,
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
	double			good[24], bad[24], near_bad[24];
	size_t			g0 = 0, i, k;
	int			ends = 0, inner = 0;

	ends_init(&in, &g0, good, bad);

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
		inner += (near(res.wants[k].commit, 20) ||
		    near(res.wants[k].commit, 40) ||
		    near(res.wants[k].commit, 60) ||
		    near(res.wants[k].commit, 80)) && res.wants[k].samples == 6;
	}
	ok(res.nr_wants == 6 && ends == 2 && inner == 4, "four slots: both "
	    "ends 18 runs, and beside them the flat prior's quintiles, 6 "
	    "runs each");
	for (i = 0, inner = 0; i < res.nr_builds; i++)
		for (k = 0; k < res.nr_wants; k++)
			inner += res.builds[i] == res.wants[k].commit;
	ok(res.nr_builds > 0 && res.nr_builds <= 20 && inner == 0,
	    "and the next round's points to build meanwhile, none of them "
	    "wanted now (%zu)", res.nr_builds);
	bisect_result_release(&res);

	in.slots = 2;
	ok(bisect_decide(&res, &in) == 0 && res.nr_wants == 4 &&
	    near(res.wants[2].commit, 33) && near(res.wants[3].commit, 67) &&
	    res.nr_builds > 0, "two slots: the ends and the thirds beside "
	    "them, the next round's points to build");
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
	    "the two points the slots they leave take");
	for (k = 0, ends = 0; k < res.nr_wants; k++)
		ends += res.wants[k].commit == 0 || res.wants[k].commit == NR - 1;
	ok(ends == 2, "the ends first");
	bisect_result_release(&res);
	/* the bad end a little lower: apart at p < 0.1, not yet decided */
	for (i = 0; i < 18; i++)
		near_bad[i] = good[i] - 0.3;
	line[NR - 1].samples = near_bad;
	k = (size_t)bisect_decide(&res, &in);
	ok(k == 0 && res.status == BISECT_CONTINUE && res.nr_wants == 6,
	    "the ends apart so far, not yet decided: a second look, with four "
	    "points beside them (%zu wants)", res.nr_wants);
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
		if (res.wants[k].samples < 3 || res.wants[k].samples >= 6)
			break;
	ok(k == res.nr_wants && res.nr_wants > 0, "a change the ends show "
	    "beyond doubt: the job's runs a point, not twice them (%u)",
	    res.nr_wants > 0 ? res.wants[0].samples : 0);
	is_int(res.nr_builds, 20, "the next round's points under each of "
	    "the five outcomes: k (k + 1)");
	bisect_result_release(&res);
	/* the bad end about 1.4 sd (0.5%) below: twice the job's runs */
	for (i = 0; i < 24; i++)
		near_bad[i] = 99.5 + 0.25 * (double)((i * 3) % 5) - 0.5;
	line[NR - 1].samples = near_bad;
	in.min_effect_pct = 0.1;
	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE &&
	    res.nr_wants >= 4, "a smaller change: continue, four points");
	for (k = 0; k < res.nr_wants; k++)
		if (res.wants[k].samples < 6)
			break;
	ok(k == res.nr_wants, "each at least twice the job's runs (%u)",
	    res.nr_wants > 0 ? res.wants[0].samples : 0);
	bisect_result_release(&res);
	line[NR - 1].samples = bad;
	in.min_effect_pct = 1;
	in.slots = 1;
	ok(bisect_decide(&res, &in) == 0 && res.nr_wants == 1 &&
	    near(res.wants[0].commit, 50) && res.nr_builds == 0,
	    "one slot: the midpoint, as before");
	bisect_result_release(&res);
}

/*
 * The last round: the ends apart, 40 good and 43 bad, so the culprit is
 * 41, 42 or 43. With four slots those three and 40 (the first parent of
 * 41) are the round, and the likeliest culprit and its parent end the
 * batch with the fresh check's first look in pairs; with two slots they
 * do not fit and the round is the quantiles'.
 */
static void
test_close(void)
{
	struct bisect_input	in;
	struct bisect_result	res;
	double			good[24], bad[24];
	unsigned		add[NR], most = 0;
	size_t			g0 = 0, i, k, seen = 0, c = NR, p = NR;

	ends_init(&in, &g0, good, bad);
	in.slots = 4;
	line[0].samples = good;
	line[0].nr_samples = 24;
	line[NR - 1].samples = bad;
	line[NR - 1].nr_samples = 24;
	line[40].samples = good + 3;
	line[40].nr_samples = 6;
	line[43].samples = bad + 5;
	line[43].nr_samples = 6;
	line[0].build = line[NR - 1].build = BISECT_BUILD_OK;
	line[40].build = line[43].build = BISECT_BUILD_OK;
	ok(bisect_decide(&res, &in) == 0 && res.status == BISECT_CONTINUE,
	    "the culprit among 41..43: continue");
	memset(add, 0, sizeof add);
	for (k = 0; k < res.nr_wants; k++) {
		i = res.wants[k].commit;
		seen |= i >= 40 && i <= 43 ? 1u << (i - 40) : 0;
		add[i] = res.wants[k].samples - (unsigned)line[i].nr_samples;
	}
	ok(res.nr_wants == 4 && seen == 15, "four slots: 40, 41, 42 and 43, "
	    "the candidates and their parents (%zu wants)", res.nr_wants);
	for (i = 41; i <= 43; i++)
		if (add[i] > add[c < NR ? c : 0] || c == NR)
			c = i;
	p = c - 1;
	for (i = 40; i <= 43; i++)
		if (i != c && i != p && add[i] > most)
			most = add[i];
	ok(c < NR && add[c] == most + 8 && add[p] == most + 8, "the likeliest "
	    "culprit %zu and its parent: 8 pairs beyond the other points' %u "
	    "runs (%u %u)", c, most, c < NR ? add[c] : 0, add[p]);
	bisect_result_release(&res);

	in.slots = 2;
	k = (size_t)bisect_decide(&res, &in);
	ok(k == 0 && res.nr_wants == 2 && res.wants[0].commit >= 41 &&
	    res.wants[1].commit <= 43 && res.wants[0].commit <
	    res.wants[1].commit,
	    "two slots: they do not fit, the posterior's thirds (%zu %zu)",
	    res.nr_wants > 0 ? res.wants[0].commit : 0,
	    res.nr_wants > 1 ? res.wants[1].commit : 0);
	bisect_result_release(&res);
	line_init();
}

/*
 * Three commits (0 the good end, 1 a point, 2 the reference) in batches
 * of 4 rounds, each round one run of each in turn; the machine's level in
 * batch j is 1 + step * j, the noise a fixed +-0.2% pattern. Then alone
 * runs of the point by itself.
 */
#define BL_N	40
static double	bl_s[3][BL_N], bl_t[3][BL_N];

static void
block_make(struct bisect_commit *c, double step, size_t batches,
    size_t alone)
{
	static const double	level[3] = { 1000, 970, 970 };
	size_t			i, j, k, n = 0;

	memset(c, 0, 3 * sizeof *c);
	for (j = 0; j < batches; j++)
		for (i = 0; i < 4; i++, n++)
			for (k = 0; k < 3; k++) {
				bl_s[k][n] = level[k] * (1 + step * (double)j) *
				    (1 + 0.001 * (double)((n * 7 + k * 3) % 5) -
				    0.002);
				bl_t[k][n] = (double)(3 * n + k) +
				    100.0 * (double)j;
			}
	for (k = 0; k < 3; k++) {
		c[k].samples = bl_s[k];
		c[k].times = bl_t[k];
		c[k].nr_samples = n;
	}
	for (i = 0; i < alone; i++) {
		bl_s[1][n + i] = level[1];
		bl_t[1][n + i] = 10000.0 + (double)i;
	}
	c[1].nr_samples += alone;
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(const double *x, size_t n)
{
	double	*v = xcalloc(n, sizeof *v), m;

	memcpy(v, x, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

static void
block_bt(struct bisect_time *bt, int used)
{
	memset(bt, 0, sizeof *bt);
	bt->nr = 3;
	bt->ref = 2;
	if (used) {
		bt->used = 1;
		bt->samples = xcalloc(3, sizeof *bt->samples);
	}
}

static void
test_block(void)
{
	struct bisect_commit	c[3], out[3];
	struct bisect_time	bt;
	struct bisect_want	*w;
	size_t			i, nw, skip = 0;
	double			L;
	int			good = 1, took;

	/* a drift of 3% a batch: the point comes out at the reference's level */
	block_make(c, 0.03, 6, 0);
	block_bt(&bt, 0);
	memcpy(out, c, sizeof out);
	took = (int)bisect_rounds_block(&bt, out, c, &skip, 1);
	ok(took && bt.used, "a reference that moves from batch to batch: "
	    "the samples are blocked on it");
	L = median(c[2].samples, c[2].nr_samples);
	for (i = 0; i < c[1].nr_samples; i++)
		if (fabs(out[1].samples[i] / L - 1) > 0.005)
			good = 0;
	ok(good, "the point's samples at the reference's median %.1f, within "
	    "0.5%% (the raw ones %.0f to %.0f)", L, c[1].samples[0],
	    c[1].samples[c[1].nr_samples - 1]);
	ok(out[0].samples == c[0].samples, "an end in skip[] stays as taken");
	ok(out[2].samples == c[2].samples, "the reference stays as taken");
	bisect_time_release(&bt);

	/* the same levels in every batch: nothing is done */
	block_make(c, 0, 6, 0);
	block_bt(&bt, 0);
	memcpy(out, c, sizeof out);
	took = (int)bisect_rounds_block(&bt, out, c, NULL, 0);
	ok(!took && !bt.used && out[1].samples == c[1].samples,
	    "no drift: the samples stay as taken");
	bisect_time_release(&bt);

	/* too few groups of the reference's runs for the test */
	block_make(c, 0.03, 1, 0);
	block_bt(&bt, 0);
	took = (int)bisect_rounds_block(&bt, out, c, NULL, 0);
	ok(!took && !bt.used, "one batch of 4 runs: no test, nothing done");
	bisect_time_release(&bt);

	/*
	 * Neighbours that move together (the neighbour test, bt.used): each
	 * sample over its nearest reference run; the point's runs alone, 4
	 * or more runs from the reference's last, stay as taken.
	 */
	block_make(c, 0.03, 6, 8);
	block_bt(&bt, 1);
	memcpy(out, c, sizeof out);
	took = (int)bisect_rounds_block(&bt, out, c, NULL, 0);
	L = median(c[2].samples, c[2].nr_samples);
	ok(took && fabs(out[1].samples[3] - c[1].samples[3] * L /
	    c[2].samples[3]) < 1e-9, "a point's sample over the reference's "
	    "run next to it, times its median");
	ok(out[0].samples != c[0].samples && fabs(out[0].samples[3] -
	    c[0].samples[3] * L / c[2].samples[2]) < 1e-9, "no skip[]: the "
	    "good end's too, over the reference run before it");
	ok(out[1].samples[24] != c[1].samples[24] &&
	    out[1].samples[27] != c[1].samples[27] &&
	    out[1].samples[28] == c[1].samples[28] &&
	    out[1].samples[31] == c[1].samples[31], "the point's runs alone: "
	    "blocked up to 4 runs from the reference, as taken beyond");
	bisect_time_release(&bt);

	/* the reference beside a batch without it */
	block_make(c, 0, 6, 0);
	block_bt(&bt, 0);
	nw = 1;
	w = xcalloc(1, sizeof *w);
	w[0].commit = 1;
	w[0].samples = (unsigned)c[1].nr_samples + 6;
	bisect_rounds_ref_wants(&bt, c, 1, &w, &nw);
	ok(nw == 2 && w[1].commit == 2 && w[1].samples ==
	    c[2].nr_samples + 3, "no drift seen: the reference rides along "
	    "with 3 runs (%zu wants)", nw);
	nw = 1;
	bt.used = 1;
	bisect_rounds_ref_wants(&bt, c, 1, &w, &nw);
	ok(nw == 2 && w[1].samples == c[2].nr_samples + 6, "drift: as many "
	    "runs as the point's");
	nw = 2;
	bisect_rounds_ref_wants(&bt, c, 1, &w, &nw);
	ok(nw == 2, "a batch with the reference is left alone");
	nw = 1;
	bisect_rounds_ref_wants(&bt, c, 0, &w, &nw);
	ok(nw == 1, "no times: nothing added");
	free(w);
}

int
main(void)
{
	test_points();
	test_batch();
	test_speculate();
	test_driver();
	test_close();
	test_block();
	return tap_done();
}
