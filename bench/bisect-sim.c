/*
 * The bisection simulator of DESIGN §4: the real bisect_decide driven
 * through synthetic bisections, against fixed-repeat bisection on the same
 * histories in the same run, one table per scenario (docs/design.md,
 * "File notes", has the noise models and the usage).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/bisect.h"
#include "stats/bisect-revert.h"
#include "util/xalloc.h"

enum noise { GAUSS, HEAVY, BIMODAL, DRIFT, BURST, HIDDEN, BOOT };

struct scenario {
	const char	*name;
	int		 dag;
	enum noise	 noise;
	double		 effect_sd;	/* per culprit */
	int		 culprits;	/* 0, 1 or 2 */
	int		 build_fail;
	unsigned	 slots;
	const char	*what;
	int		 core;		/* effect in sd of the gaussian core */
	double		 min_effect;	/* min_effect_pct given to the driver */
	unsigned	 machines;	/* run k on machine k mod machines */
	double		 offset[3];	/* each machine's, in sd of the noise */
	/*
	 * Images: only the culprit changes the build's digest, and one other
	 * commit (the liar), whose image is its parent's, is disturbed
	 * whenever it runs: its runs read as the bad level (2: no liar).
	 */
	int		 images;
};

static const struct scenario scenarios[] = {
	{ "gauss-1.5", 0, GAUSS, 1.5, 1, 0, 1,
	    "linear, one culprit, gaussian, change 1.5 sd" },
	{ "gauss-0.75", 0, GAUSS, 0.75, 1, 0, 1,
	    "linear, one culprit, gaussian, change 0.75 sd" },
	{ "heavy-1.5", 0, HEAVY, 1.5, 1, 0, 1,
	    "linear, heavy-tailed (5% off by +-30%), 1.5 sd of the core", 1 },
	{ "bimodal-1.5", 0, BIMODAL, 1.5, 1, 0, 1,
	    "linear, bimodal (+-4%), 1.5 sd of the noise (-6.7%)" },
	{ "bimodal-3pct", 0, BIMODAL, 1.5, 1, 0, 1,
	    "linear, bimodal (+-4%), -3% (1.5 sd of the core, 0.67 sd)", 1 },
	{ "drift-1.5", 0, DRIFT, 1.5, 1, 0, 1,
	    "linear, slow drift, 1.5 sd" },
	{ "burst-1.5", 0, BURST, 1.5, 1, 0, 1,
	    "linear, 1.5 sd, a CPU hog now and then slows a few runs 5-20%, "
	    "the monitor flags them, they are repeated" },
	{ "burst-slots4", 0, BURST, 1.5, 1, 0, 4,
	    "burst-1.5, 4 commits sampled per round, interleaved" },
	{ "hidden-1.5", 0, HIDDEN, 1.5, 1, 0, 1,
	    "linear, 1.5 sd, bursts as burst-1.5 that the monitor does not "
	    "see: every run counts" },
	{ "hidden-slots4", 0, HIDDEN, 1.5, 1, 0, 4,
	    "hidden-1.5, 4 commits sampled per round, interleaved" },
	{ "boot-1.5", 0, BOOT, 1.5, 1, 0, 1,
	    "linear, 1.5 sd, a boot per batch, boots off by N(0, 1 sd)" },
	{ "drift-slots4", 0, DRIFT, 1.5, 1, 0, 4,
	    "drift-1.5, 4 commits sampled per round, interleaved" },
	{ "none", 0, GAUSS, 0, 0, 0, 1,
	    "linear, no change at all (right = no_change)" },
	{ "none-min1", 0, GAUSS, 0, 0, 0, 1,
	    "the same, min_effect_pct 1 (half an sd)", 0, 1.0 },
	{ "two", 0, GAUSS, 1.5, 2, 0, 1,
	    "linear, two culprits of 1.5 sd each (right = both)" },
	{ "dag-1.5", 1, GAUSS, 1.5, 1, 0, 1,
	    "merge-heavy DAG, one culprit, gaussian, 1.5 sd" },
	{ "buildfail-1.5", 0, GAUSS, 1.5, 1, 1, 1,
	    "linear, 1.5 sd, build failures around the culprit" },
	{ "slots4-1.5", 0, GAUSS, 1.5, 1, 0, 4,
	    "linear, 1.5 sd, 4 commits sampled per round" },
	{ "slots3-5", 0, GAUSS, 5.0, 1, 0, 3,
	    "linear, 5 sd, 3 commits sampled per round (builders-e2e's 5% "
	    "change at 1% noise)" },
	{ "images-slots3-5", 0, GAUSS, 5.0, 1, 0, 3,
	    "slots3-5, only the culprit changes the image (builders-e2e's "
	    "fixture)", 0, 0, 0, { 0, 0, 0 }, 2 },
	{ "machines-1.5", 0, GAUSS, 1.5, 1, 0, 1,
	    "gauss-1.5 on 3 machines off by -1, 0 and +1.5 sd", 0, 0, 3,
	    { -1, 0, 1.5 } },
	{ "machines-0.75", 0, GAUSS, 0.75, 1, 0, 1,
	    "gauss-0.75 on 3 machines off by -1, 0 and +1.5 sd", 0, 0, 3,
	    { -1, 0, 1.5 } },
	{ "machines-heavy", 0, HEAVY, 1.5, 1, 0, 1,
	    "heavy-1.5 on 3 machines off by -1, 0 and +1.5 sd", 1, 0, 3,
	    { -1, 0, 1.5 } },
	{ "machines-two", 0, GAUSS, 1.5, 2, 0, 1,
	    "two on 3 machines off by -1, 0 and +1.5 sd", 0, 0, 3,
	    { -1, 0, 1.5 } },
	{ "machines-none", 0, GAUSS, 0, 0, 0, 1,
	    "none on 3 machines off by -1, 0 and +1.5 sd", 0, 0, 3,
	    { -1, 0, 1.5 } },
	{ "machines-same", 0, GAUSS, 1.5, 1, 0, 1,
	    "gauss-1.5 on 3 machines alike (offsets 0)", 0, 0, 3,
	    { 0, 0, 0 } },
	{ "machines-same-none", 0, GAUSS, 0, 0, 0, 1,
	    "none on 3 machines alike (offsets 0)", 0, 0, 3,
	    { 0, 0, 0 } },
	{ "same-image", 0, GAUSS, 1.5, 1, 0, 1,
	    "gauss-1.5, only the culprit changes the image, a disturbed "
	    "commit of its parent's image reads bad", 0, 0, 0, { 0, 0, 0 },
	    1 },
	{ "same-image-0.75", 0, GAUSS, 0.75, 1, 0, 1,
	    "the same at 0.75 sd", 0, 0, 0, { 0, 0, 0 }, 1 },
};

#define NR_SCENARIOS	(sizeof scenarios / sizeof scenarios[0])
#define SD		0.02
#define BASE		1000.0
/*
 * The settings a user gets from `bisectctl bisect` (bisectd/bisection.c:
 * max_runs 40, the job's runs, 3 by default, as the first look; the metric
 * table's min_effect_pct, 1% for a throughput); --max-runs, --initial-runs
 * and --min-effect change them, and each table says which it used.
 */
static unsigned	sim_max_runs = 40;
static unsigned	sim_initial_runs = 3;
static double	sim_min_effect = 1.0;
#define MAX_RUNS	sim_max_runs
#define INITIAL_RUNS	sim_initial_runs
#define NR_COMMITS	1024
#define MAX_MACHINES	3
#define MAX_SAMPLES	4096	/* of one commit, with machine names */
#define SIM_MAX_SET_ASIDE	3	/* WORKER_MAX_SET_ASIDE */

struct history {
	size_t			 nr;		/* good end is 0 */
	size_t			 bad;
	size_t			*parent_store;
	struct bisect_commit	*commits;
	unsigned char		*failed;
	double			*mean;
	size_t			 culprit[2];
	size_t			 nr_culprits;
	const char		**image;	/* images scenarios, else NULL */
};

