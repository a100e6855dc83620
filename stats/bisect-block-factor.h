/*
 * The fit of one blocking factor (boots or time windows) for
 * stats/bisect-block.c: the samples it is fitted on, which levels can be
 * fitted, and the offsets taken out when they explain more than noise.
 */
#ifndef STATS_BISECT_BLOCK_FACTOR_H
#define STATS_BISECT_BLOCK_FACTOR_H

#include <stddef.h>

#include "stats/bisect-block.h"

#define BISECT_BLOCK_NONE	((size_t)-1)

/* the samples of the fit, one entry each */
struct bisect_block_data {
	size_t		 n;
	double		*y;		/* log value, or value */
	size_t		*com;		/* row: index into rows[] */
	size_t		*lvl[2];	/* boot, window; NONE when unknown */
	size_t		*unit;		/* unit within the commit's row */
	double		*t;		/* time, NAN when unknown */
	const char	**boot;
	size_t		*src;		/* the sample's index in its commit */
	size_t		*rows;		/* commit of each row */
	size_t		 nr_rows;
	size_t		*row_start;	/* samples grouped by row */
};

/*
 * Which of the m levels of a factor can be fitted, as for machines: those
 * sharing enough commits with the other fitted ones, then only the
 * largest group linked by shared commits. cnt is rows x m. Returns the
 * number fitted (fitted[] says which).
 */
size_t	bisect_block_factor_select(unsigned char *fitted, const size_t *cnt,
	    size_t rows, size_t m);

/*
 * Fit factor f (0 boots, 1 windows) of m levels on d->y by least squares
 * beside free commit levels, and take its offsets out of d->y only when
 * their F test gives p < BISECT_BLOCK_FACTOR_ALPHA; bk gets p, df,
 * applied and the offsets. Returns 1 when a sample changed.
 */
int	bisect_block_factor_take_out(struct bisect_block_factor *bk,
	    struct bisect_block_data *d, size_t f, size_t m,
	    const unsigned char *fitted);

#endif
