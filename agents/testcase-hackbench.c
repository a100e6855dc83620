/*
 * hackbench (Debian package rt-tests): groups of senders and receivers
 * passing messages over pipes or sockets. nr_threads (default 100% of
 * the CPUs) tasks make nr_threads / 40 groups of 40 (at least one;
 * "groups" overrides), "mode" is process or threads, "ipc" pipe or
 * socket, "loops" the messages per sender (default 10000), "iterations"
 * how many times it runs (default 1). As LKP's stats/hackbench:
 * hackbench.throughput is the KiB of messages passed per second over all
 * iterations, hackbench.workload the messages passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define HACKBENCH_GROUP	40	/* tasks per group with the default 20 fds */

static int
testcase_hackbench_command(const struct testcase_ctx *ctx,
    struct testcase_argv *argv, char **cause)
{
	static const char *const modes[] = { "process", "threads", NULL };
	static const char *const ipcs[] = { "pipe", "socket", NULL };
	const char	*mode, *ipc;
	unsigned	 tasks, groups, loops, iterations;

	if (testcase_count(ctx, "nr_threads", "100%", &tasks, cause) != 0 ||
	    testcase_count(ctx, "loops", "10000", &loops, cause) != 0 ||
	    testcase_count(ctx, "iterations", "1", &iterations, cause) != 0 ||
	    testcase_word(ctx, "mode", modes, "process", &mode, cause) != 0 ||
	    testcase_word(ctx, "ipc", ipcs, "socket", &ipc, cause) != 0)
		return -1;
	groups = tasks / HACKBENCH_GROUP > 0 ? tasks / HACKBENCH_GROUP : 1;
	if (job_param(ctx->job, "groups") != NULL &&
	    testcase_count(ctx, "groups", "1", &groups, cause) != 0)
		return -1;
	testcase_argv_add(argv, "sh");
	testcase_argv_add(argv, "-c");
	testcase_argv_add(argv, "n=$1; shift; i=0; while [ $i -lt $n ]; do "
	    "\"$@\" || exit; i=$((i + 1)); done");
	testcase_argv_add(argv, "hackbench-iterations");
	testcase_argv_add(argv, "%u", iterations);
	testcase_argv_add(argv, "hackbench");
	testcase_argv_add(argv, "-g");
	testcase_argv_add(argv, "%u", groups);
	testcase_argv_add(argv, "-l");
	testcase_argv_add(argv, "%u", loops);
	if (strcmp(mode, "threads") == 0)
		testcase_argv_add(argv, "-T");
	if (strcmp(ipc, "pipe") == 0)
		testcase_argv_add(argv, "-p");
	return 0;
}

static int
testcase_hackbench_parse(const struct testcase_ctx *ctx, const char *out,
    size_t len, struct strbuf *metrics, char **cause)
{
	char		*copy = xstrndup(out, len), *save = NULL, *l;
	double		 tasks = 0, messages = 0, bytes = 0, t, kb = 0;
	double		 time = 0, workload = 0;
	unsigned	 g, f, n, m, b;
	int		 runs = 0, r = -1;

	(void)ctx;
	for (l = strtok_r(copy, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "Running in %*s mode with %u groups using %u "
		    "file descriptors each (== %u tasks)", &g, &f, &n) == 3)
			tasks = n;
		else if (sscanf(l, "Each sender will pass %u messages of %u "
		    "bytes", &m, &b) == 2 || sscanf(l, "Each sender passed "
		    "%u messages of %u bytes", &m, &b) == 2) {
			messages = m;
			bytes = b;
		} else if (sscanf(l, "Time: %lf", &t) == 1) {
			time += t;
			kb += tasks * messages * bytes / 1024;
			workload += tasks * messages;
			runs++;
		}
	}
	if (runs == 0 || time <= 0) {
		error_set(cause, "hackbench printed no 'Time:' line");
		goto out;
	}
	strbuf_addf(metrics, "throughput: %.17g\n", kb / time);
	strbuf_addf(metrics, "workload: %.17g\n", workload);
	r = 0;
out:
	free(copy);
	return r;
}

const struct testcase_adapter testcase_hackbench = {
	.name = "hackbench",
	.program = "hackbench",
	.package = "rt-tests",
	.command = testcase_hackbench_command,
	.parse = testcase_hackbench_parse,
};
