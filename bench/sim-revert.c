/*
 * The revert check of bench/bisect-sim, as bisectd runs it: the found
 * culprit reverted on top of the bad end, its runs drawn at bad's level
 * with the culprit's step taken out, and bisect_revert_decide asked one
 * look at a time whether the revert restores the good level.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "bench/bisect-sim.h"
#include "stats/bisect-revert.h"
#include "util/xalloc.h"

void
sim_revert_reset(struct sim_revert *rv)
{
	free(rv->x);
	free(rv->t);
	free(rv->boots);
	memset(rv, 0, sizeof *rv);
	rv->culprit = (size_t)-1;
}

/* one attempt after another until one counts, as sim_store_run sets
 * aside */
static double
sim_revert_sample(struct sim_noise *s, double level, size_t k,
    struct sim_outcome *o)
{
	unsigned	tries = 0;
	int		disturbed;
	double		v;

	for (;;) {
		v = sim_noise_sample(s, level, k, &disturbed);
		o->runs++;
		o->revert_runs++;
		if (!disturbed || tries++ >= SIM_MAX_SET_ASIDE)
			return v;
		o->set_aside++;
	}
}

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
int
sim_revert_look(const struct sim_history *h, struct sim_noise *s,
    struct sim_store *st, struct bisect_result *res, struct sim_outcome *o,
    struct sim_revert *rv)
{
	struct bisect_revert_input	 in;
	struct bisect_revert		 v;
	size_t				 c = res->culprits[0], i, k, need;
	size_t				 first = st->n[h->bad];
	double				 level = h->mean[h->bad], after;
	const char			*boot = "none-m0", *bboot = "none-m0";

	if (rv->culprit != c) {
		sim_revert_reset(rv);
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
		boot = sim_store_boot_name("boot", ++s->boot);
		bboot = sim_store_boot_name("boot", ++s->boot);
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
					while (!sim_store_run(st, s, h, h->bad,
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
