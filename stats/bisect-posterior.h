/*
 * The posterior over the culprit's position in a range (see
 * bisect-posterior.c), filled into the state's post[], pbad[] (the
 * probability that each commit is bad) and gain[] (what one more sample
 * of each commit would tell, gain_top and gain_goods for the ends).
 */
#ifndef STATS_BISECT_POSTERIOR_H
#define STATS_BISECT_POSTERIOR_H

#include <stddef.h>

#include "stats/bisect-model.h"
#include "stats/bisect-range.h"

/* g: the good ends' samples, pooled; m gets the most likely split's fit */
void	bisect_posterior(struct bisect_state *, const struct bisect_range *,
	    const double *g, size_t ng, struct bisect_model *m);

/*
 * Do the samples point to a second change besides the culprit cs? 1 for
 * one above cs, 2 below, 3 both, 0 none.
 */
int	bisect_posterior_second(struct bisect_state *,
	    const struct bisect_range *, size_t cs, const double *g, size_t ng);

#endif
