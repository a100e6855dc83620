/*
 * Machine offsets for the bisection driver: when a bisection's runs were
 * spread over several test machines, the machines' own differences of
 * speed are taken out of the samples before the driver decides on them
 * (see docs/bisection.md, "Several machines").
 */
#ifndef STATS_BISECT_MACHINE_H
#define STATS_BISECT_MACHINE_H

#include <stddef.h>

#include "stats/bisect.h"
#include "stats/bisect-block.h"

/* A machine needs this many commits in common with the others. */
#define BISECT_MACHINE_MIN_COMMITS	2

struct bisect_machine {
	const char	*name;		/* borrowed from the input */
	double		 offset;	/* see struct bisect_machine_fit */
	size_t		 nr_samples;
	size_t		 nr_commits;	/* sampled there and on another */
	int		 fitted;	/* 0: its samples are left alone */
};

struct bisect_machine_fit {
	struct bisect_machine	 *machines;	/* sorted by name */
	size_t			  nr_machines;
	size_t			  nr_fitted;
	/*
	 * 1: every sample is positive, and the offsets are ratios (0.03 is
	 * a machine 3% above the others; its samples are divided by 1.03);
	 * 0: they are in the metric's units and subtracted.
	 */
	int			  ratio;
	double			**samples;	/* per commit: adjusted, or NULL */
	size_t			  nr_commits;
	/* the time and boot blocks, fitted after the machines */
	struct bisect_block_fit	  blocks;
};

/*
 * Estimate each machine's offset from every commit's samples and the
 * machine that took each (commit.machines; NULL entries and commits
 * without machines are left out) by a robust two-way fit of commit
 * levels and machine offsets (alternating 20%-trimmed means, on the
 * logarithms when every sample is positive), the offsets centred on
 * their mean. A machine is fitted when it shares at least
 * BISECT_MACHINE_MIN_COMMITS commits with the other fitted machines,
 * and only the largest set of machines linked by shared commits is:
 * the others are not comparable and their samples stay as they are.
 * samples[i] is commit i's samples with the offsets taken out, NULL
 * when it has no sample on a fitted machine. Returns the number of
 * fitted machines, 0 (and no adjusted samples) when fewer than two.
 * Then, where samples carry times or boots, the time and boot blocks
 * are taken out of what the machines left (bisect_block_adjust, the fit
 * in mf->blocks, its samples moved into samples[]), and the return value
 * adds bisect_block_adjust's. A pure function; release with
 * bisect_machine_fit_release.
 */
size_t	bisect_machine_adjust(struct bisect_machine_fit *,
	    const struct bisect_commit *, size_t nr);
void	bisect_machine_fit_release(struct bisect_machine_fit *);

#endif
