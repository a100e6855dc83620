/*
 * The bisection simulator of DESIGN §4: the real bisect_decide driven
 * through synthetic bisections, against fixed-repeat bisection on the same
 * histories in the same run, one table per scenario; this file reads the
 * options, the sim-*.c files beside it do the rest (docs/design.md, "File
 * notes", has the noise models, the files and the usage).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"

unsigned	sim_max_runs = 40;
unsigned	sim_initial_runs = 3;
double		sim_min_effect = 1.0;
unsigned	sim_slots;
int		sim_verbose;
int		sim_untimed;
long		sim_trace = -1;

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
			for (i = 0; i < sim_nr_scenarios; i++)
				printf("%-14s %s\n", sim_scenarios[i].name,
				    sim_scenarios[i].what);
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
	for (i = 0; i < sim_nr_scenarios; i++) {
		if (rounds || (only != NULL &&
		    strcmp(only, sim_scenarios[i].name) != 0))
			continue;
		sim_scenario_run(&sim_scenarios[i], trials, seed);
		any = 1;
	}
	if (rounds || only == NULL) {
		sim_rounds_report(trials, seed);
		any = 1;
	}
	if (!any) {
		fprintf(stderr, "bisect-sim: no scenario '%s'\n", only);
		return 2;
	}
	return 0;
}
