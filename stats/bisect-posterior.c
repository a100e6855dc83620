/*
 * The posterior over a culprit's position in one range, where a sample
 * would tell most, and whether the samples point to a second culprit; the
 * noise scale is fitted first and held fixed, and positions that split the
 * samples alike share one fit (docs/design.md, "File notes").
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-model.h"
#include "stats/bisect-posterior.h"
#include "util/xalloc.h"

static size_t
bisect_posterior_n(const struct bisect_state *st, size_t i)
{
	return st->c[i].nr_samples;
}

static void
bisect_posterior_mark_fn(size_t a, void *payload)
{
	((unsigned char *)payload)[a] = 1;
}

struct posterior_sig {
	uint64_t		*sig;		/* words per commit */
	size_t			 words;
	size_t			 bit;
	const unsigned char	*in;
};

static void
bisect_posterior_sig_fn(size_t a, void *payload)
{
	struct posterior_sig *rs = payload;

	if (rs->in[a])
		rs->sig[a * rs->words + rs->bit / 64] |=
		    (uint64_t)1 << (rs->bit % 64);
}

/*
 * Each commit's signature: bit j set when the j-th tested commit is its
 * ancestor in the range, so that positions that split the samples alike
 * sort together.
 */
static void
bisect_posterior_sigs(struct bisect_state *st,
    const struct bisect_range *r, const size_t *tested, size_t nt,
    struct posterior_sig *rs)
{
	size_t	j;

	rs->words = nt / 64 + 1;
	rs->sig = xcalloc(st->nr * rs->words, sizeof *rs->sig);
	rs->in = r->in;
	for (j = 0; j < nt; j++) {
		rs->bit = j;
		bisect_graph_ancestors(&st->g, tested[j],
		    bisect_posterior_sig_fn, rs);
	}
}

