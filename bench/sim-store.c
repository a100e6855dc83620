/*
 * The samples of one bisection in bench/bisect-sim: each commit's runs
 * with their times and boots, taken a batch at a time as bisectd/dispatch.c
 * orders them, disturbed runs set aside and run again as bisectd/worker.c
 * does, and the boot names of the trial.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

/* boot names, interned for the trial: "none-m0".., "boot-1".. */
static char	**boot_names;
static size_t	  nr_boot_names, alloc_boot_names;

const char *
sim_store_boot_name(const char *prefix, unsigned k)
{
	char	buf[32];

	snprintf(buf, sizeof buf, "%s-%u", prefix, k);
	ALLOC_GROW(boot_names, nr_boot_names, alloc_boot_names);
	boot_names[nr_boot_names] = xstrdup(buf);
	return boot_names[nr_boot_names++];
}

static void
sim_store_boot_names_free(void)
{
	size_t	i;

	for (i = 0; i < nr_boot_names; i++)
		free(boot_names[i]);
	free(boot_names);
	boot_names = NULL;
	nr_boot_names = alloc_boot_names = 0;
}

void
sim_store_init(struct sim_store *st, size_t nr)
{
	st->s = xcalloc(nr, sizeof *st->s);
	st->n = xcalloc(nr, sizeof *st->n);
	st->alloc = xcalloc(nr, sizeof *st->alloc);
	st->built = xcalloc(nr, 1);
	st->t = xcalloc(nr, sizeof *st->t);
	st->b = xcalloc(nr, sizeof *st->b);
	st->talloc = xcalloc(nr, sizeof *st->talloc);
}

void
sim_store_free(struct sim_store *st, size_t nr)
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
	sim_store_boot_names_free();
}

/*
 * One attempt at a run of commit x, with its time and boot: 0 when the
 * monitor flagged it disturbed and it is set aside (attempts: its
 * set-asides so far; the 4th disturbed attempt counts, as in
 * bisectd/worker.c), 1 when it counts.
 */
int
sim_store_run(struct sim_store *st, struct sim_noise *s,
    const struct sim_history *h, size_t x, const char *boot, unsigned attempts,
    struct sim_outcome *o)
{
	size_t	n = st->n[x];
	double	v;
	int	disturbed;

	o->runs++;
	v = sim_noise_sample(s, h->mean[x], n, &disturbed);
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
void
sim_store_batch(struct sim_store *st, struct sim_noise *s,
    const struct sim_history *h, const size_t *x, const size_t *n, size_t nr,
    struct sim_outcome *o)
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
			boot[k] = sim_store_boot_name("boot", ++s->boot);
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
		if (sim_store_run(st, s, h, x[k], boot[k], tries[i], o))
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

void
sim_store_take(struct sim_store *st, struct sim_noise *s,
    const struct sim_history *h, size_t x, size_t n, struct sim_outcome *o)
{
	sim_store_batch(st, s, h, &x, &n, 1, o);
}
