/*
 * k-point rounds and speculative builds (see bisect-rounds.h and
 * docs/bisection.md, "Rounds over several slots"). With one slot the
 * driver tests the posterior's weighted midpoint; with k it tests the k
 * commits nearest the quantiles j / (k + 1), so that a round of decisive
 * samples leaves a (k + 1)-th of the mass (the last round: the candidates
 * and their parents); bisect-rounds-spec.c names the next round's
 * likeliest points, under each outcome of this one, as builds to start.
 */
#include <math.h>
#include <gsl/gsl_cdf.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-pair.h"
#include "stats/bisect-posterior.h"
#include "stats/bisect-rounds.h"
#include "stats/bisect-stat.h"
#include "util/xalloc.h"


#define ROUNDS_NATS	6.0	/* one point's odds, as bisect_model_batch */
#define ROUNDS_TOL	0.25	/* of the quantiles' spacing, for a build */
#define ROUNDS_FLOOR	2.0	/* a point's batch, in the job's runs, at least */
#define ROUNDS_ENDS	1.5	/* the ends' first look, times k job runs */
#define ROUNDS_PAIRS	2	/* the fresh check's first look, pairs per slot */
#define ROUNDS_FIRST	2.0	/* beside the ends' first look, in job runs */
#define ROUNDS_SENTINEL	3	/* the reference's runs in a batch, no drift */
#define ROUNDS_NEXT	4	/* runs apart, a burst's partner at most */
#define ROUNDS_GROUPS	4	/* of the sentinel's runs, for the drift test */
#define ROUNDS_MASS	0.99	/* the last round's candidates hold this */
#define ROUNDS_HINT	0.1	/* ends this far apart: a full round beside */
#define ROUNDS_Z	2.326	/* the effect's lower bound: one-sided 1% */

size_t
bisect_rounds_points(size_t *out, unsigned k, const double *cdf,
    const unsigned char *eligible, const unsigned char *built, size_t nr)
{
	unsigned char	*taken = xcalloc(nr ? nr : 1, 1);
	double		 tol = ROUNDS_TOL / (k + 1), q, d, bd;
	size_t		 i, n = 0, pick;
	unsigned	 j;

	for (j = 1; j <= k; j++) {
		q = (double)j / (k + 1);
		pick = (size_t)-1;
		bd = INFINITY;
		for (i = 0; i < nr; i++) {
			if (!eligible[i] || taken[i])
				continue;
			d = fabs(cdf[i] - q);
			if (built != NULL && built[i])
				d -= tol;
			if (d < bd) {
				bd = d;
				pick = i;
			}
		}
		if (pick == (size_t)-1)
			break;
		taken[pick] = 1;
		out[n++] = pick;
	}
	free(taken);
	return n;
}

unsigned
bisect_rounds_batch(double effect, unsigned k, unsigned max)
{
	double	want, nats = ROUNDS_NATS + log(k ? (double)k : 1);

	/* one sample moves the log odds by effect^2 / 2 on average */
	want = effect > 0 ? 2 * nats / (effect * effect) : (double)max;
	if (!(want < (double)max))
		want = max;
	if (want < 2)
		want = 2;
	return (unsigned)ceil(want);
}

double
bisect_rounds_low(double effect, size_t ng, size_t nb)
{
	double	se, low;

	if (!(effect > 0) || ng < 2 || nb < 2)
		return 0;
	/* the standardized difference's standard error (Hedges and Olkin) */
	se = sqrt(1.0 / (double)ng + 1.0 / (double)nb + effect * effect /
	    (2.0 * (double)(ng + nb - 2)));
	low = effect - ROUNDS_Z * se;
	return low > 0 ? low : 0;
}

unsigned
bisect_rounds_floor(double low, unsigned k, unsigned first_runs,
    unsigned max)
{
	unsigned	floor = (unsigned)ceil(ROUNDS_FLOOR * first_runs);
	unsigned	at = bisect_rounds_batch(low, k, max);

	if (at < first_runs)
		at = first_runs;
	return at < floor ? at : floor;
}

