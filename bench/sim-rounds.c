/*
 * The tables of bench/bisect-sim --rounds (issue 13): rounds by slots,
 * then time to culprit under the cost model, the driver against
 * fixed-repeat bisection on the same machines and builders, with and
 * without speculative builds, the runs grouped or placed as bisectd does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

/* one row of the tables: a method on so many machines and builders */
struct sim_rounds_method {
	const char	*name;
	unsigned	 slots;		/* 0: fixed-repeat, fixed runs a step */
	unsigned	 fixed;
	unsigned	 machines;
	unsigned	 builders;
	int		 speculate;
	int		 placed;	/* struct sim_cost_model.placed */
};

static void
sim_rounds_method_run(const struct sim_rounds_method *rm, size_t trials,
    unsigned long seed, double *out_minutes, const char *label,
    double base1, double base2)
{
	struct sim_scenario	 sc = sim_scenarios[0];
	struct sim_cost_model	 cm = { rm->machines, rm->builders, 10, 1, 5,
				    rm->speculate, rm->placed };
	struct sim_history	 h;
	struct sim_noise	 s;
	struct sim_outcome	 o;
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
	sim_cost_active = &cm;
	for (i = 0; i < trials; i++) {
		gsl_rng_set(hist_rng, seed * 1000003 + i);
		sim_history_make(&h, &sc, hist_rng);
		gsl_rng_set(s.rng, (seed * 1000003 + i) * 7 + 1);
		s.clock = 0;
		sim_cost_start(&sim_cost_time, h.nr);
		if (rm->slots)
			sim_driver_run(&h, &sc, &s, &o, i, 1);
		else
			sim_fixed_run(&h, &sc, &s, rm->fixed, &o);
		right += o.right;
		cut += o.cut;
		rounds[i] = o.rounds;
		runs[i] = o.runs;
		builds[i] = o.builds;
		wasted[i] = o.wasted;
		mins[i] = (size_t)ceil(o.minutes);
		sim_history_free(&h);
	}
	sim_cost_active = NULL;
	sim_slots = saved;
	med = (double)sim_tally_quantile(mins, trials, 0.5);
	printf("  %-22s %5u %5u %6.1f%%  %4zu %4zu  %5zu  %5zu  %5zu  %6.2f",
	    label, rm->machines, rm->builders,
	    100.0 * (double)right / (double)trials,
	    rm->slots ? sim_tally_quantile(rounds, trials, 0.5) : 0,
	    rm->slots ? sim_tally_quantile(rounds, trials, 0.9) : 0,
	    sim_tally_quantile(runs, trials, 0.5),
	    sim_tally_quantile(builds, trials, 0.5),
	    sim_tally_quantile(wasted, trials, 0.5), med / 60);
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
sim_rounds_header(const char *extra)
{
	printf("  %-22s %5s %5s %7s  %4s %4s  %5s  %5s  %5s  %6s  %4s%s\n",
	    "method", "mach", "build", "right", "rnds", "p90", "runs",
	    "builds", "waste", "hours", "cut", extra);
}

/*
 * --rounds: gauss-1.5 at 1, 2, 4 and 8 slots (as many machines, 2
 * builders, speculation on), then the cost model of issue 13 at 4
 * machines: the driver on one machine with one builder, fixed-repeat
 * bisection with 10 runs per step spread over the 4 machines, and the
 * driver with 4 slots, with and without speculative builds; once with
 * the runs grouped on the machine free first, once placed and ordered
 * as bisectd does (struct sim_cost_model.placed).
 */
void
sim_rounds_report(size_t trials, unsigned long seed)
{
	static const unsigned	 slots[] = { 1, 2, 4, 8 };
	struct sim_rounds_method	 rm = { 0 };
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
	sim_rounds_header("");
	for (i = 0; i < sizeof slots / sizeof slots[0]; i++) {
		rm.slots = slots[i];
		rm.machines = slots[i];
		rm.builders = 2;
		rm.speculate = 1;
		snprintf(label, sizeof label, "driver, %u slot%s", slots[i],
		    slots[i] == 1 ? "" : "s");
		sim_rounds_method_run(&rm, trials, seed, NULL, label, 0, 0);
	}
	printf("cost: time to culprit, gauss-1.5, 1024 commits; build 10 min, "
	    "boot 1 min, run 5 min; %zu trials, seed %lu\n", trials, seed);
	printf("  settings: max_runs %u, initial_runs %u, min_effect_pct %g; "
	    "x1: against the driver on 1 machine with 1 builder, x10: "
	    "against fixed-10 on the same machines and builders\n",
	    sim_max_runs, sim_initial_runs, sim_min_effect);
	printf("  runs on the machine free first, grouped by commit, a boot "
	    "per commit a machine takes in a batch\n");
	sim_rounds_header("     x1    x10");
	rm.slots = 1;
	rm.machines = 1;
	rm.builders = 1;
	rm.speculate = 0;
	sim_rounds_method_run(&rm, trials, seed, &one, "driver, 1 slot", 0, 0);
	rm.fixed = 10;
	for (b = 1; b <= 4; b++) {
		rm.placed = b > 2;
		if (b == 3) {
			printf("  placed as bisectd places them: run seq on "
			    "machine seq %% 4, a batch held until its commits "
			    "are built, its runs interleaved on each machine, "
			    "a boot at every change of commit\n");
			sim_rounds_header("     x1    x10");
			rm.slots = 1;
			rm.machines = 1;
			rm.builders = 1;
			rm.speculate = 0;
			sim_rounds_method_run(&rm, trials, seed, &one,
			    "driver, 1 slot", 0, 0);
		}
		rm.slots = 0;
		rm.machines = 4;
		rm.builders = 2 - b % 2;
		rm.speculate = 0;
		rm.fixed = 20;
		sim_rounds_method_run(&rm, trials, seed, NULL, "fixed-20", one,
		    0);
		rm.fixed = 10;
		sim_rounds_method_run(&rm, trials, seed, &fixed, "fixed-10", one,
		    0);
		rm.slots = 4;
		sim_rounds_method_run(&rm, trials, seed, NULL,
		    "driver, 4 slots", one, fixed);
		rm.speculate = 1;
		sim_rounds_method_run(&rm, trials, seed, NULL,
		    "driver, 4 slots, spec", one, fixed);
	}
	fflush(stdout);
}
