/*
 * The revert check of a found culprit: the culprit reverted on top of the
 * bad end, built, compared by image with the culprit's parent, and run
 * beside the bad end until stats/bisect-revert.c gives its verdict; its
 * JSON goes into the bisection's result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection-internal.h"
#include "bisectd/revert.h"
#include "stats/summary.h"

/*
 * Queue runs of the revert commit oid until it has target of them, and
 * of bad (when not NULL) until it has bad_target: queued together, they
 * are one batch, which bisectd/dispatch.c runs as interleaved pairs.
 */
static int
bisection_revert_queue(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const char *oid, unsigned target,
    const char *bad, unsigned bad_target, char **cause)
{
	struct store	*st = s->ctx->store;
	struct want	 w;
	int		 added = 0, exhausted;

	bisection_want_init(&w, bs, b, oid, target);
	if (want_queue(st, &w, &added, &exhausted, cause) != 0)
		return -1;
	if (bad != NULL && added > 0) {
		bisection_want_init(&w, bs, b, bad, bad_target);
		if (want_queue(st, &w, &added, &exhausted, cause) != 0)
			return -1;
	}
	if (added == 0)
		return 0;
	if (store_bisection_progress(st, b->id, "bisect: checking that "
	    "reverting the culprit restores the metric", cause) != 0)
		return -1;
	return 1;
}

/* the latest run of any commit of the range but the bad end */
static double
bisection_revert_after(const struct repo_range *range)
{
	double	after = -INFINITY;
	size_t	i, k;

	for (i = 0; i < range->nr_commits; i++) {
		const struct bisect_commit *c = &range->commits[i];

		if (i == range->bad || c->times == NULL)
			continue;
		for (k = 0; k < c->nr_samples; k++)
			if (c->times[k] > after)
				after = c->times[k];
	}
	return after;
}

/*
 * The revert's build against the culprit's parent's image: 2 while the
 * build is to come (queued), 0 with *out and *v set when the images are
 * byte-identical or the revert does not build, 1 when runs must decide
 * (the images differ or one is unknown), -1 on error.
 */
static int
bisection_revert_image(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    const char *oid, json_t **out, struct bisect_revert *v, char **cause)
{
	struct store			*st = s->ctx->store;
	const struct repo_range		*range = &bs->range;
	const struct bisect_commit	*c = &range->commits[res->culprits[0]];
	const char			*pimage;
	struct store_build		 build;
	struct store_kernel_build	 kb;
	struct want			 w;
	int				 live, next, found, added = 0, ex;
	int				 r = 1;

	if (c->nr_parents == 0 ||
	    (pimage = range->commits[c->parents[0]].image) == NULL)
		return 1;
	memset(&build, 0, sizeof build);
	memset(&kb, 0, sizeof kb);
	if (store_run_count(st, b->job, b->repo, oid, &live, &next,
	    cause) != 0)
		return -1;
	if (live > 0)
		return 1;	/* runs were asked for already: they decide */
	if ((found = store_build_find(st, b->repo, oid, bs->recipe, &build,
	    cause)) < 0)
		return -1;
	if (!found) {
		bisection_want_init(&w, bs, b, oid, 0);
		if (want_queue(st, &w, &added, &ex, cause) != 0 ||
		    store_bisection_progress(st, b->id,
		    "bisect: building the culprit reverted on top of bad",
		    cause) != 0)
			return -1;
		return 2;
	}
	if (build.status == STORE_BUILD_FAILED) {
		*out = json_pack("{s:b, s:s, s:b}", "clean", 1, "commit", oid,
		    "built", 0);
		r = 0;
		goto out;
	}
	if (build.status != STORE_BUILD_OK) {
		r = 2;
		goto out;
	}
	if (store_kernel_get(st, build.id, &kb, cause) != 0) {
		r = -1;
		goto out;
	}
	if (kb.artifacts_hash != NULL &&
	    strcmp(kb.artifacts_hash, pimage) == 0) {
		v->verdict = BISECT_REVERT_RESTORES;
		v->restored_pct = v->restored_lo = v->restored_hi = 100;
		v->p_value = 1;
		*out = json_pack("{s:b, s:s, s:b, s:b, s:I, s:f, s:f, s:s}",
		    "clean", 1, "commit", oid, "built", 1,
		    "same_image_as_parent", 1, "n", (json_int_t)0,
		    "restored_pct", 100.0, "change_pct", bisection_json_round(
		    res->culprit_change_pct != 0 && isfinite(
		    res->culprit_change_pct) ? -100 * res->culprit_change_pct /
		    (100 + res->culprit_change_pct) : 0.0, 0.1),
		    "verdict", bisect_revert_verdict_name(v->verdict));
		r = 0;
	}
out:
	store_build_release(&build);
	store_kernel_build_release(&kb);
	return r;
}

/* Whether every one of n runs names the agent that ran it. */
static int
bisection_revert_named(const char *const *agents, size_t n)
{
	size_t	k;

	for (k = 0; k < n; k++)
		if (agents[k] == NULL)
			return 0;
	return 1;
}

