/*
 * One range of a bisection and the state bisect_decide builds while it
 * looks at the ranges: the whole range `bad ^good` first, then, when a
 * culprit explains too little of the change or a commit sits half-way
 * between the ends' levels, the ranges on either side of it.
 */
#ifndef STATS_BISECT_RANGE_H
#define STATS_BISECT_RANGE_H

#include <stddef.h>

#include "stats/bisect.h"
#include "stats/bisect-graph.h"

/* A culprit, with its step against its first parent. */
struct bisect_found {
	size_t	commit;
	double	step;		/* shift, in the metric's unit */
	double	change_pct;
	double	ci_lo;
	double	ci_hi;
	double	p_value;
};

struct bisect_state {
	const struct bisect_input	*in;
	const struct bisect_commit	*c;
	size_t				 nr;
	struct bisect_graph		 g;
	unsigned			 max_runs;
	unsigned			 first_runs;	/* per end, first look */
	/*
	 * The whole range's ends may take up to ends_max samples each
	 * (sampling on while a change worth finding could be there); the
	 * ends are root_top and root_goods.
	 */
	unsigned			 ends_max;
	size_t				 root_top;
	const size_t			*root_goods;
	size_t				 nr_root_goods;
	int				 sign;	/* +1 bad above good, -1 below */
	int				 spent;	/* the budget is: ask no more */
	int				 cut;	/* and that changed the answer */
	/* per commit: its image is its first parent's (NULL: none known) */
	const unsigned char		*same_parent;
	/* the ends not told apart, but a change could be there */
	int				 inconclusive;
	double				 min_detectable_pct;

	struct bisect_want		*wants;
	size_t				 nr_wants;
	size_t				 alloc_wants;
	struct bisect_found		*found;
	size_t				 nr_found;
	size_t				 alloc_found;
	size_t				*cands;
	size_t				 nr_cands;
	size_t				 alloc_cands;
	/* slots > 1: builds to start for the next round (bisect-rounds.h) */
	size_t				*spec;
	size_t				 nr_spec;
	size_t				 alloc_spec;

	int				 progress;	/* set once */
	/*
	 * The first two wants are a pair (the ends' look, a culprit and
	 * its parent) and go out as one batch whatever the slots, which
	 * the scheduler dispatches interleaved; set where times are known.
	 */
	int				 pair;
	int				 timed;
	/* the search comes in pairs with the bad end (bisect-time.h) */
	int				 time_pairs;
	size_t				 remaining;
	unsigned			 steps;

	/* the whole range's ends */
	int				 root_done;
	double				 root_shift;
	double				 root_pct;
	double				 root_lo;
	double				 root_hi;
	double				 root_p;
	size_t				 root_n;	/* per end, at decision */

	/*
	 * What a sample of each commit would tell: the spread, over the
	 * posterior, of the level each culprit position predicts for it, as
	 * a balance from 0 (all agree) to 1 (an even split between the good
	 * and the bad level). gain_top and gain_goods for the ends.
	 */
	double				*gain;
	double				 gain_top;
	double				 gain_goods;

	/* scratch, nr each */
	double				*logpost;
	double				*post;
	double				*pbad;
	double				*lvl;		/* 6 * nr */
	unsigned char			*mark;
};

struct bisect_range {
	size_t		 top;		/* bad end */
	const size_t	*goods;		/* whose samples are the good level */
	size_t		 nr_goods;
	unsigned char	*in;		/* the culprit's possible positions */
	int		 depth;		/* 0: the whole range */
};

/*
 * Look at one range: add wants, culprits or candidates to the state.
 * Returns CONTINUE, FOUND, NO_CHANGE or AMBIGUOUS for the range.
 */
enum bisect_status bisect_range_decide(struct bisect_state *,
		    const struct bisect_range *);

void	bisect_range_want(struct bisect_state *, size_t commit,
	    unsigned samples);

/*
 * Helpers the range's files share (bisect-range.c, bisect-range-ends.c):
 * the samples of the good ends that built, as one array (the caller
 * frees it); wants of a total over the good ends; and the wants about to
 * be made are a pair (the whole range's ends with one good end, a
 * culprit and its parent, r NULL): when they are the first wants and
 * the samples carry times, they go out as one interleaved batch.
 */
double	*bisect_range_goods(const struct bisect_state *,
	    const struct bisect_range *, size_t *n);
void	 bisect_range_want_goods(struct bisect_state *,
	    const struct bisect_range *, unsigned total);
void	 bisect_range_pair_begin(struct bisect_state *,
	    const struct bisect_range *);

#endif
