/*
 * bisectctl status: the queue, running work, agents, bisections and the
 * tracked branches of continuous mode, read from the database (whether or
 * not a daemon is running).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/lock.h"
#include "util/xalloc.h"

/* A tracked branch: its commits, and each job's regressions so far. */
static int
cmd_status_branch(struct store *st, const char *repo, const char *branch,
    json_t *jout, char **cause)
{
	struct store_tracked	*t = NULL;
	struct store_regression	*g = NULL;
	int64_t			*jobs = NULL;
	size_t			 nr_t = 0, nr_jobs = 0, nr_g = 0, i, j;
	size_t			 queued = 0;
	json_t			*jb, *jregs = NULL;
	int			 gone, r = -1;

	if (store_tracked_list(st, repo, branch, &t, &nr_t, cause) != 0 ||
	    store_tracked_jobs(st, repo, branch, &jobs, &nr_jobs, cause) != 0 ||
	    store_tracked_gone(st, repo, branch, &gone, cause) != 0)
		goto out;
	for (i = 0; i < nr_t; i++)
		queued += t[i].queued != 0;
	if (jout != NULL) {
		jb = json_pack("{s:s, s:s, s:I, s:I, s:o, s:b, s:[]}", "repo",
		    repo, "branch", branch, "seen", (json_int_t)nr_t, "queued",
		    (json_int_t)queued, "newest", nr_t > 0 ?
		    json_string(t[nr_t - 1].commit_oid) : json_null(), "gone",
		    gone, "regressions");
		json_array_append_new(jout, jb);
		jregs = json_object_get(jb, "regressions");
	} else {
		printf("  %s %s: %zu commits seen, %zu queued", repo, branch,
		    nr_t, queued);
		if (nr_t > 0)
			printf(", newest %.10s", t[nr_t - 1].commit_oid);
		if (gone)
			printf(", gone upstream");
		putchar('\n');
	}
	for (i = 0; i < nr_jobs; i++) {
		if (store_regression_list(st, repo, branch, jobs[i], &g, &nr_g,
		    cause) != 0)
			goto out;
		for (j = 0; j < nr_g; j++) {
			if (jregs != NULL) {
				json_array_append_new(jregs, json_pack(
				    "{s:s, s:f, s:s, s:s, s:s, s:I, s:s, s:o, "
				    "s:o}", "kind", g[j].kind, "change_pct",
				    g[j].change_pct, "metric",
				    g[j].metric, "good", g[j].good, "bad",
				    g[j].bad, "bisection",
				    (json_int_t)g[j].bisection, "status",
				    store_regression_status_name(&g[j]),
				    "culprit", g[j].culprit != NULL ?
				    json_string(g[j].culprit) : json_null(),
				    "fixed", g[j].fixed_bad == NULL ?
				    json_null() : json_pack("{s:s, s:s, s:o, "
				    "s:I}", "good", g[j].fixed_good, "bad",
				    g[j].fixed_bad, "culprit",
				    g[j].fixed_culprit != NULL ?
				    json_string(g[j].fixed_culprit) :
				    json_null(), "bisection",
				    (json_int_t)g[j].fixed_bisection)));
				continue;
			}
			if (strcmp(g[j].kind, "improvement") == 0) {
				printf("    %+.1f%% %s between %.10s and %.10s: "
				    "an improvement\n", g[j].change_pct,
				    g[j].metric, g[j].good, g[j].bad);
				continue;
			}
			printf("    %+.1f%% %s between %.10s and %.10s: "
			    "bisection %lld %s", g[j].change_pct, g[j].metric,
			    g[j].good, g[j].bad, (long long)g[j].bisection,
			    store_regression_status_name(&g[j]));
			if (g[j].culprit != NULL)
				printf(", %sculprit %.10s",
				    g[j].status == STORE_BISECTION_UNCONFIRMED ?
				    "unconfirmed " : "", g[j].culprit);
			if (g[j].fixed_culprit != NULL)
				printf("; closed: fixed by commit %.10s",
				    g[j].fixed_culprit);
			else if (g[j].fixed_bad != NULL)
				printf("; closed: fixed between %.10s and "
				    "%.10s", g[j].fixed_good, g[j].fixed_bad);
			putchar('\n');
		}
		store_regression_list_free(g, nr_g);
		g = NULL;
		nr_g = 0;
	}
	r = 0;
out:
	store_regression_list_free(g, nr_g);
	store_tracked_list_free(t, nr_t);
	free(jobs);
	return r;
}

