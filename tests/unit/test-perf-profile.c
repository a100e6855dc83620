/*
 * The perf-profile parser (agents/perf-profile.c) on perf's real output,
 * captured on this machine (tests/fixtures/perf-profile/report-folded.txt:
 * "perf report --stdio --no-children --sort symbol -g
 * folded,0,caller,count" of "perf record -a -g -F 800 -e cpu-clock" around
 * a loop in hot_loop, perf 6.1); the expected counts were read from the
 * file with awk. Then constructed chains for recursion, unresolved
 * frames, the threshold, the row cap and text that is not perf's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/perf-profile.h"
#include "agents/result.h"
#include "bisectd/build-kernel.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static double
metric(const struct result *r, const char *name)
{
	const struct result_metric	*m = result_metric_find(r, name);

	return m != NULL ? m->value : NAN;
}

static size_t
count_prefix(const struct result *r, const char *prefix)
{
	size_t	i, n = 0;

	for (i = 0; i < r->nr_metrics; i++) {
		if (strncmp(r->metrics[i].name, prefix, strlen(prefix)) == 0)
			n++;
	}
	return n;
}

static void
test_fixture(void)
{
	const char	*src = getenv("BISECTD_SRC");
	struct result	*r = result_new();
	char		*path, *buf = NULL, *cause = NULL;
	size_t		 len = 0, i;
	long		 n;
	int		 hex = 0;

	path = xasprintf("%s/tests/fixtures/perf-profile/report-folded.txt",
	    src != NULL ? src : ".");
	if (file_read(path, &buf, &len, &cause) != 0) {
		diag("%s", cause);
		buf = xstrdup("");
		len = 0;
	}
	n = perf_profile_parse(r, buf, len, &cause);
	is_int(n, 326, "every sample of the 32 chains is counted");
	is_close(metric(r, "perf-profile.self.cycles-pp.hot_loop"),
	    100.0 * 270 / 326, 1e-12, "self: the samples that ended in it");
	is_close(metric(r, "perf-profile.children.cycles-pp.hot_loop"),
	    100.0 * 277 / 326, 1e-12,
	    "children: with the interrupts taken inside it too");
	is_close(metric(r, "perf-profile.calltrace.cycles-pp.hot_loop.main."
	    "__libc_start_call_main"), 100.0 * 277 / 326, 1e-12,
	    "calltrace: the function, then its callers up to the root");
	is_close(metric(r, "perf-profile.calltrace.cycles-pp."
	    "__libc_start_call_main"), 100.0 * 277 / 326, 1e-12,
	    "calltrace: the root alone");
	is_close(metric(r, "perf-profile.self.cycles-pp."
	    "_raw_spin_unlock_irqrestore"), 100.0 * 8 / 326, 1e-12,
	    "a kernel symbol, from both of its chains");
	is_close(metric(r, "perf-profile.self.cycles-pp."
	    "intel_check_word.constprop.0"), 100.0 * 10 / 326, 1e-12,
	    "a symbol with dots keeps its name");
	ok(isnan(metric(r, "perf-profile.self.cycles-pp.mutex_unlock")),
	    "one sample (0.31%%) is below the threshold");
	for (i = 0; i < r->nr_metrics; i++)
		hex |= strstr(r->metrics[i].name, "0x") != NULL;
	ok(!hex, "no row for a frame perf could not name");
	free(path);
	free(buf);
	free(cause);
	result_free(r);
}

static void
test_constructed(void)
{
	struct result	*r = result_new();
	struct strbuf	 sb = STRBUF_INIT;
	const char	*text;
	char		*cause = NULL;
	size_t		 i;
	long		 n;

	text = "# header\n    75.00%  [.] a\n3 main;a;b;a\n1 main;c\n";
	n = perf_profile_parse(r, text, strlen(text), &cause);
	is_int(n, 4, "4 samples");
	is_close(metric(r, "perf-profile.self.cycles-pp.a"), 75, 1e-12,
	    "self");
	is_close(metric(r, "perf-profile.children.cycles-pp.a"), 75, 1e-12,
	    "recursion counts a sample once");
	is_close(metric(r, "perf-profile.children.cycles-pp.main"), 100,
	    1e-12, "the root is on every stack");
	is_close(metric(r, "perf-profile.calltrace.cycles-pp.a.b.a.main"), 75,
	    1e-12, "a recursive path");
	is_close(metric(r, "perf-profile.calltrace.cycles-pp.c.main"), 25,
	    1e-12, "another path");
	result_free(r);

	r = result_new();
	text = "2 0x12;[unknown];f;g\n2 0;h\n";
	n = perf_profile_parse(r, text, strlen(text), &cause);
	is_int(n, 4, "unresolved chains count in the total");
	is_close(metric(r, "perf-profile.calltrace.cycles-pp.g.f"), 50,
	    1e-12, "a calltrace starts below the last unresolved frame");
	is_close(metric(r, "perf-profile.self.cycles-pp.h"), 50, 1e-12,
	    "a leaf under an unresolved frame is still named");
	is_int(count_prefix(r, "perf-profile.children.cycles-pp.0"), 0,
	    "no row for '0'");
	result_free(r);

	/* a chain of 250 distinct frames: every one is 100% of children */
	r = result_new();
	strbuf_addstr(&sb, "1 ");
	for (i = 0; i < 250; i++)
		strbuf_addf(&sb, "%sf%zu", i ? ";" : "", i);
	strbuf_addch(&sb, '\n');
	n = perf_profile_parse(r, sb.buf, sb.len, &cause);
	is_int(n, 1, "one sample");
	is_int(count_prefix(r, "perf-profile.children."), PERF_PROFILE_MAX_ROWS,
	    "children rows are capped");
	ok(count_prefix(r, "perf-profile.calltrace.") <= PERF_PROFILE_MAX_ROWS,
	    "calltrace rows are capped");
	for (i = 0; i < r->nr_metrics; i++) {
		if (!result_name_valid(r->metrics[i].name))
			break;
	}
	ok(i == r->nr_metrics, "every name is one a result can hold");
	result_free(r);
	strbuf_release(&sb);

	r = result_new();
	text = "# nothing\nError: no samples\n99999999999999999999 a;b\n"
	    "-1 a\n1x a\n";
	n = perf_profile_parse(r, text, strlen(text), &cause);
	is_int(n, -1, "text without a chain is an error");
	is_str(cause, "perf report listed no call chain", "and says so");
	is_int(r->nr_metrics, 0, "no metric from it");
	free(cause);
	result_free(r);
}

