/*
 * The outbox: queue a report's mail once, send it over SMTP with libcurl,
 * retry it with backoff. The order of the writes (queue, claim, send, mark
 * sent) keeps "nothing lost, nothing sent twice" as far as SMTP lets it;
 * docs/design.md, "File notes", says how and where a copy can go out.
 */
#include <curl/curl.h>
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/mail.h"
#include "bisectd/outbox.h"
#include "bisectd/patchid.h"
#include "bisectd/repo.h"
#include "bisectd/report.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define OUTBOX_CONNECT_TIMEOUT	10L
#define OUTBOX_TIMEOUT		120L

/* Whether this process already requeued the attempts of dead senders. */
static int	outbox_recovered;

int64_t
outbox_backoff(int attempts)
{
	int64_t	s = OUTBOX_BACKOFF_MIN;

	while (--attempts > 0 && s < OUTBOX_BACKOFF_MAX)
		s *= 2;
	return s < OUTBOX_BACKOFF_MAX ? s : OUTBOX_BACKOFF_MAX;
}

/*
 * A culprit of continuous mode that is an earlier one rewritten (a rebase
 * gives the same change a new commit id, and a new tree when its base
 * moved): the same patch-id as the culprit of an earlier regression of
 * the series' job and metric. It was reported then: -1, saying so.
 */
static int
outbox_reported(struct context *ctx, struct repo *repo, int64_t id,
    const char *culprit, char **cause)
{
	char	**ids = NULL, **oids = NULL, mine[PATCHID_HEX + 1];
	char	  other[PATCHID_HEX + 1];
	size_t	  nr = 0, i;
	int	  r = -1;

	if (store_regression_culprits(ctx->store, id, &ids, &oids, &nr,
	    cause) != 0)
		goto out;
	if (nr > 0 && patchid_of(repo, culprit, mine, cause) != 0)
		goto out;
	for (i = 0; i < nr; i++) {
		if (strcmp(oids[i], culprit) == 0 ||
		    patchid_of(repo, oids[i], other, NULL) != 0 ||
		    strcmp(mine, other) != 0)
			continue;
		error_set(cause, "bisection %lld: its culprit %.12s is the "
		    "same patch as %.12s (patch-id %.12s), the culprit "
		    "reported by bisection %s: not reported again",
		    (long long)id, culprit, oids[i], mine, ids[i]);
		goto out;
	}
	r = 0;
out:
	for (i = 0; i < nr; i++) {
		free(ids[i]);
		free(oids[i]);
	}
	free(ids);
	free(oids);
	return r;
}

/*
 * Queue the formatted mail in one transaction, in reply to its thread's
 * first mail: found already (the same Message-ID), it is not added again.
 */
static int
outbox_add(struct context *ctx, int64_t id, const char *thread,
    struct mail_spec *spec, int64_t *mail, int *added, char **cause)
{
	struct store_mail	 m;
	char			*root = NULL, *message = NULL, *sender = NULL;
	char			*rcpt = NULL;
	int			 found, r = -1;

	memset(&m, 0, sizeof m);
	if (store_begin(ctx->store, cause) != 0)
		return -1;
	if ((found = store_mail_find(ctx->store, spec->message_id, &m,
	    cause)) < 0)
		goto out;
	if (found) {
		*mail = m.id;
		r = 0;
		goto out;
	}
	if (store_mail_thread_root(ctx->store, thread, &root, cause) != 0)
		goto out;
	spec->in_reply_to = root;
	spec->date = time(NULL);
	if (mail_format(spec, &message, &sender, &rcpt, cause) != 0 ||
	    store_mail_add(ctx->store, id, spec->message_id, thread, sender,
	    rcpt, message, mail, cause) != 0 ||
	    store_commit(ctx->store, cause) != 0)
		goto out;
	*added = 1;
	r = 0;
out:
	if (!*added)
		store_rollback(ctx->store);
	store_mail_release(&m);
	free(root);
	free(message);
	free(sender);
	free(rcpt);
	return r;
}

/* The report's Message-ID, from what makes the bisection itself. */
static char *
outbox_message_id(struct context *ctx, const struct store_bisection *b,
    const struct store_job *job, const char *culprit)
{
	char	*identity, *domain, *msgid;

	identity = xasprintf("bisection\n%lld\n%s\n%s\n%s\n%s\n%s\n%s",
	    (long long)b->id, b->repo, culprit, job->job_id, b->metric,
	    b->good, b->bad);
	domain = mail_domain(&ctx->config->mail);
	msgid = mail_message_id(identity, culprit, domain);
	free(identity);
	free(domain);
	return msgid;
}

/*
 * The mail's thread: its culprit's, or for a fix the culprit of the
 * regression it fixes, so that it threads under that report. NULL on an
 * error.
 */
