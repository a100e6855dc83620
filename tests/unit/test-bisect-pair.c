/*
 * Unit tests for stats/bisect-pair.c: Wilcoxon's signed-rank test
 * against SciPy (tests/unit/pair-reference.py), the Hodges-Lehmann
 * estimate of pairs and its interval against SciPy's test inverted
 * (tests/unit/pair-hl-reference.py), the fresh pairs found by time among
 * the samples (later runs of another commit, the revert check's, do not
 * end them), the check's verdicts, and the driver acting on
 * them: a culprit the fresh pairs agree with is found, one they
 * contradict twice is unconfirmed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/bisect.h"
#include "stats/bisect-pair.h"
#include "tests/unit/reference.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"

static uint64_t	rng_state = 0x9a1e5;

static double
rng_uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double
rng_gauss(void)
{
	double	u = rng_uniform(), v = rng_uniform();

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

#define NR_CASES	300
#define MAX_N		64

static void
test_signed_rank_reference(void)
{
	static const char *const alt_name[3] = { "less", "two-sided",
	    "greater" };
	double		(*d)[MAX_N] = xcalloc(NR_CASES, sizeof *d);
	size_t		 n[NR_CASES], i;
	int		 alt[NR_CASES];
	struct strbuf	 in = STRBUF_INIT, out = STRBUF_INIT;
	char		*line, *next, *end;
	unsigned	 id, seen = 0, bad = 0, c;
	double		 ref_stat, ref_p, got_p, got_stat;

	for (c = 0; c < NR_CASES; c++) {
		double shift = (rng_uniform() - 0.5) * 2;
		int ties = c % 4 == 3;

		n[c] = 1 + (size_t)(rng_uniform() * (c % 5 == 4 ? 63 : 30));
		alt[c] = (int)(c % 3) - 1;
		for (i = 0; i < n[c]; i++) {
			d[c][i] = shift + rng_gauss();
			/* rounded: ties and zeros, the approximation's path */
			if (ties)
				d[c][i] = round(d[c][i] * 4) / 4;
		}
		strbuf_addf(&in, "%u %s %zu", c, alt_name[alt[c] + 1], n[c]);
		for (i = 0; i < n[c]; i++)
			strbuf_addf(&in, " %.17g", d[c][i]);
		strbuf_addch(&in, '\n');
	}
	if (!ok(reference_run("tests/unit/pair-reference.py", &in, &out) == 0,
	    "reference ran: tests/unit/pair-reference.py"))
		goto out;
	for (line = out.buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		id = (unsigned)strtoul(line, &end, 10);
		if (id >= NR_CASES)
			break;
		ref_stat = strtod(end, &end);
		ref_p = strtod(end, &end);
		seen++;
		got_p = bisect_pair_signed_rank(d[id], n[id],
		    (enum bisect_stat_alt)alt[id], &got_stat);
		if (isnan(ref_p) && isnan(got_p))
			continue;
		if (isnan(ref_p) || isnan(got_p) ||
		    fabs(got_p - ref_p) > 1e-9 * fmax(ref_p, 1e-300) ||
		    fabs(got_stat - ref_stat) > 1e-9 * fmax(ref_stat, 1)) {
			bad++;
			diag("case %u: got R %.17g p %.17g, want %.17g %.17g",
			    id, got_stat, got_p, ref_stat, ref_p);
		}
	}
	ok(seen == NR_CASES && bad == 0, "signed-rank statistic and p agree "
	    "with SciPy to 1e-9 (%u cases, exact and approximate, %u off)",
	    seen, bad);
out:
	strbuf_release(&in);
	strbuf_release(&out);
	free(d);
}

#define NR_HL	100

