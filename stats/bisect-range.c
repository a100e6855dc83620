/*
 * Deciding one range of a bisection, in the order of DESIGN §4: whether
 * its ends differ, the posterior over the culprit's position, the commits
 * to sample next, then the culprit against its parents; a second change
 * splits the range (docs/design.md, "File notes").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/bisect-model.h"
#include "stats/bisect-posterior.h"
#include "stats/bisect-range.h"
#include "stats/bisect-rounds.h"
#include "stats/bisect-stat.h"
#include "util/xalloc.h"

#define ALPHA_CHANGE	0.001	/* the whole range's ends, at each look */
#define ALPHA_SUB	0.001	/* a part's ends, at each look */
#define ALPHA_CONFIRM	0.05	/* culprit against its parents */
#define ALPHA_MIDDLE	0.001	/* a level apart from both ends' */
#define ALPHA_HINT	0.1	/* worth a look for a second culprit */
#define EPS_FOUND	0.01	/* posterior mass left off the culprit */
#define BAL_MIN		(EPS_FOUND / 2)	/* a split worth sampling for */
#define EXPLAIN_MIN	70.0	/* % of the change a lone culprit explains */
#define LAMBDA_OLD	0.6	/* built commit over new one, balance ratio */
#define MAX_DEPTH	3
#define SUB_SHARE	0.25	/* of the whole change, for a second culprit */
#define SUB_CAP		6	/* a part's ends: times the whole range's look */
#define POWER_FLOOR	0.8	/* the change max_runs would find this often */
#define ALPHA_FUTILE	0.01	/* a change below the floor, one-sided */
#define ALPHA_FUTILE_SUB 0.05	/* the same for a part's ends */
#define POWER_SEEN	0.5	/* "missed more often than not" below this */

static size_t
range_n(const struct bisect_state *st, size_t i)
{
	return st->c[i].nr_samples;
}

static int
range_testable(const struct bisect_state *st, size_t i)
{
	return st->c[i].build != BISECT_BUILD_FAILED &&
	    range_n(st, i) < st->max_runs;
}

static int
range_root_end(const struct bisect_state *st, size_t i)
{
	size_t	k;

	if (i == st->root_top)
		return 1;
	for (k = 0; k < st->nr_root_goods; k++)
		if (st->root_goods[k] == i)
			return 1;
	return 0;
}

void
bisect_range_want(struct bisect_state *st, size_t commit, unsigned samples)
{
	size_t		i;
	unsigned	cap = st->max_runs;

	/* the whole range's ends may sample on, within ends_max */
	if (st->ends_max > cap && range_root_end(st, commit))
		cap = st->ends_max;
	if (samples > cap)
		samples = cap;
	if (st->c[commit].build == BISECT_BUILD_FAILED ||
	    range_n(st, commit) >= samples)
		return;
	for (i = 0; i < st->nr_wants; i++)
		if (st->wants[i].commit == commit) {
			if (st->wants[i].samples < samples)
				st->wants[i].samples = samples;
			return;
		}
	ALLOC_GROW(st->wants, st->nr_wants, st->alloc_wants);
	st->wants[st->nr_wants].commit = commit;
	st->wants[st->nr_wants++].samples = samples;
}

/* the samples of the good ends that built, one array */
static double *
range_goods(const struct bisect_state *st, const struct bisect_range *r,
    size_t *n)
{
	double	*g;
	size_t	 i, k = 0, total = 0;

	for (i = 0; i < r->nr_goods; i++)
		total += range_n(st, r->goods[i]);
	g = xcalloc(total ? total : 1, sizeof *g);
	for (i = 0; i < r->nr_goods; i++) {
		if (range_n(st, r->goods[i]) == 0)
			continue;
		memcpy(g + k, st->c[r->goods[i]].samples,
		    range_n(st, r->goods[i]) * sizeof *g);
		k += range_n(st, r->goods[i]);
	}
	*n = total;
	return g;
}

