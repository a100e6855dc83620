/*
 * The commit DAG of a bisection, restricted to a set of member commits:
 * a topological order, the single-parent chains ("strands of pearls" in
 * git's bisect.c) collapsed into one node each, and sums of a weight over
 * every commit's ancestors-or-self. git bisect's weight is that sum with
 * weight 1; the driver's "probability that this commit is bad" is that sum
 * with the posterior of the culprit position as the weight.
 */
#ifndef STATS_BISECT_GRAPH_H
#define STATS_BISECT_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "stats/bisect.h"

struct bisect_graph {
	size_t		 nr;		/* members */
	size_t		*index;		/* member -> commit index */
	size_t		*member;	/* commit index -> member, or -1 */
	size_t		*parent_off;	/* CSR: parents of member m are */
	size_t		*parents;	/*  parents[parent_off[m]..[m + 1]] */
	size_t		*order;		/* members, parents before children */
	/* chains, in topological order of their first commit */
	size_t		 nr_chains;
	size_t		*chain;		/* member -> its chain */
	size_t		*chain_pos;	/* member -> position in chain, from 0 */
	size_t		*chain_first;	/* chain -> offset in chain_members */
	size_t		*chain_members;	/* the members of each chain, in order */
	size_t		*chain_parent_off; /* CSR: the chains holding the */
	size_t		*chain_parents;	   /*  parents of each chain's first */
	/* scratch */
	uint64_t	*mask;
	double		*sum;
	unsigned	*stamp;
	unsigned	 stamp_now;
	size_t		*queue;
};

/*
 * Build the graph of the commits with in[i] set (all commits when in is
 * NULL); parents that are not members are left out.
 */
int	 bisect_graph_init(struct bisect_graph *, const struct bisect_commit *,
	     size_t nr, const unsigned char *in, char **cause);
void	 bisect_graph_release(struct bisect_graph *);

/*
 * out[m] = the sum of w[a] over the ancestors-or-self a of member m, both
 * indexed by member. The summation order is fixed, so equal input gives
 * bit-equal output.
 */
void	 bisect_graph_sums(struct bisect_graph *, const double *w, double *out);

/*
 * Visit the ancestors-or-self of member m (fn(member, payload)), each once,
 * in breadth-first order from m.
 */
void	 bisect_graph_ancestors(struct bisect_graph *, size_t m,
	     void (*fn)(size_t, void *), void *payload);

#endif