static void
test_hl_reference(void)
{
	double		(*d)[MAX_N] = xcalloc(NR_HL, sizeof *d);
	size_t		 n[NR_HL], i;
	struct strbuf	 in = STRBUF_INIT, out = STRBUF_INIT;
	char		*line, *next, *end;
	unsigned	 id, seen = 0, bad = 0, c;
	double		 est, lo, hi, r_est, r_lo, r_hi;
	uint64_t	 saved = rng_state;

	/* a stream of its own: the cases after it draw as they did */
	rng_state = 0x41c3;
	for (c = 0; c < NR_HL; c++) {
		double shift = (rng_uniform() - 0.5) * 2;

		n[c] = 6 + (size_t)(rng_uniform() * 40);
		strbuf_addf(&in, "%u %zu", c, n[c]);
		for (i = 0; i < n[c]; i++) {
			d[c][i] = shift + rng_gauss();
			strbuf_addf(&in, " %.17g", d[c][i]);
		}
		strbuf_addch(&in, '\n');
	}
	if (!ok(reference_run("tests/unit/pair-hl-reference.py", &in, &out) == 0,
	    "reference ran: tests/unit/pair-hl-reference.py"))
		goto out;
	for (line = out.buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		id = (unsigned)strtoul(line, &end, 10);
		if (id >= NR_HL)
			break;
		r_est = strtod(end, &end);
		r_lo = strtod(end, &end);
		r_hi = strtod(end, &end);
		seen++;
		bisect_pair_hl(d[id], n[id], 0.95, &est, &lo, &hi);
		if (fabs(est - r_est) > 1e-12 || fabs(lo - r_lo) > 1e-12 ||
		    fabs(hi - r_hi) > 1e-12) {
			bad++;
			diag("case %u (n %zu): got %.17g [%.17g, %.17g], want "
			    "%.17g [%.17g, %.17g]", id, n[id], est, lo, hi,
			    r_est, r_lo, r_hi);
		}
	}
	rng_state = saved;
	ok(seen == NR_HL && bad == 0, "Hodges-Lehmann estimate of pairs and "
	    "its 95%% interval agree with SciPy's signed-rank test inverted "
	    "(%u cases, n 6..45, %u off)", seen, bad);
out:
	strbuf_release(&in);
	strbuf_release(&out);
	free(d);
}

