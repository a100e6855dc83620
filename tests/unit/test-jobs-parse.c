/*
 * Unit tests for job-file parsing: the good files (the two examples of
 * DESIGN §3.2 among them) with their typed fields and a canonical
 * round-trip, and a table of malformed files, each with the exact
 * "FILE:LINE:COL: " prefix it must produce and the key it must name.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/job.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int
parse(const char *text, struct job ***jobs, size_t *nr, char **cause)
{
	return job_parse("job.yaml", text, strlen(text), jobs, nr, cause);
}

/* Re-parsing a job's canonical text gives the same single job. */
static void
roundtrip(const struct job *job, const char *what)
{
	struct job	**again = NULL;
	size_t		  nr = 0, i;
	char		 *cause = NULL;
	int		  same;

	if (!ok(job_parse("canonical", job->canonical, strlen(job->canonical),
	    &again, &nr, &cause) == 0 && nr == 1, "%s: canonical re-parses "
	    "to one job", what)) {
		diag("%s", cause ? cause : "(no cause)");
		diag("canonical:\n%s", job->canonical);
		free(cause);
		job_list_free(again, nr);
		return;
	}
	same = again[0]->nr_params == job->nr_params;
	for (i = 0; same && i < job->nr_params; i++) {
		same = strcmp(again[0]->params[i].key,
		    job->params[i].key) == 0 &&
		    strcmp(again[0]->params[i].value,
		    job->params[i].value) == 0;
	}
	ok(same, "%s: same parameters after the round-trip", what);
	is_str(again[0]->canonical, job->canonical,
	    "%s: same canonical text after the round-trip", what);
	is_str(again[0]->id, job->id, "%s: same id after the round-trip", what);
	job_list_free(again, nr);
}

static void
test_design_example_dbench(void)
{
	const char	*text =
	    "testcase: dbench              # names a testcase adapter\n"
	    "category: benchmark\n"
	    "nr_threads: [50%, 100%]       # any list is a matrix axis\n"
	    "runtime: 60s\n"
	    "runs: 3\n"
	    "thp_enabled: always\n"
	    "thp_defrag: madvise\n"
	    "numa_balancing: 1\n"
	    "monitors: [proc-vmstat, meminfo, numastat, time]\n"
	    "requires: { nr_node: \">=2\", memory: \">=32G\" }\n"
	    "metric: dbench.throughput-MB/sec\n";
	struct job	**jobs = NULL;
	size_t		  nr = 0, i;
	char		 *cause = NULL, *d;

	if (!ok(parse(text, &jobs, &nr, &cause) == 0, "dbench example parses"))
		diag("%s", cause);
	is_int(nr, 2, "dbench example expands to 2 jobs");
	if (nr != 2)
		goto out;
	for (i = 0; i < nr; i++) {
		is_str(jobs[i]->testcase, "dbench", "testcase");
		is_str(jobs[i]->category, "benchmark", "category");
		is_str(jobs[i]->metric, "dbench.throughput-MB/sec", "metric");
		is_int(jobs[i]->direction, JOB_DIRECTION_UNKNOWN,
		    "direction left unknown for the metric table");
		is_int(jobs[i]->runs, 3, "runs");
		is_int(jobs[i]->runtime, 60, "runtime 60s is 60 seconds");
		is_int(jobs[i]->timeout, 0, "no timeout");
		ok(jobs[i]->run == NULL, "no inline command");
		is_int(jobs[i]->nr_monitors, 4, "four monitors");
		if (jobs[i]->nr_monitors == 4) {
			is_str(jobs[i]->monitors[0], "meminfo",
			    "monitors sorted: meminfo first");
			is_str(jobs[i]->monitors[3], "time",
			    "monitors sorted: time last");
		}
		is_str(job_param(jobs[i], "requires.nr_node"), ">=2",
		    "requires.nr_node flattened");
		is_str(job_param(jobs[i], "requires.memory"), ">=32G",
		    "requires.memory flattened");
		is_str(job_param(jobs[i], "thp_enabled"), "always",
		    "thp_enabled");
		is_str(job_param(jobs[i], "numa_balancing"), "1",
		    "numa_balancing");
		is_str(job_param(jobs[i], "monitors"),
		    "meminfo,numastat,proc-vmstat,time", "monitors param");
		is_str(jobs[i]->file, "job.yaml", "file recorded");
		is_int(strlen(jobs[i]->id), 16, "id is 16 hex digits");
		is_int(strspn(jobs[i]->id, "0123456789abcdef"), 16,
		    "id is lowercase hex");
		roundtrip(jobs[i], "dbench");
	}
	is_str(job_param(jobs[0], "nr_threads"), "50%", "first job 50%%");
	is_str(job_param(jobs[1], "nr_threads"), "100%", "second job 100%%");
	d = job_describe(jobs[1]);
	is_str(d, "dbench/nr_threads=100%", "describe names the axis");
	free(d);
	ok(strcmp(jobs[0]->id, jobs[1]->id) != 0, "the two ids differ");
	for (i = 1; i < jobs[0]->nr_params; i++)
		ok(strcmp(jobs[0]->params[i - 1].key,
		    jobs[0]->params[i].key) < 0, "params sorted at %zu", i);
	ok(job_param(jobs[0], "nosuch") == NULL, "absent param is NULL");
out:
	job_list_free(jobs, nr);
	free(cause);
}

