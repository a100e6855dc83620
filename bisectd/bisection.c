/*
 * The glue between a bisection's rows and the pure driver. Each turn, when
 * none of its runs is pending or running, it rebuilds the driver's input
 * from the database alone -- the range (cached: it only depends on good
 * and bad), build outcomes and every sample -- and applies the answer. As
 * the driver is deterministic and its wants are target totals, a restarted
 * scheduler asks again and gets the same answer: nothing is lost and
 * nothing is taken twice.
 */
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection.h"
#include "bisectd/jobcache.h"
#include "bisectd/outbox.h"
#include "bisectd/web.h"
#include "bisectd/build.h"
#include "bisectd/drift.h"
#include "bisectd/repo.h"
#include "bisectd/report.h"
#include "bisectd/request.h"
#include "bisectd/revert.h"
#include "bisectd/want.h"
#include "jobs/metric.h"
#include "schema/store-kernel.h"
#include "stats/bisect.h"
#include "stats/bisect-pair.h"
#include "stats/bisect-revert.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BISECTION_MAX_RUNS	40

struct bisection {
	int64_t			 id;
	struct repo		*repo;
	struct repo_range	 range;
	size_t			*order;		/* indices sorted by oid */
	char			*recipe;
	char			*kconfig;	/* the job's fragment, or NULL */
};

/* Per turn: the samples of the touched commits. */
struct bisection_turn {
	size_t			*touched;	/* indices into the range */
	size_t			 nr_touched;
	struct store_series	*series;	/* one per touched commit */
	int			*done;
	size_t			 nr_runs;
	/* every build of the range's recipe: status and digest */
	struct store_kernel_image *images;
	size_t			 nr_images;
	size_t			 nr_ran;	/* touched[] with runs come first */
	int			 building;	/* a range commit's build is on */
};

void
bisection_free(struct bisection *bs)
{
	if (bs == NULL)
		return;
	repo_range_release(&bs->range);
	repo_free(bs->repo);
	free(bs->order);
	free(bs->recipe);
	free(bs->kconfig);
	free(bs);
}

/* The driver's conclusion as the store keeps it. */
static enum store_bisection_status
bisection_status(enum bisect_status status)
{
	switch (status) {
	case BISECT_CONTINUE:
		return STORE_BISECTION_RUNNING;
	case BISECT_FOUND:
		return STORE_BISECTION_FOUND;
	case BISECT_NO_CHANGE:
		return STORE_BISECTION_NO_CHANGE;
	case BISECT_AMBIGUOUS:
		return STORE_BISECTION_AMBIGUOUS;
	case BISECT_UNCONFIRMED:
		return STORE_BISECTION_UNCONFIRMED;
	case BISECT_INCONCLUSIVE:
		return STORE_BISECTION_INCONCLUSIVE;
	case BISECT_FAILED:
		break;
	}
	return STORE_BISECTION_FAILED;
}

static int
bisection_cmp_oid(const void *a, const void *b, void *payload)
{
	const struct repo_range	*range = payload;
	const size_t		 ia = *(const size_t *)a, ib = *(const size_t *)b;

	return strcmp(range->oids[ia], range->oids[ib]);
}

