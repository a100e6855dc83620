/*
 * Unit tests for adapters as data: the built-in program files load; bad
 * program files are refused at their position; line patterns and
 * expressions; the metrics of dbench's and hackbench's outputs, of JSON
 * records, of {VAR} groups and instances; argv from a job; and
 * testcase_check, which applies or refuses every parameter.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/testcase.h"
#include "jobs/expr.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "jobs/program.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct job *
job(const char *yaml)
{
	struct job	**jobs = NULL;
	struct job	 *j = NULL;
	char		 *cause = NULL;
	size_t		  nr = 0;

	if (job_parse("job.yaml", yaml, strlen(yaml), &jobs, &nr, &cause) !=
	    0 || nr < 1) {
		diag("job: %s", cause ? cause : "no job");
		free(cause);
		job_list_free(jobs, nr);
		return NULL;
	}
	j = jobs[0];
	jobs[0] = NULL;
	job_list_free(jobs, nr);
	return j;
}

static void
test_builtin(void)
{
	const struct program *const	*t;
	const struct metric_info	*mi;
	char				*cause = NULL;
	size_t				 nr = 0;

	ok(program_table(&t, &nr, &cause) == 0, "the built-in program files "
	    "load: %s", cause ? cause : "");
	ok(nr >= 2, "at least dbench and hackbench (%zu)", nr);
	ok(program_find("dbench") != NULL, "dbench is data");
	ok(program_find("hackbench") != NULL, "hackbench is data");
	ok(program_find("will-it-scale") == NULL, "will-it-scale is not");
	ok(testcase_find("dbench") != NULL &&
	    testcase_find("dbench")->data != NULL, "its adapter is the file");
	ok(testcase_find("vm-scalability") != NULL &&
	    testcase_find("vm-scalability")->data == NULL, "vm-scalability "
	    "stays C");
	mi = metric_lookup("dbench.max_latency");
	ok(mi->direction == JOB_DIRECTION_LOWER && mi->min_effect_pct == 5.0,
	    "dbench.max_latency: lower, 5%% from its file");
	mi = metric_lookup("hackbench.throughput");
	ok(mi->direction == JOB_DIRECTION_HIGHER,
	    "hackbench.throughput: higher");
	free(cause);
}

static const char program_ok[] =
	"program: p\n"
	"params:\n"
	"  n: {type: count, default: 100%}\n"
	"argv: [p, \"{n}\"]\n"
	"output:\n"
	"  lines: ['x {v}']\n"
	"metrics:\n"
	"  v: v\n";

static void
test_bad_files(void)
{
	static const struct {
		const char	*text;
		const char	*want;
	} cases[] = {
		{ "program: q\nargv: [q]\noutput: {lines: ['{v}']}\n"
		  "metrics: {v: v}\n",
		  "p.yaml:1:10: program 'q' is in a file named 'p.yaml': they "
		  "must agree" },
		{ "program: p\nargs: [p]\n",
		  "p.yaml:2:1: unknown key 'args' in a program file (known: "
		  "program, package, description, programs, params, mkdir, setup, "
		  "repeat, repeat_for, argv, output, metrics)" },
		{ "program: p\nparams: {n: {type: number}}\nargv: [p]\n",
		  "p.yaml:2:20: parameter 'n': 'type' must be count, size, "
		  "duration, integer, word, string or file" },
		{ "program: p\nparams: {n: {type: count, default: lots}}\n"
		  "argv: [p]\n",
		  "p.yaml:2:36: 'n' must be a count or a percentage of the CPUs "
		  "(like 4 or 100%), not 'lots'" },
		{ "program: p\nparams: {m: {type: word}}\nargv: [p]\n",
		  "p.yaml:2:13: parameter 'm' is a word without 'choices'" },
		{ "program: p\nparams: {s: {type: file, default: /x, required: "
		  "why}}\nargv: [p]\n",
		  "p.yaml:2:49: parameter 's': 'required' (why a job must give "
		  "it) is for a parameter without a default" },
		{ "program: p\nargv: [p, \"{x}\"]\n",
		  "p.yaml:2:11: template '{x}' uses '{x}', which is neither a "
		  "parameter of 'p' nor a built-in" },
		{ "program: p\nargv: [p, {if: y, then: [-y]}]\n",
		  "p.yaml:2:16: condition 'y': 'y' is not a parameter of 'p'" },
		{ "program: p\nargv: [p]\noutput: {lines: ['a {v']}\n",
		  "p.yaml:3:18: pattern 'a {v': a '{' without '}' (write '{{')" },
		{ "program: p\nargv: [p]\noutput: {lines: ['{v} {v}']}\n",
		  "p.yaml:3:18: pattern '{v} {v}' captures 'v' twice" },
		{ "program: p\nargv: [p]\noutput: {lines: ['{v}']}\n"
		  "metrics: {v: w + 1}\n",
		  "p.yaml:4:14: 'w + 1' uses 'w', which no pattern captures as "
		  "a number" },
		{ "program: p\nargv: [p]\noutput: {lines: ['{v}']}\n"
		  "metrics: {v: {instances: sum(v)}}\n",
		  "p.yaml:4:26: 'instances' is one value per record: no "
		  "aggregate in 'sum(v)'" },
		{ "program: p\nargv: [p]\noutput: {lines: ['{v}']}\n"
		  "metrics: {v: 'sum(v'}\n",
		  "p.yaml:4:14: expression 'sum(v': expected ',' or ')' at "
		  "column 6" },
		{ "program: p\nargv: [p]\noutput: {lines: ['{v}']}\n"
		  "metrics: {'{w}.v': v}\n",
		  "p.yaml:4:11: metric '{w}.v': 'w' is not a {NAME:word} "
		  "capture" },
		{ "program: p\nparams: {nr_cpu: {type: count}}\nargv: [p]\n",
		  "p.yaml:2:10: parameter 'nr_cpu' has the name of a built-in" },
	};
	struct program	*p = NULL;
	char		*cause = NULL;
	size_t		 i;

	ok(program_parse("p.yaml", program_ok, strlen(program_ok), &p,
	    &cause) == 0, "a small program parses: %s", cause ? cause : "");
	program_free(p);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		p = NULL;
		free(cause);
		cause = NULL;
		ok(program_parse("p.yaml", cases[i].text,
		    strlen(cases[i].text), &p, &cause) == -1 && p == NULL,
		    "bad file %zu refused", i);
		is_str(cause, cases[i].want, "bad file %zu: its message", i);
	}
	free(cause);
}

static void
test_lines(void)
{
	struct program_capture	caps[PROGRAM_MAX_CAPTURES];
	struct program_line	pl;
	char			*cause = NULL;

	ok(program_line_compile("Throughput {mbs} MB/sec{}", &pl,
	    &cause) == 0, "compiles");
	ok(program_line_match(&pl, "Throughput 397.51 MB/sec  2 clients", 35,
	    caps) && caps[0].number == 397.51, "a number, then any text");
	ok(program_line_match(&pl, "  Throughput 1e3 MB/sec\r\n", 25, caps) &&
	    caps[0].number == 1000, "blanks at the ends, an exponent");
	ok(!program_line_match(&pl, "Throughput x MB/sec", 19, caps),
	    "not a number");
	ok(!program_line_match(&pl, "Throughput  MB/sec", 18, caps),
	    "no number");
	program_line_release(&pl);

	ok(program_line_compile("{}a{}b{}c{x}", &pl, &cause) == 0,
	    "three skips");
	ok(program_line_match(&pl, "zzazzbzzc-7", 11, caps) &&
	    caps[0].number == -7, "matched, negative");
	ok(!program_line_match(&pl, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 73, caps), "fails fast");
	program_line_release(&pl);

	ok(program_line_compile("{name:word}   = {v} {{x}}", &pl,
	    &cause) == 0, "a word, blanks, escaped braces");
	ok(program_line_match(&pl, "read\t=  5 {x}", 13, caps) &&
	    caps[0].word_len == 4 && strncmp(caps[0].word, "read", 4) == 0 &&
	    caps[1].number == 5, "word and number");
	ok(!program_line_match(&pl, "read=5 {x}", 10, caps),
	    "the blank is required");
	program_line_release(&pl);

	ok(program_line_compile("\"{test:word}\",\"{rps}\"", &pl,
	    &cause) == 0, "CSV");
	ok(program_line_match(&pl, "\"SET\",\"12345.67\"", 16, caps) &&
	    caps[0].word_len == 3 && caps[1].number == 12345.67,
	    "a word is the shortest that fits: %.*s", (int)caps[0].word_len,
	    caps[0].word);
	program_line_release(&pl);

	ok(program_line_compile("{a}{}", &pl, &cause) == 0, "a capture, {}");
	program_line_release(&pl);
	ok(program_line_compile("{}{}", &pl, &cause) == -1,
	    "two {} in a row refused: %s", cause ? cause : "");
	free(cause);
}

static int
lookup(void *payload, size_t record, const char *name, double *out,
    char **cause)
{
	static const double	v[] = { 1, 2, 3, 10 };

	if (strcmp(name, "x") == 0) {
		*out = record == EXPR_LATEST ? 10 : v[record];
		return 0;
	}
	if (strcmp(name, "y") == 0 && record == 1) {
		*out = 5;
		return 0;
	}
	return EXPR_UNSET;
}

static double
eval(const char *text, int *r)
{
	struct expr_env	 env = { lookup, NULL, 4, 1 };
	struct expr	*e = NULL;
	char		*cause = NULL;
	double		 v = -12345;

	*r = expr_parse(text, &e, &cause);
	if (*r == 0)
		*r = expr_eval(e, &env, &v, &cause);
	expr_free(e);
	free(cause);
	return v;
}

static void
test_expr(void)
{
	int	r;

	ok(eval("1 + 2 * 3", &r) == 7 && r == 0, "precedence");
	ok(eval("(1 + 2) * -3", &r) == -9 && r == 0, "parentheses, minus");
	ok(eval("max(1, floor(7 / 2))", &r) == 3 && r == 0, "max, floor");
	ok(eval("sum(x)", &r) == 16 && r == 0, "sum over records");
	ok(eval("mean(x)", &r) == 4 && r == 0, "mean");
	ok(eval("median(x)", &r) == 2.5 && r == 0, "median");
	ok(eval("min(x) + max(x)", &r) == 11 && r == 0, "min, max of one");
	ok(eval("count()", &r) == 4 && r == 0, "count");
	ok(eval("sum(x) / max(1, count())", &r) == 4 && r == 0,
	    "an aggregate inside max of two");
	ok(eval("last(x) - first(x)", &r) == 9 && r == 0, "first, last");
	ok(eval("sum(y)", &r) == 5 && r == 0, "records without y skipped");
	ok(eval("x", &r) == 10 && r == 0, "bare name: the latest");
	eval("y", &r);
	ok(r == EXPR_UNSET, "an unset name");
	eval("1 / (x - 10)", &r);
	ok(r == -1, "division by zero");
	eval("sum(sum(x))", &r);
	ok(r == -1, "nested aggregates refused");
	eval("nope(x)", &r);
	ok(r == -1, "unknown function");
	eval("1 +", &r);
	ok(r == -1, "truncated");
}

static char *
metrics_of(const char *program, const char *out, const char *resultdir)
{
	struct program	*p = NULL;
	struct strbuf	 sb = STRBUF_INIT;
	char		*cause = NULL;

	if (program_parse("t.yaml", program, strlen(program), &p,
	    &cause) != 0) {
		diag("program: %s", cause);
		free(cause);
		return xstrdup("(no program)");
	}
	if (testcase_data_parse_output(p, resultdir, out, strlen(out), &sb,
	    &cause) != 0)
		strbuf_addf(&sb, "error: %s\n", cause);
	free(cause);
	program_free(p);
	return strbuf_detach(&sb, NULL);
}

static void
test_metrics(void)
{
	const struct program	*db = program_find("dbench");
	const struct program	*hb = program_find("hackbench");
	struct strbuf		 sb = STRBUF_INIT;
	char			*cause = NULL, *m, *dir, *path;
	char			 tmpl[] = "/tmp/test-testcase-data-XXXXXX";
	static const char	 dbench_out[] =
		"   2     11045   392.13 MB/sec  execute   1 sec  latency "
		"12.345 ms\n"
		"Operation      Count    AvgLat    MaxLat\n"
		"Throughput 397.51 MB/sec  2 clients  2 procs  "
		"max_latency=21.443 ms\n";
	static const char	 hackbench_out[] =
		"Running in process mode with 1 groups using 40 file "
		"descriptors each (== 40 tasks)\n"
		"Each sender will pass 200 messages of 100 bytes\n"
		"Time: 0.25\n"
		"Running in threaded mode with 1 groups using 40 file "
		"descriptors each (== 40 tasks)\n"
		"Each sender will pass 200 messages of 100 bytes\n"
		"Time: 0.75\n";

	ok(testcase_data_parse_output(db, NULL, dbench_out, strlen(dbench_out),
	    &sb, &cause) == 0, "dbench's output: %s", cause ? cause : "");
	is_str(sb.buf, "throughput-MB/sec: 397.50999999999999\n"
	    "max_latency: 21.443000000000001\n", "dbench's two metrics");
	strbuf_reset(&sb);
	ok(testcase_data_parse_output(db, NULL, "no summary\n", 11, &sb,
	    &cause) == -1 && strcmp(cause, "dbench printed no value for "
	    "'throughput-MB/sec': 'mbs' has no value") == 0,
	    "no summary: %s", cause);
	strbuf_reset(&sb);
	ok(testcase_data_parse_output(hb, NULL, hackbench_out,
	    strlen(hackbench_out), &sb, &cause) == 0, "hackbench's output");
	/* 40 * 200 * 100 / 1024 KiB, at the best iteration (0.25 s) */
	ok(strstr(sb.buf, "\nthroughput: 3125\n") != NULL &&
	    strstr(sb.buf, "throughput_avg: 1562.5\n") != NULL &&
	    strstr(sb.buf, "throughput_worst: 1041.6666666666667\n") != NULL,
	    "hackbench: LKP's throughput at the best, mean and worst "
	    "iteration: %s", sb.buf);
	strbuf_release(&sb);

	m = metrics_of("program: t\nargv: [t]\noutput:\n  lines:\n"
	    "    - 'task {i}: {kbs} KB/s'\n"
	    "metrics:\n  throughput: {instances: kbs, aggregate: sum}\n"
	    "  median: median(kbs)\n",
	    "task 0: 10 KB/s\nnoise\ntask 1: 30 KB/s\ntask 2: 20 KB/s\n", NULL);
	is_str(m, "throughput.0: 10\nthroughput.1: 30\nthroughput.2: 20\n"
	    "median: 20\n", "instances, one per matching line");
	free(m);

	m = metrics_of("program: t\nargv: [t]\noutput:\n  lines:\n"
	    "    - '{op:word} {ns} ns'\n"
	    "metrics:\n  '{op}.ns': {value: mean(ns), direction: lower}\n"
	    "  'x{op}': {value: count(), optional: true}\n",
	    "read 10 ns\nwrite 30 ns\nread 20 ns\n", NULL);
	is_str(m, "read.ns: 15\nwrite.ns: 30\nxread: 2\nxwrite: 1\n",
	    "one metric per word, over its records");
	free(m);

	m = metrics_of("program: t\nargv: [t]\noutput:\n  lines: ['{v}']\n"
	    "metrics:\n  a: {value: v, optional: true}\n  b: v\n", "x\n",
	    NULL);
	ok(strstr(m, "error: t printed no value for 'b'") != NULL &&
	    strstr(m, "a:") == NULL, "optional skipped, required an error");
	free(m);

	dir = mkdtemp(tmpl);
	path = path_join(dir, "out.json");
	m = xstrdup("{\"jobs\": [{\"read\": {\"iops\": 100.5}, "
	    "\"write\": {\"iops\": 7}}, {\"read\": {\"iops\": 99.5}}]}");
	file_write_atomic(path, m, strlen(m), NULL);
	free(m);
	m = metrics_of("program: t\nargv: [t]\noutput:\n"
	    "  from: '{resultdir}/out.json'\n"
	    "  json:\n    records: jobs\n"
	    "    vars: {r: read.iops, w: write.iops}\n"
	    "metrics:\n  read_iops: {instances: r, aggregate: sum}\n"
	    "  write_iops: sum(w)\n  last_read: r\n", "", dir);
	is_str(m, "read_iops.0: 100.5\nread_iops.1: 99.5\nwrite_iops: 7\n"
	    "last_read: 99.5\n", "JSON records");
	free(m);
	file_write_atomic(path, "{\"jobs\": 3}", 11, NULL);
	m = metrics_of("program: t\nargv: [t]\noutput:\n"
	    "  from: '{resultdir}/out.json'\n"
	    "  json:\n    records: jobs\n    vars: {r: read.iops}\n"
	    "metrics:\n  r: r\n", "", dir);
	is_str(m, "error: its JSON output has no array or object at 'jobs'\n",
	    "not an array");
	free(m);
	file_write_atomic(path, "{\"end\": {\"sum\": {\"bps\": 8e9}}}", 30,
	    NULL);
	m = metrics_of("program: t\nargv: [t]\noutput:\n"
	    "  from: '{resultdir}/out.json'\n"
	    "  json:\n    records: end\n    vars: {bps: sum.bps}\n"
	    "metrics:\n  Mbps: bps / 1e6\n", "", dir);
	is_str(m, "Mbps: 8000\n", "an object is one record");
	free(m);
	free(path);
	dir_remove_tree(dir, NULL);
	free(cause);
}

