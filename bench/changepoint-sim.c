/*
 * make bench: how often E-Divisive (stats/changepoint.c) raises a false
 * alarm on series with no change, and how often and how precisely it finds
 * a single step, on simulated continuous-mode series (50 commits x 3 runs
 * by default). Beside it, the baseline a naive CI uses: each commit
 * against its parent by Welch's test at alpha, raw and with a Bonferroni
 * correction over the series. Usage:
 *
 *   changepoint-sim [--trials N] [--commits C] [--runs R]
 *                   [--permutations P] [--alpha A] [--seed S]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
simulate(double *v, size_t *g, const struct scenario *sc,
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
distance(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

/* Parent against commit, for every commit: the smallest p and where. */
static double
baseline(const double *v, const struct opts *o, size_t *where)
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
run(const struct scenario *sc, const struct opts *o, struct tally *t)
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
		simulate(v, g, sc, o, &r, &at);
		co.seed = rng_next(&r);
		if (changepoint_detect(&res, v, sc->ungrouped ? NULL : g, n,
		    &co, NULL) != 0)
			continue;
		t->points += res.nr_points;
		if (res.nr_points != 0) {
			t->alarms++;
			best = (size_t)-1;
			for (i = 0; i < res.nr_points; i++) {
				d = distance(g[res.points[i].index], at);
				if (d < best)
					best = d;
			}
			t->exact += best == 0;
			t->near1 += best <= 1;
			t->near2 += best <= 2;
		}
		changepoint_result_release(&res);

		p = baseline(v, o, &where);
		if (p < o->alpha) {
			t->b_alarms++;
			t->b_exact += where == at;
			t->b_near2 += distance(where, at) <= 2;
		}
		if (p < o->alpha / (double)(o->commits - 1)) {
			t->c_alarms++;
			t->c_exact += where == at;
			t->c_near2 += distance(where, at) <= 2;
		}
	}
	free(v);
	free(g);
}

/* Wilson's 95% interval for k successes in n, in %. */
static void
wilson(unsigned k, unsigned n, double *lo, double *hi)
{
	double	z = 1.959963984540054, p = (double)k / n, d, c, h;

	d = 1 + z * z / n;
	c = (p + z * z / (2.0 * n)) / d;
	h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = 100 * (c - h);
	*hi = 100 * (c + h);
}

static double
pct(unsigned k, unsigned n)
{
	return n == 0 ? 0 : 100.0 * k / n;
}

static int
usage(void)
{
	fprintf(stderr, "usage: changepoint-sim [--trials N] [--commits C] "
	    "[--runs R] [--permutations P] [--alpha A] [--seed S]\n");
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
	int		a;
	char		*end;

	for (a = 1; a < argc; a++) {
		if (a + 1 >= argc)
			return usage();
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
			return usage();
		if (*end != '\0')
			return usage();
	}
	if (o.trials == 0 || o.commits < 12 || o.runs < 2 ||
	    !(o.alpha > 0 && o.alpha < 1))
		return usage();

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
		run(&scenarios[i], &o, &t);
		total += clock() - start;
		wilson(t.alarms, o.trials, &lo, &hi);
		if (scenarios[i].step == 0)
			printf("%-30s | %5.1f%% [%5.1f, %5.1f]  %5s %5s %5s "
			    "%6.3f | %5.1f%% %6s | %5.1f%% %6s\n",
			    scenarios[i].name, pct(t.alarms, o.trials), lo, hi,
			    "-", "-", "-", (double)t.points / o.trials,
			    pct(t.b_alarms, o.trials), "-",
			    pct(t.c_alarms, o.trials), "-");
		else
			printf("%-30s | %5.1f%% [%5.1f, %5.1f]  %4.1f%% "
			    "%4.1f%% %4.1f%% %6.3f | %5.1f%% %5.1f%% | %5.1f%% "
			    "%5.1f%%\n", scenarios[i].name,
			    pct(t.alarms, o.trials), lo, hi,
			    pct(t.exact, o.trials), pct(t.near1, o.trials),
			    pct(t.near2, o.trials),
			    (double)t.points / o.trials,
			    pct(t.b_alarms, o.trials),
			    pct(t.b_near2, o.trials),
			    pct(t.c_alarms, o.trials),
			    pct(t.c_near2, o.trials));
		fflush(stdout);
	}
	secs = (double)total / CLOCKS_PER_SEC;
	printf("\n%.1f s CPU, %.2f ms per series\n", secs, 1000 * secs /
	    (o.trials * (double)(sizeof scenarios / sizeof scenarios[0])));
	return 0;
}
