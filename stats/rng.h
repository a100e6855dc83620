/*
 * A small deterministic pseudo-random generator (xoshiro256**, seeded
 * through splitmix64) for permutation tests and simulations: the same seed
 * gives the same stream on every platform, so a change-point decision or a
 * simulated table can be reproduced exactly. Not for anything secret.
 */
#ifndef STATS_RNG_H
#define STATS_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t	s[4];
	int		have_spare;	/* rng_normal makes two at a time */
	double		spare;
};

void		rng_seed(struct rng *, uint64_t);
uint64_t	rng_next(struct rng *);
/* Uniform on [0, 1), 53 random bits. */
double		rng_uniform(struct rng *);
/* Uniform on 0 .. bound - 1 without modulo bias; bound > 0. */
uint64_t	rng_below(struct rng *, uint64_t bound);
/* Standard normal (Marsaglia's polar method). */
double		rng_normal(struct rng *);
/* Fisher-Yates shuffle of nr elements of size bytes each. */
void		rng_shuffle(struct rng *, void *base, size_t nr, size_t size);

#endif
