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

int
cmd_print_compare(struct context *ctx, int64_t request, int all)
{
	struct store_job	  job;
	struct store_series	 *sa = NULL, *sb = NULL;
	struct strbuf		  out = STRBUF_INIT;
	struct store_request	  rq;
	int64_t			 *jobs = NULL;
	char			**oids = NULL, **revs = NULL, *cause = NULL;
	size_t			  nr_jobs = 0, nr_oids = 0, na = 0, nb = 0, i, k;
	int			  r = CMD_FAILED;

	memset(&job, 0, sizeof job);
	memset(&rq, 0, sizeof rq);
	if (store_request_get(ctx->store, request, &rq, &cause) != 0 ||
	    store_request_jobs(ctx->store, request, &jobs, &nr_jobs,
	    &cause) != 0 ||
	    store_request_commits(ctx->store, request, &oids, &revs, &nr_oids,
	    &cause) != 0)
		goto out;
	for (i = 0; i < nr_jobs; i++) {
		store_job_release(&job);
		if (store_job_get(ctx->store, jobs[i], &job, &cause) != 0)
			goto out;
		for (k = 0; k + 1 < nr_oids || (k == 0 && nr_oids == 1); k++) {
			store_series_list_free(sa, na);
			store_series_list_free(sb, nb);
			sa = sb = NULL;
			na = nb = 0;
			if (store_series_all(ctx->store, jobs[i], rq.repo,
			    oids[k], &sa, &na, &cause) != 0 ||
			    store_series_all(ctx->store, jobs[i], rq.repo,
			    oids[nr_oids > 1 ? k + 1 : k], &sb, &nb,
			    &cause) != 0)
				goto out;
			strbuf_addf(&out, "%s%s (job %s)\n\n", i || k ? "\n" :
			    "", job.description, job.job_id);
			report_compare_table(&out, oids[k],
			    oids[nr_oids > 1 ? k + 1 : k], sa, na, sb, nb,
			    job.metric, all);
		}
	}
	fputs(out.buf, stdout);
	r = CMD_OK;
out:
	if (cause != NULL)
		fprintf(stderr, "error: %s\n", cause);
	free(cause);
	store_job_release(&job);
	store_request_release(&rq);
	store_series_list_free(sa, na);
	store_series_list_free(sb, nb);
	free(jobs);
	for (i = 0; i < nr_oids; i++) {
		free(oids[i]);
		free(revs[i]);
	}
	free(oids);
	free(revs);
	strbuf_release(&out);
	return r;
}
