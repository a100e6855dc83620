/*
 * bisectctl check: load, validate and expand job files as queue does, with
 * no database and nothing queued, like LKP's split-job. Each job is listed
 * with its id, programs, parameters, what the agent will run, the knobs it
 * sets and the headline metric; --json prints one array (docs/cli.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "agents/disk.h"
#include "agents/knob.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "bisectd/cmd.h"
#include "jobs/config.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct cmd_check {
	int		  json;
	int		  strict;	/* --runnable */
	int		  format_only;	/* --format-only: no validation */
	const char	**dirs;
	size_t		  nr_dirs;
	json_t		 *array;
	size_t		  nr_jobs;
	size_t		  nr_unrunnable;
	size_t		  nr_repeats;
};

/*
 * What the agent runs: *kind is "adapter", "inline" or "none"; for an
 * adapter, argv as testcase_prepare builds it on this machine (its CPUs
 * and memory, the program found in PATH). -1 with *why when it cannot.
 */
static int
cmd_check_runs(const struct job *job, const char **kind,
    struct testcase_argv *argv, char **why)
{
	const struct testcase_adapter	*ad;
	struct testcase_ctx		 ctx;
	struct result			*res;
	long				 cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long				 pages = sysconf(_SC_PHYS_PAGES);
	long				 psize = sysconf(_SC_PAGESIZE);
	int				 r = 0;

	*why = NULL;
	if (job->run != NULL) {
		*kind = "inline";
		return 0;
	}
	if ((ad = testcase_find(job->testcase)) == NULL) {
		*kind = "none";
		*why = xasprintf("testcase '%s' has no 'run:' command and "
		    "bisect-agent has no adapter for it", job->testcase);
		return -1;
	}
	*kind = "adapter";
	memset(&ctx, 0, sizeof ctx);
	ctx.job = job;
	ctx.workdir = ".";
	ctx.resultdir = ".";
	ctx.self = "bisect-agent";
	ctx.dry_run = 1;	/* create nothing (the adapter's mkdir) here */
	ctx.nr_cpu = cpus > 0 ? (unsigned)cpus : 1;
	ctx.memory = pages > 0 && psize > 0 ?
	    (unsigned long long)pages * (unsigned long long)psize : 0;
	res = result_new();
	if (testcase_prepare(ad, &ctx, argv, res) != 0) {
		*why = xstrdup(res->error != NULL ? res->error :
		    "the adapter cannot build its command");
		r = -1;
	}
	result_free(res);
	return r;
}

static void
cmd_check_text(const struct job *job, const char *kind,
    const struct testcase_argv *argv, const char *why,
    const struct knob_set *ks)
{
	char		*desc = job_describe(job), *disks;
	const char	*metric = job->metric;
	enum job_direction dir = job->direction;
	size_t		 i;

	printf("job %s %s\n", job->id, desc);
	printf("  file: %s\n", job->file);
	printf("  programs:");
	for (i = 0; i < job->nr_programs; i++)
		printf(" %s", job->programs[i]);
	printf("%s\n", job->nr_programs ? "" : " none");
	printf("  params:\n");
	for (i = 0; i < job->nr_params; i++) {
		if (strcmp(job->params[i].key, "programs") == 0)
			continue;
		printf("    %s: %s\n", job->params[i].key,
		    job->params[i].value);
	}
	if (strcmp(kind, "inline") == 0)
		printf("  runs: sh -c %s\n", job->run);
	else if (argv->nr > 0) {
		printf("  runs:");
		for (i = 0; i < argv->nr; i++)
			printf(" %s", argv->v[i]);
		printf("\n");
	}
	if (why != NULL)
		printf("  not runnable here: %s\n", why);
	if ((disks = disk_describe(job)) != NULL)
		printf("  disks: %s\n", disks);
	free(disks);
	printf("  knobs:");
	for (i = 0; ks != NULL && i < ks->nr; i++)
		printf(" %s=%s", ks->knobs[i].name, ks->knobs[i].want);
	printf("%s\n", ks == NULL || ks->nr == 0 ? " none" : "");
	if (metric != NULL) {
		if (dir == JOB_DIRECTION_UNKNOWN)
			dir = metric_lookup(metric)->direction;
		printf("  metric: %s (%s is better)\n", metric,
		    job_direction_name(dir));
	} else
		printf("  metric: none (bisect needs --metric)\n");
	free(desc);
}

