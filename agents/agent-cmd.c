/*
 * The table of bisect-agent's commands (agents/agent-cmd.h) and what they
 * share: the usage text and the failure line on stderr. "run" is in
 * agents/agent-cmd-run.c, "info" in agents/agent-cmd-info.c, and
 * "vm-scalability" in agents/testcase-vmscale.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agents/agent-cmd.h"
#include "agents/testcase.h"

static const struct agent_cmd_entry agent_cmd_table[] = {
	{ "run", agent_cmd_run },
	{ "info", agent_cmd_info },
	{ "vm-scalability", testcase_vmscale_main },
};

const struct agent_cmd_entry *
agent_cmd_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof agent_cmd_table / sizeof agent_cmd_table[0];
	    i++) {
		if (strcmp(name, agent_cmd_table[i].name) == 0)
			return &agent_cmd_table[i];
	}
	return NULL;
}

void
agent_cmd_usage(void)
{
	fprintf(stderr, "usage: bisect-agent run [--workdir DIR] "
	    "[--boot none|qemu] [--disk KIND=DEVICE|KIND=loop:BYTES]... "
	    "JOBFILE RESULTDIR\n"
	    "       bisect-agent info [--root DIR]\n"
	    "       bisect-agent vm-scalability --nr-task=N --size=BYTES "
	    "[--runtime=S]\n"
	    "       bisect-agent --version\n");
}

int
agent_cmd_fail(int code, const char *fmt, ...)
{
	va_list	ap;

	fputs("bisect-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}
