/*
 * Unit tests for agents/result.c and agents/result-output.c: the result file
 * round trip, malformed files rejected with their line number, and the
 * testcase-output parser (plain metrics, instances by number and by
 * repetition, aggregates, lines that are not metrics).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/result.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct result *
sample_result(void)
{
	struct result		*r = result_new();
	struct result_metric	*m;

	r->exit_status = 3;
	result_set_error(r, "testcase said \"no\\way\"\n\tand\x01 \xc3\xa9");
	result_set_error(r, "a later error is a consequence");
	result_env_set(r, "kernel", "6.1.0-18-amd64");
	result_env_set(r, "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1  ro ");
	result_env_set(r, "empty", "");
	result_env_set(r, "kernel", "6.1.0-21-amd64");
	m = result_metric(r, "dbench.throughput-MB/sec");
	m->value = 25692.125;
	m = result_metric(r, "vm-scalability.throughput");
	result_metric_add_instance(m, 0.1);
	result_metric_add_instance(m, -0.0);
	result_metric_add_instance(m, 1e-300);
	result_metric_add_instance(m, DBL_MAX);
	result_metric_add_instance(m, 1.0 / 3);
	m->value = 12345678901234567.0;
	m = result_metric(r, "sched_debug.cfs_rq:/.load.avg");
	m->value = -42;
	return r;
}

static int
same_result(const struct result *a, const struct result *b)
{
	size_t	i, j;

	if (a->exit_status != b->exit_status || a->nr_metrics !=
	    b->nr_metrics || a->nr_env != b->nr_env)
		return 0;
	if ((a->error == NULL) != (b->error == NULL) ||
	    (a->error != NULL && strcmp(a->error, b->error) != 0))
		return 0;
	for (i = 0; i < a->nr_env; i++) {
		if (strcmp(a->env[i].key, b->env[i].key) != 0 ||
		    strcmp(a->env[i].value, b->env[i].value) != 0)
			return 0;
	}
	for (i = 0; i < a->nr_metrics; i++) {
		if (strcmp(a->metrics[i].name, b->metrics[i].name) != 0 ||
		    memcmp(&a->metrics[i].value, &b->metrics[i].value,
		    sizeof(double)) != 0 ||
		    a->metrics[i].nr_instances != b->metrics[i].nr_instances)
			return 0;
		for (j = 0; j < a->metrics[i].nr_instances; j++) {
			if (memcmp(&a->metrics[i].instances[j],
			    &b->metrics[i].instances[j], sizeof(double)) != 0)
				return 0;
		}
	}
	return 1;
}

static void
test_round_trip(void)
{
	struct result	*r = sample_result(), *back = NULL, *loaded = NULL;
	char		 tmpl[] = "/tmp/bisectd-test-result.XXXXXX";
	char		*dir = mkdtemp(tmpl), *sub, *text = NULL, *cause = NULL;
	size_t		 len;

	is_str(r->error, "testcase said \"no\\way\"\n\tand\x01 \xc3\xa9",
	    "the first error is kept");
	is_str(result_env_get(r, "kernel"), "6.1.0-21-amd64",
	    "env_set replaces a key");
	is_int(r->nr_env, 3, "three env keys");
	ok(result_metric_find(r, "nope") == NULL, "find of a missing metric");

	ok(result_format(r, &text, &len, &cause) == 0, "format");
	ok(strncmp(text, "bisect-agent-result 1\nexit_status 3\nerror ",
	    42) == 0, "header, exit status and error come first");
	ok(strstr(text, "\nmetric dbench.throughput-MB/sec 25692.125\n") !=
	    NULL, "a plain metric line");
	ok(strstr(text, "\ninstance vm-scalability.throughput 0 0.1\n") !=
	    NULL, "shortest round-trip form of 0.1");
	ok(strstr(text, "\\n\\tand\\x01 \\xc3\\xa9\n") != NULL,
	    "control and non-ASCII bytes escaped");
	ok(strstr(text, "\nenv empty \n") != NULL, "empty value");
	ok(result_parse("t", text, len, &back, &cause) == 0,
	    "parse what format wrote");
	ok(back != NULL && same_result(r, back), "round trip is exact");

	sub = xasprintf("%s/r", dir);
	ok(result_save(sub, r, &cause) == 0, "save creates the directory");
	ok(result_load(sub, &loaded, &cause) == 0, "load");
	ok(loaded != NULL && same_result(r, loaded), "save/load round trip");
	free(cause);
	cause = NULL;
	ok(result_load(dir, &loaded, &cause) == -1 && cause != NULL &&
	    strstr(cause, "/result") != NULL, "load without a file names it");

	r->metrics[0].value = NAN;
	free(cause);
	cause = NULL;
	free(text);
	text = NULL;
	ok(result_format(r, &text, &len, &cause) == -1 && cause != NULL &&
	    strstr(cause, "dbench.throughput-MB/sec") != NULL,
	    "format refuses a non-finite value");
	r->metrics[0].value = 1;
	free(r->metrics[0].name);
	r->metrics[0].name = xstrdup("has space");
	ok(result_format(r, &text, &len, &cause) == -1,
	    "format refuses a name with a space");
	ok(result_save(sub, r, &cause) == -1, "save refuses it too");
	ok(!result_name_valid("") && !result_name_valid("a\tb") &&
	    result_name_valid("a:b/c%"), "name validity");

	dir_remove_tree(dir, NULL);
	free(sub);
	free(text);
	free(cause);
	result_free(r);
	result_free(back);
	result_free(loaded);
	result_free(NULL);
}

struct bad_case {
	const char	*text;
	const char	*want;		/* in the cause, after "bad:" */
};

