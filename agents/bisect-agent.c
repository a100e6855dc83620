/*
 * bisect-agent, the program that runs on a test machine (DESIGN §3.5):
 * "run" takes one expanded job as a file and writes its result, "info"
 * prints the machine's inventory (docs/agents.md). This file dispatches
 * the command; the commands are in the table of agents/agent-cmd.c.
 */
#include <stdio.h>
#include <string.h>

#include "agents/agent-cmd.h"
#include "agents/inventory.h"

int
main(int argc, char **argv)
{
	const struct agent_cmd_entry	*cmd;

	if (argc < 2) {
		agent_cmd_usage();
		return AGENT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("bisect-agent %s\n", BISECT_AGENT_VERSION);
		return AGENT_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		agent_cmd_usage();
		return AGENT_EXIT_OK;
	}
	if ((cmd = agent_cmd_find(argv[1])) != NULL)
		return cmd->exec(argc - 1, argv + 1);
	fprintf(stderr, "bisect-agent: unknown command '%s'\n", argv[1]);
	agent_cmd_usage();
	return AGENT_EXIT_USAGE;
}