struct sim {
	gsl_rng		*rng;
	double		 drift;
	double		 clock;		/* runs so far: the next run's time */
	unsigned	 burst_left;	/* runs the hog still slows */
	double		 burst;		/* by this much */
	unsigned	 boot;		/* boots so far (BOOT) */
	double		 boot_offset;	/* the current boot's */
	enum noise	 noise;
	unsigned	 machines;
	double		 factor[MAX_MACHINES];	/* each machine's speed */
};

/* the machine of each commit's run k: "m" k mod machines */
static const char *sim_machine[MAX_SAMPLES];

/*
 * Run k of a commit whose true mean is mean; *disturbed (may be NULL) is
 * set when the interference monitor would flag the run.
 */
static double
sim_sample(struct sim *s, double mean, size_t k, int *disturbed)
{
	double	e = gsl_ran_gaussian(s->rng, SD);

	if (disturbed != NULL)
		*disturbed = 0;

	switch (s->noise) {
	case GAUSS:
		break;
	case HEAVY:
		if (gsl_rng_uniform(s->rng) < 0.05)
			e += gsl_rng_uniform(s->rng) < 0.5 ? 0.30 : -0.30;
		break;
	case BIMODAL:
		e += gsl_rng_uniform(s->rng) < 0.5 ? 2 * SD : -2 * SD;
		break;
	case DRIFT:
		s->drift += gsl_ran_gaussian(s->rng, 0.1 * SD);
		e += s->drift;
		break;
	case BURST:
	case HIDDEN:
		if (s->burst_left == 0 && gsl_rng_uniform(s->rng) < 1.0 / 12) {
			s->burst_left = 2 + (unsigned)gsl_rng_uniform_int(s->rng,
			    5);
			s->burst = 0.05 + 0.15 * gsl_rng_uniform(s->rng);
		}
		if (s->burst_left > 0) {
			e -= s->burst;
			s->burst_left--;
			if (disturbed != NULL && s->noise == BURST)
				*disturbed = 1;
		}
		break;
	case BOOT:
		e += s->boot_offset;
		break;
	}
	s->clock++;
	if (s->machines > 1)
		mean *= s->factor[k % s->machines];
	return mean * (1 + e);
}

static void
history_free(struct history *h)
{
	free(h->parent_store);
	free(h->commits);
	free(h->failed);
	free(h->mean);
	free(h->image);
	memset(h, 0, sizeof *h);
}

/* ancestors-or-self of x, into mark */
static void
history_ancestors(const struct history *h, size_t x, unsigned char *mark)
{
	size_t	*stack = xcalloc(h->nr, sizeof *stack), sp = 0, y, k;

	memset(mark, 0, h->nr);
	mark[x] = 1;
	stack[sp++] = x;
	while (sp > 0) {
		y = stack[--sp];
		for (k = 0; k < h->commits[y].nr_parents; k++) {
			size_t p = h->commits[y].parents[k];

			if (!mark[p]) {
				mark[p] = 1;
				stack[sp++] = p;
			}
		}
	}
	free(stack);
}

static void
history_make(struct history *h, const struct scenario *sc, gsl_rng *rng)
{
	size_t	 n = NR_COMMITS + 1, i, k, *par, nr_main = 0, *main;
	unsigned char *mark;
	double	 sd;

	memset(h, 0, sizeof *h);
	h->commits = xcalloc(2 * n, sizeof *h->commits);
	h->parent_store = xcalloc(4 * n, sizeof *h->parent_store);
	par = h->parent_store;
	if (!sc->dag) {
		for (i = 0; i < n; i++) {
			h->commits[i].parents = par;
			if (i > 0) {
				*par++ = i - 1;
				h->commits[i].nr_parents = 1;
			}
		}
		h->nr = n;
		h->bad = n - 1;
	} else {
		main = xcalloc(n, sizeof *main);
		h->commits[0].parents = par;
		main[nr_main++] = 0;
		h->nr = 1;
		while (h->nr < n) {
			size_t tip, len, m = main[nr_main - 1];

			if (gsl_rng_uniform(rng) < 0.5 || h->nr + 3 > n) {
				h->commits[h->nr].parents = par;
				*par++ = m;
				h->commits[h->nr].nr_parents = 1;
				main[nr_main++] = h->nr++;
				continue;
			}
			tip = main[nr_main - 1 - gsl_rng_uniform_int(rng,
			    nr_main < 20 ? nr_main : 20)];
			len = 1 + gsl_rng_uniform_int(rng, 6);
			for (k = 0; k < len && h->nr + 1 < n; k++) {
				h->commits[h->nr].parents = par;
				*par++ = tip;
				h->commits[h->nr].nr_parents = 1;
				tip = h->nr++;
			}
			h->commits[h->nr].parents = par;
			*par++ = m;
			*par++ = tip;
			h->commits[h->nr].nr_parents = 2;
			main[nr_main++] = h->nr++;
		}
		h->bad = main[nr_main - 1];
		free(main);
	}

	/* culprits among the candidates 1..nr-1 (all are ancestors of bad) */
	h->nr_culprits = (size_t)sc->culprits;
	for (k = 0; k < h->nr_culprits; k++) {
		do
			h->culprit[k] = 1 + gsl_rng_uniform_int(rng, h->nr - 1);
		while (k == 1 && h->culprit[1] == h->culprit[0]);
	}
	h->mean = xcalloc(h->nr, sizeof *h->mean);
	mark = xcalloc(h->nr, 1);
	for (i = 0; i < h->nr; i++)
		h->mean[i] = BASE;
	/* the noise's sd: the core's, or with the modes' spread */
	sd = sc->noise == BIMODAL && !sc->core ? sqrt(5) * SD : SD;
	for (k = 0; k < h->nr_culprits; k++) {
		/* the culprit's descendants: x has it among its ancestors */
		for (i = 0; i < h->nr; i++) {
			history_ancestors(h, i, mark);
			if (mark[h->culprit[k]])
				h->mean[i] *= 1 - sc->effect_sd * sd;
		}
	}
	if (sc->images && h->nr_culprits > 0) {
		size_t liar;

		h->image = xcalloc(h->nr, sizeof *h->image);
		for (i = 0; i < h->nr; i++) {
			history_ancestors(h, i, mark);
			h->image[i] = mark[h->culprit[0]] ? "bbbb" : "aaaa";
		}
		do
			liar = 1 + gsl_rng_uniform_int(rng, h->nr - 1);
		while (liar == h->culprit[0] || liar == h->bad ||
		    strcmp(h->image[liar], h->image[liar - 1]) != 0);
		if (sc->images == 1)
			h->mean[liar] = h->mean[h->bad];
	}
	h->failed = xcalloc(h->nr, 1);
	if (sc->build_fail && h->nr_culprits > 0) {
		/* each commit within 3 of the culprit fails half the time, the
		 * culprit itself one time in five */
		size_t c = h->culprit[0];

		for (i = c >= 3 ? c - 3 : 1; i <= c + 3 && i < h->nr; i++) {
			if (i == h->bad)
				continue;
			if (gsl_rng_uniform(rng) < (i == c ? 0.2 : 0.5))
				h->failed[i] = 1;
		}
	}
	free(mark);
}

/* the answer an AMBIGUOUS should give: the culprit with the untestable
 * commits next to it that no testable commit separates (linear only) */
static void
history_expected(const struct history *h, size_t *lo, size_t *hi)
{
	size_t c = h->culprit[0];

	*lo = c;
	while (*lo > 1 && h->failed[*lo - 1])
		(*lo)--;
	*hi = c;
	while (h->failed[*hi] && *hi < h->bad)
		(*hi)++;
}

struct outcome {
	int	right;
	size_t	runs;
	size_t	builds;
	size_t	rounds;
	size_t	peak;		/* the most samples of one commit, ends apart */
	int	cut;		/* the driver's budget ended it */
	enum bisect_status status;	/* the driver's */
	size_t	dup;		/* runs at an image sampled before */
	size_t	revert_runs;	/* of the revert check, in runs too */
	double	minutes;	/* wall clock under the cost model */
	size_t	wasted;		/* speculative builds no round wanted */
	size_t	set_aside;	/* disturbed attempts set aside, in runs */
	int	revert_contradicts;	/* the unconfirmed is the revert's */
};

