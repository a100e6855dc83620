/*
 * stats/changepoint.c: a clear step is found at the right commit, two steps
 * both, several samples per commit and gaps in the commit numbers work, the
 * statistic equals the O(n^2) definition, the answer depends only on the
 * seed, noise alone rarely raises an alarm, and bad input is refused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"
#include "stats/rng.h"
#include "tests/unit/tap.h"

#define COMMITS	50
#define RUNS	3
#define N	(COMMITS * RUNS)

/* 50 commits x 3 runs of mean 100, sd 1, plus steps[c] from commit c on. */
static void
series(double *v, size_t *g, uint64_t seed, const double *steps)
{
	struct rng	r;
	double		level = 100;
	size_t		c, k;

	rng_seed(&r, seed);
	for (c = 0; c < COMMITS; c++) {
		if (steps != NULL)
			level += steps[c];
		for (k = 0; k < RUNS; k++) {
			v[c * RUNS + k] = level + rng_normal(&r);
			g[c * RUNS + k] = c;
		}
	}
}

/* Matteson and James's q of the split X = v[0..k), Y = v[k..m), directly. */
static double
q_direct(const double *v, size_t m, size_t k)
{
	double	a = 0, b = 0, c = 0, kx = (double)k, ky = (double)(m - k);
	size_t	i, j;

	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++) {
			if (j < k)
				a += fabs(v[i] - v[j]);
			else if (i >= k)
				b += fabs(v[i] - v[j]);
			else
				c += fabs(v[i] - v[j]);
		}
	return kx * ky / (double)m * (2 * c / (kx * ky) -
	    2 * a / (kx * (kx - 1)) - 2 * b / (ky * (ky - 1)));
}

static void
test_one_step(void)
{
	struct changepoint_result	res;
	struct changepoint_opts		o = { 0 };
	double				v[N], steps[COMMITS] = { 0 };
	double				z[N], mean = 0, sd = 0, q, best = 0;
	size_t				g[N], i, k, at = 0;
	char				*cause = NULL;

	steps[30] = -5;
	series(v, g, 1, steps);
	o.seed = 42;
	ok(changepoint_detect(&res, v, g, N, &o, &cause) == 0,
	    "detect runs");
	is_int(res.nr_points, 1, "one step: one change point");
	if (res.nr_points == 1) {
		is_int(res.points[0].group, 30, "at commit 30");
		is_int(res.points[0].index, 90, "at value 90");
		ok(res.points[0].p_value <= 0.05 &&
		    res.points[0].p_value == 1.0 / 200,
		    "p = 1/200, the smallest 199 permutations give");
		ok(fabs(res.points[0].mean_before - 100) < 0.5 &&
		    fabs(res.points[0].mean_after - 95) < 0.5 &&
		    fabs(res.points[0].change_pct + 5) < 0.6,
		    "means %.2f -> %.2f (%.1f%%)", res.points[0].mean_before,
		    res.points[0].mean_after, res.points[0].change_pct);

		/* q on standardized values, against the definition */
		for (i = 0; i < N; i++)
			mean += v[i] / N;
		for (i = 0; i < N; i++)
			sd += (v[i] - mean) * (v[i] - mean) / (N - 1);
		sd = sqrt(sd);
		for (i = 0; i < N; i++)
			z[i] = (v[i] - mean) / sd;
		for (k = 2 * RUNS; k <= N - 2 * RUNS; k += RUNS) {
			q = q_direct(z, N, k);
			if (q > best) {
				best = q;
				at = k;
			}
		}
		is_close(res.points[0].q, best, 1e-10,
		    "q equals the O(n^2) definition's maximum");
		is_int(at, res.points[0].index, "at the same split");
	}
	changepoint_result_release(&res);
}