static void
range_want_goods(struct bisect_state *st, const struct bisect_range *r,
    unsigned total)
{
	size_t		i;
	unsigned	per = (unsigned)((total + r->nr_goods - 1) / r->nr_goods);

	for (i = 0; i < r->nr_goods; i++)
		bisect_range_want(st, r->goods[i], per);
}

/*
 * The wants about to be made are a pair (the whole range's ends with one
 * good end, a culprit and its parent): when they are the first wants and the
 * samples carry times, they go out as one interleaved batch.
 */
static void
range_pair_begin(struct bisect_state *st, const struct bisect_range *r)
{
	if (st->nr_wants == 0 && st->timed && (r == NULL ||
	    (r->depth == 0 && r->nr_goods == 1)))
		st->pair = 1;
}

static unsigned
range_grow(const struct bisect_state *st, unsigned n)
{
	unsigned next = (unsigned)ceil(n * 1.5);

	/* several slots: the ends share them, each look takes more */
	if (st->in->slots > 1)
		return bisect_rounds_grow(n, st->in->slots);

	return next > n ? next : n + 1;
}

static unsigned
range_first(const struct bisect_state *st)
{
	if (st->in->slots > 1)
		return bisect_rounds_first(st->first_runs, st->in->slots);
	return st->first_runs;
}

static enum bisect_stat_alt
range_alt(const struct bisect_state *st)
{
	if (st->sign > 0)
		return BISECT_STAT_GREATER;
	if (st->sign < 0)
		return BISECT_STAT_LESS;
	return BISECT_STAT_TWO_SIDED;
}

