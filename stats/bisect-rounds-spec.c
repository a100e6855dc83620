/*
 * Speculative builds for k-point rounds (issue 13, docs/bisection.md,
 * "Rounds over several slots"): while a round's runs are in flight, the
 * commits the next round most likely tests, under each outcome of this
 * one weighted by its probability, are named as builds to start, so that
 * builds overlap runs.
 */
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-rounds.h"
#include "util/xalloc.h"

static void
bisect_rounds_spec_mark(size_t a, void *payload)
{
	((unsigned char *)payload)[a] = 1;
}

static const double *bisect_rounds_spec_cdf;

static int
bisect_rounds_spec_cmp_cdf(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;

	if (bisect_rounds_spec_cdf[x] != bisect_rounds_spec_cdf[y])
		return bisect_rounds_spec_cdf[x] < bisect_rounds_spec_cdf[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static const double *bisect_rounds_spec_score;

static int
bisect_rounds_spec_cmp_score(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;

	if (bisect_rounds_spec_score[x] != bisect_rounds_spec_score[y])
		return bisect_rounds_spec_score[x] > bisect_rounds_spec_score[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

size_t
bisect_rounds_spec(size_t *out, size_t max, struct bisect_graph *g,
    const double *post, const unsigned char *eligible,
    const unsigned char *built, const size_t *points, size_t nr_points,
    unsigned k, size_t nr)
{
	double		*cdf = xcalloc(nr + 1, sizeof *cdf);
	double		*cond = xcalloc(nr + 1, sizeof *cond);
	double		*score = xcalloc(nr + 1, sizeof *score);
	unsigned char	*anc = xcalloc((nr_points + 1) * (nr + 1), 1);
	unsigned char	*elig = xcalloc(nr + 1, 1);
	unsigned char	*point = xcalloc(nr + 1, 1);
	size_t		*pts = xcalloc(nr_points + 1, sizeof *pts);
	size_t		*next = xcalloc(k + 1, sizeof *next);
	size_t		*cand = xcalloc(nr + 1, sizeof *cand);
	size_t		 s, i, j, n, nc = 0;
	double		 w;
	int		 in;

	bisect_graph_sums(g, post, cdf);
	memcpy(pts, points, nr_points * sizeof *pts);
	bisect_rounds_spec_cdf = cdf;
	qsort(pts, nr_points, sizeof *pts, bisect_rounds_spec_cmp_cdf);
	for (j = 0; j < nr_points; j++) {
		point[pts[j]] = 1;
		bisect_graph_ancestors(g, pts[j], bisect_rounds_spec_mark,
		    anc + j * (nr + 1));
	}
	/* outcome s: the s points of lowest cdf good, the others bad */
	for (s = 0; s <= nr_points; s++) {
		w = 0;
		for (i = 0; i < nr; i++) {
			in = 1;
			for (j = 0; j < nr_points && in; j++)
				in = j < s ? !anc[j * (nr + 1) + i] :
				    anc[j * (nr + 1) + i];
			cond[i] = in ? post[i] : 0;
			w += cond[i];
		}
		if (!(w > 0))
			continue;
		for (i = 0; i < nr; i++)
			cond[i] /= w;
		bisect_graph_sums(g, cond, cdf);
		for (i = 0; i < nr; i++)
			elig[i] = eligible[i] && cdf[i] > BISECT_ROUNDS_EDGE &&
			    cdf[i] < 1 - BISECT_ROUNDS_EDGE;
		n = bisect_rounds_points(next, k, cdf, elig, built, nr);
		for (j = 0; j < n; j++)
			score[next[j]] += w;
	}
	for (i = 0; i < nr; i++)
		if (score[i] > 0 && !point[i] && !(built != NULL && built[i]))
			cand[nc++] = i;
	bisect_rounds_spec_score = score;
	qsort(cand, nc, sizeof *cand, bisect_rounds_spec_cmp_score);
	if (nc > max)
		nc = max;
	memcpy(out, cand, nc * sizeof *out);
	free(cdf);
	free(cond);
	free(score);
	free(anc);
	free(elig);
	free(point);
	free(pts);
	free(next);
	free(cand);
	return nc;
}
