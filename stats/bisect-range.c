/*
 * Deciding one range of a bisection, in the order of DESIGN §4: whether
 * its ends differ (bisect-range-ends.c), the posterior over the culprit's
 * position, the commits to sample next, then the culprit against its
 * parents; a second change splits the range (docs/design.md, "File
 * notes").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-model.h"
#include "stats/bisect-posterior.h"
#include "stats/bisect-range.h"
#include "stats/bisect-range-ends.h"
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
#define SUB_CAP		6	/* a part's ends: times the whole range's look */

static size_t
bisect_range_n(const struct bisect_state *st, size_t i)
{
	return st->c[i].nr_samples;
}

static int
bisect_range_testable(const struct bisect_state *st, size_t i)
{
	return st->c[i].build != BISECT_BUILD_FAILED &&
	    bisect_range_n(st, i) < st->max_runs;
}

static int
bisect_range_root_end(const struct bisect_state *st, size_t i)
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
	if (st->ends_max > cap && bisect_range_root_end(st, commit))
		cap = st->ends_max;
	if (samples > cap)
		samples = cap;
	if (st->c[commit].build == BISECT_BUILD_FAILED ||
	    bisect_range_n(st, commit) >= samples)
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
double *
bisect_range_goods(const struct bisect_state *st, const struct bisect_range *r,
    size_t *n)
{
	double	*g;
	size_t	 i, k = 0, total = 0;

	for (i = 0; i < r->nr_goods; i++)
		total += bisect_range_n(st, r->goods[i]);
	g = xcalloc(total ? total : 1, sizeof *g);
	for (i = 0; i < r->nr_goods; i++) {
		if (bisect_range_n(st, r->goods[i]) == 0)
			continue;
		memcpy(g + k, st->c[r->goods[i]].samples,
		    bisect_range_n(st, r->goods[i]) * sizeof *g);
		k += bisect_range_n(st, r->goods[i]);
	}
	*n = total;
	return g;
}