static void
test_design_example_inline(void)
{
	const char	*text =
	    "testcase: microbench\n"
	    "run: ./bench --iterations 1000\n"
	    "metric: microbench.ops_per_sec\n"
	    "direction: higher             # higher | lower is better\n";
	struct job	**jobs = NULL;
	size_t		  nr = 0;
	char		 *cause = NULL, *d;

	if (!ok(parse(text, &jobs, &nr, &cause) == 0, "inline example parses"))
		diag("%s", cause);
	is_int(nr, 1, "inline example is one job");
	if (nr != 1)
		goto out;
	is_str(jobs[0]->run, "./bench --iterations 1000", "run command");
	is_int(jobs[0]->direction, JOB_DIRECTION_HIGHER, "direction higher");
	is_str(job_direction_name(jobs[0]->direction), "higher",
	    "direction name");
	is_int(jobs[0]->runs, 3, "runs defaults to 3");
	is_int(jobs[0]->runtime, 0, "runtime 0 when absent");
	is_int(jobs[0]->nr_monitors, 0, "no monitors");
	ok(jobs[0]->category == NULL, "no category");
	d = job_describe(jobs[0]);
	is_str(d, "microbench", "describe without axes is the testcase");
	free(d);
	is_str(jobs[0]->canonical,
	    "direction: higher\n"
	    "metric: microbench.ops_per_sec\n"
	    "run: \"./bench --iterations 1000\"\n"
	    "testcase: microbench\n", "canonical text of the inline example");
	roundtrip(jobs[0], "inline");
out:
	job_list_free(jobs, nr);
	free(cause);
}

