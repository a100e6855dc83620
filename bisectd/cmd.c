/*
 * What several bisectctl commands share: opening the context with a
 * message, usage errors, progress lines, compare tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/cmd.h"
#include "bisectd/report.h"
#include "schema/store.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int
cmd_open(const char *config, struct context **out)
{
	char	*cause = NULL;

	if (context_open(config, out, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		free(cause);
		return CMD_USAGE;
	}
	return CMD_OK;
}

int
cmd_usage(const struct cmd_entry *entry)
{
	fprintf(stderr, "usage: bisectctl [-c FILE] %s %s\n", entry->name,
	    entry->usage);
	return CMD_USAGE;
}

int
cmd_parse_id(const char *s, int64_t *id)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v <= 0)
		return -1;
	*id = v;
	return 0;
}

void
cmd_progress_tick(struct context *ctx, int64_t request, void *payload)
{
	struct cmd_progress	*p = payload;
	struct store_bisection	 b;

	if (store_bisection_get(ctx->store, request, &b, NULL) != 0)
		return;
	if (b.progress != NULL && (p->last == NULL ||
	    strcmp(p->last, b.progress) != 0)) {
		fprintf(stderr, "%s\n", b.progress);
		free(p->last);
		p->last = xstrdup(b.progress);
	}
	store_bisection_release(&b);
}

/*
 * queue --wait and show: the tables with any drift flagged at the top
 * (compare itself refuses drift unless --allow-drift).
 */
int
cmd_print_compare(struct context *ctx, int64_t request, int all)
{
	struct strbuf	 out = STRBUF_INIT;
	char		*cause = NULL;
	size_t		 missing = 0;
	int		 refused = 0, r = CMD_OK;

	if (report_compare_request(&out, ctx, request, all, 1, &refused,
	    &missing, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_FAILED;
	} else {
		fputs(out.buf, stdout);
		if (missing > 0) {
			fprintf(stderr, "error: request %lld has no samples at "
			    "%zu of its commits: every run there failed\n",
			    (long long)request, missing);
			r = CMD_FAILED;
		}
	}
	strbuf_release(&out);
	free(cause);
	return r;
}
