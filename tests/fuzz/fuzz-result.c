/*
 * libFuzzer target for the parsers of what comes back from test machines:
 * RESULTDIR/result (agents/result.c) and a testcase's output
 * (agents/result-output.c). Whatever parses must format again, and the formatted
 * text must parse to the same text: the file format round-trips.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/result.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result	*r = NULL, *again = NULL;
	char		*cause = NULL, *text = NULL, *text2 = NULL;
	size_t		 len, len2;

	if (result_parse("fuzz", (const char *)data, size, &r, &cause) == 0) {
		if (result_format(r, &text, &len, &cause) != 0)
			abort();
		if (result_parse("again", text, len, &again, &cause) != 0)
			abort();
		if (result_format(again, &text2, &len2, &cause) != 0)
			abort();
		if (len != len2 || memcmp(text, text2, len) != 0)
			abort();
	} else if (cause == NULL)
		abort();
	result_free(r);
	result_free(again);
	free(text);
	free(text2);
	free(cause);

	r = result_new();
	if (result_output_parse(r, "fuzz", (const char *)data, size) < 0)
		abort();
	text = NULL;
	cause = NULL;
	if (result_format(r, &text, &len, &cause) != 0)
		abort();
	free(text);
	free(cause);
	result_free(r);
	return 0;
}