static void
test_lkp_style(void)
{
	const char	*text =
	    "%YAML 1.1\n"
	    "---\n"
	    "testcase: vm-scalability\n"
	    "category: benchmark\n"
	    "runtime: 5m\n"
	    "timeout: 1h\n"
	    "runs: 10\n"
	    "direction: lower\n"
	    "test: !!str lru-file-mmap-read\n"
	    "nr_task: 32\n"
	    "size: \"\"\n"
	    "note: 'it''s \"quoted\": yes # not a comment'\n"
	    "unicode: \"caf\\u00e9 \\U0001F600 tab\\there\"\n"
	    "monitors:\n"
	    "  proc-vmstat:\n"
	    "  meminfo: {}\n"
	    "  perf-profile: ~\n"
	    "requires:\n"
	    "  memory: 32G\n"
	    "  nr_cpu: \"< 64\"\n"
	    "sysctl:\n"
	    "  vm.swappiness: 10\n"
	    "  kernel/numa_balancing_scan_delay_ms: '1000'\n"
	    "kconfig:\n"
	    "  CONFIG_TRANSPARENT_HUGEPAGE: y\n"
	    "  CONFIG_NR_CPUS: 512\n"
	    "run: |\n"
	    "  echo start\n"
	    "  ./usemem --runtime 300 -n 32\n"
	    "...\n";
	struct job	**jobs = NULL;
	size_t		  nr = 0;
	char		 *cause = NULL, *why = NULL;

	if (!ok(parse(text, &jobs, &nr, &cause) == 0, "LKP-style file parses"))
		diag("%s", cause);
	is_int(nr, 1, "LKP-style file is one job");
	if (nr != 1)
		goto out;
	is_int(jobs[0]->runtime, 300, "runtime 5m is 300 seconds");
	is_int(jobs[0]->timeout, 3600, "timeout 1h is 3600 seconds");
	is_int(jobs[0]->runs, 10, "runs 10");
	is_int(jobs[0]->direction, JOB_DIRECTION_LOWER, "direction lower");
	is_str(job_param(jobs[0], "runtime"), "300", "runtime normalised");
	is_str(job_param(jobs[0], "test"), "lru-file-mmap-read", "!!str value");
	is_str(job_param(jobs[0], "size"), "", "quoted empty value kept");
	is_str(job_param(jobs[0], "note"),
	    "it's \"quoted\": yes # not a comment", "single-quoted value");
	is_str(job_param(jobs[0], "unicode"),
	    "caf\xc3\xa9 \xf0\x9f\x98\x80 tab\there", "escapes decoded");
	is_int(jobs[0]->nr_monitors, 3, "monitor map gives three names");
	if (jobs[0]->nr_monitors == 3)
		is_str(jobs[0]->monitors[1], "perf-profile",
		    "monitor map keys sorted");
	is_str(job_param(jobs[0], "requires.memory"), ">=32G",
	    "bare requirement means at least");
	is_str(job_param(jobs[0], "requires.nr_cpu"), "<64",
	    "requirement normalised without spaces");
	is_str(job_param(jobs[0], "sysctl.vm.swappiness"), "10",
	    "dotted sysctl name");
	is_str(job_param(jobs[0],
	    "sysctl.kernel/numa_balancing_scan_delay_ms"), "1000",
	    "slashed sysctl name");
	is_str(job_param(jobs[0], "kconfig.CONFIG_NR_CPUS"), "512",
	    "kconfig value");
	is_str(jobs[0]->run, "echo start\n./usemem --runtime 300 -n 32\n",
	    "block scalar command");
	roundtrip(jobs[0], "LKP-style");

	ok(job_param_requires_met(jobs[0], 2, 32, 64ULL << 30, NULL),
	    "64G 32-cpu machine meets requires");
	ok(!job_param_requires_met(jobs[0], 2, 32, 16ULL << 30, &why),
	    "16G machine does not");
	ok(why != NULL && strstr(why, "'requires.memory'") != NULL,
	    "the reason names requires.memory");
	free(why);
	why = NULL;
	ok(!job_param_requires_met(jobs[0], 2, 64, 64ULL << 30, &why),
	    "64 cpus is not < 64");
	ok(why != NULL && strstr(why, "'requires.nr_cpu'") != NULL,
	    "the reason names requires.nr_cpu");
	free(why);
out:
	job_list_free(jobs, nr);
	free(cause);
}