static char *
command_of(const char *name, const char *yaml, unsigned nr_cpu)
{
	const struct testcase_adapter	*ad = testcase_find(name);
	struct testcase_argv		 argv = { NULL, 0 };
	struct testcase_ctx		 ctx;
	struct strbuf			 sb = STRBUF_INIT;
	struct job			*j = job(yaml);
	char				*cause = NULL;
	size_t				 i;

	memset(&ctx, 0, sizeof ctx);
	ctx.job = j;
	ctx.workdir = "/tmp";
	ctx.resultdir = "/tmp";
	ctx.nr_cpu = nr_cpu;
	if (ad == NULL || j == NULL) {
		job_free(j);
		return xstrdup("(none)");
	}
	if (ad->command(ad, &ctx, &argv, &cause) != 0 ||
	    (ad->data != NULL && testcase_data_wrap(ad, &ctx, &argv,
	    &cause) != 0))
		strbuf_addf(&sb, "error: %s", cause);
	for (i = 0; i < argv.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", argv.v[i]);
	testcase_argv_release(&argv);
	free(cause);
	job_free(j);
	return strbuf_detach(&sb, NULL);
}

static void
test_command(void)
{
	char	*s;

	s = command_of("hackbench", "testcase: hackbench\nnr_threads: 2\n"
	    "loops: 200\nmode: threads\nipc: pipe\n", 4);
	ok(strstr(s, "/bin/sh -c ") == s && strstr(s, " hackbench-run "
	    "/tmp/setup.log R 1 11 hackbench -g 2 -f 20 -s 100 -l 200 -T "
	    "-p") != NULL, "hackbench's argv, LKP's: %s", s);
	free(s);
	s = command_of("hackbench", "testcase: hackbench\nnr_threads: 50%\n"
	    "iterations: 3\n", 4);
	ok(strstr(s, "/bin/sh -c ") == s && strstr(s, " hackbench-run "
	    "/tmp/setup.log R 3 9 hackbench -g 2 -f 20 -s 100 -l 60000") !=
	    NULL, "repeat, a default of an expression (30000 * 4 / 2): %s", s);
	free(s);
	s = command_of("hackbench", "testcase: hackbench\nfds: 10\n"
	    "datasize: 512\n", 4);
	ok(strstr(s, " R 1 9 hackbench -g 4 -f 10 -s 512 -l 30000") != NULL,
	    "fds and datasize given: %s", s);
	free(s);
	s = command_of("dbench", "testcase: dbench\nnr_threads: 3\n"
	    "runtime: 2m\nloadfile: /nonexistent/client.txt\n", 4);
	is_str(s, "error: 'loadfile' names '/nonexistent/client.txt', which "
	    "does not exist", "a file the job names must exist");
	free(s);
	s = command_of("dbench", "testcase: dbench\nnr_threads: 3\n"
	    "runtime: 2m\nloadfile: /dev/null\n", 4);
	is_str(s, "dbench -t 120 -D /tmp/dbench -c /dev/null 3",
	    "dbench's argv");
	free(s);
	s = command_of("vm-scalability", "testcase: vm-scalability\n"
	    "test: anon-r-rand\nnr_task: 2\nsize: 1M\n", 4);
	ok(strstr(s, " vm-scalability --test=anon-r-rand --nr-task=2 "
	    "--size=1048576 --runtime=300") != NULL, "vm-scalability, LKP's "
	    "runtime of 300 s when the job has none: %s", s);
	free(s);
}

/* Run a program's wrapped argv in dir; its stdout in dir/out. */
static int
run_wrapped(const char *program, const char *yaml, const char *dir,
    char **err)
{
	struct testcase_adapter	 ad;
	struct testcase_argv	 argv = { NULL, 0 };
	struct testcase_ctx	 ctx;
	struct program		*p = NULL;
	struct job		*j = job(yaml);
	char			*cause = NULL, *out, *errpath;
	pid_t			 pid;
	int			 st = -1, fd;

	*err = NULL;
	if (program_parse("w.yaml", program, strlen(program), &p, &cause) != 0 ||
	    j == NULL) {
		*err = cause;
		job_free(j);
		return -1;
	}
	memset(&ad, 0, sizeof ad);
	ad.name = "w";
	ad.package = "w-pkg";
	ad.data = p;
	memset(&ctx, 0, sizeof ctx);
	ctx.job = j;
	ctx.workdir = dir;
	ctx.resultdir = dir;
	ctx.nr_cpu = 2;
	if (testcase_data_command(&ad, &ctx, &argv, &cause) != 0) {
		*err = cause;
		goto out;
	}
	out = testcase_which(argv.v[0]);
	free(argv.v[0]);
	argv.v[0] = out;
	if (testcase_data_wrap(&ad, &ctx, &argv, &cause) != 0) {
		*err = cause;
		goto out;
	}
	out = path_join(dir, "out");
	errpath = path_join(dir, "err");
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		if (chdir(dir) != 0)
			_exit(126);
		execv(argv.v[0], argv.v);
		_exit(127);
	}
	free(out);
	free(errpath);
	waitpid(pid, &st, 0);
	kill(-pid, SIGKILL);
out:
	testcase_argv_release(&argv);
	program_free(p);
	job_free(j);
	return st;
}

