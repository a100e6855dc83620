/*
 * Boots as the unit of evidence (issue 11, item 4): where a commit's runs
 * were made in several boots (qemu, kexec) and boots differ more than
 * runs do, a boot's runs are one observation, not several, so the driver
 * decides on each boot's mean and asks for new boots (docs/bisection.md,
 * "Boots").
 */
#ifndef STATS_BISECT_BOOT_H
#define STATS_BISECT_BOOT_H

#include <stddef.h>

#include "stats/bisect.h"

/* Boots differ more than runs do below this p (the nested F test). */
#define BISECT_BOOT_ALPHA	0.01
/* Runs asked of each new boot of a commit. */
#define BISECT_BOOT_RUNS	2

struct bisect_boot_units {
	int		  used;		/* the samples were made boot means */
	double		  f, df1, df2, p;	/* the nested F test */
	double		**samples;	/* per commit: its boots' means, or NULL */
	size_t		 *units;	/* per commit: its boots */
	size_t		  nr;
};

/*
 * The nested F test of boots within commits (bisect_block_nested_f, on
 * the logarithms when every sample is positive) over the commits whose
 * samples carry boots; when p < BISECT_BOOT_ALPHA, out[] (a copy of
 * commits[], samples[i] replacing commits[i].samples where not NULL) gets
 * for each such commit one sample per boot, its runs' mean, in the order
 * the boots were first seen, times and boots dropped. Returns 1 when it
 * did, 0 when out[] is the input's.
 */
int	bisect_boot_units(struct bisect_boot_units *,
	    struct bisect_commit *out, const struct bisect_commit *commits,
	    const double *const *samples, size_t nr);

/*
 * Wants in boots back into runs: a want of more boots than a commit has
 * becomes its runs so far plus BISECT_BOOT_RUNS (one new boot a round).
 */
void	bisect_boot_wants(const struct bisect_boot_units *,
	    const struct bisect_commit *raw, struct bisect_want *wants,
	    size_t nr_wants);
void	bisect_boot_release(struct bisect_boot_units *);

#endif