/* LKP's need_memory: sizes as its filters/need_memory reads them. */
static void
test_need_memory(void)
{
	static const struct {
		const char		*value, *normal;
		unsigned		 nr_cpu;
		unsigned long long	 fits, short_of;
	} t[] = {
		{ "300MB", "300M", 2, 300ULL << 20, (300ULL << 20) - 1 },
		{ "4G", "4G", 2, 4ULL << 30, (4ULL << 30) - 1 },
		{ "2g", "2G", 2, 2ULL << 30, (2ULL << 30) - 1 },
		{ "1024", "1024", 2, 1024, 1023 },
		{ "50%", "50%", 8, 4ULL << 30, (4ULL << 30) - 1 },
		{ "100%", "100%", 3, 3ULL << 30, (3ULL << 30) - 1 },
	};
	struct job	**jobs = NULL;
	char		 *cause = NULL, *why = NULL, *yaml;
	size_t		  nr = 0, i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		yaml = xasprintf("testcase: t\nrun: 'true'\nneed_memory: %s\n",
		    t[i].value);
		if (job_parse("j.yaml", yaml, strlen(yaml), &jobs, &nr,
		    &cause) != 0) {
			ok(0, "need_memory: %s: %s", t[i].value, cause);
			free(cause);
			cause = NULL;
			free(yaml);
			continue;
		}
		is_str(job_param(jobs[0], "need_memory"), t[i].normal,
		    "need_memory: %s normalised", t[i].value);
		ok(job_param_requires_met(jobs[0], 1, t[i].nr_cpu, t[i].fits,
		    NULL), "%s fits %llu bytes", t[i].value, t[i].fits);
		ok(!job_param_requires_met(jobs[0], 1, t[i].nr_cpu,
		    t[i].short_of, &why) && why != NULL && strstr(why,
		    "'need_memory'") != NULL, "%s does not fit one byte less",
		    t[i].value);
		free(why);
		why = NULL;
		job_list_free(jobs, nr);
		jobs = NULL;
		free(yaml);
	}
	yaml = xstrdup("testcase: t\nrun: 'true'\nneed_memory: 4X\n");
	ok(job_parse("j.yaml", yaml, strlen(yaml), &jobs, &nr, &cause) != 0 &&
	    strstr(cause, "j.yaml:3:14: 'need_memory' must be a memory size") !=
	    NULL, "4X is no size: %s", cause ? cause : "");
	free(cause);
	free(yaml);
}

static void
test_load(void)
{
	char		  dir[] = "/tmp/test-jobs-parse.XXXXXX", *path = NULL;
	const char	 *text = "testcase: hackbench\nnr_threads: [1, 2]\n";
	struct job	**jobs = NULL;
	size_t		  nr = 5;
	char		 *cause = NULL;

	if (!ok(mkdtemp(dir) != NULL, "temporary directory"))
		return;
	path = xasprintf("%s/hackbench.yaml", dir);
	ok(file_write_atomic(path, text, strlen(text), &cause) == 0,
	    "write a job file");
	ok(job_load(path, &jobs, &nr, &cause) == 0 && nr == 2,
	    "job_load reads and expands it");
	if (nr == 2)
		is_str(jobs[0]->file, path, "job_load records the path");
	job_list_free(jobs, nr);
	jobs = NULL;
	unlink(path);
	ok(job_load(path, &jobs, &nr, &cause) == -1 && jobs == NULL && nr == 0,
	    "a missing file fails with nothing out");
	ok(cause != NULL && strstr(cause, path) != NULL,
	    "the error names the file");
	free(cause);
	free(path);
	rmdir(dir);
}

struct bad {
	const char	*what;
	const char	*text;
	const char	*prefix;	/* exact "job.yaml:L:C: " */
	const char	*needle;	/* the key, as it must appear */
};

static char	deep[128];

