/*
 * bisectctl show: one request (queue, compare or bisect) with what it has
 * produced so far: its jobs and compare tables, or its bisection's result;
 * with --run, one run with everything it recorded: the environment it ran
 * in, key by key, and every sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/cmd.h"
#include "util/xalloc.h"

/* The perf-profile monitor's perf.data, when the run kept one here. */
static char *
cmd_show_run_profile(const struct store_run *run)
{
	char	*path;

	if (run->run_dir == NULL)
		return NULL;
	path = xasprintf("%s/result/perf-profile.data", run->run_dir);
	if (access(path, R_OK) != 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* show --run RUN --json: the same as one object. */
static void
cmd_show_run_json(const struct store_run *run, char **keys, char **values,
    size_t nr_env, char **metrics, const double *samples, size_t nr_samples)
{
	json_t	*o, *env = json_object(), *smp = json_object();
	char	*profile;
	size_t	 i;

	for (i = 0; i < nr_env; i++)
		json_object_set_new(env, keys[i], json_string(values[i]));
	for (i = 0; i < nr_samples; i++)
		json_object_set_new(smp, metrics[i], json_real(samples[i]));
	o = json_pack("{s:I, s:s, s:I, s:s, s:s, s:i, s:o, s:i, s:o, s:o}",
	    "id", (json_int_t)run->id, "status",
	    store_run_status_name(run->status), "job",
	    (json_int_t)run->job, "repo", run->repo, "commit",
	    run->commit_oid, "seq", run->seq, "agent", run->agent != NULL ?
	    json_string(run->agent) : json_null(), "attempts", run->attempts,
	    "run_dir", run->run_dir != NULL ? json_string(run->run_dir) :
	    json_null(), "error", run->error != NULL ?
	    json_string(run->error) : json_null());
	if (run->has_times) {
		json_object_set_new(o, "started", json_real(run->started_wall));
		json_object_set_new(o, "ended", json_real(run->ended_wall));
		json_object_set_new(o, "started_mono",
		    json_real(run->started_mono));
		json_object_set_new(o, "ended_mono", json_real(run->ended_mono));
	}
	json_object_set_new(o, "boot_id", run->boot_id != NULL ?
	    json_string(run->boot_id) : json_null());
	json_object_set_new(o, "set_aside", json_integer(run->set_aside));
	json_object_set_new(o, "disturbed", run->disturbed != NULL ?
	    json_string(run->disturbed) : json_null());
	profile = cmd_show_run_profile(run);
	json_object_set_new(o, "perf_profile", profile != NULL ?
	    json_string(profile) : json_null());
	free(profile);
	json_object_set_new(o, "environment", env);
	json_object_set_new(o, "samples", smp);
	cmd_print_json(o);
	json_decref(o);
}

static int
cmd_show_run(struct context *ctx, int64_t id, int json)
{
	struct store_run	 run;
	char			**keys = NULL, **values = NULL, **metrics = NULL;
	char			 *cause = NULL, *profile;
	double			 *samples = NULL;
	size_t			  nr_env = 0, nr_samples = 0, i;
	int			  r = CMD_FAILED;

	if (store_run_get(ctx->store, id, &run, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		free(cause);
		return CMD_USAGE;
	}
	if (store_run_env_of(ctx->store, id, &keys, &values, &nr_env,
	    &cause) != 0 ||
	    store_run_samples(ctx->store, id, &metrics, &samples, &nr_samples,
	    &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		goto out;
	}
	if (json) {
		cmd_show_run_json(&run, keys, values, nr_env, metrics, samples,
		    nr_samples);
		r = CMD_OK;
		goto out;
	}
	printf("run %lld: %s\n", (long long)run.id,
	    store_run_status_name(run.status));
	printf("job: %lld\nrepository: %s\ncommit: %s\nrun number: %d\n",
	    (long long)run.job, run.repo, run.commit_oid, run.seq);
	printf("agent: %s\nattempts: %d\n", run.agent != NULL ? run.agent :
	    "(none yet)", run.attempts);
	if (run.run_dir != NULL)
		printf("run directory: %s\n", run.run_dir);
	if ((profile = cmd_show_run_profile(&run)) != NULL)
		printf("perf profile: %s (perf report -i %s)\n", profile,
		    profile);
	free(profile);
	if (run.error != NULL)
		printf("error: %s\n", run.error);
	if (run.has_times) {
		printf("started: %.6f (monotonic %.6f)\n", run.started_wall,
		    run.started_mono);
		printf("ended: %.6f (monotonic %.6f)\n", run.ended_wall,
		    run.ended_mono);
	}
	if (run.boot_id != NULL)
		printf("boot: %s\n", run.boot_id);
	if (run.set_aside > 0)
		printf("set aside as disturbed: %d attempt%s\n", run.set_aside,
		    run.set_aside == 1 ? "" : "s");
	if (run.disturbed != NULL)
		printf("disturbed: %s\n", run.disturbed);
	printf("\nenvironment (%zu keys):\n", nr_env);
	for (i = 0; i < nr_env; i++)
		printf("\t%s: %s\n", keys[i], values[i]);
	printf("\nsamples (%zu metrics):\n", nr_samples);
	for (i = 0; i < nr_samples; i++)
		printf("\t%s: %.17g\n", metrics[i], samples[i]);
	r = CMD_OK;
out:
	for (i = 0; i < nr_env; i++) {
		free(keys[i]);
		free(values[i]);
	}
	free(keys);
	free(values);
	for (i = 0; i < nr_samples; i++)
		free(metrics[i]);
	free(metrics);
	free(samples);
	store_run_release(&run);
	free(cause);
	return r;
}

/*
 * show ID --json: the request, and for a bisection its state and result
 * (the object bisect --json prints), for a queue or compare request its
 * comparisons as compare --json prints them.
 */
static int
cmd_show_json(struct context *ctx, const struct store_request *rq)
{
	struct store_bisection	 b;
	json_t			*o, *res;
	char			*cause = NULL;
	int			 r;

	o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:o}", "id",
	    (json_int_t)rq->id, "kind", rq->kind, "status",
	    store_request_status_name(rq->status),
	    "repo", rq->repo, "job_file", rq->job_file, "created",
	    (json_int_t)rq->created, "error", rq->error != NULL ?
	    json_string(rq->error) : json_null());
	if (strcmp(rq->kind, "bisect") != 0) {
		json_decref(o);
		return cmd_print_compare(ctx, rq->id, 1, 1);
	}
	memset(&b, 0, sizeof b);
	if (store_bisection_get(ctx->store, rq->id, &b, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		free(cause);
		json_decref(o);
		return CMD_FAILED;
	}
	res = b.result != NULL ? json_loads(b.result, 0, NULL) : NULL;
	json_object_set_new(o, "bisection", json_pack("{s:s, s:s, s:s, s:s, "
	    "s:s, s:o, s:o}", "status", store_bisection_status_name(b.status),
	    "good", b.good, "bad", b.bad,
	    "metric", b.metric, "direction", b.direction, "progress",
	    b.progress != NULL && b.status == STORE_BISECTION_RUNNING ?
	    json_string(b.progress) : json_null(), "result", res != NULL ?
	    res : json_null()));
	cmd_print_json(o);
	r = CMD_OK;
	json_decref(o);
	store_bisection_release(&b);
	return r;
}

static int
cmd_show_exec(const char *config, struct cmd_args *args)
{
	struct context		*ctx = NULL;
	struct store_request	 rq;
	struct store_bisection	 b;
	int64_t			 id;
	char			*cause = NULL, when[32];
	time_t			 t;
	int			 r, json;

	memset(&rq, 0, sizeof rq);
	memset(&b, 0, sizeof b);
	json = cmd_args_has(args, 'j');
	if (cmd_args_has(args, 'r')) {
		if (args->argc != 0 || cmd_parse_id(cmd_args_get(args, 'r'),
		    &id) != 0)
			return cmd_usage(&cmd_show_entry);
		if ((r = cmd_open(config, &ctx)) != CMD_OK)
			return r;
		r = cmd_show_run(ctx, id, json);
		goto out;
	}
	if (args->argc != 1 || cmd_parse_id(args->argv[0], &id) != 0)
		return cmd_usage(&cmd_show_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	if (store_request_get(ctx->store, id, &rq, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_USAGE;
		goto out;
	}
	if (json) {
		r = cmd_show_json(ctx, &rq);
		goto out;
	}
	t = (time_t)rq.created;
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	printf("request %lld: %s, %s\n", (long long)rq.id, rq.kind,
	    store_request_status_name(rq.status));
	printf("repository: %s\njob file: %s\ncreated: %s\n", rq.repo,
	    rq.job_file, when);
	if (rq.error != NULL)
		printf("error: %s\n", rq.error);
	if (strcmp(rq.kind, "bisect") == 0) {
		if (store_bisection_get(ctx->store, id, &b, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			r = CMD_FAILED;
			goto out;
		}
		printf("good: %s\nbad: %s\nmetric: %s (%s is better)\n",
		    b.good, b.bad, b.metric, b.direction);
		printf("bisection: %s\n",
		    store_bisection_status_name(b.status));
		if (b.progress != NULL && b.status == STORE_BISECTION_RUNNING)
			printf("%s\n", b.progress);
		if (b.result != NULL)
			printf("result: %s\n", b.result);
		r = CMD_OK;
	} else {
		printf("\n");
		r = cmd_print_compare(ctx, id, 1, 0);
	}
out:
	store_request_release(&rq);
	store_bisection_release(&b);
	free(cause);
	context_free(ctx);
	return r;
}

static const struct cmd_option cmd_show_options[] = {
	{ "run", 'r', CMD_ARG },
	{ "json", 'j', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "ID [--json] | --run RUN [--json]",
	.summary = "one request and its results, or one run and all it recorded",
	.args = { cmd_show_options, 0, 1 },
	.exec = cmd_show_exec,
};