static size_t
bisection_find(const struct bisection *bs, const char *oid)
{
	size_t	lo = 0, hi = bs->range.nr_commits, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(bs->range.oids[bs->order[mid]], oid);
		if (c == 0)
			return bs->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

static int
bisection_load(struct services *s, const struct store_bisection *b,
    struct bisection **out, char **cause)
{
	const struct config_repo	*cr;
	struct bisection		*bs;
	struct store_job		 sj;
	const char			*good = b->good;
	size_t				 i;

	for (i = 0; i < s->nr_bisections; i++) {
		if (s->bisections[i]->id == b->id) {
			*out = s->bisections[i];
			return 0;
		}
	}
	if ((cr = config_repo_find(s->ctx->config, b->repo)) == NULL)
		return error_set(cause, "no repository '%s' in the config",
		    b->repo);
	if (store_job_get(s->ctx->store, b->job, &sj, cause) != 0)
		return -1;
	bs = xcalloc(1, sizeof *bs);
	bs->id = b->id;
	bs->recipe = build_job_recipe(cr, jobcache_parse(&s->ctx->jobs, sj.id,
	    sj.job_id, sj.canonical, NULL), &bs->kconfig);
	store_job_release(&sj);
	if (repo_open(cr, &bs->repo, cause) != 0 ||
	    repo_range_load(bs->repo, &good, 1, b->bad, &bs->range,
	    cause) != 0) {
		bisection_free(bs);
		return -1;
	}
	bs->order = xcalloc(bs->range.nr_commits, sizeof *bs->order);
	for (i = 0; i < bs->range.nr_commits; i++)
		bs->order[i] = i;
	qsort_r(bs->order, bs->range.nr_commits, sizeof *bs->order,
	    bisection_cmp_oid, &bs->range);
	ALLOC_GROW(s->bisections, s->nr_bisections, s->alloc_bisections);
	s->bisections[s->nr_bisections++] = bs;
	*out = bs;
	return 0;
}

void
bisection_forget(struct services *s, int64_t id)
{
	size_t	i;

	for (i = 0; i < s->nr_bisections; i++) {
		if (s->bisections[i]->id != id)
			continue;
		bisection_free(s->bisections[i]);
		s->bisections[i] = s->bisections[--s->nr_bisections];
		return;
	}
}

static void
bisection_turn_release(struct bisection_turn *t)
{
	size_t	i;

	for (i = 0; i < t->nr_touched; i++)
		store_series_release(&t->series[i]);
	free(t->series);
	free(t->touched);
	free(t->done);
	store_kernel_images_free(t->images, t->nr_images);
	memset(t, 0, sizeof *t);
}

/*
 * The range's commits start unknown, then get every build of the range,
 * sampled or not: a build the driver asked for alone (a want of 0
 * samples) tells it the commit's image, and commits of one image are one
 * test point (docs/bisection.md).
 */
static int
bisection_images(struct store *st, struct bisection *bs,
    const struct store_bisection *b, struct bisection_turn *t, char **cause)
{
	struct bisect_commit	*c;
	size_t			 i, idx;

	for (i = 0; i < bs->range.nr_commits; i++) {
		c = &bs->range.commits[i];
		c->build = BISECT_BUILD_UNKNOWN;
		c->samples = NULL;
		c->nr_samples = 0;
		c->machines = NULL;
		c->times = NULL;
		c->boots = NULL;
		c->image = NULL;
	}
	if (store_kernel_images(st, b->repo, bs->recipe, &t->images,
	    &t->nr_images, cause) != 0)
		return -1;
	for (i = 0; i < t->nr_images; i++) {
		if ((idx = bisection_find(bs, t->images[i].commit_oid)) ==
		    (size_t)-1)
			continue;
		c = &bs->range.commits[idx];
		if (t->images[i].status == STORE_BUILD_OK) {
			c->build = BISECT_BUILD_OK;
			c->image = t->images[i].image_hash;
		} else if (t->images[i].status == STORE_BUILD_FAILED)
			c->build = BISECT_BUILD_FAILED;
		else
			t->building = 1;
	}
	return 0;
}

/*
 * After the commits with runs, those only built (their image told the
 * driver enough): they are tested commits too, in the log and the counts.
 */
static void
bisection_built_only(const struct bisection *bs, struct bisection_turn *t)
{
	size_t	i, k, idx;

	t->nr_ran = t->nr_touched;
	for (i = 0; i < t->nr_images; i++) {
		if ((idx = bisection_find(bs, t->images[i].commit_oid)) ==
		    (size_t)-1 || bs->range.commits[idx].nr_samples > 0 ||
		    bs->range.commits[idx].build == BISECT_BUILD_UNKNOWN)
			continue;
		for (k = 0; k < t->nr_ran; k++)
			if (t->touched[k] == idx)
				break;
		if (k < t->nr_ran)
			continue;
		t->touched[t->nr_touched++] = idx;
	}
}

/* Fill the range's build states and samples from the database. */
static int
bisection_gather(struct services *s, struct bisection *bs,
    const struct store_bisection *b, struct bisection_turn *t, char **cause)
{
	struct store		 *st = s->ctx->store;
	struct bisect_commit	 *c;
	struct store_build	  build;
	char			**oids = NULL;
	size_t			  nr = 0, i, idx;
	int			  done, failed, found, r = -1;

	memset(&build, 0, sizeof build);
	if (bisection_images(st, bs, b, t, cause) != 0)
		return -1;
	if (store_run_commits(st, b->job, b->repo, &oids, &nr, cause) != 0)
		return -1;
	t->touched = xcalloc(nr + t->nr_images + 1, sizeof *t->touched);
	t->series = xcalloc(nr + t->nr_images + 1, sizeof *t->series);
	t->done = xcalloc(nr + t->nr_images + 1, sizeof *t->done);
	for (i = 0; i < nr; i++) {
		if ((idx = bisection_find(bs, oids[i])) == (size_t)-1)
			continue;
		c = &bs->range.commits[idx];
		if (store_series_get(st, b->job, b->repo, oids[i], b->metric,
		    &t->series[t->nr_touched], cause) != 0)
			goto out;
		if (store_run_totals(st, b->job, b->repo, oids[i], &done,
		    &failed, cause) != 0)
			goto out;
		store_build_release(&build);
		if ((found = store_build_find(st, b->repo, oids[i], bs->recipe,
		    &build, cause)) < 0)
			goto out;
		if (found && build.status == STORE_BUILD_OK)
			c->build = BISECT_BUILD_OK;
		if ((found && build.status == STORE_BUILD_FAILED) ||
		    (failed > 0 && t->series[t->nr_touched].nr == 0))
			c->build = BISECT_BUILD_FAILED;
		c->samples = t->series[t->nr_touched].values;
		c->nr_samples = t->series[t->nr_touched].nr;
		/*
		 * Which agent ran each value: with several, the driver takes
		 * their offsets out of what it decides on; the values here,
		 * and those the steps and the report show, stay as taken.
		 */
		c->machines = (const char *const *)
		    t->series[t->nr_touched].agents;
		/* when and in which boot each ran (NAN, NULL: unknown) */
		c->times = t->series[t->nr_touched].starts;
		c->boots = (const char *const *)
		    t->series[t->nr_touched].boots;
		t->done[t->nr_touched] = done;
		t->nr_runs += (size_t)done;
		t->touched[t->nr_touched++] = idx;
	}
	bisection_built_only(bs, t);
	r = 0;
out:
	store_build_release(&build);
	for (i = 0; i < nr; i++)
		free(oids[i]);
	free(oids);
	return r;
}

static int
bisection_direction(const char *direction)
{
	if (strcmp(direction, "higher") == 0)
		return 1;
	if (strcmp(direction, "lower") == 0)
		return -1;
	return 0;
}

/* A want of the bisection's job at oid (bisectd/want.c). */
static void
bisection_want_init(struct want *w, const struct bisection *bs,
    const struct store_bisection *b, const char *oid, unsigned samples)
{
	w->repo = b->repo;
	w->job = b->job;
	w->oid = oid;
	w->recipe = bs->recipe;
	w->kconfig = bs->kconfig;
	w->samples = samples;
}

/*
 * With several slots, the builds of the next round's likeliest commits
 * (res->builds), queued as builds alone so that they overlap this
 * round's runs; they are no progress of their own. Builds are taken in
 * the order queued, so no more than the slots' count of them: more would
 * hold up the next round's own builds behind them.
 */
static int
bisection_speculate(struct store *st, struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    unsigned slots, char **cause)
{
	int64_t	build;
	size_t	i;

	for (i = 0; i < res->nr_builds && i < slots; i++) {
		if (bs->range.commits[res->builds[i]].build !=
		    BISECT_BUILD_UNKNOWN)
			continue;
		if (store_build_ensure(st, b->repo,
		    bs->range.oids[res->builds[i]], bs->recipe, &build,
		    cause) != 0 ||
		    (bs->kconfig != NULL && store_kernel_set_kconfig(st, build,
		    bs->kconfig, cause) != 0))
			return -1;
	}
	return 0;
}

/*
 * Queue what the driver wants: runs up to each want's total, and for a
 * want of 0 samples the build alone (*builds counts them), whose image
 * may make runs there needless. *exhausted names a commit whose runs
 * failed as often as the driver wanted samples of it, or is NULL.
 */
static int
bisection_want(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    int *added, int *builds, const char **exhausted, char **cause)
{
	struct want	w;
	size_t		i;
	int		ex;

	*exhausted = NULL;
	for (i = 0; i < res->nr_wants; i++) {
		if (bs->range.commits[res->wants[i].commit].build ==
		    BISECT_BUILD_FAILED)
			continue;
		bisection_want_init(&w, bs, b,
		    bs->range.oids[res->wants[i].commit],
		    res->wants[i].samples);
		if (want_queue(s->ctx->store, &w, added, &ex, cause) != 0)
			return -1;
		if (res->wants[i].samples == 0)
			(*builds)++;
		if (ex)
			*exhausted = w.oid;
	}
	return bisection_speculate(s->ctx->store, bs, b, res, services_slots(s),
	    cause);
}

void
bisection_progress_count(struct strbuf *sb, size_t remaining, unsigned steps,
    const char *before)
{
	size_t	was = 0;

	strbuf_addf(sb, "bisect: %zu commit%s left (about %u step%s)",
	    remaining, remaining == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
	/*
	 * The count goes up only with its reason: the posterior is revised
	 * as samples land, so a commit decided on one side can move to the
	 * other and widen what is left.
	 */
	if (before != NULL && sscanf(before, "bisect: %zu commit", &was) == 1 &&
	    remaining > was)
		strbuf_addf(sb, ", up from %zu: new samples moved the "
		    "likeliest culprit's range", was);
}

static char *
bisection_progress(const struct bisection *bs, const struct bisect_result *res,
    const char *before)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;
	int		ends = 1;

	for (i = 0; i < res->nr_wants; i++) {
		if (res->wants[i].commit != bs->range.bad)
			ends = ends && bs->range.nr_good > 0 &&
			    res->wants[i].commit == bs->range.good[0];
	}
	if (ends)
		strbuf_addstr(&sb, "bisect: checking that good and bad differ");
	else
		bisection_progress_count(&sb, res->remaining, res->steps, before);
	for (i = 0; i < res->nr_wants; i++) {
		if (res->wants[i].samples == 0)
			strbuf_addf(&sb, "%s %.7s (build)", i ? "," :
			    ", testing", bs->range.oids[res->wants[i].commit]);
		else
			strbuf_addf(&sb, "%s %.7s (%u runs)", i ? "," :
			    ", testing", bs->range.oids[res->wants[i].commit],
			    res->wants[i].samples);
	}
	return strbuf_detach(&sb, NULL);
}

/* Is c among the range's commits that contain one of from[]? */
static unsigned char *
bisection_descendants(const struct repo_range *range, const size_t *from,
    size_t nr_from)
{
	unsigned char	*mark = xcalloc(range->nr_commits + 1, 1);
	int		 changed = 1;
	size_t		 i, j;

	for (i = 0; i < nr_from; i++)
		mark[from[i]] = 1;
	while (changed) {
		changed = 0;
		for (i = 0; i < range->nr_commits; i++) {
			if (mark[i])
				continue;
			for (j = 0; j < range->commits[i].nr_parents; j++) {
				if (mark[range->commits[i].parents[j]]) {
					mark[i] = 1;
					changed = 1;
					break;
				}
			}
		}
	}
	return mark;
}

static int
bisection_is_good_end(const struct repo_range *range, size_t idx)
{
	size_t	i;

	for (i = 0; i < range->nr_good; i++)
		if (range->good[i] == idx)
			return 1;
	return 0;
}

struct bisection_step_key {
	int	bad;
	size_t	weight;		/* ancestors-or-self in the range */
	size_t	pos;		/* in the order tested */
};

static int
bisection_cmp_step(const void *a, const void *b)
{
	const struct bisection_step_key	*x = a, *y = b;

	if (x->bad != y->bad)
		return x->bad - y->bad;
	if (x->bad && x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * git bisect keeps one bad ref, which each `git bisect bad` replaces: for
 * the log to replay to the culprit, the bad commits come last, each after
 * its descendants (the most ancestors in the range first). The rest keep
 * the order they were tested in. touched[i] is step i's commit.
 */
static void
bisection_steps_order(const struct repo_range *range, struct store_step *steps,
    const size_t *touched, size_t nr)
{
	struct bisection_step_key	*key;
	struct store_step		*copy;
	size_t				*w, i;

	w = xcalloc(range->nr_commits + 1, sizeof *w);
	if (bisect_weights(w, range->commits, range->nr_commits, NULL) != 0) {
		free(w);
		return;
	}
	key = xcalloc(nr + 1, sizeof *key);
	copy = xcalloc(nr + 1, sizeof *copy);
	for (i = 0; i < nr; i++) {
		key[i].bad = strcmp(steps[i].verdict, "bad") == 0;
		key[i].weight = w[touched[i]];
		key[i].pos = i;
		copy[i] = steps[i];
	}
	qsort(key, nr, sizeof *key, bisection_cmp_step);
	for (i = 0; i < nr; i++)
		steps[i] = copy[key[i].pos];
	free(copy);
	free(key);
	free(w);
}

/* The log of tested commits with verdicts relative to the conclusion. */
static struct store_step *
bisection_steps(const struct bisection *bs, const struct bisection_turn *t,
    const struct bisect_result *res, size_t *nr)
{
	const struct repo_range	*range = &bs->range;
	struct store_step	*steps = xcalloc(t->nr_touched + 1,
				    sizeof *steps);
	const size_t		*from = res->culprits;
	size_t			 nr_from = res->nr_culprits > 0 ? 1 : 0, i, k;
	unsigned char		*bad = NULL;
	struct summary		 sum;
	const struct bisect_commit *c;

	if (res->status == BISECT_AMBIGUOUS) {
		from = res->candidates;
		nr_from = res->nr_candidates;
	}
	bad = bisection_descendants(range, from, nr_from);
	for (i = 0; i < t->nr_touched; i++) {
		k = t->touched[i];
		c = &range->commits[k];
		steps[i].commit_oid = range->oids[k];
		summary_compute(&sum, c->samples, c->nr_samples);
		steps[i].samples = (int)c->nr_samples;
		steps[i].mean = c->nr_samples > 0 ? sum.mean : NAN;
		if (c->build == BISECT_BUILD_FAILED)
			steps[i].verdict = "skip";
		else if (bisection_is_good_end(range, k))
			steps[i].verdict = "good";
		else if (k == range->bad)
			steps[i].verdict = "bad";
		else if (res->status == BISECT_FOUND ||
		    res->status == BISECT_UNCONFIRMED ||
		    res->status == BISECT_AMBIGUOUS)
			steps[i].verdict = bad[k] ? "bad" : "good";
		else
			steps[i].verdict = "skip";
	}
	bisection_steps_order(range, steps, t->touched, t->nr_touched);
	free(bad);
	*nr = t->nr_touched;
	return steps;
}

static json_t *
bisection_stats_json(const struct bisect_commit *c)
{
	struct summary	sum;

	summary_compute(&sum, c->samples, c->nr_samples);
	return json_pack("{s:f, s:f, s:I}", "mean", c->nr_samples ? sum.mean :
	    0.0, "stddev_pct", isfinite(sum.stddev_pct) ? sum.stddev_pct :
	    0.0, "n", (json_int_t)c->nr_samples);
}

static json_t *
bisection_oid_list(const struct repo_range *range, const size_t *v, size_t n)
{
	json_t	*a = json_array();
	size_t	 i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(range->oids[v[i]]));
	return a;
}

static double
bisection_round(double x, double unit)
{
	return isfinite(x) ? round(x / unit) * unit : 0.0;
}

/*
 * The commit whose samples stand for commit i: i, or when i has none, the
 * commit of its image with the most (identical images are one test point).
 */
static size_t
bisection_sampled_at(const struct repo_range *range, size_t i)
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
bisection_culprit_change(struct services *s, const struct store_bisection *b,
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
		parent = bisection_sampled_at(range,
		    range->commits[culprit].parents[0]);
		have = store_series_get(s->ctx->store, b->job, b->repo,
		    range->oids[parent], b->metric, &sp, NULL) == 0 &&
		    store_series_get(s->ctx->store, b->job, b->repo,
		    range->oids[bisection_sampled_at(range, culprit)],
		    b->metric, &sc, NULL) == 0 &&
		    report_compare(&cmp, &sp, &sc) == 0 &&
		    isfinite(cmp.change_pct);
	}
	if (have) {
		json_object_set_new(o, "change_pct", json_real(
		    bisection_round(cmp.change_pct, 0.1)));
		json_object_set_new(o, "ci_pct", json_pack("[f, f]",
		    bisection_round(cmp.ci_lo, 0.1),
		    bisection_round(cmp.ci_hi, 0.1)));
		json_object_set_new(o, "p_value", json_real(
		    isfinite(cmp.p_value) ? cmp.p_value : 1));
		if (cmp.blocks > 1)
			json_object_set_new(o, "machines",
			    json_integer(cmp.blocks));
	} else {
		json_object_set_new(o, "change_pct", json_real(
		    bisection_round(res->culprit_change_pct, 0.1)));
		json_object_set_new(o, "ci_pct", json_pack("[f, f]",
		    bisection_round(res->culprit_ci_lo, 0.1),
		    bisection_round(res->culprit_ci_hi, 0.1)));
		json_object_set_new(o, "p_value", json_real(
		    isfinite(res->culprit_p_value) ? res->culprit_p_value : 1));
	}
	json_object_set_new(o, "shift_pct", json_real(
	    bisection_round(res->culprit_change_pct, 0.1)));
	json_object_set_new(o, "shift_ci_pct", json_pack("[f, f]",
	    bisection_round(res->culprit_ci_lo, 0.1),
	    bisection_round(res->culprit_ci_hi, 0.1)));
	store_series_release(&sp);
	store_series_release(&sc);
}

/* The headline metric's instances, parent against culprit (seed 002). */
static void
bisection_fairness(struct services *s, const struct store_bisection *b,
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

	bisection_culprit_change(s, b, range, res, o);
	if (range->commits[culprit].nr_parents > 0) {
		parent = range->commits[culprit].parents[0];
		k = bisection_sampled_at(range, parent);
		json_object_set_new(o, "parent", bisection_stats_json(
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
	k = bisection_sampled_at(range, culprit);
	json_object_set_new(o, "culprit_stats", bisection_stats_json(
	    &range->commits[k]));
	if (k != culprit)
		json_object_set_new(o, "culprit_sampled_at",
		    json_string(range->oids[k]));
	json_object_set_new(o, "explained_pct", json_real(
	    bisection_round(res->explained_pct, 1)));
	bisection_fairness(s, b, range, culprit, o);
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
		    bisection_round(fabs(res->min_detectable_pct), 0.1)));
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
		    bisection_round(res->fresh_step_pct, 0.01)));
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
		k = bisection_sampled_at(range, t->touched[i]);
		if (k != t->touched[i] && range->commits[k].nr_samples > 0)
			json_object_set_new(stand, range->oids[t->touched[i]],
			    json_string(range->oids[k]));
	}
	if (json_object_size(stand) > 0)
		json_object_set(o, "stand_ins", stand);
	json_decref(stand);
}