/* HL shift of b over a, in % of a's median, with its 95% interval */
static void
range_shift(const double *a, size_t na, const double *b, size_t nb,
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
range_first_look(const struct bisect_state *st, const struct bisect_range *r,
    unsigned last, double alpha, double min_eff)
{
	double		*g, pct, lo, hi, shift;
	size_t		 i, k, n, nb;
	unsigned	 t = range_first(st), found = last;

	g = xcalloc((size_t)last * r->nr_goods + 1, sizeof *g);
	while (t < last) {
		for (i = 0, k = 0; i < r->nr_goods; i++) {
			n = range_n(st, r->goods[i]) < t ?
			    range_n(st, r->goods[i]) : t;
			memcpy(g + k, st->c[r->goods[i]].samples,
			    n * sizeof *g);
			k += n;
		}
		nb = range_n(st, r->top) < t ? range_n(st, r->top) : t;
		if (bisect_stat_mw(g, k, st->c[r->top].samples, nb,
		    range_alt(st)) < alpha) {
			range_shift(g, k, st->c[r->top].samples, nb, 0.95,
			    &shift, &pct, &lo, &hi);
			if (!(fabs(pct) < min_eff)) {
				found = t;
				break;
			}
		}
		t = range_grow(st, t);
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
range_detectable(const struct bisect_state *st, unsigned n, size_t ng,
    size_t nb, size_t nr_goods, double lo, double hi, double alpha,
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
range_floor_at(const struct bisect_state *st, unsigned n, size_t ng,
    size_t nb, size_t nr_goods, double lo, double hi, double alpha,
    double min_eff)
{
	double	det;

	if (ng == 0 || nb == 0 || !(hi >= lo))
		return min_eff;
	det = range_detectable(st, n, ng, nb, nr_goods, lo, hi, alpha,
	    POWER_FLOOR);
	return det > min_eff ? det : min_eff;
}

double
bisect_range_floor(const struct bisect_state *st, size_t ng, size_t nb,
    size_t nr_goods, double lo, double hi, double alpha, double min_eff)
{
	return range_floor_at(st, st->max_runs, ng, nb, nr_goods, lo, hi,
	    alpha, min_eff);
}

/*
 * The smallest change, in %, that n samples of each end would show more
 * often than not, the noise read as bisect_range_floor reads it: what an
 * inconclusive answer says it could have missed.
 */
static void
range_set_detectable(struct bisect_state *st, const struct bisect_range *r,
    const double *g, size_t ng, const double *b, size_t nb, unsigned n,
    double alpha)
{
	double	shift, pct, lo, hi;

	st->inconclusive = 1;
	st->min_detectable_pct = NAN;
	if (ng < 2 || nb < 2)
		return;
	range_shift(g, ng, b, nb, 1 - 2 * ALPHA_FUTILE, &shift, &pct, &lo,
	    &hi);
	if (isnan(pct) || !(hi >= lo))
		return;
	st->min_detectable_pct = range_detectable(st, n, ng, nb, r->nr_goods,
	    lo, hi, alpha, POWER_SEEN);
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
range_below(const struct bisect_state *st, double lo, double hi, double x)
{
	if (st->sign > 0)
		return hi < x;
	if (st->sign < 0)
		return -lo < x;
	return lo > -x && hi < x;
}

static int
range_futile(const struct bisect_state *st, const struct bisect_range *r,
    const double *g, size_t ng, const double *b, size_t nb, double alpha,
    double min_eff, unsigned n_max, int last)
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
	range_shift(g, ng, b, nb, 1 - 2 * ALPHA_FUTILE, &shift, &pct, &lo, &hi);
	if (isnan(pct))
		return 0;
	if (lo == 0 && hi == 0)
		return 1;	/* nearly every pair of samples the same */
	floor_pct = range_floor_at(st, n_max, ng, nb, r->nr_goods, lo, hi,
	    alpha, min_eff);
	if (!(floor_pct > 0))
		return 0;
	/* a part's look is a hint followed: 5% */
	/* and so is the last look at the whole range's ends: 5% */
	if (r->depth > 0 || last)
		range_shift(g, ng, b, nb, 1 - 2 * ALPHA_FUTILE_SUB, &shift,
		    &pct, &lo, &hi);
	/*
	 * 1: below the smallest change worth finding (no change); 2: below
	 * only what max_runs could see, not below min_effect_pct: more
	 * samples are futile, yet a change worth finding could be there.
	 */
	if (!range_below(st, lo, hi, floor_pct))
		return 0;
	return min_eff <= 0 || range_below(st, lo, hi, min_eff) ? 1 : 2;
}

/*
 * Do the range's ends differ? 1 yes, 0 no, -1 not yet (wants added). The
 * looks come at first_runs samples per end, then half as many more each
 * time, up to n_max.
 */
static int
range_ends(struct bisect_state *st, const struct bisect_range *r,
    double alpha, unsigned n_max, double *shift, double *p, unsigned *n_end)
{
	double		*g, *b = (double *)st->c[r->top].samples;
	double		 pct, lo, hi, min_eff = st->in->min_effect_pct, popp;
	size_t		 ng, nb = range_n(st, r->top);
	unsigned	 target = range_first(st), next;
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
	g = range_goods(st, r, &ng);
	if (nb < target || ng < target) {
		range_pair_begin(st, r);
		bisect_range_want(st, r->top, target);
		range_want_goods(st, r, target);
		goto out;
	}
	for (;;) {
		next = range_grow(st, target);
		if (next > n_max)
			next = n_max;
		if (next <= target || nb < next || ng < next)
			break;
		target = next;
	}
	*n_end = target;

	*p = bisect_stat_mw(g, ng, b, nb, range_alt(st));
	range_shift(g, ng, b, nb, 0.95, shift, &pct, &lo, &hi);
	if (r->depth == 0) {
		st->root_shift = *shift;
		st->root_pct = pct;
		st->root_lo = lo;
		st->root_hi = hi;
		st->root_p = *p;
		st->root_done = 1;
	}
	if (*p < alpha && !(fabs(pct) < min_eff)) {
		*n_end = range_first_look(st, r, target, alpha, min_eff);
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
	switch (range_futile(st, r, g, ng, b, nb, alpha, min_eff, n_max,
	    target >= n_max)) {
	case 2:
		if (r->depth == 0)
			range_set_detectable(st, r, g, ng, b, nb, n_max, alpha);
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
			range_set_detectable(st, r, g, ng, b, nb, n_max, alpha);
		ret = 0;
		goto out;
	}
	target = range_grow(st, target);
	if (target > n_max)
		target = n_max;
	range_pair_begin(st, r);
	bisect_range_want(st, r->top, target);
	range_want_goods(st, r, target);
out:
	free(g);
	return ret;
}

static int
range_is_good(const struct bisect_range *r, size_t i)
{
	size_t	k;

	for (k = 0; k < r->nr_goods; k++)
		if (r->goods[k] == i)
			return 1;
	return 0;
}

static int
range_cmp_post(const void *a, const void *b, void *payload)
{
	const double	*post = payload;
	size_t		 x = *(const size_t *)a, y = *(const size_t *)b;

	if (post[x] != post[y])
		return post[x] > post[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* the fewest commits holding mass of the posterior, most probable first */
static size_t *
range_top_mass(const struct bisect_state *st, const struct bisect_range *r,
    double mass, size_t *n)
{
	size_t	*v, k = 0, i;
	double	 acc = 0;

	v = xcalloc(st->nr ? st->nr : 1, sizeof *v);
	for (i = 0; i < st->nr; i++)
		if (r->in[i])
			v[k++] = i;
	qsort_r(v, k, sizeof *v, range_cmp_post, st->post);
	for (i = 0; i < k && acc < mass; i++)
		acc += st->post[v[i]];
	*n = i ? i : k;
	return v;
}

static void
range_progress(struct bisect_state *st, size_t remaining)
{
	unsigned steps = 0;

	if (st->progress)
		return;
	st->progress = 1;
	st->remaining = remaining;
	while (remaining > 1 && ((size_t)1 << steps) < remaining)
		steps++;
	st->steps = steps;
}


static void
range_mark_fn(size_t a, void *payload)
{
	((unsigned char *)payload)[a] = 1;
}

static enum bisect_status
range_combine(enum bisect_status a, enum bisect_status b)
{
	if (a == BISECT_CONTINUE || b == BISECT_CONTINUE)
		return BISECT_CONTINUE;
	if (a == BISECT_FOUND || b == BISECT_FOUND)
		return BISECT_FOUND;
	if (a == BISECT_AMBIGUOUS || b == BISECT_AMBIGUOUS)
		return BISECT_AMBIGUOUS;
	return BISECT_NO_CHANGE;
}

static void
range_candidate(struct bisect_state *st, size_t i)
{
	size_t	k;

	for (k = 0; k < st->nr_cands; k++)
		if (st->cands[k] == i)
			return;
	ALLOC_GROW(st->cands, st->nr_cands, st->alloc_cands);
	st->cands[st->nr_cands++] = i;
}

/*
 * Split r at commit m: the part below m (m as its bad end) and the part
 * above (m as its good end). Either part may be empty.
 */
static enum bisect_status
range_split(struct bisect_state *st, const struct bisect_range *r, size_t m,
    int below, int above)
{
	struct bisect_range	 lo, hi;
	unsigned char		*anc;
	size_t			 i, nlo = 0, nhi = 0, goods_hi[1] = { m };
	enum bisect_status	 s = BISECT_NO_CHANGE, t = BISECT_NO_CHANGE;

	anc = xcalloc(st->nr, 1);
	bisect_graph_ancestors(&st->g, m, range_mark_fn, anc);
	lo = *r;
	hi = *r;
	lo.top = m;
	lo.in = xcalloc(st->nr, 1);
	hi.goods = goods_hi;
	hi.nr_goods = 1;
	hi.in = xcalloc(st->nr, 1);
	lo.depth = hi.depth = r->depth + 1;
	for (i = 0; i < st->nr; i++) {
		if (!r->in[i])
			continue;
		if (anc[i])
			nlo += lo.in[i] = 1;
		else
			nhi += hi.in[i] = 1;
	}
	if (below && nlo > 0 && r->in[m])
		s = bisect_range_decide(st, &lo);
	if (above && nhi > 0)
		t = bisect_range_decide(st, &hi);
	free(lo.in);
	free(hi.in);
	free(anc);
	return range_combine(s, t);
}

/* x's level is apart from both ends', and between them */
static int
range_middle(const struct bisect_state *st, const struct bisect_range *r,
    size_t x, const double *g, size_t ng)
{
	const double	*b = st->c[r->top].samples, *xs = st->c[x].samples;
	size_t		 nb = range_n(st, r->top), nx = range_n(st, x);
	enum bisect_stat_alt alt = range_alt(st);

	if (x == r->top || nx < st->first_runs || !r->in[x])
		return 0;
	return bisect_stat_mw(g, ng, xs, nx, alt) < ALPHA_MIDDLE &&
	    bisect_stat_mw(xs, nx, b, nb, alt) < ALPHA_MIDDLE;
}

static void
range_record(struct bisect_state *st, size_t cs, const double *q, size_t nq,
    double p)
{
	struct bisect_found	*f;
	size_t			 k;

	for (k = 0; k < st->nr_found; k++)
		if (st->found[k].commit == cs)
			return;
	ALLOC_GROW(st->found, st->nr_found, st->alloc_found);
	f = &st->found[st->nr_found++];
	f->commit = cs;
	f->p_value = p;
	range_shift(q, nq, st->c[cs].samples, range_n(st, cs), 0.95, &f->step,
	    &f->change_pct, &f->ci_lo, &f->ci_hi);
}

/*
 * The culprit cs against each of its parents (the good ends when none of
 * its parents was sampled): enough samples on both sides, and cs worse,
 * significantly. Then, when it explains too little of the range's change,
 * look on either side of it.
 */
static enum bisect_status
range_confirm(struct bisect_state *st, const struct bisect_range *r,
    size_t cs, const double *g, size_t ng, double range_shift_v,
    unsigned k_re)
{
	const struct bisect_commit	*c = &st->c[cs];
	unsigned			 n_conf = st->first_runs < 4 ? 4 :
					    st->first_runs;
	size_t				 k, q, nq, first = (size_t)-1, n_cs;
	const double			*qs;
	double				 p, p_first = 1, explained;
	int				 all = 1, grow = 0, compared = 0, sides;
	int				 cs_grows;
	unsigned			 target;
	enum bisect_status		 s;

	/*
	 * cs did not build (the most probable of commits no sample tells
	 * apart): the candidates are the untestable commits around it and
	 * the first testable one above them.
	 */
	if (c->build == BISECT_BUILD_FAILED) {
		for (q = cs; q != (size_t)-1 && r->in[q]; ) {
			range_candidate(st, q);
			if (st->c[q].build != BISECT_BUILD_FAILED)
				break;
			for (k = 0; k < st->nr; k++)
				if (r->in[k] && st->c[k].nr_parents > 0 &&
				    st->c[k].parents[0] == q)
					break;
			q = k < st->nr ? k : (size_t)-1;
		}
		c = &st->c[q != (size_t)-1 && r->in[q] ? q : cs];
		cs = q != (size_t)-1 && r->in[q] ? q : cs;
	}
	/*
	 * Its first parent did not build: nothing tells cs from it (nor from
	 * the untestable commits below it), so they are the candidates.
	 */
	if (c->nr_parents > 0 && r->in[c->parents[0]] &&
	    st->c[c->parents[0]].build == BISECT_BUILD_FAILED) {
		range_candidate(st, cs);
		for (q = c->parents[0]; r->in[q] &&
		    st->c[q].build == BISECT_BUILD_FAILED;
		    q = st->c[q].parents[0]) {
			range_candidate(st, q);
			if (st->c[q].nr_parents == 0)
				break;
		}
		return BISECT_AMBIGUOUS;
	}
	for (k = 0; k <= c->nr_parents; k++) {
		if (k < c->nr_parents) {
			q = c->parents[k];
			if (st->c[q].build == BISECT_BUILD_FAILED ||
			    !(r->in[q] || range_is_good(r, q) ||
			    range_n(st, q) > 0))
				continue;
			qs = st->c[q].samples;
			nq = range_n(st, q);
		} else {
			if (compared)
				break;
			q = (size_t)-1;
			qs = g;
			nq = ng;
		}
		compared = 1;
		p = bisect_stat_mw(qs, nq, c->samples, range_n(st, cs),
		    range_alt(st));
		if (first == (size_t)-1 && k < c->nr_parents) {
			first = q;
			p_first = p;
		} else if (q == (size_t)-1)
			p_first = p;
		if (range_n(st, cs) >= n_conf && nq >= n_conf &&
		    p < ALPHA_CONFIRM)
			continue;
		all = 0;
		if (st->spent) {
			st->cut = 1;
			continue;
		}
		if (range_n(st, cs) < st->max_runs || (q != (size_t)-1 ?
		    range_n(st, q) < st->max_runs : 0)) {
			if (range_middle(st, r, cs, g, ng))
				return range_split(st, r, cs, 1, 1);
			if (q != (size_t)-1 && range_middle(st, r, q, g, ng))
				return range_split(st, r, q, 1, 1);
			/*
			 * The side behind grows by k_re (cs first on a tie: with
			 * one slot, only the first want is served); a side far
			 * ahead, from an earlier look, is not matched at once.
			 */
			n_cs = range_n(st, cs);
			cs_grows = c->build != BISECT_BUILD_FAILED &&
			    n_cs < st->max_runs && n_cs <= nq;
			if (cs_grows && k == 0)
				range_pair_begin(st, NULL);
			if (cs_grows)
				bisect_range_want(st, cs, n_cs + k_re < n_conf ?
				    n_conf : (unsigned)n_cs + k_re);
			target = (unsigned)nq + (!cs_grows || nq == n_cs ?
			    k_re : 0);
			if (target < n_conf)
				target = n_conf;
			if (q != (size_t)-1)
				bisect_range_want(st, q, target);
			else
				range_want_goods(st, r, target);
			grow = 1;
		}
	}
	if (!all && grow)
		return BISECT_CONTINUE;

	/* found: confirmed, or as sure as max_runs samples allow */
	if (first != (size_t)-1)
		range_record(st, cs, st->c[first].samples, range_n(st, first),
		    p_first);
	else
		range_record(st, cs, g, ng, p_first);
	for (k = 0; k < st->nr_found; k++)
		if (st->found[k].commit == cs)
			break;
	explained = range_shift_v != 0 ?
	    100 * st->found[k].step / range_shift_v : 100;
	if (r->depth >= MAX_DEPTH)
		return BISECT_FOUND;
	sides = bisect_posterior_second(st, r, cs, g, ng);
	if (explained < EXPLAIN_MIN)
		sides = 3;
	/* either part's ends already look apart: test it, with more samples */
	if (bisect_stat_mw(c->samples, range_n(st, cs),
	    st->c[r->top].samples, range_n(st, r->top), range_alt(st)) <
	    ALPHA_HINT)
		sides |= 1;
	if (first != (size_t)-1 && bisect_stat_mw(g, ng,
	    st->c[first].samples, range_n(st, first), range_alt(st)) <
	    ALPHA_HINT)
		sides |= 2;
	/* the rest of the change is above cs or below its first parent */
	s = BISECT_FOUND;
	if ((sides & 2) && first != (size_t)-1 && r->in[first])
		s = range_combine(s, range_split(st, r, first, 1, 0));
	if (sides & 1)
		s = range_combine(s, range_split(st, r, cs, 0, 1));
	return s;
}

static double
range_balance(double p, double q)
{
	return p < q ? p / q : (1 - p) / (1 - q);
}

/*
 * The commits to sample next. The first slot takes the commit whose
 * sample tells most (the largest gain: for known levels, the one nearest
 * the posterior median, git bisect's midpoint weighted by the posterior),
 * a commit already built when it tells nearly as much as a new one; the
 * bad end or the good ends when their levels are what is in doubt. More
 * slots take the commits nearest the other quantiles of the posterior
 * (1/3 and 2/3 for two...) among those worth a sample. Returns the best
 * gain, below BAL_MIN when nothing is worth sampling.
 */
static double
range_search(struct bisect_state *st, const struct bisect_range *r,
    unsigned k_new, unsigned k_re)
{
	unsigned	 slots = st->in->slots ? st->in->slots : 1, j;
	long		 k;
	size_t		 i, best_new = (size_t)-1, best_old = (size_t)-1, pick;
	size_t		 ng = 0;
	double		 q, bn = 0, bo = 0, b, best;
	unsigned char	*taken = st->mark;
	int		 end = 0;

	memset(taken, 0, st->nr);
	for (i = 0; i < r->nr_goods; i++)
		ng += range_n(st, r->goods[i]);
	for (i = 0; i < st->nr; i++) {
		if (!r->in[i] || i == r->top || !range_testable(st, i))
			continue;
		b = st->gain[i];
		if (range_n(st, i) == 0) {
			if (b > bn) {
				bn = b;
				best_new = i;
			}
		} else if (b > bo) {
			bo = b;
			best_old = i;
		}
	}
	/* the ends are built and sampled already */
	if (range_n(st, r->top) < st->max_runs && st->gain_top > bo) {
		bo = st->gain_top;
		best_old = r->top;
		end = 1;
	}
	if (ng < st->max_runs * r->nr_goods && st->gain_goods > bo) {
		bo = st->gain_goods;
		best_old = (size_t)-1;
		end = 2;
	}
	best = bo > bn ? bo : bn;
	if (best < BAL_MIN)
		return best;
	if ((best_old != (size_t)-1 || end == 2) && bo >= LAMBDA_OLD * bn) {
		if (end == 2)
			range_want_goods(st, r, (unsigned)(ng + k_re *
			    r->nr_goods));
		else {
			bisect_range_want(st, best_old,
			    (unsigned)(range_n(st, best_old) + k_re));
			taken[best_old] = 1;
		}
	} else {
		bisect_range_want(st, best_new, k_new);
		taken[best_new] = 1;
	}

	for (j = 1; j < slots; j++) {
		/*
		 * the quantiles k / (slots + 1) from the middle out, but for
		 * the one nearest the median, which the first pick took
		 */
		k = (slots + 1) / 2 + (j % 2 ? (j + 1) / 2 : -(long)(j / 2));
		if (slots % 2 == 0)
			k = slots / 2 + (j % 2 ? (j + 1) / 2 : -(long)(j / 2));
		q = (double)k / (slots + 1);
		pick = (size_t)-1;
		bn = 0;
		for (i = 0; i < st->nr; i++) {
			if (!r->in[i] || i == r->top || taken[i] ||
			    !range_testable(st, i) || st->gain[i] < BAL_MIN)
				continue;
			b = range_balance(st->pbad[i], q);
			if (range_n(st, i) > 0)
				b /= LAMBDA_OLD;
			if (b > bn) {
				bn = b;
				pick = i;
			}
		}
		if (pick == (size_t)-1)
			break;
		taken[pick] = 1;
		bisect_range_want(st, pick, (unsigned)(range_n(st, pick) == 0 ?
		    k_new : range_n(st, pick) + k_re));
	}
	return best;
}

/* Would a commit that builds still split the mass, but for max_runs? */
static int
range_capped(const struct bisect_state *st, const struct bisect_range *r)
{
	size_t	i;
	double	p;

	for (i = 0; i < st->nr; i++) {
		if (!r->in[i] || i == r->top ||
		    st->c[i].build == BISECT_BUILD_FAILED)
			continue;
		p = st->pbad[i];
		if (2 * (p < 0.5 ? p : 1 - p) >= BAL_MIN)
			return 1;
	}
	return 0;
}

enum bisect_status
bisect_range_decide(struct bisect_state *st, const struct bisect_range *r)
{
	struct bisect_model	 m;
	double			*g = NULL, shift = 0, p = 1;
	size_t			 ng, i, cs, n_set, n99 = 1, *set = NULL;
	unsigned		 n_end = 0, n_max, k_new, k_re, k_conf;
	int			 ends;
	enum bisect_status	 s;

	if (r->depth == 0)
		n_max = st->ends_max > st->max_runs ? st->ends_max :
		    st->max_runs;
	else {
		n_max = (unsigned)(SUB_CAP * st->root_n);
		if (n_max < 4 * st->first_runs)
			n_max = 4 * st->first_runs;
		if (n_max > st->max_runs)
			n_max = st->max_runs;
	}
	ends = range_ends(st, r, r->depth == 0 ? ALPHA_CHANGE : ALPHA_SUB,
	    n_max, &shift, &p, &n_end);
	if (ends < 0 && st->spent) {
		/* the look cannot finish: its ends were not shown apart */
		st->cut = 1;
		if (r->depth == 0) {
			g = range_goods(st, r, &ng);
			range_set_detectable(st, r, g, ng,
			    st->c[r->top].samples, range_n(st, r->top),
			    range_n(st, r->top) > ng ?
			    (unsigned)range_n(st, r->top) : (unsigned)ng,
			    ALPHA_CHANGE);
			free(g);
		}
		return BISECT_NO_CHANGE;
	}
	if (ends < 0) {
		for (i = 0, n_set = 0; i < st->nr; i++)
			n_set += r->in[i];
		range_progress(st, n_set);
		if (st->in->slots > 1)
			bisect_rounds_ends(st, r);
		return BISECT_CONTINUE;
	}
	if (ends == 0)
		return BISECT_NO_CHANGE;
	if (r->depth == 0)
		st->root_n = n_end;

	g = range_goods(st, r, &ng);
	bisect_posterior(st, r, g, ng, &m);
	k_new = bisect_model_batch(&m, st->max_runs);
	k_re = (k_new + 1) / 2;
	/* the confirmation's two sides share the slots too */
	k_conf = st->in->slots > 1 ? bisect_rounds_regrow(k_re,
	    st->in->slots) : k_re;

	set = range_top_mass(st, r, 1 - EPS_FOUND, &n_set);
	cs = set[0];
	free(range_top_mass(st, r, 0.99, &n99));
	if (st->post[cs] >= 1 - EPS_FOUND) {
		s = range_confirm(st, r, cs, g, ng, shift, k_conf);
		goto out;
	}
	if ((st->in->slots > 1 ? bisect_rounds_search(st, r, m.effect, k_re,
	    BAL_MIN) : range_search(st, r, k_new, k_re)) >= BAL_MIN) {
		s = BISECT_CONTINUE;
		if (!st->spent)
			goto out;
		/*
		 * The budget is spent: the commits holding the mass are the
		 * candidates (the wants just made are dropped).
		 */
		st->cut = 1;
		for (i = 0; i < n_set; i++)
			range_candidate(st, set[i]);
		s = BISECT_AMBIGUOUS;
		goto out;
	}
	/*
	 * Nothing left to sample splits the mass. When only commits that do
	 * not build could split it, the culprit is one of the set; when a
	 * commit that builds could, but has max_runs samples already, the
	 * most probable commit is the answer, as sure as the cap allows.
	 */
	if (n_set == 1 || range_capped(st, r)) {
		s = range_confirm(st, r, cs, g, ng, shift, k_conf);
		goto out;
	}
	for (i = 0; i < n_set; i++)
		range_candidate(st, set[i]);
	s = BISECT_AMBIGUOUS;
out:
	/* a part decided inside range_confirm has shown its progress first */
	if (s == BISECT_CONTINUE)
		range_progress(st, n99);
	free(set);
	free(g);
	return s;
}