unsigned
bisect_rounds_grow(unsigned n, unsigned k)
{
	unsigned	add = (unsigned)ceil(n * 0.5), per = (k + 1) / 2;

	if (add < 1)
		add = 1;
	return n + add * (per > 1 ? per / 2 : 1);
}

unsigned
bisect_rounds_first(unsigned first_runs, unsigned k)
{
	if (k <= 1)
		return first_runs;
	return (unsigned)ceil(first_runs * k * ROUNDS_ENDS);
}

unsigned
bisect_rounds_pairs(unsigned first, unsigned k)
{
	unsigned	want = ROUNDS_PAIRS * k;

	return k > 1 && want > first ? want : first;
}

unsigned
bisect_rounds_regrow(unsigned k_re, unsigned k)
{
	return (k_re > 2 ? k_re : 2) * (k ? k : 1);
}

static void
bisect_rounds_spec_add(struct bisect_state *st, const size_t *x, size_t n)
{
	size_t	i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < st->nr_spec; k++)
			if (st->spec[k] == x[i])
				break;
		if (k < st->nr_spec)
			continue;
		ALLOC_GROW(st->spec, st->nr_spec, st->alloc_spec);
		st->spec[st->nr_spec++] = x[i];
	}
}

static int
bisect_rounds_built(const struct bisect_state *st, size_t i)
{
	return st->c[i].nr_samples > 0 || st->c[i].build != BISECT_BUILD_UNKNOWN;
}

/*
 * The samples to ask of point i: a new one the round's batch; one sampled
 * already what moves its odds from where they stand (its P(bad)) to the
 * round's decisive odds, at least a third of the batch.
 */
static unsigned
bisect_rounds_more(const struct bisect_state *st, size_t i, double effect,
    unsigned k, unsigned batch)
{
	size_t	n = st->c[i].nr_samples;
	double	p = st->pbad[i], lo, need, add;

	if (n == 0)
		return batch;
	if (p < 1e-12)
		p = 1e-12;
	if (p > 1 - 1e-12)
		p = 1 - 1e-12;
	lo = fabs(log(p / (1 - p)));
	need = ROUNDS_NATS + log(k ? (double)k : 1) - lo;
	add = effect > 0 ? 2 * need / (effect * effect) : batch;
	if (add < batch / 3.0)
		add = batch / 3.0;
	if (add > batch)
		add = batch;
	return (unsigned)n + (unsigned)ceil(add);
}

static const double *rounds_sort_post;

