/*
 * The bisection driver's entry points: git bisect's choice of a midpoint,
 * and bisect_decide, which turns the state of a bisection into its next
 * step (see docs/bisection.md for the method and its reasons).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisect.h"
#include "stats/bisect-boot.h"
#include "stats/bisect-graph.h"
#include "stats/bisect-image.h"
#include "stats/bisect-machine.h"
#include "stats/bisect-pair.h"
#include "stats/bisect-range.h"
#include "stats/bisect-rounds.h"
#include "stats/bisect-time.h"
#include "util/error.h"
#include "util/xalloc.h"

/*
 * The whole range's ends may take this many times max_runs samples each
 * while a change worth finding could still be there (docs/bisection.md):
 * max_runs caps the commits the search samples, not the first question.
 */
#define BISECT_ENDS_FACTOR	5

const char *
bisect_status_name(enum bisect_status status)
{
	switch (status) {
	case BISECT_CONTINUE:
		return "continue";
	case BISECT_FOUND:
		return "found";
	case BISECT_NO_CHANGE:
		return "no_change";
	case BISECT_AMBIGUOUS:
		return "ambiguous";
	case BISECT_FAILED:
		return "failed";
	case BISECT_UNCONFIRMED:
		return "unconfirmed";
	case BISECT_INCONCLUSIVE:
		return "inconclusive";
	}
	return "unknown";
}

int
bisect_weights(size_t *out, const struct bisect_commit *commits, size_t nr,
    char **cause)
{
	struct bisect_graph	 g;
	double			*w = NULL, *sum = NULL;
	size_t			 i;

	if (bisect_graph_init(&g, commits, nr, NULL, cause) != 0)
		return -1;
	w = xcalloc(nr ? nr : 1, sizeof *w);
	sum = xcalloc(nr ? nr : 1, sizeof *sum);
	for (i = 0; i < nr; i++)
		w[i] = 1;
	bisect_graph_sums(&g, w, sum);
	for (i = 0; i < nr; i++)
		out[i] = (size_t)(sum[i] + 0.5);
	free(w);
	free(sum);
	bisect_graph_release(&g);
	return 0;
}

/*
 * As git's best_bisection: the largest min(w, N - w), the first in the
 * array on a tie (git takes the first in its rev-list order). Skipped
 * commits still count in everyone's weight, as in git, but are never
 * chosen.
 */
size_t
bisect_midpoint(const struct bisect_commit *commits, size_t nr,
    const unsigned char *skip)
{
	size_t	*w, i, best = (size_t)-1, d, best_d = 0;

	if (nr == 0)
		return (size_t)-1;
	w = xcalloc(nr, sizeof *w);
	if (bisect_weights(w, commits, nr, NULL) != 0)
		goto out;
	for (i = 0; i < nr; i++) {
		if (skip != NULL && skip[i])
			continue;
		d = w[i] < nr - w[i] ? w[i] : nr - w[i];
		if (best == (size_t)-1 || d > best_d) {
			best = i;
			best_d = d;
		}
	}
out:
	free(w);
	return best;
}

void
bisect_result_release(struct bisect_result *res)
{
	if (res == NULL)
		return;
	free(res->wants);
	free(res->builds);
	free(res->culprits);
	free(res->candidates);
	free(res->error);
	free(res->contradiction);
	memset(res, 0, sizeof *res);
}

static int
bisect_check(const struct bisect_input *in, char **cause)
{
	size_t	i;

	if (in->nr_commits == 0 || in->commits == NULL)
		return error_set(cause, "no commits to bisect");
	if (in->bad >= in->nr_commits)
		return error_set(cause, "bad commit %zu out of range", in->bad);
	if (in->nr_good == 0 || in->good == NULL)
		return error_set(cause, "no good commit");
	for (i = 0; i < in->nr_good; i++) {
		if (in->good[i] >= in->nr_commits)
			return error_set(cause, "good commit %zu out of range",
			    in->good[i]);
		if (in->good[i] == in->bad)
			return error_set(cause, "commit '%s' is both good and "
			    "bad", in->commits[in->bad].name ?
			    in->commits[in->bad].name : "?");
	}
	for (i = 0; i < in->nr_commits; i++)
		if (in->commits[i].nr_samples != 0 &&
		    in->commits[i].samples == NULL)
			return error_set(cause, "commit %zu has no sample array",
			    i);
	if (in->commits[in->bad].build == BISECT_BUILD_FAILED)
		return error_set(cause, "the bad commit '%s' does not build",
		    in->commits[in->bad].name ? in->commits[in->bad].name : "?");
	return 0;
}

