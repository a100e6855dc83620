/*
 * Requests from the command line, and the planning of queue and compare
 * requests. A request names a job file (expanded into jobs) and commits;
 * planning makes sure each job has `runs` runs at each commit, counting
 * runs that ended in failure, and finishes the request when none is left
 * pending or running.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/testcase.h"
#include "bisectd/bisection.h"
#include "bisectd/build.h"
#include "bisectd/jobcache.h"
#include "bisectd/placement.h"
#include "bisectd/repo.h"
#include "bisectd/request.h"
#include "bisectd/want.h"
#include "jobs/metric.h"
#include "schema/store-kernel.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *
request_direction(const struct job *job, const char *metric)
{
	const struct metric_info	*mi;

	if (job->metric != NULL && strcmp(job->metric, metric) == 0 &&
	    job->direction != JOB_DIRECTION_UNKNOWN)
		return job_direction_name(job->direction);
	mi = metric_lookup(metric);
	return job_direction_name(mi->direction);
}

static char *
request_dedup_key(const struct request_spec *spec, const char *repo,
    const struct job *const *jobs, size_t nr_jobs, char (*oids)[41],
    const char *metric)
{
	struct strbuf	sb = STRBUF_INIT;
	char		hex[HASH_HEX_LEN + 1];
	size_t		i;

	strbuf_addf(&sb, "%s\n%s\n%s\n", spec->kind, repo,
	    metric != NULL ? metric : "");
	if (spec->direction != NULL)
		strbuf_addf(&sb, "direction %s\n", spec->direction);
	for (i = 0; i < nr_jobs; i++)
		strbuf_addf(&sb, "job %s\n", jobs[i]->id);
	for (i = 0; i < spec->nr_revs; i++)
		strbuf_addf(&sb, "commit %s\n", oids[i]);
	hash_sha256_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
	return xstrdup(hex);
}

/*
 * A bisection's ends, before anything is written: two commits, good an
 * ancestor of bad. Swapped ends are said as such.
 */
static int
request_check_ends(struct repo *repo, const char *const *revs,
    const char (*oids)[41], char **cause)
{
	int	a;

	if (strcmp(oids[0], oids[1]) == 0) {
		error_set(cause, "good '%s' and bad '%s' are the same commit "
		    "%.12s: nothing to bisect", revs[0], revs[1], oids[0]);
		return REQUEST_BAD_INPUT;
	}
	if ((a = repo_is_ancestor(repo, oids[0], oids[1], cause)) < 0)
		return -1;
	if (a == 1)
		return 0;
	if ((a = repo_is_ancestor(repo, oids[1], oids[0], cause)) < 0)
		return -1;
	if (a == 1)
		error_set(cause, "good '%s' descends from bad '%s': the ends "
		    "are swapped (--good takes the older commit)", revs[0],
		    revs[1]);
	else
		error_set(cause, "good '%s' is not an ancestor of bad '%s'",
		    revs[0], revs[1]);
	return REQUEST_BAD_INPUT;
}

/*
 * The request's jobs, each with every parameter applied or refused and an
 * agent that can run it, before anything is written; a bisection's one
 * job and its metric. REQUEST_BAD_INPUT or -1, with *cause.
 */
static int
request_jobs(struct context *ctx, const struct request_spec *spec,
    struct job ***jobs, size_t *nr_jobs, const char **metric, char **cause)
{
	struct job_options	 jopts;
	char			*desc = NULL;
	size_t			 i;
	int			 placeable;

	memset(&jopts, 0, sizeof jopts);
	jopts.include_dirs = (const char *const *)ctx->config->job_include;
	jopts.nr_include_dirs = ctx->config->nr_job_include;
	if (job_load_with(spec->job_file, &jopts, jobs, nr_jobs, cause) != 0)
		return REQUEST_BAD_INPUT;
	for (i = 0; i < *nr_jobs; i++) {
		if (testcase_check((*jobs)[i], cause) != 0)
			return REQUEST_BAD_INPUT;
	}
	if (strcmp(spec->kind, "bisect") == 0) {
		if (*nr_jobs != 1) {
			error_set(cause, "'%s' expands to %zu jobs; a "
			    "bisection takes one: give each axis one value",
			    spec->job_file, *nr_jobs);
			return REQUEST_BAD_INPUT;
		}
		*metric = spec->metric != NULL ? spec->metric :
		    (*jobs)[0]->metric;
		if (*metric == NULL) {
			error_set(cause, "'%s' names no metric: add 'metric:' "
			    "or pass --metric", spec->job_file);
			return REQUEST_BAD_INPUT;
		}
	}
	for (i = 0; i < *nr_jobs; i++) {
		/* a job no agent can run is refused now, not left waiting */
		placeable = placement_job_placeable(ctx, (*jobs)[i], &desc);
		if (placeable <= 0) {
			error_set(cause, "'%s': %s", spec->job_file, desc);
			free(desc);
			return placeable < 0 ? -1 : REQUEST_BAD_INPUT;
		}
	}
	return 0;
}

