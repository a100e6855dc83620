/*
 * Unit tests for the dispatch order of a batch of runs
 * (bisectd/dispatch.c): ranks are a permutation, one commit keeps its
 * sequence order, two commits come as pairs in both orders, three or more
 * in rounds that hold one run of each, the same batch gives the same
 * order whatever order the runs are listed in, and pairs share a machine
 * position where the sequence numbers allow.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/dispatch.h"
#include "tests/unit/tap.h"

#define MAX_RUNS	64

static struct dispatch_run	runs[MAX_RUNS];
static size_t			nr_runs;

static void
batch_reset(void)
{
	nr_runs = 0;
}

static void
batch_add(int64_t id, const char *commit, int seq)
{
	runs[nr_runs].id = id;
	runs[nr_runs].commit = commit;
	runs[nr_runs].seq = seq;
	nr_runs++;
}

/* The runs in rank order. */
static void
batch_sequence(const size_t *rank, size_t *order)
{
	size_t	i;

	for (i = 0; i < nr_runs; i++)
		order[rank[i]] = i;
}

static int
is_permutation(const size_t *rank, size_t n)
{
	int	seen[MAX_RUNS];
	size_t	i;

	memset(seen, 0, sizeof seen);
	for (i = 0; i < n; i++) {
		if (rank[i] >= n || seen[rank[i]]++)
			return 0;
	}
	return 1;
}

static void
test_one_commit(void)
{
	size_t	rank[MAX_RUNS], i;
	int	in_order = 1;

	batch_reset();
	batch_add(12, "a", 2);
	batch_add(10, "a", 0);
	batch_add(11, "a", 1);
	dispatch_order(runs, nr_runs, 0, rank);
	ok(is_permutation(rank, nr_runs), "one commit: a permutation");
	for (i = 0; i < nr_runs; i++)
		in_order = in_order && rank[i] == (size_t)runs[i].seq;
	ok(in_order, "one commit: in sequence order");
}

static void
test_pairs(void)
{
	size_t	rank[MAX_RUNS], order[MAX_RUNS], k;
	int	pairs = 1, ab = 0, ba = 0, sequential = 0, base;

	for (base = 0; base < 400; base += 8) {
		batch_reset();
		for (k = 0; k < 4; k++)
			batch_add(base + (int)k, "a", (int)k);
		for (k = 0; k < 4; k++)
			batch_add(base + 4 + (int)k, "b", (int)k);
		dispatch_order(runs, nr_runs, 0, rank);
		pairs = pairs && is_permutation(rank, nr_runs);
		batch_sequence(rank, order);
		for (k = 0; k < nr_runs; k += 2) {
			if (strcmp(runs[order[k]].commit,
			    runs[order[k + 1]].commit) == 0)
				pairs = 0;
			if (strcmp(runs[order[k]].commit, "a") == 0)
				ab++;
			else
				ba++;
			if (runs[order[k]].seq != (int)k / 2 ||
			    runs[order[k + 1]].seq != (int)k / 2)
				pairs = 0;
		}
		if (strcmp(runs[order[0]].commit, runs[order[1]].commit) == 0 &&
		    strcmp(runs[order[1]].commit, runs[order[2]].commit) == 0)
			sequential++;
	}
	ok(pairs, "two commits: every pair holds one run of each, by round");
	ok(sequential == 0, "two commits: never two of one side first");
	ok(ab > 40 && ba > 40, "two commits: A,B and B,A both come (%d, %d)",
	    ab, ba);
}

static void
test_rounds(void)
{
	const char	*commits[] = { "a", "b", "c" };
	size_t		 rank[MAX_RUNS], order[MAX_RUNS], k, c;
	int		 rounds = 1, firsts[3] = { 0, 0, 0 }, base, j;

	for (base = 0; base < 300; base += 9) {
		batch_reset();
		for (c = 0; c < 3; c++)
			for (k = 0; k < 3; k++)
				batch_add(base + (int)(c * 3 + k), commits[c],
				    (int)k + 5);
		dispatch_order(runs, nr_runs, 0, rank);
		rounds = rounds && is_permutation(rank, nr_runs);
		batch_sequence(rank, order);
		for (k = 0; k < nr_runs; k += 3) {
			int seen = 0;

			for (j = 0; j < 3; j++) {
				c = (size_t)(runs[order[k + j]].commit[0] - 'a');
				seen |= 1 << c;
				if (runs[order[k + j]].seq != (int)k / 3 + 5)
					rounds = 0;
			}
			if (seen != 7)
				rounds = 0;
		}
		firsts[runs[order[0]].commit[0] - 'a']++;
	}
	ok(rounds, "three commits: each round holds one run of each");
	ok(firsts[0] > 0 && firsts[1] > 0 && firsts[2] > 0,
	    "three commits: each goes first in some batch (%d %d %d)",
	    firsts[0], firsts[1], firsts[2]);
}

