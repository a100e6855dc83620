/*
 * The revert check's verdict, a pure step beside the driver: the culprit
 * reverted on top of the bad end, run in looks of growing size up to as
 * often as the bad end was. From the samples of the bad end, the good end
 * and the revert it says how much of the change the revert restores, and
 * whether that contradicts the culprit (significantly less than half
 * restored, shown again on more runs) or agrees (significantly better
 * than the bad end). Where boots differ more than runs do, boots are the
 * units, as the driver counts them (stats/bisect-boot.h).
 */
#ifndef STATS_BISECT_REVERT_H
#define STATS_BISECT_REVERT_H

#include <stddef.h>

enum bisect_revert_verdict {
	BISECT_REVERT_RESTORES = 0,	/* half or more, or not shown less */
	BISECT_REVERT_CONTRADICTS,	/* significantly less than half */
	BISECT_REVERT_MORE,		/* take `want` revert samples, ask again */
	BISECT_REVERT_UNKNOWN,		/* too few samples, or no change to undo */
};

struct bisect_revert_input {
	const double	*bad;
	size_t		 nr_bad;
	const double	*good;
	size_t		 nr_good;
	const double	*revert;
	size_t		 nr_revert;
	unsigned	 runs;		/* the check's cap: bad's runs, or more */
	/*
	 * Per sample, the boot it ran in (boot_id; NULL arrays when
	 * unknown): with all three, boots that differ more than runs do
	 * make each boot's mean one sample, and a look wants new boots.
	 */
	const char *const *bad_boots;
	const char *const *good_boots;
	const char *const *revert_boots;
	/*
	 * Per sample, when it ran (NULL when unknown): with both, and boots
	 * not the units, the check runs as interleaved pairs of the revert
	 * and the bad end, one batch (the caller dispatches a batch of two
	 * as pairs), and decides on the pairs, so that a drift or a burst
	 * that hits both runs of a pair cancels. Its pairs are the runs of
	 * either later than `after` (the latest run of any other commit of
	 * the range, -INFINITY when none), found again from the times as
	 * stats/bisect-pair.c finds the fresh check's.
	 */
	const double	*bad_times;
	const double	*revert_times;
	double		 after;
	/*
	 * Per sample, the machine that ran it (NULL when unknown): with
	 * both, each machine's pairs are found apart, as the fresh check's
	 * (several agents run the check's batch at once).
	 */
	const char *const *bad_machines;
	const char *const *revert_machines;
};

struct bisect_revert {
	enum bisect_revert_verdict verdict;
	unsigned	 want;		/* MORE: the revert's samples in all */
	/* the revert's shift over bad, in % of the good end's change */
	double		 restored_pct;
	double		 restored_lo;	/* 95% interval */
	double		 restored_hi;
	/* one-sided: H0 the revert restores at least half */
	double		 p_value;
	/* the revert against bad, in % of bad's median */
	double		 change_pct;
	/* one-sided: H1 the revert is better than bad */
	double		 p_restores;
	int		 boot_units;	/* the test was on boot means */
	size_t		 units;		/* the revert's samples or boots */
	/*
	 * Paired (times known): the pairs found, and on MORE the bad end's
	 * samples in all beside `want` (each as many new runs), to be
	 * queued together as one interleaved batch.
	 */
	int		 paired;
	size_t		 pairs;
	unsigned	 want_bad;
};

/* The significance of "restores less than half" (one-sided). */
#define BISECT_REVERT_ALPHA	0.01
/* The significance of "the revert is better than bad" (one-sided). */
#define BISECT_REVERT_ALPHA_RESTORES	0.05
/* The revert's runs at the first look (boots: 3 boots). */
#define BISECT_REVERT_FIRST	5
#define BISECT_REVERT_FIRST_BOOTS	3

/*
 * Paired, the verdict is bisect_pair_decide's on the pairs' log(bad /
 * revert) against the ends' change (first look BISECT_REVERT_FIRST pairs,
 * a contradiction standing only on twice as many, up to runs / 2 pairs):
 * it agrees is RESTORES, it disagrees (the step significantly less than
 * half the change, p < 0.01) CONTRADICTS, undecided at the cap RESTORES;
 * restored_pct is the pairs' Hodges-Lehmann step over the change.
 * Unpaired, as follows.
 * Fills out; returns out->verdict. With fewer revert samples than the
 * first look's (none at the start), MORE with the first look's want.
 * Then: RESTORES when the revert is significantly better than bad and
 * restores half or more of the change (the point estimate);
 * CONTRADICTS when significantly less than half is restored on at least
 * max(2 x the first look, runs) samples (MORE to that many when seen on
 * fewer); RESTORES at runs samples when neither is shown; else MORE, half
 * as many again. In boot units each want is one more boot
 * (BISECT_BOOT_RUNS runs on top of the revert's runs).
 */
enum bisect_revert_verdict bisect_revert_decide(struct bisect_revert *out,
		    const struct bisect_revert_input *in);
const char *bisect_revert_verdict_name(enum bisect_revert_verdict);

#endif