static char *
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
		    bisection_round(res->change_pct, 0.1)));
		json_object_set_new(o, "ci_pct", json_pack("[f, f]",
		    bisection_round(res->ci_lo, 0.1),
		    bisection_round(res->ci_hi, 0.1)));
		json_object_set_new(o, "p_value", json_real(
		    isfinite(res->p_value) ? res->p_value : 1));
	}
	json_object_set_new(o, "culprits", bisection_oid_list(range,
	    res->culprits, found ? res->nr_culprits : 0));
	if (res->status == BISECT_AMBIGUOUS)
		json_object_set_new(o, "candidates", bisection_oid_list(range,
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

static int
bisection_fail(struct services *s, int64_t id, const char *why,
    char **cause)
{
	json_t	*o = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id,
		    "status", "failed", "error", why);
	char	*text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
	int	 r;

	log_error("bisection %lld failed: %s", (long long)id, why);
	r = store_bisection_finish(s->ctx->store, id, STORE_BISECTION_FAILED,
	    text, NULL, 0, cause);
	if (r == 0)
		r = store_request_set_status(s->ctx->store, id,
		    STORE_REQUEST_FAILED, why, cause);
	json_decref(o);
	free(text);
	bisection_forget(s, id);
	s->progress = 1;
	return r;
}

/*
 * A culprit's report goes out: queued for mail (sent by the scheduler's
 * outbox flush; a found culprit only) and written as a web page, when
 * configured.
 * Neither failing undoes the conclusion: both can be redone with
 * `bisectctl report ID --email / --html DIR`.
 */
static void
bisection_publish(struct services *s, int64_t id, int mail)
{
	const struct config	*cfg = s->ctx->config;
	char			*why = NULL, *path = NULL;
	int64_t			 msg;
	int			 added;

	/* an unconfirmed culprit's author is not mailed: its page says why */
	if (mail && cfg->mail.smtp != NULL &&
	    outbox_queue(s->ctx, id, &msg, &added, &why) != 0) {
		log_error("bisection %lld: couldn't queue its mail: %s",
		    (long long)id, why);
		free(why);
		why = NULL;
	}
	if (cfg->web != NULL) {
		if (web_write(s->ctx, id, cfg->web, &path, &why) != 0)
			log_error("bisection %lld: couldn't write its page: %s",
			    (long long)id, why);
		else
			log_info("bisection %lld: report page %s",
			    (long long)id, path);
	}
	free(why);
	free(path);
}

/* The report of a bisection that named a culprit; its mail if found. */
static int
bisection_report(struct services *s, int64_t id, int found, char **cause)
{
	char	*headline = NULL, *body = NULL;
	int64_t	 report;
	int	 r = -1;

	if (report_bisection(s->ctx, id, &headline, &body, cause) != 0 ||
	    store_report_add(s->ctx->store, id, headline, body, &report,
	    cause) != 0)
		goto out;
	bisection_publish(s, id, found);
	r = 0;
out:
	free(headline);
	free(body);
	return r;
}

int
bisection_report_missing(struct services *s, char **cause)
{
	struct store_bisection	 b;
	int64_t			*ids = NULL;
	size_t			 nr = 0, i;
	int			 r = -1;

	if (store_bisection_unreported(s->ctx->store, &ids, &nr, cause) != 0)
		goto out;
	for (i = 0; i < nr; i++) {
		if (store_bisection_get(s->ctx->store, ids[i], &b, cause) != 0)
			goto out;
		log_info("bisection %lld: %s without its report (a process "
		    "stopped between the two): writing it", (long long)ids[i],
		    store_bisection_status_name(b.status));
		r = bisection_report(s, ids[i],
		    b.status == STORE_BISECTION_FOUND, cause);
		store_bisection_release(&b);
		if (r != 0)
			goto out;
	}
	r = 0;
out:
	free(ids);
	return r;
}

static int
bisection_conclude(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const struct bisection_turn *t,
    const struct bisect_result *res, json_t *revert, char **cause)
{
	struct store_step	*steps = NULL;
	char			*json = NULL;
	size_t			 nr_steps = 0;
	int			 r = -1;

	json = bisection_json(s, bs, b, t, res, revert);
	steps = bisection_steps(bs, t, res, &nr_steps);
	if (store_bisection_finish(s->ctx->store, b->id,
	    bisection_status(res->status), json, steps, nr_steps,
	    cause) != 0)
		goto out;
	if (res->status == BISECT_FOUND ||
	    res->status == BISECT_UNCONFIRMED) {
		if (bisection_report(s, b->id, res->status == BISECT_FOUND,
		    cause) != 0)
			goto out;
	} else if (res->status != BISECT_FAILED)
		/* its page and plot, with web: (no mail: no culprit) */
		bisection_publish(s, b->id, 0);
	r = 0;
out:
	free(steps);
	free(json);
	bisection_forget(s, b->id);
	s->progress = 1;
	return r;
}

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
		    "restored_pct", 100.0, "change_pct", bisection_round(
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

/*
 * The revert check: the culprit reverted on top of bad, built and run in
 * looks that grow by half up to as many times as bad was (at least the
 * job's runs), boots as units where boots differ more than runs do; its
 * verdict and its looks are stats/bisect-revert.c's, which asks again on
 * more runs before it says the revert contradicts the culprit. Returns 1 while its runs are still to come (they have been
 * queued), 2 while its build is (bisection_revert_image), 0 with *out set
 * to the check's JSON (or NULL when there is nothing to say) and *v to the
 * verdict, -1 on error.
 */
static int
bisection_revert(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    unsigned runs, struct bisection_turn *t, json_t **out,
    struct bisect_revert *v, char **cause)
{
	struct store		*st = s->ctx->store;
	const struct repo_range	*range = &bs->range;
	const struct bisect_commit *bad = &range->commits[range->bad];
	const struct bisect_commit *good = &range->commits[range->good[0]];
	struct bisect_revert_input vin;
	struct store_series	 series;
	struct store_build	 build;
	struct summary		 sr;
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
	memset(&vin, 0, sizeof vin);
	vin.bad = bad->samples;
	vin.nr_bad = bad->nr_samples;
	vin.good = good->samples;
	vin.nr_good = good->nr_samples;
	vin.revert = series.values;
	vin.nr_revert = series.nr;
	vin.runs = target;
	/* with times, as interleaved pairs with the bad end (issue 11) */
	vin.bad_times = bad->times;
	vin.revert_times = series.starts;
	vin.after = bisection_revert_after(range);
	/* boots as units where boots differ more than runs do, as the driver */
	if (bad->boots != NULL && good->boots != NULL && series.nr > 0) {
		size_t k;

		for (k = 0; k < series.nr && series.boots[k] != NULL; k++)
			;
		if (k == series.nr) {
			vin.bad_boots = bad->boots;
			vin.good_boots = good->boots;
			vin.revert_boots = (const char *const *)series.boots;
		}
	}
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
	summary_compute(&sr, series.values, series.nr);
	*out = json_pack("{s:b, s:s, s:b, s:f, s:I, s:f, s:f, s:[f, f], "
	    "s:f, s:s}",
	    "clean", 1, "commit", oid, "built", 1,
	    "mean", series.nr ? sr.mean : 0.0, "n", (json_int_t)series.nr,
	    "change_pct", bisection_round(v->change_pct, 0.1),
	    "restored_pct", bisection_round(v->restored_pct, 1),
	    "restored_ci_pct", bisection_round(v->restored_lo, 1),
	    bisection_round(v->restored_hi, 1),
	    "p_value", isfinite(v->p_value) ? v->p_value : 1.0,
	    "verdict", bisect_revert_verdict_name(v->verdict));
	store_series_release(&series);
	return 0;
}

/*
 * A metric nothing prints: an inline testcase's metrics are known only
 * once it has run, so the first commit whose runs are done without a
 * single sample of it ends the bisection at once, saying what the runs
 * did print, instead of sampling on for nothing. 1 with *why, 0, -1.
 */
static int
bisection_metric_missing(struct services *s, const struct bisection *bs,
    const struct store_bisection *b, const struct bisection_turn *t,
    char **why, char **cause)
{
	struct store_series	*all = NULL;
	struct strbuf		 sb = STRBUF_INIT;
	size_t			 i, k, nr = 0, shown = 0;
	int			 r = 0;

	for (i = 0; i < t->nr_touched && r == 0; i++) {
		if (t->done[i] == 0 || t->series[i].nr > 0)
			continue;
		store_series_list_free(all, nr);
		all = NULL;
		nr = 0;
		if (store_series_all(s->ctx->store, b->job, b->repo,
		    bs->range.oids[t->touched[i]], &all, &nr, cause) != 0)
			return -1;
		if (nr == 0)
			continue;
		strbuf_addf(&sb, "no sample of '%s' in the %d done run%s of "
		    "%.12s; the runs printed: ", b->metric, t->done[i],
		    t->done[i] == 1 ? "" : "s", bs->range.oids[t->touched[i]]);
		for (k = 0; k < nr; k++) {
			if (strchr(all[k].metric, '.') == NULL ||
			    strncmp(all[k].metric, b->metric, (size_t)(strchr(
			    b->metric, '.') != NULL ? strchr(b->metric, '.') -
			    b->metric + 1 : 0)) != 0)
				continue;
			if (shown++ < 12)
				strbuf_addf(&sb, "%s%s", shown > 1 ? ", " : "",
				    all[k].metric);
		}
		if (shown == 0)
			strbuf_addstr(&sb, "no metric of the testcase (only the "
			    "monitors')");
		else if (shown > 12)
			strbuf_addf(&sb, " and %zu more", shown - 12);
		*why = strbuf_detach(&sb, NULL);
		r = 1;
	}
	store_series_list_free(all, nr);
	strbuf_release(&sb);
	return r;
}

int
bisection_plan(struct services *s, int64_t id, char **cause)
{
	struct store			*st = s->ctx->store;
	struct store_bisection		 b;
	struct store_request		 rq;
	struct bisection		*bs = NULL;
	struct bisection_turn		 t;
	struct bisect_input		 in;
	struct bisect_result		 res;
	const struct metric_info	*mi;
	char				*progress = NULL, *why = NULL;
	const char			*exhausted = NULL;
	json_t				*revert = NULL;
	struct bisect_revert		 verdict;
	int				 busy, added = 0, builds = 0, rv, r = -1;
	unsigned			 runs;

	memset(&t, 0, sizeof t);
	memset(&res, 0, sizeof res);
	memset(&rq, 0, sizeof rq);
	if (store_bisection_get(st, id, &b, cause) != 0)
		return -1;
	if (b.status != STORE_BISECTION_RUNNING) {
		r = store_request_set_status(st, id,
		    store_request_status_of(b.status), NULL, cause);
		goto out;
	}
	if (store_request_get(st, id, &rq, cause) != 0)
		goto out;
	if (rq.status == STORE_REQUEST_PENDING &&
	    store_request_set_status(st, id, STORE_REQUEST_RUNNING, NULL,
	    cause) != 0)
		goto out;
	if (store_run_busy(st, b.job, b.repo, &busy, cause) != 0)
		goto out;
	if (busy) {
		r = 0;
		goto out;
	}
	if (bisection_load(s, &b, &bs, &why) != 0) {
		r = bisection_fail(s, id, why, cause);
		goto out;
	}
	if (bisection_gather(s, bs, &b, &t, cause) != 0)
		goto out;
	switch (bisection_metric_missing(s, bs, &b, &t, &why, cause)) {
	case -1:
		goto out;
	case 1:
		r = bisection_fail(s, id, why, cause);
		goto out;
	}
	if (t.building) {
		/* the builds it asked for tell the driver their images first */
		r = 0;
		goto out;
	}
	switch (drift_bisection_check(s->ctx, &b,
	    (const char (*)[REPO_OID_HEX + 1])bs->range.oids, t.touched,
	    t.nr_ran, &why, cause)) {
	case -1:
		goto out;
	case 1:
		r = bisection_fail(s, id, why, cause);
		goto out;
	}
	mi = metric_lookup(b.metric);
	runs = request_runs(&rq);
	memset(&in, 0, sizeof in);
	in.commits = bs->range.commits;
	in.nr_commits = bs->range.nr_commits;
	in.bad = bs->range.bad;
	in.good = bs->range.good;
	in.nr_good = bs->range.nr_good;
	in.direction = bisection_direction(b.direction);
	in.min_effect_pct = mi->min_effect_pct;
	in.slots = services_slots(s);
	in.initial_runs = runs;
	in.max_runs = runs > BISECTION_MAX_RUNS ? runs : BISECTION_MAX_RUNS;
	if (bisect_decide(&res, &in) != 0 && res.status != BISECT_FAILED) {
		r = bisection_fail(s, id, res.error ? res.error :
		    "the bisection driver failed", cause);
		goto out;
	}
	if (res.status == BISECT_FOUND && res.nr_culprits > 0) {
		if (store_begin(st, cause) != 0)
			goto out;
		switch ((rv = bisection_revert(s, bs, &b, &res, runs, &t,
		    &revert, &verdict, &why))) {
		case 1:
		case 2:
			if (store_commit(st, cause) != 0) {
				store_rollback(st);
				goto out;
			}
			/* runs queued are progress; a build to wait for is not */
			if (rv == 1)
				s->progress = 1;
			r = 0;
			goto out;
		case -1:
			log_warn("bisection %lld: no revert check: %s",
			    (long long)id, why);
			break;
		}
		if (store_commit(st, cause) != 0) {
			store_rollback(st);
			goto out;
		}
		if (verdict.verdict == BISECT_REVERT_CONTRADICTS) {
			/* tested twice: the contradiction stands */
			res.status = BISECT_UNCONFIRMED;
			free(res.contradiction);
			res.contradiction = xasprintf("the revert check restores "
			    "%.0f%% of the change (95%% CI [%.0f%%, %.0f%%]), "
			    "significantly less than half (p = %.2g)",
			    verdict.restored_pct, verdict.restored_lo,
			    verdict.restored_hi, verdict.p_value);
		}
	}
	if (res.status != BISECT_CONTINUE) {
		r = bisection_conclude(s, bs, &b, &t, &res, revert, cause);
		goto out;
	}
	if (store_begin(st, cause) != 0)
		goto out;
	if (bisection_want(s, bs, &b, &res, &added, &builds, &exhausted,
	    cause) != 0) {
		store_rollback(st);
		goto out;
	}
	progress = bisection_progress(bs, &res, b.progress);
	if (store_bisection_progress(st, id, progress, cause) != 0 ||
	    store_commit(st, cause) != 0) {
		store_rollback(st);
		goto out;
	}
	if (added == 0 && builds == 0) {
		free(why);
		why = exhausted != NULL ? xasprintf("the runs at %.12s failed "
		    "as many times as samples of it were wanted: it cannot be "
		    "measured", exhausted) : xstrdup("the bisection driver "
		    "asked for no new samples");
		r = bisection_fail(s, id, why, cause);
		goto out;
	}
	s->progress = 1;
	r = 0;
out:
	json_decref(revert);
	bisect_result_release(&res);
	bisection_turn_release(&t);
	store_bisection_release(&b);
	store_request_release(&rq);
	free(progress);
	free(why);
	return r;
}
