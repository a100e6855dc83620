/*
 * bisectctl agents: each configured agent with its inventory, asked of the
 * agent itself (`bisect-agent info` through its transport).
 */
#include <stdio.h>
#include <stdlib.h>

#include "agents/transport.h"
#include "bisectd/cmd.h"

static int
cmd_agents_exec(const char *config, int argc, char **argv)
{
	struct context			*ctx = NULL;
	const struct config_agent	*a;
	struct transport		*tr;
	char				*cause = NULL, *info;
	size_t				 i;
	int				 r, failed = 0;

	if (argc != 1)
		return cmd_usage(&cmd_agents_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	for (i = 0; i < ctx->config->nr_agents; i++) {
		a = &ctx->config->agents[i];
		printf("%s (%s, boot %s, %d slots)\n", a->name, a->transport,
		    a->boot, a->slots);
		tr = NULL;
		info = NULL;
		if (transport_open(a, ctx->agent_path, &tr, &cause) != 0 ||
		    transport_info(tr, &info, &cause) != 0) {
			printf("  unreachable: %s\n", cause);
			failed = 1;
		} else
			printf("%s", info);
		free(cause);
		cause = NULL;
		free(info);
		transport_close(tr);
	}
	context_free(ctx);
	return failed ? CMD_FAILED : CMD_OK;
}

const struct cmd_entry cmd_agents_entry = {
	.name = "agents",
	.usage = "",
	.summary = "agents with their inventory",
	.exec = cmd_agents_exec,
};