static void
bisect_mark_fn(size_t a, void *payload)
{
	((unsigned char *)payload)[a] = 1;
}

static int
bisect_cmp_found(const void *a, const void *b)
{
	const struct bisect_found *x = a, *y = b;

	if (fabs(x->step) != fabs(y->step))
		return fabs(x->step) > fabs(y->step) ? -1 : 1;
	return x->commit < y->commit ? -1 : x->commit > y->commit;
}

static void
bisect_state_release(struct bisect_state *st)
{
	bisect_graph_release(&st->g);
	free(st->wants);
	free(st->found);
	free(st->cands);
	free(st->spec);
	free(st->logpost);
	free(st->post);
	free(st->pbad);
	free(st->gain);
	free(st->lvl);
	free(st->mark);
}

/* the speculative builds, but for commits the wants build anyway */
static void
bisect_fill_builds(struct bisect_result *res, const struct bisect_state *st)
{
	size_t	i, k;

	if (st->nr_spec == 0)
		return;
	res->builds = xcalloc(st->nr_spec, sizeof *res->builds);
	for (i = 0; i < st->nr_spec; i++) {
		for (k = 0; k < res->nr_wants; k++)
			if (res->wants[k].commit == st->spec[i])
				break;
		if (k == res->nr_wants)
			res->builds[res->nr_builds++] = st->spec[i];
	}
}

/* Copy the state's conclusion into the caller's result. */
static void
bisect_fill(struct bisect_result *res, struct bisect_state *st,
    enum bisect_status s)
{
	const struct bisect_input	*in = st->in;
	size_t				 i, n;
	unsigned			 slots = in->slots ? in->slots : 1;

	res->status = s;
	res->change_pct = st->root_done ? st->root_pct : NAN;
	res->ci_lo = st->root_done ? st->root_lo : NAN;
	res->ci_hi = st->root_done ? st->root_hi : NAN;
	res->p_value = st->root_done ? st->root_p : NAN;
	res->culprit_change_pct = res->culprit_ci_lo = NAN;
	res->culprit_ci_hi = res->culprit_p_value = NAN;
	res->explained_pct = NAN;
	res->remaining = st->remaining;
	res->steps = st->steps;
	if (s == BISECT_CONTINUE) {
		n = bisect_rounds_cap(st, slots);
		n = st->nr_wants < n ? st->nr_wants : n;
		if (st->pair && n < 2 && st->nr_wants >= 2)
			n = 2;
		res->wants = xcalloc(n ? n : 1, sizeof *res->wants);
		memcpy(res->wants, st->wants, n * sizeof *res->wants);
		res->nr_wants = n;
		bisect_fill_builds(res, st);
		return;
	}
	res->remaining = s == BISECT_FOUND ? 1 : s == BISECT_AMBIGUOUS ?
	    st->nr_cands : 0;
	res->steps = 0;
	if (s == BISECT_FOUND && st->nr_found > 0) {
		qsort(st->found, st->nr_found, sizeof *st->found,
		    bisect_cmp_found);
		res->culprits = xcalloc(st->nr_found, sizeof *res->culprits);
		for (i = 0; i < st->nr_found; i++)
			res->culprits[i] = st->found[i].commit;
		res->nr_culprits = st->nr_found;
		res->culprit_change_pct = st->found[0].change_pct;
		res->culprit_ci_lo = st->found[0].ci_lo;
		res->culprit_ci_hi = st->found[0].ci_hi;
		res->culprit_p_value = st->found[0].p_value;
		if (st->root_shift != 0)
			res->explained_pct = 100 * st->found[0].step /
			    st->root_shift;
	}
	if (st->nr_cands > 0) {
		res->candidates = xcalloc(st->nr_cands,
		    sizeof *res->candidates);
		memcpy(res->candidates, st->cands,
		    st->nr_cands * sizeof *res->candidates);
		res->nr_candidates = st->nr_cands;
	}
}

