/*
 * bisectctl queue: expand a job file and queue its jobs at commits (HEAD
 * when none is given). Prints the request id and one line per job.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/request.h"
#include "bisectd/scheduler.h"
#include "util/xalloc.h"

static int
cmd_queue_exec(const char *config, struct cmd_args *args)
{
	struct context		 *ctx = NULL;
	struct request_spec	  spec;
	struct cmd_progress	  progress;
	struct store_job	  job;
	const char		**revs = NULL;
	size_t			  nr_revs, nr_jobs = 0, i;
	int64_t			  id, *jobs = NULL;
	char			 *cause = NULL;
	int			  wait, json, resumed, r = CMD_FAILED;
	json_t			 *jo = NULL;

	memset(&spec, 0, sizeof spec);
	memset(&job, 0, sizeof job);
	nr_revs = cmd_args_values(args, 'c', &revs);
	spec.repo = cmd_args_get(args, 'r');
	wait = cmd_args_has(args, 'w');
	json = cmd_args_has(args, 'j');
	spec.kind = "queue";
	spec.job_file = args->argv[0];
	spec.revs = revs;
	spec.nr_revs = nr_revs;
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		goto out;
	r = request_create(ctx, &spec, &id, &resumed, &cause);
	if (r != 0) {
		r = r == REQUEST_BAD_INPUT ? CMD_USAGE : CMD_FAILED;
		goto out;
	}
	r = CMD_FAILED;
	if (json)
		jo = json_pack("{s:I, s:[]}", "request", (json_int_t)id, "jobs");
	else
		printf("request %lld\n", (long long)id);
	if (store_request_jobs(ctx->store, id, &jobs, &nr_jobs, &cause) != 0)
		goto out;
	for (i = 0; i < nr_jobs; i++) {
		store_job_release(&job);
		if (store_job_get(ctx->store, jobs[i], &job, &cause) != 0)
			goto out;
		if (json)
			json_array_append_new(json_object_get(jo, "jobs"),
			    json_pack("{s:s, s:s}", "id", job.job_id,
			    "description", job.description));
		else
			printf("job %s %s\n", job.job_id, job.description);
	}
	if (wait) {
		memset(&progress, 0, sizeof progress);
		fflush(stdout);
		r = scheduler_wait(ctx, id, cmd_progress_tick, &progress,
		    &cause);
		cmd_progress_done(&progress);
		if (r != 0) {
			r = CMD_FAILED;
			goto out;
		}
		r = cmd_print_compare(ctx, id, 1, json);
		goto out;
	}
	if (json)
		cmd_print_json(jo);
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	json_decref(jo);
	store_job_release(&job);
	free(jobs);
	free(revs);
	free(cause);
	context_free(ctx);
	return r;
}

static const struct cmd_option cmd_queue_options[] = {
	{ "commit", 'c', CMD_ARG },
	{ "repo", 'r', CMD_ARG },
	{ "wait", 'w', 0 },
	{ "json", 'j', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_queue_entry = {
	.name = "queue",
	.usage = "JOB.yaml [--commit REV]... [--repo NAME] [--wait] [--json]",
	.summary = "queue a job file's jobs at commits",
	.args = { cmd_queue_options, 1, 1 },
	.exec = cmd_queue_exec,
};