static const struct bad_case bad_cases[] = {
	{ "", "bad: empty result" },
	{ "hello\n", "bad:1: not a bisect-agent result" },
	{ "bisect-agent-result 2\nexit_status 0\n",
	    "bad:1: unsupported result version '2'" },
	{ "bisect-agent-result 1\nexit_status 0", "bad:2: no newline" },
	{ "bisect-agent-result 1\n", "bad: no 'exit_status' line" },
	{ "bisect-agent-result 1\nexit_status 0\nexit_status 0\n",
	    "bad:3: 'exit_status' given twice" },
	{ "bisect-agent-result 1\nexit_status 256\n",
	    "bad:2: exit_status '256'" },
	{ "bisect-agent-result 1\nexit_status -2\n", "bad:2: exit_status" },
	{ "bisect-agent-result 1\nexit_status 007\n", "bad:2: exit_status" },
	{ "bisect-agent-result 1\nexit_status 0\n\n",
	    "bad:3: empty line" },
	{ "bisect-agent-result 1\nexit_status 0\n metric a 1\n",
	    "bad:3: empty line or leading space" },
	{ "bisect-agent-result 1\nexit_status 0\nfoo bar\n",
	    "bad:3: unknown keyword 'foo'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a nan\n",
	    "bad:3: 'a': value 'nan' is not a finite" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a inf\n",
	    "bad:3: 'a': value 'inf'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1e999\n",
	    "bad:3: 'a': value '1e999'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 0x10\n",
	    "bad:3: 'a': value '0x10'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1.\n",
	    NULL },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1e\n",
	    "bad:3: 'a': value '1e'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a \n",
	    "bad:3: expected 'metric NAME VALUE'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1 2\n",
	    "bad:3: expected 'metric NAME VALUE'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a  1\n",
	    "bad:3:" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1\nmetric a 2\n",
	    "bad:4: metric 'a' given twice" },
	{ "bisect-agent-result 1\nexit_status 0\ninstance a 0 1\n",
	    "bad:3: instance of metric 'a' before its 'metric' line" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1\n"
	    "instance a 1 1\n", "bad:4: metric 'a': instance 1 out of order" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1\n"
	    "instance a 0 1\ninstance a 0 2\n",
	    "bad:5: metric 'a': instance 0 out of order" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1\n"
	    "instance a -1 1\n", "bad:4: metric 'a': instance index '-1'" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a 1\n"
	    "instance a 99999999 1\n", "bad:4: metric 'a': instance index" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k a\\qb\n",
	    "bad:3: bad escape" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k a\\x4\n",
	    "bad:3: bad escape" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k a\\\n",
	    "bad:3: bad escape" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k a\\x00b\n",
	    "bad:3: '\\x00' is not allowed" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k a\tb\n",
	    "bad:3: byte 0x09 not allowed" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k a\xc3\xa9\n",
	    "bad:3: byte 0xc3 not allowed" },
	{ "bisect-agent-result 1\nexit_status 0\nenv k 1\nenv k 2\n",
	    "bad:4: env 'k' given twice" },
	{ "bisect-agent-result 1\nexit_status 0\r\n", "bad:2: byte 0x0d" },
	{ "bisect-agent-result 1\nexit_status 0\nerror \n",
	    "bad:3: empty 'error'" },
	{ "bisect-agent-result 1\nexit_status 0\nerror a\nerror b\n",
	    "bad:4: 'error' given twice" },
	{ "bisect-agent-result 1\nexit_status 0\nmetric a\0 1\n",
	    "bad:3: byte 0x00" },
};

