/*
 * libFuzzer target for adapter files (jobs/program.c) and the reading of
 * a benchmark's output through them (agents/testcase-data.c): the input
 * is read by every built-in program file and by a JSON-records program,
 * its first line is compiled as a line pattern and matched against the
 * others, and the whole input is parsed as a program file; the C
 * adapters' own readers (vm-scalability's usemem lines) read it too.
 * Whatever metrics come out go through the output parser; an error has
 * a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result.h"
#include "agents/testcase.h"
#include "jobs/program.h"
#include "util/strbuf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char fuzz_json[] =
	"program: fuzz\n"
	"argv: [fuzz]\n"
	"output:\n"
	"  json:\n"
	"    records: jobs\n"
	"    vars: {r: read.iops, w: write.bw, l: read.clat_ns.mean}\n"
	"metrics:\n"
	"  iops: {instances: r, aggregate: sum}\n"
	"  bw: {value: \"sum(w) / max(1, count())\", optional: true}\n"
	"  lat: {value: \"mean(l) / 1000\", optional: true}\n";

static void
fuzz_metrics(const struct program *p, const char *buf, size_t len)
{
	struct strbuf	 sb = STRBUF_INIT;
	struct result	*r;
	char		*cause = NULL;

	if (testcase_data_parse_output(p, NULL, buf, len, &sb, &cause) != 0 &&
	    cause == NULL)
		abort();
	r = result_new();
	if (result_output_parse(r, p->name, sb.buf, sb.len) < 0)
		abort();
	result_free(r);
	strbuf_release(&sb);
	free(cause);
}

/* A C adapter's parse of the run's output, as the agent calls it. */
static void
fuzz_c_adapter(const char *name, const char *buf, size_t len)
{
	const struct testcase_adapter	*ad = testcase_find(name);
	struct testcase_ctx		 ctx;
	struct strbuf			 sb = STRBUF_INIT;
	struct result			*r;
	char				*cause = NULL;

	if (ad == NULL || ad->parse == NULL)
		abort();
	memset(&ctx, 0, sizeof ctx);
	if (ad->parse(ad, &ctx, buf, len, &sb, &cause) != 0 && cause == NULL)
		abort();
	r = result_new();
	if (result_output_parse(r, name, sb.buf, sb.len) < 0)
		abort();
	result_free(r);
	strbuf_release(&sb);
	free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct program *const	*t;
	struct program_capture		 caps[PROGRAM_MAX_CAPTURES];
	struct program_line		 pl;
	struct program			*p = NULL;
	const char			*buf = (const char *)data, *nl, *line;
	char				*cause = NULL, *first;
	size_t				 nr, i;

	if (program_table(&t, &nr, &cause) != 0)
		abort();
	fuzz_c_adapter("vm-scalability", buf, size);
	for (i = 0; i < nr; i++)
		fuzz_metrics(t[i], buf, size);
	if (program_parse("fuzz.yaml", fuzz_json, strlen(fuzz_json), &p,
	    &cause) != 0)
		abort();
	fuzz_metrics(p, buf, size);
	program_free(p);
	p = NULL;

	nl = memchr(buf, '\n', size);
	first = strndup(buf, nl != NULL ? (size_t)(nl - buf) : size);
	if (first != NULL && program_line_compile(first, &pl, &cause) == 0) {
		for (line = nl; line != NULL && line < buf + size;
		    line = nl) {
			line++;
			nl = memchr(line, '\n', (size_t)(buf + size - line));
			program_line_match(&pl, line, nl != NULL ?
			    (size_t)(nl - line) : (size_t)(buf + size - line),
			    caps);
		}
		program_line_release(&pl);
	}
	free(first);

	if (program_parse("fuzz.yaml", buf, size, &p, &cause) == 0) {
		fuzz_metrics(p, buf, size);
		program_free(p);
	} else if (cause == NULL)
		abort();
	free(cause);
	return 0;
}