/*
 * With several slots a commit built and never sampled was built ahead
 * for a round that went another way (bisect-rounds.h): the builders'
 * spare time, not the budget's.
 */
static int
bisect_rounds_spare(const struct bisect_input *in, size_t i)
{
	return in->slots > 1 && in->commits[i].build == BISECT_BUILD_OK &&
	    in->commits[i].nr_samples == 0;
}

/*
 * The whole bisection's budget (docs/bisection.md): by default twice
 * max_runs per step of a binary search over the range, with two steps
 * more (the ends, the confirmation), and six builds per step. Spent when
 * the runs so far (every sample of every commit, the ends included) or
 * the builds so far reach it.
 */
static void
bisect_budget(struct bisect_state *st, const struct bisect_input *in,
    const struct bisect_range *root, struct bisect_result *res)
{
	size_t				 i, n = 0, runs = 0, builds = 0;
	unsigned			 steps = 0;

	/* the caller's own samples: a class's pooled ones count once */
	for (i = 0; i < st->nr; i++) {
		n += root->in[i];
		runs += in->commits[i].nr_samples;
		if (in->commits[i].build != BISECT_BUILD_UNKNOWN ||
		    in->commits[i].nr_samples > 0)
			builds += !bisect_rounds_spare(in, i);
	}
	while (steps < 64 && ((size_t)1 << steps) < n)
		steps++;
	res->budget_runs = in->max_total_runs ? in->max_total_runs :
	    2 * st->max_runs * (steps + 2) * (st->time_pairs ? 2 : 1);
	/* one slot, timed: a sentinel run per BISECT_TIME_EVERY of the search */
	if (!in->max_total_runs && !st->time_pairs && st->timed &&
	    in->slots <= 1)
		res->budget_runs += res->budget_runs / BISECT_TIME_EVERY;
	res->budget_builds = in->max_builds ? in->max_builds :
	    6 * (steps + 2);
	st->spent = runs >= res->budget_runs || builds >= res->budget_builds;
}

/*
 * The fresh interleaved check of the culprit against its parent, before
 * FOUND stands (issue 11, item 5): a batch of both, run as pairs after
 * everything else, until stats/bisect-pair.c's verdict. The images' own
 * members stand for culprit and parent. On MORE the answer becomes the
 * batch to take; on DISAGREES, UNCONFIRMED. timed[] are the samples as
 * the driver decides on them, with their times; raw[] the caller's.
 */
