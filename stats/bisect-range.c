/*
 * Deciding one range of a bisection, in the order of DESIGN §4: first
 * whether its ends differ at all (a sequential rank test: more samples of
 * both ends until it is decisive or the cap is hit); then a posterior over
 * the culprit's position (the commits having the culprit as an ancestor
 * are bad), from every sample taken so far, so that an early wrong call
 * is revised as soon as later samples disagree with it; then the commits
 * to sample next, those that split the posterior mass most evenly over
 * the DAG, preferring more samples of a commit already built when its
 * side is still in doubt; then, once the mass sits on one commit, that
 * commit against its parents. A culprit that explains too little of the
 * change, or a commit whose level lies half-way between the ends', splits
 * the range in two, and each part is decided the same way.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-model.h"
#include "stats/bisect-range.h"
#include "stats/bisect-stat.h"
#include "util/xalloc.h"

#define ALPHA_CHANGE	0.001	/* the whole range's ends, at each look */
#define ALPHA_SUB	0.005	/* a part's ends, at each look */
#define ALPHA_CONFIRM	0.05	/* culprit against its parents */
#define ALPHA_MIDDLE	0.001	/* a level apart from both ends' */
#define ALPHA_HINT	0.1	/* worth a look for a second culprit */
#define EPS_FOUND	0.01	/* posterior mass left off the culprit */
#define BAL_MIN		(EPS_FOUND / 2)	/* a split worth sampling for */
#define EXPLAIN_MIN	70.0	/* % of the change a lone culprit explains */
#define LAMBDA_OLD	0.6	/* built commit over new one, balance ratio */
#define MAX_DEPTH	3

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

