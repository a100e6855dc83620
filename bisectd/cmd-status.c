/*
 * bisectctl status: the queue, running work, agents, bisections and the
 * tracked branches of continuous mode, read from the database (whether or
 * not a daemon is running).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/lock.h"

/* A tracked branch: its commits, and each job's regressions so far. */
static int
cmd_status_branch(struct store *st, const char *repo, const char *branch,
    char **cause)
{
	struct store_tracked	*t = NULL;
	struct store_regression	*g = NULL;
	int64_t			*jobs = NULL;
	size_t			 nr_t = 0, nr_jobs = 0, nr_g = 0, i, j;
	size_t			 queued = 0;
	int			 r = -1;

	if (store_tracked_list(st, repo, branch, &t, &nr_t, cause) != 0 ||
	    store_tracked_jobs(st, repo, branch, &jobs, &nr_jobs, cause) != 0)
		goto out;
	for (i = 0; i < nr_t; i++)
		queued += t[i].queued != 0;
	printf("  %s %s: %zu commits seen, %zu queued", repo, branch, nr_t,
	    queued);
	if (nr_t > 0)
		printf(", newest %.10s", t[nr_t - 1].commit_oid);
	putchar('\n');
	for (i = 0; i < nr_jobs; i++) {
		if (store_regression_list(st, repo, branch, jobs[i], &g, &nr_g,
		    cause) != 0)
			goto out;
		for (j = 0; j < nr_g; j++) {
			printf("    %+.1f%% %s between %.10s and %.10s: "
			    "bisection %lld %s", g[j].change_pct, g[j].metric,
			    g[j].good, g[j].bad, (long long)g[j].bisection,
			    g[j].status != NULL ? g[j].status : "pending");
			if (g[j].culprit != NULL)
				printf(", %sculprit %.10s", g[j].status != NULL &&
				    strcmp(g[j].status, "unconfirmed") == 0 ?
				    "unconfirmed " : "", g[j].culprit);
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

static int
cmd_status_exec(const char *config, int argc, char **argv)
{
	struct context		*ctx = NULL;
	struct store_counts	 n;
	struct store_request	*rq = NULL;
	struct store_bisection	 b;
	size_t			 nr = 0, nr_branches = 0, i;
	char			*cause = NULL, *lock = NULL;
	char			**repos = NULL, **branches = NULL;
	int			 fd = -1, held, running, r;

	if (argc != 1)
		return cmd_usage(&cmd_status_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	r = CMD_FAILED;
	if (store_counts(ctx->store, &n, &cause) != 0 ||
	    store_request_list(ctx->store, 20, &rq, &nr, &cause) != 0)
		goto out;
	lock = context_lock_path(ctx);
	held = lock_try(lock, &fd, NULL);
	lock_release(fd);
	printf("database: %s\n", ctx->config->db);
	printf("scheduler: %s\n", held == 1 ? "running (a daemon or a "
	    "waiting bisectctl holds the lock)" : "not running");
	printf("requests: %d active\n", n.requests_active);
	printf("builds: %d pending, %d running, %d ok, %d failed\n",
	    n.builds_pending, n.builds_running, n.builds_ok, n.builds_failed);
	printf("runs: %d pending, %d running, %d done, %d failed or "
	    "skipped; %d samples\n", n.runs_pending, n.runs_running,
	    n.runs_done, n.runs_failed, n.samples);
	printf("agents:\n");
	for (i = 0; i < ctx->config->nr_agents; i++) {
		running = 0;
		store_run_count_running(ctx->store, ctx->config->agents[i].name,
		    &running, NULL);
		printf("  %-16s %-6s %d/%d slots busy\n",
		    ctx->config->agents[i].name,
		    ctx->config->agents[i].transport, running,
		    ctx->config->agents[i].slots);
	}
	printf("recent requests:\n");
	for (i = 0; i < nr; i++) {
		printf("  %-5lld %-8s %-8s %s%s%s\n", (long long)rq[i].id,
		    rq[i].kind, rq[i].status, rq[i].job_file,
		    rq[i].error ? ": " : "", rq[i].error ? rq[i].error : "");
		if (strcmp(rq[i].kind, "bisect") != 0 ||
		    store_bisection_get(ctx->store, rq[i].id, &b, NULL) != 0)
			continue;
		if (strcmp(b.status, "running") == 0 && b.progress != NULL)
			printf("        %s\n", b.progress);
		store_bisection_release(&b);
	}
	if (store_tracked_branches(ctx->store, &repos, &branches,
	    &nr_branches, &cause) != 0)
		goto out;
	if (nr_branches > 0)
		printf("tracked:\n");
	for (i = 0; i < nr_branches; i++) {
		if (cmd_status_branch(ctx->store, repos[i], branches[i],
		    &cause) != 0)
			goto out;
	}
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
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
	.usage = "",
	.summary = "queue, running work, agents, bisections, tracked branches",
	.exec = cmd_status_exec,
};
