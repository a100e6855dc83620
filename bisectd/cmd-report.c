/*
 * bisectctl report: a concluded bisection's text report; --html DIR writes
 * its page and the index (without an ID, the index alone); --email queues
 * its mail in the outbox and sends what is due when no daemon holds the
 * lock (docs/reports.md, "Delivery: the outbox").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/cmd.h"
#include "bisectd/lock.h"
#include "bisectd/outbox.h"
#include "bisectd/report.h"
#include "bisectd/web.h"

static void
cmd_report_recipients(const char *rcpt)
{
	const char	*p;

	for (p = rcpt; *p != '\0'; p++) {
		if (*p != '\n')
			putchar(*p);
		else if (p[1] != '\0')
			fputs(", ", stdout);
	}
}

static int
cmd_report_email(struct context *ctx, int64_t id)
{
	struct store_mail	 m;
	char			*cause = NULL, *lock = context_lock_path(ctx);
	int64_t			 mail;
	int			 added, fd = -1, held, s, r = CMD_FAILED;

	memset(&m, 0, sizeof m);
	if (outbox_queue(ctx, id, &mail, &added, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		r = CMD_USAGE;
		goto out;
	}
	if (store_mail_get(ctx->store, mail, &m, &cause) != 0)
		goto error;
	if (m.status == STORE_MAIL_SENT) {
		printf("mail: <%s> was sent already; not sending it again\n",
		    m.message_id);
		r = CMD_OK;
		goto out;
	}
	if ((held = lock_try(lock, &fd, &cause)) < 0)
		goto error;
	if (held == 1) {
		printf("mail: <%s> %s; the running scheduler sends it\n",
		    m.message_id, added ? "queued" : "is in the outbox");
		r = CMD_OK;
		goto out;
	}
	/* asked for by name: due now, and a failed mail starts afresh */
	if (outbox_recover(ctx, &cause) != 0 ||
	    store_mail_requeue(ctx->store, mail, &cause) != 0)
		goto error;
	if ((s = outbox_send(ctx, mail, &cause)) < 0)
		goto error;
	if (s == 1) {
		fprintf(stderr, "warning: not delivered yet: %s\n", cause);
		printf("mail: <%s> queued\n", m.message_id);
	} else {
		printf("mail: <%s> sent to ", m.message_id);
		cmd_report_recipients(m.recipients);
		putchar('\n');
	}
	free(cause);
	cause = NULL;
	if (outbox_flush(ctx, &cause) != 0)
		goto error;
	r = CMD_OK;
	goto out;
error:
	fprintf(stderr, "error: %s\n", cause);
out:
	lock_release(fd);
	store_mail_release(&m);
	free(lock);
	free(cause);
	return r;
}

static int
cmd_report_exec(const char *config, struct cmd_args *args)
{
	struct context	*ctx = NULL;
	const char	*html = NULL;
	char		*cause = NULL, *headline = NULL, *body = NULL;
	char		*path = NULL;
	int64_t		 id;
	int		 email, json, r;
	json_t		*jo;

	email = cmd_args_has(args, 'e');
	html = cmd_args_get(args, 'h');
	json = cmd_args_has(args, 'j');
	if (json && (html != NULL || email))
		return cmd_usage(&cmd_report_entry);
	if (args->argc == 0 && html != NULL && !email) {
		if ((r = cmd_open(config, &ctx)) != CMD_OK)
			return r;
		if (web_index_write(ctx, html, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			r = CMD_FAILED;
		} else
			printf("web: wrote %s/index.html\n", html);
		goto out;
	}
	if (args->argc != 1 || cmd_parse_id(args->argv[0], &id) != 0)
		return cmd_usage(&cmd_report_entry);
	if ((r = cmd_open(config, &ctx)) != CMD_OK)
		return r;
	if (html == NULL && !email) {
		if (report_bisection(ctx, id, &headline, &body, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			r = CMD_USAGE;
		} else if (json) {
			jo = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id,
			    "headline", headline, "text", body);
			cmd_print_json(jo);
			json_decref(jo);
		} else
			fputs(body, stdout);
		goto out;
	}
	if (html != NULL) {
		if (web_write(ctx, id, html, &path, &cause) != 0) {
			fprintf(stderr, "error: %s\n", cause);
			r = CMD_USAGE;
			goto out;
		}
		printf("web: wrote %s\n", path);
	}
	if (email)
		r = cmd_report_email(ctx, id);
out:
	free(headline);
	free(body);
	free(path);
	free(cause);
	context_free(ctx);
	return r;
}

static const struct cmd_option cmd_report_options[] = {
	{ "email", 'e', 0 },
	{ "html", 'h', CMD_ARG },
	{ "json", 'j', 0 },
	{ NULL, 0, 0 }
};

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "ID [--email] [--html DIR] | ID --json | --html DIR",
	.summary = "render a bisection's report; mail it; write its web page",
	.args = { cmd_report_options, 0, 1 },
	.exec = cmd_report_exec,
};