static void
test_fresh(void)
{
	static const double ot[] = { 0, 1, 2, 3, 4, 5 };
	static const double ov[] = { 10, 10, 10, 10, 10, 10 };
	static const double at[] = { 1, 6, 8, 11 };
	static const double av[] = { 100, 100, 100, 100 };
	static const double bt[] = { 2, 7, 9, 10 };
	static const double bv[] = { 90, 95, 99, 98 };
	static const double bt2[] = { 2, 7, 9.5, 9.7, 10 };
	static const double bv2[] = { 90, 95, 99, 97, 98 };
	const double nan_t[] = { NAN, NAN, NAN, NAN };
	struct bisect_commit	 c[3];
	double			 d[16];
	size_t			 n;
	int			 ratio;

	memset(c, 0, sizeof c);
	c[0].samples = ov;
	c[0].times = ot;
	c[0].nr_samples = 6;
	c[1].samples = av;
	c[1].times = at;
	c[1].nr_samples = 4;
	c[2].samples = bv;
	c[2].times = bt;
	c[2].nr_samples = 4;
	n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
	is_int(n, 3, "fresh: three pairs after the other commit's last run");
	ok(ratio && n == 3 && fabs(d[0] - log(98.0 / 100)) < 1e-12 &&
	    fabs(d[1] - log(99.0 / 100)) < 1e-12 &&
	    fabs(d[2] - log(95.0 / 100)) < 1e-12,
	    "fresh: log ratios of culprit over parent, the last pair first");
	c[2].samples = bv2;
	c[2].times = bt2;
	c[2].nr_samples = 5;
	n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
	is_int(n, 1, "fresh: pairs stop at two runs of one side");
	c[2].samples = bv;
	c[2].times = bt;
	c[2].nr_samples = 4;
	{
		static const double ot3[] = { 0, 1, 2, 3, 4, 5, 12, 13 };
		static const double ov3[] = { 10, 10, 10, 10, 10, 10, 10, 10 };

		c[0].samples = ov3;
		c[0].times = ot3;
		c[0].nr_samples = 8;
		n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
		is_int(n, 3, "fresh: runs of another commit after the check's "
		    "(the revert check's bad end) do not end its pairs");
		c[0].samples = ov;
		c[0].times = ot;
		c[0].nr_samples = 6;
	}
	{
		/*
		 * Three machines run the check's batch at once: in time order
		 * over all of them the parent's runs and the culprit's come
		 * in threes (no pair), on each machine by turns (two each).
		 */
		static const double mt_a[] = { 10, 10.1, 10.2, 13, 13.1, 13.2 };
		static const double mt_b[] = { 11, 11.1, 11.2, 12, 12.1, 12.2 };
		static const double mv_a[] = { 100, 100, 100, 100, 100, 100 };
		static const double mv_b[] = { 95, 96, 97, 95, 96, 97 };
		static const char *const ma[] = { "m1", "m2", "m3", "m1", "m2",
		    "m3" };
		static const char *const mb[] = { "m1", "m2", "m3", "m1", "m2",
		    "m3" };

		c[1].samples = mv_a;
		c[1].times = mt_a;
		c[1].nr_samples = 6;
		c[2].samples = mv_b;
		c[2].times = mt_b;
		c[2].nr_samples = 6;
		n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
		is_int(n, 0, "fresh, machines unknown: three machines' runs "
		    "in time order come in threes: no pair");
		c[1].machines = ma;
		c[2].machines = mb;
		n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
		is_int(n, 6, "fresh, machines known: each machine's runs by "
		    "turns, two pairs on each of three");
		ok(n == 6 && fabs(d[0] - log(97.0 / 100)) < 1e-12,
		    "each pair on one machine (m3's last: 97 over 100)");
		c[1].machines = c[2].machines = NULL;
		c[1].samples = av;
		c[1].times = at;
		c[1].nr_samples = 4;
		c[2].samples = bv;
		c[2].times = bt;
		c[2].nr_samples = 4;
	}
	n = bisect_pair_find(d, &ratio, av, at, 4, bv, bt, 4, 6.5);
	ok(n == 2 && fabs(d[0] - log(98.0 / 100)) < 1e-12 &&
	    fabs(d[1] - log(99.0 / 100)) < 1e-12, "find: the pairs after "
	    "`after` only");
	c[0].times = NULL;
	n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
	ok(n == (size_t)-1, "fresh: a commit without times: no check");
	c[0].times = ot;
	c[1].times = nan_t;
	n = bisect_pair_fresh(d, &ratio, c, 3, 1, 2);
	ok(n == (size_t)-1, "fresh: a run that recorded no time (NaN): no "
	    "check, never a want that cannot be met");
}

static void
test_decide(void)
{
	struct bisect_pair_check	pc;
	double				d[40];
	size_t				i;
	double				change = log(0.97);

	for (i = 0; i < 40; i++)
		d[i] = change + 0.01 * rng_gauss();
	is_str(bisect_pair_verdict_name(bisect_pair_decide(&pc, d, 3, change,
	    5, 20)), "more", "decide: 3 pairs, the first look wants 5");
	is_int(pc.want, 5, "and asks for 5");
	is_str(bisect_pair_verdict_name(bisect_pair_decide(&pc, d, 6, change,
	    5, 20)), "agrees", "decide: the full change agrees");
	ok(pc.p_agree < 0.05 && pc.step_pct < -2, "with p %.3g, step %.2f%%",
	    pc.p_agree, pc.step_pct);
	for (i = 0; i < 40; i++)
		d[i] = 0.003 * rng_gauss();
	is_str(bisect_pair_verdict_name(bisect_pair_decide(&pc, d, 8, change,
	    5, 20)), "more", "decide: no step at 8 pairs is tested again");
	is_int(pc.want, 10, "with twice the first look's pairs");
	ok(pc.p_disagree < 0.01, "though it disagrees already (p %.3g)",
	    pc.p_disagree);
	is_str(bisect_pair_verdict_name(bisect_pair_decide(&pc, d, 10, change,
	    5, 20)), "disagrees", "decide: no step at 10 pairs disagrees");
	for (i = 0; i < 40; i++)
		d[i] = change / 2 + 0.05 * rng_gauss();
	is_str(bisect_pair_verdict_name(bisect_pair_decide(&pc, d, 20, change,
	    5, 20)), "undecided", "decide: half the change in wide noise, "
	    "at the cap: undecided");
}