/*
 * The cost model of issue 13 (--rounds): build, boot and run minutes, the
 * machines and the builders; NULL (the default) leaves every table as it
 * was. A round's builds go to the builder free first; its runs go one by
 * one to the machine free first, after their commit's build, a boot each
 * time a machine changes commit (cost_batch). Speculative builds (the driver's
 * res.builds, in its order) start on a free builder once the round's own
 * builds are under way, and only if they end before the round does.
 * Each batch boots afresh.
 */
struct cost_model {
	unsigned	machines;
	unsigned	builders;
	double		build;
	double		boot;
	double		run;
	int		speculate;
	/*
	 * As bisectd places and orders them: run seq of a commit on machine
	 * seq % machines, a batch held until all its commits are built, its
	 * runs interleaved on each machine (bisectd/dispatch.c), a boot at
	 * every change of commit on a machine; else the first free machine
	 * takes the next run, runs grouped by commit.
	 */
	int		placed;
};

#define COST_MAX	16	/* machines or builders */

struct cost_clock {
	double		 now;
	double		 start;		/* of the round: the driver's call */
	double		 builder[COST_MAX];
	unsigned char	*spec;		/* per commit: built speculatively */
	unsigned char	*wanted;	/* named in a round's wants */
};

static const struct cost_model *sim_cost;
static unsigned	sim_slots;	/* --slots: instead of the scenario's */
static struct cost_clock sim_clock;

struct store {
	double		**s;
	size_t		 *n;
	size_t		 *alloc;
	unsigned char	 *built;
	double		**t;		/* each sample's time */
	const char	***b;		/* and boot */
	size_t		 *talloc;
};

/* boot names, interned for the trial: "none-m0".., "boot-1".. */
static char	**sim_boot_names;
static size_t	  sim_nr_boot_names, sim_alloc_boot_names;

static const char *
sim_boot_name(const char *prefix, unsigned k)
{
	char	buf[32];

	snprintf(buf, sizeof buf, "%s-%u", prefix, k);
	ALLOC_GROW(sim_boot_names, sim_nr_boot_names, sim_alloc_boot_names);
	sim_boot_names[sim_nr_boot_names] = xstrdup(buf);
	return sim_boot_names[sim_nr_boot_names++];
}

static void
sim_boot_names_free(void)
{
	size_t	i;

	for (i = 0; i < sim_nr_boot_names; i++)
		free(sim_boot_names[i]);
	free(sim_boot_names);
	sim_boot_names = NULL;
	sim_nr_boot_names = sim_alloc_boot_names = 0;
}

static void
store_init(struct store *st, size_t nr)
{
	st->s = xcalloc(nr, sizeof *st->s);
	st->n = xcalloc(nr, sizeof *st->n);
	st->alloc = xcalloc(nr, sizeof *st->alloc);
	st->built = xcalloc(nr, 1);
	st->t = xcalloc(nr, sizeof *st->t);
	st->b = xcalloc(nr, sizeof *st->b);
	st->talloc = xcalloc(nr, sizeof *st->talloc);
}

static void
store_free(struct store *st, size_t nr)
{
	size_t	i;

	for (i = 0; i < nr; i++) {
		free(st->s[i]);
		free(st->t[i]);
		free(st->b[i]);
	}
	free(st->s);
	free(st->n);
	free(st->alloc);
	free(st->built);
	free(st->t);
	free(st->b);
	free(st->talloc);
	sim_boot_names_free();
}

/*
 * One attempt at a run of commit x, with its time and boot: 0 when the
 * monitor flagged it disturbed and it is set aside (attempts: its
 * set-asides so far; the 4th disturbed attempt counts, as in
 * bisectd/worker.c), 1 when it counts.
 */
static int
store_run(struct store *st, struct sim *s, const struct history *h,
    size_t x, const char *boot, unsigned attempts, struct outcome *o)
{
	size_t	n = st->n[x];
	double	v;
	int	disturbed;

	o->runs++;
	v = sim_sample(s, h->mean[x], n, &disturbed);
	if (disturbed && attempts < SIM_MAX_SET_ASIDE) {
		o->set_aside++;
		return 0;
	}
	ALLOC_GROW(st->s[x], st->n[x], st->alloc[x]);
	if (st->talloc[x] < st->alloc[x]) {
		st->t[x] = xreallocarray(st->t[x], st->alloc[x],
		    sizeof *st->t[x]);
		st->b[x] = xreallocarray(st->b[x], st->alloc[x],
		    sizeof *st->b[x]);
		st->talloc[x] = st->alloc[x];
	}
	st->t[x][n] = s->clock - 1;
	st->s[x][n] = v;
	st->b[x][n] = boot;
	st->n[x]++;
	return 1;
}

/*
 * A batch: commit x[k] to n[k] samples for each k, built first, its runs
 * dispatched as bisectd/dispatch.c orders them: round j takes the j-th
 * new run of every commit, in a random order per round (with two
 * commits, pairs). A run set aside as disturbed is dispatched again at
 * the end. With BOOT each commit's runs of the batch are in a boot of
 * their own, else in its machine's boot.
 */
static void
store_batch(struct store *st, struct sim *s, const struct history *h,
    const size_t *x, const size_t *n, size_t nr, struct outcome *o)
{
	static const char *const none[MAX_MACHINES] = {
		"none-m0", "none-m1", "none-m2"
	};
	size_t		 *order, *round, nord = 0, alloc, i, j, k, tmp, y;
	size_t		  longest = 0, nround;
	unsigned	 *tries;
	const char	**boot = xcalloc(nr + 1, sizeof *boot);
	double		 *boff = xcalloc(nr + 1, sizeof *boff);

	for (k = 0; k < nr; k++) {
		if (!st->built[x[k]]) {
			st->built[x[k]] = 1;
			o->builds++;
		}
		/* runs at a commit whose image another commit has sampled */
		if (h->image != NULL && st->n[x[k]] < n[k])
			for (y = 0; y < h->nr; y++)
				if (y != x[k] && st->n[y] > 0 &&
				    strcmp(h->image[y], h->image[x[k]]) == 0) {
					o->dup += n[k] - st->n[x[k]];
					break;
				}
		if (st->n[x[k]] < n[k]) {
			nord += n[k] - st->n[x[k]];
			if (n[k] - st->n[x[k]] > longest)
				longest = n[k] - st->n[x[k]];
		}
		if (s->noise == BOOT) {
			boot[k] = sim_boot_name("boot", ++s->boot);
			boff[k] = gsl_ran_gaussian(s->rng, SD);
		}
	}
	alloc = nord + 1;
	order = xcalloc(alloc, sizeof *order);
	tries = xcalloc(alloc, sizeof *tries);
	round = xcalloc(nr + 1, sizeof *round);
	for (j = 0, i = 0; j < longest; j++) {
		nround = 0;
		for (k = 0; k < nr; k++)
			if (st->n[x[k]] + j < n[k])
				round[nround++] = k;
		for (y = nround; y > 1; y--) {
			size_t r = gsl_rng_uniform_int(s->rng, y);

			tmp = round[y - 1];
			round[y - 1] = round[r];
			round[r] = tmp;
		}
		for (y = 0; y < nround; y++)
			order[i++] = round[y];
	}
	for (i = 0; i < nord; i++) {
		k = order[i];
		if (s->noise != BOOT) {
			size_t m = s->machines > 1 ? st->n[x[k]] % s->machines :
			    0;

			boot[k] = none[m];
		}
		s->boot_offset = boff[k];
		if (store_run(st, s, h, x[k], boot[k], tries[i], o))
			continue;
		/* set aside: pending again, at the end of the order */
		ALLOC_GROW(order, nord + 1, alloc);
		tries = xreallocarray(tries, alloc, sizeof *tries);
		order[nord] = k;
		tries[nord] = tries[i] + 1;
		nord++;
	}
	free(order);
	free(tries);
	free(round);
	free(boot);
	free(boff);
}