static int
bisect_rounds_cmp_post(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;

	if (rounds_sort_post[x] != rounds_sort_post[y])
		return rounds_sort_post[x] > rounds_sort_post[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int
bisect_rounds_testable(const struct bisect_state *st,
    const struct bisect_range *r, size_t i)
{
	return r->in[i] && i != r->top && st->c[i].build !=
	    BISECT_BUILD_FAILED && st->c[i].nr_samples < st->max_runs;
}

/*
 * The last round: when the commits holding ROUNDS_MASS of the posterior
 * and their first parents fit in the k slots, they are the round's
 * points, so that the culprit and its parent are sampled in the round
 * that names it and the confirmation needs no round of its own. Writes
 * them to out (at most k); 0 when they do not fit.
 */
static size_t
bisect_rounds_close(const struct bisect_state *st, const struct bisect_range *r,
    size_t *out, unsigned k)
{
	size_t	*ord = xcalloc(st->nr + 1, sizeof *ord);
	size_t	 i, j, n = 0, no = 0, x, p;
	double	 mass = 0;

	for (i = 0; i < st->nr; i++)
		if (r->in[i] && st->post[i] > 0)
			ord[no++] = i;
	rounds_sort_post = st->post;
	qsort(ord, no, sizeof *ord, bisect_rounds_cmp_post);
	for (i = 0; i < no && mass < ROUNDS_MASS; i++) {
		mass += st->post[ord[i]];
		for (j = 0; j < 2; j++) {
			x = ord[i];
			if (j == 1) {
				if (st->c[x].nr_parents == 0)
					continue;
				x = st->c[x].parents[0];
			}
			if (!bisect_rounds_testable(st, r, x))
				continue;
			for (p = 0; p < n && out[p] != x; p++)
				;
			if (p < n)
				continue;
			if (n == k) {
				n = 0;
				goto out;
			}
			out[n++] = x;
		}
	}
	if (mass < ROUNDS_MASS)
		n = 0;
out:
	free(ord);
	return n;
}

/*
 * How many commits of the range hold ROUNDS_MASS of the posterior.
 */
static size_t
bisect_rounds_mass_count(const struct bisect_state *st,
    const struct bisect_range *r)
{
	size_t	*ord = xcalloc(st->nr + 1, sizeof *ord);
	size_t	 i, no = 0;
	double	 mass = 0;

	for (i = 0; i < st->nr; i++)
		if (r->in[i] && st->post[i] > 0)
			ord[no++] = i;
	rounds_sort_post = st->post;
	qsort(ord, no, sizeof *ord, bisect_rounds_cmp_post);
	for (i = 0; i < no && mass < ROUNDS_MASS; i++)
		mass += st->post[ord[i]];
	free(ord);
	return i;
}

/*
 * The last round's tail: the likeliest culprit and its first parent get
 * the fresh check's first look in pairs beyond every other point's runs,
 * so that the batch ends with them alone (bisectd/dispatch.c runs a
 * commit's j-th run in the batch's j-th round) and the check passes in
 * the round that names the culprit when the guess is right.
 */
static void
bisect_rounds_tail(struct bisect_state *st, const struct bisect_range *r,
    const size_t *pts, size_t n, unsigned left)
{
	size_t		 i, j, c = (size_t)-1, p, in_c = 0, in_p = 0;
	unsigned	 most = 0, add, pairs;
	double		 best = -1;

	for (i = 0; i < st->nr; i++)
		if (r->in[i] && st->post[i] > best) {
			best = st->post[i];
			c = i;
		}
	if (c == (size_t)-1 || c == r->top || st->c[c].nr_parents == 0)
		return;
	p = st->c[c].parents[0];
	if (st->c[p].build == BISECT_BUILD_FAILED)
		return;
	for (i = 0; i < n; i++) {
		in_c |= pts[i] == c;
		in_p |= pts[i] == p;
	}
	if (!in_c || (!in_p && n >= left))
		return;
	for (j = 0; j < st->nr_wants; j++) {
		size_t x = st->wants[j].commit;

		if (x == c || x == p)
			continue;
		add = st->wants[j].samples > st->c[x].nr_samples ?
		    st->wants[j].samples - (unsigned)st->c[x].nr_samples : 0;
		if (add > most)
			most = add;
	}
	pairs = bisect_rounds_pairs(BISECT_PAIR_FIRST, st->in->slots);
	bisect_range_want(st, c, (unsigned)st->c[c].nr_samples + most + pairs);
	bisect_range_want(st, p, (unsigned)st->c[p].nr_samples + most + pairs);
}

double
bisect_rounds_search(struct bisect_state *st, const struct bisect_range *r,
    double effect, unsigned k_re, double bal_min)
{
	unsigned	 k = st->in->slots, left = k, batch, floor_;
	unsigned char	*elig = xcalloc(st->nr + 1, 1);
	unsigned char	*next = xcalloc(st->nr + 1, 1);
	unsigned char	*built = xcalloc(st->nr + 1, 1);
	size_t		*pts = xcalloc(k + 1, sizeof *pts);
	size_t		*spec = xcalloc((size_t)k * (k + 1) + 1, sizeof *spec);
	size_t		 i, n, ng = 0, nspec;
	double		 best = 0, inner = 0, low;
	int		 closing;

	for (i = 0; i < r->nr_goods; i++)
		ng += st->c[r->goods[i]].nr_samples;
	low = bisect_rounds_low(effect, ng, st->c[r->top].nr_samples);
	for (i = 0; i < st->nr; i++) {
		built[i] = (unsigned char)bisect_rounds_built(st, i);
		if (!r->in[i] || i == r->top ||
		    st->c[i].build == BISECT_BUILD_FAILED)
			continue;
		next[i] = 1;
		if (st->c[i].nr_samples >= st->max_runs)
			continue;
		if (st->gain[i] > inner)
			inner = st->gain[i];
		elig[i] = st->gain[i] >= bal_min;
	}
	best = inner;
	/* the ends first when their levels are what is in doubt */
	if (st->c[r->top].nr_samples < st->max_runs &&
	    st->gain_top >= bal_min && st->gain_top >= inner && left > 0) {
		bisect_range_want(st, r->top,
		    (unsigned)(st->c[r->top].nr_samples + k_re));
		left--;
		if (st->gain_top > best)
			best = st->gain_top;
	}
	if (ng < st->max_runs * r->nr_goods && st->gain_goods >= bal_min &&
	    st->gain_goods >= inner && left > 0) {
		for (i = 0; i < r->nr_goods; i++)
			bisect_range_want(st, r->goods[i], (unsigned)((ng +
			    k_re * r->nr_goods + r->nr_goods - 1) /
			    r->nr_goods));
		left--;
		if (st->gain_goods > best)
			best = st->gain_goods;
	}
	if (best < bal_min)
		goto out;
	/*
	 * Never fewer than twice the job's runs (a small batch misleads a
	 * round) unless the ends' runs bound the change, from below, at an
	 * effect that fewer decide (bisect_rounds_floor), and the round is
	 * not among the last k + 1 candidates, whose runs the confirmation
	 * of the culprit against its parent takes up.
	 */
	batch = bisect_rounds_batch(effect, k, st->max_runs);
	floor_ = bisect_rounds_floor(low, k, st->first_runs, st->max_runs);
	/* a round among the last candidates: their runs confirm the culprit */
	if (bisect_rounds_mass_count(st, r) <= k + 1)
		floor_ = (unsigned)ceil(ROUNDS_FLOOR * st->first_runs);
	if (batch < floor_)
		batch = floor_;
	n = bisect_rounds_close(st, r, pts, left);
	closing = n > 0;
	if (n == 0)
		n = bisect_rounds_points(pts, left, st->pbad, elig, built,
		    st->nr);
	/* fewer points than slots: the slots left over sample them more */
	if (n > 0 && n < left)
		batch *= (left + n - 1) / n;
	for (i = 0; i < n; i++)
		bisect_range_want(st, pts[i], bisect_rounds_more(st, pts[i],
		    effect, k, batch));
	if (closing)
		bisect_rounds_tail(st, r, pts, n, left);
	nspec = bisect_rounds_spec(spec, (size_t)k * (k + 1), &st->g,
	    st->post, next, built, pts, n, k, st->nr);
	bisect_rounds_spec_add(st, spec, nspec);
out:
	free(elig);
	free(next);
	free(built);
	free(pts);
	free(spec);
	return best;
}

/*
 * While the ends are told apart, a full round of k points rides beside
 * them (bisect_rounds_cap lets the ends pass the slots): the quantiles of
 * a flat prior (first look), or of the posterior the ends' samples so far
 * give (a later look), at the decisive batch. Their runs share the ends'
 * batch, which bisectd/dispatch.c interleaves on every machine, so that a
 * drift hits the ends and the points alike. When the ends do not differ
 * the points' runs are the price. A part's ends (a second culprit?) run
 * alone, the builders building that part's first points meanwhile.
 */
void
bisect_rounds_ends(struct bisect_state *st, const struct bisect_range *r)
{
	unsigned	 k = st->in->slots, left, batch;
	double		*post = xcalloc(st->nr + 1, sizeof *post);
	double		*cdf = xcalloc(st->nr + 1, sizeof *cdf);
	double		*g = NULL;
	unsigned char	*elig = xcalloc(st->nr + 1, 1);
	unsigned char	*built = xcalloc(st->nr + 1, 1);
	unsigned char	*next = xcalloc(st->nr + 1, 1);
	size_t		*pts = xcalloc(k + 1, sizeof *pts);
	size_t		*spec = xcalloc((size_t)k * (k + 1) + 1, sizeof *spec);
	size_t		 i, j, n = 0, m = 0, ng = 0, nspec;
	struct bisect_model mod;
	int		 looked;

	left = k;
	for (i = 0; i < st->nr; i++)
		n += r->in[i];
	for (i = 0; i < r->nr_goods; i++)
		ng += st->c[r->goods[i]].nr_samples;
	/* a later look: the posterior, as if the ends differed */
	looked = r->depth == 0 && ng >= st->first_runs && st->c[r->top].nr_samples >=
	    st->first_runs;
	batch = (unsigned)ceil(ROUNDS_FIRST * st->first_runs);
	if (looked) {
		g = xcalloc(ng + 1, sizeof *g);
		for (i = 0, ng = 0; i < r->nr_goods; i++)
			for (j = 0; j < st->c[r->goods[i]].nr_samples; j++)
				g[ng++] = st->c[r->goods[i]].samples[j];
		bisect_posterior(st, r, g, ng, &mod);
		/* ends alike so far: only the slots they leave */
		if (!(bisect_stat_mw(g, ng, st->c[r->top].samples,
		    st->c[r->top].nr_samples, st->sign > 0 ? BISECT_STAT_GREATER :
		    st->sign < 0 ? BISECT_STAT_LESS : BISECT_STAT_TWO_SIDED) <
		    ROUNDS_HINT))
			left = k > st->nr_wants ? k - (unsigned)st->nr_wants : 0;
		for (i = 0; i < st->nr; i++)
			post[i] = r->in[i] ? st->post[i] : 0;
		if (mod.effect > 0 && bisect_rounds_batch(mod.effect, left,
		    st->max_runs) > batch)
			batch = bisect_rounds_batch(mod.effect, left,
			    st->max_runs);
	} else
		for (i = 0; i < st->nr; i++)
			post[i] = r->in[i] && n ? 1.0 / (double)n : 0;
	for (i = 0; i < st->nr; i++)
		built[i] = (unsigned char)bisect_rounds_built(st, i);
	bisect_graph_sums(&st->g, post, cdf);
	for (i = 0; i < st->nr; i++) {
		next[i] = r->in[i] && i != r->top &&
		    st->c[i].build != BISECT_BUILD_FAILED;
		elig[i] = next[i] && st->c[i].nr_samples < st->max_runs &&
		    cdf[i] > BISECT_ROUNDS_EDGE && cdf[i] < 1 - BISECT_ROUNDS_EDGE;
	}
	n = 0;
	/* a part's ends (a second culprit?) are only a check: builds */
	if (left > 0 && r->depth == 0)
		n = bisect_rounds_points(pts, left, cdf, elig, built, st->nr);
	for (i = 0; i < n; i++)
		bisect_range_want(st, pts[i], (unsigned)(st->c[pts[i]].nr_samples
		    == 0 ? batch : st->c[pts[i]].nr_samples + (batch + 1) / 2));
	if (n > 0) {
		/* the next round's likeliest points, as builds */
		nspec = bisect_rounds_spec(spec, (size_t)k * (k + 1),
		    &st->g, post, next, built, pts, n, k, st->nr);
		bisect_rounds_spec_add(st, spec, nspec);
	} else {
		/* no slot beside the ends: this round's points, as builds */
		n = bisect_rounds_points(pts, k, cdf, elig, built, st->nr);
		for (i = 0; i < n; i++)
			if (!built[pts[i]])
				pts[m++] = pts[i];
		bisect_rounds_spec_add(st, pts, m);
	}
	free(g);
	free(post);
	free(cdf);
	free(elig);
	free(built);
	free(next);
	free(pts);
	free(spec);
}

size_t
bisect_rounds_cap(const struct bisect_state *st, unsigned slots)
{
	size_t	i, j, n = slots;

	if (slots < 2)
		return slots;
	for (i = 0; i < st->nr_wants && i < slots; i++) {
		if (st->wants[i].commit == st->root_top) {
			n++;
			continue;
		}
		for (j = 0; j < st->nr_root_goods; j++)
			if (st->wants[i].commit == st->root_goods[j]) {
				n++;
				break;
			}
	}
	return n;
}

static int
bisect_rounds_cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Does the reference's level move from batch to batch? Its runs in time
 * order, in groups of ROUNDS_SENTINEL (what a batch without drift gives
 * it): the F test of the groups' means of the logs against the spread
 * within them, at BISECT_TIME_ALPHA. A drift or a burst that outlasts a
 * few runs moves a group's mean.
 */
static int
bisect_rounds_drift(const struct bisect_commit *ref,
    const struct bisect_time_run *runs, const size_t *at, size_t na)
{
	size_t	 j, g, ng = na / ROUNDS_SENTINEL, n = ng * ROUNDS_SENTINEL;
	double	 all = 0, mean, l, between = 0, within = 0, f;
	double	*gm = xcalloc(ng + 1, sizeof *gm);

	if (ng < ROUNDS_GROUPS) {
		free(gm);
		return 0;
	}
	/* the latest runs, whole groups */
	for (j = na - n; j < na; j++) {
		l = log(ref->samples[runs[at[j]].k]);
		gm[(j - (na - n)) / ROUNDS_SENTINEL] += l / ROUNDS_SENTINEL;
		all += l / (double)n;
	}
	for (j = na - n; j < na; j++) {
		l = log(ref->samples[runs[at[j]].k]);
		mean = gm[(j - (na - n)) / ROUNDS_SENTINEL];
		within += (l - mean) * (l - mean);
	}
	for (g = 0; g < ng; g++)
		between += ROUNDS_SENTINEL * (gm[g] - all) * (gm[g] - all);
	free(gm);
	if (!(within > 0))
		return between > 0;
	f = (between / (double)(ng - 1)) / (within / (double)(n - ng));
	return gsl_cdf_fdist_Q(f, (double)(ng - 1), (double)(n - ng)) <
	    BISECT_TIME_ALPHA;
}

size_t
bisect_rounds_block(struct bisect_time *bt, struct bisect_commit *out,
    const struct bisect_commit *commits, const size_t *skip, size_t nr_skip)
{
	struct bisect_time_run	*runs = NULL;
	size_t			*at = NULL, i, k, m, n = 0, na = 0, lo, hi, up;
	size_t			 done = 0, nb, far;
	double			*v = NULL, level, sum, near[BISECT_ROUNDS_BLOCK];
	size_t			 want = BISECT_ROUNDS_BLOCK;
	size_t			 window = BISECT_ROUNDS_NEAR;
	const struct bisect_commit *ref;

	if (bt->ref >= bt->nr)
		return 0;
	ref = &commits[bt->ref];
	if (ref->nr_samples < BISECT_ROUNDS_BLOCK)
		return 0;
	if (bisect_time_runs(&runs, &n, commits, bt->nr) != 0)
		return 0;
	at = xcalloc(ref->nr_samples + 1, sizeof *at);
	v = xcalloc(ref->nr_samples + 1, sizeof *v);
	for (i = 0; i < n; i++)
		if (runs[i].commit == bt->ref)
			at[na++] = i;
	for (i = 0; i < ref->nr_samples; i++)
		if (!(ref->samples[i] > 0))
			goto out;
	/* runs next to each other move together: the one nearest */
	if (bt->used) {
		want = 1;
		window = ROUNDS_NEXT;
	} else if (!bisect_rounds_drift(ref, runs, at, na))
		goto out;
	if (!bt->used) {
		memcpy(out, commits, bt->nr * sizeof *out);
		bt->samples = xcalloc(bt->nr, sizeof *bt->samples);
		bt->used = 1;
	}
	memcpy(v, ref->samples, ref->nr_samples * sizeof *v);
	qsort(v, ref->nr_samples, sizeof *v, bisect_rounds_cmp_double);
	m = ref->nr_samples;
	level = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	for (i = 0, hi = 0; i < n; i++) {
		const struct bisect_time_run *r = &runs[i];

		while (hi < na && at[hi] < i)
			hi++;
		if (r->commit == bt->ref)
			continue;
		for (k = 0; k < nr_skip && skip[k] != r->commit; k++)
			;
		if (k < nr_skip)
			continue;
		if (bt->samples[r->commit] == NULL) {
			bt->samples[r->commit] = xcalloc(
			    commits[r->commit].nr_samples + 1,
			    sizeof *bt->samples[r->commit]);
			out[r->commit].samples = bt->samples[r->commit];
		}
		bt->samples[r->commit][r->k] = commits[r->commit].samples[r->k];
		/* the nearest reference runs: merge outwards from i */
		lo = up = hi;
		sum = 0;
		far = 0;
		for (nb = 0; nb < want; nb++) {
			size_t	dl = lo > 0 ? i - at[lo - 1] : (size_t)-1;
			size_t	dh = up < na ? at[up] - i : (size_t)-1;

			if (dl == (size_t)-1 && dh == (size_t)-1)
				break;
			if (dl < dh) {
				near[nb] = ref->samples[runs[at[--lo]].k];
				far = dl > far ? dl : far;
			} else {
				near[nb] = ref->samples[runs[at[up++]].k];
				far = dh > far ? dh : far;
			}
		}
		if (nb < want || far > window)
			continue;
		/* their median: a burst that hits one of them is left out */
		qsort(near, nb, sizeof *near, bisect_rounds_cmp_double);
		sum = nb % 2 ? near[nb / 2] : (near[nb / 2 - 1] +
		    near[nb / 2]) / 2;
		bt->samples[r->commit][r->k] *= level / sum;
		done++;
	}
out:
	free(runs);
	free(at);
	free(v);
	return bt->used;
}

void
bisect_rounds_ref_wants(const struct bisect_time *bt,
    const struct bisect_commit *raw, int timed, struct bisect_want **wants,
    size_t *nr_wants)
{
	struct bisect_want	*w = *wants;
	size_t			 i, add = 0, c;

	if (!timed || bt->ref >= bt->nr || *nr_wants == 0)
		return;
	for (i = 0; i < *nr_wants; i++) {
		c = w[i].commit;
		if (c == bt->ref)
			return;
		if (c < bt->nr && w[i].samples > raw[c].nr_samples &&
		    w[i].samples - raw[c].nr_samples > add)
			add = w[i].samples - raw[c].nr_samples;
	}
	if (add == 0)
		return;
	if (!bt->used && add > ROUNDS_SENTINEL)
		add = ROUNDS_SENTINEL;
	w = xreallocarray(w, *nr_wants + 1, sizeof *w);
	w[*nr_wants].commit = bt->ref;
	w[*nr_wants].samples = (unsigned)(raw[bt->ref].nr_samples + add);
	*wants = w;
	(*nr_wants)++;
}
