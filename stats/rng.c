/*
 * xoshiro256** (Blackman and Vigna, 2018) with splitmix64 seeding, plus the
 * few derived draws the statistics need: uniform doubles, bounded integers
 * (Lemire's multiply-and-reject), normal variates and shuffles.
 */
#include <math.h>
#include <string.h>

#include "stats/rng.h"

static uint64_t
rng_splitmix64(uint64_t *x)
{
	uint64_t	z;

	z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t
rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void
rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t	x = seed;
	int		i;

	for (i = 0; i < 4; i++)
		r->s[i] = rng_splitmix64(&x);
	r->have_spare = 0;
	r->spare = 0;
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t	*s = r->s;
	uint64_t	 result, t;

	result = rng_rotl(s[1] * 5, 7) * 9;
	t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

double
rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t
rng_below(struct rng *r, uint64_t bound)
{
	unsigned __int128	m;
	uint64_t		l, t;

	m = (unsigned __int128)rng_next(r) * bound;
	l = (uint64_t)m;
	if (l < bound) {
		t = -bound % bound;
		while (l < t) {
			m = (unsigned __int128)rng_next(r) * bound;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double
rng_normal(struct rng *r)
{
	double	u, v, s;

	if (r->have_spare) {
		r->have_spare = 0;
		return r->spare;
	}
	do {
		u = 2 * rng_uniform(r) - 1;
		v = 2 * rng_uniform(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	s = sqrt(-2 * log(s) / s);
	r->spare = v * s;
	r->have_spare = 1;
	return u * s;
}

void
rng_shuffle(struct rng *r, void *base, size_t nr, size_t size)
{
	unsigned char	*p = base, tmp[64];
	size_t		 i, j, off, chunk;

	if (nr < 2)
		return;
	for (i = nr - 1; i > 0; i--) {
		j = (size_t)rng_below(r, (uint64_t)i + 1);
		if (j == i)
			continue;
		for (off = 0; off < size; off += chunk) {
			chunk = size - off < sizeof tmp ? size - off :
			    sizeof tmp;
			memcpy(tmp, p + i * size + off, chunk);
			memcpy(p + i * size + off, p + j * size + off, chunk);
			memcpy(p + j * size + off, tmp, chunk);
		}
	}
}