static char *
slurp(const char *dir, const char *name)
{
	char	*path = path_join(dir, name), *buf = NULL;
	size_t	 len;

	if (file_read(path, &buf, &len, NULL) != 0)
		buf = NULL;
	free(path);
	return buf;
}

static void
test_setup(void)
{
	static const char	 program[] =
		"program: w\n"
		"params:\n"
		"  msg: {type: string, default: 'a b; $(touch pwned) `touch "
		"pwned2`'}\n"
		"  n: {type: count, default: 2}\n"
		"setup:\n"
		"  - [sh, -c, 'printf \"%s\\n\" \"$1\" > \"$2\"', x, '{msg}', "
		"'{workdir}/in']\n"
		"  - {background: [sh, -c, 'echo up > \"$1\"; exec sleep 30', "
		"x, '{workdir}/ready']}\n"
		"  - {wait: [test, -e, '{workdir}/ready'], tries: 200}\n"
		"repeat: '{n}'\n"
		"argv: [cat, '{workdir}/in']\n"
		"output: {lines: ['{v}']}\n"
		"metrics: {v: v}\n";
	char			 tmpl[] = "/tmp/test-testcase-setup-XXXXXX";
	char			*dir = mkdtemp(tmpl), *err = NULL, *s, *path;
	int			 st;

	st = run_wrapped(program, "testcase: w\n", dir, &err);
	ok(st == 0, "setup, a server, a wait, then argv twice (%d): %s", st,
	    err ? err : "");
	s = slurp(dir, "out");
	is_str(s, "a b; $(touch pwned) `touch pwned2`\n"
	    "a b; $(touch pwned) `touch pwned2`\n", "the value passed as it is, "
	    "twice");
	free(s);
	path = path_join(dir, "pwned");
	ok(!file_exists(path), "no value became shell syntax");
	free(path);

	st = run_wrapped("program: w\nsetup: [[sh, -c, 'exit 3']]\n"
	    "argv: [cat, /dev/null]\noutput: {lines: ['{v}']}\n"
	    "metrics: {v: v}\n", "testcase: w\n", dir, &err);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 3, "a failing step fails the "
	    "run with its status (%d)", st);
	s = slurp(dir, "err");
	ok(s != NULL && strstr(s, "setup: ") != NULL && strstr(s, "/sh "
	    "failed") != NULL, "and says which");
	free(s);

	st = run_wrapped("program: w\nsetup: [{wait: [test, -e, nope], "
	    "tries: 3}]\nargv: [cat, /dev/null]\noutput: {lines: ['{v}']}\n"
	    "metrics: {v: v}\n", "testcase: w\n", dir, &err);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a wait that is never ready "
	    "fails (%d)", st);
	s = slurp(dir, "err");
	ok(s != NULL && strstr(s, "/test not ready after 3 tries") != NULL,
	    "and says so");
	free(s);

	st = run_wrapped("program: w\nsetup: [[no-such-program-here]]\n"
	    "argv: [cat, /dev/null]\noutput: {lines: ['{v}']}\n"
	    "metrics: {v: v}\n", "testcase: w\n", dir, &err);
	is_str(err, "setup needs 'no-such-program-here', which is not "
	    "installed (Debian package w-pkg)", "a step's program is looked "
	    "up first");
	free(err);
	dir_remove_tree(dir, NULL);
}

