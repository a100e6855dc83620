/*
 * libFuzzer target for the perf-profile parser (agents/perf-profile.c),
 * which reads perf report's folded call chains: whatever it makes of the
 * text, every row is a name a result can hold and a share from 0 to 100%,
 * at most PERF_PROFILE_MAX_ROWS of a kind, and the result formats.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/perf-profile.h"
#include "agents/result.h"

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
	result_free(r);
	return 0;
}