/*
 * A bisection's verdict and culprit from its result: "found 1a2b3c4d5e",
 * "no_change", ...; the bare status while it runs. Allocated.
 */
static char *
cmd_status_verdict(const struct store_bisection *b, json_t **culprit)
{
	json_t		*res;
	const char	*c = NULL;
	char		*out;

	*culprit = NULL;
	if (b->result == NULL || (res = json_loads(b->result, 0, NULL)) == NULL)
		return xstrdup(store_bisection_status_name(b->status));
	c = json_string_value(json_object_get(res, "culprit"));
	if (c != NULL) {
		*culprit = json_string(c);
		out = xasprintf("%s, culprit %.10s",
		    store_bisection_status_name(b->status), c);
	} else
		out = xstrdup(store_bisection_status_name(b->status));
	json_decref(res);
	return out;
}

static json_t *
cmd_status_request_json(const struct store_request *rq,
    const struct store_bisection *b)
{
	json_t	*o, *culprit;
	char	*verdict;

	o = json_pack("{s:I, s:s, s:s, s:s, s:o}", "id", (json_int_t)rq->id,
	    "kind", rq->kind, "status", store_request_status_name(rq->status),
	    "job_file", rq->job_file,
	    "error", rq->error != NULL ? json_string(rq->error) : json_null());
	if (b != NULL) {
		verdict = cmd_status_verdict(b, &culprit);
		json_object_set_new(o, "bisection", json_pack("{s:s, s:o, s:o}",
		    "status", store_bisection_status_name(b->status), "culprit",
		    culprit != NULL ? culprit :
		    json_null(), "progress", b->progress != NULL &&
		    b->status == STORE_BISECTION_RUNNING ?
		    json_string(b->progress) : json_null()));
		free(verdict);
	}
	return o;
}

/* The rows' counts and the lock's holder: JSON with json, else printed. */
static json_t *
cmd_status_counts(const struct context *ctx, const struct store_counts *n,
    int held, int json)
{
	if (json)
		return json_pack("{s:s, s:b, s:i, s:{s:i, s:i, s:i, s:i}, "
		    "s:{s:i, s:i, s:i, s:i}, s:i}", "database", ctx->config->db,
		    "scheduler_running", held == 1, "requests_active",
		    n->requests_active, "builds", "pending", n->builds_pending,
		    "running", n->builds_running, "ok", n->builds_ok, "failed",
		    n->builds_failed, "runs", "pending", n->runs_pending,
		    "running", n->runs_running, "done", n->runs_done,
		    "failed_or_skipped", n->runs_failed, "samples", n->samples);
	printf("database: %s\n", ctx->config->db);
	printf("scheduler: %s\n", held == 1 ? "running (a daemon or a "
	    "waiting bisectctl holds the lock)" : "not running");
	printf("requests: %d active\n", n->requests_active);
	printf("builds: %d pending, %d running, %d ok, %d failed\n",
	    n->builds_pending, n->builds_running, n->builds_ok,
	    n->builds_failed);
	printf("runs: %d pending, %d running, %d done, %d failed or "
	    "skipped; %d samples\n", n->runs_pending, n->runs_running,
	    n->runs_done, n->runs_failed, n->samples);
	return NULL;
}

/* Each agent's busy slots: into jo's "agents", or printed without jo. */
static void
cmd_status_agents(struct context *ctx, json_t *jo)
{
	json_t	*ja = json_array();
	size_t	 i;
	int	 running;

	if (jo == NULL)
		printf("agents:\n");
	for (i = 0; i < ctx->config->nr_agents; i++) {
		running = 0;
		store_run_count_running(ctx->store, ctx->config->agents[i].name,
		    &running, NULL);
		if (jo != NULL)
			json_array_append_new(ja, json_pack("{s:s, s:s, s:i, "
			    "s:i}", "name", ctx->config->agents[i].name,
			    "transport", ctx->config->agents[i].transport,
			    "busy", running, "slots",
			    ctx->config->agents[i].slots));
		else
			printf("  %-16s %-6s %d/%d slots busy\n",
			    ctx->config->agents[i].name,
			    ctx->config->agents[i].transport, running,
			    ctx->config->agents[i].slots);
	}
	if (jo != NULL)
		json_object_set_new(jo, "agents", ja);
	else
		json_decref(ja);
}

