/*
 * bisectctl compare: run a job file's jobs at two commits and print the
 * LKP-style compare table, the headline metric first, then the metrics
 * that changed significantly (all of them with --all), and the
 * per-instance spread. When the runs did not run in the same
 * environment (bisectd/drift.h) it refuses and says where they differ;
 * --allow-drift prints the comparison with the difference at the top.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "bisectd/request.h"
#include "bisectd/scheduler.h"
#include "util/strbuf.h"

static int
cmd_compare_print(struct context *ctx, int64_t id, int allow_drift, int all)
{
	struct strbuf	 out = STRBUF_INIT;
	char		*cause = NULL;
	size_t		 missing = 0;
	int		 refused, r = CMD_FAILED;

	if (report_compare_request(&out, ctx, id, all, allow_drift, &refused,
	    &missing, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		goto out;
	}
	if (refused) {
		fprintf(stderr, "error: %s", out.buf);
		goto out;
	}
	fputs(out.buf, stdout);
	if (missing > 0) {
		fprintf(stderr, "error: compare %lld has no samples at %zu of "
		    "its commits: every run there failed\n", (long long)id,
		    missing);
		goto out;
	}
	r = CMD_OK;
out:
	free(cause);
	strbuf_release(&out);
	return r;
}

static int
cmd_compare_exec(const char *config, int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "allow-drift", no_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	struct context		*ctx = NULL;
	struct request_spec	 spec;
	struct cmd_progress	 progress;
	const char		*revs[2];
	int64_t			 id;
	char			*cause = NULL;
	int			 c, wait = 0, allow_drift = 0, all = 0, resumed, r;

	memset(&spec, 0, sizeof spec);
	memset(&progress, 0, sizeof progress);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			spec.repo = optarg;
			break;
		case 'w':
			wait = 1;
			break;
		case 'd':
			allow_drift = 1;
			break;
		case 'a':
			all = 1;
			break;
		default:
			return cmd_usage(&cmd_compare_entry);
		}
	}
	if (optind + 3 != argc)
		return cmd_usage(&cmd_compare_entry);
	revs[0] = argv[optind];
	revs[1] = argv[optind + 1];
	spec.kind = "compare";
	spec.job_file = argv[optind + 2];
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
	r = cmd_compare_print(ctx, id, allow_drift, all);
out:
	free(cause);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "REV_A REV_B JOB.yaml [--repo NAME] [--wait] [--all] [--allow-drift]",
	.summary = "the compare table of a job between two commits",
	.exec = cmd_compare_exec,
};
