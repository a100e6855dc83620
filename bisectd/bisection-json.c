/*
 * The result JSON of a concluded bisection (docs/cli.md, --json): its
 * status, the culprit with its change against its parent as the compare
 * table computes it, the ends' figures when no culprit is named, the fresh
 * and revert checks, and the commits tested, built or skipped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection-internal.h"
#include "bisectd/report.h"
#include "stats/bisect-pair.h"
#include "stats/compare.h"
#include "stats/summary.h"

static json_t *
bisection_json_stats(const struct bisect_commit *c)
{
	struct summary	sum;

	summary_compute(&sum, c->samples, c->nr_samples);
	return json_pack("{s:f, s:f, s:I}", "mean", c->nr_samples ? sum.mean :
	    0.0, "stddev_pct", isfinite(sum.stddev_pct) ? sum.stddev_pct :
	    0.0, "n", (json_int_t)c->nr_samples);
}

static json_t *
bisection_json_oids(const struct repo_range *range, const size_t *v, size_t n)
{
	json_t	*a = json_array();
	size_t	 i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(range->oids[v[i]]));
	return a;
}

double
bisection_json_round(double x, double unit)
{
	return isfinite(x) ? round(x / unit) * unit : 0.0;
}

/*
 * The commit whose samples stand for commit i: i, or when i has none, the
 * commit of its image with the most (identical images are one test point).
 */
static size_t
bisection_json_sampled_at(const struct repo_range *range, size_t i)
{
	const struct bisect_commit	*c = &range->commits[i];
	size_t				 k, best = i;

	if (c->nr_samples > 0 || c->image == NULL)
		return i;
	for (k = 0; k < range->nr_commits; k++)
		if (range->commits[k].image != NULL &&
		    strcmp(range->commits[k].image, c->image) == 0 &&
		    range->commits[k].nr_samples >
		    range->commits[best].nr_samples)
			best = k;
	return best;
}

/*
 * The culprit's change, p and interval: against its parent as the compare
 * table computes them (Welch's t and Fieller's interval, within machines
 * when the runs were spread over several), so that the headline, the
 * JSON and the table agree; the driver's own robust estimate (the
 * Hodges-Lehmann shift against the good side it compared with, in % of
 * its median) goes alongside. Without two samples of the parent, the
 * driver's estimate is the one given.
 */
static void
bisection_json_change(struct services *s, const struct store_bisection *b,
    const struct repo_range *range, const struct bisect_result *res,
    json_t *o)
{
	struct store_series	sp, sc;
	struct comparison	cmp;
	size_t			culprit = res->culprits[0], parent;
	int			have = 0;

	memset(&sp, 0, sizeof sp);
	memset(&sc, 0, sizeof sc);
	if (range->commits[culprit].nr_parents > 0) {
		parent = bisection_json_sampled_at(range,
		    range->commits[culprit].parents[0]);
		have = store_series_get(s->ctx->store, b->job, b->repo,
		    range->oids[parent], b->metric, &sp, NULL) == 0 &&
		    store_series_get(s->ctx->store, b->job, b->repo,
		    range->oids[bisection_json_sampled_at(range, culprit)],
		    b->metric, &sc, NULL) == 0 &&
		    report_compare(&cmp, &sp, &sc) == 0 &&
		    isfinite(cmp.change_pct);
	}
	if (have) {
		json_object_set_new(o, "change_pct", json_real(
		    bisection_json_round(cmp.change_pct, 0.1)));
		json_object_set_new(o, "ci_pct", json_pack("[f, f]",
		    bisection_json_round(cmp.ci_lo, 0.1),
		    bisection_json_round(cmp.ci_hi, 0.1)));
		json_object_set_new(o, "p_value", json_real(
		    isfinite(cmp.p_value) ? cmp.p_value : 1));
		if (cmp.blocks > 1)
			json_object_set_new(o, "machines",
			    json_integer(cmp.blocks));
	} else {
		json_object_set_new(o, "change_pct", json_real(
		    bisection_json_round(res->culprit_change_pct, 0.1)));
		json_object_set_new(o, "ci_pct", json_pack("[f, f]",
		    bisection_json_round(res->culprit_ci_lo, 0.1),
		    bisection_json_round(res->culprit_ci_hi, 0.1)));
		json_object_set_new(o, "p_value", json_real(
		    isfinite(res->culprit_p_value) ? res->culprit_p_value : 1));
	}
	json_object_set_new(o, "shift_pct", json_real(
	    bisection_json_round(res->culprit_change_pct, 0.1)));
	json_object_set_new(o, "shift_ci_pct", json_pack("[f, f]",
	    bisection_json_round(res->culprit_ci_lo, 0.1),
	    bisection_json_round(res->culprit_ci_hi, 0.1)));
	store_series_release(&sp);
	store_series_release(&sc);
}

