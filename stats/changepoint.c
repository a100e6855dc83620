/*
 * E-Divisive with means (Matteson and James 2014) in one dimension, as
 * MongoDB's CI uses it, with the epidemic alternative beside each split and
 * a Fenwick tree keeping each sweep O(m log m) (docs/design.md, "File
 * notes", has the statistic).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"
#include "stats/rng.h"
#include "stats/summary.h"
#include "util/error.h"
#include "util/xalloc.h"

#define CHANGEPOINT_PERMUTATIONS	199
#define CHANGEPOINT_ALPHA		0.05
#define CHANGEPOINT_MIN_SIZE		2
/* The longest stretch tried against the rest of its segment, commits. */
#define CHANGEPOINT_DIP			12

struct cp_segment {
	size_t	ulo, uhi;	/* commits [ulo, uhi) */
	double	best_q;
	size_t	best_split;	/* the first commit of Y; 0 when none */
};

struct cp_found {
	size_t		split;	/* commit */
	unsigned	order;
	double		q, p;
};

struct cp_state {
	const double		*values;	/* as given */
	double			*v;		/* standardized values */
	size_t			 n;
	size_t			*ustart;	/* values of commit u */
	size_t			 nr_units;
	size_t			 min_size;
	size_t			*rank;		/* per value, in its segment */
	double			*s;		/* per value: sum |v - w| */
	size_t			*sorted;	/* scratch */
	size_t			*gsorted;	/* every value, sorted */
	size_t			*vunit;		/* the commit of each value */
	unsigned char		*inset;		/* per commit, scratch */
	double			*fw_cnt;	/* Fenwick trees over ranks */
	double			*fw_sum;
	size_t			*order;		/* commits in sweep order */
	struct cp_segment	*segs;
	size_t			 nr_segs;
	size_t			 alloc_segs;
	struct cp_found		*found;
	size_t			 nr_found;
	size_t			 alloc_found;
	struct rng		 rng;
};

static int
changepoint_cmp(const void *a, const void *b, void *values)
{
	double	x = ((const double *)values)[*(const size_t *)a];
	double	y = ((const double *)values)[*(const size_t *)b];

	return (x > y) - (x < y);
}

/*
 * Ranks of the values of commits u[0 .. nu - 1] among themselves, and
 * each one's sum of distances to the others; returns the sum over pairs.
 */
static double
changepoint_prepare(struct cp_state *st, const size_t *u, size_t nu)
{
	size_t	m = 0, r, i, j;
	double	total = 0, prefix = 0, z, sum = 0;

	/* the values in order: all of them sorted once, filtered */
	for (j = 0; j < nu; j++)
		st->inset[u[j]] = 1;
	for (j = 0; j < st->n; j++) {
		i = st->gsorted[j];
		if (st->inset[st->vunit[i]]) {
			st->sorted[m++] = i;
			total += st->v[i];
		}
	}
	for (j = 0; j < nu; j++)
		st->inset[u[j]] = 0;
	for (r = 0; r < m; r++) {
		i = st->sorted[r];
		z = st->v[i];
		st->rank[i] = r;
		st->s[i] = (z * (double)r - prefix) +
		    ((total - prefix - z) - z * (double)(m - 1 - r));
		prefix += z;
		sum += st->s[i];
	}
	return sum / 2;
}

static void
changepoint_fenwick_add(double *t, size_t m, size_t r, double x)
{
	for (r++; r <= m; r += r & -r)
		t[r] += x;
}

/* Sum of t over ranks 0 .. r-1. */
static double
changepoint_fenwick_sum(const double *t, size_t r)
{
	double	s = 0;

	for (; r > 0; r -= r & -r)
		s += t[r];
	return s;
}

/*
 * The largest q over the splits of commits u[0 .. nu - 1] (prepared, in
 * that order) that leave at least lo commits before and min_after after.
 * *split gets the number of commits before the best split, 0 when none
 * is allowed.
 */
