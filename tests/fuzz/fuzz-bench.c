/*
 * libFuzzer target for the parsers of LKP's benchmarks and monitors: the
 * first byte chooses perf stat's output (agents/monitor-perfstat.c),
 * turbostat's (monitor-turbostat.c), fio's JSON report (testcase-fio.c)
 * or the output of one of the program files read by lines
 * (jobs/library/programs/, through testcase_data_parse_output); the rest is
 * the text. Each must succeed or fail with a message, and what it makes
 * must go through the result file format. The seeds in
 * tests/fuzz/corpus/fuzz-bench are short captures of the real tools'
 * output (perf stat, turbostat's man page example, fio trimmed to its
 * read and write figures, sysbench, redis-benchmark, ...), each after
 * its selector byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor-tool.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "jobs/program.h"
#include "util/strbuf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_check(struct result *r, int ret, char *cause)
{
	char	*text = NULL, *why = NULL;
	size_t	 len;

	if (ret < 0 && cause == NULL)
		abort();
	if (result_format(r, &text, &len, &why) != 0)
		abort();
	free(text);
	free(why);
	free(cause);
	result_free(r);
}

/* Metric lines from a parser: the output parser must take them all. */
static void
fuzz_lines(int ret, struct strbuf *metrics, char *cause)
{
	struct result	*r = result_new();

	if (ret == 0 && result_output_parse(r, "fuzz", metrics->buf,
	    metrics->len) < 0)
		abort();
	strbuf_release(metrics);
	fuzz_check(r, ret, cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct program *const *t;
	struct strbuf	 sb = STRBUF_INIT;
	struct result	*r;
	const char	*text = (const char *)data + 1;
	char		*cause = NULL;
	size_t		 len = size - 1, nr, i, k;
	int		 ret;

	if (size == 0)
		return 0;
	switch (data[0] % 4) {
	case 0:
		r = result_new();
		ret = monitor_perfstat_parse(r, text, len, 1.5, &sb, &cause);
		strbuf_release(&sb);
		fuzz_check(r, ret, cause);
		break;
	case 1:
		r = result_new();
		ret = monitor_turbostat_parse(r, text, len, &cause);
		fuzz_check(r, ret, cause);
		break;
	case 2:
		ret = testcase_fio_parse_json(text, len, &sb, &cause);
		fuzz_lines(ret, &sb, cause);
		break;
	default:
		if (program_table(&t, &nr, NULL) != 0 || nr == 0)
			abort();
		for (i = k = 0; i < nr; i++) {
			if (t[i]->from == NULL && k++ == (size_t)data[0] / 4 %
			    nr)
				break;
		}
		if (i == nr)
			break;
		ret = testcase_data_parse_output(t[i], NULL, text, len, &sb,
		    &cause);
		fuzz_lines(ret == 0 ? 0 : -1, &sb, cause);
		break;
	}
	return 0;
}