static char *
outbox_thread(struct context *ctx, const struct store_bisection *b,
    const char *culprit, char **cause)
{
	struct store_regression	*fixes = NULL;
	size_t			 nr_fixes = 0;
	char			*thread;

	if (store_regression_fixed_by(ctx->store, b->id, &fixes, &nr_fixes,
	    cause) != 0)
		return NULL;
	thread = xasprintf("%s %s", b->repo, nr_fixes > 0 &&
	    fixes[0].culprit != NULL ? fixes[0].culprit : culprit);
	store_regression_list_free(fixes, nr_fixes);
	return thread;
}

int
outbox_queue(struct context *ctx, int64_t id, int64_t *mail, int *added,
    char **cause)
{
	struct store_bisection		 b;
	struct store_job		 job;
	const struct config_repo	*cr;
	struct repo			*repo = NULL;
	struct repo_commit		 rc;
	struct mail_spec		 spec;
	json_t				*res = NULL;
	const char			*culprit;
	char				*headline = NULL, *body = NULL;
	char				*subject = NULL;
	struct report_mail		 rm;
	char				*msgid = NULL, *thread = NULL;
	int				 r = -1;

	memset(&b, 0, sizeof b);
	memset(&job, 0, sizeof job);
	memset(&rc, 0, sizeof rc);
	*added = 0;
	if (ctx->config->mail.smtp == NULL) {
		error_set(cause, "no 'mail' settings in the config '%s'",
		    ctx->config->path != NULL ? ctx->config->path : "");
		goto out;
	}
	if (store_bisection_get(ctx->store, id, &b, cause) != 0 ||
	    store_job_get(ctx->store, b.job, &job, cause) != 0)
		goto out;
	if (b.result == NULL || (res = json_loads(b.result, 0, NULL)) == NULL ||
	    (culprit = json_string_value(json_object_get(res, "culprit"))) ==
	    NULL) {
		error_set(cause, "bisection %lld has no culprit", (long long)id);
		goto out;
	}
	/* a culprit its own evidence contradicts blames no author */
	if (b.status != STORE_BISECTION_FOUND) {
		error_set(cause, "bisection %lld is %s: its culprit is not "
		    "mailed", (long long)id,
		    store_bisection_status_name(b.status));
		goto out;
	}
	if ((cr = config_repo_find(ctx->config, b.repo)) == NULL) {
		error_set(cause, "no repository '%s' in the config", b.repo);
		goto out;
	}
	if (repo_open(cr, &repo, cause) != 0 ||
	    repo_commit_read(repo, culprit, &rc, cause) != 0)
		goto out;
	if (outbox_reported(ctx, repo, id, culprit, cause) != 0)
		goto out;

	msgid = outbox_message_id(ctx, &b, &job, culprit);
	if ((thread = outbox_thread(ctx, &b, culprit, cause)) == NULL)
		goto out;
	memset(&rm, 0, sizeof rm);
	rm.message_id = msgid;
	rm.reported_by = ctx->config->mail.reported_by != NULL ?
	    ctx->config->mail.reported_by : ctx->config->mail.from;
	rm.closes = ctx->config->mail.closes;
	if (report_bisection_mail(ctx, id, &rm, &headline, &subject, &body,
	    cause) != 0)
		goto out;

	memset(&spec, 0, sizeof spec);
	spec.config = &ctx->config->mail;
	spec.headline = headline;
	spec.subject = subject;
	spec.body = body;
	spec.commit = culprit;
	spec.commit_subject = rc.subject;
	spec.author = rc.author;
	spec.bisection = (long long)id;
	spec.message_id = msgid;
	r = outbox_add(ctx, id, thread, &spec, mail, added, cause);
out:
	json_decref(res);
	store_bisection_release(&b);
	store_job_release(&job);
	repo_commit_release(&rc);
	repo_free(repo);
	free(headline);
	free(subject);
	free(body);
	free(msgid);
	free(thread);
	return r;
}

struct outbox_upload {
	const char	*p;
	size_t		 left;
};

static size_t
outbox_read(char *buf, size_t size, size_t nitems, void *payload)
{
	struct outbox_upload	*u = payload;
	size_t			 n = size * nitems;

	if (n > u->left)
		n = u->left;
	memcpy(buf, u->p, n);
	u->p += n;
	u->left -= n;
	return n;
}

/* The SMTP URL without any user:password@, for messages. */
static char *
outbox_url_public(const char *url)
{
	const char	*host = strstr(url, "://"), *at, *slash;

	if (host == NULL)
		return xstrdup(url);
	host += 3;
	slash = strchr(host, '/');
	at = strchr(host, '@');
	if (at == NULL || (slash != NULL && at > slash))
		return xstrdup(url);
	return xasprintf("%.*s%s", (int)(host - url), url, at + 1);
}

/*
 * The SMTP conversation. 0: accepted. 1: not, *permanent when the server
 * refused it with a 5xx reply (sending it again cannot help).
 */