static double
changepoint_sweep(struct cp_state *st, const size_t *u, size_t nu,
    double pairs, size_t lo, size_t min_after, size_t *split)
{
	size_t	m = 0, k = 0, j, i, pos, r;
	double	a_pairs = 0, b_pairs = pairs, c_pairs, cnt_x = 0;
	double	sum_x = 0, cnt_lo, sum_lo, a, z, kx, ky, e, q, best = -INFINITY;

	*split = 0;
	for (j = 0; j < nu; j++)
		m += st->ustart[u[j] + 1] - st->ustart[u[j]];
	memset(st->fw_cnt, 0, (m + 1) * sizeof *st->fw_cnt);
	memset(st->fw_sum, 0, (m + 1) * sizeof *st->fw_sum);
	for (pos = 0; pos + 1 < nu; pos++) {
		for (i = st->ustart[u[pos]]; i < st->ustart[u[pos] + 1]; i++) {
			z = st->v[i];
			r = st->rank[i];
			cnt_lo = changepoint_fenwick_sum(st->fw_cnt, r);
			sum_lo = changepoint_fenwick_sum(st->fw_sum, r);
			a = (z * cnt_lo - sum_lo) +
			    ((sum_x - sum_lo) - z * (cnt_x - cnt_lo));
			a_pairs += a;
			b_pairs -= st->s[i] - a;
			changepoint_fenwick_add(st->fw_cnt, m, r, 1);
			changepoint_fenwick_add(st->fw_sum, m, r, z);
			cnt_x += 1;
			sum_x += z;
			k++;
		}
		if (pos + 1 < lo || nu - pos - 1 < min_after)
			continue;
		if (k < 2 || m - k < 2)
			continue;
		kx = (double)k;
		ky = (double)(m - k);
		c_pairs = pairs - a_pairs - b_pairs;
		e = 2 * c_pairs / (kx * ky) - 2 * a_pairs / (kx * (kx - 1)) -
		    2 * b_pairs / (ky * (ky - 1));
		q = kx * ky / (double)m * e;
		if (q > best) {
			best = q;
			*split = pos + 1;
		}
	}
	return best;
}

/*
 * The largest q of a stretch inside the commits u[0 .. nu - 1] (prepared)
 * against the rest of them: min_size to CHANGEPOINT_DIP commits, with at
 * least min_size commits on either side (the epidemic alternative). A dip
 * that is fixed a few commits later barely moves the best single split,
 * but it is a plain change between the stretch and the rest. *split gets
 * the stretch's first commit, 0 when none is allowed.
 */
static double
changepoint_dip(struct cp_state *st, const size_t *u, size_t nu,
    double pairs, size_t *split)
{
	size_t	m = 0, j, i, a, b, r, k, ms = st->min_size;
	double	in_pairs, sum_s, cnt, sum, cnt_lo, sum_lo, d, z;
	double	cross, out_pairs, kx, ky, e, q, best = -INFINITY;

	*split = 0;
	for (j = 0; j < nu; j++)
		m += st->ustart[u[j] + 1] - st->ustart[u[j]];
	for (a = ms; a + 2 * ms <= nu; a++) {
		memset(st->fw_cnt, 0, (m + 1) * sizeof *st->fw_cnt);
		memset(st->fw_sum, 0, (m + 1) * sizeof *st->fw_sum);
		in_pairs = sum_s = cnt = sum = 0;
		k = 0;
		for (b = a; b + ms < nu && b - a < CHANGEPOINT_DIP; b++) {
			for (i = st->ustart[u[b]]; i < st->ustart[u[b] + 1];
			    i++) {
				z = st->v[i];
				r = st->rank[i];
				cnt_lo = changepoint_fenwick_sum(st->fw_cnt, r);
				sum_lo = changepoint_fenwick_sum(st->fw_sum, r);
				d = (z * cnt_lo - sum_lo) +
				    ((sum - sum_lo) - z * (cnt - cnt_lo));
				in_pairs += d;
				sum_s += st->s[i];
				changepoint_fenwick_add(st->fw_cnt, m, r, 1);
				changepoint_fenwick_add(st->fw_sum, m, r, z);
				cnt += 1;
				sum += z;
				k++;
			}
			if (b + 1 - a < ms || k < 2 || m - k < 2)
				continue;
			kx = (double)k;
			ky = (double)(m - k);
			cross = sum_s - 2 * in_pairs;
			out_pairs = pairs - in_pairs - cross;
			e = 2 * cross / (kx * ky) -
			    2 * in_pairs / (kx * (kx - 1)) -
			    2 * out_pairs / (ky * (ky - 1));
			q = kx * ky / (double)m * e;
			if (q > best) {
				best = q;
				*split = a;
			}
		}
	}
	return best;
}

