/*
 * bisectctl log: a bisection's tested commits with their final verdicts,
 * in a form `git bisect replay` accepts.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "util/strbuf.h"

/* --json: the same steps as one object, the first bad commit if any. */
static int
cmd_log_json(struct context *ctx, int64_t id, char **cause)
{
	struct store_bisection	 b;
	struct store_step	*steps = NULL;
	size_t			 nr = 0, i;
	json_t			*o = NULL, *a, *res = NULL;
	const char		*first_bad = NULL;
	int			 r = -1;

	memset(&b, 0, sizeof b);
	if (store_bisection_get(ctx->store, id, &b, cause) != 0 ||
	    store_bisection_steps(ctx->store, id, &steps, &nr, cause) != 0)
		goto out;
	if (b.result != NULL && (res = json_loads(b.result, 0, NULL)) != NULL)
		first_bad = json_string_value(json_object_get(res, "culprit"));
	a = json_array();
	for (i = 0; i < nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:f}",
		    "commit", steps[i].commit_oid, "verdict", steps[i].verdict,
		    "runs", steps[i].samples, "mean", steps[i].mean));
	o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "id",
	    (json_int_t)id, "metric", b.metric, "direction", b.direction,
	    "good", b.good, "bad", b.bad, "status",
	    store_bisection_status_name(b.status), "steps", a,
	    "first_bad", first_bad != NULL ? json_string(first_bad) :
	    json_null());
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	r = 0;
out:
	json_decref(o);
	json_decref(res);
	store_bisection_release(&b);
	store_bisection_steps_free(steps, nr);
	return r;
}

static int
cmd_log_exec(const char *config, struct cmd_args *args)
{
	struct context	*ctx = NULL;
	struct strbuf	 sb = STRBUF_INIT;
	int64_t		 id;
	char		*cause = NULL;
	int		 r, json;

	json = cmd_args_has(args, 'j');
	if (cmd_parse_id(args->argv[0], &id) != 0)
		return cmd_usage(&cmd_log_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	if (json) {
		if (cmd_log_json(ctx, id, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			r = CMD_USAGE;
		}
	} else if (report_log(&sb, ctx, id, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_USAGE;
	} else
		fputs(sb.buf, stdout);
	strbuf_release(&sb);
	free(cause);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_log_entry = {
	.name = "log",
	.usage = "ID [--json]",
	.summary = "a bisection's log, for git bisect replay",
	.args = { cmd_options_json, 1, 1 },
	.exec = cmd_log_exec,
};