static void
bisect_fresh(struct bisect_result *res, const struct bisect_state *st,
    const struct bisect_commit *timed, const struct bisect_commit *raw,
    const struct bisect_image *im)
{
	struct bisect_pair_check	 pc;
	size_t				 cs = res->culprits[0], a, b, np, need;
	double				*d, change;
	int				 ratio;

	if (timed[cs].nr_parents == 0 || !st->root_done)
		return;
	a = bisect_image_member(im, raw, timed[cs].parents[0]);
	b = bisect_image_member(im, raw, cs);
	if (a == b)
		return;
	d = xcalloc(timed[a].nr_samples + timed[b].nr_samples + 1,
	    sizeof *d);
	np = bisect_pair_fresh(d, &ratio, timed, st->nr, a, b);
	if (np == (size_t)-1) {
		res->fresh_verdict = BISECT_PAIR_UNTIMED;
		goto out;
	}
	change = ratio ? log1p(st->root_pct / 100) : st->root_shift;
	if (!isfinite(change) || change == 0)
		goto out;
	bisect_pair_decide(&pc, d, np, change,
	    bisect_rounds_pairs(BISECT_PAIR_FIRST, st->in->slots),
	    st->max_runs / 2);
	if (pc.verdict == BISECT_PAIR_MORE && st->spent)
		pc.verdict = BISECT_PAIR_UNDECIDED;
	res->fresh_verdict = pc.verdict;
	res->fresh_pairs = pc.pairs;
	res->fresh_step_pct = ratio ? pc.step_pct : NAN;
	res->fresh_p_agree = pc.p_agree;
	res->fresh_p_disagree = pc.p_disagree;
	switch (pc.verdict) {
	case BISECT_PAIR_MORE:
		need = pc.want - np;
		res->status = BISECT_CONTINUE;
		free(res->culprits);
		res->culprits = NULL;
		res->nr_culprits = 0;
		free(res->wants);
		res->wants = xcalloc(2, sizeof *res->wants);
		res->wants[0].commit = b;
		res->wants[0].samples = (unsigned)(raw[b].nr_samples + need);
		res->wants[1].commit = a;
		res->wants[1].samples = (unsigned)(raw[a].nr_samples + need);
		res->nr_wants = 2;
		res->remaining = 1;
		res->steps = 0;
		break;
	case BISECT_PAIR_DISAGREES:
		res->status = BISECT_UNCONFIRMED;
		free(res->contradiction);
		if (ratio)
			res->contradiction = xasprintf("a fresh interleaved "
			    "check of the culprit against its parent "
			    "disagrees: %zu pairs, the median pair %+.2f%% "
			    "against the change's %+.2f%%, significantly less "
			    "than half of it (p = %.2g)", pc.pairs,
			    pc.step_pct, st->root_pct, pc.p_disagree);
		else
			res->contradiction = xasprintf("a fresh interleaved "
			    "check of the culprit against its parent "
			    "disagrees: %zu pairs, significantly less than "
			    "half of the change %+.3g (p = %.2g)", pc.pairs,
			    change, pc.p_disagree);
		break;
	default:
		break;
	}
out:
	free(d);
}

static int bisect_decide_all(struct bisect_result *,
    const struct bisect_input *);

/*
 * The bad end's runs later than every run of any other commit: the
 * revert check's, run as pairs with the bad end once a culprit is found
 * (bisectd/bisection.c), or the bad end's own, when the driver asked for
 * it alone. Their count; 0 when a time is unknown.
 */
static size_t
bisect_trailing(const struct bisect_input *in, double *lastp)
{
	const struct bisect_commit	*b = &in->commits[in->bad];
	double				 last = -INFINITY;
	size_t				 i, k, n = 0;

	if (b->times == NULL)
		return 0;
	for (i = 0; i < in->nr_commits; i++) {
		const struct bisect_commit *c = &in->commits[i];

		if (i == in->bad || c->nr_samples == 0)
			continue;
		if (c->times == NULL)
			return 0;
		for (k = 0; k < c->nr_samples; k++) {
			if (!isfinite(c->times[k]))
				return 0;
			if (c->times[k] > last)
				last = c->times[k];
		}
	}
	for (k = 0; k < b->nr_samples; k++) {
		if (!isfinite(b->times[k]))
			return 0;
		n += b->times[k] > last;
	}
	*lastp = last;
	return n < b->nr_samples ? n : 0;
}

/*
 * A culprit found stays found while the revert check runs: the driver
 * decides first without the bad end's trailing runs (the revert check's
 * pairs), and when that is FOUND, it is the answer; else (the driver had
 * asked for the bad end alone) with every run. The check's runs would
 * otherwise move the bad end's level under a culprit already confirmed,
 * and start a search for a second culprit at the bad end (measured:
 * gauss-1.5, seed 2, one wrong `found` 626 and 1024 in 810 runs).
 */