/* What stats/bisect-revert.c decides on: the ends' runs and the revert's. */
static void
bisection_revert_input(struct bisect_revert_input *vin,
    const struct repo_range *range, const struct store_series *series,
    unsigned target)
{
	const struct bisect_commit *bad = &range->commits[range->bad];
	const struct bisect_commit *good = &range->commits[range->good[0]];
	size_t			    k;

	memset(vin, 0, sizeof *vin);
	vin->bad = bad->samples;
	vin->nr_bad = bad->nr_samples;
	vin->good = good->samples;
	vin->nr_good = good->nr_samples;
	vin->revert = series->values;
	vin->nr_revert = series->nr;
	vin->runs = target;
	/* with times, as interleaved pairs with the bad end (issue 11) */
	vin->bad_times = bad->times;
	vin->revert_times = series->starts;
	vin->after = bisection_revert_after(range);
	/* which agent ran each: several run the check's batch at once */
	if (bad->machines != NULL && series->agents != NULL &&
	    bisection_revert_named(bad->machines, bad->nr_samples) &&
	    bisection_revert_named((const char *const *)series->agents,
	    series->nr)) {
		vin->bad_machines = bad->machines;
		vin->revert_machines = (const char *const *)series->agents;
	}
	/* boots as units where boots differ more than runs do, as the driver */
	if (bad->boots != NULL && good->boots != NULL && series->nr > 0) {
		for (k = 0; k < series->nr && series->boots[k] != NULL; k++)
			;
		if (k == series->nr) {
			vin->bad_boots = bad->boots;
			vin->good_boots = good->boots;
			vin->revert_boots = (const char *const *)series->boots;
		}
	}
}

/* The check's JSON once its runs say what they can. */
static json_t *
bisection_revert_json(const char *oid, const struct store_series *series,
    const struct bisect_revert *v)
{
	struct summary	sr;

	summary_compute(&sr, series->values, series->nr);
	return json_pack("{s:b, s:s, s:b, s:f, s:I, s:f, s:f, s:[f, f], "
	    "s:f, s:s}",
	    "clean", 1, "commit", oid, "built", 1,
	    "mean", series->nr ? sr.mean : 0.0, "n", (json_int_t)series->nr,
	    "change_pct", bisection_json_round(v->change_pct, 0.1),
	    "restored_pct", bisection_json_round(v->restored_pct, 1),
	    "restored_ci_pct", bisection_json_round(v->restored_lo, 1),
	    bisection_json_round(v->restored_hi, 1),
	    "p_value", isfinite(v->p_value) ? v->p_value : 1.0,
	    "verdict", bisect_revert_verdict_name(v->verdict));
}

/*
 * The revert check: the culprit reverted on top of bad, built and run in
 * looks that grow by half up to as many times as bad was (at least the
 * job's runs), boots as units where boots differ more than runs do; its
 * verdict and its looks are stats/bisect-revert.c's, which asks again on
 * more runs before it says the revert contradicts the culprit. Returns 1
 * while its runs are still to come (they have been queued), 2 while its
 * build is (bisection_revert_image), 0 with *out set to the check's JSON
 * (or NULL when there is nothing to say) and *v to the verdict, -1 on
 * error.
 */
int
bisection_revert(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    unsigned runs, struct bisection_turn *t, json_t **out,
    struct bisect_revert *v, char **cause)
{
	struct store		*st = s->ctx->store;
	const struct repo_range	*range = &bs->range;
	const struct bisect_commit *bad = &range->commits[range->bad];
	struct bisect_revert_input vin;
	struct store_series	 series;
	struct store_build	 build;
	char			 oid[REPO_OID_HEX + 1];
	unsigned		 target;
	int			 done, failed, r, found;

	*out = NULL;
	memset(v, 0, sizeof *v);
	v->verdict = BISECT_REVERT_UNKNOWN;
	memset(&series, 0, sizeof series);
	memset(&build, 0, sizeof build);
	r = revert_onto(bs->repo, range->oids[res->culprits[0]],
	    range->oids[range->bad], oid, cause);
	if (r < 0)
		return -1;
	if (r == 1) {
		*out = json_pack("{s:b}", "clean", 0);
		return 0;
	}
	/*
	 * Built first when the culprit's parent's image is known: a revert
	 * whose image is the parent's restores all of the change by
	 * construction, and runs would tell nothing more.
	 */
	if ((r = bisection_revert_image(s, bs, b, res, oid, out, v,
	    cause)) != 1)
		return r;
	target = bad->nr_samples > runs ? (unsigned)bad->nr_samples : runs;
	if (store_run_totals(st, b->job, b->repo, oid, &done, &failed,
	    cause) != 0)
		return -1;
	if ((found = store_build_find(st, b->repo, oid, bs->recipe, &build,
	    cause)) < 0)
		return -1;
	if (found && build.status == STORE_BUILD_FAILED) {
		t->nr_runs += (size_t)done;
		*out = json_pack("{s:b, s:s, s:b}", "clean", 1, "commit", oid,
		    "built", 0);
		store_build_release(&build);
		return 0;
	}
	store_build_release(&build);
	if (store_series_get(st, b->job, b->repo, oid, b->metric, &series,
	    cause) != 0)
		return -1;
	bisection_revert_input(&vin, range, &series, target);
	/* in looks that grow by half, up to target (bisect_revert_decide) */
	if (bisect_revert_decide(v, &vin) == BISECT_REVERT_MORE) {
		store_series_release(&series);
		if ((r = bisection_revert_queue(s, bs, b, oid, v->want,
		    v->paired ? range->oids[range->bad] : NULL, v->want_bad,
		    cause)) != 0)
			return r;
		/* nothing more could be queued: the runs so far say it */
		v->verdict = BISECT_REVERT_UNKNOWN;
		if (store_series_get(st, b->job, b->repo, oid, b->metric,
		    &series, cause) != 0)
			return -1;
	}
	t->nr_runs += (size_t)done;
	*out = bisection_revert_json(oid, &series, v);
	store_series_release(&series);
	return 0;
}

