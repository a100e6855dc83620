/*
 * bisectctl agents [--probe]: each configured agent, whether it is in
 * service (as the scheduler last recorded it) and its inventory as cached
 * in the database. An agent never inventoried is asked now; --probe asks
 * every agent now (over a connection of this process) and refreshes the
 * cache. Exits 1 when an agent asked now did not answer.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agents/transport.h"
#include "bisectd/cmd.h"
#include "bisectd/worker.h"

static void
cmd_agents_time(char *buf, size_t len, int64_t t)
{
	time_t		tt = (time_t)t;
	struct tm	tm;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL)
		snprintf(buf, len, "?");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void
cmd_agents_print(const struct config_agent *a, const struct store_agent *row,
    int running)
{
	char		 since[64], at[64];
	const char	*p, *nl;

	if (strcmp(a->transport, "ssh") == 0)
		printf("%s (ssh %s@%s port %d, boot %s, %d slot%s)", a->name,
		    a->user, a->host, a->port, a->boot, a->slots,
		    a->slots == 1 ? "" : "s");
	else
		printf("%s (%s, boot %s, %d slot%s)", a->name, a->transport,
		    a->boot, a->slots, a->slots == 1 ? "" : "s");
	if (row == NULL) {
		printf(": never probed\n");
		return;
	}
	cmd_agents_time(since, sizeof since, row->since);
	printf(": %s since %s", store_agent_state_name(row->state), since);
	if (running > 0)
		printf(", %d run%s running", running, running == 1 ? "" : "s");
	if (row->state == STORE_AGENT_DOWN && row->retry_at > 0) {
		cmd_agents_time(at, sizeof at, row->retry_at);
		printf(", next probe at %s", at);
	}
	printf("\n");
	if (row->error != NULL && row->state != STORE_AGENT_UP)
		printf("  error: %s\n", row->error);
	if (row->inventory == NULL)
		return;
	cmd_agents_time(at, sizeof at, row->inventory_at);
	printf("  inventory (%s):\n", at);
	for (p = row->inventory; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		printf("    %.*s\n", (int)(nl - p), p);
		if (*nl == '\0')
			break;
	}
}

static json_t *
cmd_agents_json(const struct config_agent *a, const struct store_agent *row,
    int running)
{
	json_t	*o;

	o = json_pack("{s:s, s:s, s:s, s:i, s:i}", "name", a->name,
	    "transport", a->transport, "boot", a->boot, "slots", a->slots,
	    "running", running);
	if (strcmp(a->transport, "ssh") == 0) {
		json_object_set_new(o, "host", json_string(a->host));
		json_object_set_new(o, "port", json_integer(a->port));
		json_object_set_new(o, "user", json_string(a->user));
	}
	if (row == NULL) {
		json_object_set_new(o, "state", json_string("never probed"));
		return o;
	}
	json_object_set_new(o, "state",
	    json_string(store_agent_state_name(row->state)));
	json_object_set_new(o, "since", json_integer(row->since));
	json_object_set_new(o, "error", row->error != NULL &&
	    row->state != STORE_AGENT_UP ? json_string(row->error) :
	    json_null());
	json_object_set_new(o, "inventory", row->inventory != NULL ?
	    json_string(row->inventory) : json_null());
	json_object_set_new(o, "inventory_at", json_integer(row->inventory_at));
	return o;
}

static int
cmd_agents_exec(const char *config, struct cmd_args *args)
{
	struct context			*ctx = NULL;
	const struct config_agent	*a;
	struct store_agent		 row;
	char				*cause = NULL;
	size_t				 i;
	int				 r, found, probe, failed = 0;
	int				 running, json;
	json_t				*ja = NULL;

	memset(&row, 0, sizeof row);
	probe = cmd_args_has(args, 'p');
	json = cmd_args_has(args, 'j');
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	r = CMD_FAILED;
	ja = json_array();
	for (i = 0; i < ctx->config->nr_agents; i++) {
		a = &ctx->config->agents[i];
		store_agent_release(&row);
		if (store_agent_get(ctx->store, a->name, &row, &found,
		    &cause) != 0)
			goto out;
		if (probe || !found || row.inventory == NULL) {
			if (worker_probe_now(ctx->store, a, ctx->agent_path,
			    &cause) != 0)
				failed = 1;
			free(cause);
			cause = NULL;
			store_agent_release(&row);
			if (store_agent_get(ctx->store, a->name, &row, &found,
			    &cause) != 0)
				goto out;
		}
		running = 0;
		if (store_run_count_running(ctx->store, a->name, &running,
		    &cause) != 0)
			goto out;
		if (json)
			json_array_append_new(ja, cmd_agents_json(a, found ?
			    &row : NULL, running));
		else
			cmd_agents_print(a, found ? &row : NULL, running);
	}
	if (json) {
		json_dumpf(ja, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	}
	r = failed ? CMD_FAILED : CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	free(cause);
	json_decref(ja);
	store_agent_release(&row);
	context_free(ctx);
	return r;
}

static const struct cmd_option cmd_agents_options[] = {
	{ "probe", 'p', 0 },
	{ "json", 'j', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_agents_entry = {
	.name = "agents",
	.usage = "[--probe] [--json]",
	.summary = "agents: in service or not, and their inventory",
	.args = { cmd_agents_options, 0, 0 },
	.exec = cmd_agents_exec,
};