static void
store_take(struct store *st, struct sim *s, const struct history *h, size_t x,
    size_t n, struct outcome *o)
{
	store_batch(st, s, h, &x, &n, 1, o);
}

static int
sim_verbose;
static int
sim_untimed;		/* the driver is not told times and boots */
static long
sim_trace = -1;		/* trial whose every round is printed */

/*
 * The revert check as bisectd runs it: the culprit reverted on top of bad
 * (bad's level with the culprit's step taken out; none when the culprit
 * is wrong), its verdict and its looks bisect_revert_decide's, one look a
 * call: with times, each look a batch of the revert and the bad end as
 * interleaved pairs (the bad end's runs join its samples, and the driver
 * is asked again before the next look, as bisectd asks it every turn);
 * without times, or with boots as units, the revert's runs alone (boots:
 * a boot a look). Returns 1 when it took runs (ask the driver again), 0
 * when it is decided: one that contradicts makes the answer unconfirmed.
 * Its runs (both sides) and its build count in the totals. With images,
 * the revert of the commit that changes the image builds its parent's:
 * decided by the build, no runs.
 */
struct sim_rev {
	size_t		 culprit;	/* (size_t)-1: none yet */
	double		*x;
	double		*t;
	const char	**boots;
	size_t		 n;
	size_t		 alloc;
};

static void
sim_rev_reset(struct sim_rev *rv)
{
	free(rv->x);
	free(rv->t);
	free(rv->boots);
	memset(rv, 0, sizeof *rv);
	rv->culprit = (size_t)-1;
}

/* one attempt after another until one counts, as store_run sets aside */
static double
sim_revert_sample(struct sim *s, double level, size_t k, struct outcome *o)
{
	unsigned	tries = 0;
	int		disturbed;
	double		v;

	for (;;) {
		v = sim_sample(s, level, k, &disturbed);
		o->runs++;
		o->revert_runs++;
		if (!disturbed || tries++ >= SIM_MAX_SET_ASIDE)
			return v;
		o->set_aside++;
	}
}

static int
sim_revert(const struct history *h, struct sim *s, struct store *st,
    struct bisect_result *res, struct outcome *o, struct sim_rev *rv)
{
	struct bisect_revert_input	 in;
	struct bisect_revert		 v;
	size_t				 c = res->culprits[0], i, k, need;
	size_t				 first = st->n[h->bad];
	double				 level = h->mean[h->bad], after;
	const char			*boot = "none-m0", *bboot = "none-m0";

	if (rv->culprit != c) {
		sim_rev_reset(rv);
		rv->culprit = c;
		o->builds++;
	}
	/*
	 * Images: the revert of the one commit that changes the image
	 * builds its parent's image, restores by construction, is not run.
	 */
	if (h->image != NULL && h->commits[c].nr_parents > 0 &&
	    strcmp(h->image[c], h->image[h->commits[c].parents[0]]) != 0)
		return 0;
	if (h->commits[c].nr_parents > 0)
		level *= h->mean[h->commits[c].parents[0]] / h->mean[c];
	if (first < INITIAL_RUNS)
		first = INITIAL_RUNS;
	for (i = 0, after = -INFINITY; i < h->nr; i++)
		for (k = 0; i != h->bad && k < st->n[i]; k++)
			if (st->t[i][k] > after)
				after = st->t[i][k];
	memset(&in, 0, sizeof in);
	in.bad = st->s[h->bad];
	in.nr_bad = st->n[h->bad];
	in.good = st->s[0];
	in.nr_good = st->n[0];
	in.runs = (unsigned)first;
	in.revert = rv->x;
	in.nr_revert = rv->n;
	in.after = after;
	if (!sim_untimed) {
		in.bad_boots = st->b[h->bad];
		in.good_boots = st->b[0];
		in.revert_boots = rv->boots;
		in.bad_times = st->t[h->bad];
		in.revert_times = rv->t;
	}
	if (bisect_revert_decide(&v, &in) != BISECT_REVERT_MORE) {
		if (v.verdict == BISECT_REVERT_CONTRADICTS) {
			res->status = BISECT_UNCONFIRMED;
			o->revert_contradicts = 1;
		}
		return 0;
	}
	/* with BOOT, each side's runs of a look in a boot of its own */
	if (s->noise == BOOT) {
		boot = sim_boot_name("boot", ++s->boot);
		bboot = sim_boot_name("boot", ++s->boot);
	}
	need = v.want > rv->n ? v.want - rv->n : 0;
	{
		double	ro = gsl_ran_gaussian(s->rng, SD);
		double	bo = gsl_ran_gaussian(s->rng, SD);

		for (k = 0; k < need; k++) {
			/* a pair in a random order, or the revert alone */
			int	bad_first = v.paired &&
				    gsl_rng_uniform(s->rng) < 0.5, j;

			for (j = 0; j < (v.paired ? 2 : 1); j++) {
				if (j == (bad_first ? 0 : 1)) {
					unsigned tries = 0;

					s->boot_offset = bo;
					while (!store_run(st, s, h, h->bad,
					    bboot, tries, o))
						tries++;
					o->revert_runs += 1 + tries;
					continue;
				}
				s->boot_offset = ro;
				ALLOC_GROW(rv->x, rv->n, rv->alloc);
				rv->t = xreallocarray(rv->t, rv->alloc,
				    sizeof *rv->t);
				rv->boots = xreallocarray(rv->boots, rv->alloc,
				    sizeof *rv->boots);
				rv->x[rv->n] = sim_revert_sample(s, level,
				    rv->n, o);
				rv->t[rv->n] = s->clock - 1;
				rv->boots[rv->n++] = boot;
			}
		}
	}
	return 1;
}

static void
cost_start(struct cost_clock *c, size_t nr)
{
	free(c->spec);
	free(c->wanted);
	memset(c, 0, sizeof *c);
	c->spec = xcalloc(nr, 1);
	c->wanted = xcalloc(nr, 1);
}

static unsigned
cost_first_free(const double *t, unsigned n)
{
	unsigned	i, best = 0;

	for (i = 1; i < n; i++)
		if (t[i] < t[best])
			best = i;
	return best;
}

/*
 * One batch from c->now: need[k] builds commit k's image first (on the
 * builders, in order), then runs[k] runs of it. A machine that comes free
 * runs the commit it has booted while that has runs left, else boots the
 * commit ready first (the most runs left on a tie). Returns when the last
 * run ends (or the last build, without runs).
 */
static double
cost_batch(struct cost_clock *c, const int *need, const size_t *first,
    const size_t *runs, size_t nr)
{
	const struct cost_model	*m = sim_cost;
	double			 mach[COST_MAX], *ready, end = c->now, t, bt;
	double			 held;
	size_t			*left, booted[COST_MAX], k, best, todo = 0;
	size_t			 j, longest = 0, seq, pos, y;
	unsigned		 b, i;

	ready = xcalloc(nr + 1, sizeof *ready);
	left = xcalloc(nr + 1, sizeof *left);
	for (i = 0; i < m->machines; i++) {
		mach[i] = c->now;
		booted[i] = (size_t)-1;
	}
	for (k = 0; k < nr; k++) {
		ready[k] = c->now;
		if (need[k]) {
			b = cost_first_free(c->builder, m->builders);
			t = c->builder[b] > c->now ? c->builder[b] : c->now;
			c->builder[b] = ready[k] = t + m->build;
			if (ready[k] > end)
				end = ready[k];
		}
		left[k] = runs[k];
		todo += runs[k];
	}
	if (m->placed) {
		/*
		 * Round j of the batch: of each commit, its j-th run in the
		 * order (position, seq), as dispatch_order forms them.
		 */
		for (k = 0, held = c->now; k < nr; k++) {
			if (runs[k] > 0 && ready[k] > held)
				held = ready[k];
			if (runs[k] > longest)
				longest = runs[k];
		}
		for (j = 0; j < longest; j++)
			for (k = 0; k < nr; k++) {
				if (j >= runs[k])
					continue;
				/* the j-th of first..first+runs-1 by position */
				for (pos = 0, y = 0, seq = (size_t)-1;
				    pos < m->machines && seq == (size_t)-1;
				    pos++) {
					size_t s0 = first[k], s1 = first[k] +
					    runs[k], c0;

					c0 = s0 % m->machines <= pos ? s0 - s0 %
					    m->machines + pos : s0 - s0 %
					    m->machines + m->machines + pos;
					for (; c0 < s1; c0 += m->machines, y++)
						if (y == j) {
							seq = c0;
							break;
						}
				}
				i = (unsigned)(seq % m->machines);
				t = mach[i] > held ? mach[i] : held;
				if (booted[i] != k)
					t += m->boot;
				booted[i] = k;
				mach[i] = t + m->run;
				if (mach[i] > end)
					end = mach[i];
			}
		todo = 0;
	}
	while (todo > 0) {
		i = cost_first_free(mach, m->machines);
		k = booted[i];
		if (k != (size_t)-1 && left[k] > 0) {
			mach[i] += m->run;
		} else {
			best = (size_t)-1;
			bt = INFINITY;
			for (k = 0; k < nr; k++) {
				if (left[k] == 0)
					continue;
				t = ready[k] > mach[i] ? ready[k] : mach[i];
				if (t < bt || (t == bt && left[k] > left[best])) {
					bt = t;
					best = k;
				}
			}
			k = best;
			booted[i] = k;
			mach[i] = bt + m->boot + m->run;
		}
		left[k]--;
		todo--;
		if (mach[i] > end)
			end = mach[i];
	}
	free(ready);
	free(left);
	return end;
}