/* A kernel build keeps its System.map with the artifacts. */
static void
test_keep_symbols(void)
{
	char	 tmpl[] = "/tmp/test-perf-profile.XXXXXX";
	char	*dir = mkdtemp(tmpl), *build, *cache, *from, *to, *cause = NULL;
	char	*buf = NULL;
	size_t	 len;

	if (!ok(dir != NULL, "a scratch directory"))
		return;
	build = path_join(dir, "build");
	cache = path_join(dir, "cache");
	dir_create(build, NULL);
	dir_create(cache, NULL);
	is_int(build_kernel_keep_symbols(build, cache, &cause), 0,
	    "no System.map: nothing to keep, no error");
	to = path_join(cache, "System.map");
	ok(!file_exists(to), "and nothing kept");
	from = path_join(build, "System.map");
	file_write_atomic(from, "ffffffff81000000 T _text\n", 26, NULL);
	is_int(build_kernel_keep_symbols(build, cache, &cause), 0,
	    "System.map kept");
	ok(file_read(to, &buf, &len, NULL) == 0 && len == 26 &&
	    memcmp(buf, "ffffffff81000000 T _text\n", 26) == 0,
	    "as the build wrote it");
	free(buf);
	file_write_atomic(to, "artifact\n", 9, NULL);
	build_kernel_keep_symbols(build, cache, &cause);
	buf = NULL;
	ok(file_read(to, &buf, &len, NULL) == 0 && len == 9,
	    "one the recipe's artifacts hold is left as it is");
	free(buf);
	dir_remove_tree(dir, NULL);
	free(build);
	free(cache);
	free(from);
	free(to);
	free(cause);
}

/* A symbol's name never gives its row a direction. */
static void
test_metric(void)
{
	is_int(metric_lookup("perf-profile.self.cycles-pp.tcp_throughput_"
	    "update")->direction, JOB_DIRECTION_UNKNOWN,
	    "'*throughput*' in a symbol is no direction");
	is_int(metric_lookup("perf-profile.children.cycles-pp.update_latency")
	    ->direction, JOB_DIRECTION_UNKNOWN, "nor is '*latency*'");
}

int
main(void)
{
	test_metric();
	test_fixture();
	test_constructed();
	test_keep_symbols();
	return tap_done();
}
