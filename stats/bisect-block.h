/*
 * Time and boot blocks for the bisection driver: a drift or a burst that
 * hit the samples of several commits alike, and a boot that ran several
 * commits, are taken out of the samples as the machines' offsets are,
 * and a commit's samples that share a boot or a batch are not counted as
 * independent when boots or batches differ more than runs do (see
 * docs/methodology.md, "Time and boots").
 */
#ifndef STATS_BISECT_BLOCK_H
#define STATS_BISECT_BLOCK_H

#include <stddef.h>

#include "stats/bisect.h"

/* Samples, in time order, in one time window. */
#define BISECT_BLOCK_WINDOW	12
/* A window needs this many changes of commit in it, in time order. */
#define BISECT_BLOCK_SWITCHES	4
/* A level of a factor needs this many commits in common with others. */
#define BISECT_BLOCK_MIN_COMMITS	2
/* A factor's offsets are taken out below this p. */
#define BISECT_BLOCK_FACTOR_ALPHA	0.01
/* Units within commits differ more than runs do below this p. */
#define BISECT_BLOCK_UNIT_ALPHA	0.01
/*
 * 1: the driver takes the time and boot blocks out of its samples
 * (bisect_machine_adjust). Off: at the CLI's settings it was measured to
 * cost accuracy where bursts and boots hit (burst-slots4 41% -> 4%,
 * boot-1.5 63% -> 56%, docs/bisection.md "Non-stationary noise"), for a
 * gain on drift only; measured again once the ends, the confirmation
 * and the fresh check came as interleaved pairs and boots as units
 * (stats/bisect-pair.c, stats/bisect-boot.c), 100 trials: drift-1.5
 * 88% -> 85%, hidden-1.5 65% -> 53%, boot-1.5 94% -> 93%, gauss-1.5
 * 99% -> 99% with 125 -> 130 runs. The pairs do its work where it
 * matters; the fit stays, tested.
 */
#define BISECT_BLOCK_IN_DRIVER	0
/* 1: widen the deviations within units when units differ (off: see .c) */
#define BISECT_BLOCK_WIDEN	0
/* Samples of one commit this many other runs apart are two batches. */
#define BISECT_BLOCK_BATCH_GAP	8

/* One blocking factor: the boots, or the time windows. */
struct bisect_block_factor {
	size_t	 nr_levels;
	size_t	 nr_fitted;
	double	*offset;	/* per level, in log (or metric) units */
	double	 p;		/* F test of the offsets against noise */
	size_t	 df;		/* their degrees of freedom */
	int	 applied;	/* p < BISECT_BLOCK_FACTOR_ALPHA: taken out */
};

struct bisect_block_fit {
	int				 ratio;	/* 1: logs, as the machines */
	struct bisect_block_factor	 boots;
	struct bisect_block_factor	 windows;
	/*
	 * The units within commits (boots where the samples say which, else
	 * batches of runs close in time): the nested F test of their means
	 * within commits against the runs within units, and the factor the
	 * deviations within units were widened by (1: not widened).
	 */
	double				 unit_f;
	double				 unit_df1;
	double				 unit_df2;
	double				 unit_p;
	double				 widen;
	double				**samples;	/* per commit, or NULL */
	size_t				 nr_commits;
};

/*
 * Take the blocks out of samples[i] (commit i's samples, as the machine
 * fit left them; NULL: commits[i].samples), with commits[i].times and
 * .boots, on the logarithms when every sample is positive: the boots,
 * then the time windows, each by least squares beside free commit levels
 * (bisect_block_factor_ls), its offsets taken out only when their F test
 * against the residual gives p < BISECT_BLOCK_FACTOR_ALPHA, so that
 * blocks that do not differ add no noise. A boot or a window is fitted
 * only when it holds BISECT_BLOCK_MIN_COMMITS commits also seen in other
 * fitted levels (a boot that ran one commit never is), and only the
 * largest linked group is. Then the units test (unit_f, unit_p); with
 * BISECT_BLOCK_WIDEN, when units within commits differ more than runs do
 * (p < BISECT_BLOCK_UNIT_ALPHA), every deviation from its unit's mean
 * is widened by sqrt(1 + m s_u^2 / s_r^2) (m runs per unit), so that a
 * commit's samples carry the variance of its mean over its units.
 * out->samples[i] is NULL where nothing changed. Returns the number of
 * fitted levels of the factors taken out, plus 1 when the deviations
 * were widened; 0 when nothing was adjusted. Pure; release with
 * bisect_block_fit_release.
 */
size_t	bisect_block_adjust(struct bisect_block_fit *out,
	    const struct bisect_commit *commits, const double *const *samples,
	    size_t nr);
void	bisect_block_fit_release(struct bisect_block_fit *);

/*
 * The nested (hierarchical) one-way analysis of variance: y[i] in group
 * group[i] and unit unit[i] (units numbered across groups; a unit lies in
 * one group). F = MS(units within groups) / MS(runs within units) on
 * df1 = units - groups, df2 = n - units, and p = P(F(df1, df2) > F).
 * Returns p; NaN (F, df as far as known) when df1 or df2 is 0 or the
 * runs within units do not vary. Exposed for tests against SciPy.
 */
double	bisect_block_nested_f(const double *y, const size_t *group,
	    const size_t *unit, size_t n, double *f, double *df1, double *df2);

#endif
