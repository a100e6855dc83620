/*
 * The synthetic histories of bench/bisect-sim: 1024 commits in a line or
 * a merge-heavy DAG, the culprits and each commit's true mean, the images
 * of the images scenarios (and their liar), the build failures around the
 * culprit, and the answer an ambiguous verdict should give.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect-sim.h"
#include "util/xalloc.h"

void
sim_history_free(struct sim_history *h)
{
	free(h->parent_store);
	free(h->commits);
	free(h->failed);
	free(h->mean);
	free(h->image);
	memset(h, 0, sizeof *h);
}

/* ancestors-or-self of x, into mark */
void
sim_history_ancestors(const struct sim_history *h, size_t x,
    unsigned char *mark)
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

/* n commits in a line after the good end 0 */
static void
sim_history_line(struct sim_history *h, size_t n)
{
	size_t	*par = h->parent_store, i;

	for (i = 0; i < n; i++) {
		h->commits[i].parents = par;
		if (i > 0) {
			*par++ = i - 1;
			h->commits[i].nr_parents = 1;
		}
	}
	h->nr = n;
	h->bad = n - 1;
}

/* mainline, topic branches forked from recent mainline and merged back */
static void
sim_history_dag(struct sim_history *h, size_t n, gsl_rng *rng)
{
	size_t	*par = h->parent_store, nr_main = 0, k;
	size_t	*main = xcalloc(n, sizeof *main);

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

/* culprits among the candidates 1..nr-1 (all are ancestors of bad), and
 * every commit's true mean */
static void
sim_history_culprits(struct sim_history *h, const struct sim_scenario *sc,
    gsl_rng *rng, unsigned char *mark)
{
	size_t	i, k;
	double	sd;

	h->nr_culprits = (size_t)sc->culprits;
	for (k = 0; k < h->nr_culprits; k++) {
		do
			h->culprit[k] = 1 + gsl_rng_uniform_int(rng, h->nr - 1);
		while (k == 1 && h->culprit[1] == h->culprit[0]);
	}
	h->mean = xcalloc(h->nr, sizeof *h->mean);
	for (i = 0; i < h->nr; i++)
		h->mean[i] = BASE;
	/* the noise's sd: the core's, or with the modes' spread */
	sd = sc->noise == BIMODAL && !sc->core ? sqrt(5) * SD : SD;
	for (k = 0; k < h->nr_culprits; k++) {
		/* the culprit's descendants: x has it among its ancestors */
		for (i = 0; i < h->nr; i++) {
			sim_history_ancestors(h, i, mark);
			if (mark[h->culprit[k]])
				h->mean[i] *= 1 - sc->effect_sd * sd;
		}
	}
}

/* the culprit's descendants share one image, the others another; the
 * liar, of its parent's image, reads bad (images 1) */
static void
sim_history_images(struct sim_history *h, const struct sim_scenario *sc,
    gsl_rng *rng, unsigned char *mark)
{
	size_t	liar, i;

	h->image = xcalloc(h->nr, sizeof *h->image);
	for (i = 0; i < h->nr; i++) {
		sim_history_ancestors(h, i, mark);
		h->image[i] = mark[h->culprit[0]] ? "bbbb" : "aaaa";
	}
	do
		liar = 1 + gsl_rng_uniform_int(rng, h->nr - 1);
	while (liar == h->culprit[0] || liar == h->bad ||
	    strcmp(h->image[liar], h->image[liar - 1]) != 0);
	if (sc->images == 1)
		h->mean[liar] = h->mean[h->bad];
}

/* each commit within 3 of the culprit fails half the time, the culprit
 * itself one time in five */
static void
sim_history_failures(struct sim_history *h, gsl_rng *rng)
{
	size_t	c = h->culprit[0], i;

	for (i = c >= 3 ? c - 3 : 1; i <= c + 3 && i < h->nr; i++) {
		if (i == h->bad)
			continue;
		if (gsl_rng_uniform(rng) < (i == c ? 0.2 : 0.5))
			h->failed[i] = 1;
	}
}

void
sim_history_make(struct sim_history *h, const struct sim_scenario *sc,
    gsl_rng *rng)
{
	size_t		 n = NR_COMMITS + 1;
	unsigned char	*mark;

	memset(h, 0, sizeof *h);
	h->commits = xcalloc(2 * n, sizeof *h->commits);
	h->parent_store = xcalloc(4 * n, sizeof *h->parent_store);
	if (!sc->dag)
		sim_history_line(h, n);
	else
		sim_history_dag(h, n, rng);
	mark = xcalloc(h->nr, 1);
	sim_history_culprits(h, sc, rng, mark);
	if (sc->images && h->nr_culprits > 0)
		sim_history_images(h, sc, rng, mark);
	h->failed = xcalloc(h->nr, 1);
	if (sc->build_fail && h->nr_culprits > 0)
		sim_history_failures(h, rng);
	free(mark);
}

/* the answer an AMBIGUOUS should give: the culprit with the untestable
 * commits next to it that no testable commit separates (linear only) */
void
sim_history_expected(const struct sim_history *h, size_t *lo, size_t *hi)
{
	size_t c = h->culprit[0];

	*lo = c;
	while (*lo > 1 && h->failed[*lo - 1])
		(*lo)--;
	*hi = c;
	while (h->failed[*hi] && *hi < h->bad)
		(*hi)++;
}