/* The headline metric's instances, parent against culprit (seed 002). */
static void
bisection_json_fairness(struct services *s, const struct store_bisection *b,
    const struct repo_range *range, size_t culprit, json_t *o)
{
	struct report_fairness	 f;
	json_t			*j;

	if (range->commits[culprit].nr_parents == 0 ||
	    report_fairness_load(s->ctx, b, range->oids[range->commits[
	    culprit].parents[0]], range->oids[culprit], &f) != 0)
		return;
	j = report_fairness_json(&f, json_number_value(json_object_get(o,
	    "change_pct")), b->direction);
	if (j != NULL)
		json_object_set_new(o, "fairness", j);
}

/* A culprit's side of the result: its change, its parent's and its stats. */
static void
bisection_json_culprit(struct services *s, const struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    json_t *o)
{
	const struct repo_range	*range = &bs->range;
	size_t			 culprit = res->culprits[0], parent, k;

	bisection_json_change(s, b, range, res, o);
	if (range->commits[culprit].nr_parents > 0) {
		parent = range->commits[culprit].parents[0];
		k = bisection_json_sampled_at(range, parent);
		json_object_set_new(o, "parent", bisection_json_stats(
		    &range->commits[k]));
		/* the runs of its image that stand for it */
		if (k != parent)
			json_object_set_new(o, "parent_sampled_at",
			    json_string(range->oids[k]));
		if (store_kernel_same_image(s->ctx->store, b->repo,
		    bs->recipe, range->oids[culprit],
		    range->oids[parent], NULL) == 1)
			json_object_set_new(o, "same_image_as_parent",
			    json_true());
	}
	k = bisection_json_sampled_at(range, culprit);
	json_object_set_new(o, "culprit_stats", bisection_json_stats(
	    &range->commits[k]));
	if (k != culprit)
		json_object_set_new(o, "culprit_sampled_at",
		    json_string(range->oids[k]));
	json_object_set_new(o, "explained_pct", json_real(
	    bisection_json_round(res->explained_pct, 1)));
	bisection_json_fairness(s, b, range, culprit, o);
}

/* What the ends say when no culprit is named. */
static void
bisection_json_ends(const struct repo_range *range,
    const struct bisect_result *res, json_t *o)
{
	/* the ends ran one image: nothing between them changed it */
	if (res->status == BISECT_NO_CHANGE && range->nr_good > 0 &&
	    range->commits[range->bad].image != NULL &&
	    range->commits[range->good[0]].image != NULL &&
	    strcmp(range->commits[range->bad].image,
	    range->commits[range->good[0]].image) == 0)
		json_object_set_new(o, "same_image", json_true());
	/* the smallest change the ends' samples would have shown */
	if ((res->status == BISECT_INCONCLUSIVE ||
	    res->status == BISECT_NO_CHANGE) &&
	    isfinite(res->min_detectable_pct)) {
		json_object_set_new(o, "min_detectable_pct", json_real(
		    bisection_json_round(fabs(res->min_detectable_pct), 0.1)));
		json_object_set_new(o, "runs_per_end", json_integer(
		    (json_int_t)range->commits[range->bad].nr_samples));
	}
}

/* The fresh interleaved check of the culprit against its parent. */
static json_t *
bisection_json_fresh(const struct bisect_result *res)
{
	json_t	*fc = json_object();

	json_object_set_new(fc, "verdict", json_string(
	    bisect_pair_verdict_name(res->fresh_verdict)));
	json_object_set_new(fc, "pairs",
	    json_integer((json_int_t)res->fresh_pairs));
	if (isfinite(res->fresh_step_pct))
		json_object_set_new(fc, "step_pct", json_real(
		    bisection_json_round(res->fresh_step_pct, 0.01)));
	if (isfinite(res->fresh_p_agree))
		json_object_set_new(fc, "p_agree",
		    json_real(res->fresh_p_agree));
	if (isfinite(res->fresh_p_disagree))
		json_object_set_new(fc, "p_disagree",
		    json_real(res->fresh_p_disagree));
	return fc;
}

