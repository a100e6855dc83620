/*
 * bisectctl bisect: a manual bisection request. With --wait it runs (or
 * follows) the scheduler until the bisection concludes, with git-bisect
 * style progress on stderr, then prints the headline and compare table,
 * or with --json the result object of DESIGN §3.3. Rerunning an identical
 * command while its bisection is unfinished resumes it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "bisectd/request.h"
#include "bisectd/scheduler.h"
#include "util/strbuf.h"

static void
cmd_bisect_print(struct context *ctx, const struct store_bisection *b,
    json_t *res)
{
	char		*headline = NULL, *body = NULL, *cause = NULL;
	json_t		*cand, *budget;
	size_t		 i;

	if (b->status == STORE_BISECTION_FOUND ||
	    b->status == STORE_BISECTION_UNCONFIRMED) {
		if (report_bisection(ctx, b->id, &headline, &body,
		    &cause) == 0) {
			printf("%s\n", body);
		} else {
			printf("%s\n", json_string_value(json_object_get(res,
			    "culprit")));
			fprintf(stderr, "warning: %s\n", cause);
		}
	} else if (b->status == STORE_BISECTION_NO_CHANGE) {
		printf("no change: good and bad do not differ beyond noise in "
		    "%s (%+.1f%%, 95%% CI [%+.1f%%, %+.1f%%], p = %.2g)\n",
		    b->metric,
		    json_number_value(json_object_get(res, "change_pct")),
		    json_number_value(json_array_get(json_object_get(res,
		    "ci_pct"), 0)),
		    json_number_value(json_array_get(json_object_get(res,
		    "ci_pct"), 1)),
		    json_number_value(json_object_get(res, "p_value")));
	} else if (b->status == STORE_BISECTION_INCONCLUSIVE) {
		printf("inconclusive: good and bad were not told apart in %s "
		    "(%+.1f%%, 95%% CI [%+.1f%%, %+.1f%%], p = %.2g), yet a "
		    "change worth finding could be there\n", b->metric,
		    json_number_value(json_object_get(res, "change_pct")),
		    json_number_value(json_array_get(json_object_get(res,
		    "ci_pct"), 0)),
		    json_number_value(json_array_get(json_object_get(res,
		    "ci_pct"), 1)),
		    json_number_value(json_object_get(res, "p_value")));
		if (json_object_get(res, "min_detectable_pct") != NULL)
			printf("a change under %.1f%% would be missed more "
			    "often than not at %lld runs a side; raise "
			    "max_runs\n", json_number_value(json_object_get(res,
			    "min_detectable_pct")), (long long)
			    json_integer_value(json_object_get(res,
			    "runs_per_end")));
	} else if (b->status == STORE_BISECTION_AMBIGUOUS) {
		cand = json_object_get(res, "candidates");
		printf("ambiguous: the first bad commit is one of %zu commits "
		    "that could not be told apart:\n", json_array_size(cand));
		for (i = 0; i < json_array_size(cand) && i < 20; i++)
			printf("  %s\n", json_string_value(json_array_get(cand,
			    i)));
		if (json_array_size(cand) > 20)
			printf("  and %zu more (bisectctl show %lld lists "
			    "them)\n", json_array_size(cand) - 20,
			    (long long)b->id);
	} else {
		printf("failed: %s\n", json_string_value(json_object_get(res,
		    "error")));
	}
	budget = json_object_get(res, "budget");
	if (budget != NULL)
		printf("The bisection's budget (%lld runs, %lld builds) ran "
		    "out before it could decide: this is the best answer it "
		    "had.\n", (long long)json_integer_value(json_object_get(
		    budget, "runs")), (long long)json_integer_value(
		    json_object_get(budget, "builds")));
	free(headline);
	free(body);
	free(cause);
}

static int
cmd_bisect_exec(const char *config, struct cmd_args *args)
{
	struct context		*ctx = NULL;
	struct request_spec	 spec;
	struct store_bisection	 b;
	struct cmd_progress	 progress = { NULL };
	const char		*revs[2] = { NULL, NULL };
	json_t			*res = NULL;
	char			*cause = NULL;
	int64_t			 id;
	int			 wait, json, resumed, r = CMD_FAILED;

	memset(&spec, 0, sizeof spec);
	memset(&b, 0, sizeof b);
	revs[0] = cmd_args_get(args, 'g');
	revs[1] = cmd_args_get(args, 'b');
	spec.repo = cmd_args_get(args, 'r');
	spec.metric = cmd_args_get(args, 'm');
	wait = cmd_args_has(args, 'w');
	json = cmd_args_has(args, 'j');
	spec.allow_drift = cmd_args_has(args, 'd');
	if (revs[0] == NULL || revs[1] == NULL)
		return cmd_usage(&cmd_bisect_entry);
	spec.kind = "bisect";
	spec.job_file = args->argv[0];
	spec.revs = revs;
	spec.nr_revs = 2;
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	r = request_create(ctx, &spec, &id, &resumed, &cause);
	if (r != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = r == REQUEST_BAD_INPUT ? CMD_USAGE : CMD_FAILED;
		goto out;
	}
	r = CMD_FAILED;
	fprintf(stderr, "bisect: %s bisection %lld\n", resumed ? "resuming" :
	    "queued", (long long)id);
	if (!wait) {
		printf("%lld\n", (long long)id);
		r = CMD_OK;
		goto out;
	}
	r = scheduler_wait(ctx, id, cmd_progress_tick, &progress, &cause);
	cmd_progress_done(&progress);
	if (r != 0) {
		r = CMD_FAILED;
		fprintf(stderr, "error: %s\n", cause);
		goto out;
	}
	if (store_bisection_get(ctx->store, id, &b, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		goto out;
	}
	if (b.result == NULL || (res = json_loads(b.result, 0, NULL)) == NULL) {
		fprintf(stderr, "error: bisection %lld ended without a result "
		    "(%s)\n", (long long)id,
		    store_bisection_status_name(b.status));
		goto out;
	}
	if (json)
		printf("%s\n", b.result);
	else
		cmd_bisect_print(ctx, &b, res);
	/* every conclusion is 0, unconfirmed and inconclusive too (cli.md) */
	r = b.status == STORE_BISECTION_FAILED ? CMD_FAILED : CMD_OK;
out:
	json_decref(res);
	store_bisection_release(&b);
	cmd_progress_done(&progress);
	free(cause);
	context_free(ctx);
	return r;
}

static const struct cmd_option cmd_bisect_options[] = {
	{ "good", 'g', CMD_ARG },
	{ "bad", 'b', CMD_ARG },
	{ "repo", 'r', CMD_ARG },
	{ "metric", 'm', CMD_ARG },
	{ "wait", 'w', 0 },
	{ "json", 'j', 0 },
	{ "allow-drift", 'd', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_bisect_entry = {
	.name = "bisect",
	.usage = "JOB.yaml --good REV --bad REV [--repo NAME] [--metric M] "
	    "[--wait] [--json] [--allow-drift]",
	.summary = "find the commit that changed a metric",
	.args = { cmd_bisect_options, 1, 1 },
	.exec = cmd_bisect_exec,
};
