/*
 * The log of a concluded bisection's tested commits: each with its
 * samples, mean and a verdict relative to the conclusion, in the order
 * git bisect would replay them to the culprit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection-internal.h"
#include "stats/summary.h"
#include "util/xalloc.h"

/* Is c among the range's commits that contain one of from[]? */
static unsigned char *
bisection_steps_descendants(const struct repo_range *range, const size_t *from,
    size_t nr_from)
{
	unsigned char	*mark = xcalloc(range->nr_commits + 1, 1);
	int		 changed = 1;
	size_t		 i, j;

	for (i = 0; i < nr_from; i++)
		mark[from[i]] = 1;
	while (changed) {
		changed = 0;
		for (i = 0; i < range->nr_commits; i++) {
			if (mark[i])
				continue;
			for (j = 0; j < range->commits[i].nr_parents; j++) {
				if (mark[range->commits[i].parents[j]]) {
					mark[i] = 1;
					changed = 1;
					break;
				}
			}
		}
	}
	return mark;
}

static int
bisection_steps_good_end(const struct repo_range *range, size_t idx)
{
	size_t	i;

	for (i = 0; i < range->nr_good; i++)
		if (range->good[i] == idx)
			return 1;
	return 0;
}

struct bisection_steps_key {
	int	bad;
	size_t	weight;		/* ancestors-or-self in the range */
	size_t	pos;		/* in the order tested */
};

static int
bisection_steps_cmp(const void *a, const void *b)
{
	const struct bisection_steps_key	*x = a, *y = b;

	if (x->bad != y->bad)
		return x->bad - y->bad;
	if (x->bad && x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * git bisect keeps one bad ref, which each `git bisect bad` replaces: for
 * the log to replay to the culprit, the bad commits come last, each after
 * its descendants (the most ancestors in the range first). The rest keep
 * the order they were tested in. touched[i] is step i's commit.
 */
static void
bisection_steps_order(const struct repo_range *range, struct store_step *steps,
    const size_t *touched, size_t nr)
{
	struct bisection_steps_key	*key;
	struct store_step		*copy;
	size_t				*w, i;

	w = xcalloc(range->nr_commits + 1, sizeof *w);
	if (bisect_weights(w, range->commits, range->nr_commits, NULL) != 0) {
		free(w);
		return;
	}
	key = xcalloc(nr + 1, sizeof *key);
	copy = xcalloc(nr + 1, sizeof *copy);
	for (i = 0; i < nr; i++) {
		key[i].bad = strcmp(steps[i].verdict, "bad") == 0;
		key[i].weight = w[touched[i]];
		key[i].pos = i;
		copy[i] = steps[i];
	}
	qsort(key, nr, sizeof *key, bisection_steps_cmp);
	for (i = 0; i < nr; i++)
		steps[i] = copy[key[i].pos];
	free(copy);
	free(key);
	free(w);
}

/* The log of tested commits with verdicts relative to the conclusion. */
struct store_step *
bisection_steps(const struct bisection *bs, const struct bisection_turn *t,
    const struct bisect_result *res, size_t *nr)
{
	const struct repo_range	*range = &bs->range;
	struct store_step	*steps = xcalloc(t->nr_touched + 1,
				    sizeof *steps);
	const size_t		*from = res->culprits;
	size_t			 nr_from = res->nr_culprits > 0 ? 1 : 0, i, k;
	unsigned char		*bad = NULL;
	struct summary		 sum;
	const struct bisect_commit *c;

	if (res->status == BISECT_AMBIGUOUS) {
		from = res->candidates;
		nr_from = res->nr_candidates;
	}
	bad = bisection_steps_descendants(range, from, nr_from);
	for (i = 0; i < t->nr_touched; i++) {
		k = t->touched[i];
		c = &range->commits[k];
		steps[i].commit_oid = range->oids[k];
		summary_compute(&sum, c->samples, c->nr_samples);
		steps[i].samples = (int)c->nr_samples;
		steps[i].mean = c->nr_samples > 0 ? sum.mean : NAN;
		if (c->build == BISECT_BUILD_FAILED)
			steps[i].verdict = "skip";
		else if (bisection_steps_good_end(range, k))
			steps[i].verdict = "good";
		else if (k == range->bad)
			steps[i].verdict = "bad";
		else if (res->status == BISECT_FOUND ||
		    res->status == BISECT_UNCONFIRMED ||
		    res->status == BISECT_AMBIGUOUS)
			steps[i].verdict = bad[k] ? "bad" : "good";
		else
			steps[i].verdict = "skip";
	}
	bisection_steps_order(range, steps, t->touched, t->nr_touched);
	free(bad);
	*nr = t->nr_touched;
	return steps;
}

