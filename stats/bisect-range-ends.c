/*
 * Do a range's ends differ? The sequential rank test of the ends, its
 * looks, futility against the smallest change worth finding, and the
 * smallest change the samples could have seen (docs/bisection.md, step
 * 1, and "Sampling on, and `inconclusive`").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/bisect-range.h"
#include "stats/bisect-range-ends.h"
#include "stats/bisect-rounds.h"
#include "stats/bisect-stat.h"
#include "util/xalloc.h"

#define SUB_SHARE	0.25	/* of the whole change, for a second culprit */
#define POWER_FLOOR	0.8	/* the change max_runs would find this often */
#define ALPHA_FUTILE	0.01	/* a change below the floor, one-sided */
#define ALPHA_FUTILE_SUB 0.05	/* the same for a part's ends */
#define POWER_SEEN	0.5	/* "missed more often than not" below this */

static size_t
bisect_range_ends_n(const struct bisect_state *st, size_t i)
{
	return st->c[i].nr_samples;
}

static unsigned
bisect_range_ends_grow(const struct bisect_state *st, unsigned n)
{
	unsigned next = (unsigned)ceil(n * 1.5);

	/* several slots: the ends share them, each look takes more */
	if (st->in->slots > 1)
		return bisect_rounds_grow(n, st->in->slots);

	return next > n ? next : n + 1;
}

static unsigned
bisect_range_ends_first(const struct bisect_state *st)
{
	if (st->in->slots > 1)
		return bisect_rounds_first(st->first_runs, st->in->slots);
	return st->first_runs;
}

enum bisect_stat_alt
bisect_range_ends_alt(const struct bisect_state *st)
{
	if (st->sign > 0)
		return BISECT_STAT_GREATER;
	if (st->sign < 0)
		return BISECT_STAT_LESS;
	return BISECT_STAT_TWO_SIDED;
}

/* HL shift of b over a, in % of a's median, with its 95% interval */
void
bisect_range_ends_shift(const double *a, size_t na, const double *b, size_t nb,
    double confidence, double *shift, double *pct, double *lo, double *hi)
{
	double	d, l, h, base;

	bisect_stat_hl(a, na, b, nb, confidence, &d, &l, &h);
	base = fabs(bisect_stat_median(a, na));
	*shift = d;
	if (base > 0) {
		*pct = 100 * d / base;
		*lo = 100 * l / base;
		*hi = 100 * h / base;
	} else
		*pct = *lo = *hi = NAN;
}

/*
 * The look at which the ends' change was first seen: the first look
 * target t whose first t samples of each end are decisive. Samples are
 * kept in the order taken, so this does not move when later looks (a
 * part's ends, the search sampling an end) add samples to the ends; a
 * part's cap, SUB_CAP times this, would otherwise grow with the part's
 * own samples of the ends.
 */
static unsigned
bisect_range_ends_first_look(const struct bisect_state *st,
    const struct bisect_range *r, unsigned last, double alpha, double min_eff)
{
	double		*g, pct, lo, hi, shift;
	size_t		 i, k, n, nb;
	unsigned	 t = bisect_range_ends_first(st), found = last;

	g = xcalloc((size_t)last * r->nr_goods + 1, sizeof *g);
	while (t < last) {
		for (i = 0, k = 0; i < r->nr_goods; i++) {
			n = bisect_range_ends_n(st, r->goods[i]) < t ?
			    bisect_range_ends_n(st, r->goods[i]) : t;
			memcpy(g + k, st->c[r->goods[i]].samples,
			    n * sizeof *g);
			k += n;
		}
		nb = bisect_range_ends_n(st, r->top) < t ?
		    bisect_range_ends_n(st, r->top) : t;
		if (bisect_stat_mw(g, k, st->c[r->top].samples, nb,
		    bisect_range_ends_alt(st)) < alpha) {
			bisect_range_ends_shift(g, k, st->c[r->top].samples,
			    nb, 0.95, &shift, &pct, &lo, &hi);
			if (!(fabs(pct) < min_eff)) {
				found = t;
				break;
			}
		}
		t = bisect_range_ends_grow(st, t);
	}
	free(g);
	return found;
}

/*
 * The smallest change worth looking for at the ends, in % of the good
 * level: the job's min_effect_pct (for a part, a quarter of the whole
 * change), and never less than the change the test could find 80% of
 * the time at its last look, max_runs samples of each end (one-sided at
 * alpha, two-sided when the direction is unknown). The noise behind that
 * is read from the width of the rank interval [lo, hi] of confidence
 * 1 - 2 ALPHA_FUTILE measured now, scaled from these sample counts to
 * max_runs ones: the interval is the rank test's own measure of the
 * spread, whatever the noise's shape.
 */