void
bisect_range_want_goods(struct bisect_state *st, const struct bisect_range *r,
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
void
bisect_range_pair_begin(struct bisect_state *st, const struct bisect_range *r)
{
	if (st->nr_wants == 0 && st->timed && (r == NULL ||
	    (r->depth == 0 && r->nr_goods == 1)))
		st->pair = 1;
}


static int
bisect_range_is_good(const struct bisect_range *r, size_t i)
{
	size_t	k;

	for (k = 0; k < r->nr_goods; k++)
		if (r->goods[k] == i)
			return 1;
	return 0;
}

static int
bisect_range_cmp_post(const void *a, const void *b, void *payload)
{
	const double	*post = payload;
	size_t		 x = *(const size_t *)a, y = *(const size_t *)b;

	if (post[x] != post[y])
		return post[x] > post[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* the fewest commits holding mass of the posterior, most probable first */
static size_t *
bisect_range_top_mass(const struct bisect_state *st,
    const struct bisect_range *r, double mass, size_t *n)
{
	size_t	*v, k = 0, i;
	double	 acc = 0;

	v = xcalloc(st->nr ? st->nr : 1, sizeof *v);
	for (i = 0; i < st->nr; i++)
		if (r->in[i])
			v[k++] = i;
	qsort_r(v, k, sizeof *v, bisect_range_cmp_post, st->post);
	for (i = 0; i < k && acc < mass; i++)
		acc += st->post[v[i]];
	*n = i ? i : k;
	return v;
}

static void
bisect_range_progress(struct bisect_state *st, size_t remaining)
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
bisect_range_mark_fn(size_t a, void *payload)
{
	((unsigned char *)payload)[a] = 1;
}

static enum bisect_status
bisect_range_combine(enum bisect_status a, enum bisect_status b)
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
bisect_range_candidate(struct bisect_state *st, size_t i)
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
bisect_range_split(struct bisect_state *st, const struct bisect_range *r,
    size_t m, int below, int above)
{
	struct bisect_range	 lo, hi;
	unsigned char		*anc;
	size_t			 i, nlo = 0, nhi = 0, goods_hi[1] = { m };
	enum bisect_status	 s = BISECT_NO_CHANGE, t = BISECT_NO_CHANGE;

	anc = xcalloc(st->nr, 1);
	bisect_graph_ancestors(&st->g, m, bisect_range_mark_fn, anc);
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
	return bisect_range_combine(s, t);
}

/* x's level is apart from both ends', and between them */
static int
bisect_range_middle(const struct bisect_state *st, const struct bisect_range *r,
    size_t x, const double *g, size_t ng)
{
	const double	*b = st->c[r->top].samples, *xs = st->c[x].samples;
	size_t		 nb = bisect_range_n(st, r->top),
	    nx = bisect_range_n(st, x);
	enum bisect_stat_alt alt = bisect_range_ends_alt(st);

	if (x == r->top || nx < st->first_runs || !r->in[x])
		return 0;
	return bisect_stat_mw(g, ng, xs, nx, alt) < ALPHA_MIDDLE &&
	    bisect_stat_mw(xs, nx, b, nb, alt) < ALPHA_MIDDLE;
}

static void
bisect_range_record(struct bisect_state *st, size_t cs, const double *q,
    size_t nq, double p)
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
	bisect_range_ends_shift(q, nq, st->c[cs].samples,
	    bisect_range_n(st, cs), 0.95, &f->step, &f->change_pct, &f->ci_lo,
	    &f->ci_hi);
}

/*
 * cs did not build (the most probable of commits no sample tells apart):
 * the candidates are the untestable commits around it and the first
 * testable one above them, which is returned (cs when there is none).
 */
static size_t
bisect_range_confirm_built(struct bisect_state *st,
    const struct bisect_range *r, size_t cs)
{
	size_t	k, q;

	if (st->c[cs].build != BISECT_BUILD_FAILED)
		return cs;
	for (q = cs; q != (size_t)-1 && r->in[q]; ) {
		bisect_range_candidate(st, q);
		if (st->c[q].build != BISECT_BUILD_FAILED)
			break;
		for (k = 0; k < st->nr; k++)
			if (r->in[k] && st->c[k].nr_parents > 0 &&
			    st->c[k].parents[0] == q)
				break;
		q = k < st->nr ? k : (size_t)-1;
	}
	return q != (size_t)-1 && r->in[q] ? q : cs;
}

/*
 * cs's first parent did not build: nothing tells cs from it (nor from
 * the untestable commits below it), so they are the candidates. 1 then.
 */
static int
bisect_range_confirm_untestable_parent(struct bisect_state *st,
    const struct bisect_range *r, size_t cs)
{
	const struct bisect_commit	*c = &st->c[cs];
	size_t				 q;

	if (!(c->nr_parents > 0 && r->in[c->parents[0]] &&
	    st->c[c->parents[0]].build == BISECT_BUILD_FAILED))
		return 0;
	bisect_range_candidate(st, cs);
	for (q = c->parents[0]; r->in[q] &&
	    st->c[q].build == BISECT_BUILD_FAILED; q = st->c[q].parents[0]) {
		bisect_range_candidate(st, q);
		if (st->c[q].nr_parents == 0)
			break;
	}
	return 1;
}

/*
 * cs is found (first its first parent sampled, (size_t)-1 when it was
 * compared with the good ends; p_first that test's p): record it, and
 * when it explains too little of the range's change, or the samples
 * point to a second change beside it, look on either side of it.
 */
static enum bisect_status
bisect_range_confirm_found(struct bisect_state *st,
    const struct bisect_range *r, size_t cs, const double *g, size_t ng,
    double range_shift_v, size_t first, double p_first)
{
	const struct bisect_commit	*c = &st->c[cs];
	double				 explained;
	size_t				 k;
	int				 sides;
	enum bisect_status		 s;

	/* found: confirmed, or as sure as max_runs samples allow */
	if (first != (size_t)-1)
		bisect_range_record(st, cs, st->c[first].samples,
		    bisect_range_n(st, first), p_first);
	else
		bisect_range_record(st, cs, g, ng, p_first);
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
	if (bisect_stat_mw(c->samples, bisect_range_n(st, cs),
	    st->c[r->top].samples, bisect_range_n(st, r->top),
	    bisect_range_ends_alt(st)) < ALPHA_HINT)
		sides |= 1;
	if (first != (size_t)-1 && bisect_stat_mw(g, ng,
	    st->c[first].samples, bisect_range_n(st, first),
	    bisect_range_ends_alt(st)) < ALPHA_HINT)
		sides |= 2;
	/* the rest of the change is above cs or below its first parent */
	s = BISECT_FOUND;
	if ((sides & 2) && first != (size_t)-1 && r->in[first])
		s = bisect_range_combine(s,
		    bisect_range_split(st, r, first, 1, 0));
	if (sides & 1)
		s = bisect_range_combine(s,
		    bisect_range_split(st, r, cs, 0, 1));
	return s;
}

/*
 * The culprit cs against each of its parents (the good ends when none of
 * its parents was sampled): enough samples on both sides, and cs worse,
 * significantly. Then, when it explains too little of the range's change,
 * look on either side of it.
 */
static enum bisect_status
bisect_range_confirm(struct bisect_state *st, const struct bisect_range *r,
    size_t cs, const double *g, size_t ng, double range_shift_v,
    unsigned k_re)
{
	const struct bisect_commit	*c;
	unsigned			 n_conf = st->first_runs < 4 ? 4 :
					    st->first_runs;
	size_t				 k, q, nq, first = (size_t)-1, n_cs;
	const double			*qs;
	double				 p, p_first = 1;
	int				 all = 1, grow = 0, compared = 0;
	int				 cs_grows;
	unsigned			 target;

	cs = bisect_range_confirm_built(st, r, cs);
	c = &st->c[cs];
	if (bisect_range_confirm_untestable_parent(st, r, cs))
		return BISECT_AMBIGUOUS;
	for (k = 0; k <= c->nr_parents; k++) {
		if (k < c->nr_parents) {
			q = c->parents[k];
			if (st->c[q].build == BISECT_BUILD_FAILED ||
			    !(r->in[q] || bisect_range_is_good(r, q) ||
			    bisect_range_n(st, q) > 0))
				continue;
			qs = st->c[q].samples;
			nq = bisect_range_n(st, q);
		} else {
			if (compared)
				break;
			q = (size_t)-1;
			qs = g;
			nq = ng;
		}
		compared = 1;
		p = bisect_stat_mw(qs, nq, c->samples, bisect_range_n(st, cs),
		    bisect_range_ends_alt(st));
		if (first == (size_t)-1 && k < c->nr_parents) {
			first = q;
			p_first = p;
		} else if (q == (size_t)-1)
			p_first = p;
		if (bisect_range_n(st, cs) >= n_conf && nq >= n_conf &&
		    p < ALPHA_CONFIRM)
			continue;
		all = 0;
		if (st->spent) {
			st->cut = 1;
			continue;
		}
		if (bisect_range_n(st, cs) < st->max_runs || (q != (size_t)-1 ?
		    bisect_range_n(st, q) < st->max_runs : 0)) {
			if (bisect_range_middle(st, r, cs, g, ng))
				return bisect_range_split(st, r, cs, 1, 1);
			if (q != (size_t)-1 &&
			    bisect_range_middle(st, r, q, g, ng))
				return bisect_range_split(st, r, q, 1, 1);
			/*
			 * The side behind grows by k_re (cs first on a tie: with
			 * one slot, only the first want is served); a side far
			 * ahead, from an earlier look, is not matched at once.
			 */
			n_cs = bisect_range_n(st, cs);
			cs_grows = c->build != BISECT_BUILD_FAILED &&
			    n_cs < st->max_runs && n_cs <= nq;
			if (cs_grows && k == 0)
				bisect_range_pair_begin(st, NULL);
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
				bisect_range_want_goods(st, r, target);
			grow = 1;
		}
	}
	if (!all && grow)
		return BISECT_CONTINUE;
	return bisect_range_confirm_found(st, r, cs, g, ng, range_shift_v,
	    first, p_first);
}

static double
bisect_range_balance(double p, double q)
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
bisect_range_search(struct bisect_state *st, const struct bisect_range *r,
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
		ng += bisect_range_n(st, r->goods[i]);
	for (i = 0; i < st->nr; i++) {
		if (!r->in[i] || i == r->top || !bisect_range_testable(st, i))
			continue;
		b = st->gain[i];
		if (bisect_range_n(st, i) == 0) {
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
	if (bisect_range_n(st, r->top) < st->max_runs && st->gain_top > bo) {
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
			bisect_range_want_goods(st, r, (unsigned)(ng + k_re *
			    r->nr_goods));
		else {
			bisect_range_want(st, best_old,
			    (unsigned)(bisect_range_n(st, best_old) + k_re));
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
			    !bisect_range_testable(st, i) ||
			    st->gain[i] < BAL_MIN)
				continue;
			b = bisect_range_balance(st->pbad[i], q);
			if (bisect_range_n(st, i) > 0)
				b /= LAMBDA_OLD;
			if (b > bn) {
				bn = b;
				pick = i;
			}
		}
		if (pick == (size_t)-1)
			break;
		taken[pick] = 1;
		bisect_range_want(st, pick,
		    (unsigned)(bisect_range_n(st, pick) == 0 ? k_new :
		    bisect_range_n(st, pick) + k_re));
	}
	return best;
}

/* Would a commit that builds still split the mass, but for max_runs? */
static int
bisect_range_capped(const struct bisect_state *st, const struct bisect_range *r)
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
	ends = bisect_range_ends(st, r, r->depth == 0 ? ALPHA_CHANGE :
	    ALPHA_SUB, n_max, &shift, &p, &n_end);
	if (ends < 0 && st->spent) {
		/* the look cannot finish: its ends were not shown apart */
		st->cut = 1;
		if (r->depth == 0) {
			g = bisect_range_goods(st, r, &ng);
			bisect_range_ends_set_detectable(st, r, g, ng,
			    st->c[r->top].samples, bisect_range_n(st, r->top),
			    bisect_range_n(st, r->top) > ng ?
			    (unsigned)bisect_range_n(st, r->top) : (unsigned)ng,
			    ALPHA_CHANGE);
			free(g);
		}
		return BISECT_NO_CHANGE;
	}
	if (ends < 0) {
		for (i = 0, n_set = 0; i < st->nr; i++)
			n_set += r->in[i];
		bisect_range_progress(st, n_set);
		if (st->in->slots > 1)
			bisect_rounds_ends(st, r);
		return BISECT_CONTINUE;
	}
	if (ends == 0)
		return BISECT_NO_CHANGE;
	if (r->depth == 0)
		st->root_n = n_end;

	g = bisect_range_goods(st, r, &ng);
	bisect_posterior(st, r, g, ng, &m);
	k_new = bisect_model_batch(&m, st->max_runs);
	k_re = (k_new + 1) / 2;
	/* the confirmation's two sides share the slots too */
	k_conf = st->in->slots > 1 ? bisect_rounds_regrow(k_re,
	    st->in->slots) : k_re;

	set = bisect_range_top_mass(st, r, 1 - EPS_FOUND, &n_set);
	cs = set[0];
	free(bisect_range_top_mass(st, r, 0.99, &n99));
	if (st->post[cs] >= 1 - EPS_FOUND) {
		s = bisect_range_confirm(st, r, cs, g, ng, shift, k_conf);
		goto out;
	}
	if ((st->in->slots > 1 ? bisect_rounds_search(st, r, m.effect, k_re,
	    BAL_MIN) : bisect_range_search(st, r, k_new, k_re)) >= BAL_MIN) {
		s = BISECT_CONTINUE;
		if (!st->spent)
			goto out;
		/*
		 * The budget is spent: the commits holding the mass are the
		 * candidates (the wants just made are dropped).
		 */
		st->cut = 1;
		for (i = 0; i < n_set; i++)
			bisect_range_candidate(st, set[i]);
		s = BISECT_AMBIGUOUS;
		goto out;
	}
	/*
	 * Nothing left to sample splits the mass. When only commits that do
	 * not build could split it, the culprit is one of the set; when a
	 * commit that builds could, but has max_runs samples already, the
	 * most probable commit is the answer, as sure as the cap allows.
	 */
	if (n_set == 1 || bisect_range_capped(st, r)) {
		s = bisect_range_confirm(st, r, cs, g, ng, shift, k_conf);
		goto out;
	}
	for (i = 0; i < n_set; i++)
		bisect_range_candidate(st, set[i]);
	s = BISECT_AMBIGUOUS;
out:
	/* one decided in bisect_range_confirm showed its progress there */
	if (s == BISECT_CONTINUE)
		bisect_range_progress(st, n99);
	free(set);
	free(g);
	return s;
}
