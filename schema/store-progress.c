/*
 * How far a request has got, for the progress line of `--wait`: its runs
 * by state and the mean time a finished run took. A queue or compare
 * request's runs are its jobs at its commits; a bisection's, its job's
 * runs in its repository (the driver decides which commits).
 */
#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"

static const char sql_progress_request[] =
    "SELECT r.status, count(*), avg(CASE WHEN r.status = 'done' AND "
    "r.started IS NOT NULL AND r.finished IS NOT NULL THEN r.finished - "
    "r.started END) FROM runs r JOIN requests q ON q.id = ? AND "
    "r.repo = q.repo WHERE r.job IN (SELECT job FROM request_jobs WHERE "
    "request = q.id) AND r.commit_oid IN (SELECT commit_oid FROM "
    "request_commits WHERE request = q.id) GROUP BY r.status";
static const char sql_progress_bisection[] =
    "SELECT r.status, count(*), avg(CASE WHEN r.status = 'done' AND "
    "r.started IS NOT NULL AND r.finished IS NOT NULL THEN r.finished - "
    "r.started END) FROM runs r JOIN bisections b ON b.id = ? AND "
    "r.job = b.job AND r.repo = b.repo GROUP BY r.status";

int
store_progress_get(struct store *st, int64_t request, int bisection,
    struct store_progress *out, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 n, rc;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, bisection ? sql_progress_bisection :
	    sql_progress_request, "i", request) != 0)
		return -1;
	while ((rc = store_step(st, stmt, cause)) == 1) {
		if (sqlite3_column_type(stmt, 0) == SQLITE_NULL)
			continue;
		n = sqlite3_column_int(stmt, 1);
		switch (store_column_enum(stmt, 0, store_run_status_names,
		    STORE_NR(store_run_status_names), -1)) {
		case STORE_RUN_PENDING:
			out->pending = n;
			break;
		case STORE_RUN_RUNNING:
			out->running = n;
			break;
		case STORE_RUN_DONE:
			out->done = n;
			if (sqlite3_column_type(stmt, 2) != SQLITE_NULL)
				out->mean_run_s = sqlite3_column_double(stmt,
				    2);
			break;
		default:
			out->failed += n;
		}
	}
	sqlite3_reset(stmt);
	return rc < 0 ? -1 : 0;
}