static int
outbox_smtp(const char *url, const struct store_mail *m, int *permanent,
    char **cause)
{
	CURL			*curl = NULL;
	struct curl_slist	*rcpt = NULL;
	struct outbox_upload	 up = { m->message, strlen(m->message) };
	char			 errbuf[CURL_ERROR_SIZE] = "", *from = NULL;
	char			*addr, *list = xstrdup(m->recipients), *save;
	char			*pub = outbox_url_public(url);
	CURLcode		 rc;
	long			 code = 0;
	int			 r = 1;

	*permanent = 0;
	for (addr = strtok_r(list, "\n", &save); addr != NULL;
	    addr = strtok_r(NULL, "\n", &save)) {
		char	*a = xasprintf("<%s>", addr);

		rcpt = curl_slist_append(rcpt, a);
		free(a);
	}
	if (rcpt == NULL) {
		error_set(cause, "mail '%s' has no recipients", m->message_id);
		*permanent = 1;
		goto out;
	}
	if ((curl = curl_easy_init()) == NULL) {
		error_set(cause, "couldn't start libcurl");
		goto out;
	}
	from = xasprintf("<%s>", m->sender);
	curl_easy_setopt(curl, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
#else
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_SMTP |
	    CURLPROTO_SMTPS));
#endif
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
	/* one bad address (an author's) must not hold up the others */
#if LIBCURL_VERSION_NUM >= 0x080200
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT_ALLOWFAILS, 1L);
#elif LIBCURL_VERSION_NUM >= 0x074500
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1L);
#endif
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, outbox_read);
	curl_easy_setopt(curl, CURLOPT_READDATA, &up);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, OUTBOX_CONNECT_TIMEOUT);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, OUTBOX_TIMEOUT);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK) {
		r = 0;
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	*permanent = code >= 500 && code < 600;
	if (code != 0)
		error_set(cause, "smtp '%s': %s (the server said %ld)", pub,
		    *errbuf != '\0' ? errbuf : curl_easy_strerror(rc), code);
	else
		error_set(cause, "smtp '%s': %s", pub,
		    *errbuf != '\0' ? errbuf : curl_easy_strerror(rc));
out:
	curl_easy_cleanup(curl);
	curl_slist_free_all(rcpt);
	free(from);
	free(list);
	free(pub);
	return r;
}

int
outbox_send(struct context *ctx, int64_t id, char **cause)
{
	struct store_mail	 m;
	char			*why = NULL;
	int			 claimed, permanent, give_up, r = -1;

	memset(&m, 0, sizeof m);
	if (ctx->config->mail.smtp == NULL) {
		error_set(cause, "no 'mail' settings in the config");
		return -1;
	}
	if (store_mail_claim(ctx->store, id, &claimed, cause) != 0 ||
	    store_mail_get(ctx->store, id, &m, cause) != 0)
		goto out;
	if (!claimed) {
		error_set(cause, "mail <%s> is %s, not queued", m.message_id,
		    store_mail_status_name(m.status));
		r = 1;
		goto out;
	}
	if (outbox_smtp(ctx->config->mail.smtp, &m, &permanent, &why) == 0) {
		/* as close to the server's 250 as it can be: see above */
		if (store_mail_sent(ctx->store, id, cause) != 0)
			goto out;
		r = 0;
		goto out;
	}
	give_up = permanent || m.attempts >= OUTBOX_MAX_ATTEMPTS;
	if (store_mail_retry(ctx->store, id, why, (int64_t)time(NULL) +
	    outbox_backoff(m.attempts), give_up, cause) != 0)
		goto out;
	if (give_up)
		error_set(cause, "%s; mail <%s> failed for good after %d "
		    "attempts", why, m.message_id, m.attempts);
	else
		error_set(cause, "%s; mail <%s> stays queued, next attempt in "
		    "%lld s", why, m.message_id,
		    (long long)outbox_backoff(m.attempts));
	r = 1;
out:
	store_mail_release(&m);
	free(why);
	return r;
}

int
outbox_recover(struct context *ctx, char **cause)
{
	int	n;

	if (outbox_recovered)
		return 0;
	if (store_mail_recover(ctx->store, &n, cause) != 0)
		return -1;
	if (n > 0)
		log_warn("%d mail%s were being sent by a process that went "
		    "away: sending %s again", n, n == 1 ? "" : "s",
		    n == 1 ? "it" : "them");
	outbox_recovered = 1;
	return 0;
}

int
outbox_flush(struct context *ctx, char **cause)
{
	int64_t	*ids = NULL;
	size_t	 nr = 0, i;
	char	*why = NULL;
	int	 r = -1, s;

	if (ctx->config->mail.smtp == NULL)
		return 0;
	if (outbox_recover(ctx, cause) != 0)
		return -1;
	if (store_mail_due(ctx->store, (int64_t)time(NULL), &ids, &nr,
	    cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
		s = outbox_send(ctx, ids[i], &why);
		if (s < 0) {
			error_set(cause, "%s", why);
			goto out;
		}
		if (s == 1) {
			log_warn("%s", why);
			break;
		}
		log_info("mail %lld sent", (long long)ids[i]);
	}
	r = 0;
out:
	free(why);
	free(ids);
	return r;
}
