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
#include "stats/bisect-pair.h"
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
bisect_revert_grow(unsigned n)
{
	unsigned next = (unsigned)ceil(n * 1.5);

	return next > n ? next : n + 1;
}

/* every sample's time known (NaN: a run that recorded none) */
static int
bisect_revert_timed(const double *t, size_t n)
{
	size_t	i;

	if (t == NULL && n > 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!isfinite(t[i]))
			return 0;
	return t != NULL || n == 0;
}

/*
 * The check as interleaved pairs of the revert and the bad end: the
 * pairs' log(bad / revert) against the ends' change, bad over good,
 * decided as the fresh check decides (stats/bisect-pair.c).
 */
static void
bisect_revert_paired(struct bisect_revert *out,
    const struct bisect_revert_input *in)
{
	struct bisect_pair_check pc;
	double			*dk, d, dlo, dhi, mb, change, est, lo, hi;
	size_t			 np;
	unsigned		 cap;
	int			 ratio;

	out->paired = 1;
	dk = xcalloc(in->nr_bad + in->nr_revert + 1, sizeof *dk);
	np = bisect_pair_find_on(dk, &ratio, in->revert, in->revert_times,
	    in->revert_machines, in->nr_revert, in->bad, in->bad_times,
	    in->bad_machines, in->nr_bad, in->after);
	out->pairs = out->units = np;
	if (np < BISECT_REVERT_FIRST) {
		out->verdict = BISECT_REVERT_MORE;
		out->want = (unsigned)(in->nr_revert + BISECT_REVERT_FIRST - np);
		out->want_bad = (unsigned)(in->nr_bad + BISECT_REVERT_FIRST - np);
		goto out;
	}
	if (in->nr_bad < 2 || in->nr_good < 2)
		goto out;
	/* the change to undo: the good end's shift over the bad end's */
	bisect_stat_hl(in->bad, in->nr_bad, in->good, in->nr_good, 0.95, &d,
	    &dlo, &dhi);
	mb = bisect_stat_median(in->bad, in->nr_bad);
	if (ratio && mb > 0 && mb + d > 0)
		change = log(mb / (mb + d));
	else if (!ratio)
		change = -d;
	else
		goto out;
	if (!(change != 0) || !isfinite(change))
		goto out;
	cap = in->runs / 2 > 2 * BISECT_REVERT_FIRST ? in->runs / 2 :
	    2 * BISECT_REVERT_FIRST;
	bisect_pair_decide(&pc, dk, np, change, BISECT_REVERT_FIRST, cap);
	bisect_pair_hl(dk, np, 0.95, &est, &lo, &hi);
	/* restored: the revert's step over bad, in shares of the change */
	out->restored_pct = 100 * est / change;
	out->restored_lo = 100 * (change > 0 ? lo : hi) / change;
	out->restored_hi = 100 * (change > 0 ? hi : lo) / change;
	out->change_pct = ratio ? 100 * expm1(-est) : NAN;
	out->p_value = pc.p_disagree;
	out->p_restores = pc.p_agree;
	switch (pc.verdict) {
	case BISECT_PAIR_DISAGREES:
		out->verdict = BISECT_REVERT_CONTRADICTS;
		break;
	case BISECT_PAIR_MORE:
		out->verdict = BISECT_REVERT_MORE;
		out->want = (unsigned)(in->nr_revert + pc.want - np);
		out->want_bad = (unsigned)(in->nr_bad + pc.want - np);
		break;
	default:
		out->verdict = BISECT_REVERT_RESTORES;
		break;
	}
out:
	free(dk);
}

/* the samples of one check: the bad end, the good end, the revert */
struct revert_samples {
	const double	*bad, *good, *rev;
	size_t		 nb, ng, nrv;
	unsigned	 first;		/* the first look */
	unsigned	 cap;		/* the last */
};

/*
 * Where boots differ more than runs do, a boot's mean is one sample:
 * rs then holds the boots' means (owned by bu) and the looks count
 * boots. Returns 1 when it does.
 */
static int
bisect_revert_units(struct revert_samples *rs, struct bisect_boot_units *bu,
    const struct bisect_revert_input *in)
{
	struct bisect_commit	c[3], u[3];

	if (in->bad_boots == NULL || in->good_boots == NULL ||
	    in->revert_boots == NULL || rs->nrv == 0)
		return 0;
	memset(c, 0, sizeof c);
	c[0].samples = rs->bad;
	c[0].nr_samples = rs->nb;
	c[0].boots = in->bad_boots;
	c[1].samples = rs->good;
	c[1].nr_samples = rs->ng;
	c[1].boots = in->good_boots;
	c[2].samples = rs->rev;
	c[2].nr_samples = rs->nrv;
	c[2].boots = in->revert_boots;
	if (!bisect_boot_units(bu, u, c, NULL, 3))
		return 0;
	rs->bad = u[0].samples;
	rs->nb = u[0].nr_samples;
	rs->good = u[1].samples;
	rs->ng = u[1].nr_samples;
	rs->rev = u[2].samples;
	rs->nrv = u[2].nr_samples;
	rs->first = BISECT_REVERT_FIRST_BOOTS;
	/* as many boots as bad had, at least the first look */
	rs->cap = rs->nb > rs->first ? (unsigned)rs->nb : rs->first;
	return 1;
}