void
bisect_range_want(struct bisect_state *st, size_t commit, unsigned samples)
{
	size_t	i;

	if (samples > st->max_runs)
		samples = st->max_runs;
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

static unsigned
range_grow(unsigned n)
{
	unsigned next = (unsigned)ceil(n * 1.5);

	return next > n ? next : n + 1;
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
	unsigned	 target = st->first_runs, next;
	int		 ret = -1;

	if (target > n_max)
		target = n_max;
	g = range_goods(st, r, &ng);
	if (nb < target || ng < target) {
		bisect_range_want(st, r->top, target);
		range_want_goods(st, r, target);
		goto out;
	}
	for (;;) {
		next = range_grow(target);
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
	if (min_eff > 0) {
		range_shift(g, ng, b, nb, 0.99, shift, &pct, &lo, &hi);
		if (lo > -min_eff && hi < min_eff) {
			ret = 0;
			goto out;
		}
	}
	if (target >= n_max) {
		ret = 0;
		goto out;
	}
	target = range_grow(target);
	if (target > n_max)
		target = n_max;
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

struct range_sig {
	uint64_t		*sig;		/* words per commit */
	size_t			 words;
	size_t			 bit;
	const unsigned char	*in;
};

static void
range_sig_fn(size_t a, void *payload)
{
	struct range_sig *rs = payload;

	if (rs->in[a])
		rs->sig[a * rs->words + rs->bit / 64] |=
		    (uint64_t)1 << (rs->bit % 64);
}

static int
range_cmp_sig(const void *a, const void *b, void *payload)
{
	const struct range_sig	*rs = payload;
	size_t			 x = *(const size_t *)a, y = *(const size_t *)b;
	int			 c;

	c = memcmp(rs->sig + x * rs->words, rs->sig + y * rs->words,
	    rs->words * sizeof *rs->sig);
	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

/* the noise scale, from every sampled commit's spread around itself */
static double
range_scale(const struct bisect_state *st, const struct bisect_range *r,
    const size_t *tested, size_t nt, const double *g, size_t ng)
{
	const double	**x;
	size_t		 *n, k;
	double		  s;

	x = xcalloc(nt + 2, sizeof *x);
	n = xcalloc(nt + 2, sizeof *n);
	x[0] = g;
	n[0] = ng;
	x[1] = st->c[r->top].samples;
	n[1] = range_n(st, r->top);
	for (k = 0; k < nt; k++) {
		x[k + 2] = st->c[tested[k]].samples;
		n[k + 2] = range_n(st, tested[k]);
	}
	s = bisect_model_scale(x, n, nt + 2);
	free(x);
	free(n);
	return s;
}

/*
 * How much one more sample of each commit would tell. Each culprit
 * position c predicts a level for every commit (the bad level of c's
 * split if c is its ancestor, else the good one); where the positions
 * that hold the posterior mass predict different levels, a sample
 * discriminates between them. The posterior variance of the predicted
 * level, in units of the best split's change, is P(1 - P) for a commit
 * that is bad with probability P when every split agrees on the levels;
 * it is turned into the balance 2 min(P, 1 - P) that it would be then.
 * When the splits disagree on the levels themselves (is the bad level
 * known from more than the bad end's few samples?), the ends are the
 * ones worth sampling, and this says so.
 */
static double
range_gain_of(double e, double e2)
{
	double v = e2 - e * e;

	if (!(v > 0))
		return 0;
	if (v > 0.25)
		v = 0.25;
	return 1 - sqrt(1 - 4 * v);
}

static void
range_gain(struct bisect_state *st, const struct bisect_range *r,
    const struct bisect_model *m, double *mg, double *mb)
{
	double	*w = st->lvl + 2 * st->nr, *sum = st->lvl + 3 * st->nr;
	double	*e = st->lvl + 4 * st->nr, *e2 = st->lvl + 5 * st->nr;
	double	 delta = m->bad - m->good, t[4] = { 0, 0, 0, 0 };
	size_t	 i, pass;

	for (i = 0; i < st->nr; i++) {
		st->gain[i] = 0;
		e[i] = e2[i] = 0;
		if (!r->in[i] || !(delta != 0)) {
			mg[i] = mb[i] = 0;
			continue;
		}
		mg[i] = (mg[i] - m->good) / delta;
		mb[i] = (mb[i] - m->good) / delta;
	}
	/* E[level] and E[level^2] at each commit, by ancestor sums */
	for (pass = 0; pass < 4; pass++) {
		const double	*lv = pass < 2 ? mb : mg;
		int		 sq = pass % 2;

		for (i = 0; i < st->nr; i++) {
			w[i] = r->in[i] ? st->post[i] * (sq ? lv[i] * lv[i] :
			    lv[i]) : 0;
			t[pass] += w[i];
		}
		bisect_graph_sums(&st->g, w, sum);
		for (i = 0; i < st->nr; i++) {
			double *acc = sq ? e2 : e;

			/* bad-level terms over ancestors, good over the rest */
			acc[i] += pass < 2 ? sum[i] : t[pass] - sum[i];
		}
	}
	for (i = 0; i < st->nr; i++)
		if (r->in[i])
			st->gain[i] = range_gain_of(e[i], e2[i]);
	st->gain_top = range_gain_of(t[0], t[1]);
	st->gain_goods = range_gain_of(t[2], t[3]);
}

/*
 * The posterior over the culprit's position. A culprit c splits the
 * sampled commits into good ones (c is not their ancestor) and bad ones;
 * c's likelihood is that of the split, both levels fitted to all its
 * samples and integrated out. Commits that split the samples alike share
 * one fit. The scale is fixed beforehand from the spread of each commit
 * around itself: a scale fitted with the split would widen to swallow a
 * wrong split. post[] and pbad[] = P(commit is bad) are filled, and m gets
 * the fit of the most likely split.
 */
static void
range_posterior(struct bisect_state *st, const struct bisect_range *r,
    const double *g, size_t ng, struct bisect_model *m)
{
	struct range_sig	 rs;
	struct bisect_model	 fit;
	size_t			*tested, nt = 0, *order, no = 0, i, j, k, run;
	size_t			 nb, n_good, total = ng, w;
	double			*gs, *bs, max = -INFINITY, sum = 0, scale;
	double			*mg = st->lvl, *mb = st->lvl + st->nr;
	const double		*x;

	tested = xcalloc(st->nr, sizeof *tested);
	order = xcalloc(st->nr, sizeof *order);
	for (i = 0; i < st->nr; i++) {
		if (r->in[i] && i != r->top && range_n(st, i) > 0)
			tested[nt++] = i;
		if (r->in[i])
			order[no++] = i;
		if (r->in[i] || i == r->top)
			total += range_n(st, i);
	}
	scale = range_scale(st, r, tested, nt, g, ng);
	rs.words = nt / 64 + 1;
	rs.sig = xcalloc(st->nr * rs.words, sizeof *rs.sig);
	rs.in = r->in;
	for (j = 0; j < nt; j++) {
		rs.bit = j;
		bisect_graph_ancestors(&st->g, tested[j], range_sig_fn, &rs);
	}
	qsort_r(order, no, sizeof *order, range_cmp_sig, &rs);

	gs = xcalloc(total + 1, sizeof *gs);
	bs = xcalloc(total + 1, sizeof *bs);
	memcpy(gs, g, ng * sizeof *gs);
	for (i = 0; i < st->nr; i++)
		st->logpost[i] = -INFINITY;
	m->loglik = -INFINITY;
	for (k = 0; k < no; k = run) {
		const uint64_t *sg = rs.sig + order[k] * rs.words;

		for (run = k + 1; run < no && memcmp(sg, rs.sig + order[run] *
		    rs.words, rs.words * sizeof *sg) == 0; run++)
			;
		n_good = ng;
		nb = 0;
		x = st->c[r->top].samples;
		for (w = 0; w < range_n(st, r->top); w++)
			bs[nb++] = x[w];
		for (j = 0; j < nt; j++) {
			int bad = (sg[j / 64] >> (j % 64)) & 1;

			x = st->c[tested[j]].samples;
			for (w = 0; w < range_n(st, tested[j]); w++) {
				if (bad)
					bs[nb++] = x[w];
				else
					gs[n_good++] = x[w];
			}
		}
		bisect_model_fit(&fit, scale, gs, n_good, bs, nb);
		if (fit.loglik > m->loglik)
			*m = fit;
		for (i = k; i < run; i++) {
			st->logpost[order[i]] = fit.loglik;
			mg[order[i]] = fit.good;
			mb[order[i]] = fit.bad;
		}
	}
	for (i = 0; i < st->nr; i++)
		if (st->logpost[i] > max)
			max = st->logpost[i];
	for (i = 0; i < st->nr; i++) {
		st->post[i] = r->in[i] ? exp(st->logpost[i] - max) : 0;
		sum += st->post[i];
	}
	for (i = 0; i < st->nr; i++)
		st->post[i] /= sum;
	bisect_graph_sums(&st->g, st->post, st->pbad);
	range_gain(st, r, m, mg, mb);
	free(gs);
	free(bs);
	free(rs.sig);
	free(tested);
	free(order);
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
 * Is there a second change besides cs? The two-level split at cs is
 * weighed against three levels: a second culprit c2 above cs (the commits
 * between cs and c2 at a level of their own, between good and bad) or
 * below it, c2's position summed over with a uniform prior, all with
 * every sample taken. Returns 1 when a change above is BF_SECOND times
 * likelier than none, 2 below, 3 both. The samples of the commits the
 * bisection tested on either side of cs carry this evidence; the culprit
 * against its parent alone would not.
 */
#define BF_SECOND	1.0

static int
range_second(struct bisect_state *st, const struct bisect_range *r, size_t cs,
    const double *g, size_t ng)
{
	struct range_sig	 rs;
	size_t			*tested, nt = 0, *order, no = 0, i, j, k, run;
	size_t			 n[3], total = ng, cnt[2], side, q;
	double			*buf[3], loc[3], scale, ll2, ll3, lse[2];
	double			 max[2] = { -INFINITY, -INFINITY };
	unsigned char		*anc;
	const uint64_t		*sc, *sg;
	int			 ret = 0, bad, two;

	tested = xcalloc(st->nr, sizeof *tested);
	order = xcalloc(st->nr, sizeof *order);
	for (i = 0; i < st->nr; i++) {
		if (r->in[i] && i != r->top && range_n(st, i) > 0)
			tested[nt++] = i;
		if (r->in[i] && i != cs)
			order[no++] = i;
		if (r->in[i] || i == r->top)
			total += range_n(st, i);
	}
	scale = range_scale(st, r, tested, nt, g, ng);
	rs.words = nt / 64 + 1;
	rs.sig = xcalloc(st->nr * rs.words, sizeof *rs.sig);
	rs.in = r->in;
	for (j = 0; j < nt; j++) {
		rs.bit = j;
		bisect_graph_ancestors(&st->g, tested[j], range_sig_fn, &rs);
	}
	anc = xcalloc(st->nr, 1);
	bisect_graph_ancestors(&st->g, cs, range_mark_fn, anc);
	qsort_r(order, no, sizeof *order, range_cmp_sig, &rs);
	for (k = 0; k < 3; k++)
		buf[k] = xcalloc(total + 1, sizeof *buf[k]);
	sc = rs.sig + cs * rs.words;

#define BIT(sig, j)	(((sig)[(j) / 64] >> ((j) % 64)) & 1)
#define ADD(grp, who) do {					\
	for (q = 0; q < range_n(st, (who)); q++)			\
		buf[grp][n[grp]++] = st->c[(who)].samples[q];		\
} while (0)

	/* two levels, split at cs */
	n[0] = n[1] = n[2] = 0;
	memcpy(buf[0], g, ng * sizeof *g);
	n[0] = ng;
	ADD(2, r->top);
	for (j = 0; j < nt; j++)
		ADD(BIT(sc, j) ? 2 : 0, tested[j]);
	ll2 = bisect_model_level(buf[0], n[0], scale, &loc[0]) +
	    bisect_model_level(buf[2], n[2], scale, &loc[2]);

	lse[0] = lse[1] = 0;
	cnt[0] = cnt[1] = 0;
	for (k = 0; k < no; k = run) {
		sg = rs.sig + order[k] * rs.words;
		for (run = k + 1; run < no && memcmp(sg, rs.sig + order[run] *
		    rs.words, rs.words * sizeof *sg) == 0; run++)
			;
		for (i = k; i < run; i++)
			cnt[anc[order[i]] ? 1 : 0]++;
		if (memcmp(sg, sc, rs.words * sizeof *sg) == 0)
			continue;
		for (side = 0; side < 2; side++) {
			size_t members = 0;

			for (i = k; i < run; i++)
				members += (anc[order[i]] ? 1 : 0) == side;
			if (members == 0)
				continue;
			n[0] = ng;
			n[1] = n[2] = 0;
			ADD(2, r->top);
			for (j = 0; j < nt; j++) {
				bad = BIT(sc, j);
				two = BIT(sg, j);
				/* above: c2 makes bad; below: cs does */
				if (side == 0 ? two : bad)
					ADD(2, tested[j]);
				else if (side == 0 ? bad : two)
					ADD(1, tested[j]);
				else
					ADD(0, tested[j]);
			}
			if (n[1] == 0)
				continue;
			ll3 = bisect_model_level(buf[0], n[0], scale, &loc[0]) +
			    bisect_model_level(buf[1], n[1], scale, &loc[1]) +
			    bisect_model_level(buf[2], n[2], scale, &loc[2]);
			/* both changes the same way: the middle in between */
			if (!((loc[1] - loc[0]) * (loc[2] - loc[1]) > 0))
				continue;
			ll3 += log((double)members);
			if (ll3 > max[side]) {
				lse[side] = lse[side] * exp(max[side] - ll3) + 1;
				max[side] = ll3;
			} else
				lse[side] += exp(ll3 - max[side]);
		}
	}
#undef ADD
#undef BIT
	for (side = 0; side < 2; side++) {
		if (cnt[side] == 0 || lse[side] == 0)
			continue;
		if (max[side] + log(lse[side]) - log((double)cnt[side]) - ll2 >
		    log(BF_SECOND))
			ret |= side == 0 ? 1 : 2;
	}
	for (k = 0; k < 3; k++)
		free(buf[k]);
	free(anc);
	free(rs.sig);
	free(tested);
	free(order);
	return ret;
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
	size_t				 k, q, nq, first = (size_t)-1;
	const double			*qs;
	double				 p, p_first = 1, explained;
	int				 all = 1, grow = 0, compared = 0, sides;
	enum bisect_status		 s;

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
		if (range_n(st, cs) < st->max_runs || (q != (size_t)-1 ?
		    range_n(st, q) < st->max_runs : 0)) {
			if (range_middle(st, r, cs, g, ng))
				return range_split(st, r, cs, 1, 1);
			if (q != (size_t)-1 && range_middle(st, r, q, g, ng))
				return range_split(st, r, q, 1, 1);
			bisect_range_want(st, cs, (unsigned)(range_n(st, cs) <
			    n_conf ? n_conf : range_n(st, cs) + k_re));
			if (q != (size_t)-1)
				bisect_range_want(st, q, (unsigned)(nq <
				    n_conf ? n_conf : nq + k_re));
			else
				range_want_goods(st, r, (unsigned)(nq < n_conf ?
				    n_conf : nq + k_re));
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
	sides = range_second(st, r, cs, g, ng);
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
	unsigned		 n_end = 0, n_max, k_new, k_re;
	int			 ends;
	enum bisect_status	 s;

	if (r->depth == 0)
		n_max = st->max_runs;
	else {
		n_max = (unsigned)(3 * st->root_n);
		if (n_max < 4 * st->first_runs)
			n_max = 4 * st->first_runs;
		if (n_max > st->max_runs)
			n_max = st->max_runs;
	}
	ends = range_ends(st, r, r->depth == 0 ? ALPHA_CHANGE : ALPHA_SUB,
	    n_max, &shift, &p, &n_end);
	if (ends < 0) {
		for (i = 0, n_set = 0; i < st->nr; i++)
			n_set += r->in[i];
		range_progress(st, n_set);
		return BISECT_CONTINUE;
	}
	if (ends == 0)
		return BISECT_NO_CHANGE;
	if (r->depth == 0)
		st->root_n = n_end;

	g = range_goods(st, r, &ng);
	range_posterior(st, r, g, ng, &m);
	k_new = bisect_model_batch(&m, st->max_runs);
	k_re = (k_new + 1) / 2;

	set = range_top_mass(st, r, 1 - EPS_FOUND, &n_set);
	cs = set[0];
	free(range_top_mass(st, r, 0.99, &n99));
	if (st->post[cs] >= 1 - EPS_FOUND) {
		s = range_confirm(st, r, cs, g, ng, shift, k_re);
		goto out;
	}
	if (range_search(st, r, k_new, k_re) >= BAL_MIN) {
		s = BISECT_CONTINUE;
		goto out;
	}
	/*
	 * Nothing left to sample splits the mass. When only commits that do
	 * not build could split it, the culprit is one of the set; when a
	 * commit that builds could, but has max_runs samples already, the
	 * most probable commit is the answer, as sure as the cap allows.
	 */
	if (n_set == 1 || range_capped(st, r)) {
		s = range_confirm(st, r, cs, g, ng, shift, k_re);
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
