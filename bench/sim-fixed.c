/*
 * The baseline of bench/bisect-sim: plain fixed-repeat bisection, git
 * bisect run with a script that takes r runs of a commit and compares
 * their mean with the threshold half-way between the ends' means, on the
 * same histories and noise as the driver.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

static double
sim_fixed_mean(const double *x, size_t n)
{
	double	s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

/*
 * git bisect run with r runs per step: the ends measured first for the
 * threshold, then git's midpoint (bisect_midpoint over what is left),
 * untestable commits skipped as with `git bisect skip`.
 */
void
sim_fixed_run(struct sim_history *h, const struct sim_scenario *sc,
    struct sim_noise *s, unsigned r, struct sim_outcome *o)
{
	struct sim_store	 st;
	unsigned char		*cand, *mark, *skip;
	size_t			*map, *back, *pstore, n, i, k, x, lo, hi;
	struct bisect_commit	*sub;
	double			 thr, mg, mb;

	memset(o, 0, sizeof *o);
	sim_store_init(&st, h->nr);
	cand = xcalloc(h->nr, 1);
	mark = xcalloc(h->nr, 1);
	skip = xcalloc(h->nr, 1);
	map = xcalloc(h->nr, sizeof *map);
	back = xcalloc(h->nr, sizeof *back);
	sub = xcalloc(h->nr, sizeof *sub);
	pstore = xcalloc(4 * h->nr, sizeof *pstore);

	sim_store_take(&st, s, h, 0, r, o);
	sim_store_take(&st, s, h, h->bad, r, o);
	if (sim_cost_active != NULL)
		sim_cost_fixed(r, 2);
	mg = sim_fixed_mean(st.s[0], r);
	mb = sim_fixed_mean(st.s[h->bad], r);
	thr = (mg + mb) / 2;
	sim_history_ancestors(h, h->bad, cand);
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
			sim_history_expected(h, &lo, &hi);
			o->right = sc->build_fail;
			for (k = 0; k < n; k++)
				if (back[k] < lo || back[k] > hi)
					o->right = 0;
			if (n != hi - lo + 1)
				o->right = 0;
			goto out;
		}
		x = back[x];
		sim_store_take(&st, s, h, x, r, o);
		if (sim_cost_active != NULL)
			sim_cost_fixed(r, 1);
		o->peak = r;
		sim_history_ancestors(h, x, mark);
		if (sim_fixed_mean(st.s[x], r) < thr) {
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
	o->minutes = sim_cost_time.now;
	free(cand);
	free(mark);
	free(skip);
	free(map);
	free(back);
	free(sub);
	free(pstore);
	sim_store_free(&st, h->nr);
}
