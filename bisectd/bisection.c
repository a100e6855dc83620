/*
 * The glue between a bisection's rows and the pure driver. Each turn, when
 * none of its runs is pending or running, it rebuilds the driver's input
 * from the database alone -- the range (cached: it only depends on good
 * and bad), build outcomes and every sample -- and applies the answer. As
 * the driver is deterministic and its wants are target totals, a restarted
 * scheduler asks again and gets the same answer: nothing is lost and
 * nothing is taken twice. Its turn, steps, JSON and revert check are in
 * bisection-*.c.
 */
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection-internal.h"
#include "bisectd/jobcache.h"
#include "bisectd/outbox.h"
#include "bisectd/web.h"
#include "bisectd/build.h"
#include "bisectd/drift.h"
#include "bisectd/repo.h"
#include "bisectd/report.h"
#include "bisectd/request.h"
#include "bisectd/want.h"
#include "jobs/metric.h"
#include "schema/store-kernel.h"
#include "stats/bisect.h"
#include "stats/bisect-revert.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BISECTION_MAX_RUNS	40

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
	free(bs->speculated);
	free(bs);
}

int
bisection_speculative(const struct services *s, const char *oid)
{
	size_t	i, idx;

	for (i = 0; i < s->nr_bisections; i++) {
		if (s->bisections[i]->speculated == NULL ||
		    (idx = bisection_find(s->bisections[i], oid)) == (size_t)-1)
			continue;
		if (s->bisections[i]->speculated[idx])
			return 1;
	}
	return 0;
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

size_t
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
void
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

	if (bs->speculated == NULL)
		bs->speculated = xcalloc(bs->range.nr_commits + 1, 1);
	for (i = 0; i < res->nr_builds && i < slots; i++) {
		if (bs->range.commits[res->builds[i]].build !=
		    BISECT_BUILD_UNKNOWN)
			continue;
		bs->speculated[res->builds[i]] = 1;
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
		/* asked for now: the next turn waits for its build */
		if (bs->speculated != NULL)
			bs->speculated[res->wants[i].commit] = 0;
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

/* The pure driver's input: the range as gathered, and the job's budget. */
static void
bisection_plan_input(struct bisect_input *in, struct services *s,
    const struct bisection *bs, const struct store_bisection *b,
    unsigned runs)
{
	const struct metric_info	*mi = metric_lookup(b->metric);

	memset(in, 0, sizeof *in);
	in->commits = bs->range.commits;
	in->nr_commits = bs->range.nr_commits;
	in->bad = bs->range.bad;
	in->good = bs->range.good;
	in->nr_good = bs->range.nr_good;
	in->direction = bisection_direction(b->direction);
	in->min_effect_pct = mi->min_effect_pct;
	in->slots = services_slots(s);
	in->initial_runs = runs;
	in->max_runs = runs > BISECTION_MAX_RUNS ? runs : BISECTION_MAX_RUNS;
}

/*
 * A found culprit's revert check, in a transaction of its own: 1 while
 * its runs or its build are to come (the turn ends there), 0 when the
 * check has said what it can (*res made unconfirmed when the revert
 * contradicts the culprit, *revert its JSON), -1 on error.
 */
static int
bisection_plan_revert(struct services *s, struct bisection *bs,
    const struct store_bisection *b, struct bisect_result *res,
    unsigned runs, struct bisection_turn *t, json_t **revert, char **cause)
{
	struct store		*st = s->ctx->store;
	struct bisect_revert	 verdict;
	char			*why = NULL;
	int			 rv;

	if (store_begin(st, cause) != 0)
		return -1;
	switch ((rv = bisection_revert(s, bs, b, res, runs, t, revert,
	    &verdict, &why))) {
	case 1:
	case 2:
		if (store_commit(st, cause) != 0) {
			store_rollback(st);
			return -1;
		}
		/* runs queued are progress; a build to wait for is not */
		if (rv == 1)
			s->progress = 1;
		return 1;
	case -1:
		log_warn("bisection %lld: no revert check: %s",
		    (long long)b->id, why);
		break;
	}
	free(why);
	if (store_commit(st, cause) != 0) {
		store_rollback(st);
		return -1;
	}
	if (verdict.verdict == BISECT_REVERT_CONTRADICTS) {
		/* tested twice: the contradiction stands */
		res->status = BISECT_UNCONFIRMED;
		free(res->contradiction);
		res->contradiction = xasprintf("the revert check restores "
		    "%.0f%% of the change (95%% CI [%.0f%%, %.0f%%]), "
		    "significantly less than half (p = %.2g)",
		    verdict.restored_pct, verdict.restored_lo,
		    verdict.restored_hi, verdict.p_value);
	}
	return 0;
}

/*
 * With several slots, runs wanted at a commit whose build has not ended
 * would go out before its image is known: the scheduler holds their batch
 * until its builds end (scheduler_held_batches), then runs it whole,
 * though a point whose image an end or another point has is one test
 * point with it and its runs are the other's to take. So the turn asks
 * those builds alone (first[], as many as res's wants, the wants at them
 * with 0 samples; their count returned), and the next turn, their images
 * known, asks the driver again: the runs go where the images are new.
 * Each such turn builds a commit not built before, so the turns end. One
 * slot: 0 (its driver asks builds alone itself once an image is known).
 */
static size_t
bisection_builds_first(const struct services *s, const struct bisection *bs,
    const struct bisect_result *res, struct bisect_want *first)
{
	size_t	i, n = 0;
	int	runs = 0;

	if (services_slots(s) <= 1)
		return 0;
	for (i = 0; i < res->nr_wants; i++) {
		if (bs->range.commits[res->wants[i].commit].build !=
		    BISECT_BUILD_UNKNOWN)
			continue;
		runs |= res->wants[i].samples > 0;
		first[n].commit = res->wants[i].commit;
		first[n++].samples = 0;
	}
	return runs ? n : 0;
}

/* The driver's wants queued with the progress line, or the failure. */
static int
bisection_plan_queue(struct services *s, struct bisection *bs,
    const struct store_bisection *b, const struct bisect_result *res,
    char **cause)
{
	struct store		*st = s->ctx->store;
	struct bisect_result	 now = *res;	/* shallow: never released */
	struct bisect_want	*first;
	const char		*exhausted = NULL;
	char			*progress = NULL, *why = NULL;
	int			 added = 0, builds = 0, r = -1;

	first = xcalloc(res->nr_wants + 1, sizeof *first);
	if ((now.nr_wants = bisection_builds_first(s, bs, res, first)) > 0)
		now.wants = first;
	else
		now.nr_wants = res->nr_wants;
	if (store_begin(st, cause) != 0)
		goto out;
	if (bisection_want(s, bs, b, &now, &added, &builds, &exhausted,
	    cause) != 0) {
		store_rollback(st);
		goto out;
	}
	progress = bisection_progress(bs, &now, b->progress);
	if (store_bisection_progress(st, b->id, progress, cause) != 0 ||
	    store_commit(st, cause) != 0) {
		store_rollback(st);
		goto out;
	}
	if (added == 0 && builds == 0) {
		why = exhausted != NULL ? xasprintf("the runs at %.12s failed "
		    "as many times as samples of it were wanted: it cannot be "
		    "measured", exhausted) : xstrdup("the bisection driver "
		    "asked for no new samples");
		r = bisection_fail(s, b->id, why, cause);
		goto out;
	}
	s->progress = 1;
	r = 0;
out:
	free(first);
	free(progress);
	free(why);
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
	char				*why = NULL;
	json_t				*revert = NULL;
	int				 busy, r = -1;
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
	if (bisection_turn_gather(s, bs, &b, &t, cause) != 0)
		goto out;
	switch (bisection_turn_metric_missing(s, bs, &b, &t, &why, cause)) {
	case -1:
		goto out;
	case 1:
		r = bisection_fail(s, id, why, cause);
		goto out;
	}
	/*
	 * The builds it asked for tell the driver their images first; a
	 * speculative build still on is not waited for (its commit, if
	 * wanted now, has its runs held until it is built).
	 */
	if (t.asked) {
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
	runs = request_runs(&rq);
	bisection_plan_input(&in, s, bs, &b, runs);
	if (bisect_decide(&res, &in) != 0 && res.status != BISECT_FAILED) {
		r = bisection_fail(s, id, res.error ? res.error :
		    "the bisection driver failed", cause);
		goto out;
	}
	if (res.status == BISECT_FOUND && res.nr_culprits > 0) {
		switch (bisection_plan_revert(s, bs, &b, &res, runs, &t,
		    &revert, cause)) {
		case -1:
			goto out;
		case 1:
			r = 0;
			goto out;
		}
	}
	if (res.status != BISECT_CONTINUE)
		r = bisection_conclude(s, bs, &b, &t, &res, revert, cause);
	else
		r = bisection_plan_queue(s, bs, &b, &res, cause);
out:
	json_decref(revert);
	bisect_result_release(&res);
	bisection_turn_release(&t);
	store_bisection_release(&b);
	store_request_release(&rq);
	free(why);
	return r;
}
