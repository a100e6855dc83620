/*
 * bisectctl builders [--json]: the scheduler's own builds ("local") and
 * each configured builder (builders:), whether it is in service as the
 * last build there left it, with its counts of builds, failed builds and
 * attempts that ended in an error (bisectd/builder.h). Also the builders
 * section of bisectctl status (cmd_builders_list).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/builder-state.h"
#include "bisectd/cmd.h"

static void
cmd_builders_time(char *buf, size_t len, int64_t t)
{
	time_t		tt = (time_t)t;
	struct tm	tm;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL)
		snprintf(buf, len, "?");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static json_t *
cmd_builders_json(const char *name, const struct config_agent *b,
    int slots, const struct builder_state *bs)
{
	json_t	*o;

	o = json_pack("{s:s, s:s, s:i, s:s, s:I, s:I, s:i, s:i, s:i}", "name",
	    name, "transport", b != NULL ? "ssh" : "local", "slots", slots,
	    "state", builder_state_name(bs->state), "since",
	    (json_int_t)bs->since, "retry_at", (json_int_t)bs->retry_at, "builds", (int)bs->builds, "failed",
	    (int)bs->failed, "errors", (int)bs->errors);
	if (b != NULL) {
		json_object_set_new(o, "host", json_string(b->host));
		json_object_set_new(o, "port", json_integer(b->port));
		json_object_set_new(o, "user", json_string(b->user));
		json_object_set_new(o, "host_key", bs->host_key != NULL ?
		    json_string(bs->host_key) : json_null());
	}
	json_object_set_new(o, "error", bs->error != NULL ?
	    json_string(bs->error) : json_null());
	return o;
}

static void
cmd_builders_print(const char *name, const struct config_agent *b,
    int slots, const struct builder_state *bs, int brief)
{
	char	since[64], at[64];

	if (brief) {
		printf("  %-16s %-6s %-8s %ld builds, %ld failed, %ld "
		    "errors\n", name, b != NULL ? "ssh" : "local",
		    builder_state_name(bs->state),
		    bs->builds, bs->failed, bs->errors);
		return;
	}
	if (b != NULL)
		printf("%s (ssh %s@%s port %d, %d slot%s)", name, b->user,
		    b->host, b->port, slots, slots == 1 ? "" : "s");
	else
		printf("%s (this machine, %d slot%s)", name, slots,
		    slots == 1 ? "" : "s");
	cmd_builders_time(since, sizeof since, bs->since);
	if (bs->state == BUILDER_UNKNOWN)
		printf(": never used");
	else
		printf(": %s since %s", builder_state_name(bs->state), since);
	printf(", %ld build%s, %ld failed, %ld error%s", bs->builds,
	    bs->builds == 1 ? "" : "s", bs->failed, bs->errors,
	    bs->errors == 1 ? "" : "s");
	if (bs->state == BUILDER_DOWN || bs->state == BUILDER_REFUSED) {
		cmd_builders_time(at, sizeof at, bs->retry_at);
		printf(", tried again after %s", at);
	}
	printf("\n");
	if (b != NULL && bs->host_key != NULL)
		printf("  host key: %s\n", bs->host_key);
	if (bs->error != NULL)
		printf("  error: %s\n", bs->error);
}

int
cmd_builders_list(struct context *ctx, json_t *ja, int brief, char **cause)
{
	const struct config		*cfg = ctx->config;
	const struct config_agent	*b;
	struct builder_state		 bs;
	const char			*name;
	size_t				 i;
	int				 slots;

	for (i = 0; i <= cfg->nr_builders; i++) {
		b = i == 0 ? NULL : &cfg->builders[i - 1];
		name = b != NULL ? b->name : BUILDER_LOCAL;
		slots = b != NULL ? b->slots : cfg->build_slots > 0 ?
		    cfg->build_slots : 1;
		if (builder_state_read(cfg->workdir, name, &bs, cause) != 0)
			return -1;
		if (ja != NULL)
			json_array_append_new(ja, cmd_builders_json(name, b,
			    slots, &bs));
		else
			cmd_builders_print(name, b, slots, &bs, brief);
		builder_state_release(&bs);
	}
	return 0;
}

static int
cmd_builders_exec(const char *config, struct cmd_args *args)
{
	struct context	*ctx = NULL;
	char		*cause = NULL;
	json_t		*ja = NULL;
	int		 r, json;

	json = cmd_args_has(args, 'j');
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	r = CMD_FAILED;
	if (json)
		ja = json_array();
	if (cmd_builders_list(ctx, ja, 0, &cause) != 0)
		goto out;
	if (json)
		cmd_print_json(ja);
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	free(cause);
	json_decref(ja);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_builders_entry = {
	.name = "builders",
	.usage = "[--json]",
	.summary = "where builds are made: this machine and each builder",
	.args = { cmd_options_json, 0, 0 },
	.exec = cmd_builders_exec,
};