static const struct bad bad[] = {
	{ "top level is a list", "- testcase\n- runs\n",
	  "job.yaml:1:1: ", "'testcase'" },
	{ "top level is a scalar", "dbench\n",
	  "job.yaml:1:1: ", "'testcase'" },
	{ "empty file", "",
	  "job.yaml:1:1: ", "'testcase'" },
	{ "comments only", "# nothing here\n",
	  "job.yaml:1:1: ", "'testcase'" },
	{ "missing testcase", "category: benchmark\nruns: 2\n",
	  "job.yaml:1:1: ", "missing 'testcase'" },
	{ "bad testcase name", "testcase: foo bar\n",
	  "job.yaml:1:11: ", "'testcase'" },
	{ "duplicate key", "testcase: a\nruns: 2\nruns: 3\n",
	  "job.yaml:3:1: ", "duplicate key 'runs' (first at 2:1)" },
	{ "runs not an integer", "testcase: a\nruns: three\n",
	  "job.yaml:2:7: ", "'runs'" },
	{ "runs fractional", "testcase: a\nruns: 1.5\n",
	  "job.yaml:2:7: ", "'runs'" },
	{ "runs 0", "testcase: a\nruns: 0\n",
	  "job.yaml:2:7: ", "'runs'" },
	{ "runs too big", "testcase: a\nruns: 1001\n",
	  "job.yaml:2:7: ", "'runs'" },
	{ "runs a list", "testcase: a\nruns: [1, 2]\n",
	  "job.yaml:2:7: ", "'runs'" },
	{ "bad runtime unit", "testcase: a\nruntime: 5x\n",
	  "job.yaml:2:10: ", "'runtime'" },
	{ "runtime zero", "testcase: a\nruntime: 0s\n",
	  "job.yaml:2:10: ", "'runtime'" },
	{ "timeout too long", "testcase: a\ntimeout: 9999h\n",
	  "job.yaml:2:10: ", "'timeout'" },
	{ "bad direction", "testcase: a\ndirection: up\n",
	  "job.yaml:2:12: ", "'direction'" },
	{ "thp_enabled bad value", "testcase: a\nthp_enabled: sometimes\n",
	  "job.yaml:2:14: ", "'thp_enabled'" },
	{ "thp_defrag bad axis value",
	  "testcase: a\nthp_defrag: [always, eager]\n",
	  "job.yaml:2:22: ", "'thp_defrag'" },
	{ "numa_balancing 2", "testcase: a\nnuma_balancing: 2\n",
	  "job.yaml:2:17: ", "'numa_balancing'" },
	{ "requires not a map", "testcase: a\nrequires: [nr_node]\n",
	  "job.yaml:2:11: ", "'requires'" },
	{ "unknown requires key", "testcase: a\nrequires:\n  nr_gpu: 1\n",
	  "job.yaml:3:3: ", "'requires.nr_gpu'" },
	{ "bad requires comparator",
	  "testcase: a\nrequires: {nr_node: \"=>2\"}\n",
	  "job.yaml:2:21: ", "'requires.nr_node'" },
	{ "bad requires memory unit",
	  "testcase: a\nrequires:\n  memory: 32X\n",
	  "job.yaml:3:11: ", "'requires.memory'" },
	{ "requires value a list",
	  "testcase: a\nrequires:\n  nr_node: [1, 2]\n",
	  "job.yaml:3:12: ", "'requires.nr_node'" },
	{ "sysctl value a map",
	  "testcase: a\nsysctl:\n  vm.swappiness: {a: 1}\n",
	  "job.yaml:3:18: ", "'sysctl.vm.swappiness'" },
	{ "sysctl value empty", "testcase: a\nsysctl:\n  vm.swappiness:\n",
	  "job.yaml:3:17: ", "'sysctl.vm.swappiness'" },
	{ "kconfig bad symbol", "testcase: a\nkconfig: {X86: y}\n",
	  "job.yaml:2:11: ", "'kconfig.X86'" },
	{ "list of scalars and maps", "testcase: a\nnr_threads:\n  - 1\n"
	  "  - {a: 1}\n",
	  "job.yaml:4:5: ", "'nr_threads'" },
	{ "nested list", "testcase: a\nnr_threads: [1, [2, 3]]\n",
	  "job.yaml:2:17: ", "'nr_threads'" },
	{ "map in the testcase's options", "testcase: a\na: {x: {y: 1}}\n",
	  "job.yaml:2:8: ", "'a.x' is a map" },
	{ "empty list", "testcase: a\nnr_task: []\n",
	  "job.yaml:2:10: ", "'nr_task'" },
	{ "value twice in an axis", "testcase: a\nnr_task: [1, 2, 1]\n",
	  "job.yaml:2:17: ", "'nr_task' lists '1' twice" },
	{ "durations equal once normalised",
	  "testcase: a\nruntime: [60s, 1m]\n",
	  "job.yaml:2:16: ", "'runtime' lists '1m' twice" },
	{ "option and key of one name", "testcase: a\ntest: x\na: {test: y}\n",
	  "job.yaml:3:11: ", "'test' is set twice" },
	{ "invalid key", "testcase: a\n\"nr threads\": 2\n",
	  "job.yaml:2:1: ", "'nr threads'" },
	{ "monitors a scalar", "testcase: a\nmonitors: time\n",
	  "job.yaml:2:11: ", "'monitors'" },
	{ "monitors lists a list", "testcase: a\nmonitors: [time, [x]]\n",
	  "job.yaml:2:18: ", "'monitors'" },
	{ "monitors lists a number-like junk",
	  "testcase: a\nmonitors: [time, \"a b\"]\n",
	  "job.yaml:2:18: ", "'monitors'" },
	{ "monitor twice", "testcase: a\nmonitors: [time, meminfo, time]\n",
	  "job.yaml:2:27: ", "'monitors' lists 'time' twice" },
	{ "monitor options", "testcase: a\nmonitors:\n  perf-stat:\n"
	  "    interval: 10\n",
	  "job.yaml:4:5: ", "'monitors.perf-stat'" },
	{ "unterminated quote", "testcase: a\nmetric: \"abc\n",
	  "job.yaml:3:1: ", "while scanning a quoted scalar at 2:9" },
	{ "tab indentation", "testcase: a\nrequires:\n\tnr_node: 2\n",
	  "job.yaml:3:1: ", "cannot start any token" },
	{ "anchor", "testcase: a\nx: &v 1\ny: *v\n",
	  "job.yaml:2:4: ", "anchor '&v'" },
	{ "alias", "testcase: a\nx: [1, *v]\n",
	  "job.yaml:2:8: ", "alias '*v'" },
	{ "tag", "testcase: !!int 5\n",
	  "job.yaml:1:11: ", "tag 'tag:yaml.org,2002:int'" },
	{ "matrix too large",
	  "testcase: a\n"
	  "a: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]\n"
	  "b: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]\n"
	  "c: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]\n"
	  "d: [1,2]\n",
	  "job.yaml:5:4: ", "more than 4096 jobs at 'd'" },
	{ "inline run empty", "testcase: a\nrun: \"  \"\n",
	  "job.yaml:2:6: ", "'run'" },
	{ "inline run null", "testcase: a\nrun:\n",
	  "job.yaml:2:5: ", "'run'" },
	{ "non-scalar metric", "testcase: a\nmetric: {a: b}\n",
	  "job.yaml:2:9: ", "'metric'" },
	{ "metric a list", "testcase: a\nmetric: [a, b]\n",
	  "job.yaml:2:9: ", "'metric'" },
	{ "metric with spaces", "testcase: a\nmetric: \"a b\"\n",
	  "job.yaml:2:9: ", "'metric'" },
	{ "second document a list", "testcase: a\n---\n- x\n",
	  "job.yaml:3:1: ", "document 2 of 2 is a list" },
	{ "invalid UTF-8", "testcase: a\nx: b\xff\n",
	  "job.yaml:2:5: ", "invalid" },
	{ "NUL escape", "testcase: a\nx: \"a\\0b\"\n",
	  "job.yaml:2:4: ", "NUL" },
	{ "complex key", "testcase: a\n? [x]\n: 1\n",
	  "job.yaml:2:3: ", "map key" },
	{ "deep nesting", deep,
	  "job.yaml:2:35: ", "nested deeper than 32" },
};