static void
test_describe(void)
{
	struct job	*j;
	char		*s = NULL, *cause = NULL;

	j = job("testcase: hackbench\nnr_threads: 80\nmode: threads\n"
	    "iterations: 3\n");
	ok(testcase_describe(j, 8, &s, &cause) == 0, "described: %s",
	    cause ? cause : "");
	is_str(s, "hackbench -g 80 -f 20 -s 100 -l 3000 -T (3 times)", "hackbench");
	free(s);
	job_free(j);
	j = job("testcase: dbench\nnr_threads: 50%\nloadfile: /dev/null\n");
	ok(testcase_describe(j, 8, &s, &cause) == 0, "described");
	is_str(s, "dbench -t 60 -D WORKDIR/dbench -c /dev/null 4",
	    "dbench at 50%% of 8 CPUs, nothing created");
	ok(!file_exists("WORKDIR"), "no work directory made");
	free(s);
	job_free(j);
	j = job("testcase: t\nrun: ./bench --it 'a b'\n");
	ok(testcase_describe(j, 8, &s, &cause) == 0, "inline");
	is_str(s, "./bench --it 'a b'", "its command");
	free(s);
	job_free(j);
	j = job("testcase: stress-ng\ntest: cpu\nruntime: 5s\n");
	ok(testcase_describe(j, 2, &s, &cause) == 0, "a C adapter");
	is_str(s, "stress-ng --cpu 2 --timeout 5s --temp-path WORKDIR "
	    "--metrics-brief --yaml RESULTDIR/stress-ng.yaml", "stress-ng");
	free(s);
	job_free(j);
	free(cause);
}