/*
 * The largest q of a segment, its commits in the order st->order[seg->ulo
 * ..]: its best split, or its best stretch against the rest; *split is
 * the first commit of Y (an index into st->order), 0 when none.
 */
static double
changepoint_segment_max(struct cp_state *st, const struct cp_segment *seg,
    size_t *split)
{
	size_t	n = seg->uhi - seg->ulo, s;
	double	best, q, pairs;
	size_t	*u = st->order + seg->ulo;

	*split = 0;
	pairs = changepoint_prepare(st, u, n);
	/* the newest commits: a step may have one commit after it */
	best = changepoint_sweep(st, u, n, pairs, st->min_size,
	    seg->uhi == st->nr_units ? 1 : st->min_size, &s);
	if (s != 0)
		*split = seg->ulo + s;
	q = changepoint_dip(st, u, n, pairs, &s);
	if (s != 0 && (*split == 0 || q > best)) {
		best = q;
		*split = seg->ulo + s;
	}
	return best;
}

static void
changepoint_identity(struct cp_state *st, const struct cp_segment *seg)
{
	size_t	u;

	for (u = seg->ulo; u < seg->uhi; u++)
		st->order[u] = u;
}

static void
changepoint_segment_best(struct cp_state *st, struct cp_segment *seg)
{
	changepoint_identity(st, seg);
	seg->best_q = changepoint_segment_max(st, seg, &seg->best_split);
}

/* The largest q over every segment with its commits shuffled. */
static double
changepoint_permuted_max(struct cp_state *st)
{
	struct cp_segment	*seg;
	double			 best = -INFINITY, q;
	size_t			 i, pos;

	for (i = 0; i < st->nr_segs; i++) {
		seg = &st->segs[i];
		changepoint_identity(st, seg);
		rng_shuffle(&st->rng, st->order + seg->ulo, seg->uhi - seg->ulo,
		    sizeof *st->order);
		q = changepoint_segment_max(st, seg, &pos);
		if (pos != 0 && q > best)
			best = q;
	}
	return best;
}

static void
changepoint_add_segment(struct cp_state *st, size_t ulo, size_t uhi)
{
	struct cp_segment	*seg;

	ALLOC_GROW(st->segs, st->nr_segs, st->alloc_segs);
	seg = &st->segs[st->nr_segs++];
	seg->ulo = ulo;
	seg->uhi = uhi;
	changepoint_segment_best(st, seg);
}

static double
changepoint_mean(const double *values, size_t lo, size_t hi)
{
	struct summary	s;

	summary_compute(&s, values + lo, hi - lo);
	return s.mean;
}

static void
changepoint_run(struct cp_state *st, unsigned permutations, double alpha,
    size_t max_points)
{
	struct cp_segment	*seg;
	struct cp_found		*f;
	double			 q, p;
	size_t			 i, best, split, ulo, uhi;
	unsigned		 j, exceed;

	changepoint_add_segment(st, 0, st->nr_units);
	while (max_points == 0 || st->nr_found < max_points) {
		best = st->nr_segs;
		for (i = 0; i < st->nr_segs; i++) {
			seg = &st->segs[i];
			if (seg->best_split == 0)
				continue;
			if (best == st->nr_segs ||
			    seg->best_q > st->segs[best].best_q)
				best = i;
		}
		if (best == st->nr_segs)
			break;
		q = st->segs[best].best_q;
		split = st->segs[best].best_split;

		exceed = 0;
		for (j = 0; j < permutations; j++)
			if (changepoint_permuted_max(st) >= q)
				exceed++;
		p = (1.0 + exceed) / (1.0 + permutations);
		if (!(p < alpha))
			break;

		ALLOC_GROW(st->found, st->nr_found, st->alloc_found);
		f = &st->found[st->nr_found++];
		f->split = split;
		f->order = (unsigned)st->nr_found;
		f->q = q;
		f->p = p;

		ulo = st->segs[best].ulo;
		uhi = st->segs[best].uhi;
		st->segs[best] = st->segs[--st->nr_segs];
		changepoint_add_segment(st, ulo, split);
		changepoint_add_segment(st, split, uhi);
	}
}

static int
changepoint_found_cmp(const void *a, const void *b)
{
	const struct cp_found	*x = a, *y = b;

	return (x->split > y->split) - (x->split < y->split);
}