/* The round the driver asked for: its builds, then its runs. */
static void
cost_round(struct cost_clock *c, const struct history *h,
    const struct store *st, const struct bisect_result *res,
    struct outcome *o)
{
	int	*need = xcalloc(res->nr_wants + 1, sizeof *need);
	size_t	*runs = xcalloc(res->nr_wants + 1, sizeof *runs), k, x;
	size_t	*first = xcalloc(res->nr_wants + 1, sizeof *first);

	for (k = 0; k < res->nr_wants; k++) {
		x = res->wants[k].commit;
		c->wanted[x] = 1;
		first[k] = st->n[x];
		need[k] = !st->built[x];
		if (!h->failed[x] && res->wants[k].samples > st->n[x])
			runs[k] = res->wants[k].samples - st->n[x];
	}
	c->start = c->now;
	c->now = cost_batch(c, need, first, runs, res->nr_wants);
	o->minutes = c->now;
	free(need);
	free(runs);
	free(first);
}

/*
 * Builds for the next round while this one's runs are in flight: those
 * that a free builder ends before the round ends (c->now), counted in
 * the builds; the driver sees them built at its next call.
 */
static void
cost_speculate(struct cost_clock *c, struct history *h, struct store *st,
    const struct bisect_result *res, struct outcome *o)
{
	size_t		k, x;
	unsigned	b;
	double		t;

	if (!sim_cost->speculate)
		return;
	for (k = 0; k < res->nr_builds; k++) {
		x = res->builds[k];
		if (st->built[x])
			continue;
		b = cost_first_free(c->builder, sim_cost->builders);
		t = c->builder[b] > c->start ? c->builder[b] : c->start;
		if (t + sim_cost->build > c->now)
			break;
		c->builder[b] = t + sim_cost->build;
		st->built[x] = 1;
		c->spec[x] = 1;
		o->builds++;
		h->commits[x].build = h->failed[x] ? BISECT_BUILD_FAILED :
		    BISECT_BUILD_OK;
		if (h->image != NULL)
			h->commits[x].image = h->image[x];
	}
}

/* the revert check's build and runs, and the builds no round wanted */
static void
cost_finish(struct cost_clock *c, const struct history *h,
    struct outcome *o)
{
	size_t	i;
	int	need = 1;
	size_t	first = 0;

	if (o->revert_runs > 0)
		c->now = cost_batch(c, &need, &first, &o->revert_runs, 1);
	o->minutes = c->now;
	for (i = 0; i < h->nr; i++)
		o->wasted += c->spec[i] && !c->wanted[i];
}

/* blocked: tell the driver which machine took each sample */
static void
run_driver(struct history *h, const struct scenario *sc, struct sim *s,
    struct outcome *o, size_t trial, int blocked)
{
	struct store		 st;
	struct bisect_input	 in;
	struct bisect_result	 res;
	size_t			 good = 0, i, k, lo, hi, nb;
	size_t			*bx = xcalloc(h->nr, sizeof *bx);
	size_t			*bn = xcalloc(h->nr, sizeof *bn);
	int			 done = 0;
	struct sim_rev		 rv;

	memset(o, 0, sizeof *o);
	memset(&rv, 0, sizeof rv);
	sim_rev_reset(&rv);
	store_init(&st, h->nr);
	memset(&in, 0, sizeof in);
	in.commits = h->commits;
	in.nr_commits = h->nr;
	in.bad = h->bad;
	in.good = &good;
	in.nr_good = 1;
	in.direction = 1;
	in.min_effect_pct = sc->min_effect != 0 ? sc->min_effect :
	    sim_min_effect;
	in.slots = sim_slots ? sim_slots : sc->slots;
	in.initial_runs = INITIAL_RUNS;
	in.max_runs = MAX_RUNS;
	for (i = 0; i < h->nr; i++) {
		h->commits[i].build = BISECT_BUILD_UNKNOWN;
		h->commits[i].samples = NULL;
		h->commits[i].nr_samples = 0;
		h->commits[i].machines = NULL;
		h->commits[i].image = NULL;
	}
	while (!done && o->rounds < 5000) {
		for (i = 0; i < h->nr; i++) {
			h->commits[i].samples = st.s[i];
			h->commits[i].nr_samples = st.n[i];
			h->commits[i].machines = blocked && sc->machines > 1 &&
			    st.n[i] <= MAX_SAMPLES ? sim_machine : NULL;
			h->commits[i].times = sim_untimed ? NULL : st.t[i];
			h->commits[i].boots = sim_untimed ? NULL :
			    (const char *const *)st.b[i];
		}
		bisect_decide(&res, &in);
		if (res.status == BISECT_FOUND && res.nr_culprits > 0 &&
		    sim_revert(h, s, &st, &res, o, &rv)) {
			/* a look of the revert check: the driver again */
			bisect_result_release(&res);
			continue;
		}
		if (res.status != BISECT_CONTINUE) {
			o->cut = res.budget_spent;
			done = 1;
			break;
		}
		o->rounds++;
		if ((long)trial == sim_trace) {
			fprintf(stderr, "round %zu: %zu left (%u steps):",
			    o->rounds, res.remaining, res.steps);
			for (k = 0; k < res.nr_wants; k++)
				fprintf(stderr, " %zu:%u", res.wants[k].commit,
				    res.wants[k].samples);
			fprintf(stderr, "\n");
		}
		nb = 0;
		for (k = 0; k < res.nr_wants; k++) {
			size_t x = res.wants[k].commit;

			if (h->failed[x]) {
				if (!st.built[x])
					o->builds++;
				st.built[x] = 1;
				h->commits[x].build = BISECT_BUILD_FAILED;
				continue;
			}
			h->commits[x].build = BISECT_BUILD_OK;
			if (h->image != NULL)
				h->commits[x].image = h->image[x];
			bx[nb] = x;
			bn[nb++] = res.wants[k].samples;
		}
		if (sim_cost != NULL)
			cost_round(&sim_clock, h, &st, &res, o);
		store_batch(&st, s, h, bx, bn, nb, o);
		if (sim_cost != NULL)
			cost_speculate(&sim_clock, h, &st, &res, o);
		bisect_result_release(&res);
	}
	for (i = 0; i < h->nr; i++)
		if (i != good && i != h->bad && st.n[i] > o->peak)
			o->peak = st.n[i];
	free(bx);
	free(bn);
	if (!done) {
		o->right = 0;
		sim_rev_reset(&rv);
		store_free(&st, h->nr);
		return;
	}
	sim_rev_reset(&rv);
	if (sim_cost != NULL)
		cost_finish(&sim_clock, h, o);
	o->status = res.status;