int
bisect_decide(struct bisect_result *res, const struct bisect_input *in)
{
	struct bisect_input		 cut;
	struct bisect_commit		*c;
	const struct bisect_commit	*b;
	double				*s, *t, last = -INFINITY;
	const char			**m, **bo;
	size_t				 k, j;

	if (in->nr_commits == 0 || in->commits == NULL ||
	    in->bad >= in->nr_commits || bisect_trailing(in, &last) == 0)
		return bisect_decide_all(res, in);
	b = &in->commits[in->bad];
	c = xcalloc(in->nr_commits, sizeof *c);
	memcpy(c, in->commits, in->nr_commits * sizeof *c);
	s = xcalloc(b->nr_samples, sizeof *s);
	t = xcalloc(b->nr_samples, sizeof *t);
	m = xcalloc(b->nr_samples, sizeof *m);
	bo = xcalloc(b->nr_samples, sizeof *bo);
	for (k = 0, j = 0; k < b->nr_samples; k++) {
		if (b->times[k] > last)
			continue;
		s[j] = b->samples[k];
		t[j] = b->times[k];
		m[j] = b->machines != NULL ? b->machines[k] : NULL;
		bo[j++] = b->boots != NULL ? b->boots[k] : NULL;
	}
	c[in->bad].samples = s;
	c[in->bad].times = t;
	c[in->bad].machines = b->machines != NULL ? m : NULL;
	c[in->bad].boots = b->boots != NULL ? bo : NULL;
	c[in->bad].nr_samples = j;
	cut = *in;
	cut.commits = c;
	if (bisect_decide_all(res, &cut) != 0 || res->status !=
	    BISECT_FOUND) {
		bisect_result_release(res);
		bisect_decide_all(res, in);
	}
	free(c);
	free(s);
	free(t);
	free(m);
	free(bo);
	return res->status == BISECT_FAILED ? -1 : 0;
}

/*
 * The samples as the driver decides on them (st->in, st->c): the
 * caller's, with the machines' offsets out, over the bad end's runs
 * when noise is shared in time, in boot means when boots differ more
 * than runs do, and pooled by image; each view an array of its own.
 */
struct bisect_views {
	struct bisect_input		 in;
	struct bisect_commit		*adj;
	struct bisect_commit		*tm;
	struct bisect_commit		*boo;
	struct bisect_commit		*pool;
	struct bisect_machine_fit	 mf;
	struct bisect_time		 bt;
	struct bisect_boot_units	 bu;
	struct bisect_image		 im;
};

static void
bisect_views_use(struct bisect_views *v, struct bisect_state *st,
    const struct bisect_input *in, struct bisect_commit *c)
{
	if (st->in == in)
		v->in = *in;
	v->in.commits = c;
	st->in = &v->in;
	st->c = c;
}

static void
bisect_views_init(struct bisect_views *v, struct bisect_state *st,
    const struct bisect_input *in)
{
	size_t	i;

	memset(v, 0, sizeof *v);
	st->in = in;
	st->c = in->commits;
	/*
	 * Runs spread over several machines: decide on the samples with the
	 * machines' offsets taken out, the caller's arrays untouched.
	 */
	if (bisect_machine_adjust(&v->mf, in->commits, in->nr_commits) > 0) {
		v->adj = xcalloc(in->nr_commits, sizeof *v->adj);
		memcpy(v->adj, in->commits, in->nr_commits * sizeof *v->adj);
		for (i = 0; i < in->nr_commits; i++)
			if (v->mf.samples[i] != NULL)
				v->adj[i].samples = v->mf.samples[i];
		bisect_views_use(v, st, in, v->adj);
	}
	/*
	 * Neighbours in time that move together (a drift, a burst no
	 * monitor saw): the search's samples are taken over the bad end's
	 * runs beside them (stats/bisect-time.h), and its wants get the bad
	 * end beside them.
	 */
	v->tm = xcalloc(in->nr_commits, sizeof *v->tm);
	if (bisect_time_adjust(&v->bt, v->tm, st->c, in->nr_commits, in->bad,
	    in->good, in->nr_good) | (in->slots > 1 ?
	    bisect_rounds_block(&v->bt, v->tm, st->c, NULL, 0) :
	    bisect_time_block(&v->bt, v->tm, st->c, in->good, in->nr_good))) {
		bisect_views_use(v, st, in, v->tm);
		st->time_pairs = 1;
	}
	/*
	 * Boots that differ more than runs do: a boot's mean is one sample
	 * (stats/bisect-boot.h), and the wants ask for new boots.
	 */
	v->boo = xcalloc(in->nr_commits, sizeof *v->boo);
	if (bisect_boot_units(&v->bu, v->boo, st->c, NULL, in->nr_commits))
		bisect_views_use(v, st, in, v->boo);
	/*
	 * Commits with one image are one test point: each decides on its
	 * class's samples (after the machines' offsets came out).
	 */
	v->pool = xcalloc(in->nr_commits, sizeof *v->pool);
	if (bisect_image_pool(&v->im, v->pool, st->c, in->nr_commits) > 0)
		bisect_views_use(v, st, in, v->pool);
	if (v->im.used)
		st->same_parent = v->im.same_parent;
}