/* The commits only built, each with the commit whose runs it shares. */
static void
bisection_json_stand_ins(const struct repo_range *range,
    const struct bisection_turn *t, json_t *o)
{
	json_t	*stand = json_object();
	size_t	 i, k;

	for (i = t->nr_ran; i < t->nr_touched; i++) {
		k = bisection_json_sampled_at(range, t->touched[i]);
		if (k != t->touched[i] && range->commits[k].nr_samples > 0)
			json_object_set_new(stand, range->oids[t->touched[i]],
			    json_string(range->oids[k]));
	}
	if (json_object_size(stand) > 0)
		json_object_set(o, "stand_ins", stand);
	json_decref(stand);
}

char *
bisection_json(struct services *s, const struct bisection *bs,
    const struct store_bisection *b, const struct bisection_turn *t,
    const struct bisect_result *res, json_t *revert)
{
	const struct repo_range	*range = &bs->range;
	json_t			*o = json_object(), *skipped = json_array();
	struct repo_commit	 rc;
	size_t			 i, culprit, builds = 0;
	char			*text;
	int			 found = (res->status == BISECT_FOUND ||
				    res->status == BISECT_UNCONFIRMED) &&
				    res->nr_culprits > 0;

	json_object_set_new(o, "id", json_integer(b->id));
	json_object_set_new(o, "status", json_string(
	    bisect_status_name(res->status)));
	/* what contradicts the culprit it names: never mailed as one */
	if (res->status == BISECT_UNCONFIRMED)
		json_object_set_new(o, "contradiction", json_string(
		    res->contradiction != NULL ? res->contradiction :
		    "its own evidence contradicts it"));
	if (found) {
		culprit = res->culprits[0];
		json_object_set_new(o, "culprit",
		    json_string(range->oids[culprit]));
		memset(&rc, 0, sizeof rc);
		if (repo_commit_read(bs->repo, range->oids[culprit], &rc,
		    NULL) == 0)
			json_object_set_new(o, "subject",
			    json_string(rc.subject));
		repo_commit_release(&rc);
	}
	json_object_set_new(o, "metric", json_string(b->metric));
	json_object_set_new(o, "direction", json_string(b->direction));
	json_object_set_new(o, "good", json_string(b->good));
	json_object_set_new(o, "bad", json_string(b->bad));
	if (found)
		bisection_json_culprit(s, bs, b, res, o);
	else {
		json_object_set_new(o, "change_pct", json_real(
		    bisection_json_round(res->change_pct, 0.1)));
		json_object_set_new(o, "ci_pct", json_pack("[f, f]",
		    bisection_json_round(res->ci_lo, 0.1),
		    bisection_json_round(res->ci_hi, 0.1)));
		json_object_set_new(o, "p_value", json_real(
		    isfinite(res->p_value) ? res->p_value : 1));
	}
	json_object_set_new(o, "culprits", bisection_json_oids(range,
	    res->culprits, found ? res->nr_culprits : 0));
	if (res->status == BISECT_AMBIGUOUS)
		json_object_set_new(o, "candidates", bisection_json_oids(range,
		    res->candidates, res->nr_candidates));
	if (res->status == BISECT_FAILED)
		json_object_set_new(o, "error", json_string(res->error ?
		    res->error : "the driver failed"));
	bisection_json_ends(range, res, o);
	/* the answer is the best the budget allowed, not a decided one */
	if (res->budget_spent)
		json_object_set_new(o, "budget", json_pack("{s:I, s:I}",
		    "runs", (json_int_t)res->budget_runs, "builds",
		    (json_int_t)res->budget_builds));
	for (i = 0; i < t->nr_touched; i++) {
		if (range->commits[t->touched[i]].build != BISECT_BUILD_UNKNOWN)
			builds++;
		if (range->commits[t->touched[i]].build == BISECT_BUILD_FAILED)
			json_array_append_new(skipped, json_string(
			    range->oids[t->touched[i]]));
	}
	if (revert != NULL) {
		json_object_set(o, "revert", revert);
		if (json_is_true(json_object_get(revert, "clean")))
			builds++;
	}
	json_object_set_new(o, "builds", json_integer((json_int_t)builds));
	if (res->fresh_verdict >= 0)
		json_object_set_new(o, "fresh_check",
		    bisection_json_fresh(res));
	bisection_json_stand_ins(range, t, o);
	json_object_set_new(o, "runs", json_integer((json_int_t)t->nr_runs));
	json_object_set_new(o, "skipped", skipped);
	/* 12 digits: -5.8, not the double nearest -5.8 written out in 17 */
	text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT |
	    JSON_REAL_PRECISION(12));
	json_decref(o);
	(void)s;
	return text;
}