static void
test_malformed(void)
{
	const struct bad_case	*c;
	struct result		*r;
	struct strbuf		 sb = STRBUF_INIT;
	char			*cause;
	size_t			 i, len;
	int			 ret;

	for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		c = &bad_cases[i];
		r = NULL;
		cause = NULL;
		len = strlen(c->text);
		if (i == sizeof bad_cases / sizeof bad_cases[0] - 1)
			len = sizeof "bisect-agent-result 1\nexit_status 0\n"
			    "metric a\0 1\n" - 1;
		ret = result_parse("bad", c->text, len, &r, &cause);
		if (c->want == NULL) {
			ok(ret == 0 && r != NULL, "case %zu parses", i);
		} else {
			ok(ret == -1 && r == NULL && cause != NULL &&
			    strncmp(cause, c->want, strlen(c->want)) == 0,
			    "case %zu: '%s'", i, c->want);
			if (cause != NULL && strncmp(cause, c->want,
			    strlen(c->want)) != 0)
				diag("got '%s'", cause);
		}
		result_free(r);
		free(cause);
	}

	/* Limits: a name of 256 bytes, a line of 64 KiB + 1. */
	strbuf_addstr(&sb, "bisect-agent-result 1\nexit_status 0\nmetric ");
	for (i = 0; i < 256; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addstr(&sb, " 1\n");
	cause = NULL;
	r = NULL;
	ok(result_parse("bad", sb.buf, sb.len, &r, &cause) == -1 &&
	    cause != NULL && strstr(cause, "bad:3: metric name must be") ==
	    cause, "name over 255 bytes refused");
	free(cause);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "bisect-agent-result 1\nexit_status 0\nerror ");
	for (i = 0; i < RESULT_MAX_LINE; i++)
		strbuf_addch(&sb, 'e');
	strbuf_addch(&sb, '\n');
	cause = NULL;
	ok(result_parse("bad", sb.buf, sb.len, &r, &cause) == -1 &&
	    cause != NULL && strstr(cause, "bad:3: line longer") == cause,
	    "line over 64 KiB refused");
	free(cause);
	strbuf_release(&sb);
}

/* Many metrics and instances: parsed in well under quadratic time. */
static void
test_large(void)
{
	struct strbuf	 sb = STRBUF_INIT;
	struct result	*r = NULL;
	char		*cause = NULL;
	size_t		 i;
	int		 n;

	strbuf_addstr(&sb, "bisect-agent-result 1\nexit_status 0\n");
	for (i = 0; i < 50000; i++)
		strbuf_addf(&sb, "metric m%zu %zu\n", i, i);
	strbuf_addstr(&sb, "metric big 1\n");
	for (i = 0; i < 20000; i++)
		strbuf_addf(&sb, "instance big %zu %zu.5\n", i, i);
	ok(result_parse("large", sb.buf, sb.len, &r, &cause) == 0,
	    "50000 metrics and 20000 instances parse");
	ok(r != NULL && r->nr_metrics == 50001 &&
	    r->metrics[50000].nr_instances == 20000 &&
	    r->metrics[50000].instances[19999] == 19999.5,
	    "all of them kept");
	result_free(r);

	strbuf_reset(&sb);
	for (i = 0; i < 50000; i++)
		strbuf_addf(&sb, "m%zu: %zu\n", i, i);
	r = result_new();
	n = result_output_parse(r, "big", sb.buf, sb.len);
	is_int(n, 50000, "50000 output metrics");
	ok(r->nr_metrics == 50000 && strcmp(r->metrics[49999].name,
	    "big.m49999") == 0, "in order of appearance");
	result_free(r);
	strbuf_release(&sb);
}

static double
value_of(const struct result *r, const char *name)
{
	const struct result_metric	*m = result_metric_find(r, name);

	return m != NULL ? m->value : NAN;
}

static size_t
instances_of(const struct result *r, const char *name)
{
	const struct result_metric	*m = result_metric_find(r, name);

	return m != NULL ? m->nr_instances : (size_t)-1;
}

