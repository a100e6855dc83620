/*
 * dbench (Debian package dbench): nr_threads clients (default 100% of the
 * CPUs) for runtime seconds (default 60) against a directory in the work
 * directory, with the package's client.txt load. Its summary line
 * "Throughput 397.51 MB/sec  2 clients  2 procs  max_latency=21.443 ms"
 * gives LKP's dbench.throughput-MB/sec and dbench.max_latency (ms).
 * dbench reports no per-client figures, so there are no instances.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define DBENCH_LOADFILE	"/usr/share/dbench/client.txt"

static int
testcase_dbench_command(const struct testcase_ctx *ctx,
    struct testcase_argv *argv, char **cause)
{
	const char	*loadfile = job_param(ctx->job, "loadfile");
	char		*dir;
	unsigned	 clients;
	int		 r = -1;

	if (testcase_count(ctx, "nr_threads", "100%", &clients, cause) != 0)
		return -1;
	dir = path_join(ctx->workdir, "dbench");
	if (dir_create(dir, cause) != 0)
		goto out;
	testcase_argv_add(argv, "dbench");
	testcase_argv_add(argv, "-t");
	testcase_argv_add(argv, "%u", ctx->job->runtime > 0 ?
	    ctx->job->runtime : 60);
	testcase_argv_add(argv, "-D");
	testcase_argv_add(argv, "%s", dir);
	if (loadfile == NULL && file_exists(DBENCH_LOADFILE))
		loadfile = DBENCH_LOADFILE;
	if (loadfile != NULL) {
		testcase_argv_add(argv, "-c");
		testcase_argv_add(argv, "%s", loadfile);
	}
	testcase_argv_add(argv, "%u", clients);
	r = 0;
out:
	free(dir);
	return r;
}

static int
testcase_dbench_parse(const struct testcase_ctx *ctx, const char *out,
    size_t len, struct strbuf *metrics, char **cause)
{
	const char	*line, *end, *p, *last = NULL;
	char		*copy;
	double		 mbs, lat;
	int		 r = -1;

	(void)ctx;
	for (line = out; line < out + len; line = end + 1) {
		if ((end = memchr(line, '\n', (size_t)(out + len - line))) ==
		    NULL)
			end = out + len;
		if ((size_t)(end - line) > 11 &&
		    strncmp(line, "Throughput ", 11) == 0)
			last = line;
	}
	if (last == NULL)
		return error_set(cause, "dbench printed no 'Throughput' line");
	end = memchr(last, '\n', (size_t)(out + len - last));
	copy = xstrndup(last, end != NULL ? (size_t)(end - last) :
	    (size_t)(out + len - last));
	if (sscanf(copy, "Throughput %lf MB/sec", &mbs) != 1) {
		error_set(cause, "dbench's line '%s' has no MB/sec", copy);
		goto out;
	}
	strbuf_addf(metrics, "throughput-MB/sec: %.17g\n", mbs);
	if ((p = strstr(copy, "max_latency=")) != NULL &&
	    sscanf(p, "max_latency=%lf", &lat) == 1)
		strbuf_addf(metrics, "max_latency: %.17g\n", lat);
	r = 0;
out:
	free(copy);
	return r;
}

const struct testcase_adapter testcase_dbench = {
	.name = "dbench",
	.program = "dbench",
	.package = "dbench",
	.command = testcase_dbench_command,
	.parse = testcase_dbench_parse,
};
