/*
 * The revert check's verdict. The change to undo is the Hodges-Lehmann
 * shift of the good end over the bad one; what the revert restores is its
 * own shift over the bad end, as a share of that, with the rank interval
 * of the shift scaled alike. "Less than half" is a one-sided rank test of
 * the revert against the bad end moved half-way to the good one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-revert.h"
#include "stats/bisect-stat.h"
#include "util/xalloc.h"

const char *
bisect_revert_verdict_name(enum bisect_revert_verdict v)
{
	switch (v) {
	case BISECT_REVERT_RESTORES:
		return "restores";
	case BISECT_REVERT_CONTRADICTS:
		return "contradicts";
	case BISECT_REVERT_MORE:
		return "more";
	case BISECT_REVERT_UNKNOWN:
		return "unknown";
	}
	return "unknown";
}

enum bisect_revert_verdict
bisect_revert_decide(struct bisect_revert *out,
    const struct bisect_revert_input *in)
{
	double		 d, dlo, dhi, r, rlo, rhi, base, *half = NULL;
	size_t		 i;
	unsigned	 retest;

	memset(out, 0, sizeof *out);
	out->restored_pct = out->restored_lo = out->restored_hi = NAN;
	out->p_value = NAN;
	out->change_pct = NAN;
	out->verdict = BISECT_REVERT_UNKNOWN;
	if (in->nr_bad < 2 || in->nr_good < 2 || in->nr_revert < 2)
		return out->verdict;
	bisect_stat_hl(in->bad, in->nr_bad, in->good, in->nr_good, 0.95, &d,
	    &dlo, &dhi);
	bisect_stat_hl(in->bad, in->nr_bad, in->revert, in->nr_revert, 0.95,
	    &r, &rlo, &rhi);
	base = fabs(bisect_stat_median(in->bad, in->nr_bad));
	if (base > 0)
		out->change_pct = 100 * r / base;
	if (d == 0)
		return out->verdict;
	out->restored_pct = 100 * r / d;
	out->restored_lo = 100 * (d > 0 ? rlo : rhi) / d;
	out->restored_hi = 100 * (d > 0 ? rhi : rlo) / d;
	half = xcalloc(in->nr_bad, sizeof *half);
	for (i = 0; i < in->nr_bad; i++)
		half[i] = in->bad[i] + d / 2;
	out->p_value = bisect_stat_mw(half, in->nr_bad, in->revert,
	    in->nr_revert, d > 0 ? BISECT_STAT_LESS : BISECT_STAT_GREATER);
	free(half);
	if (!(out->p_value < BISECT_REVERT_ALPHA)) {
		out->verdict = BISECT_REVERT_RESTORES;
		return out->verdict;
	}
	/* tested again, twice as many runs, before it stands */
	retest = 2 * (in->runs > 2 ? in->runs : 2);
	if (in->nr_revert < retest) {
		out->verdict = BISECT_REVERT_MORE;
		out->want = retest;
		return out->verdict;
	}
	out->verdict = BISECT_REVERT_CONTRADICTS;
	return out->verdict;
}