static json_t *
cmd_check_json(const struct job *job, const char *kind,
    const struct testcase_argv *argv, const char *why,
    const struct knob_set *ks)
{
	json_t		*o = json_object(), *a, *p;
	char		*desc = job_describe(job), *disks;
	enum job_direction dir = job->direction;
	size_t		 i;

	json_object_set_new(o, "id", json_string(job->id));
	json_object_set_new(o, "file", json_string(job->file));
	json_object_set_new(o, "description", json_string(desc));
	json_object_set_new(o, "testcase", json_string(job->testcase));
	a = json_array();
	for (i = 0; i < job->nr_programs; i++)
		json_array_append_new(a, json_string(job->programs[i]));
	json_object_set_new(o, "programs", a);
	p = json_object();
	for (i = 0; i < job->nr_params; i++)
		json_object_set_new(p, job->params[i].key,
		    json_string(job->params[i].value));
	json_object_set_new(o, "params", p);
	a = json_array();
	for (i = 0; i < job->nr_axes; i++)
		json_array_append_new(a, json_string(job->axes[i]));
	json_object_set_new(o, "axes", a);
	p = json_object();
	json_object_set_new(p, "kind", json_string(kind));
	if (strcmp(kind, "inline") == 0)
		json_object_set_new(p, "command", json_string(job->run));
	else if (argv->nr > 0) {
		a = json_array();
		for (i = 0; i < argv->nr; i++)
			json_array_append_new(a, json_string(argv->v[i]));
		json_object_set_new(p, "argv", a);
	}
	json_object_set_new(p, "runnable", json_boolean(why == NULL));
	if (why != NULL)
		json_object_set_new(p, "why", json_string(why));
	json_object_set_new(o, "runs", p);
	p = json_object();
	for (i = 0; ks != NULL && i < ks->nr; i++)
		json_object_set_new(p, ks->knobs[i].name,
		    json_string(ks->knobs[i].want));
	json_object_set_new(o, "knobs", p);
	disks = disk_describe(job);
	json_object_set_new(o, "disks", disks != NULL ? json_string(disks) :
	    json_null());
	free(disks);
	if (job->metric != NULL) {
		if (dir == JOB_DIRECTION_UNKNOWN)
			dir = metric_lookup(job->metric)->direction;
		json_object_set_new(o, "metric", json_string(job->metric));
	} else
		json_object_set_new(o, "metric", json_null());
	json_object_set_new(o, "direction",
	    json_string(job_direction_name(dir)));
	free(desc);
	return o;
}

