/*
 * make bench: E-Divisive's false alarms and its finds on simulated
 * continuous-mode series, against a naive per-commit Welch baseline; with
 * --suite, continuous mode's scenarios through series_detect and the
 * tracker's rules (docs/design.md, "File notes", has the usage).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/series.h"
#include "stats/changepoint.h"
#include "stats/compare.h"
#include "stats/rng.h"
#include "util/xalloc.h"

enum noise { GAUSSIAN, HEAVY, DRIFT, BUILD };

struct scenario {
	const char	*name;
	enum noise	 noise;
	double		 step;		/* in sd, 0 for none */
	double		 drift;		/* in sd over the whole series */
	double		 min_effect;	/* changepoint_opts.min_effect_pct */
	int		 ungrouped;	/* pass no commits: values permuted */
};

static const struct scenario scenarios[] = {
	{ "gaussian, no change",		GAUSSIAN, 0,	 0,   0 },
	{ "heavy-tailed, no change",		HEAVY,	  0,	 0,   0 },
	{ "per-commit offsets, no change",	BUILD,	  0,	 0,   0 },
	{ "  same, runs permuted alone",	BUILD,	  0,	 0,   0, 1 },
	{ "drift 0.25 sd, no step",		DRIFT,	  0,	 0.25, 0 },
	{ "drift 1 sd, no step",		DRIFT,	  0,	 1,   0 },
	{ "drift 1 sd, min effect 2%",		DRIFT,	  0,	 1,   2 },
	{ "gaussian, step 1.5 sd",		GAUSSIAN, -1.5,	 0,   0 },
	{ "gaussian, step 0.75 sd",		GAUSSIAN, -0.75, 0,   0 },
	{ "heavy-tailed, step 1.5 sd",		HEAVY,	  -1.5,	 0,   0 },
	{ "gaussian, step 1.5 sd, min 2%",	GAUSSIAN, -1.5,	 0,   2 },
};

struct opts {
	unsigned	trials;
	size_t		commits, runs;
	unsigned	permutations;
	double		alpha;
	uint64_t	seed;
};

struct tally {
	unsigned	alarms;		/* series with at least one point */
	unsigned	exact, near1, near2;
	unsigned long	points;
	unsigned	b_alarms, b_exact, b_near2;	/* baseline, raw */
	unsigned	c_alarms, c_exact, c_near2;	/* Bonferroni */
};

#define MEAN	100.0
#define SD	2.0	/* a 2% CV */

/*
 * One series. Gaussian noise of sd SD around MEAN; heavy: 5% of the
 * samples off by +-30% of the mean; drift: the mean moves linearly by
 * sc->drift sd over the series; build: each commit has its own offset
 * (sd SD/2) on top of the run-to-run noise, as code layout changes
 * between builds.
 * The step, if any, starts at commit *at.
 */
static void
changepoint_sim_simulate(double *v, size_t *g, const struct scenario *sc,
    const struct opts *o, struct rng *r, size_t *at)
{
	size_t	c, k, i;
	double	level, offset;

	*at = 0;
	if (sc->step != 0)
		*at = 5 + (size_t)rng_below(r, o->commits - 9);
	for (c = 0; c < o->commits; c++) {
		level = MEAN;
		if (sc->step != 0 && c >= *at)
			level += sc->step * SD;
		if (sc->noise == DRIFT)
			level += sc->drift * SD * (double)c /
			    (double)(o->commits - 1);
		offset = sc->noise == BUILD ? SD / 2 * rng_normal(r) : 0;
		for (k = 0; k < o->runs; k++) {
			i = c * o->runs + k;
			g[i] = c;
			v[i] = level + offset + SD * rng_normal(r);
			if (sc->noise == HEAVY && rng_below(r, 20) == 0)
				v[i] += (rng_below(r, 2) ? 0.3 : -0.3) * MEAN;
		}
	}
}

