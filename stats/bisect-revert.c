/*
 * The revert check's verdict. The change to undo is the Hodges-Lehmann
 * shift of the good end over the bad one; what the revert restores is its
 * own shift over the bad end, as a share of that, with the rank interval
 * of the shift scaled alike. "Less than half" is a one-sided rank test of
 * the revert against the bad end moved half-way to the good one, "better
 * than bad" one of the revert against the bad end; looks grow by half.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-boot.h"
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

static unsigned
revert_grow(unsigned n)
{
	unsigned next = (unsigned)ceil(n * 1.5);

	return next > n ? next : n + 1;
}

enum bisect_revert_verdict
bisect_revert_decide(struct bisect_revert *out,
    const struct bisect_revert_input *in)
{
	struct bisect_commit		 c[3], u[3];
	struct bisect_boot_units	 bu;
	const double			*bad, *good, *rev;
	double				 d, dlo, dhi, r, rlo, rhi, base;
	double				*half = NULL;
	size_t				 nb, ng, nrv, i;
	unsigned			 first, cap, stand, look;

	memset(out, 0, sizeof *out);
	memset(&bu, 0, sizeof bu);
	out->restored_pct = out->restored_lo = out->restored_hi = NAN;
	out->p_value = out->p_restores = NAN;
	out->change_pct = NAN;
	out->verdict = BISECT_REVERT_UNKNOWN;
	bad = in->bad;
	good = in->good;
	rev = in->revert;
	nb = in->nr_bad;
	ng = in->nr_good;
	nrv = in->nr_revert;
	first = BISECT_REVERT_FIRST;
	cap = in->runs > first ? in->runs : first;
	/* boots that differ more than runs do: a boot's mean is one sample */
	if (in->bad_boots != NULL && in->good_boots != NULL &&
	    in->revert_boots != NULL && nrv > 0) {
		memset(c, 0, sizeof c);
		c[0].samples = bad;
		c[0].nr_samples = nb;
		c[0].boots = in->bad_boots;
		c[1].samples = good;
		c[1].nr_samples = ng;
		c[1].boots = in->good_boots;
		c[2].samples = rev;
		c[2].nr_samples = nrv;
		c[2].boots = in->revert_boots;
		if (bisect_boot_units(&bu, u, c, NULL, 3)) {
			out->boot_units = 1;
			bad = u[0].samples;
			nb = u[0].nr_samples;
			good = u[1].samples;
			ng = u[1].nr_samples;
			rev = u[2].samples;
			nrv = u[2].nr_samples;
			first = BISECT_REVERT_FIRST_BOOTS;
			/* as many boots as bad had, at least the first look */
			cap = nb > first ? (unsigned)nb : first;
		}
	}
	out->units = nrv;
	stand = 2 * first > cap ? 2 * first : cap;
	if (nrv < first) {
		out->verdict = BISECT_REVERT_MORE;
		out->want = first;
		goto want;
	}
	if (nb < 2 || ng < 2)
		goto out;
	bisect_stat_hl(bad, nb, good, ng, 0.95, &d, &dlo, &dhi);
	bisect_stat_hl(bad, nb, rev, nrv, 0.95, &r, &rlo, &rhi);
	base = fabs(bisect_stat_median(bad, nb));
	if (base > 0)
		out->change_pct = 100 * r / base;
	if (d == 0)
		goto out;
	out->restored_pct = 100 * r / d;
	out->restored_lo = 100 * (d > 0 ? rlo : rhi) / d;
	out->restored_hi = 100 * (d > 0 ? rhi : rlo) / d;
	half = xcalloc(nb, sizeof *half);
	for (i = 0; i < nb; i++)
		half[i] = bad[i] + d / 2;
	out->p_value = bisect_stat_mw(half, nb, rev, nrv,
	    d > 0 ? BISECT_STAT_LESS : BISECT_STAT_GREATER);
	out->p_restores = bisect_stat_mw(bad, nb, rev, nrv,
	    d > 0 ? BISECT_STAT_GREATER : BISECT_STAT_LESS);
	if (out->p_value < BISECT_REVERT_ALPHA) {
		/* shown again, on more runs, before it stands */
		if (nrv >= stand) {
			out->verdict = BISECT_REVERT_CONTRADICTS;
			goto out;
		}
		out->verdict = BISECT_REVERT_MORE;
		out->want = stand;
		goto want;
	}
	/* early only on a point estimate of half or more restored */
	if ((out->p_restores < BISECT_REVERT_ALPHA_RESTORES &&
	    out->restored_pct >= 50) || nrv >= cap) {
		out->verdict = BISECT_REVERT_RESTORES;
		goto out;
	}
	for (look = first; look <= nrv; look = revert_grow(look))
		;
	out->verdict = BISECT_REVERT_MORE;
	out->want = look < cap ? look : cap;
want:
	/* in boots: one more boot of BISECT_BOOT_RUNS runs a look */
	if (out->boot_units)
		out->want = (unsigned)in->nr_revert + BISECT_BOOT_RUNS;
out:
	free(half);
	bisect_boot_release(&bu);
	return out->verdict;
}