static void
test_bad(void)
{
	struct job	**jobs;
	size_t		  nr, i;
	char		 *cause;
	int		  r;

	strcpy(deep, "testcase: a\nx: ");
	memset(deep + strlen(deep), '[', 40);
	memset(deep + strlen(deep), ']', 40);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		jobs = (struct job **)&jobs;
		nr = 99;
		cause = NULL;
		r = parse(bad[i].text, &jobs, &nr, &cause);
		ok(r == -1 && jobs == NULL && nr == 0,
		    "%s: fails with nothing out", bad[i].what);
		if (cause == NULL) {
			ok(0, "%s: has a cause", bad[i].what);
			continue;
		}
		if (!ok(strncmp(cause, bad[i].prefix,
		    strlen(bad[i].prefix)) == 0, "%s: at %s", bad[i].what,
		    bad[i].prefix) || !ok(strstr(cause, bad[i].needle) != NULL,
		    "%s: names %s", bad[i].what, bad[i].needle))
			diag("got: %s", cause);
		if (r == 0)
			job_list_free(jobs, nr);
		free(cause);
	}
}

/* Limits that keep a hostile file from eating time or memory. */
static void
test_limits(void)
{
	struct strbuf	  sb = STRBUF_INIT;
	struct job	**jobs = NULL;
	const char	 *want;
	size_t		  nr = 0;
	char		 *cause = NULL;
	int		  i, a, r;

	strbuf_addstr(&sb, "testcase: a\n");
	for (i = 0; i < 10000; i++)
		strbuf_addf(&sb, "k%d: 1\n", i);
	want = "job.yaml:10001:1: more than 10000 keys";
	r = parse(sb.buf, &jobs, &nr, &cause);
	if (!ok(r == -1 && cause != NULL &&
	    strncmp(cause, want, strlen(want)) == 0,
	    "a map of 10001 keys is refused at the last key") && cause != NULL)
		diag("%s", cause);
	free(cause);
	cause = NULL;

	strbuf_reset(&sb);
	strbuf_addstr(&sb, "testcase: a\n");
	for (a = 0; a < 3; a++) {
		strbuf_addf(&sb, "axis%d: [", a);
		for (i = 0; i < 16; i++)
			strbuf_addf(&sb, "%s%d", i ? ", " : "", i);
		strbuf_addstr(&sb, "]\n");
	}
	strbuf_addstr(&sb, "pad: ");
	for (i = 0; i < 20000; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addch(&sb, '\n');
	want = "job.yaml:1:1: the matrix of 4096 jobs is too large";
	r = parse(sb.buf, &jobs, &nr, &cause);
	if (!ok(r == -1 && cause != NULL &&
	    strncmp(cause, want, strlen(want)) == 0,
	    "4096 jobs of a 20 kB file are refused") && cause != NULL)
		diag("%s", cause);
	free(cause);
	strbuf_release(&sb);
}

/*
 * Which parameters a report lists as the testcase's own: those the
 * testcase reads and the settings the job asks for, not how bisectd runs
 * and judges it.
 */
static void
test_testcase_params(void)
{
	const char	*text =
	    "testcase: vm-scalability\n"
	    "category: benchmark\n"
	    "runtime: 300s\n"
	    "timeout: 1h\n"
	    "runs: 3\n"
	    "metric: vm-scalability.throughput\n"
	    "direction: higher\n"
	    "run: ./usemem\n"
	    "test: lru-file-mmap-read\n"
	    "nr_task: 32\n"
	    "cpufreq_governor: performance\n"
	    "thp_enabled: always\n"
	    "thp_defrag: always\n"
	    "numa_balancing: 1\n"
	    "monitors: [meminfo]\n"
	    "requires: { memory: 32G }\n"
	    "sysctl: { vm.swappiness: 10 }\n"
	    "kconfig: { CONFIG_NR_CPUS: 512 }\n";
	static const char *const own[] = {
		"cpufreq_governor", "nr_task", "numa_balancing", "runtime",
		"sysctl.vm.swappiness", "test", "thp_defrag", "thp_enabled",
		NULL
	};
	struct job	**jobs = NULL;
	struct strbuf	  got = STRBUF_INIT, want = STRBUF_INIT;
	size_t		  nr = 0, i;
	char		 *cause = NULL;

	if (!ok(parse(text, &jobs, &nr, &cause) == 0 && nr == 1,
	    "a job with every kind of key parses")) {
		diag("%s", cause ? cause : "(no cause)");
		free(cause);
		return;
	}
	for (i = 0; i < jobs[0]->nr_params; i++) {
		if (job_param_is_testcase(jobs[0]->params[i].key))
			strbuf_addf(&got, "%s ", jobs[0]->params[i].key);
	}
	for (i = 0; own[i] != NULL; i++)
		strbuf_addf(&want, "%s ", own[i]);
	is_str(got.buf, want.buf, "the testcase's own parameters, no more");
	ok(!job_param_is_testcase("metric") && !job_param_is_testcase("run") &&
	    !job_param_is_testcase("direction") &&
	    !job_param_is_testcase("requires.memory") &&
	    !job_param_is_testcase("kconfig.CONFIG_NR_CPUS"),
	    "run, metric, direction, requires and kconfig are bisectd's");
	strbuf_release(&got);
	strbuf_release(&want);
	job_list_free(jobs, nr);
}

int
main(void)
{
	test_testcase_params();
	test_design_example_dbench();
	test_design_example_inline();
	test_lkp_style();
	test_need_memory();
	test_load();
	test_bad();
	test_limits();
	return tap_done();
}