/* The change at found[i], between the segments either side of it, in %. */
static double
changepoint_effect(const struct cp_state *st, size_t i)
{
	size_t	lo, mid, hi;
	double	x;

	lo = i == 0 ? 0 : st->ustart[st->found[i - 1].split];
	mid = st->ustart[st->found[i].split];
	hi = i + 1 == st->nr_found ? st->n :
	    st->ustart[st->found[i + 1].split];
	x = changepoint_mean(st->values, lo, mid);
	return 100 * fabs(changepoint_mean(st->values, mid, hi) - x) / fabs(x);
}

/*
 * Drops, smallest first, the change points whose change between their
 * neighbouring segments is below min_effect %, merging those segments:
 * a slow drift cut into small steps, or a real but negligible change.
 */
static void
changepoint_prune(struct cp_state *st, double min_effect)
{
	double	e, smallest;
	size_t	i, at;

	while (st->nr_found != 0) {
		smallest = INFINITY;
		at = 0;
		for (i = 0; i < st->nr_found; i++) {
			e = changepoint_effect(st, i);
			if (!(e >= smallest)) {
				smallest = e;
				at = i;
			}
		}
		if (smallest >= min_effect)
			break;
		memmove(&st->found[at], &st->found[at + 1],
		    (st->nr_found - at - 1) * sizeof *st->found);
		st->nr_found--;
	}
}

/*
 * Each change point found is placed again within min_size commits of
 * where it was found, between its neighbours, with one commit allowed on
 * a side: the search keeps min_size commits on each side to be sure of a
 * change, but a step with one or two commits after it at the end of the
 * series is then found too early; once it is sure, its place need not be.
 */
static void
changepoint_refine(struct cp_state *st)
{
	size_t	i, lo, hi, rel, before, after, split, u;
	double	pairs;

	for (i = 0; i < st->nr_found; i++) {
		lo = i == 0 ? 0 : st->found[i - 1].split;
		hi = i + 1 == st->nr_found ? st->nr_units :
		    st->found[i + 1].split;
		for (u = lo; u < hi; u++)
			st->order[u] = u;
		rel = st->found[i].split - lo;
		before = rel > st->min_size + 1 ? rel - st->min_size : 1;
		after = hi - st->found[i].split;
		after = after > st->min_size + 1 ? after - st->min_size : 1;
		pairs = changepoint_prepare(st, st->order + lo, hi - lo);
		(void)changepoint_sweep(st, st->order + lo, hi - lo, pairs,
		    before, after, &split);
		if (split != 0)
			st->found[i].split = lo + split;
	}
}

int
changepoint_check_values(const double *values, const size_t *groups,
    size_t n, char **cause)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			return error_set(cause, "value %zu is not a finite "
			    "number", i);
		if (groups != NULL && i > 0 && groups[i] < groups[i - 1])
			return error_set(cause, "value %zu: commit %zu comes "
			    "after commit %zu", i, groups[i], groups[i - 1]);
	}
	return 0;
}

/* The state of one detection: the values standardised, commits as units. */
static void
changepoint_state_init(struct cp_state *st, const double *values,
    const size_t *groups, size_t n, const struct summary *sum)
{
	size_t		i, k;

	st->n = n;
	st->values = values;
	st->v = xreallocarray(NULL, n, sizeof *st->v);
	for (i = 0; i < n; i++)
		st->v[i] = (values[i] - sum->mean) / sum->stddev;
	st->ustart = xreallocarray(NULL, n + 1, sizeof *st->ustart);
	for (i = 0; i < n; i++)
		if (i == 0 || groups == NULL || groups[i] != groups[i - 1])
			st->ustart[st->nr_units++] = i;
	st->ustart[st->nr_units] = n;
	st->rank = xreallocarray(NULL, n, sizeof *st->rank);
	st->s = xreallocarray(NULL, n, sizeof *st->s);
	st->sorted = xreallocarray(NULL, n, sizeof *st->sorted);
	st->fw_cnt = xreallocarray(NULL, n + 1, sizeof *st->fw_cnt);
	st->fw_sum = xreallocarray(NULL, n + 1, sizeof *st->fw_sum);
	st->order = xreallocarray(NULL, st->nr_units, sizeof *st->order);
	st->gsorted = xreallocarray(NULL, n, sizeof *st->gsorted);
	st->vunit = xreallocarray(NULL, n, sizeof *st->vunit);
	st->inset = xcalloc(st->nr_units, 1);
	for (i = 0; i < st->nr_units; i++)
		for (k = st->ustart[i]; k < st->ustart[i + 1]; k++)
			st->vunit[k] = i;
	for (i = 0; i < n; i++)
		st->gsorted[i] = i;
	qsort_r(st->gsorted, n, sizeof *st->gsorted, changepoint_cmp, st->v);
}