static void
bisect_views_release(struct bisect_views *v)
{
	free(v->adj);
	free(v->pool);
	free(v->boo);
	free(v->tm);
	bisect_time_release(&v->bt);
	bisect_boot_release(&v->bu);
	bisect_image_release(&v->im);
	bisect_machine_fit_release(&v->mf);
}

/* The caps, the first look and the direction; times known or not. */
static void
bisect_state_settings(struct bisect_state *st, const struct bisect_input *in)
{
	size_t	i, k;

	st->nr = in->nr_commits;
	st->max_runs = in->max_runs ? in->max_runs : 30;
	st->first_runs = in->initial_runs ? in->initial_runs : 3;
	if (st->first_runs < 3)
		st->first_runs = 3;
	if (st->first_runs > st->max_runs)
		st->first_runs = st->max_runs;
	st->sign = in->direction > 0 ? -1 : in->direction < 0 ? 1 : 0;
	/* times known: some samples, and every sample's time finite */
	for (i = 0, st->timed = -1; i < in->nr_commits; i++) {
		const struct bisect_commit *c = &in->commits[i];

		if (c->nr_samples == 0)
			continue;
		if (st->timed != 0)
			st->timed = c->times != NULL;
		for (k = 0; st->timed > 0 && k < c->nr_samples; k++)
			if (!isfinite(c->times[k]))
				st->timed = 0;
	}
	st->timed = st->timed > 0;
}

/*
 * The graph, the scratch arrays and the whole range `bad ^good`: the
 * ancestors-or-self of bad that are not ancestors-or-self of a good end,
 * whatever else was passed. goods[] gets the good ends that built.
 */
static int
bisect_state_root(struct bisect_state *st, struct bisect_range *root,
    size_t *goods, size_t *nr_goods, char **cause)
{
	const struct bisect_input	*in = st->in;
	unsigned char			*anc_good;
	size_t				 i;
	int				 r = -1;

	if (bisect_graph_init(&st->g, st->c, st->nr, NULL, cause) != 0)
		return -1;
	st->logpost = xcalloc(st->nr, sizeof *st->logpost);
	st->post = xcalloc(st->nr, sizeof *st->post);
	st->pbad = xcalloc(st->nr, sizeof *st->pbad);
	st->gain = xcalloc(st->nr, sizeof *st->gain);
	st->lvl = xcalloc(6 * st->nr, sizeof *st->lvl);
	st->mark = xcalloc(st->nr, 1);

	anc_good = xcalloc(st->nr, 1);
	*nr_goods = 0;
	for (i = 0; i < in->nr_good; i++) {
		bisect_graph_ancestors(&st->g, in->good[i], bisect_mark_fn,
		    anc_good);
		if (st->c[in->good[i]].build != BISECT_BUILD_FAILED)
			goods[(*nr_goods)++] = in->good[i];
	}
	if (*nr_goods == 0) {
		error_set(cause, "no good commit builds");
		goto out;
	}
	if (anc_good[in->bad]) {
		error_set(cause, "the bad commit is an ancestor of a good one");
		goto out;
	}
	root->top = in->bad;
	root->goods = goods;
	root->nr_goods = *nr_goods;
	root->in = xcalloc(st->nr, 1);
	bisect_graph_ancestors(&st->g, in->bad, bisect_mark_fn, root->in);
	for (i = 0; i < st->nr; i++)
		if (anc_good[i])
			root->in[i] = 0;
	st->root_top = in->bad;
	st->root_goods = goods;
	st->nr_root_goods = *nr_goods;
	r = 0;
out:
	free(anc_good);
	return r;
}

/*
 * The wants as the caller takes them: a class's want to its member,
 * boots, the bad end beside the search (pairs or the sentinel), the
 * rounds' reference end.
 */