/* One file: CMD_OK, or CMD_USAGE with the error printed. */
static int
cmd_check_file(struct cmd_check *c, const char *path)
{
	struct job_options	  opts;
	struct job		**jobs = NULL;
	struct knob_set		 *ks = NULL;
	struct testcase_argv	  argv = { NULL, 0 };
	const char		 *kind;
	char			 *cause = NULL, *why = NULL, *kwhy = NULL;
	size_t			  nr = 0, repeats = 0, i;
	int			  r = CMD_USAGE;

	memset(&opts, 0, sizeof opts);
	opts.include_dirs = c->dirs;
	opts.nr_include_dirs = c->nr_dirs;
	opts.nr_repeats = &repeats;
	if (job_load_with(path, &opts, &jobs, &nr, &cause) != 0)
		goto out;
	if (repeats > 0)
		fprintf(stderr, "note: %s: %zu jobs repeat an earlier job of "
		    "the file and are listed once\n", path, repeats);
	c->nr_repeats += repeats;
	/* What queue refuses, check refuses: every parameter is checked. */
	for (i = 0; i < nr && !c->format_only; i++) {
		if (testcase_check(jobs[i], &cause) != 0)
			goto out;
	}
	for (i = 0; i < nr; i++) {
		cmd_check_runs(jobs[i], &kind, &argv, &why);
		/* A knob this machine lacks: the job runs elsewhere. */
		if (knob_set_from_job(jobs[i], "/", &ks, &kwhy) != 0) {
			ks = NULL;
			if (why == NULL)
				why = kwhy;
			else
				free(kwhy);
			kwhy = NULL;
		}
		if (why != NULL)
			c->nr_unrunnable++;
		if (c->json)
			json_array_append_new(c->array, cmd_check_json(jobs[i],
			    kind, &argv, why, ks));
		else
			cmd_check_text(jobs[i], kind, &argv, why, ks);
		if (why != NULL && c->strict) {
			cause = xasprintf("%s: job %s: %s", path, jobs[i]->id,
			    why);
			goto out;
		}
		free(why);
		why = NULL;
		testcase_argv_release(&argv);
		knob_set_free(ks);
		ks = NULL;
		c->nr_jobs++;
	}
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	testcase_argv_release(&argv);
	knob_set_free(ks);
	job_list_free(jobs, nr);
	free(cause);
	free(why);
	return r;
}

static int
cmd_check_exec(const char *config, struct cmd_args *args)
{
	struct cmd_check	 c;
	struct config		*cfg = NULL;
	char			*path = NULL, *cause = NULL, *env = NULL;
	char			*tok, *save;
	size_t			 i;
	int			 r = CMD_USAGE;

	memset(&c, 0, sizeof c);
	c.json = cmd_args_has(args, 'j');
	c.strict = cmd_args_has(args, 'R');
	c.format_only = cmd_args_has(args, 'F');
	c.nr_dirs = cmd_args_values(args, 'I', &c.dirs);
	if (getenv("BISECTD_JOB_INCLUDE") != NULL) {
		env = xstrdup(getenv("BISECTD_JOB_INCLUDE"));
		for (tok = strtok_r(env, ":", &save); tok != NULL;
		    tok = strtok_r(NULL, ":", &save)) {
			c.dirs = xreallocarray(c.dirs, c.nr_dirs + 1,
			    sizeof *c.dirs);
			c.dirs[c.nr_dirs++] = tok;
		}
	}
	/* The config is optional here: only its job_include: is used. */
	if (config_find(config, &path, &cause) == 0) {
		if (config_load(path, &cfg, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			goto out;
		}
		for (i = 0; i < cfg->nr_job_include; i++) {
			c.dirs = xreallocarray(c.dirs, c.nr_dirs + 1,
			    sizeof *c.dirs);
			c.dirs[c.nr_dirs++] = cfg->job_include[i];
		}
	} else if (config != NULL) {
		fprintf(stderr, "error: %s\n", cause);
		goto out;
	}
	if (c.json)
		c.array = json_array();
	for (i = 0; i < (size_t)args->argc; i++) {
		if (cmd_check_file(&c, args->argv[i]) != CMD_OK)
			goto out;
	}
	if (c.json) {
		char *s = json_dumps(c.array, JSON_INDENT(2) |
		    JSON_PRESERVE_ORDER);

		printf("%s\n", s);
		free(s);
	} else
		printf("%zu jobs, %zu not runnable here, %zu repeats "
		    "dropped\n", c.nr_jobs, c.nr_unrunnable, c.nr_repeats);
	r = CMD_OK;
out:
	json_decref(c.array);
	config_free(cfg);
	free(path);
	free(cause);
	free(env);
	free(c.dirs);
	return r;
}

static const struct cmd_option cmd_check_options[] = {
	{ "json", 'j', 0 },
	{ "include", 'I', CMD_ARG | CMD_SHORT },
	{ "runnable", 'R', 0 },
	{ "format-only", 'F', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "[--json] [--format-only] [--runnable] [-I DIR]... "
	    "JOB.yaml...",
	.summary = "validate and expand job files without queueing",
	.args = { cmd_check_options, 1, -1 },
	.exec = cmd_check_exec,
};
