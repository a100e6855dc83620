/*
 * The perf-profile parser (agents/perf-profile.c) on perf's real output,
 * captured on this machine (tests/fixtures/perf-profile/report-folded.txt:
 * "perf report --stdio --no-children --sort symbol -g
 * folded,0,caller,count" of "perf record -a -g -F 800 -e cpu-clock" around
 * a loop in hot_loop, perf 6.1); the expected counts were read from the
 * file with awk. Then constructed chains for recursion, unresolved
 * frames, the threshold, the row cap and text that is not perf's. And
 * kernel frames named from a System.map (perf_profile_symbolize): perf
 * report of a profile recorded in a qemu guest whose kernel has no
 * KALLSYMS (tests/fixtures/perf-profile/guest-folded.txt, t0703's kernel),
 * against the lines of that build's System.map that name its addresses
 * (guest-System.map: for each address the text symbol at or below it in
 * the whole map, so the answers are the whole map's; chosen with a script
 * that read the whole map), and constructed maps.
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

static char *
fixture(const char *name, size_t *len)
{
	const char	*src = getenv("BISECTD_SRC");
	char		*path, *buf = NULL, *cause = NULL;

	path = xasprintf("%s/tests/fixtures/perf-profile/%s",
	    src != NULL ? src : ".", name);
	if (file_read(path, &buf, len, &cause) != 0) {
		diag("%s", cause);
		buf = xstrdup("");
		*len = 0;
	}
	free(path);
	free(cause);
	return buf;
}

/* The guest's kernel frames, named from its build's System.map. */
static void
test_symbolize_guest(void)
{
	struct result	*r = result_new();
	struct strbuf	 out = STRBUF_INIT;
	char		*text, *map, *cause = NULL, *p, *nl;
	size_t		 tlen, mlen, named = 0;
	int		 left;

	text = fixture("guest-folded.txt", &tlen);
	map = fixture("guest-System.map", &mlen);
	is_int(perf_profile_symbolize(map, mlen, text, tlen, &out, &named,
	    &cause), 0, "the guest's chains symbolized");
	is_int((long)named, 157L, "every kernel frame (157, as the guest "
	    "counted) named");
	for (p = out.buf, left = 0; p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if (*p >= '0' && *p <= '9' && memmem(p, (size_t)(nl - p),
		    "0xffffffff8", 11) != NULL)
			left++;
	}
	is_int(left, 0, "no chain is left with a kernel address");
	ok(out.buf != NULL && strstr(out.buf, "102 0x439559;"
	    "entry_SYSCALL_64_after_hwframe;do_syscall_64;"
	    "syscall_enter_from_user_mode\n") != NULL,
	    "the hottest kernel chain, from the user frame down");
	ok(out.buf != NULL && strstr(out.buf, "10.98%  [k] 0xffffffff81146553")
	    != NULL, "perf's header lines are left as they are");
	ok(perf_profile_parse(r, out.buf, out.len, &cause) > 0,
	    "and parsed");
	ok(metric(r, "perf-profile.children.cycles-pp.do_syscall_64") > 10,
	    "children of do_syscall_64");
	ok(metric(r, "perf-profile.self.cycles-pp.syscall_enter_from_user_"
	    "mode") > 10, "self of syscall_enter_from_user_mode");
	ok(metric(r, "perf-profile.children.cycles-pp.__x64_sys_getppid") > 0,
	    "the syscall itself");
	strbuf_release(&out);
	result_free(r);
	free(text);
	free(map);
	free(cause);
}

/* Constructed: types, the last symbol, _etext, bad input. */
static void
test_symbolize_constructed(void)
{
	static const char	map[] =
	    "ffffffff81000000 T _text\n"
	    "ffffffff81000100 t small_fn\n"
	    "ffffffff81000200 D some_data\n"
	    "ffffffff81000300 W weak_fn\n"
	    "ffffffff81000400 T _etext\n"
	    "ffffffff81000500 T after_text\n"
	    "garbage line\n";
	static const char	text[] =
	    "# header\n"
	    "5 main;0xffffffff81000150;0xffffffff81000250\n"
	    "3 0xffffffff81000300;0xffffffff81000450;0xfffffffe00000000\n"
	    "2 0x4011;[unknown];0xffffffff8100030g\n"
	    "7 0xFFFFFFFF81000100";
	struct strbuf		out = STRBUF_INIT;
	char			*cause = NULL;
	size_t			 named;

	is_int(perf_profile_symbolize(map, sizeof map - 1, text,
	    sizeof text - 1, &out, &named, &cause), 0, "constructed map");
	is_str(out.buf, "# header\n"
	    "5 main;small_fn;small_fn\n"
	    "3 weak_fn;0xffffffff81000450;0xfffffffe00000000\n"
	    "2 0x4011;[unknown];0xffffffff8100030g\n"
	    "7 small_fn\n", "data symbols skipped, _etext and below the "
	    "first symbol left, malformed left, upper-case hex read");
	is_int((long)named, 4L, "four frames named");
	strbuf_release(&out);
	is_int(perf_profile_symbolize("ffffffff81000200 D x\n", 21, text,
	    sizeof text - 1, &out, &named, &cause), -1,
	    "a map without text symbols");
	ok(cause != NULL && strstr(cause, "no text symbol") != NULL,
	    "says so: %s", cause != NULL ? cause : "");
	strbuf_release(&out);
	free(cause);
}

int
main(void)
{
	test_metric();
	test_fixture();
	test_constructed();
	test_keep_symbols();
	test_symbolize_guest();
	test_symbolize_constructed();
	return tap_done();
}
