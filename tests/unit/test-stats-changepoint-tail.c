/*
 * stats/changepoint-tail.c: a step in the newest commit asks for more runs
 * with 3, and is found with 12; the tail length found is the step's; noise
 * alone, a commit-to-commit spread, one disturbed run and a change in the
 * other direction are not found; short series are left alone; the change
 * points E-Divisive had in the tail give way; bad input is refused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint-tail.h"
#include "stats/rng.h"
#include "tests/unit/tap.h"

#define COMMITS	30
#define MAXV	(COMMITS * 12)

struct series {
	double	v[MAXV];
	size_t	g[MAXV];
	size_t	n;
};

/*
 * COMMITS commits of mean 100 and run sd 1, the last `bad` of them
 * `step` lower, `runs` runs each but `tail_runs` for the last three;
 * each commit off by an offset of sd `tau`.
 */
static void
make(struct series *s, uint64_t seed, size_t bad, double step,
    size_t tail_runs, double tau)
{
	struct rng	r;
	size_t		c, k, runs;
	double		off;

	rng_seed(&r, seed);
	s->n = 0;
	for (c = 0; c < COMMITS; c++) {
		runs = c + 3 >= COMMITS ? tail_runs : 3;
		off = tau * rng_normal(&r);
		for (k = 0; k < runs; k++) {
			s->v[s->n] = 100 + off + rng_normal(&r) +
			    (c + bad >= COMMITS ? step : 0);
			s->g[s->n++] = c;
		}
	}
}

static void
test_step(void)
{
	struct changepoint_tail		t;
	struct changepoint_tail_opts	o = { 0 };
	struct series			s;
	size_t				bad;
	char				*cause = NULL;

	o.direction = -1;
	make(&s, 1, 1, -4, 3, 0);
	ok(changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, &cause) == 0,
	    "the test runs");
	is_int(t.verdict, CHANGEPOINT_TAIL_MORE, "3 runs: more are wanted");
	is_int(t.group, COMMITS - 1, "at the newest commit");
	is_int(t.more_runs, 12, "to 12 runs");
	is_int(t.zone, COMMITS - 3, "the tail's zone is the newest 3");
	make(&s, 1, 1, -4, 12, 0);
	changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
	is_int(t.verdict, CHANGEPOINT_TAIL_FOUND, "12 runs: found");
	is_int(t.group, COMMITS - 1, "at the newest commit");
	ok(t.p_value < 0.001 && t.change_pct < -3 && t.change_pct > -5,
	    "p %g, change %.2f%%", t.p_value, t.change_pct);
	for (bad = 2; bad <= 3; bad++) {
		make(&s, 2, bad, -4, 12, 0);
		changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
		ok(t.verdict == CHANGEPOINT_TAIL_FOUND &&
		    t.group == COMMITS - bad, "%zu bad commits: found at "
		    "commit %zu", bad, t.group);
	}
	/* a rise is not a fall; with no direction it is a change */
	make(&s, 3, 1, 4, 12, 0);
	changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
	is_int(t.verdict, CHANGEPOINT_TAIL_NONE, "a rise, falls looked for");
	o.direction = 0;
	changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
	is_int(t.verdict, CHANGEPOINT_TAIL_FOUND, "a rise, either looked for");
	/* below min_effect_pct it is not a change */
	o.min_effect_pct = 5;
	changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
	is_int(t.verdict, CHANGEPOINT_TAIL_NONE, "smaller than min effect");
}

static void
test_noise(void)
{
	struct changepoint_tail		t;
	struct changepoint_tail_opts	o = { 0 };
	struct series			s;
	unsigned			seed, found = 0, more = 0, off = 0;

	o.direction = -1;
	for (seed = 1; seed <= 200; seed++) {
		make(&s, seed, 0, 0, 12, 0);
		changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
		found += t.verdict == CHANGEPOINT_TAIL_FOUND;
		make(&s, seed, 0, 0, 3, 0);
		changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
		more += t.verdict == CHANGEPOINT_TAIL_MORE;
		/* offsets per commit of half the run sd: not a change */
		make(&s, seed, 0, 0, 12, 0.5);
		changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
		off += t.verdict == CHANGEPOINT_TAIL_FOUND;
	}
	ok(found <= 1, "noise: %u of 200 found", found);
	ok(more <= 30, "noise: %u of 200 want more runs", more);
	ok(off <= 1, "per-commit offsets: %u of 200 found", off);
}

static void
test_disturbed(void)
{
	struct changepoint_tail		t;
	struct changepoint_tail_opts	o = { 0 };
	struct series			s;

	o.direction = -1;
	make(&s, 4, 0, 0, 12, 0);
	s.v[s.n - 1] = 70;	/* one run of the newest commit, -30% */
	changepoint_tail_test(&t, s.v, s.g, s.n, 0, &o, NULL);
	ok(t.verdict != CHANGEPOINT_TAIL_FOUND, "one disturbed run is not a "
	    "regression (t %.2f)", t.t);
}

static void
test_detect(void)
{
	struct changepoint_tail		t;
	struct changepoint_tail_opts	o = { 0 };
	struct changepoint_result	res;
	struct series			s;

	o.direction = -1;
	make(&s, 5, 1, -4, 12, 0);
	/* E-Divisive's points: one in the middle, one in the tail */
	res.nr_points = 2;
	res.points = calloc(2, sizeof *res.points);
	res.points[0].group = 10;
	res.points[0].index = 30;
	res.points[1].group = COMMITS - 2;
	res.points[1].index = (COMMITS - 2) * 3;
	ok(changepoint_tail_detect(&res, &t, s.v, s.g, s.n, &o, NULL) == 0,
	    "detect runs");
	is_int(t.verdict, CHANGEPOINT_TAIL_FOUND, "found");
	is_int(res.nr_points, 2, "the tail's point replaces E-Divisive's");
	ok(res.nr_points == 2 && res.points[0].group == 10 &&
	    res.points[1].group == COMMITS - 1 && res.points[1].q == 0,
	    "the middle one stays, the tail one is the test's");
	changepoint_result_release(&res);
}

static void
test_short_and_input(void)
{
	struct changepoint_tail		t;
	struct changepoint_tail_opts	o = { 0 };
	double				v[6] = { 1, 2, 3, 4, 5, NAN };
	size_t				g[6] = { 0, 1, 2, 3, 4, 5 };
	struct series			s;
	char				*cause = NULL;

	make(&s, 6, 1, -10, 12, 0);
	/* the reference starts at the newest change point: 5 commits left */
	changepoint_tail_test(&t, s.v, s.g, s.n, (COMMITS - 8) * 3, &o, NULL);
	ok(t.verdict == CHANGEPOINT_TAIL_NONE && t.zone == 0,
	    "too few commits since the change point: no test");
	ok(changepoint_tail_test(&t, v, g, 6, 0, &o, &cause) == -1 &&
	    cause != NULL && strstr(cause, "not a finite number") != NULL,
	    "a NaN is refused");
	free(cause);
	cause = NULL;
	g[3] = 0;
	v[5] = 6;
	ok(changepoint_tail_test(&t, v, g, 6, 0, &o, &cause) == -1 &&
	    cause != NULL && strstr(cause, "comes after") != NULL,
	    "commits out of order are refused");
	free(cause);
}

int
main(void)
{
	test_step();
	test_noise();
	test_disturbed();
	test_detect();
	test_short_and_input();
	return tap_done();
}
