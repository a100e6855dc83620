/*
 * bisectctl compare: run a job file's jobs at two commits and print the
 * LKP-style compare table, the headline metric first, then the metrics
 * that changed significantly (all of them with --all), and the
 * per-instance spread. When the runs did not run in the same
 * environment (bisectd/drift.h) it refuses and says where they differ;
 * --allow-drift prints the comparison with the difference at the top.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "bisectd/request.h"
#include "bisectd/scheduler.h"
#include "util/strbuf.h"

static int
cmd_compare_print(struct context *ctx, int64_t id, int allow_drift, int all,
    int json)
{
	struct strbuf	 out = STRBUF_INIT;
	char		*cause = NULL;
	json_t		*jo = NULL;
	size_t		 missing = 0;
	int		 refused, r = CMD_FAILED;

	if (json)
		jo = json_pack("{s:I, s:[], s:[]}", "request", (json_int_t)id,
		    "drift", "comparisons");
	if (report_compare_request(&out, ctx, id, all, allow_drift, &refused,
	    &missing, jo, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		goto out;
	}
	if (refused) {
		fprintf(stderr, "error: %s", out.buf);
		if (json) {
			json_object_set_new(jo, "refused", json_true());
			cmd_print_json(jo);
		}
		goto out;
	}
	if (json)
		cmd_print_json(jo);
	else
		fputs(out.buf, stdout);
	if (missing > 0) {
		fprintf(stderr, "error: compare %lld has no samples at %zu of "
		    "its commits: every run there failed\n", (long long)id,
		    missing);
		goto out;
	}
	r = CMD_OK;
out:
	json_decref(jo);
	free(cause);
	strbuf_release(&out);
	return r;
}

static int
cmd_compare_exec(const char *config, struct cmd_args *args)
{
	struct context		*ctx = NULL;
	struct request_spec	 spec;
	struct cmd_progress	 progress;
	const char		*revs[2];
	int64_t			 id;
	char			*cause = NULL;
	int			 wait, allow_drift, all, json, resumed, r;

	memset(&spec, 0, sizeof spec);
	memset(&progress, 0, sizeof progress);
	spec.repo = cmd_args_get(args, 'r');
	wait = cmd_args_has(args, 'w');
	allow_drift = cmd_args_has(args, 'd');
	all = cmd_args_has(args, 'a');
	json = cmd_args_has(args, 'j');
	revs[0] = args->argv[0];
	revs[1] = args->argv[1];
	spec.kind = "compare";
	spec.job_file = args->argv[2];
	spec.revs = revs;
	spec.nr_revs = 2;
	spec.allow_drift = allow_drift;
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	r = request_create(ctx, &spec, &id, &resumed, &cause);
	if (r != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = r == REQUEST_BAD_INPUT ? CMD_USAGE : CMD_FAILED;
		goto out;
	}
	if (!wait) {
		if (json)
			printf("{\"request\": %lld}\n", (long long)id);
		else
			printf("%lld\n", (long long)id);
		r = CMD_OK;
		goto out;
	}
	r = scheduler_wait(ctx, id, cmd_progress_tick, &progress, &cause);
	cmd_progress_done(&progress);
	if (r != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_FAILED;
		goto out;
	}
	r = cmd_compare_print(ctx, id, allow_drift, all, json);
out:
	free(cause);
	context_free(ctx);
	return r;
}

static const struct cmd_option cmd_compare_options[] = {
	{ "repo", 'r', CMD_ARG },
	{ "wait", 'w', 0 },
	{ "allow-drift", 'd', 0 },
	{ "all", 'a', 0 },
	{ "json", 'j', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "REV_A REV_B JOB.yaml [--repo NAME] [--wait] [--all] [--json] [--allow-drift]",
	.summary = "the compare table of a job between two commits",
	.args = { cmd_compare_options, 3, 3 },
	.exec = cmd_compare_exec,
};
