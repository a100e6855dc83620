/*
 * The scenarios of bench/bisect-sim, one table each: a trial makes a
 * history, then runs the driver, fixed-repeat bisection at 5, 10 and 20
 * runs a step and, with several machines, the driver not told them, each
 * on the same history and draws, and the table sums up the trials.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bisect-sim.h"

const struct sim_scenario sim_scenarios[] = {
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

const size_t	sim_nr_scenarios = sizeof sim_scenarios /
    sizeof sim_scenarios[0];

static const unsigned	sim_scenario_fixed[3] = { 5, 10, 20 };

/*
 * Methods: the driver, the fixed repeats, and with several machines the
 * driver not told the machines ("pooled") last; each method of a trial
 * draws from the same seed, so the driver and pooled see the same runs.
 */
static void
sim_scenario_trials(const struct sim_scenario *sc, size_t trials,
    unsigned long seed, struct sim_tally *t, size_t methods)
{
	static const char	*mnames[] = { "m0", "m1", "m2" };
	struct sim_history	 h;
	struct sim_noise	 s;
	struct sim_outcome	 o;
	gsl_rng			*hist_rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t			 i, j, bad;

	memset(&s, 0, sizeof s);
	s.machines = sc->machines;
	for (j = 0; j < MAX_MACHINES; j++)
		s.factor[j] = 1 + sc->offset[j] * SD;
	for (i = 0; i < MAX_SAMPLES; i++)
		sim_noise_machine[i] = mnames[i % (sc->machines ? sc->machines :
		    1)];
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	s.noise = sc->noise;
	for (i = 0; i < trials; i++) {
		gsl_rng_set(hist_rng, seed * 1000003 + i);
		sim_history_make(&h, sc, hist_rng);
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
				sim_driver_run(&h, sc, &s, &o, i, j == 0);
			else
				sim_fixed_run(&h, sc, &s,
				    sim_scenario_fixed[j - 1], &o);
			sim_tally_add(&t[j], &o, i, j == 0 || j == 4);
		}
		sim_history_free(&h);
	}
	gsl_rng_free(s.rng);
	gsl_rng_free(hist_rng);
}

/* the driver's lines under its row: rounds, revert checks, set-asides */
static void
sim_scenario_notes(const struct sim_scenario *sc, size_t trials,
    const struct sim_tally *t, unsigned slots)
{
	size_t	sum = 0, le6 = 0, i;

	if (slots > 1 && trials > 0) {
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
}

static void
sim_scenario_print(const struct sim_scenario *sc, size_t trials,
    struct sim_tally *t, size_t methods, double secs)
{
	unsigned	slots = sim_slots ? sim_slots : sc->slots;
	char		name[32];
	size_t		j;

	printf("%s: %s; %zu trials (%.1f s)\n", sc->name, sc->what, trials,
	    secs);
	printf("  settings: max_runs %u, initial_runs %u, min_effect_pct "
	    "%g, slots %u\n", sim_max_runs, sim_initial_runs,
	    sc->min_effect != 0 ? sc->min_effect : sim_min_effect,
	    slots ? slots : 1);
	printf("  %-10s %7s  %5s  %5s  %5s  %5s  %5s  %4s  %4s  %4s  %4s  %5s  "
	    "%6s  %5s%s\n", "method", "right", "runs", "p90", "p99", "max",
	    "builds", "max", "peak", "p90", "cut", "wrong", "unconf", "incon",
	    slots > 1 ? "  rounds" : "");
	sim_tally_print("driver", &t[0], trials, slots > 1);
	sim_scenario_notes(sc, trials, t, slots);
	if (methods > 4)
		sim_tally_print("pooled", &t[4], trials, slots > 1);
	for (j = 1; j < 4; j++) {
		snprintf(name, sizeof name, "fixed-%u",
		    sim_scenario_fixed[j - 1]);
		sim_tally_print(name, &t[j], trials, slots > 1);
	}
	printf("  samples: times and boots %s; runs of a round interleaved "
	    "at random\n", sim_untimed ? "withheld from the driver" :
	    "given to the driver");
	fflush(stdout);
}

void
sim_scenario_run(const struct sim_scenario *sc, size_t trials,
    unsigned long seed)
{
	struct sim_tally	t[5];
	size_t			j, methods = sc->machines > 1 ? 5 : 4;
	double			t0 = (double)clock();

	for (j = 0; j < methods; j++)
		sim_tally_init(&t[j], trials);
	sim_scenario_trials(sc, trials, seed, t, methods);
	sim_scenario_print(sc, trials, t, methods,
	    ((double)clock() - t0) / CLOCKS_PER_SEC);
	for (j = 0; j < methods; j++)
		sim_tally_release(&t[j]);
}