static void
bisect_wants_finish(struct bisect_result *res, struct bisect_views *v,
    const struct bisect_state *st, const struct bisect_input *in,
    const size_t *goods, size_t nr_goods)
{
	bisect_image_ends(&v->im, in->bad, goods, nr_goods);
	bisect_image_wants(&v->im, v->bu.used ? v->boo : in->commits,
	    res->wants, &res->nr_wants);
	bisect_boot_wants(&v->bu, in->commits, res->wants, res->nr_wants);
	bisect_time_wants(&v->bt, in->commits, in->good, in->nr_good,
	    &res->wants, &res->nr_wants);
	if (in->slots <= 1)
		bisect_time_sentinel(&v->bt, in->commits, st->timed, in->good,
		    in->nr_good, &res->wants, &res->nr_wants);
	if (in->slots > 1)
		bisect_rounds_ref_wants(&v->bt, in->commits, st->timed,
		    &res->wants, &res->nr_wants);
}

static int
bisect_decide_all(struct bisect_result *res, const struct bisect_input *in)
{
	struct bisect_state	 st;
	struct bisect_range	 root;
	struct bisect_views	 v;
	size_t			*goods = NULL, nr_goods = 0, i;
	enum bisect_status	 s;
	int			 r = -1;

	memset(res, 0, sizeof *res);
	res->fresh_verdict = -1;
	res->fresh_step_pct = res->fresh_p_agree = NAN;
	res->fresh_p_disagree = NAN;
	memset(&st, 0, sizeof st);
	memset(&root, 0, sizeof root);
	memset(&v, 0, sizeof v);
	if (bisect_check(in, &res->error) != 0)
		goto fail;
	bisect_views_init(&v, &st, in);
	res->min_detectable_pct = NAN;
	bisect_state_settings(&st, in);
	goods = xcalloc(in->nr_good, sizeof *goods);
	if (bisect_state_root(&st, &root, goods, &nr_goods, &res->error) != 0)
		goto fail;
	/*
	 * Without a min_effect_pct, the smallest change worth finding is the
	 * one max_runs samples find (bisect_range_ends_floor): no sampling on.
	 */
	st.ends_max = in->min_effect_pct > 0 ?
	    BISECT_ENDS_FACTOR * st.max_runs : st.max_runs;
	bisect_budget(&st, in, &root, res);
	for (i = 0; i < nr_goods; i++)
		if (bisect_image_same(&st.c[in->bad], &st.c[goods[i]]))
			break;
	if (i < nr_goods) {
		/* the ends ran one image: no commit between changed it */
		bisect_fill(res, &st, BISECT_NO_CHANGE);
		r = 0;
		goto out;
	}
	s = bisect_range_decide(&st, &root);
	if (s == BISECT_FOUND && st.nr_found == 0)
		s = BISECT_AMBIGUOUS;
	if (s == BISECT_CONTINUE && st.nr_wants == 0) {
		error_set(&res->error, "nothing left to sample");
		goto fail;
	}
	if (s == BISECT_NO_CHANGE && st.inconclusive)
		s = BISECT_INCONCLUSIVE;
	bisect_fill(res, &st, s);
	res->min_detectable_pct = st.min_detectable_pct;
	if (s == BISECT_CONTINUE)
		bisect_wants_finish(res, &v, &st, in, goods, nr_goods);
	if (s == BISECT_FOUND && res->nr_culprits > 0 &&
	    v.im.same_parent[res->culprits[0]]) {
		/* the last word: never a culprit that ran its parent's image */
		res->status = BISECT_UNCONFIRMED;
		res->contradiction = xstrdup("the culprit's image is "
		    "byte-identical to its first parent's");
	} else if (s == BISECT_FOUND && res->nr_culprits > 0)
		bisect_fresh(res, &st, v.adj != NULL ? v.adj : in->commits,
		    in->commits, &v.im);
	res->budget_spent = st.cut;
	r = 0;
	goto out;
fail:
	res->status = BISECT_FAILED;
out:
	free(root.in);
	free(goods);
	bisect_views_release(&v);
	bisect_state_release(&st);
	return r;
}
