/*
 * Unit tests for the result's untestable line (agents/result.c): a run
 * that shows its commit cannot be tested at all, such as a kernel that
 * panics at boot, says so, so that the daemon need not retry it. Set,
 * written after the error, read back, and refused when empty or repeated.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/result.h"
#include "tests/unit/tap.h"

static void
test_set(void)
{
	struct result	*r = result_new();

	result_set_untestable(r, "boot failed: %s", "Kernel panic");
	result_set_untestable(r, "a later one");
	is_str(r->untestable, "boot failed: Kernel panic", "the first kept");
	is_str(r->error, "boot failed: Kernel panic", "and it is the error");
	result_free(r);

	r = result_new();
	result_set_error(r, "qemu exited");
	result_set_untestable(r, "boot timed out");
	is_str(r->error, "qemu exited", "an earlier error stays");
	is_str(r->untestable, "boot timed out", "untestable set beside it");
	result_free(r);
}

static void
test_round_trip(void)
{
	struct result	*r = result_new(), *back = NULL;
	char		*text = NULL, *cause = NULL;
	size_t		 len;

	result_set_untestable(r, "kernel panic:\n\"VFS\" \xc3\xa9");
	result_env_set(r, "boot", "qemu");
	ok(result_format(r, &text, &len, &cause) == 0, "formats");
	ok(text != NULL && strstr(text, "\nerror kernel panic:\\n") != NULL &&
	    strstr(text, "\nuntestable kernel panic:\\n\"VFS\" \\xc3\\xa9\n"
	    "env boot qemu\n") != NULL, "untestable after error, escaped");
	ok(result_parse("r", text, len, &back, &cause) == 0, "parses");
	is_str(back != NULL ? back->untestable : NULL,
	    "kernel panic:\n\"VFS\" \xc3\xa9", "read back");
	result_free(back);
	free(text);
	result_free(r);

	r = result_new();
	r->exit_status = 0;
	ok(result_format(r, &text, &len, &cause) == 0 &&
	    strstr(text, "untestable") == NULL, "none: no line");
	ok(result_parse("r", text, len, &back, &cause) == 0 &&
	    back->untestable == NULL, "none read back");
	result_free(back);
	free(text);
	result_free(r);
}

static void
test_malformed(void)
{
	struct {
		const char	*text;
		const char	*cause;
	} t[] = {
		{ "bisect-agent-result 1\nexit_status -1\nuntestable \n",
		    "bad:3: empty 'untestable'" },
		{ "bisect-agent-result 1\nexit_status -1\nuntestable a\n"
		    "untestable b\n", "bad:4: 'untestable' given twice" },
	};
	struct result	*r;
	char		*cause;
	size_t		 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		r = NULL;
		cause = NULL;
		ok(result_parse("bad", t[i].text, strlen(t[i].text), &r,
		    &cause) == -1 && r == NULL, "refused %zu", i);
		ok(cause != NULL && strncmp(cause, t[i].cause,
		    strlen(t[i].cause)) == 0, "cause: %s", cause);
		free(cause);
	}
}

int
main(void)
{
	test_set();
	test_round_trip();
	test_malformed();
	return tap_done();
}
