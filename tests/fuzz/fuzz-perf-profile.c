/*
 * libFuzzer target for the perf-profile parser (agents/perf-profile.c),
 * which reads perf report's folded call chains: whatever it makes of the
 * text, every row is a name a result can hold and a share from 0 to 100%,
 * at most PERF_PROFILE_MAX_ROWS of a kind, and the result formats. The
 * System.map symbolizer (perf_profile_symbolize) gets the first half of
 * the input as the map and the second as perf's text: it never reads
 * outside them, and names no more frames than the text has lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/perf-profile.h"
#include "agents/result.h"
#include "util/strbuf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = {
		"perf-profile.self.", "perf-profile.children.",
		"perf-profile.calltrace."
	};
	struct result	*r = result_new();
	char		*cause = NULL, *text = NULL;
	size_t		 i, k, n[3] = { 0, 0, 0 }, len;
	long		 samples;

	samples = perf_profile_parse(r, (const char *)data, size, &cause);
	if ((samples < 0) != (cause != NULL) || samples == 0)
		abort();
	for (i = 0; i < r->nr_metrics; i++) {
		if (!result_name_valid(r->metrics[i].name) ||
		    !(r->metrics[i].value >= 0) ||
		    r->metrics[i].value > 100 + 1e-9 * 3)
			abort();
		for (k = 0; k < 3; k++) {
			if (strncmp(r->metrics[i].name, kinds[k],
			    strlen(kinds[k])) == 0)
				n[k]++;
		}
	}
	for (k = 0; k < 3; k++) {
		if (n[k] > PERF_PROFILE_MAX_ROWS)
			abort();
	}
	free(cause);
	cause = NULL;
	if (result_format(r, &text, &len, &cause) != 0)
		abort();
	free(text);
	free(cause);
	cause = NULL;
	result_free(r);
	{
		struct strbuf	out = STRBUF_INIT;
		size_t		named = 0, half = size / 2, semis = 0;
		int		rc;

		rc = perf_profile_symbolize((const char *)data, half,
		    (const char *)data + half, size - half, &out, &named,
		    &cause);
		if ((rc != 0) != (cause != NULL))
			abort();
		for (i = half; i < size; i++)
			semis += data[i] == ';' || data[i] == '\n';
		if (rc == 0 && named > semis + 1)
			abort();
		strbuf_release(&out);
		free(cause);
	}
	return 0;
}