static double
bisect_range_ends_detectable(const struct bisect_state *st, unsigned n,
    size_t ng, size_t nb, size_t nr_goods, double lo, double hi, double alpha,
    double power)
{
	double	se, cap = (double)n, z;

	se = (hi - lo) / (2 * gsl_cdf_ugaussian_Qinv(ALPHA_FUTILE));
	se *= sqrt((1 / cap + 1 / (cap * (double)(nr_goods ? nr_goods : 1))) /
	    (1 / (double)ng + 1 / (double)nb));
	z = gsl_cdf_ugaussian_Qinv(st->sign != 0 ? alpha : alpha / 2);
	return (z + gsl_cdf_ugaussian_Qinv(1 - power)) * se;
}

static double
bisect_range_ends_floor_at(const struct bisect_state *st, unsigned n, size_t ng,
    size_t nb, size_t nr_goods, double lo, double hi, double alpha,
    double min_eff)
{
	double	det;

	if (ng == 0 || nb == 0 || !(hi >= lo))
		return min_eff;
	det = bisect_range_ends_detectable(st, n, ng, nb, nr_goods, lo, hi,
	    alpha, POWER_FLOOR);
	return det > min_eff ? det : min_eff;
}

double
bisect_range_ends_floor(const struct bisect_state *st, size_t ng, size_t nb,
    size_t nr_goods, double lo, double hi, double alpha, double min_eff)
{
	return bisect_range_ends_floor_at(st, st->max_runs, ng, nb, nr_goods,
	    lo, hi, alpha, min_eff);
}

/*
 * The smallest change, in %, that n samples of each end would show more
 * often than not, the noise read as bisect_range_ends_floor reads it: what an
 * inconclusive answer says it could have missed.
 */
void
bisect_range_ends_set_detectable(struct bisect_state *st,
    const struct bisect_range *r, const double *g, size_t ng,
    const double *b, size_t nb, unsigned n, double alpha)
{
	double	shift, pct, lo, hi;

	st->inconclusive = 1;
	st->min_detectable_pct = NAN;
	if (ng < 2 || nb < 2)
		return;
	bisect_range_ends_shift(g, ng, b, nb, 1 - 2 * ALPHA_FUTILE, &shift,
	    &pct, &lo, &hi);
	if (isnan(pct) || !(hi >= lo))
		return;
	st->min_detectable_pct = bisect_range_ends_detectable(st, n, ng, nb,
	    r->nr_goods, lo, hi, alpha, POWER_SEEN);
}

/*
 * Futility: is the ends' change significantly smaller than the smallest
 * one worth looking for? One-sided at ALPHA_FUTILE (the upper end of the
 * 98% rank interval, in the direction of a regression) when the
 * direction is known, two one-sided tests when it is not. More samples
 * could then only find a change nobody asked for, or one that max_runs
 * samples would miss more often than not anyway. Not before each end
 * has max(8, max_runs / 6) samples: from fewer, the interval's width, the
 * estimate of the noise, is too rough to stop on (measured: stopping
 * from the first looks cost 2% of the bisections of a 0.75 sd change),
 * and never where the rank interval cannot have the confidence it
 * claims (it is all of the differences' range at 3 against 3).
 */
static int
bisect_range_ends_below(const struct bisect_state *st, double lo, double hi,
    double x)
{
	if (st->sign > 0)
		return hi < x;
	if (st->sign < 0)
		return -lo < x;
	return lo > -x && hi < x;
}

static int
bisect_range_ends_futile(const struct bisect_state *st,
    const struct bisect_range *r, const double *g, size_t ng, const double *b,
    size_t nb, double alpha, double min_eff, unsigned n_max, int last)
{
	double	shift, pct, lo, hi, floor_pct, m;
	size_t	n_min;

	n_min = st->max_runs / 6 > 8 ? st->max_runs / 6 : 8;
	/*
	 * The whole range's ends, which may sample on: not before max_runs
	 * / 2 each (measured: from 8, 2% of the bisections of a 0.75 sd
	 * change ended no_change at the first looks).
	 */
	if (r->depth == 0 && st->ends_max > st->max_runs &&
	    n_min < st->max_runs / 2)
		n_min = st->max_runs / 2;
	if (ng < n_min * r->nr_goods || nb < n_min)
		return 0;
	m = (double)ng * (double)nb;
	if (floor(m / 2 - gsl_cdf_ugaussian_Qinv(ALPHA_FUTILE) *
	    sqrt(m * (double)(ng + nb + 1) / 12)) < 1)
		return 0;
	bisect_range_ends_shift(g, ng, b, nb, 1 - 2 * ALPHA_FUTILE, &shift,
	    &pct, &lo, &hi);
	if (isnan(pct))
		return 0;
	if (lo == 0 && hi == 0)
		return 1;	/* nearly every pair of samples the same */
	floor_pct = bisect_range_ends_floor_at(st, n_max, ng, nb, r->nr_goods,
	    lo, hi, alpha, min_eff);
	if (!(floor_pct > 0))
		return 0;
	/* a part's look is a hint followed: 5% */
	/* and so is the last look at the whole range's ends: 5% */
	if (r->depth > 0 || last)
		bisect_range_ends_shift(g, ng, b, nb,
		    1 - 2 * ALPHA_FUTILE_SUB, &shift, &pct, &lo, &hi);
	/*
	 * 1: below the smallest change worth finding (no change); 2: below
	 * only what max_runs could see, not below min_effect_pct: more
	 * samples are futile, yet a change worth finding could be there.
	 */
	if (!bisect_range_ends_below(st, lo, hi, floor_pct))
		return 0;
	return min_eff <= 0 || bisect_range_ends_below(st, lo, hi, min_eff) ?
	    1 : 2;
}

