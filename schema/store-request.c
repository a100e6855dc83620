/*
 * Requests (what a user asked for: queue, compare, bisect), the jobs and
 * commits they name (the jobs themselves, shared between requests, are
 * store-job.c's).
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *const store_request_status_names[4] = {
	"pending", "running", "done", "failed",
};

static const char sql_request_add[] =
    "INSERT INTO requests (kind, repo, job_file, dedup_key, args, created) "
    "VALUES (?, ?, ?, ?, ?, ?)";
static const char sql_request_get[] =
    "SELECT id, kind, status, repo, job_file, args, error, created, "
    "finished FROM requests WHERE id = ?";
static const char sql_request_find_active[] =
    "SELECT id FROM requests WHERE dedup_key = ? AND status IN "
    "('pending', 'running') ORDER BY id LIMIT 1";
static const char sql_request_active[] =
    "SELECT id FROM requests WHERE status IN ('pending', 'running') "
    "ORDER BY id";
static const char sql_request_set_status[] =
    "UPDATE requests SET status = ?, error = ?, finished = CASE WHEN ? IN "
    "('done', 'failed') THEN ? ELSE NULL END WHERE id = ?";
static const char sql_request_job_add[] =
    "INSERT OR IGNORE INTO request_jobs (request, job) VALUES (?, ?)";
static const char sql_request_jobs[] =
    "SELECT job FROM request_jobs WHERE request = ? ORDER BY job";
static const char sql_request_commit_add[] =
    "INSERT OR REPLACE INTO request_commits (request, seq, commit_oid, rev) "
    "VALUES (?, ?, ?, ?)";
static const char sql_request_commits[] =
    "SELECT commit_oid, rev FROM request_commits WHERE request = ? "
    "ORDER BY seq";
static const char sql_request_list[] =
    "SELECT id, kind, status, repo, job_file, args, error, created, "
    "finished FROM requests ORDER BY id DESC LIMIT ?";

int
store_request_add(struct store *st, const char *kind, const char *repo,
    const char *job_file, const char *dedup_key, const char *args,
    int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_add, "ttttti", kind,
	    repo, job_file, dedup_key, args, store_now()) != 0)
		return -1;
	if (store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

static void
store_request_read(sqlite3_stmt *stmt, struct store_request *out)
{
	out->id = sqlite3_column_int64(stmt, 0);
	out->kind = store_column_text(stmt, 1);
	out->status = store_column_enum(stmt, 2, store_request_status_names,
	    STORE_NR(store_request_status_names), STORE_REQUEST_PENDING);
	out->repo = store_column_text(stmt, 3);
	out->job_file = store_column_text(stmt, 4);
	out->args = store_column_text(stmt, 5);
	out->error = store_column_text(stmt, 6);
	out->created = sqlite3_column_int64(stmt, 7);
	out->finished = sqlite3_column_int64(stmt, 8);
}

int
store_request_get(struct store *st, int64_t id, struct store_request *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_request_get, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) < 0)
		return -1;
	if (r == 0) {
		sqlite3_reset(stmt);
		return error_set(cause, "no request %lld", (long long)id);
	}
	store_request_read(stmt, out);
	sqlite3_reset(stmt);
	return 0;
}

int
store_request_find_active(struct store *st, const char *dedup_key,
    int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*id = 0;
	if (store_stmt(st, &stmt, cause, sql_request_find_active, "t",
	    dedup_key) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) < 0)
		return -1;
	if (r == 1)
		*id = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	return 0;
}

int
store_request_active(struct store *st, int64_t **ids, size_t *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_active, "") != 0)
		return -1;
	return store_collect_ids(st, stmt, ids, nr, cause);
}

const char *
store_request_status_name(enum store_request_status status)
{
	return store_request_status_names[status];
}

enum store_request_status
store_request_status_of(enum store_bisection_status status)
{
	if (status == STORE_BISECTION_RUNNING)
		return STORE_REQUEST_RUNNING;
	return status == STORE_BISECTION_FAILED ? STORE_REQUEST_FAILED :
	    STORE_REQUEST_DONE;
}

int
store_request_set_status(struct store *st, int64_t id,
    enum store_request_status status, const char *error, char **cause)
{
	const char	*name = store_request_status_names[status];
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_set_status, "tttii",
	    name, error, name, store_now(), id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_request_job_add(struct store *st, int64_t request, int64_t job,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_job_add, "ii", request,
	    job) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_request_jobs(struct store *st, int64_t request, int64_t **jobs,
    size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_jobs, "i", request) != 0)
		return -1;
	return store_collect_ids(st, stmt, jobs, nr, cause);
}

int
store_request_commit_add(struct store *st, int64_t request, int seq,
    const char *oid, const char *rev, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_commit_add, "iitt",
	    request, (int64_t)seq, oid, rev) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_request_commits(struct store *st, int64_t request, char ***oids,
    char ***revs, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_request_commits, "i",
	    request) != 0)
		return -1;
	return store_collect_text(st, stmt, oids, revs, nr, cause);
}

int
store_request_list(struct store *st, int limit, struct store_request **out,
    size_t *nr, char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_request	*v = NULL;
	size_t			 n = 0, alloc = 0;
	int			 r;

	if (store_stmt(st, &stmt, cause, sql_request_list, "i",
	    (int64_t)limit) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		store_request_read(stmt, &v[n++]);
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		while (n-- > 0)
			store_request_release(&v[n]);
		free(v);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

void
store_request_release(struct store_request *rq)
{
	if (rq == NULL)
		return;
	free(rq->kind);
	free(rq->repo);
	free(rq->job_file);
	free(rq->args);
	free(rq->error);
	memset(rq, 0, sizeof *rq);
}
