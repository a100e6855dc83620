/*
 * Bisections, the log of their tested commits, and their reports. A
 * bisection's id is the id of the request that asked for it.
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *const store_bisection_status_names[7] = {
	"running", "found", "no_change", "ambiguous", "failed", "unconfirmed",
	"inconclusive",
};

static const char sql_bisection_add[] =
    "INSERT OR IGNORE INTO bisections (id, job, repo, good, bad, metric, "
    "direction, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char sql_bisection_get[] =
    "SELECT id, job, repo, good, bad, metric, direction, status, progress, "
    "result FROM bisections WHERE id = ?";
static const char sql_bisection_progress[] =
    "UPDATE bisections SET progress = ? WHERE id = ?";
static const char sql_bisection_finish[] =
    "UPDATE bisections SET status = ?, result = ?, finished = ? WHERE id = ?";
static const char sql_bisection_unreported[] =
    "SELECT id FROM bisections WHERE status IN ('found', 'unconfirmed') "
    "AND NOT EXISTS (SELECT 1 FROM reports WHERE reports.bisection = "
    "bisections.id) ORDER BY id";
static const char sql_steps_clear[] =
    "DELETE FROM bisection_steps WHERE bisection = ?";
static const char sql_step_add[] =
    "INSERT INTO bisection_steps (bisection, seq, commit_oid, verdict, "
    "samples, mean) VALUES (?, ?, ?, ?, ?, ?)";
static const char sql_steps_get[] =
    "SELECT commit_oid, verdict, samples, mean FROM bisection_steps WHERE "
    "bisection = ? ORDER BY seq";

int
store_bisection_add(struct store *st, int64_t id, int64_t job,
    const char *repo, const char *good, const char *bad, const char *metric,
    const char *direction, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_bisection_add, "iittttti", id,
	    job, repo, good, bad, metric, direction, store_now()) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_bisection_get(struct store *st, int64_t id, struct store_bisection *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_bisection_get, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		out->id = sqlite3_column_int64(stmt, 0);
		out->job = sqlite3_column_int64(stmt, 1);
		out->repo = store_column_text(stmt, 2);
		out->good = store_column_text(stmt, 3);
		out->bad = store_column_text(stmt, 4);
		out->metric = store_column_text(stmt, 5);
		out->direction = store_column_text(stmt, 6);
		out->status = store_column_enum(stmt, 7,
		    store_bisection_status_names,
		    STORE_NR(store_bisection_status_names),
		    STORE_BISECTION_NONE);
		out->progress = store_column_text(stmt, 8);
		out->result = store_column_text(stmt, 9);
	}
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "no bisection %lld", (long long)id);
	return r < 0 ? -1 : 0;
}

int
store_bisection_progress(struct store *st, int64_t id, const char *progress,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_bisection_progress, "ti",
	    progress, id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

const char *
store_bisection_status_name(enum store_bisection_status status)
{
	return status == STORE_BISECTION_NONE ? NULL :
	    store_bisection_status_names[status];
}

int
store_bisection_finish(struct store *st, int64_t id,
    enum store_bisection_status status, const char *result, const struct store_step *steps, size_t nr_steps,
    char **cause)
{
	sqlite3_stmt	*stmt;
	size_t		 i;
	int		 r = -1;

	if (store_begin(st, cause) != 0)
		return -1;
	if (store_stmt(st, &stmt, cause, sql_steps_clear, "i", id) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	for (i = 0; i < nr_steps; i++) {
		if (store_stmt(st, &stmt, cause, sql_step_add, "iittid", id,
		    (int64_t)i, steps[i].commit_oid, steps[i].verdict,
		    (int64_t)steps[i].samples, steps[i].mean) != 0 ||
		    store_exec_stmt(st, stmt, cause) != 0)
			goto out;
	}
	if (store_stmt(st, &stmt, cause, sql_bisection_finish, "ttii",
	    store_bisection_status_names[status], result, store_now(),
	    id) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (store_request_set_status(st, id, store_request_status_of(status),
	    NULL, cause) != 0)
		goto out;
	if (store_commit(st, cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0)
		store_rollback(st);
	return r;
}

int
store_bisection_unreported(struct store *st, int64_t **ids, size_t *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_bisection_unreported, "") != 0)
		return -1;
	return store_collect_ids(st, stmt, ids, nr, cause);
}

int
store_bisection_steps(struct store *st, int64_t id, struct store_step **out,
    size_t *nr, char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_step	*v = NULL;
	size_t			 n = 0, alloc = 0;
	int			 r;

	if (store_stmt(st, &stmt, cause, sql_steps_get, "i", id) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n].commit_oid = store_column_text(stmt, 0);
		v[n].verdict = store_column_text(stmt, 1);
		v[n].samples = sqlite3_column_int(stmt, 2);
		v[n].mean = sqlite3_column_double(stmt, 3);
		n++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_bisection_steps_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

void
store_bisection_steps_free(struct store_step *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].commit_oid);
		free(v[i].verdict);
	}
	free(v);
}

void
store_bisection_release(struct store_bisection *b)
{
	if (b == NULL)
		return;
	free(b->repo);
	free(b->good);
	free(b->bad);
	free(b->metric);
	free(b->direction);
	free(b->progress);
	free(b->result);
	memset(b, 0, sizeof *b);
}
