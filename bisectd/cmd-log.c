/*
 * bisectctl log: a bisection's tested commits with their final verdicts,
 * in a form `git bisect replay` accepts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "util/strbuf.h"

static int
cmd_log_exec(const char *config, int argc, char **argv)
{
	struct context	*ctx = NULL;
	struct strbuf	 sb = STRBUF_INIT;
	int64_t		 id;
	char		*cause = NULL;
	int		 r;

	if (argc != 2 || cmd_parse_id(argv[1], &id) != 0)
		return cmd_usage(&cmd_log_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	if (report_log(&sb, ctx, id, &cause) != 0) {
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
	.usage = "ID",
	.summary = "a bisection's log, for git bisect replay",
	.exec = cmd_log_exec,
};
