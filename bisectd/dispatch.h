/*
 * The order a batch of new runs is dispatched in (bisectd/dispatch.c):
 * the commits of a batch interleaved in a randomized order, never all of
 * A then all of B; two commits as pairs that share a machine. A pure
 * function of the runs, seeded by their ids, so a restart orders them the
 * same way (docs/design.md, "Dispatch order").
 */
#ifndef BISECTD_DISPATCH_H
#define BISECTD_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

/* Keys are batch << DISPATCH_BATCH_SHIFT | rank within the batch. */
#define DISPATCH_BATCH_SHIFT	20
#define DISPATCH_MAX_BATCH	((size_t)1 << DISPATCH_BATCH_SHIFT)

struct dispatch_run {
	int64_t		 id;
	const char	*commit;
	int		 seq;
};

/*
 * Rank (0 .. nr - 1) of each run of one job's batch: round k takes the
 * k-th run of every commit, in a random order per round. With exactly two
 * commits the rounds are pairs, A,B or B,A at random. When the job's runs
 * go to positions > 0 machines (run seq to position seq % positions) the
 * rounds (pairs, or one run of each of k commits) are formed, where the
 * sequence numbers allow, from runs of one position, so that every
 * commit of the round runs on one machine, one after the other.
 */
void	 dispatch_order(const struct dispatch_run *, size_t nr,
	     unsigned positions, size_t *rank);

#endif