	switch (h->nr_culprits) {
	case 0:
		o->right = res.status == BISECT_NO_CHANGE;
		break;
	case 1:
		o->right = res.status == BISECT_FOUND &&
		    res.nr_culprits == 1 && res.culprits[0] == h->culprit[0];
		if (sc->build_fail && res.status == BISECT_AMBIGUOUS) {
			history_expected(h, &lo, &hi);
			o->right = res.nr_candidates == hi - lo + 1;
			for (k = 0; k < res.nr_candidates; k++)
				if (res.candidates[k] < lo ||
				    res.candidates[k] > hi)
					o->right = 0;
		}
		break;
	case 2:
		o->right = 0;
		if (res.status == BISECT_FOUND) {
			int seen = 0;

			for (k = 0; k < res.nr_culprits; k++)
				if (res.culprits[k] == h->culprit[0] ||
				    res.culprits[k] == h->culprit[1])
					seen++;
			o->right = seen == 2;
		}
		break;
	}
	if ((sim_verbose && !o->right) || (long)trial == sim_trace) {
		fprintf(stderr, "trial %zu%s: %s%s", trial, sc->machines > 1 ?
		    blocked ? " (driver)" : " (pooled)" : "",
		    bisect_status_name(o->status), o->revert_contradicts ?
		    " (the revert check)" : res.status == BISECT_UNCONFIRMED ?
		    " (the fresh check or the image)" : "");
		for (k = 0; k < res.nr_culprits; k++)
			fprintf(stderr, " %zu", res.culprits[k]);
		if (res.nr_candidates) {
			fprintf(stderr, " candidates");
			for (k = 0; k < res.nr_candidates; k++)
				fprintf(stderr, " %zu", res.candidates[k]);
		}
		fprintf(stderr, "; truth");
		for (k = 0; k < h->nr_culprits; k++)
			fprintf(stderr, " %zu", h->culprit[k]);
		fprintf(stderr, " (runs %zu, builds %zu, change %.2f%%, "
		    "explained %.0f%%)\n", o->runs, o->builds, res.change_pct,
		    res.explained_pct);
		if ((long)trial == sim_trace)
			for (k = 0; k < h->nr; k++) {
				double m = 0;
				size_t j;

				if (st.n[k] < 10)
					continue;
				for (j = 0; j < st.n[k]; j++)
					m += st.s[k][j];
				fprintf(stderr, "  %zu: n %zu mean %.1f true %.1f"
				    "\n", k, st.n[k], m / (double)st.n[k],
				    h->mean[k]);
			}
	}
	bisect_result_release(&res);
	store_free(&st, h->nr);
}