static void
changepoint_state_release(struct cp_state *st)
{
	free(st->v);
	free(st->ustart);
	free(st->rank);
	free(st->s);
	free(st->sorted);
	free(st->fw_cnt);
	free(st->fw_sum);
	free(st->order);
	free(st->gsorted);
	free(st->vunit);
	free(st->inset);
	free(st->segs);
	free(st->found);
}

/* The change points found, with their means either side and the %change. */
static struct changepoint *
changepoint_points(const struct cp_state *st, const double *values,
    const size_t *groups, size_t n)
{
	struct changepoint	*points = NULL, *cp;
	size_t			 i, before, after;

	if (st->nr_found != 0)
		points = xcalloc(st->nr_found, sizeof *points);
	for (i = 0; i < st->nr_found; i++) {
		cp = &points[i];
		cp->index = st->ustart[st->found[i].split];
		cp->group = groups != NULL ? groups[cp->index] : cp->index;
		cp->order = st->found[i].order;
		cp->q = st->found[i].q;
		cp->p_value = st->found[i].p;
		before = i == 0 ? 0 : st->ustart[st->found[i - 1].split];
		after = i + 1 == st->nr_found ? n :
		    st->ustart[st->found[i + 1].split];
		cp->mean_before = changepoint_mean(values, before, cp->index);
		cp->mean_after = changepoint_mean(values, cp->index, after);
		cp->change_pct = 100 * (cp->mean_after - cp->mean_before) /
		    fabs(cp->mean_before);
	}
	return points;
}

int
changepoint_detect(struct changepoint_result *out, const double *values,
    const size_t *groups, size_t n, const struct changepoint_opts *opts,
    char **cause)
{
	struct cp_state		 st;
	struct summary		 sum;
	struct changepoint	*points = NULL;
	unsigned		 permutations = CHANGEPOINT_PERMUTATIONS;
	double			 alpha = CHANGEPOINT_ALPHA, min_effect = 0;
	size_t			 max_points = 0;
	uint64_t		 seed = 0;
	int			 r = -1;

	memset(out, 0, sizeof *out);
	memset(&st, 0, sizeof st);
	st.min_size = CHANGEPOINT_MIN_SIZE;
	if (opts != NULL) {
		if (opts->permutations != 0)
			permutations = opts->permutations;
		if (opts->alpha != 0)
			alpha = opts->alpha;
		if (opts->min_size != 0)
			st.min_size = opts->min_size;
		max_points = opts->max_points;
		min_effect = fabs(opts->min_effect_pct);
		seed = opts->seed;
	}
	if (!(alpha > 0 && alpha < 1)) {
		error_set(cause, "alpha '%g' is not between 0 and 1", alpha);
		goto out;
	}
	if (changepoint_check_values(values, groups, n, cause) != 0)
		goto out;

	summary_compute(&sum, values, n);
	if (n < 4 || !(sum.stddev > 0) || !isfinite(sum.stddev)) {
		r = 0;	/* too short, or constant: nothing to find */
		goto out;
	}

	changepoint_state_init(&st, values, groups, n, &sum);
	rng_seed(&st.rng, seed);

	changepoint_run(&st, permutations, alpha, max_points);
	if (st.nr_found > 1)
		qsort(st.found, st.nr_found, sizeof *st.found,
		    changepoint_found_cmp);
	changepoint_refine(&st);
	if (min_effect > 0)
		changepoint_prune(&st, min_effect);

	points = changepoint_points(&st, values, groups, n);
	out->points = points;
	out->nr_points = st.nr_found;
	points = NULL;
	r = 0;
out:
	free(points);
	changepoint_state_release(&st);
	return r;
}

void
changepoint_result_release(struct changepoint_result *res)
{
	if (res == NULL)
		return;
	free(res->points);
	res->points = NULL;
	res->nr_points = 0;
}
