/*
 * The driver side of bench/bisect-sim: the real bisect_decide asked round
 * after round on a synthetic history, each round's wants built and run
 * through the store (and the cost model with --rounds), the revert check
 * run when it finds a culprit, and its answer judged against the truth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

/* what bisectd gives the driver, and every commit as yet unknown */
static void
sim_driver_input(struct bisect_input *in, struct sim_history *h,
    const struct sim_scenario *sc, const size_t *good)
{
	size_t	i;

	memset(in, 0, sizeof *in);
	in->commits = h->commits;
	in->nr_commits = h->nr;
	in->bad = h->bad;
	in->good = good;
	in->nr_good = 1;
	in->direction = 1;
	in->min_effect_pct = sc->min_effect != 0 ? sc->min_effect :
	    sim_min_effect;
	in->slots = sim_slots ? sim_slots : sc->slots;
	in->initial_runs = INITIAL_RUNS;
	in->max_runs = MAX_RUNS;
	for (i = 0; i < h->nr; i++) {
		h->commits[i].build = BISECT_BUILD_UNKNOWN;
		h->commits[i].samples = NULL;
		h->commits[i].nr_samples = 0;
		h->commits[i].machines = NULL;
		h->commits[i].image = NULL;
	}
}

/* the samples so far, as the driver sees them */
static void
sim_driver_samples(struct sim_history *h, const struct sim_scenario *sc,
    const struct sim_store *st, int blocked)
{
	size_t	i;

	for (i = 0; i < h->nr; i++) {
		h->commits[i].samples = st->s[i];
		h->commits[i].nr_samples = st->n[i];
		h->commits[i].machines = blocked && sc->machines > 1 &&
		    st->n[i] <= MAX_SAMPLES ? sim_noise_machine : NULL;
		h->commits[i].times = sim_untimed ? NULL : st->t[i];
		h->commits[i].boots = sim_untimed ? NULL :
		    (const char *const *)st->b[i];
	}
}

/*
 * The round the driver asked for: its builds (a failed one is known at
 * once), then its runs as one batch; bx and bn hold h->nr entries.
 */
static void
sim_driver_round(struct sim_history *h, struct sim_noise *s,
    struct sim_store *st, const struct bisect_result *res,
    struct sim_outcome *o, size_t *bx, size_t *bn)
{
	size_t	nb = 0, k, x;

	for (k = 0; k < res->nr_wants; k++) {
		x = res->wants[k].commit;
		if (h->failed[x]) {
			if (!st->built[x])
				o->builds++;
			st->built[x] = 1;
			h->commits[x].build = BISECT_BUILD_FAILED;
			continue;
		}
		h->commits[x].build = BISECT_BUILD_OK;
		if (h->image != NULL)
			h->commits[x].image = h->image[x];
		bx[nb] = x;
		bn[nb++] = res->wants[k].samples;
	}
	if (sim_cost_active != NULL)
		sim_cost_round(&sim_cost_time, h, st, res, o);
	sim_store_batch(st, s, h, bx, bn, nb, o);
	if (sim_cost_active != NULL)
		sim_cost_speculate(&sim_cost_time, h, st, res, o);
}

/*
 * With several slots bisectd asks a round's builds alone while any of
 * its runs is at a commit not built yet, then asks the driver again with
 * the images known (bisectd/bisection.c, bisection_builds_first): the
 * same round, its builds first. 1 when it built them.
 */
static int
sim_driver_builds_first(struct sim_history *h, const struct bisect_input *in,
    struct sim_noise *s, struct sim_store *st,
    const struct bisect_result *res, struct sim_outcome *o, size_t *bx,
    size_t *bn)
{
	struct bisect_result	 first = *res;
	struct bisect_want	*w;
	size_t			 k, n = 0;
	int			 runs = 0;

	if (in->slots <= 1)
		return 0;
	w = xcalloc(res->nr_wants + 1, sizeof *w);
	for (k = 0; k < res->nr_wants; k++) {
		if (st->built[res->wants[k].commit])
			continue;
		runs |= res->wants[k].samples > 0;
		w[n].commit = res->wants[k].commit;
		w[n++].samples = 0;
	}
	if (runs) {
		first.wants = w;
		first.nr_wants = n;
		first.builds = NULL;
		first.nr_builds = 0;
		sim_driver_round(h, s, st, &first, o, bx, bn);
	}
	free(w);
	return runs;
}

static void
sim_driver_trace_round(const struct sim_outcome *o,
    const struct bisect_result *res)
{
	size_t	k;

	fprintf(stderr, "round %zu: %zu left (%u steps):", o->rounds,
	    res->remaining, res->steps);
	for (k = 0; k < res->nr_wants; k++)
		fprintf(stderr, " %zu:%u", res->wants[k].commit,
		    res->wants[k].samples);
	fprintf(stderr, "\n");
}