static size_t
changepoint_sim_distance(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

/* Parent against commit, for every commit: the smallest p and where. */
static double
changepoint_sim_baseline(const double *v, const struct opts *o, size_t *where)
{
	struct comparison	cmp;
	double			best = 1;
	size_t			c, n = o->runs;

	*where = 0;
	for (c = 1; c < o->commits; c++) {
		if (compare_samples(&cmp, v + (c - 1) * n, n, v + c * n, n,
		    NULL) != 0)
			continue;
		if (cmp.p_value < best) {
			best = cmp.p_value;
			*where = c;
		}
	}
	return best;
}

static void
changepoint_sim_run(const struct scenario *sc, const struct opts *o,
    struct tally *t)
{
	struct changepoint_result	res;
	struct changepoint_opts		co;
	struct rng			r;
	double				*v, p;
	size_t				*g, n = o->commits * o->runs, at;
	size_t				where, best, d, i;
	unsigned			trial;

	memset(t, 0, sizeof *t);
	v = xcalloc(n, sizeof *v);
	g = xcalloc(n, sizeof *g);
	rng_seed(&r, o->seed ^ (uint64_t)(sc - scenarios) << 32);
	memset(&co, 0, sizeof co);
	co.permutations = o->permutations;
	co.alpha = o->alpha;
	co.min_effect_pct = sc->min_effect;
	for (trial = 0; trial < o->trials; trial++) {
		changepoint_sim_simulate(v, g, sc, o, &r, &at);
		co.seed = rng_next(&r);
		if (changepoint_detect(&res, v, sc->ungrouped ? NULL : g, n,
		    &co, NULL) != 0)
			continue;
		t->points += res.nr_points;
		if (res.nr_points != 0) {
			t->alarms++;
			best = (size_t)-1;
			for (i = 0; i < res.nr_points; i++) {
				d = changepoint_sim_distance(
				    g[res.points[i].index], at);
				if (d < best)
					best = d;
			}
			t->exact += best == 0;
			t->near1 += best <= 1;
			t->near2 += best <= 2;
		}
		changepoint_result_release(&res);

		p = changepoint_sim_baseline(v, o, &where);
		if (p < o->alpha) {
			t->b_alarms++;
			t->b_exact += where == at;
			t->b_near2 += changepoint_sim_distance(where, at) <= 2;
		}
		if (p < o->alpha / (double)(o->commits - 1)) {
			t->c_alarms++;
			t->c_exact += where == at;
			t->c_near2 += changepoint_sim_distance(where, at) <= 2;
		}
	}
	free(v);
	free(g);
}

/* Wilson's 95% interval for k successes in n, in %. */
static void
changepoint_sim_wilson(unsigned k, unsigned n, double *lo, double *hi)
{
	double	z = 1.959963984540054, p = (double)k / n, d, c, h;

	d = 1 + z * z / n;
	c = (p + z * z / (2.0 * n)) / d;
	h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = 100 * (c - h);
	*hi = 100 * (c + h);
}

static double
changepoint_sim_pct(unsigned k, unsigned n)
{
	return n == 0 ? 0 : 100.0 * k / n;
}

/* Continuous mode's scenarios (--suite). */
#define SUITE_COMMITS	41
#define SUITE_RUNS	3
#define SUITE_MAX_RUNS	16
#define SUITE_ROWS	16

enum suite_kind { SUITE_NOISE, SUITE_TAIL, SUITE_DIP, SUITE_REVERT };

struct suite_row {
	int	improvement;
	size_t	good, bad;	/* commits either side */
	int	fixed_by;	/* the improvement's row, or -1 */
	int	tail;		/* placed by the tail test */
};

/* --no-tail: E-Divisive alone, as before the tail test */
static int	suite_no_tail;

/* A series as the daemon has it: each commit's values, and its level. */
struct suite_world {
	enum noise	noise;
	double		level[SUITE_COMMITS], offset[SUITE_COMMITS];
	double		v[SUITE_COMMITS][SUITE_MAX_RUNS];
	size_t		nr[SUITE_COMMITS];
	unsigned long	extra;		/* runs asked for by the tail test */
	struct rng	*r;
};

struct suite_state {
	struct suite_row	rows[SUITE_ROWS];
	size_t			nr;
};

static void
changepoint_sim_suite_sample(struct suite_world *w, size_t c)
{
	double	x = w->level[c] + w->offset[c] + SD * rng_normal(w->r);

	if (w->noise == HEAVY && rng_below(w->r, 20) == 0)
		x += (rng_below(w->r, 2) ? 0.3 : -0.3) * MEAN;
	w->v[c][w->nr[c]++] = x;
}

/*
 * One look at commits [0, len), through series_detect as the tracker
 * calls it; a tail that wants more runs gets them (the daemon queues
 * them, and looks again when they are done), and is looked at again.
 */
static void
changepoint_sim_suite_look(struct suite_state *ss, struct suite_world *w,
    size_t len)
{
	struct series_point		 pts[SUITE_COMMITS];
	struct series			 s;
	const struct changepoint	*cp;
	struct suite_row		*row;
	size_t				 i, j, c;
	int				 improvement, found, again;

	if (len < 6)
		return;
	for (again = 0; again < 4; again++) {
		memset(&s, 0, sizeof s);
		memset(pts, 0, sizeof pts);
		for (c = 0; c < len; c++) {
			pts[c].seq = (int64_t)c;
			pts[c].values = w->v[c];
			pts[c].nr = w->nr[c];
		}
		s.points = pts;
		s.nr = len;
		s.no_tail = suite_no_tail;
		if (series_detect(&s, 0, -1, NULL) != 0)
			return;
		if (s.tail.verdict != CHANGEPOINT_TAIL_MORE)
			break;
		for (c = s.tail.group; c < len; c++)
			while (w->nr[c] < s.tail.more_runs &&
			    w->nr[c] < SUITE_MAX_RUNS) {
				changepoint_sim_suite_sample(w, c);
				w->extra++;
			}
		changepoint_result_release(&s.cp);
	}
	for (i = 0; i < s.cp.nr_points; i++) {
		cp = &s.cp.points[i];
		if (cp->group == 0)
			continue;
		improvement = cp->change_pct > 0;
		for (found = 0, j = 0; j < ss->nr; j++)
			found |= ss->rows[j].improvement == improvement &&
			    ss->rows[j].good <= cp->group &&
			    ss->rows[j].bad >= cp->group - 1;
		if (found || ss->nr == SUITE_ROWS)
			continue;
		row = &ss->rows[ss->nr];
		row->improvement = improvement;
		row->good = cp->group - 1;
		row->bad = cp->group;
		row->fixed_by = -1;
		row->tail = cp->q == 0;
		for (j = 0; improvement && j < ss->nr; j++)
			if (!ss->rows[j].improvement &&
			    ss->rows[j].fixed_by < 0 &&
			    ss->rows[j].bad <= row->good)
				ss->rows[j].fixed_by = (int)ss->nr;
		ss->nr++;
	}
	changepoint_result_release(&s.cp);
}

/* Commit c's level: 100, or 95 inside [from, to); its first runs. */
static void
changepoint_sim_suite_series(struct suite_world *w, enum noise noise,
    size_t from, size_t to, struct rng *r)
{
	size_t	c, k;

	memset(w, 0, sizeof *w);
	w->noise = noise;
	w->r = r;
	for (c = 0; c < SUITE_COMMITS; c++) {
		w->level[c] = c >= from && c < to ? 95 : MEAN;
		w->offset[c] = noise == BUILD ? SD / 2 * rng_normal(r) : 0;
		for (k = 0; k < SUITE_RUNS; k++)
			changepoint_sim_suite_sample(w, c);
	}
}

/*
 * The regression rows, and whether one is [at - 1, at] (exact), or off
 * by one at most (covered: the bisection of a range one commit off finds
 * no change, and the next look places it again).
 */
static unsigned
changepoint_sim_suite_regressions(const struct suite_state *ss, size_t at,
    int *exact, int *covered)
{
	unsigned	n = 0;
	size_t		i;

	*exact = *covered = 0;
	for (i = 0; i < ss->nr; i++) {
		if (ss->rows[i].improvement)
			continue;
		n++;
		*exact |= ss->rows[i].good + 1 == at && ss->rows[i].bad == at;
		*covered |= ss->rows[i].good + 2 >= at && ss->rows[i].bad <=
		    at + 1;
	}
	return n;
}

static const char *
changepoint_sim_suite_noise_name(enum noise noise)
{
	switch (noise) {
	case HEAVY:
		return "heavy-tailed";
	case BUILD:
		return "per-commit offsets";
	default:
		return "gaussian";
	}
}

/* One trial of a suite row: its series, looked at as the row says. */
static void
changepoint_sim_suite_trial(struct suite_state *ss, struct suite_world *w,
    enum suite_kind kind, enum noise noise, int every, size_t bad,
    struct rng *r, size_t *at, size_t *to)
{
	size_t	len;

	memset(ss, 0, sizeof *ss);
	switch (kind) {
	case SUITE_NOISE:
		changepoint_sim_suite_series(w, noise, 0, 0, r);
		for (len = every ? 6 : SUITE_COMMITS; len <= SUITE_COMMITS;
		    len++)
			changepoint_sim_suite_look(ss, w, len);
		break;
	case SUITE_TAIL:
		*at = SUITE_COMMITS - bad;
		changepoint_sim_suite_series(w, noise, *at, SUITE_COMMITS, r);
		for (len = 36; len <= SUITE_COMMITS; len++)
			changepoint_sim_suite_look(ss, w, len);
		break;
	case SUITE_DIP:
		len = 5 + (size_t)rng_below(r, 6);
		*at = (SUITE_COMMITS - len) / 2;
		*to = *at + len;
		changepoint_sim_suite_series(w, noise, *at, *to, r);
		changepoint_sim_suite_look(ss, w, SUITE_COMMITS);
		break;
	case SUITE_REVERT:
		*at = 10 + (size_t)rng_below(r, 6);
		*to = *at + 10 + (size_t)rng_below(r, 6);
		changepoint_sim_suite_series(w, noise, *at, *to, r);
		for (len = 6; len <= SUITE_COMMITS; len++)
			changepoint_sim_suite_look(ss, w, len);
		break;
	}
}

/* every: looked at after each commit from the 6th, not only once */
static void
changepoint_sim_suite_run(enum suite_kind kind, enum noise noise, int every,
    size_t bad, unsigned trials, uint64_t seed)
{
	double			lo, hi;
	size_t			at = 0, to = 0, i;
	struct suite_world	w;
	struct suite_state	ss;
	struct rng		r;
	unsigned		trial, one = 0, exact = 0, any = 0, closed = 0;
	unsigned		several = 0, n, by_tail = 0;
	unsigned long		extra = 0;
	int			ex, cov;
	char			name[64];

	rng_seed(&r, seed ^ ((uint64_t)kind << 40) ^ ((uint64_t)bad << 32) ^
	    ((uint64_t)noise << 48) ^ ((uint64_t)every << 52));
	for (trial = 0; trial < trials; trial++) {
		changepoint_sim_suite_trial(&ss, &w, kind, noise, every, bad,
		    &r, &at, &to);
		extra += w.extra;
		n = changepoint_sim_suite_regressions(&ss, at, &ex, &cov);
		any += ss.nr > 0;
		for (i = 0; i < ss.nr && !ss.rows[i].tail; i++)
			;
		by_tail += i < ss.nr;
		several += n > 1;
		one += n == 1 && cov;
		exact += n == 1 && ex;
		for (i = 0; kind == SUITE_REVERT && i < ss.nr; i++)
			if (!ss.rows[i].improvement && cov &&
			    ss.rows[i].fixed_by >= 0 &&
			    ss.rows[ss.rows[i].fixed_by].good + 2 >= to &&
			    ss.rows[ss.rows[i].fixed_by].bad <= to + 1) {
				closed++;
				break;
			}
	}
	switch (kind) {
	case SUITE_NOISE:
		snprintf(name, sizeof name, "noise only (%s), %s",
		    changepoint_sim_suite_noise_name(noise),
		    every ? "every look" : "one look");
		changepoint_sim_wilson(any, trials, &lo, &hi);
		printf("%-40s | any row: %5.1f%% [%4.1f, %4.1f], one by the "
		    "tail test %4.1f%%", name, changepoint_sim_pct(any, trials),
		    lo, hi, changepoint_sim_pct(by_tail, trials));
		break;
	case SUITE_TAIL:
		snprintf(name, sizeof name, "tail step, %zu bad commit%s", bad,
		    bad == 1 ? "" : "s");
		changepoint_sim_wilson(one, trials, &lo, &hi);
		printf("%-40s | one regression row over it: %5.1f%% [%4.1f, "
		    "%4.1f] (+-1), placed exactly %5.1f%%, two rows or more "
		    "%4.1f%%", name, changepoint_sim_pct(one, trials), lo, hi,
		    changepoint_sim_pct(exact, trials),
		    changepoint_sim_pct(several, trials));
		break;
	case SUITE_DIP:
		changepoint_sim_wilson(one, trials, &lo, &hi);
		printf("%-40s | one regression row at its start: %5.1f%% "
		    "[%4.1f, %4.1f] (+-1), placed exactly %5.1f%%",
		    "-5% dip of 5-10 commits, middle",
		    changepoint_sim_pct(one, trials), lo, hi,
		    changepoint_sim_pct(exact, trials));
		break;
	case SUITE_REVERT:
		changepoint_sim_wilson(closed, trials, &lo, &hi);
		printf("%-40s | closed by the revert: %5.1f%% [%4.1f, %4.1f], "
		    "one regression row %5.1f%%",
		    "-5% regression, reverted later",
		    changepoint_sim_pct(closed, trials), lo, hi,
		    changepoint_sim_pct(one, trials));
		break;
	}
	printf("; tail runs %.1f per series\n", (double)extra / trials);
	fflush(stdout);
}

static int
changepoint_sim_suite(unsigned trials, uint64_t seed)
{
	clock_t	start = clock();
	size_t	bad;

	printf("changepoint-sim --suite%s: %d commits x %d runs, noise sd 2%% of "
	    "the mean, %u trials per row, seed %llu;\ncontinuous mode's test "
	    "(bisectd/series.c): E-Divisive at p < %g by %d permutations, %d "
	    "commits each side;\nthe tail test of the newest %d commits "
	    "against %d before: more runs (to %d) at p < %g, found at p < "
	    "%g\n(heavy-tailed: 5%% of runs off by +-30%%; per-commit "
	    "offsets: sd 1%% per commit)\n\n", suite_no_tail ? " --no-tail" :
	    "", SUITE_COMMITS, SUITE_RUNS,
	    trials, (unsigned long long)seed, SERIES_ALPHA,
	    SERIES_PERMUTATIONS, SERIES_MIN_SIZE, SERIES_TAIL,
	    SERIES_TAIL_REFERENCE, SERIES_TAIL_RUNS, SERIES_TAIL_SCREEN,
	    SERIES_TAIL_ALPHA);
	changepoint_sim_suite_run(SUITE_NOISE, GAUSSIAN, 0, 0, trials, seed);
	changepoint_sim_suite_run(SUITE_NOISE, GAUSSIAN, 1, 0, trials, seed);
	changepoint_sim_suite_run(SUITE_NOISE, HEAVY, 1, 0, trials, seed);
	changepoint_sim_suite_run(SUITE_NOISE, BUILD, 1, 0, trials, seed);
	for (bad = 1; bad <= 3; bad++)
		changepoint_sim_suite_run(SUITE_TAIL, GAUSSIAN, 0, bad, trials,
		    seed);
	changepoint_sim_suite_run(SUITE_DIP, GAUSSIAN, 0, 0, trials, seed);
	changepoint_sim_suite_run(SUITE_REVERT, GAUSSIAN, 0, 0, trials, seed);
	printf("\n%.1f s CPU\n", (double)(clock() - start) / CLOCKS_PER_SEC);
	return 0;
}

static int
changepoint_sim_usage(void)
{
	fprintf(stderr, "usage: changepoint-sim [--trials N] [--commits C] "
	    "[--runs R] [--permutations P] [--alpha A] [--seed S]\n"
	    "       changepoint-sim --suite [--no-tail] [--trials N] "
	    "[--seed S]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct opts	o = { 2000, 50, 3, 199, 0.05, 1 };
	struct tally	t;
	clock_t		start, total = 0;
	double		lo, hi, secs;
	size_t		i;
	int		a, suite_mode = 0;
	char		*end;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--suite") == 0) {
			suite_mode = 1;
			continue;
		}
		if (strcmp(argv[a], "--no-tail") == 0) {
			suite_no_tail = 1;
			continue;
		}
		if (a + 1 >= argc)
			return changepoint_sim_usage();
		if (strcmp(argv[a], "--trials") == 0)
			o.trials = (unsigned)strtoul(argv[++a], &end, 10);
		else if (strcmp(argv[a], "--commits") == 0)
			o.commits = strtoul(argv[++a], &end, 10);
		else if (strcmp(argv[a], "--runs") == 0)
			o.runs = strtoul(argv[++a], &end, 10);
		else if (strcmp(argv[a], "--permutations") == 0)
			o.permutations = (unsigned)strtoul(argv[++a], &end,
			    10);
		else if (strcmp(argv[a], "--alpha") == 0)
			o.alpha = strtod(argv[++a], &end);
		else if (strcmp(argv[a], "--seed") == 0)
			o.seed = strtoull(argv[++a], &end, 10);
		else
			return changepoint_sim_usage();
		if (*end != '\0')
			return changepoint_sim_usage();
	}
	if (o.trials == 0 || o.commits < 12 || o.runs < 2 ||
	    !(o.alpha > 0 && o.alpha < 1))
		return changepoint_sim_usage();
	if (suite_mode)
		return changepoint_sim_suite(o.trials, o.seed);

	printf("changepoint-sim: %zu commits x %zu runs, %u trials per row, "
	    "E-Divisive with %u permutations, alpha %g, seed %llu\n",
	    o.commits, o.runs, o.trials, o.permutations, o.alpha,
	    (unsigned long long)o.seed);
	printf("noise sd 2%% of the mean; heavy-tailed: 5%% of samples off "
	    "by +-30%%; steps start at a commit drawn from 5..%zu\n",
	    o.commits - 5);
	printf("alarm: series with >= 1 change point; exact/+-1/+-2: the "
	    "nearest point that far from the step (%% of trials)\n");
	printf("baseline: each commit vs its parent, Welch p < alpha "
	    "(raw) or < alpha/%zu (Bonferroni)\n\n", o.commits - 1);
	printf("%-30s | %-47s | %-13s | %-13s\n", "", "E-Divisive",
	    "parent, raw", "Bonferroni");
	printf("%-30s | %6s %-15s %5s %5s %5s %6s | %6s %6s | %6s %6s\n",
	    "scenario", "alarm", "[95% CI]", "exact", "+-1", "+-2", "pts",
	    "alarm", "+-2", "alarm", "+-2");
	for (i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
		start = clock();
		changepoint_sim_run(&scenarios[i], &o, &t);
		total += clock() - start;
		changepoint_sim_wilson(t.alarms, o.trials, &lo, &hi);
		if (scenarios[i].step == 0)
			printf("%-30s | %5.1f%% [%5.1f, %5.1f]  %5s %5s %5s "
			    "%6.3f | %5.1f%% %6s | %5.1f%% %6s\n",
			    scenarios[i].name,
			    changepoint_sim_pct(t.alarms, o.trials), lo, hi,
			    "-", "-", "-", (double)t.points / o.trials,
			    changepoint_sim_pct(t.b_alarms, o.trials), "-",
			    changepoint_sim_pct(t.c_alarms, o.trials), "-");
		else
			printf("%-30s | %5.1f%% [%5.1f, %5.1f]  %4.1f%% "
			    "%4.1f%% %4.1f%% %6.3f | %5.1f%% %5.1f%% | %5.1f%% "
			    "%5.1f%%\n", scenarios[i].name,
			    changepoint_sim_pct(t.alarms, o.trials), lo, hi,
			    changepoint_sim_pct(t.exact, o.trials),
			    changepoint_sim_pct(t.near1, o.trials),
			    changepoint_sim_pct(t.near2, o.trials),
			    (double)t.points / o.trials,
			    changepoint_sim_pct(t.b_alarms, o.trials),
			    changepoint_sim_pct(t.b_near2, o.trials),
			    changepoint_sim_pct(t.c_alarms, o.trials),
			    changepoint_sim_pct(t.c_near2, o.trials));
		fflush(stdout);
	}
	secs = (double)total / CLOCKS_PER_SEC;
	printf("\n%.1f s CPU, %.2f ms per series\n", secs, 1000 * secs /
	    (o.trials * (double)(sizeof scenarios / sizeof scenarios[0])));
	return 0;
}