static void
test_two_steps(void)
{
	struct changepoint_result	res;
	struct changepoint_opts		o = { 0 };
	double				v[N], steps[COMMITS] = { 0 };
	size_t				g[N];

	steps[15] = 3;
	steps[35] = -4;
	series(v, g, 2, steps);
	o.seed = 7;
	changepoint_detect(&res, v, g, N, &o, NULL);
	is_int(res.nr_points, 2, "two steps: two change points");
	if (res.nr_points == 2) {
		ok(res.points[0].group == 15 && res.points[1].group == 35,
		    "at commits 15 and 35 (%zu, %zu)", res.points[0].group,
		    res.points[1].group);
		ok(res.points[1].order == 1 && res.points[0].order == 2,
		    "the larger step is found first");
		ok(fabs(res.points[0].mean_after -
		    res.points[1].mean_before) < 1e-12,
		    "the middle segment's mean is shared");
		ok(fabs(res.points[0].mean_after - 103) < 0.5 &&
		    fabs(res.points[1].mean_after - 99) < 0.5,
		    "levels 100 -> 103 -> 99");
	}
	changepoint_result_release(&res);

	o.max_points = 1;
	changepoint_detect(&res, v, g, N, &o, NULL);
	ok(res.nr_points == 1 && res.points[0].group == 35,
	    "max_points 1: only the strongest");
	changepoint_result_release(&res);
}

static void
test_min_effect(void)
{
	struct changepoint_result	res;
	struct changepoint_opts		o = { 0 };
	double				v[N], steps[COMMITS] = { 0 };
	size_t				g[N];

	steps[15] = 3;
	steps[35] = -6;
	series(v, g, 2, steps);
	changepoint_detect(&res, v, g, N, &o, NULL);
	is_int(res.nr_points, 2, "+3%% then -5.8%%: two change points");
	changepoint_result_release(&res);
	o.min_effect_pct = 3.5;
	changepoint_detect(&res, v, g, N, &o, NULL);
	ok(res.nr_points == 1 && res.points[0].group == 35 &&
	    fabs(res.points[0].mean_before - (15 * 100 + 20 * 103) / 35.0) <
	    0.5, "min_effect_pct 3.5: the 3%% step goes, its segments "
	    "merge, the other stays (%.1f%%)", res.nr_points ?
	    res.points[0].change_pct : 0);
	changepoint_result_release(&res);
	o.min_effect_pct = 10;
	changepoint_detect(&res, v, g, N, &o, NULL);
	ok(res.nr_points == 0, "min_effect_pct 10: neither");
	changepoint_result_release(&res);
}

static void
test_shapes(void)
{
	struct changepoint_result	res, again;
	struct changepoint_opts		o = { 0 };
	struct rng			r;
	double				v[40], w[N], steps[COMMITS] = { 0 };
	size_t				g[N], i, same;

	/* one value per commit, groups NULL */
	rng_seed(&r, 3);
	for (i = 0; i < 40; i++)
		v[i] = (i < 20 ? 10 : 12) + 0.5 * rng_normal(&r);
	changepoint_detect(&res, v, NULL, 40, NULL, NULL);
	ok(res.nr_points == 1 && res.points[0].group == 20 &&
	    res.points[0].index == 20, "one value per commit: step at 20");
	changepoint_result_release(&res);

	/* commit numbers with gaps: the commit is reported, not the rank */
	steps[25] = 4;
	series(w, g, 4, steps);
	for (i = 0; i < N; i++)
		g[i] = g[i] * 10 + 3;
	changepoint_detect(&res, w, g, N, NULL, NULL);
	ok(res.nr_points == 1 && res.points[0].group == 253 &&
	    res.points[0].index == 75, "gaps in commit numbers");
	changepoint_result_release(&res);

	/* a step two commits from the end, the least min_size allows */
	memset(steps, 0, sizeof steps);
	steps[48] = -6;
	series(w, g, 5, steps);
	changepoint_detect(&res, w, g, N, NULL, NULL);
	ok(res.nr_points == 1 && res.points[0].group == 48,
	    "a step at the second-last commit is found");
	changepoint_result_release(&res);

	/* same seed, same answer */
	memset(steps, 0, sizeof steps);
	steps[20] = 0.8;
	series(w, g, 6, steps);
	o.seed = 99;
	changepoint_detect(&res, w, g, N, &o, NULL);
	changepoint_detect(&again, w, g, N, &o, NULL);
	same = res.nr_points == again.nr_points;
	for (i = 0; same && i < res.nr_points; i++)
		same = res.points[i].p_value == again.points[i].p_value &&
		    res.points[i].index == again.points[i].index;
	ok(same, "deterministic for a given seed");
	changepoint_result_release(&res);
	changepoint_result_release(&again);
}

