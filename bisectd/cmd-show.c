/*
 * bisectctl show: one request (queue, compare or bisect) with what it has
 * produced so far: its jobs and compare tables, or its bisection's result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/cmd.h"

static int
cmd_show_exec(const char *config, int argc, char **argv)
{
	struct context		*ctx = NULL;
	struct store_request	 rq;
	struct store_bisection	 b;
	int64_t			 id;
	char			*cause = NULL, when[32];
	time_t			 t;
	int			 r;

	memset(&rq, 0, sizeof rq);
	memset(&b, 0, sizeof b);
	if (argc != 2 || cmd_parse_id(argv[1], &id) != 0)
		return cmd_usage(&cmd_show_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	if (store_request_get(ctx->store, id, &rq, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_USAGE;
		goto out;
	}
	t = (time_t)rq.created;
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	printf("request %lld: %s, %s\n", (long long)rq.id, rq.kind, rq.status);
	printf("repository: %s\njob file: %s\ncreated: %s\n", rq.repo,
	    rq.job_file, when);
	if (rq.error != NULL)
		printf("error: %s\n", rq.error);
	if (strcmp(rq.kind, "bisect") == 0) {
		if (store_bisection_get(ctx->store, id, &b, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			r = CMD_FAILED;
			goto out;
		}
		printf("good: %s\nbad: %s\nmetric: %s (%s is better)\n",
		    b.good, b.bad, b.metric, b.direction);
		printf("bisection: %s\n", b.status);
		if (b.progress != NULL && strcmp(b.status, "running") == 0)
			printf("%s\n", b.progress);
		if (b.result != NULL)
			printf("result: %s\n", b.result);
		r = CMD_OK;
	} else {
		printf("\n");
		r = cmd_print_compare(ctx, id, 1);
	}
out:
	store_request_release(&rq);
	store_bisection_release(&b);
	free(cause);
	context_free(ctx);
	return r;
}

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "ID",
	.summary = "one request and its results",
	.exec = cmd_show_exec,
};