static const char *
validate(const char *yaml)
{
	static char	*last;
	struct job	**jobs = NULL;
	size_t		  nr = 0, i;
	char		 *cause = NULL;

	free(last);
	last = NULL;
	if (job_parse("job.yaml", yaml, strlen(yaml), &jobs, &nr,
	    &cause) != 0) {
		last = cause;
		return last;
	}
	for (i = 0; i < nr && cause == NULL; i++)
		testcase_check(jobs[i], &cause);
	job_list_free(jobs, nr);
	last = cause != NULL ? cause : xstrdup("ok");
	return last;
}

static void
test_validate(void)
{
	char	*names, *want;

	is_str(validate("testcase: dbench\nnr_threads: 2\nruntime: 5s\n"
	    "runs: 3\ntimeout: 1m\nmonitors: [time]\nthp_enabled: never\n"
	    "cpufreq_governor: performance\nsysctl: {vm.swappiness: 1}\n"
	    "requires: {nr_cpu: 1}\nkconfig: {CONFIG_X: y}\n"), "ok",
	    "every kind of key");
	is_str(validate("testcase: dbench\ntimout: 10s\n"),
	    "job.yaml:2:1: unknown parameter 'timout' for testcase 'dbench': "
	    "did you mean 'timeout'?", "timout");
	is_str(validate("testcase: dbench\nruns: 1\nrnus: 5\n"),
	    "job.yaml:3:1: unknown parameter 'rnus' for testcase 'dbench': "
	    "did you mean 'runs'?", "rnus: a transposition");
	is_str(validate("testcase: dbench\nmonitor: [time]\n"),
	    "job.yaml:2:1: unknown parameter 'monitor' for testcase 'dbench': "
	    "did you mean 'monitors'?", "monitor is not an axis");
	is_str(validate("testcase: dbench\nnr_thread: 2\n"),
	    "job.yaml:2:1: unknown parameter 'nr_thread' for testcase "
	    "'dbench': did you mean 'nr_threads'?", "a testcase's own name");
	is_str(validate("testcase: dbench\nwhatever: 2\n"),
	    "job.yaml:2:1: unknown parameter 'whatever' for testcase 'dbench' "
	    "(it takes nr_threads, runtime, loadfile; bisectd's keys and the "
	    "knobs are in docs/jobs.md)", "nothing near: the list");
	is_str(validate("testcase: hackbench\nruntime: 10s\n"), "ok",
	    "hackbench takes a runtime (LKP's run_for_time)");
	is_str(validate("testcase: hackbench\nruntime_s: 10s\n"),
	    "job.yaml:2:1: unknown parameter 'runtime_s' for testcase "
	    "'hackbench': did you mean 'runtime'?", "and says so");
	names = testcase_names();
	want = xasprintf("job.yaml:1:1: testcase 'will-it-scale' has no 'run:' "
	    "command and no adapter (known: %s)", names);
	ok(strstr(names, "dbench, ") != NULL &&
	    strstr(names, "hackbench, ") != NULL, "the known adapters: %s",
	    names);
	is_str(validate("testcase: will-it-scale\nnr_task: 2\n"), want,
	    "no adapter, no run");
	free(want);
	free(names);
	is_str(validate("testcase: vm-scalability\n"
	    "test: [anon-r-rand, migrate]\n"),
	    "job.yaml:2:1: testcase 'vm-scalability': test 'migrate' is "
	    "not one that bisect-agent's built-in vm-scalability worker "
	    "does: it moves a file's pages between NUMA nodes with "
	    "numactl's migratepages, which the built-in worker does not "
	    "do (it does anon-cow-rand, anon-cow-rand-hugetlb, "
	    "anon-cow-rand-mt, anon-cow-seq, anon-cow-seq-hugetlb, "
	    "anon-cow-seq-mt, anon-r-rand, anon-r-rand-mt, anon-r-seq, "
	    "anon-r-seq-mt, anon-rx-rand-mt, anon-rx-seq-mt, "
	    "anon-w-rand, anon-w-rand-hugetlb, anon-w-rand-mt, "
	    "anon-w-seq, anon-w-seq-hugetlb, anon-w-seq-mt, "
	    "anon-wx-rand-mt, anon-wx-seq-mt, lru-file-mmap-read, "
	    "lru-file-mmap-read-rand, lru-file-readonce, "
	    "lru-file-readtwice, lru-shm, lru-shm-rand, mmap-pread-rand, "
	    "mmap-pread-rand-mt, mmap-pread-seq, mmap-pread-seq-mt, "
	    "mmap-xread-rand-mt, mmap-xread-seq-mt, "
	    "mremap-xread-rand-mt, msync, msync-mt, shm-pread-rand, "
	    "shm-pread-rand-mt, shm-pread-seq, shm-pread-seq-mt, "
	    "shm-xread-rand, shm-xread-rand-mt, shm-xread-seq, "
	    "shm-xread-seq-mt, small-allocs, small-allocs-mt, truncate, "
	    "truncate-seq)",
	    "a vm-scalability case it does not do, with "
	    "the reason");
	is_str(validate("testcase: vm-scalability\ntest: anon-w-rand\n"
	    "nr_task: 2\nsize: 16M\nthp: madvise\n"), "ok",
	    "a case it does");
	is_str(validate("testcase: hackbench\nloops: [10, many]\n"),
	    "job.yaml:2:1: testcase 'hackbench': 'loops' must be an integer, "
	    "not 'many'",
	    "a value of the wrong type");
	is_str(validate("testcase: stress-ng\nnr_threads: 1\n"),
	    "job.yaml:1:1: testcase 'stress-ng': stress-ng needs 'test': the "
	    "stressor to run (cpu, vm, fork, ...)", "stress-ng without test");
	is_str(validate("testcase: t\nrun: env\nnr_threads: 4\nflavour: xfs\n"
	    "runtime: 5m\n"), "ok", "an inline testcase takes any name");
	is_str(validate("testcase: fio-basic\ndisk: 1SSD\nfs: xfs\n"
	    "mount_option: noatime\n"), "ok", "disk, fs, mount_option");
	is_str(validate("testcase: t\nrun: env\ndisk: 2HDD\n"), "ok",
	    "an inline run takes raw disks, every one");
	is_str(validate("testcase: fio-basic\ndisk: 2HDD\nfs: xfs\n"),
	    "job.yaml:2:1: testcase 'fio-basic': 'disk' is 2 disks: the "
	    "testcase's adapter runs in one mount point, so 1 of them would be "
	    "unused (an inline 'run:' gets them all in $mount_points)",
	    "an adapter takes one disk");
	is_str(validate("testcase: fio-basic\nfs: tmpfs\nmount_option: "
	    "a b\n"), "job.yaml:3:1: testcase 'fio-basic': 'mount_option' "
	    "must be mount options like 'noatime,nobarrier' (letters, digits, "
	    "_ = , . : + -), not 'a b'", "mount options are words");
	is_str(validate("testcase: fio-basic\ndisk: 1HDD\nfs: zfs\n"),
	    "job.yaml:3:1: testcase 'fio-basic': 'fs' is 'zfs', not a file "
	    "system bisect-agent makes (ext2, ext3, ext4, xfs, btrfs, tmpfs)",
	    "a file system it does not make");
	is_str(validate("testcase: t\nrun: env\ntimout: 4\n"),
	    "job.yaml:3:1: unknown parameter 'timout' for testcase 't': did "
	    "you mean 'timeout'? (an inline testcase receives its parameters "
	    "as environment variables, but not one this close to a bisectd "
	    "key)", "but not a misspelt bisectd key");
	is_str(validate("testcase: t\nrun: env\nnr-threads: 4\n"),
	    "job.yaml:3:1: parameter 'nr-threads' of inline testcase 't' "
	    "cannot reach its 'run:' command: names of environment variables "
	    "are lowercase letters, digits and '_', starting with a letter",
	    "a name no environment can carry");
	is_str(validate("testcase: t\nrun: env\nnr_cpu: 4\n"),
	    "job.yaml:3:1: 'nr_cpu' is the agent's (it is set from the "
	    "machine): it cannot be a parameter", "nr_cpu is the agent's");
	is_str(validate("testcase: dbench\nmonitors: [tme]\n"),
	    "job.yaml:2:11: 'monitors' lists 'tme', which bisect-agent does "
	    "not have: did you mean 'time'?", "an unknown monitor");
	is_str(validate("testcase: dbench\ncpufreq_governor: Perf!\n"),
	    "job.yaml:2:1: testcase 'dbench': 'cpufreq_governor' must be a "
	    "governor name (performance, powersave, ...), not 'Perf!'",
	    "a governor that is not a name");
	is_str(validate("testcase: dbench\nmetric: dbench.throughput\n"),
	    "job.yaml:2:1: metric 'dbench.throughput' is not one testcase "
	    "'dbench' reports: did you mean 'dbench.throughput-MB/sec'?",
	    "a misspelt headline metric");
	is_str(validate("testcase: stress-ng\ntest: cpu\n"
	    "metric: stress-ng.cpu.ops_per_sec\n"), "ok",
	    "a C adapter's metric by its glob");
	is_str(validate("testcase: hackbench\nmetric: time.elapsed_time\n"),
	    "ok", "a monitor's metric is not the adapter's to check");
	validate("testcase: t\nrun: x\n");
}