/* Write the request, its jobs and commits (and bisection) in one go. */
static int
request_write(struct context *ctx, const struct request_spec *spec,
    const char *repo, struct job **jobs, size_t nr_jobs, const char **revs,
    char (*oids)[41], size_t nr_revs, const char *key, const char *metric,
    int64_t *id, char **cause)
{
	char	*args = NULL, *desc = NULL;
	json_t	*a = NULL;
	int64_t	 job_row = 0;
	size_t	 i;
	int	 r = -1;

	if (store_begin(ctx->store, cause) != 0)
		return -1;
	a = json_pack("{s:I, s:b}", "runs", (json_int_t)(spec->runs != 0 ?
	    spec->runs : jobs[0]->runs),
	    "allow_drift", spec->allow_drift);
	args = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
	if (store_request_add(ctx->store, spec->kind, repo, spec->job_file,
	    key, args, id, cause) != 0)
		goto out;
	for (i = 0; i < nr_jobs; i++) {
		free(desc);
		desc = job_describe(jobs[i]);
		if (store_job_add(ctx->store, jobs[i]->id, jobs[i]->testcase,
		    desc, jobs[i]->canonical, jobs[i]->metric,
		    job_direction_name(jobs[i]->direction), &job_row,
		    cause) != 0 ||
		    store_request_job_add(ctx->store, *id, job_row, cause) != 0)
			goto out;
	}
	for (i = 0; i < nr_revs; i++) {
		if (store_request_commit_add(ctx->store, *id, (int)i, oids[i],
		    revs[i], cause) != 0)
			goto out;
	}
	if (strcmp(spec->kind, "bisect") == 0 &&
	    store_bisection_add(ctx->store, *id, job_row, repo, oids[0],
	    oids[1], metric, spec->direction != NULL ? spec->direction :
	    request_direction(jobs[0], metric), cause) != 0)
		goto out;
	if (store_commit(ctx->store, cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0)
		store_rollback(ctx->store);
	free(desc);
	free(args);
	json_decref(a);
	return r;
}

int
request_create(struct context *ctx, const struct request_spec *spec,
    int64_t *id, int *resumed, char **cause)
{
	const struct config_repo	 *cr;
	struct repo			 *repo = NULL;
	struct job			**jobs = NULL;
	size_t				  nr_jobs = 0, i, nr_revs;
	char				(*oids)[41] = NULL;
	const char			**revs = spec->revs;
	const char			 *head = "HEAD", *metric = NULL;
	char				 *key = NULL;
	int				  r = REQUEST_BAD_INPUT;

	*resumed = 0;
	cr = config_repo_find(ctx->config, spec->repo);
	if (cr == NULL) {
		if (spec->repo != NULL)
			error_set(cause, "no repository '%s' in '%s'",
			    spec->repo, ctx->config->path);
		else
			error_set(cause, "'%s' names %zu repositories: say "
			    "which with --repo", ctx->config->path,
			    ctx->config->nr_repos);
		goto out;
	}
	if ((r = request_jobs(ctx, spec, &jobs, &nr_jobs, &metric,
	    cause)) != 0)
		goto out;
	nr_revs = spec->nr_revs;
	if (nr_revs == 0) {
		revs = &head;
		nr_revs = 1;
	}
	if (repo_open(cr, &repo, cause) != 0) {
		r = -1;
		goto out;
	}
	r = REQUEST_BAD_INPUT;
	oids = xcalloc(nr_revs, sizeof *oids);
	for (i = 0; i < nr_revs; i++) {
		if (repo_resolve(repo, revs[i], oids[i], cause) != 0)
			goto out;
	}
	if (strcmp(spec->kind, "bisect") == 0 && nr_revs == 2 &&
	    (r = request_check_ends(repo, revs, oids, cause)) != 0)
		goto out;
	r = REQUEST_BAD_INPUT;
	key = request_dedup_key(spec, cr->name,
	    (const struct job *const *)jobs, nr_jobs, oids, metric);
	r = -1;
	if (strcmp(spec->kind, "bisect") == 0) {
		if (store_request_find_active(ctx->store, key, id, cause) != 0)
			goto out;
		if (*id != 0) {
			*resumed = 1;
			r = 0;
			goto out;
		}
	}
	r = request_write(ctx, spec, cr->name, jobs, nr_jobs, revs, oids,
	    nr_revs, key, metric, id, cause);
out:
	repo_free(repo);
	job_list_free(jobs, nr_jobs);
	free(oids);
	free(key);
	return r;
}

unsigned
request_runs(const struct store_request *rq)
{
	json_t		*a = json_loads(rq->args != NULL ? rq->args : "{}", 0,
			    NULL);
	json_int_t	 runs = json_integer_value(json_object_get(a, "runs"));

	json_decref(a);
	return runs > 0 && runs <= JOB_MAX_RUNS ? (unsigned)runs : 3;
}


/* The job's runs at one commit of the request (bisectd/want.c). */
static int
request_ensure_runs(struct services *s, const struct config_repo *cr,
    const struct store_job *sj, const char *oid, unsigned runs, int *added,
    char **cause)
{
	struct want	 w;
	char		*kconfig = NULL;
	char		*recipe = build_job_recipe(cr, jobcache_parse(
			    &s->ctx->jobs, sj->id, sj->job_id, sj->canonical,
			    NULL), &kconfig);
	int		 exhausted, r;

	w.repo = cr->name;
	w.job = sj->id;
	w.oid = oid;
	w.recipe = recipe;
	w.kconfig = kconfig;
	w.samples = runs;
	r = want_queue(s->ctx->store, &w, added, &exhausted, cause);
	free(recipe);
	free(kconfig);
	return r;
}

static int
request_plan_runs(struct services *s, const struct store_request *rq,
    char **cause)
{
	struct store			 *st = s->ctx->store;
	const struct config_repo	 *cr;
	struct store_job		  sj;
	int64_t				 *jobs = NULL;
	char				**oids = NULL, **revs = NULL;
	size_t				  nr_jobs = 0, nr_oids = 0, i, j;
	int				  added = 0, busy, any_busy = 0, r = -1;

	memset(&sj, 0, sizeof sj);
	if ((cr = config_repo_find(s->ctx->config, rq->repo)) == NULL) {
		r = store_request_set_status(st, rq->id, STORE_REQUEST_FAILED,
		    "its repository is no longer in the config", cause);
		goto out;
	}
	if (store_request_jobs(st, rq->id, &jobs, &nr_jobs, cause) != 0 ||
	    store_request_commits(st, rq->id, &oids, &revs, &nr_oids,
	    cause) != 0)
		goto out;
	if (store_begin(st, cause) != 0)
		goto out;
	for (i = 0; i < nr_jobs; i++) {
		store_job_release(&sj);
		if (store_job_get(st, jobs[i], &sj, cause) != 0)
			goto fail;
		for (j = 0; j < nr_oids; j++) {
			if (request_ensure_runs(s, cr, &sj, oids[j],
			    request_runs(rq), &added, cause) != 0)
				goto fail;
		}
		if (store_run_busy(st, jobs[i], cr->name, &busy, cause) != 0)
			goto fail;
		any_busy |= busy;
	}
	if (rq->status == STORE_REQUEST_PENDING && store_request_set_status(st,
	    rq->id, STORE_REQUEST_RUNNING, NULL, cause) != 0)
		goto fail;
	if (!any_busy && added == 0 && store_request_set_status(st, rq->id,
	    STORE_REQUEST_DONE, NULL, cause) != 0)
		goto fail;
	if (store_commit(st, cause) != 0)
		goto fail;
	if (added > 0 || !any_busy)
		s->progress = 1;
	r = 0;
	goto out;
fail:
	store_rollback(st);
out:
	store_job_release(&sj);
	free(jobs);
	for (i = 0; i < nr_oids; i++) {
		free(oids[i]);
		free(revs[i]);
	}
	free(oids);
	free(revs);
	return r;
}

int
request_plan(struct services *s, int64_t id, char **cause)
{
	struct store_request	rq;
	int			r = -1;

	if (store_request_get(s->ctx->store, id, &rq, cause) != 0)
		return -1;
	if (rq.status == STORE_REQUEST_DONE || rq.status == STORE_REQUEST_FAILED)
		r = 0;
	else if (strcmp(rq.kind, "bisect") == 0)
		r = bisection_plan(s, id, cause);
	else
		r = request_plan_runs(s, &rq, cause);
	store_request_release(&rq);
	return r;
}
