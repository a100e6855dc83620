/*
 * The revert check's verdict, a pure step beside the driver: the culprit
 * reverted on top of the bad end, run as often as the bad end was. From
 * the samples of the bad end, the good end and the revert it says how much
 * of the change the revert restores, and whether that contradicts the
 * culprit (significantly less than half restored): then it asks for the
 * check once more, twice as many runs, before it says so.
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
	unsigned	 runs;		/* the check's first batch */
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
};

/* The significance of "restores less than half" (one-sided). */
#define BISECT_REVERT_ALPHA	0.01

/* Fills out; returns out->verdict. */
enum bisect_revert_verdict bisect_revert_decide(struct bisect_revert *out,
		    const struct bisect_revert_input *in);
const char *bisect_revert_verdict_name(enum bisect_revert_verdict);

#endif
