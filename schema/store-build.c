/*
 * Builds: one row per (repository, commit, recipe). A build is pending
 * until the scheduler starts it, running while its child works, and ends
 * ok (artifacts in the cache) or failed (the commit is untestable).
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *const store_build_status_names[4] = {
	"pending", "running", "ok", "failed",
};

static const char sql_build_ensure[] =
    "INSERT OR IGNORE INTO builds (repo, commit_oid, recipe, created) "
    "VALUES (?, ?, ?, ?)";
static const char sql_build_id[] =
    "SELECT id FROM builds WHERE repo = ? AND commit_oid = ? AND recipe = ?";
#define BUILD_COLUMNS "id, repo, commit_oid, recipe, status, attempts, " \
    "artifact_dir, log_path, log_tail, seconds, error"
static const char sql_build_find[] =
    "SELECT " BUILD_COLUMNS " FROM builds WHERE repo = ? AND commit_oid = ? "
    "AND recipe = ?";
static const char sql_build_get[] =
    "SELECT " BUILD_COLUMNS " FROM builds WHERE id = ?";
static const char sql_build_pending[] =
    "SELECT id FROM builds WHERE status = 'pending' ORDER BY id";
static const char sql_build_start[] =
    "UPDATE builds SET status = 'running', attempts = attempts + 1, "
    "started = ?, error = NULL WHERE id = ? AND status = 'pending'";
static const char sql_build_finish[] =
    "UPDATE builds SET status = ?, artifact_dir = ?, log_path = ?, "
    "log_tail = ?, seconds = ?, error = ?, finished = ? WHERE id = ?";
static const char sql_build_retry[] =
    "UPDATE builds SET status = CASE WHEN attempts >= ? THEN 'failed' "
    "ELSE 'pending' END, error = ?, finished = ? WHERE id = ? "
    "AND status = 'running'";
static const char sql_build_invalidate[] =
    "UPDATE builds SET status = CASE WHEN attempts >= ? THEN 'failed' "
    "ELSE 'pending' END, error = ?, finished = ? WHERE id = ? "
    "AND status = 'ok'";
static const char sql_build_running[] =
    "SELECT count(*) FROM builds WHERE status = 'running' AND repo = ?";

int
store_build_ensure(struct store *st, const char *repo, const char *oid,
    const char *recipe, int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	if (store_stmt(st, &stmt, cause, sql_build_ensure, "ttti", repo, oid,
	    recipe, store_now()) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	if (store_stmt(st, &stmt, cause, sql_build_id, "ttt", repo, oid,
	    recipe) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) < 0)
		return -1;
	*id = r == 1 ? sqlite3_column_int64(stmt, 0) : 0;
	sqlite3_reset(stmt);
	return r == 1 ? 0 : error_set(cause, "build of '%s' vanished", oid);
}

static void
store_build_read(sqlite3_stmt *stmt, struct store_build *out)
{
	out->id = sqlite3_column_int64(stmt, 0);
	out->repo = store_column_text(stmt, 1);
	out->commit_oid = store_column_text(stmt, 2);
	out->recipe = store_column_text(stmt, 3);
	out->status = store_column_enum(stmt, 4, store_build_status_names,
	    STORE_NR(store_build_status_names), STORE_BUILD_PENDING);
	out->attempts = sqlite3_column_int(stmt, 5);
	out->artifact_dir = store_column_text(stmt, 6);
	out->log_path = store_column_text(stmt, 7);
	out->log_tail = store_column_text(stmt, 8);
	out->seconds = sqlite3_column_double(stmt, 9);
	out->error = store_column_text(stmt, 10);
}

int
store_build_find(struct store *st, const char *repo, const char *oid,
    const char *recipe, struct store_build *out, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_build_find, "ttt", repo, oid,
	    recipe) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		store_build_read(stmt, out);
	sqlite3_reset(stmt);
	return r;
}

int
store_build_get(struct store *st, int64_t id, struct store_build *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_build_get, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		store_build_read(stmt, out);
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "no build %lld", (long long)id);
	return r < 0 ? -1 : 0;
}

int
store_build_pending(struct store *st, int64_t **ids, size_t *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_build_pending, "") != 0)
		return -1;
	return store_collect_ids(st, stmt, ids, nr, cause);
}

int
store_build_start(struct store *st, int64_t id, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_build_start, "ii", store_now(),
	    id) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	if (sqlite3_changes(st->db) != 1)
		return error_set(cause, "build %lld is not pending",
		    (long long)id);
	return 0;
}

const char *
store_build_status_name(enum store_build_status status)
{
	return store_build_status_names[status];
}

int
store_build_finish(struct store *st, int64_t id,
    enum store_build_status status, const char *artifact_dir,
    const char *log_path, const char *log_tail, double seconds,
    const char *error, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_build_finish, "ttttdtii",
	    store_build_status_names[status], artifact_dir, log_path, log_tail, seconds, error, store_now(),
	    id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_build_retry(struct store *st, int64_t id, const char *error,
    int max_attempts, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_build_retry, "itii",
	    (int64_t)max_attempts, error, store_now(), id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_build_invalidate(struct store *st, int64_t id, const char *error,
    int max_attempts, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_build_invalidate, "itii",
	    (int64_t)max_attempts, error, store_now(), id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_build_count_running(struct store *st, const char *repo, int *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_build_running, "t", repo) != 0)
		return -1;
	return store_collect_int(st, stmt, nr, cause);
}

void
store_build_release(struct store_build *b)
{
	if (b == NULL)
		return;
	free(b->repo);
	free(b->commit_oid);
	free(b->recipe);
	free(b->artifact_dir);
	free(b->log_path);
	free(b->log_tail);
	free(b->error);
	memset(b, 0, sizeof *b);
}