/* whether the driver's final answer is the truth */
static int
sim_driver_right(const struct sim_history *h, const struct sim_scenario *sc,
    const struct bisect_result *res)
{
	size_t	lo, hi, k;
	int	right = 0, seen = 0;

	switch (h->nr_culprits) {
	case 0:
		right = res->status == BISECT_NO_CHANGE;
		break;
	case 1:
		right = res->status == BISECT_FOUND &&
		    res->nr_culprits == 1 && res->culprits[0] == h->culprit[0];
		if (sc->build_fail && res->status == BISECT_AMBIGUOUS) {
			sim_history_expected(h, &lo, &hi);
			right = res->nr_candidates == hi - lo + 1;
			for (k = 0; k < res->nr_candidates; k++)
				if (res->candidates[k] < lo ||
				    res->candidates[k] > hi)
					right = 0;
		}
		break;
	case 2:
		if (res->status == BISECT_FOUND) {
			for (k = 0; k < res->nr_culprits; k++)
				if (res->culprits[k] == h->culprit[0] ||
				    res->culprits[k] == h->culprit[1])
					seen++;
			right = seen == 2;
		}
		break;
	}
	return right;
}

/* --verbose and --trace: the answer against the truth, on stderr */
static void
sim_driver_print(const struct sim_history *h, const struct sim_scenario *sc,
    const struct sim_store *st, const struct bisect_result *res,
    const struct sim_outcome *o, size_t trial, int blocked)
{
	double	m;
	size_t	j, k;

	fprintf(stderr, "trial %zu%s: %s%s", trial, sc->machines > 1 ?
	    blocked ? " (driver)" : " (pooled)" : "",
	    bisect_status_name(o->status), o->revert_contradicts ?
	    " (the revert check)" : res->status == BISECT_UNCONFIRMED ?
	    " (the fresh check or the image)" : "");
	for (k = 0; k < res->nr_culprits; k++)
		fprintf(stderr, " %zu", res->culprits[k]);
	if (res->nr_candidates) {
		fprintf(stderr, " candidates");
		for (k = 0; k < res->nr_candidates; k++)
			fprintf(stderr, " %zu", res->candidates[k]);
	}
	fprintf(stderr, "; truth");
	for (k = 0; k < h->nr_culprits; k++)
		fprintf(stderr, " %zu", h->culprit[k]);
	fprintf(stderr, " (runs %zu, builds %zu, change %.2f%%, "
	    "explained %.0f%%)\n", o->runs, o->builds, res->change_pct,
	    res->explained_pct);
	if ((long)trial != sim_trace)
		return;
	for (k = 0; k < h->nr; k++) {
		if (st->n[k] < 10)
			continue;
		for (m = 0, j = 0; j < st->n[k]; j++)
			m += st->s[k][j];
		fprintf(stderr, "  %zu: n %zu mean %.1f true %.1f\n", k,
		    st->n[k], m / (double)st->n[k], h->mean[k]);
	}
}

/* blocked: tell the driver which machine took each sample */
void
sim_driver_run(struct sim_history *h, const struct sim_scenario *sc,
    struct sim_noise *s, struct sim_outcome *o, size_t trial, int blocked)
{
	struct sim_store	 st;
	struct bisect_input	 in;
	struct bisect_result	 res;
	struct sim_revert	 rv;
	size_t			 good = 0, i;
	size_t			*bx = xcalloc(h->nr, sizeof *bx);
	size_t			*bn = xcalloc(h->nr, sizeof *bn);
	int			 done = 0;

	memset(o, 0, sizeof *o);
	memset(&rv, 0, sizeof rv);
	sim_revert_reset(&rv);
	sim_store_init(&st, h->nr);
	sim_driver_input(&in, h, sc, &good);
	while (!done && o->rounds < 5000) {
		sim_driver_samples(h, sc, &st, blocked);
		bisect_decide(&res, &in);
		if (res.status == BISECT_FOUND && res.nr_culprits > 0 &&
		    sim_revert_look(h, s, &st, &res, o, &rv)) {
			/* a look of the revert check: the driver again */
			bisect_result_release(&res);
			continue;
		}
		if (res.status != BISECT_CONTINUE) {
			o->cut = res.budget_spent;
			done = 1;
			break;
		}
		if (sim_driver_builds_first(h, &in, s, &st, &res, o, bx, bn)) {
			bisect_result_release(&res);
			continue;
		}
		o->rounds++;
		if ((long)trial == sim_trace)
			sim_driver_trace_round(o, &res);
		sim_driver_round(h, s, &st, &res, o, bx, bn);
		bisect_result_release(&res);
	}
	for (i = 0; i < h->nr; i++)
		if (i != good && i != h->bad && st.n[i] > o->peak)
			o->peak = st.n[i];
	free(bx);
	free(bn);
	sim_revert_reset(&rv);
	if (!done) {
		o->right = 0;
		sim_store_free(&st, h->nr);
		return;
	}
	if (sim_cost_active != NULL)
		sim_cost_finish(&sim_cost_time, h, o);
	o->status = res.status;
	o->right = sim_driver_right(h, sc, &res);
	if ((sim_verbose && !o->right) || (long)trial == sim_trace)
		sim_driver_print(h, sc, &st, &res, o, trial, blocked);
	bisect_result_release(&res);
	sim_store_free(&st, h->nr);
}
