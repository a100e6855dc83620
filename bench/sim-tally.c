/*
 * The tallies of bench/bisect-sim: each method's outcomes over the trials
 * of a scenario (right, cut, wrong, and runs, builds, rounds and peak per
 * trial), their quantiles, and the table row that prints them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

static int
sim_tally_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* the q quantile of v (sorted in place) */
size_t
sim_tally_quantile(size_t *v, size_t n, double q)
{
	size_t	i;

	qsort(v, n, sizeof *v, sim_tally_cmp_size);
	i = (size_t)ceil(q * (double)n) - 1;
	if (i >= n)
		i = n - 1;
	return v[i];
}

void
sim_tally_init(struct sim_tally *t, size_t trials)
{
	memset(t, 0, sizeof *t);
	t->runs = xcalloc(trials, sizeof *t->runs);
	t->builds = xcalloc(trials, sizeof *t->builds);
	t->rounds = xcalloc(trials, sizeof *t->rounds);
	t->peak = xcalloc(trials, sizeof *t->peak);
}

void
sim_tally_release(struct sim_tally *t)
{
	free(t->runs);
	free(t->builds);
	free(t->rounds);
	free(t->peak);
}

/* trial i's outcome; driver: of the driver, else of fixed repeats */
void
sim_tally_add(struct sim_tally *t, const struct sim_outcome *o, size_t i,
    int driver)
{
	t->right += o->right;
	t->cut += o->cut;
	t->set_aside += o->set_aside;
	if (driver) {
		t->wrong += o->status == BISECT_FOUND && !o->right;
		t->unconfirmed += o->status == BISECT_UNCONFIRMED;
		t->inconclusive += o->status == BISECT_INCONCLUSIVE;
		t->dup += o->dup;
		t->revert_runs += o->revert_runs;
	} else
		t->wrong += !o->right;
	t->runs[i] = o->runs;
	t->builds[i] = o->builds;
	t->rounds[i] = o->rounds;
	t->peak[i] = o->peak;
}

void
sim_tally_print(const char *method, struct sim_tally *t, size_t trials,
    int rounds)
{
	printf("  %-10s %6.1f%%  %5zu  %5zu  %5zu  %5zu  %5zu  %4zu  %4zu  "
	    "%4zu", method, 100.0 * (double)t->right / (double)trials,
	    sim_tally_quantile(t->runs, trials, 0.5),
	    sim_tally_quantile(t->runs, trials, 0.9),
	    sim_tally_quantile(t->runs, trials, 0.99),
	    sim_tally_quantile(t->runs, trials, 1),
	    sim_tally_quantile(t->builds, trials, 0.5),
	    sim_tally_quantile(t->builds, trials, 1),
	    sim_tally_quantile(t->peak, trials, 0.5),
	    sim_tally_quantile(t->peak, trials, 0.9));
	printf("  %4zu  %5zu  %6zu  %5zu", t->cut, t->wrong, t->unconfirmed,
	    t->inconclusive);
	if (rounds)
		printf("  %5zu", sim_tally_quantile(t->rounds, trials, 0.5));
	printf("\n");
}