static int
bisect_posterior_cmp_sig(const void *a, const void *b, void *payload)
{
	const struct posterior_sig	*rs = payload;
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
bisect_posterior_scale(const struct bisect_state *st, const struct bisect_range *r,
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
	n[1] = bisect_posterior_n(st, r->top);
	for (k = 0; k < nt; k++) {
		x[k + 2] = st->c[tested[k]].samples;
		n[k + 2] = bisect_posterior_n(st, tested[k]);
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
bisect_posterior_gain_of(double e, double e2)
{
	double v = e2 - e * e;

	if (!(v > 0))
		return 0;
	if (v > 0.25)
		v = 0.25;
	return 1 - sqrt(1 - 4 * v);
}

static void
bisect_posterior_gain(struct bisect_state *st, const struct bisect_range *r,
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
			st->gain[i] = bisect_posterior_gain_of(e[i], e2[i]);
	st->gain_top = bisect_posterior_gain_of(t[0], t[1]);
	st->gain_goods = bisect_posterior_gain_of(t[2], t[3]);
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
void
bisect_posterior(struct bisect_state *st, const struct bisect_range *r,
    const double *g, size_t ng, struct bisect_model *m)
{
	struct posterior_sig	 rs;
	struct bisect_model	 fit;
	size_t			*tested, nt = 0, *order, no = 0, i, j, k, run;
	size_t			 nb, n_good, total = ng, w;
	double			*gs, *bs, max = -INFINITY, sum = 0, scale;
	double			*mg = st->lvl, *mb = st->lvl + st->nr;
	const double		*x;

	tested = xcalloc(st->nr, sizeof *tested);
	order = xcalloc(st->nr, sizeof *order);
	for (i = 0; i < st->nr; i++) {
		if (r->in[i] && i != r->top && bisect_posterior_n(st, i) > 0)
			tested[nt++] = i;
		if (r->in[i])
			order[no++] = i;
		if (r->in[i] || i == r->top)
			total += bisect_posterior_n(st, i);
	}
	scale = bisect_posterior_scale(st, r, tested, nt, g, ng);
	bisect_posterior_sigs(st, r, tested, nt, &rs);
	qsort_r(order, no, sizeof *order, bisect_posterior_cmp_sig, &rs);

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
		for (w = 0; w < bisect_posterior_n(st, r->top); w++)
			bs[nb++] = x[w];
		for (j = 0; j < nt; j++) {
			int bad = (sg[j / 64] >> (j % 64)) & 1;

			x = st->c[tested[j]].samples;
			for (w = 0; w < bisect_posterior_n(st, tested[j]); w++) {
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
	/*
	 * A commit whose image is its first parent's ran what its parent
	 * ran: it cannot be the culprit (unless nothing else could be).
	 */
	if (st->same_parent != NULL) {
		for (i = 0, k = 0; i < st->nr; i++)
			if (r->in[i] && !st->same_parent[i])
				k++;
		for (i = 0; k > 0 && i < st->nr; i++)
			if (st->same_parent[i])
				st->logpost[i] = -INFINITY;
	}
	for (i = 0; i < st->nr; i++)
		if (st->logpost[i] > max)
			max = st->logpost[i];
	for (i = 0; i < st->nr; i++) {
		st->post[i] = r->in[i] && st->logpost[i] > -INFINITY ?
		    exp(st->logpost[i] - max) : 0;
		sum += st->post[i];
	}
	for (i = 0; i < st->nr; i++)
		st->post[i] /= sum;
	bisect_graph_sums(&st->g, st->post, st->pbad);
	bisect_posterior_gain(st, r, m, mg, mb);
	free(gs);
	free(bs);
	free(rs.sig);
	free(tested);
	free(order);
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

/* the samples of two or three levels (good, middle, bad) for a fit */
struct posterior_levels {
	double	*buf[3];
	size_t	 n[3];
};

static int
bisect_posterior_bit(const uint64_t *sig, size_t j)
{
	return (sig[j / 64] >> (j % 64)) & 1;
}

static void
bisect_posterior_add(struct posterior_levels *pl, int grp,
    const struct bisect_state *st, size_t who)
{
	size_t	q;

	for (q = 0; q < bisect_posterior_n(st, who); q++)
		pl->buf[grp][pl->n[grp]++] = st->c[who].samples[q];
}

/*
 * Three levels with cs and a second culprit of signature sg, above cs
 * (side 0) or below it (side 1); pl->buf[0] starts with the ng samples
 * of the good ends. Returns 0 when no commit is in the middle or the
 * middle is not between the others, else 1 with the fit's likelihood.
 */
static int
bisect_posterior_three(struct posterior_levels *pl,
    const struct bisect_state *st, const struct bisect_range *r,
    const size_t *tested, size_t nt, const uint64_t *sc, const uint64_t *sg,
    size_t side, size_t ng, double scale, double *ll3)
{
	double	loc[3];
	size_t	j;
	int	bad, two;

	pl->n[0] = ng;
	pl->n[1] = pl->n[2] = 0;
	bisect_posterior_add(pl, 2, st, r->top);
	for (j = 0; j < nt; j++) {
		bad = bisect_posterior_bit(sc, j);
		two = bisect_posterior_bit(sg, j);
		/* above: c2 makes bad; below: cs does */
		if (side == 0 ? two : bad)
			bisect_posterior_add(pl, 2, st, tested[j]);
		else if (side == 0 ? bad : two)
			bisect_posterior_add(pl, 1, st, tested[j]);
		else
			bisect_posterior_add(pl, 0, st, tested[j]);
	}
	if (pl->n[1] == 0)
		return 0;
	*ll3 = bisect_model_level(pl->buf[0], pl->n[0], scale, &loc[0]) +
	    bisect_model_level(pl->buf[1], pl->n[1], scale, &loc[1]) +
	    bisect_model_level(pl->buf[2], pl->n[2], scale, &loc[2]);
	/* both changes the same way: the middle in between */
	return (loc[1] - loc[0]) * (loc[2] - loc[1]) > 0;
}

/* the two levels split at cs, the good ends' samples first in buf[0] */
static double
bisect_posterior_two(struct posterior_levels *pl,
    const struct bisect_state *st, const struct bisect_range *r,
    const size_t *tested, size_t nt, const uint64_t *sc, const double *g,
    size_t ng, double scale)
{
	double	loc[3];
	size_t	j;

	pl->n[0] = pl->n[1] = pl->n[2] = 0;
	memcpy(pl->buf[0], g, ng * sizeof *g);
	pl->n[0] = ng;
	bisect_posterior_add(pl, 2, st, r->top);
	for (j = 0; j < nt; j++)
		bisect_posterior_add(pl, bisect_posterior_bit(sc, j) ? 2 : 0,
		    st, tested[j]);
	return bisect_model_level(pl->buf[0], pl->n[0], scale, &loc[0]) +
	    bisect_model_level(pl->buf[2], pl->n[2], scale, &loc[2]);
}

int
bisect_posterior_second(struct bisect_state *st,
    const struct bisect_range *r, size_t cs, const double *g, size_t ng)
{
	struct posterior_sig	 rs;
	struct posterior_levels	 pl;
	size_t			*tested, nt = 0, *order, no = 0, i, k, run;
	size_t			 total = ng, cnt[2], side, members;
	double			 scale, ll2, ll3, lse[2];
	double			 max[2] = { -INFINITY, -INFINITY };
	unsigned char		*anc;
	const uint64_t		*sc, *sg;
	int			 ret = 0;

	tested = xcalloc(st->nr, sizeof *tested);
	order = xcalloc(st->nr, sizeof *order);
	for (i = 0; i < st->nr; i++) {
		if (r->in[i] && i != r->top && bisect_posterior_n(st, i) > 0)
			tested[nt++] = i;
		if (r->in[i] && i != cs)
			order[no++] = i;
		if (r->in[i] || i == r->top)
			total += bisect_posterior_n(st, i);
	}
	scale = bisect_posterior_scale(st, r, tested, nt, g, ng);
	bisect_posterior_sigs(st, r, tested, nt, &rs);
	anc = xcalloc(st->nr, 1);
	bisect_graph_ancestors(&st->g, cs, bisect_posterior_mark_fn, anc);
	qsort_r(order, no, sizeof *order, bisect_posterior_cmp_sig, &rs);
	for (k = 0; k < 3; k++)
		pl.buf[k] = xcalloc(total + 1, sizeof *pl.buf[k]);
	sc = rs.sig + cs * rs.words;
	ll2 = bisect_posterior_two(&pl, st, r, tested, nt, sc, g, ng, scale);

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
			members = 0;
			for (i = k; i < run; i++)
				members += (anc[order[i]] ? 1 : 0) == side;
			if (members == 0 || !bisect_posterior_three(&pl, st, r,
			    tested, nt, sc, sg, side, ng, scale, &ll3))
				continue;
			ll3 += log((double)members);
			if (ll3 > max[side]) {
				lse[side] = lse[side] *
				    exp(max[side] - ll3) + 1;
				max[side] = ll3;
			} else
				lse[side] += exp(ll3 - max[side]);
		}
	}
	for (side = 0; side < 2; side++) {
		if (cnt[side] == 0 || lse[side] == 0)
			continue;
		if (max[side] + log(lse[side]) - log((double)cnt[side]) - ll2 >
		    log(BF_SECOND))
			ret |= side == 0 ? 1 : 2;
	}
	for (k = 0; k < 3; k++)
		free(pl.buf[k]);
	free(anc);
	free(rs.sig);
	free(tested);
	free(order);
	return ret;
}