/*
 * The unpaired check on the samples (or boots) of rs, with the revert's
 * samples enough for the first look: fills out's shares and p-values,
 * sets its verdict, and returns the revert's samples in all to want on
 * MORE (0 otherwise).
 */
static unsigned
bisect_revert_ranks(struct bisect_revert *out, const struct revert_samples *rs)
{
	double		 d, dlo, dhi, r, rlo, rhi, base, *half = NULL;
	size_t		 i;
	unsigned	 stand, look, want = 0;

	stand = 2 * rs->first > rs->cap ? 2 * rs->first : rs->cap;
	if (rs->nb < 2 || rs->ng < 2)
		goto out;
	bisect_stat_hl(rs->bad, rs->nb, rs->good, rs->ng, 0.95, &d, &dlo,
	    &dhi);
	bisect_stat_hl(rs->bad, rs->nb, rs->rev, rs->nrv, 0.95, &r, &rlo,
	    &rhi);
	base = fabs(bisect_stat_median(rs->bad, rs->nb));
	if (base > 0)
		out->change_pct = 100 * r / base;
	if (d == 0)
		goto out;
	out->restored_pct = 100 * r / d;
	out->restored_lo = 100 * (d > 0 ? rlo : rhi) / d;
	out->restored_hi = 100 * (d > 0 ? rhi : rlo) / d;
	half = xcalloc(rs->nb, sizeof *half);
	for (i = 0; i < rs->nb; i++)
		half[i] = rs->bad[i] + d / 2;
	out->p_value = bisect_stat_mw(half, rs->nb, rs->rev, rs->nrv,
	    d > 0 ? BISECT_STAT_LESS : BISECT_STAT_GREATER);
	out->p_restores = bisect_stat_mw(rs->bad, rs->nb, rs->rev, rs->nrv,
	    d > 0 ? BISECT_STAT_GREATER : BISECT_STAT_LESS);
	if (out->p_value < BISECT_REVERT_ALPHA) {
		/* shown again, on more runs, before it stands */
		if (rs->nrv >= stand) {
			out->verdict = BISECT_REVERT_CONTRADICTS;
			goto out;
		}
		out->verdict = BISECT_REVERT_MORE;
		want = stand;
		goto out;
	}
	/* early only on a point estimate of half or more restored */
	if ((out->p_restores < BISECT_REVERT_ALPHA_RESTORES &&
	    out->restored_pct >= 50) || rs->nrv >= rs->cap) {
		out->verdict = BISECT_REVERT_RESTORES;
		goto out;
	}
	for (look = rs->first; look <= rs->nrv; look = bisect_revert_grow(look))
		;
	out->verdict = BISECT_REVERT_MORE;
	want = look < rs->cap ? look : rs->cap;
out:
	free(half);
	return want;
}

enum bisect_revert_verdict
bisect_revert_decide(struct bisect_revert *out,
    const struct bisect_revert_input *in)
{
	struct bisect_boot_units	 bu;
	struct revert_samples		 rs;

	memset(out, 0, sizeof *out);
	memset(&bu, 0, sizeof bu);
	out->restored_pct = out->restored_lo = out->restored_hi = NAN;
	out->p_value = out->p_restores = NAN;
	out->change_pct = NAN;
	out->verdict = BISECT_REVERT_UNKNOWN;
	rs.bad = in->bad;
	rs.good = in->good;
	rs.rev = in->revert;
	rs.nb = in->nr_bad;
	rs.ng = in->nr_good;
	rs.nrv = in->nr_revert;
	rs.first = BISECT_REVERT_FIRST;
	rs.cap = in->runs > rs.first ? in->runs : rs.first;
	out->boot_units = bisect_revert_units(&rs, &bu, in);
	if (!out->boot_units &&
	    bisect_revert_timed(in->bad_times, in->nr_bad) &&
	    bisect_revert_timed(in->revert_times, in->nr_revert)) {
		bisect_revert_paired(out, in);
		goto out;
	}
	out->units = rs.nrv;
	if (rs.nrv < rs.first) {
		out->verdict = BISECT_REVERT_MORE;
		out->want = rs.first;
	} else
		out->want = bisect_revert_ranks(out, &rs);
	/* in boots: one more boot of BISECT_BOOT_RUNS runs a look */
	if (out->verdict == BISECT_REVERT_MORE && out->boot_units)
		out->want = (unsigned)in->nr_revert + BISECT_BOOT_RUNS;
out:
	bisect_boot_release(&bu);
	return out->verdict;
}
