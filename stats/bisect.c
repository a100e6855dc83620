/*
 * The bisection driver's entry points: git bisect's choice of a midpoint,
 * and bisect_decide, which turns the state of a bisection into its next
 * step (see docs/bisection.md for the method and its reasons).
 */
#include <stdlib.h>
#include <string.h>

#include "stats/bisect.h"
#include "stats/bisect-graph.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *
bisect_status_name(enum bisect_status status)
{
	switch (status) {
	case BISECT_CONTINUE:
		return "continue";
	case BISECT_FOUND:
		return "found";
	case BISECT_NO_CHANGE:
		return "no_change";
	case BISECT_AMBIGUOUS:
		return "ambiguous";
	case BISECT_FAILED:
		return "failed";
	}
	return "unknown";
}

int
bisect_weights(size_t *out, const struct bisect_commit *commits, size_t nr,
    char **cause)
{
	struct bisect_graph	 g;
	double			*w = NULL, *sum = NULL;
	size_t			 i;

	if (bisect_graph_init(&g, commits, nr, NULL, cause) != 0)
		return -1;
	w = xcalloc(nr ? nr : 1, sizeof *w);
	sum = xcalloc(nr ? nr : 1, sizeof *sum);
	for (i = 0; i < nr; i++)
		w[i] = 1;
	bisect_graph_sums(&g, w, sum);
	for (i = 0; i < nr; i++)
		out[i] = (size_t)(sum[i] + 0.5);
	free(w);
	free(sum);
	bisect_graph_release(&g);
	return 0;
}

/*
 * As git's best_bisection: the largest min(w, N - w), the first in the
 * array on a tie (git takes the first in its rev-list order). Skipped
 * commits still count in everyone's weight, as in git, but are never
 * chosen.
 */
size_t
bisect_midpoint(const struct bisect_commit *commits, size_t nr,
    const unsigned char *skip)
{
	size_t	*w, i, best = (size_t)-1, d, best_d = 0;

	if (nr == 0)
		return (size_t)-1;
	w = xcalloc(nr, sizeof *w);
	if (bisect_weights(w, commits, nr, NULL) != 0)
		goto out;
	for (i = 0; i < nr; i++) {
		if (skip != NULL && skip[i])
			continue;
		d = w[i] < nr - w[i] ? w[i] : nr - w[i];
		if (best == (size_t)-1 || d > best_d) {
			best = i;
			best_d = d;
		}
	}
out:
	free(w);
	return best;
}

void
bisect_result_release(struct bisect_result *res)
{
	if (res == NULL)
		return;
	free(res->wants);
	free(res->culprits);
	free(res->candidates);
	free(res->error);
	memset(res, 0, sizeof *res);
}

int
bisect_decide(struct bisect_result *res, const struct bisect_input *in)
{
	memset(res, 0, sizeof *res);
	res->status = BISECT_FAILED;
	res->error = xstrdup("not implemented yet");
	(void)in;
	return -1;
}