/*
 * vm-scalability's C reader against LKP's parse, worked by hand: two
 * runs of the case are two samples (sums 40 and 60, upper medians 30
 * and 40), one run keeps its tasks as instances and LKP's stddev% of
 * one sample (the tasks' deviation with 1/n, times their count, over
 * their mean).
 */
static const char *
vmscale_line(const char *text, const char *key)
{
	static char	v[64];
	const char	*p = text;
	size_t		 n = strlen(key);

	for (; p != NULL; p = strchr(p, '\n'), p = p != NULL ? p + 1 : p) {
		if (strncmp(p, key, n) == 0 && p[n] == ':' && p[n + 1] == ' ') {
			snprintf(v, sizeof v, "%.*s", (int)strcspn(p + n + 2,
			    "\n"), p + n + 2);
			return v;
		}
	}
	return "(none)";
}

static void
test_vmscale_parse(void)
{
	static const char	two[] =
	    "repeat count: 2\n./case-anon-w-seq\n"
	    "100 bytes / 10 usecs = 30 KB/s\n200 bytes / 10 usecs = 10 KB/s\n"
	    "./case-anon-w-seq\n..300 bytes / 10 usecs = 20 KB/s\n"
	    "400 bytes / 10 usecs = 40 KB/s\n";
	static const char	one[] =
	    "./case-anon-r-rand\n1024 bytes / 1 usecs = 10 KB/s\n"
	    "2048 bytes / 1 usecs = 20 KB/s\n4096 bytes / 1 usecs = 60 KB/s\n";
	const struct testcase_adapter	*ad = testcase_find("vm-scalability");
	struct testcase_ctx		 ctx;
	struct strbuf			 sb = STRBUF_INIT;
	char				*cause = NULL;

	memset(&ctx, 0, sizeof ctx);
	ok(ad->parse(ad, &ctx, two, strlen(two), &sb, &cause) == 0,
	    "two samples parse");
	is_str(vmscale_line(sb.buf, "throughput"), "50", "two: the mean sum");
	is_str(vmscale_line(sb.buf, "stddev%"), "20", "two: LKP's stddev%%");
	is_str(vmscale_line(sb.buf, "median"), "35", "two: the mean median");
	is_close(strtod(vmscale_line(sb.buf, "median_stddev%"), NULL),
	    100.0 * 5 / 35, 1e-12, "two: LKP's median_stddev%%");
	is_str(vmscale_line(sb.buf, "workload"), "0.9765625", "two: KiB");
	ok(strstr(sb.buf, "throughput.") == NULL, "two: no instances");
	strbuf_reset(&sb);
	ok(ad->parse(ad, &ctx, one, strlen(one), &sb, &cause) == 0,
	    "one sample parses");
	ok(strncmp(sb.buf, "throughput: 90\nthroughput.0: 10\nthroughput.1: "
	    "20\nthroughput.2: 60\n", 66) == 0, "one: the tasks as instances");
	is_close(strtod(vmscale_line(sb.buf, "stddev%"), NULL),
	    sqrt(1400.0 / 3) * 3 / 30 * 100, 1e-12, "one: LKP's stddev%% of "
	    "one sample");
	is_str(vmscale_line(sb.buf, "median"), "20", "one: the upper median");
	is_str(vmscale_line(sb.buf, "median_stddev%"), "0", "one: 0");
	is_str(vmscale_line(sb.buf, "workload"), "7", "one: KiB");
	strbuf_reset(&sb);
	ok(ad->parse(ad, &ctx, "./case-x\n", 9, &sb, &cause) == -1 &&
	    cause != NULL, "no usemem line: an error");
	free(cause);
	strbuf_release(&sb);
}

int
main(void)
{
	test_vmscale_parse();
	test_builtin();
	test_bad_files();
	test_lines();
	test_expr();
	test_metrics();
	test_command();
	test_setup();
	test_describe();
	test_validate();
	return tap_done();
}