static void
test_deterministic(void)
{
	size_t			rank1[MAX_RUNS], rank2[MAX_RUNS], i, j;
	struct dispatch_run	copy[MAX_RUNS];
	int			same = 1;

	batch_reset();
	for (i = 0; i < 6; i++)
		batch_add(100 + (int64_t)i, i % 2 ? "b" : "a", (int)i / 2);
	batch_add(106, "c", 0);
	dispatch_order(runs, nr_runs, 0, rank1);
	dispatch_order(runs, nr_runs, 0, rank2);
	ok(memcmp(rank1, rank2, nr_runs * sizeof *rank1) == 0,
	    "the same batch, the same order");
	for (i = 0; i < nr_runs; i++)
		copy[i] = runs[nr_runs - 1 - i];
	dispatch_order(copy, nr_runs, 0, rank2);
	for (i = 0; i < nr_runs; i++) {
		for (j = 0; j < nr_runs && copy[j].id != runs[i].id; j++)
			;
		same = same && rank2[j] == rank1[i];
	}
	ok(same, "listed in another order, each run keeps its rank");
}

/* How many pairs of a two-commit batch share a position (seq % p). */
static int
pairs_on_one_position(unsigned p, size_t *nr_pairs)
{
	size_t	rank[MAX_RUNS], order[MAX_RUNS], k;
	int	n = 0;

	dispatch_order(runs, nr_runs, p, rank);
	batch_sequence(rank, order);
	*nr_pairs = nr_runs / 2;
	for (k = 0; k + 1 < nr_runs; k += 2) {
		if (strcmp(runs[order[k]].commit, runs[order[k + 1]].commit) !=
		    0 && (unsigned)runs[order[k]].seq % p ==
		    (unsigned)runs[order[k + 1]].seq % p)
			n++;
	}
	return n;
}

static void
test_positions(void)
{
	size_t	k, nr_pairs;
	int	n;

	batch_reset();
	for (k = 0; k < 4; k++)
		batch_add(20 + (int)k, "a", 4 + (int)k);
	for (k = 0; k < 4; k++)
		batch_add(30 + (int)k, "b", (int)k);
	n = pairs_on_one_position(2, &nr_pairs);
	is_int(n, 4, "two positions, sides at seq 4-7 and 0-3: all 4 pairs "
	    "on one machine");
	batch_reset();
	for (k = 0; k < 6; k++)
		batch_add(40 + (int)k, "a", (int)k);
	for (k = 0; k < 6; k++)
		batch_add(50 + (int)k, "b", 1 + (int)k);
	n = pairs_on_one_position(3, &nr_pairs);
	is_int(n, 6, "three positions, seq 0-5 against 1-6: all 6 pairs on "
	    "one machine");
	batch_reset();
	for (k = 0; k < 3; k++)
		batch_add(60 + (int)k, "a", 3 + (int)k);
	for (k = 0; k < 3; k++)
		batch_add(70 + (int)k, "b", (int)k);
	n = pairs_on_one_position(2, &nr_pairs);
	is_int(n, 2, "uneven: 2 of 3 pairs on one machine, as the numbers "
	    "allow");
}

/* rounds of nr_sides runs, each of nr_sides commits, on one position */
static int
rounds_on_one_position(unsigned p, size_t nr_sides)
{
	size_t	rank[MAX_RUNS], order[MAX_RUNS], k, j, i;
	int	n = 0, one;

	dispatch_order(runs, nr_runs, p, rank);
	batch_sequence(rank, order);
	for (k = 0; k + nr_sides <= nr_runs; k += nr_sides) {
		one = 1;
		for (j = k; j < k + nr_sides; j++)
			for (i = k; i < j; i++)
				one = one && strcmp(runs[order[i]].commit,
				    runs[order[j]].commit) != 0 &&
				    (unsigned)runs[order[i]].seq % p ==
				    (unsigned)runs[order[j]].seq % p;
		n += one;
	}
	return n;
}

static void
test_positions_k(void)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	size_t	k, c;

	batch_reset();
	for (c = 0; c < 4; c++)
		for (k = 0; k < 6; k++)
			batch_add(100 + 10 * (int)c + (int)k, names[c],
			    (int)k);
	is_int(rounds_on_one_position(3, 4), 6, "four commits, seq 0-5, "
	    "three positions: every round one run of each, on one machine");
	batch_reset();
	for (k = 0; k < 4; k++)
		batch_add(200 + (int)k, "a", 1 + (int)k);
	for (c = 1; c < 3; c++)
		for (k = 0; k < 4; k++)
			batch_add(200 + 10 * (int)c + (int)k, names[c],
			    (int)k);
	is_int(rounds_on_one_position(2, 3), 4, "three commits, one at seq "
	    "1-4 and two at 0-3, two positions: every round on one machine");
}

int
main(void)
{
	test_one_commit();
	test_pairs();
	test_rounds();
	test_deterministic();
	test_positions();
	test_positions_k();
	return tap_done();
}