static void
test_noise(void)
{
	struct changepoint_result	res;
	struct changepoint_opts		o = { 0 };
	double				v[N];
	size_t				g[N];
	unsigned			i, alarms = 0;

	for (i = 0; i < 100; i++) {
		series(v, g, 1000 + i, NULL);
		o.seed = i;
		changepoint_detect(&res, v, g, N, &o, NULL);
		alarms += res.nr_points != 0;
		changepoint_result_release(&res);
	}
	/* 5% expected; 12 or more of 100 has probability < 0.5% */
	ok(alarms < 12, "noise only: %u of 100 series raise an alarm",
	    alarms);
}

static void
test_input(void)
{
	struct changepoint_result	res;
	struct changepoint_opts		o = { 0 };
	double				v[] = { 1, 2, 3, 4, 5, 6 };
	double				k[] = { 3, 3, 3, 3, 3, 3 };
	double				bad[] = { 1, 2, NAN, 4, 5, 6 };
	size_t				g[] = { 0, 1, 2, 1, 3, 4 };
	char				*cause = NULL;

	ok(changepoint_detect(&res, v, g, 6, NULL, &cause) == -1,
	    "commits out of order are refused");
	is_str(cause, "value 3: commit 1 comes after commit 2", "and said");
	free(cause);
	cause = NULL;
	ok(changepoint_detect(&res, bad, NULL, 6, NULL, &cause) == -1 &&
	    cause != NULL, "NaN is refused");
	free(cause);
	cause = NULL;
	o.alpha = 2;
	ok(changepoint_detect(&res, v, NULL, 6, &o, &cause) == -1,
	    "alpha 2 is refused");
	free(cause);
	ok(changepoint_detect(&res, k, NULL, 6, NULL, NULL) == 0 &&
	    res.nr_points == 0, "a constant series has no change");
	ok(changepoint_detect(&res, v, NULL, 3, NULL, NULL) == 0 &&
	    res.nr_points == 0 && res.points == NULL, "n < 4: nothing");
	ok(changepoint_detect(&res, NULL, NULL, 0, NULL, NULL) == 0 &&
	    res.nr_points == 0, "n = 0: nothing");
	changepoint_result_release(NULL);
}

/*
 * Issue 17: a -5 sd dip of 6 commits in the middle is found at both its
 * edges; a step with two commits after it at the end of the series is
 * placed at its commit, not three commits early; p < alpha is strict.
 */
static void
test_dip_and_tail(void)
{
	struct changepoint_result	res;
	struct changepoint_opts		o;
	double				v[N], steps[COMMITS];
	size_t				g[N];
	int				rc;

	memset(&o, 0, sizeof o);
	o.alpha = 0.01;
	o.permutations = 399;
	o.min_size = 3;
	o.seed = 3;
	memset(steps, 0, sizeof steps);
	steps[22] = -5;
	steps[28] = 5;
	series(v, g, 11, steps);
	rc = changepoint_detect(&res, v, g, N, &o, NULL);
	ok(rc == 0 && res.nr_points == 2 && res.points[0].group == 22 &&
	    res.points[1].group == 28 && res.points[0].change_pct < 0 &&
	    res.points[1].change_pct > 0,
	    "a dip of 6 commits in the middle: both edges (%zu points)",
	    res.nr_points);
	changepoint_result_release(&res);

	memset(steps, 0, sizeof steps);
	steps[COMMITS - 2] = -5;
	series(v, g, 12, steps);
	rc = changepoint_detect(&res, v, g, N, &o, NULL);
	ok(rc == 0 && res.nr_points == 1 && res.points[0].group == COMMITS - 2,
	    "two bad commits at the tail: placed at the first (%zu points, "
	    "at %zu)", res.nr_points, res.nr_points > 0 ?
	    res.points[0].group : 0);
	changepoint_result_release(&res);

	/* with 9 permutations p is at least 0.1: never < 0.1 */
	o.permutations = 9;
	o.alpha = 0.1;
	rc = changepoint_detect(&res, v, g, N, &o, NULL);
	ok(rc == 0 && res.nr_points == 0, "p < alpha, not p <= alpha");
	changepoint_result_release(&res);
}

int
main(void)
{
	test_dip_and_tail();
	test_one_step();
	test_two_steps();
	test_min_effect();
	test_shapes();
	test_noise();
	test_input();
	return tap_done();
}