/*
 * A line 0..10 whose samples so far say 6 is the culprit (the good level
 * up to 5, the bad one from 6); the fresh pairs of 6 against 5 read at
 * level6 and level5.
 */
struct line {
	double		 v[11][200];
	double		 t[11][200];
	size_t		 parents[11];
	struct bisect_commit c[11];
	double		 clock;
};

static void
line_add(struct line *l, size_t i, double level)
{
	size_t	n = l->c[i].nr_samples;

	l->v[i][n] = level * (1 + 0.004 * rng_gauss());
	l->t[i][n] = l->clock++;
	l->c[i].nr_samples++;
}

static enum bisect_status
line_run(double level6, double level5, char **why, int *checked)
{
	struct line		*l = xcalloc(1, sizeof *l);
	struct bisect_input	 in;
	struct bisect_result	 res;
	size_t			 good = 0, i, k, rounds;
	enum bisect_status	 s;

	for (i = 0; i < 11; i++) {
		l->parents[i] = i - 1;
		l->c[i].parents = &l->parents[i];
		l->c[i].nr_parents = i > 0;
		l->c[i].build = BISECT_BUILD_OK;
		l->c[i].samples = l->v[i];
		l->c[i].times = l->t[i];
	}
	for (k = 0; k < 12; k++)
		for (i = 0; i < 11; i++)
			if (i == 0 || i == 10 || i == 5 || i == 6 || i == 3 ||
			    i == 8)
				line_add(l, i, i >= 6 ? 970 : 1000);
	memset(&in, 0, sizeof in);
	in.commits = l->c;
	in.nr_commits = 11;
	in.bad = 10;
	in.good = &good;
	in.nr_good = 1;
	in.direction = 1;
	in.min_effect_pct = 1;
	in.slots = 1;
	in.initial_runs = 3;
	in.max_runs = 40;
	*checked = 0;
	for (rounds = 0; rounds < 60; rounds++) {
		bisect_decide(&res, &in);
		if (res.status != BISECT_CONTINUE)
			break;
		if (res.nr_wants == 2 && res.wants[0].commit == 6 &&
		    res.wants[1].commit == 5) {
			*checked = 1;
			while (l->c[6].nr_samples < res.wants[0].samples) {
				line_add(l, 6, level6);
				line_add(l, 5, level5);
			}
		} else
			for (k = 0; k < res.nr_wants; k++)
				while (l->c[res.wants[k].commit].nr_samples <
				    res.wants[k].samples)
					line_add(l, res.wants[k].commit,
					    res.wants[k].commit >= 6 ? 970 :
					    1000);
		bisect_result_release(&res);
	}
	s = res.status;
	*why = res.contradiction != NULL ? xstrdup(res.contradiction) : NULL;
	if (s == BISECT_FOUND && (res.nr_culprits != 1 ||
	    res.culprits[0] != 6))
		s = BISECT_AMBIGUOUS;
	bisect_result_release(&res);
	free(l);
	return s;
}

static void
test_driver(void)
{
	char	*why = NULL;
	int	 checked;

	is_str(bisect_status_name(line_run(970, 1000, &why, &checked)),
	    "found", "driver: fresh pairs that agree: found 6");
	ok(checked, "after a check of 6 against 5 as one batch of pairs");
	free(why);
	is_str(bisect_status_name(line_run(1000, 1000, &why, &checked)),
	    "unconfirmed", "driver: fresh pairs that show no step: "
	    "unconfirmed");
	ok(why != NULL && strstr(why, "fresh interleaved check") != NULL,
	    "saying why: %s", why ? why : "(null)");
	free(why);
}

int
main(void)
{
	test_signed_rank_reference();
	test_hl_reference();
	test_fresh();
	test_decide();
	test_driver();
	return tap_done();
}
