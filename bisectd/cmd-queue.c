/*
 * bisectctl queue: expand a job file and queue its jobs at commits (HEAD
 * when none is given). Prints the request id and one line per job.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/request.h"
#include "bisectd/scheduler.h"
#include "util/xalloc.h"

static int
cmd_queue_exec(const char *config, int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "commit", required_argument, NULL, 'c' },
		{ "repo", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	struct context		 *ctx = NULL;
	struct request_spec	  spec;
	struct cmd_progress	  progress;
	struct store_job	  job;
	const char		**revs = NULL;
	size_t			  nr_revs = 0, nr_jobs = 0, i;
	int64_t			  id, *jobs = NULL;
	char			 *cause = NULL;
	int			  c, wait = 0, resumed, r = CMD_FAILED;

	memset(&spec, 0, sizeof spec);
	memset(&job, 0, sizeof job);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			revs = xreallocarray(revs, nr_revs + 1, sizeof *revs);
			revs[nr_revs++] = optarg;
			break;
		case 'r':
			spec.repo = optarg;
			break;
		case 'w':
			wait = 1;
			break;
		default:
			free(revs);
			return cmd_usage(&cmd_queue_entry);
		}
	}
	if (optind + 1 != argc) {
		free(revs);
		return cmd_usage(&cmd_queue_entry);
	}
	spec.kind = "queue";
	spec.job_file = argv[optind];
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
	printf("request %lld\n", (long long)id);
	if (store_request_jobs(ctx->store, id, &jobs, &nr_jobs, &cause) != 0)
		goto out;
	for (i = 0; i < nr_jobs; i++) {
		store_job_release(&job);
		if (store_job_get(ctx->store, jobs[i], &job, &cause) != 0)
			goto out;
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
		r = cmd_print_compare(ctx, id, 1);
		goto out;
	}
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	store_job_release(&job);
	free(jobs);
	free(revs);
	free(cause);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_queue_entry = {
	.name = "queue",
	.usage = "JOB.yaml [--commit REV]... [--repo NAME] [--wait]",
	.summary = "queue a job file's jobs at commits",
	.exec = cmd_queue_exec,
};