static void
test_output(void)
{
	const char	*out =
	    "Starting benchmark\n"
	    "ops_per_sec: 1500.5\n"
	    "elapsed: 2.25 s\n"				/* a unit: no */
	    "Throughput 1234.5 MB/sec 8 clients\n"	/* dbench's own: no */
	    "  indented: 7\n"				/* leading blank: no */
	    "nospace:7\n"				/* no blank: no */
	    "12: 30\n"					/* not a name: no */
	    "two words: 3\n"				/* blank in name: no */
	    "hex: 0x10\n"				/* not decimal: no */
	    "nan: nan\n"
	    "huge: 1e999\n"
	    "pair: 1 2\n"
	    "crlf: 4\r\n"
	    "tabbed:\t-5e-1\t\n"
	    "throughput.1: 200\n"
	    "throughput.0: 100\n"
	    "throughput.3: 400\n"
	    "latency: 10\n"
	    "latency: 20\n"
	    "latency: 60\n"
	    "runs_per_sec: 1\n"
	    "runs_per_sec: 2\n"
	    "node_throughput.0: 5\n"
	    "node_throughput.1: 7\n"
	    "node_throughput: 11\n"
	    "dup.0: 1\n"
	    "dup.0: 3\n"
	    "dup.1: 5\n"
	    "v.1234567890: 5\n"				/* 10 digits: a name */
	    "16_size_block_Kbps: 8\n"			/* LKP's openssl-speed */
	    "12.5: 3\n"					/* no letter: no */
	    "last: 9";					/* no final newline */
	const struct result_metric	*m;
	struct result			*r = result_new();
	int				 n;

	result_metric(r, "micro.crlf")->value = -1;
	n = result_output_parse(r, "micro", out, strlen(out));
	is_int(n, 20, "metric lines taken");
	is_close(value_of(r, "micro.ops_per_sec"), 1500.5, 1e-15,
	    "plain line is the value");
	is_int(instances_of(r, "micro.ops_per_sec"), 0,
	    "one plain line has no instances");
	ok(result_metric_find(r, "micro.elapsed") == NULL,
	    "a unit after the number: not a metric");
	ok(result_metric_find(r, "micro.indented") == NULL &&
	    result_metric_find(r, "micro.nospace") == NULL &&
	    result_metric_find(r, "micro.12") == NULL &&
	    result_metric_find(r, "micro.hex") == NULL &&
	    result_metric_find(r, "micro.nan") == NULL &&
	    result_metric_find(r, "micro.huge") == NULL &&
	    result_metric_find(r, "micro.pair") == NULL,
	    "lines of other shapes ignored");
	is_close(value_of(r, "micro.crlf"), 4, 1e-15,
	    "CRLF accepted; output replaces an existing metric");
	is_close(value_of(r, "micro.tabbed"), -0.5, 1e-15, "tabs as blanks");

	m = result_metric_find(r, "micro.throughput");
	ok(m != NULL && m->nr_instances == 3, "numbered instances");
	ok(m != NULL && m->nr_instances == 3 && m->instances[0] == 100 &&
	    m->instances[1] == 200 && m->instances[2] == 400,
	    "ordered by instance number, gaps closed");
	is_close(value_of(r, "micro.throughput"), 700, 1e-15,
	    "throughput instances sum");

	m = result_metric_find(r, "micro.latency");
	ok(m != NULL && m->nr_instances == 3 && m->instances[0] == 10 &&
	    m->instances[2] == 60, "repeated lines are instances in order");
	is_close(value_of(r, "micro.latency"), 30, 1e-15,
	    "latency instances average");
	is_close(value_of(r, "micro.runs_per_sec"), 1.5, 1e-15,
	    "unknown metrics average");

	is_int(instances_of(r, "micro.node_throughput"), 2,
	    "numbered instances next to a plain line");
	is_close(value_of(r, "micro.node_throughput"), 11, 1e-15,
	    "an explicit plain line gives the value");
	m = result_metric_find(r, "micro.dup");
	ok(m != NULL && m->nr_instances == 2 && m->instances[0] == 3 &&
	    m->instances[1] == 5, "a repeated instance number keeps the last");
	ok(result_metric_find(r, "micro.v.1234567890") != NULL,
	    "ten digits make a name, not an instance");
	is_close(value_of(r, "micro.16_size_block_Kbps"), 8, 1e-15,
	    "a name may start with a digit when it holds a letter");
	ok(result_metric_find(r, "micro.12.5") == NULL &&
	    result_metric_find(r, "micro.12") == NULL,
	    "digits alone are not a name");
	is_close(value_of(r, "micro.last"), 9, 1e-15,
	    "last line without a newline");
	ok(strcmp(r->metrics[0].name, "micro.crlf") == 0 &&
	    strcmp(r->metrics[1].name, "micro.ops_per_sec") == 0,
	    "existing metrics first, then order of appearance");
	result_free(r);

	r = result_new();
	n = result_output_parse(r, NULL, "a: 1\n", 5);
	ok(n == 1 && result_metric_find(r, "a") != NULL,
	    "no testcase: bare names");
	n = result_output_parse(r, "t", "", 0);
	is_int(n, 0, "empty output");
	result_free(r);
}

int
main(void)
{
	test_round_trip();
	test_malformed();
	test_large();
	test_output();
	return tap_done();
}
