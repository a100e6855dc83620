/*
 * Hand-checked cases for stats/summary.c: the conventions at n = 0 and
 * n = 1, values worked out on paper, large offsets, and the per-instance
 * spread of seed 002 (vm-scalability, 32 processes), where the aggregate
 * fell while fairness among the processes rose.
 */
#include <math.h>

#include "stats/summary.h"
#include "tests/unit/tap.h"

/* Seed 002: KB/s of each of the 32 processes, parent and commit. */
static const double	vm_parent[32] = {
	1819435, 1732205, 558694, 454652, 285596, 214885, 164273, 163274,
	160658, 147323, 134857, 132052, 126428, 125647, 119965, 119241,
	118317, 117959, 116847, 117153, 116361, 116257, 116145, 115963,
	114118, 114001, 113992, 113726, 113439, 113101, 112714, 111328,
};
static const double	vm_commit[32] = {
	117806, 111025, 93291, 92465, 91827, 92251, 92709, 92338, 90401,
	91700, 89944, 87872, 87710, 86906, 87530, 86353, 84985, 86259, 84704,
	84445, 84698, 84328, 86374, 84275, 83412, 83378, 83362, 83232, 83108,
	82866, 82824, 82538,
};

static void
test_empty_and_single(void)
{
	struct summary	s;
	struct spread	sp;
	double		one = 42.5;

	summary_compute(&s, NULL, 0);
	is_int(s.n, 0, "n = 0: n is 0");
	ok(isnan(s.mean) && isnan(s.stddev) && isnan(s.stddev_pct) &&
	    isnan(s.median) && isnan(s.min) && isnan(s.max),
	    "n = 0: every statistic is NaN");
	summary_spread(&sp, NULL, 0);
	ok(sp.n == 0 && isnan(sp.cv) && isnan(sp.jain) &&
	    isnan(sp.min_max_ratio), "n = 0: spread is NaN");

	summary_compute(&s, &one, 1);
	ok(s.n == 1 && s.mean == one && s.median == one && s.min == one &&
	    s.max == one, "n = 1: mean, median, min, max are the value");
	ok(isnan(s.stddev) && isnan(s.stddev_pct),
	    "n = 1: the sample stddev is undefined (NaN), not 0");
	summary_spread(&sp, &one, 1);
	ok(sp.jain == 1 && sp.min_max_ratio == 1 && isnan(sp.cv),
	    "n = 1: one instance is perfectly fair, CV undefined");
}

static void
test_by_hand(void)
{
	double		x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double		odd[] = { 9, 1, 5 };
	double		pct[] = { 98, 100, 102 };
	double		neg[] = { -9, -10, -11 };
	double		big[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	double		zero[] = { 0, 0, 0 };
	struct summary	s;

	summary_compute(&s, x, 8);
	is_close(s.mean, 5, 1e-15, "mean of 2 4 4 4 5 5 7 9");
	is_close(s.stddev, sqrt(32.0 / 7), 1e-15, "sample stddev (n - 1)");
	is_close(s.median, 4.5, 0, "even n: median is the mid-point");
	ok(s.min == 2 && s.max == 9, "min and max");
	summary_compute(&s, odd, 3);
	ok(s.median == 5, "odd n: median is the middle value");
	summary_compute(&s, pct, 3);
	is_close(s.stddev_pct, 2, 1e-15, "98 100 102 is 100 ± 2%%");
	summary_compute(&s, neg, 3);
	ok(s.mean == -10 && fabs(s.stddev_pct - 10) < 1e-13,
	    "± is relative to |mean| for negative values");
	summary_compute(&s, big, 3);
	ok(s.mean == 1e9 + 2 && s.stddev == 1,
	    "1e9 + {1,2,3}: no digits lost to the offset");
	summary_compute(&s, zero, 3);
	ok(s.mean == 0 && s.stddev == 0 && isnan(s.stddev_pct),
	    "all zero: ± is 0/0, NaN");
}

static void
test_spread(void)
{
	double		even[] = { 7, 7, 7, 7 };
	double		one_busy[] = { 1, 0, 0, 0 };
	double		two[] = { 1, 3 };
	double		zero[] = { 0, 0 };
	double		big[] = { 1e200, 3e200 };
	struct spread	sp;

	summary_spread(&sp, even, 4);
	ok(sp.jain == 1 && sp.min_max_ratio == 1 && sp.cv == 0,
	    "equal instances: Jain 1, min/max 1, CV 0");
	summary_spread(&sp, one_busy, 4);
	is_close(sp.jain, 0.25, 1e-15, "one of four does all: Jain is 1/n");
	ok(sp.min_max_ratio == 0, "one of four does all: min/max is 0");
	summary_spread(&sp, two, 2);
	/* (1 + 3)^2 / (2 (1 + 9)) = 16/20 */
	is_close(sp.jain, 0.8, 1e-15, "Jain of 1 and 3 is 0.8");
	is_close(sp.cv, 100 * sqrt(2.0) / 2, 1e-15,
	    "CV uses the sample stddev");
	summary_spread(&sp, zero, 2);
	ok(isnan(sp.jain), "all zero: Jain is 0/0, NaN");
	summary_spread(&sp, big, 2);
	is_close(sp.jain, 0.8, 1e-15, "no overflow squaring 1e200");
}

static void
test_seed_002(void)
{
	struct spread	p, c;

	summary_spread(&p, vm_parent, 32);
	summary_spread(&c, vm_commit, 32);
	ok(c.mean < p.mean * 0.4, "seed 002: throughput per process "
	    "fell (%.0f -> %.0f KB/s)", p.mean, c.mean);
	ok(p.jain < 0.3 && c.jain > 0.99, "seed 002: Jain's index rose "
	    "from %.3f to %.3f (fairer)", p.jain, c.jain);
	ok(p.cv > 150 && c.cv < 10, "seed 002: CV fell from %.0f%% to "
	    "%.1f%%", p.cv, c.cv);
	ok(p.min_max_ratio < 0.07 && c.min_max_ratio > 0.7,
	    "seed 002: min/max rose from %.3f to %.3f", p.min_max_ratio,
	    c.min_max_ratio);
}

int
main(void)
{
	test_empty_and_single();
	test_by_hand();
	test_spread();
	test_seed_002();
	return tap_done();
}
