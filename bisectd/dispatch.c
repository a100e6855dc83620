/*
 * Dispatch order: Randomized Multiple Interleaved Trials (Abedi and
 * Brecht, ICPE 2017) for the runs of one batch, a round formed from one
 * machine position where it can be, seeded from the run ids so that the
 * order survives a restart (docs/design.md, "Dispatch order").
 */
#include <stdlib.h>
#include <string.h>

#include "bisectd/dispatch.h"
#include "stats/rng.h"
#include "util/xalloc.h"

struct dispatch_side {
	const char	*commit;
	size_t		*runs;		/* indexes into the batch */
	size_t		 nr;
	size_t		 alloc;
};

struct dispatch_sort {
	const struct dispatch_run	*runs;
	unsigned			 positions;
};

/* By position (seq % positions) when pairing, then by seq, then id. */
static int
dispatch_cmp(const void *a, const void *b, void *arg)
{
	const struct dispatch_sort	*ds = arg;
	const struct dispatch_run	*x = &ds->runs[*(const size_t *)a];
	const struct dispatch_run	*y = &ds->runs[*(const size_t *)b];
	unsigned			 p = ds->positions;

	if (p > 0 && (unsigned)x->seq % p != (unsigned)y->seq % p)
		return (unsigned)x->seq % p < (unsigned)y->seq % p ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sides by the id of their first run, whatever order the runs came in. */
static int
dispatch_cmp_side(const void *a, const void *b, void *arg)
{
	const struct dispatch_run	*runs = arg;
	const struct dispatch_side	*x = a, *y = b;

	return runs[x->runs[0]].id < runs[y->runs[0]].id ? -1 :
	    runs[x->runs[0]].id > runs[y->runs[0]].id;
}

static int
dispatch_cmp_id(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* FNV-1a over the sorted ids: the same batch, the same seed. */
static uint64_t
dispatch_seed(const struct dispatch_run *runs, size_t nr)
{
	int64_t		*ids = xcalloc(nr + 1, sizeof *ids);
	uint64_t	 h = 14695981039346656037ULL, v;
	size_t		 i, b;

	for (i = 0; i < nr; i++)
		ids[i] = runs[i].id;
	qsort(ids, nr, sizeof *ids, dispatch_cmp_id);
	for (i = 0; i < nr; i++) {
		v = (uint64_t)ids[i];
		for (b = 0; b < 8; b++) {
			h ^= (v >> (8 * b)) & 0xff;
			h *= 1099511628211ULL;
		}
	}
	free(ids);
	return h;
}

void
dispatch_order(const struct dispatch_run *runs, size_t nr, unsigned positions,
    size_t *rank)
{
	struct dispatch_side	*sides = NULL, *sd;
	struct dispatch_sort	 ds;
	struct rng		 rng;
	size_t			 nr_sides = 0, alloc = 0, i, j, k, next = 0;
	size_t			*round = NULL, nr_round, longest = 0;

	if (nr == 0)
		return;
	for (i = 0; i < nr; i++) {
		for (j = 0; j < nr_sides; j++) {
			if (strcmp(sides[j].commit, runs[i].commit) == 0)
				break;
		}
		if (j == nr_sides) {
			ALLOC_GROW(sides, nr_sides + 1, alloc);
			memset(&sides[nr_sides], 0, sizeof sides[nr_sides]);
			sides[nr_sides++].commit = runs[i].commit;
		}
		sd = &sides[j];
		ALLOC_GROW(sd->runs, sd->nr + 1, sd->alloc);
		sd->runs[sd->nr++] = i;
	}
	ds.runs = runs;
	ds.positions = nr_sides >= 2 ? positions : 0;
	for (j = 0; j < nr_sides; j++) {
		qsort_r(sides[j].runs, sides[j].nr, sizeof *sides[j].runs,
		    dispatch_cmp, &ds);
		if (sides[j].nr > longest)
			longest = sides[j].nr;
	}
	qsort_r(sides, nr_sides, sizeof *sides, dispatch_cmp_side,
	    (void *)runs);
	rng_seed(&rng, dispatch_seed(runs, nr));
	round = xcalloc(nr_sides + 1, sizeof *round);
	for (k = 0; k < longest; k++) {
		nr_round = 0;
		for (j = 0; j < nr_sides; j++) {
			if (k < sides[j].nr)
				round[nr_round++] = sides[j].runs[k];
		}
		rng_shuffle(&rng, round, nr_round, sizeof *round);
		for (i = 0; i < nr_round; i++)
			rank[round[i]] = next++;
	}
	for (j = 0; j < nr_sides; j++)
		free(sides[j].runs);
	free(sides);
	free(round);
}
