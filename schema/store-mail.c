/*
 * The mail outbox (migration 0002). A mail moves queued -> sending ->
 * sent (or back to queued, or to failed) one committed statement at a
 * time, each guarded by its status so that it happens at most once
 * (docs/reports.md, "Delivery: the outbox").
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *const store_mail_status_names[4] = {
	"queued", "sending", "sent", "failed",
};

#define STORE_MAIL_COLUMNS \
    "id, bisection, message_id, thread, sender, recipients, message, " \
    "status, attempts, next_attempt, last_error, created, sent"

static const char sql_mail_add[] =
    "INSERT INTO outbox (bisection, message_id, thread, sender, recipients, "
    "message, next_attempt, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char sql_mail_find[] =
    "SELECT " STORE_MAIL_COLUMNS " FROM outbox WHERE message_id = ?";
static const char sql_mail_get[] =
    "SELECT " STORE_MAIL_COLUMNS " FROM outbox WHERE id = ?";
static const char sql_mail_thread_root[] =
    "SELECT message_id FROM outbox WHERE thread = ? ORDER BY id LIMIT 1";
static const char sql_mail_due[] =
    "SELECT id FROM outbox WHERE status = 'queued' AND next_attempt <= ? "
    "ORDER BY next_attempt, id";
static const char sql_mail_claim[] =
    "UPDATE outbox SET status = 'sending', attempts = attempts + 1 "
    "WHERE id = ? AND status = 'queued'";
static const char sql_mail_sent[] =
    "UPDATE outbox SET status = 'sent', sent = ?, last_error = NULL "
    "WHERE id = ? AND status = 'sending'";
static const char sql_mail_retry[] =
    "UPDATE outbox SET status = ?, next_attempt = ?, last_error = ? "
    "WHERE id = ? AND status = 'sending'";
static const char sql_mail_requeue[] =
    "UPDATE outbox SET next_attempt = ?, attempts = CASE status WHEN "
    "'failed' THEN 0 ELSE attempts END, status = 'queued' "
    "WHERE id = ? AND status IN ('queued', 'failed')";
static const char sql_mail_recover[] =
    "UPDATE outbox SET status = 'queued', next_attempt = ?, last_error = "
    "'its sender went away during an attempt: the outcome is unknown, so "
    "it is sent again' WHERE status = 'sending'";

int
store_mail_add(struct store *st, int64_t bisection, const char *message_id,
    const char *thread, const char *sender, const char *recipients,
    const char *message, int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;
	int64_t		 now = store_now();

	if (store_stmt(st, &stmt, cause, sql_mail_add, "itttttii", bisection,
	    message_id, thread, sender, recipients, message, now, now) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

static void
store_mail_row(sqlite3_stmt *stmt, struct store_mail *out)
{
	out->id = sqlite3_column_int64(stmt, 0);
	out->bisection = sqlite3_column_int64(stmt, 1);
	out->message_id = store_column_text(stmt, 2);
	out->thread = store_column_text(stmt, 3);
	out->sender = store_column_text(stmt, 4);
	out->recipients = store_column_text(stmt, 5);
	out->message = store_column_text(stmt, 6);
	out->status = store_column_enum(stmt, 7, store_mail_status_names,
	    STORE_NR(store_mail_status_names), STORE_MAIL_FAILED);
	out->attempts = sqlite3_column_int(stmt, 8);
	out->next_attempt = sqlite3_column_int64(stmt, 9);
	out->last_error = store_column_text(stmt, 10);
	out->created = sqlite3_column_int64(stmt, 11);
	out->sent = sqlite3_column_int64(stmt, 12);
}

int
store_mail_find(struct store *st, const char *message_id,
    struct store_mail *out, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_mail_find, "t", message_id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		store_mail_row(stmt, out);
	sqlite3_reset(stmt);
	return r;
}

int
store_mail_get(struct store *st, int64_t id, struct store_mail *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_mail_get, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		store_mail_row(stmt, out);
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "no mail %lld in the outbox",
		    (long long)id);
	return r < 0 ? -1 : 0;
}

int
store_mail_thread_root(struct store *st, const char *thread, char **out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*out = NULL;
	if (store_stmt(st, &stmt, cause, sql_mail_thread_root, "t",
	    thread) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*out = store_column_text(stmt, 0);
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_mail_due(struct store *st, int64_t now, int64_t **ids, size_t *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_mail_due, "i", now) != 0)
		return -1;
	return store_collect_ids(st, stmt, ids, nr, cause);
}

/* Run an UPDATE; *changed says how many rows it moved. */
static int
store_mail_update(struct store *st, sqlite3_stmt *stmt, int *changed,
    char **cause)
{
	if (store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	if (changed != NULL)
		*changed = sqlite3_changes(st->db);
	return 0;
}

int
store_mail_claim(struct store *st, int64_t id, int *claimed, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_mail_claim, "i", id) != 0)
		return -1;
	return store_mail_update(st, stmt, claimed, cause);
}

int
store_mail_sent(struct store *st, int64_t id, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 changed;

	if (store_stmt(st, &stmt, cause, sql_mail_sent, "ii", store_now(),
	    id) != 0 || store_mail_update(st, stmt, &changed, cause) != 0)
		return -1;
	if (changed != 1)
		return error_set(cause, "mail %lld was not being sent",
		    (long long)id);
	return 0;
}

int
store_mail_retry(struct store *st, int64_t id, const char *error,
    int64_t next_attempt, int give_up, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_mail_retry, "titi",
	    store_mail_status_names[give_up ? STORE_MAIL_FAILED :
	    STORE_MAIL_QUEUED], next_attempt, error, id) != 0)
		return -1;
	return store_mail_update(st, stmt, NULL, cause);
}

int
store_mail_requeue(struct store *st, int64_t id, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_mail_requeue, "ii", store_now(),
	    id) != 0)
		return -1;
	return store_mail_update(st, stmt, NULL, cause);
}

int
store_mail_recover(struct store *st, int *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_mail_recover, "i",
	    store_now()) != 0)
		return -1;
	return store_mail_update(st, stmt, nr, cause);
}

const char *
store_mail_status_name(enum store_mail_status status)
{
	return store_mail_status_names[status];
}

void
store_mail_release(struct store_mail *m)
{
	if (m == NULL)
		return;
	free(m->message_id);
	free(m->thread);
	free(m->sender);
	free(m->recipients);
	free(m->message);
	free(m->last_error);
	memset(m, 0, sizeof *m);
}
