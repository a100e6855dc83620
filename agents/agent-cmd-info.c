/*
 * bisect-agent info [--root DIR]: the machine's inventory as KEY VALUE
 * lines on stdout (agents/inventory.c collects it; docs/agents.md lists
 * the keys). Every file is read under a root: --root DIR, else
 * $BISECT_AGENT_ROOT, else /.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent-cmd.h"
#include "agents/inventory.h"

int
agent_cmd_info(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct inventory		*inv = NULL;
	const char			*root = NULL;
	char				*text = NULL, *cause = NULL;
	int				 c, code = AGENT_EXIT_FAILURE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+r:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		default:
			agent_cmd_usage();
			return AGENT_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		agent_cmd_usage();
		return AGENT_EXIT_USAGE;
	}
	if (inventory_collect(inventory_root(root), &inv, &cause) != 0) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	text = inventory_format(inv);
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		code = agent_cmd_fail(AGENT_EXIT_FAILURE, "couldn't write the "
		    "inventory: %s", strerror(errno));
		goto out;
	}
	code = AGENT_EXIT_OK;
out:
	inventory_free(inv);
	free(text);
	free(cause);
	return code;
}
