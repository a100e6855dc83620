/*
 * The cost model of bench/bisect-sim --rounds (issue 13): the minutes a
 * bisection takes when builds, boots and runs cost time, on so many
 * machines and builders, with speculative builds or without, the runs
 * grouped on the machine free first or placed as bisectd places them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

const struct sim_cost_model	*sim_cost_active;
struct sim_cost_clock		 sim_cost_time;

void
sim_cost_start(struct sim_cost_clock *c, size_t nr)
{
	free(c->spec);
	free(c->wanted);
	memset(c, 0, sizeof *c);
	c->spec = xcalloc(nr, 1);
	c->wanted = xcalloc(nr, 1);
}

static unsigned
sim_cost_first_free(const double *t, unsigned n)
{
	unsigned	i, best = 0;

	for (i = 1; i < n; i++)
		if (t[i] < t[best])
			best = i;
	return best;
}

/* the j-th of the run seqs s0..s0+runs-1, ordered by position (seq mod
 * machines), then seq */
static size_t
sim_cost_seq(const struct sim_cost_model *m, size_t s0, size_t runs,
    size_t j)
{
	size_t	pos, y, seq, s1 = s0 + runs, c0;

	for (pos = 0, y = 0, seq = (size_t)-1;
	    pos < m->machines && seq == (size_t)-1; pos++) {
		c0 = s0 % m->machines <= pos ? s0 - s0 % m->machines + pos :
		    s0 - s0 % m->machines + m->machines + pos;
		for (; c0 < s1; c0 += m->machines, y++)
			if (y == j) {
				seq = c0;
				break;
			}
	}
	return seq;
}

/*
 * One batch from c->now: need[k] builds commit k's image first (on the
 * builders, in order), then runs[k] runs of it. A machine that comes free
 * runs the commit it has booted while that has runs left, else boots the
 * commit ready first (the most runs left on a tie). Returns when the last
 * run ends (or the last build, without runs).
 */
static double
sim_cost_batch(struct sim_cost_clock *c, const int *need, const size_t *first,
    const size_t *runs, size_t nr)
{
	const struct sim_cost_model	*m = sim_cost_active;
	double			 mach[COST_MAX], *ready, end = c->now, t, bt;
	double			 held;
	size_t			*left, booted[COST_MAX], k, best, todo = 0;
	size_t			 j, longest = 0, seq;
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
			b = sim_cost_first_free(c->builder, m->builders);
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
				seq = sim_cost_seq(m, first[k], runs[k], j);
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
		i = sim_cost_first_free(mach, m->machines);
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
void
sim_cost_round(struct sim_cost_clock *c, const struct sim_history *h,
    const struct sim_store *st, const struct bisect_result *res,
    struct sim_outcome *o)
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
	c->now = sim_cost_batch(c, need, first, runs, res->nr_wants);
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
void
sim_cost_speculate(struct sim_cost_clock *c, struct sim_history *h,
    struct sim_store *st, const struct bisect_result *res,
    struct sim_outcome *o)
{
	const struct sim_cost_model	*m = sim_cost_active;
	size_t				 k, x;
	unsigned			 b;
	double				 t;

	if (!m->speculate)
		return;
	for (k = 0; k < res->nr_builds; k++) {
		x = res->builds[k];
		if (st->built[x])
			continue;
		b = sim_cost_first_free(c->builder, m->builders);
		t = c->builder[b] > c->start ? c->builder[b] : c->start;
		if (t + m->build > c->now)
			break;
		c->builder[b] = t + m->build;
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
void
sim_cost_finish(struct sim_cost_clock *c, const struct sim_history *h,
    struct sim_outcome *o)
{
	size_t	i;
	int	need = 1;
	size_t	first = 0;

	if (o->revert_runs > 0)
		c->now = sim_cost_batch(c, &need, &first, &o->revert_runs, 1);
	o->minutes = c->now;
	for (i = 0; i < h->nr; i++)
		o->wasted += c->spec[i] && !c->wanted[i];
}

/* A step of git bisect run: nr commits built, then r runs of each. */
void
sim_cost_fixed(unsigned r, size_t nr)
{
	int	need[2] = { 1, 1 };
	size_t	runs[2] = { r, r }, first[2] = { 0, 0 };

	sim_cost_time.now = sim_cost_batch(&sim_cost_time, need, first, runs,
	    nr);
}