/*
 * Do the range's ends differ? 1 yes, 0 no, -1 not yet (wants added). The
 * looks come at first_runs samples per end, then half as many more each
 * time, up to n_max.
 */
int
bisect_range_ends(struct bisect_state *st, const struct bisect_range *r,
    double alpha, unsigned n_max, double *shift, double *p, unsigned *n_end)
{
	double		*g, *b = (double *)st->c[r->top].samples;
	double		 pct, lo, hi, min_eff = st->in->min_effect_pct, popp;
	size_t		 ng, nb = bisect_range_ends_n(st, r->top);
	unsigned	 target = bisect_range_ends_first(st), next;
	int		 ret = -1;

	if (target > n_max)
		target = n_max;
	/*
	 * A second culprit worth the name moves the metric by a good part of
	 * what the whole range moves it: a part's smaller change is none.
	 */
	if (r->depth > 0 && st->root_done &&
	    min_eff < SUB_SHARE * fabs(st->root_pct))
		min_eff = SUB_SHARE * fabs(st->root_pct);
	g = bisect_range_goods(st, r, &ng);
	if (nb < target || ng < target) {
		bisect_range_pair_begin(st, r);
		bisect_range_want(st, r->top, target);
		bisect_range_want_goods(st, r, target);
		goto out;
	}
	for (;;) {
		next = bisect_range_ends_grow(st, target);
		if (next > n_max)
			next = n_max;
		if (next <= target || nb < next || ng < next)
			break;
		target = next;
	}
	*n_end = target;

	*p = bisect_stat_mw(g, ng, b, nb, bisect_range_ends_alt(st));
	bisect_range_ends_shift(g, ng, b, nb, 0.95, shift, &pct, &lo, &hi);
	if (r->depth == 0) {
		st->root_shift = *shift;
		st->root_pct = pct;
		st->root_lo = lo;
		st->root_hi = hi;
		st->root_p = *p;
		st->root_done = 1;
	}
	if (*p < alpha && !(fabs(pct) < min_eff)) {
		*n_end = bisect_range_ends_first_look(st, r, target, alpha,
		    min_eff);
		if (st->sign == 0)
			st->sign = *shift > 0 ? 1 : -1;
		ret = 1;
		goto out;
	}
	if (st->sign != 0) {
		/* the "bad" end is significantly better: no regression */
		popp = bisect_stat_mw(g, ng, b, nb, st->sign > 0 ?
		    BISECT_STAT_LESS : BISECT_STAT_GREATER);
		if (popp < alpha) {
			ret = 0;
			goto out;
		}
	}
	switch (bisect_range_ends_futile(st, r, g, ng, b, nb, alpha, min_eff,
	    n_max, target >= n_max)) {
	case 2:
		if (r->depth == 0)
			bisect_range_ends_set_detectable(st, r, g, ng, b, nb,
			    n_max, alpha);
		/* FALLTHROUGH */
	case 1:
		ret = 0;
		goto out;
	}
	if (target >= n_max) {
		/*
		 * Not told apart, yet not shown smaller than a change worth
		 * finding: the whole range's answer is inconclusive.
		 */
		if (r->depth == 0)
			bisect_range_ends_set_detectable(st, r, g, ng, b, nb,
			    n_max, alpha);
		ret = 0;
		goto out;
	}
	target = bisect_range_ends_grow(st, target);
	if (target > n_max)
		target = n_max;
	bisect_range_pair_begin(st, r);
	bisect_range_want(st, r->top, target);
	bisect_range_want_goods(st, r, target);
out:
	free(g);
	return ret;
}