static double
mean_of(const double *x, size_t n)
{
	double	s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

/* A step of git bisect run: nr commits built, then r runs of each. */
static void
cost_fixed(unsigned r, size_t nr)
{
	int	need[2] = { 1, 1 };
	size_t	runs[2] = { r, r }, first[2] = { 0, 0 };

	sim_clock.now = cost_batch(&sim_clock, need, first, runs, nr);
}

/*
 * git bisect run with r runs per step: the ends measured first for the
 * threshold, then git's midpoint (bisect_midpoint over what is left),
 * untestable commits skipped as with `git bisect skip`.
 */
static void
run_fixed(struct history *h, const struct scenario *sc, struct sim *s,
    unsigned r, struct outcome *o)
{
	struct store		 st;
	unsigned char		*cand, *mark, *skip;
	size_t			*map, *back, *pstore, n, i, k, x, lo, hi;
	struct bisect_commit	*sub;
	double			 thr, mg, mb;

	memset(o, 0, sizeof *o);
	store_init(&st, h->nr);
	cand = xcalloc(h->nr, 1);
	mark = xcalloc(h->nr, 1);
	skip = xcalloc(h->nr, 1);
	map = xcalloc(h->nr, sizeof *map);
	back = xcalloc(h->nr, sizeof *back);
	sub = xcalloc(h->nr, sizeof *sub);
	pstore = xcalloc(4 * h->nr, sizeof *pstore);

	store_take(&st, s, h, 0, r, o);
	store_take(&st, s, h, h->bad, r, o);
	if (sim_cost != NULL)
		cost_fixed(r, 2);
	mg = mean_of(st.s[0], r);
	mb = mean_of(st.s[h->bad], r);
	thr = (mg + mb) / 2;
	history_ancestors(h, h->bad, cand);
	cand[0] = 0;
	for (;;) {
		size_t *pp = pstore, ns = 0, nskip = 0;

		for (i = 0, n = 0; i < h->nr; i++)
			if (cand[i]) {
				map[i] = n;
				back[n++] = i;
			}
		if (n <= 1)
			break;
		for (k = 0; k < n; k++) {
			const struct bisect_commit *c = &h->commits[back[k]];

			sub[k].parents = pp;
			sub[k].nr_parents = 0;
			for (i = 0; i < c->nr_parents; i++)
				if (cand[c->parents[i]]) {
					*pp++ = map[c->parents[i]];
					sub[k].nr_parents++;
				}
			skip[k] = h->failed[back[k]] || back[k] == h->bad;
			nskip += skip[k];
		}
		(void)ns;
		/* the current bad end is never tested again */
		for (k = 0; k < n; k++)
			if (back[k] == h->bad)
				skip[k] = 1;
		x = bisect_midpoint(sub, n, skip);
		if (x == (size_t)-1) {
			/* only skipped commits left */
			history_expected(h, &lo, &hi);
			o->right = sc->build_fail;
			for (k = 0; k < n; k++)
				if (back[k] < lo || back[k] > hi)
					o->right = 0;
			if (n != hi - lo + 1)
				o->right = 0;
			goto out;
		}
		x = back[x];
		store_take(&st, s, h, x, r, o);
		if (sim_cost != NULL)
			cost_fixed(r, 1);
		o->peak = r;
		history_ancestors(h, x, mark);
		if (mean_of(st.s[x], r) < thr) {
			for (i = 0; i < h->nr; i++)
				cand[i] = cand[i] && mark[i];
			h->bad = x;
		} else
			for (i = 0; i < h->nr; i++)
				if (mark[i])
					cand[i] = 0;
	}
	for (i = 0; i < h->nr; i++)
		if (cand[i])
			break;
	o->right = h->nr_culprits == 1 && i < h->nr && i == h->culprit[0];
out:
	o->minutes = sim_clock.now;
	free(cand);
	free(mark);
	free(skip);
	free(map);
	free(back);
	free(sub);
	free(pstore);
	store_free(&st, h->nr);
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static size_t
quantile(size_t *v, size_t n, double q)
{
	size_t	i;

	qsort(v, n, sizeof *v, cmp_size);
	i = (size_t)ceil(q * (double)n) - 1;
	if (i >= n)
		i = n - 1;
	return v[i];
}

struct tally {
	size_t	 right;
	size_t	 cut;
	size_t	 wrong;		/* found, but not the right answer */
	size_t	 unconfirmed;
	size_t	 inconclusive;
	size_t	 dup;
	size_t	 revert_runs;
	size_t	 set_aside;
	size_t	*runs;
	size_t	*builds;
	size_t	*rounds;
	size_t	*peak;
};

static void
tally_print(const char *method, struct tally *t, size_t trials, int rounds)
{
	printf("  %-10s %6.1f%%  %5zu  %5zu  %5zu  %5zu  %5zu  %4zu  %4zu  "
	    "%4zu", method, 100.0 * (double)t->right / (double)trials,
	    quantile(t->runs, trials, 0.5), quantile(t->runs, trials, 0.9),
	    quantile(t->runs, trials, 0.99), quantile(t->runs, trials, 1),
	    quantile(t->builds, trials, 0.5), quantile(t->builds, trials, 1),
	    quantile(t->peak, trials, 0.5), quantile(t->peak, trials, 0.9));
	printf("  %4zu  %5zu  %6zu  %5zu", t->cut, t->wrong, t->unconfirmed,
	    t->inconclusive);
	if (rounds)
		printf("  %5zu", quantile(t->rounds, trials, 0.5));
	printf("\n");
}

/*
 * Methods: the driver, the fixed repeats, and with several machines the
 * driver not told the machines ("pooled") last; each method of a trial
 * draws from the same seed, so the driver and pooled see the same runs.
 */
static void
scenario_run(const struct scenario *sc, size_t trials, unsigned long seed)
{
	static const unsigned	 fixed[3] = { 5, 10, 20 };
	static const char	*mnames[] = { "m0", "m1", "m2" };
	struct tally		 t[5];
	struct history		 h;
	struct sim		 s;
	struct outcome		 o;
	gsl_rng			*hist_rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t			 i, j, bad, methods = sc->machines > 1 ? 5 : 4;
	char			 name[32];
	double			 t0 = (double)clock();

	memset(&s, 0, sizeof s);
	s.machines = sc->machines;
	for (j = 0; j < MAX_MACHINES; j++)
		s.factor[j] = 1 + sc->offset[j] * SD;
	for (i = 0; i < MAX_SAMPLES; i++)
		sim_machine[i] = mnames[i % (sc->machines ? sc->machines : 1)];
	memset(t, 0, sizeof t);
	for (j = 0; j < methods; j++) {
		t[j].runs = xcalloc(trials, sizeof *t[j].runs);
		t[j].builds = xcalloc(trials, sizeof *t[j].builds);
		t[j].rounds = xcalloc(trials, sizeof *t[j].rounds);
		t[j].peak = xcalloc(trials, sizeof *t[j].peak);
	}
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	s.noise = sc->noise;
	for (i = 0; i < trials; i++) {
		gsl_rng_set(hist_rng, seed * 1000003 + i);
		history_make(&h, sc, hist_rng);
		bad = h.bad;
		for (j = 0; j < methods; j++) {
			gsl_rng_set(s.rng, (seed * 1000003 + i) * 7 +
			    (j == 4 ? 0 : j) + 1);
			s.drift = 0;
			s.clock = 0;
			s.burst_left = 0;
			s.boot = 0;
			s.boot_offset = 0;
			h.bad = bad;
			if (j == 0 || j == 4)
				run_driver(&h, sc, &s, &o, i, j == 0);
			else
				run_fixed(&h, sc, &s, fixed[j - 1], &o);
			t[j].right += o.right;
			t[j].cut += o.cut;
			t[j].set_aside += o.set_aside;
			if (j == 0 || j == 4) {
				t[j].wrong += o.status == BISECT_FOUND &&
				    !o.right;
				t[j].unconfirmed += o.status ==
				    BISECT_UNCONFIRMED;
				t[j].inconclusive += o.status ==
				    BISECT_INCONCLUSIVE;
				t[j].dup += o.dup;
				t[j].revert_runs += o.revert_runs;
			} else
				t[j].wrong += !o.right;
			t[j].runs[i] = o.runs;
			t[j].builds[i] = o.builds;
			t[j].rounds[i] = o.rounds;
			t[j].peak[i] = o.peak;
		}
		history_free(&h);
	}
	printf("%s: %s; %zu trials (%.1f s)\n", sc->name, sc->what, trials,
	    ((double)clock() - t0) / CLOCKS_PER_SEC);
	printf("  settings: max_runs %u, initial_runs %u, min_effect_pct "
	    "%g, slots %u\n", sim_max_runs, sim_initial_runs,
	    sc->min_effect != 0 ? sc->min_effect : sim_min_effect,
	    sim_slots ? sim_slots : sc->slots ? sc->slots : 1);
	printf("  %-10s %7s  %5s  %5s  %5s  %5s  %5s  %4s  %4s  %4s  %4s  %5s  "
	    "%6s  %5s%s\n", "method", "right", "runs", "p90", "p99", "max",
	    "builds", "max", "peak", "p90", "cut", "wrong", "unconf", "incon",
	    (sim_slots ? sim_slots : sc->slots) > 1 ? "  rounds" : "");
	tally_print("driver", &t[0], trials, (sim_slots ? sim_slots : sc->slots) > 1);
	if ((sim_slots ? sim_slots : sc->slots) > 1 && trials > 0) {
		size_t	sum = 0, le6 = 0;

		/* issue 13's figure is a median: how near it stands */
		for (i = 0; i < trials; i++) {
			sum += t[0].rounds[i];
			le6 += t[0].rounds[i] <= 6;
		}
		printf("  driver: rounds mean %.2f, %.1f%% of trials in 6 "
		    "rounds or fewer\n", (double)sum / (double)trials,
		    100.0 * (double)le6 / (double)trials);
	}
	if (t[0].revert_runs > 0 || sc->images)
		printf("  driver: %zu runs of revert checks in all, counted "
		    "in its runs%s", t[0].revert_runs, sc->images ? "" : "\n");
	if (sc->images)
		printf("; %zu runs at an image sampled already\n", t[0].dup);
	if (sc->noise == BURST)
		printf("  disturbed runs set aside and repeated, counted in the "
		    "runs: driver %zu, fixed-5/10/20 %zu/%zu/%zu in all\n",
		    t[0].set_aside, t[1].set_aside, t[2].set_aside,
		    t[3].set_aside);
	if (methods > 4)
		tally_print("pooled", &t[4], trials, (sim_slots ? sim_slots : sc->slots) > 1);
	for (j = 1; j < 4; j++) {
		snprintf(name, sizeof name, "fixed-%u", fixed[j - 1]);
		tally_print(name, &t[j], trials, (sim_slots ? sim_slots : sc->slots) > 1);
	}
	printf("  samples: times and boots %s; runs of a round interleaved "
	    "at random\n", sim_untimed ? "withheld from the driver" :
	    "given to the driver");
	fflush(stdout);
	for (j = 0; j < methods; j++) {
		free(t[j].runs);
		free(t[j].builds);
		free(t[j].rounds);
		free(t[j].peak);
	}
	gsl_rng_free(s.rng);
	gsl_rng_free(hist_rng);
}

/*
 * --rounds: gauss-1.5 at 1, 2, 4 and 8 slots (as many machines, 2
 * builders, speculation on), then the cost model of issue 13 at 4
 * machines: the driver on one machine with one builder, fixed-repeat
 * bisection with 10 runs per step spread over the 4 machines, and the
 * driver with 4 slots, with and without speculative builds; once with
 * the runs grouped on the machine free first, once placed and ordered
 * as bisectd does (struct cost_model.placed).
 */
struct rounds_method {
	const char	*name;
	unsigned	 slots;		/* 0: fixed-repeat, fixed runs a step */
	unsigned	 fixed;
	unsigned	 machines;
	unsigned	 builders;
	int		 speculate;
	int		 placed;	/* struct cost_model.placed */
};

static void
rounds_method_run(const struct rounds_method *rm, size_t trials,
    unsigned long seed, double *out_minutes, const char *label,
    double base1, double base2)
{
	struct scenario		 sc = scenarios[0];
	struct cost_model	 cm = { rm->machines, rm->builders, 10, 1, 5,
				    rm->speculate, rm->placed };
	struct history		 h;
	struct sim		 s;
	struct outcome		 o;
	gsl_rng			*hist_rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t			*rounds = xcalloc(trials, sizeof *rounds);
	size_t			*runs = xcalloc(trials, sizeof *runs);
	size_t			*builds = xcalloc(trials, sizeof *builds);
	size_t			*wasted = xcalloc(trials, sizeof *wasted);
	size_t			*mins = xcalloc(trials, sizeof *mins);
	size_t			 i, right = 0, cut = 0;
	double			 med;
	unsigned		 saved;

	sc.slots = rm->slots ? rm->slots : 1;
	saved = sim_slots;
	sim_slots = 0;
	memset(&s, 0, sizeof s);
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	s.noise = sc.noise;
	sim_cost = &cm;
	for (i = 0; i < trials; i++) {
		gsl_rng_set(hist_rng, seed * 1000003 + i);
		history_make(&h, &sc, hist_rng);
		gsl_rng_set(s.rng, (seed * 1000003 + i) * 7 + 1);
		s.clock = 0;
		cost_start(&sim_clock, h.nr);
		if (rm->slots)
			run_driver(&h, &sc, &s, &o, i, 1);
		else
			run_fixed(&h, &sc, &s, rm->fixed, &o);
		right += o.right;
		cut += o.cut;
		rounds[i] = o.rounds;
		runs[i] = o.runs;
		builds[i] = o.builds;
		wasted[i] = o.wasted;
		mins[i] = (size_t)ceil(o.minutes);
		history_free(&h);
	}
	sim_cost = NULL;
	sim_slots = saved;
	med = (double)quantile(mins, trials, 0.5);
	printf("  %-22s %5u %5u %6.1f%%  %4zu %4zu  %5zu  %5zu  %5zu  %6.2f",
	    label, rm->machines, rm->builders,
	    100.0 * (double)right / (double)trials,
	    rm->slots ? quantile(rounds, trials, 0.5) : 0,
	    rm->slots ? quantile(rounds, trials, 0.9) : 0,
	    quantile(runs, trials, 0.5), quantile(builds, trials, 0.5),
	    quantile(wasted, trials, 0.5), med / 60);
	printf("  %4zu", cut);
	if (base1 > 0)
		printf("  %5.2f", med / base1);
	if (base2 > 0)
		printf("  %5.2f", med / base2);
	printf("\n");
	if (out_minutes != NULL)
		*out_minutes = med;
	free(rounds);
	free(runs);
	free(builds);
	free(wasted);
	free(mins);
	gsl_rng_free(s.rng);
	gsl_rng_free(hist_rng);
}

static void
rounds_header(const char *extra)
{
	printf("  %-22s %5s %5s %7s  %4s %4s  %5s  %5s  %5s  %6s  %4s%s\n",
	    "method", "mach", "build", "right", "rnds", "p90", "runs",
	    "builds", "waste", "hours", "cut", extra);
}

static void
rounds_report(size_t trials, unsigned long seed)
{
	static const unsigned	 slots[] = { 1, 2, 4, 8 };
	struct rounds_method	 rm = { 0 };
	char			 label[64];
	double			 one, fixed;
	size_t			 i;
	unsigned		 b;

	printf("rounds: gauss-1.5 (1024 commits, one culprit of 1.5 sd) by "
	    "slots; %zu trials, seed %lu\n", trials, seed);
	printf("  settings: max_runs %u, initial_runs %u, min_effect_pct %g; "
	    "cost model: build 10 min, boot 1 min, run 5 min, machines = "
	    "slots, 2 builders, speculative builds on\n", sim_max_runs,
	    sim_initial_runs, sim_min_effect);
	printf("  (rounds median and 90th percentile; runs, builds, wasted "
	    "builds and hours the median; the revert check counted in "
	    "runs, builds and hours)\n");
	rounds_header("");
	for (i = 0; i < sizeof slots / sizeof slots[0]; i++) {
		rm.slots = slots[i];
		rm.machines = slots[i];
		rm.builders = 2;
		rm.speculate = 1;
		snprintf(label, sizeof label, "driver, %u slot%s", slots[i],
		    slots[i] == 1 ? "" : "s");
		rounds_method_run(&rm, trials, seed, NULL, label, 0, 0);
	}
	printf("cost: time to culprit, gauss-1.5, 1024 commits; build 10 min, "
	    "boot 1 min, run 5 min; %zu trials, seed %lu\n", trials, seed);
	printf("  settings: max_runs %u, initial_runs %u, min_effect_pct %g; "
	    "x1: against the driver on 1 machine with 1 builder, x10: "
	    "against fixed-10 on the same machines and builders\n",
	    sim_max_runs, sim_initial_runs, sim_min_effect);
	printf("  runs on the machine free first, grouped by commit, a boot "
	    "per commit a machine takes in a batch\n");
	rounds_header("     x1    x10");
	rm.slots = 1;
	rm.machines = 1;
	rm.builders = 1;
	rm.speculate = 0;
	rounds_method_run(&rm, trials, seed, &one, "driver, 1 slot", 0, 0);
	rm.fixed = 10;
	for (b = 1; b <= 4; b++) {
		rm.placed = b > 2;
		if (b == 3) {
			printf("  placed as bisectd places them: run seq on "
			    "machine seq %% 4, a batch held until its commits "
			    "are built, its runs interleaved on each machine, "
			    "a boot at every change of commit\n");
			rounds_header("     x1    x10");
			rm.slots = 1;
			rm.machines = 1;
			rm.builders = 1;
			rm.speculate = 0;
			rounds_method_run(&rm, trials, seed, &one,
			    "driver, 1 slot", 0, 0);
		}
		rm.slots = 0;
		rm.machines = 4;
		rm.builders = 2 - b % 2;
		rm.speculate = 0;
		rm.fixed = 20;
		rounds_method_run(&rm, trials, seed, NULL, "fixed-20", one, 0);
		rm.fixed = 10;
		rounds_method_run(&rm, trials, seed, &fixed, "fixed-10", one, 0);
		rm.slots = 4;
		rounds_method_run(&rm, trials, seed, NULL,
		    "driver, 4 slots", one, fixed);
		rm.speculate = 1;
		rounds_method_run(&rm, trials, seed, NULL,
		    "driver, 4 slots, spec", one, fixed);
	}
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	size_t		 trials = 500, i;
	unsigned long	 seed = 1;
	const char	*only = NULL;
	int		 any = 0, rounds = 0;

	for (i = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--trials") == 0 && i + 1 < (size_t)argc)
			trials = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < (size_t)argc)
			seed = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--scenario") == 0 &&
		    i + 1 < (size_t)argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--max-runs") == 0 &&
		    i + 1 < (size_t)argc)
			sim_max_runs = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--initial-runs") == 0 &&
		    i + 1 < (size_t)argc)
			sim_initial_runs = (unsigned)strtoul(argv[++i], NULL,
			    10);
		else if (strcmp(argv[i], "--min-effect") == 0 &&
		    i + 1 < (size_t)argc)
			sim_min_effect = strtod(argv[++i], NULL);
		else if (strcmp(argv[i], "--verbose") == 0)
			sim_verbose = 1;
		else if (strcmp(argv[i], "--rounds") == 0)
			rounds = 1;
		else if (strcmp(argv[i], "--slots") == 0 &&
		    i + 1 < (size_t)argc)
			sim_slots = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--untimed") == 0)
			sim_untimed = 1;
		else if (strcmp(argv[i], "--trace") == 0 &&
		    i + 1 < (size_t)argc)
			sim_trace = strtol(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--list") == 0) {
			for (i = 0; i < NR_SCENARIOS; i++)
				printf("%-14s %s\n", scenarios[i].name,
				    scenarios[i].what);
			return 0;
		} else {
			fprintf(stderr, "usage: bisect-sim [--trials N] "
			    "[--scenario NAME] [--seed S] [--list] "
			    "[--max-runs N] [--initial-runs N] "
			    "[--min-effect PCT] [--untimed] [--verbose] "
			    "[--rounds] [--slots N] "
			    "[--trace TRIAL]"
			    "\n");
			return 2;
		}
	}
	if (trials == 0)
		trials = 1;
	printf("bisect-sim: %zu trials per scenario, seed %lu; runs are the "
	    "median, 90th, 99th percentile and most of any trial, builds the "
	    "median and most, peak (the most samples of one commit, the ends "
	    "apart) the median and 90th percentile\n", trials, seed);
	for (i = 0; i < NR_SCENARIOS; i++) {
		if (rounds || (only != NULL &&
		    strcmp(only, scenarios[i].name) != 0))
			continue;
		scenario_run(&scenarios[i], trials, seed);
		any = 1;
	}
	if (rounds || only == NULL) {
		rounds_report(trials, seed);
		any = 1;
	}
	if (!any) {
		fprintf(stderr, "bisect-sim: no scenario '%s'\n", only);
		return 2;
	}
	return 0;
}