/* The recent requests, a bisection's with its progress or verdict. */
static void
cmd_status_requests(struct context *ctx, const struct store_request *rq,
    size_t nr, json_t *jo)
{
	struct store_bisection	 b;
	json_t			*jr = json_array(), *culprit;
	char			*verdict;
	size_t			 i;
	int			 have_b;

	if (jo == NULL)
		printf("recent requests:\n");
	for (i = 0; i < nr; i++) {
		have_b = strcmp(rq[i].kind, "bisect") == 0 &&
		    store_bisection_get(ctx->store, rq[i].id, &b, NULL) == 0;
		if (jo != NULL) {
			json_array_append_new(jr, cmd_status_request_json(&rq[i],
			    have_b ? &b : NULL));
			if (have_b)
				store_bisection_release(&b);
			continue;
		}
		printf("  %-5lld %-8s %-8s %s%s%s\n", (long long)rq[i].id,
		    rq[i].kind, store_request_status_name(rq[i].status),
		    rq[i].job_file,
		    rq[i].error ? ": " : "", rq[i].error ? rq[i].error : "");
		if (!have_b)
			continue;
		if (b.status == STORE_BISECTION_RUNNING) {
			if (b.progress != NULL)
				printf("        %s\n", b.progress);
		} else {
			verdict = cmd_status_verdict(&b, &culprit);
			json_decref(culprit);
			printf("        %s\n", verdict);
			free(verdict);
		}
		store_bisection_release(&b);
	}
	if (jo != NULL)
		json_object_set_new(jo, "requests", jr);
	else
		json_decref(jr);
}

static int
cmd_status_exec(const char *config, struct cmd_args *args)
{
	struct context		*ctx = NULL;
	struct store_counts	 n;
	struct store_request	*rq = NULL;
	size_t			 nr = 0, nr_branches = 0, i;
	char			*cause = NULL, *lock = NULL;
	char			**repos = NULL, **branches = NULL;
	json_t			*jo = NULL, *ja, *jt = NULL;
	int			 fd = -1, held, r, json;

	json = cmd_args_has(args, 'j');
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	r = CMD_FAILED;
	if (store_counts(ctx->store, &n, &cause) != 0 ||
	    store_request_list(ctx->store, 20, &rq, &nr, &cause) != 0)
		goto out;
	lock = context_lock_path(ctx);
	held = lock_try(lock, &fd, NULL);
	lock_release(fd);
	jo = cmd_status_counts(ctx, &n, held, json);
	cmd_status_agents(ctx, jo);
	/* where builds are made, once there are builders besides this one */
	if (ctx->config->nr_builders > 0) {
		ja = json ? json_array() : NULL;
		if (!json)
			printf("builders:\n");
		if (cmd_builders_list(ctx, ja, 1, &cause) != 0) {
			json_decref(ja);
			goto out;
		}
		if (json)
			json_object_set_new(jo, "builders", ja);
	}
	cmd_status_requests(ctx, rq, nr, jo);
	if (store_tracked_branches(ctx->store, &repos, &branches,
	    &nr_branches, &cause) != 0)
		goto out;
	if (json) {
		jt = json_array();
		json_object_set_new(jo, "tracked", jt);
	} else if (nr_branches > 0)
		printf("tracked:\n");
	for (i = 0; i < nr_branches; i++) {
		if (cmd_status_branch(ctx->store, repos[i], branches[i], jt,
		    &cause) != 0)
			goto out;
	}
	if (json) {
		json_dumpf(jo, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	}
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	json_decref(jo);
	for (i = 0; i < nr; i++)
		store_request_release(&rq[i]);
	free(rq);
	for (i = 0; i < nr_branches; i++) {
		free(repos[i]);
		free(branches[i]);
	}
	free(repos);
	free(branches);
	free(lock);
	free(cause);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "[--json]",
	.summary = "queue, running work, agents, bisections, tracked branches",
	.args = { cmd_options_json, 0, 0 },
	.exec = cmd_status_exec,
};
