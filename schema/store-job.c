/*
 * Jobs: each expanded job once, identified by the hash of its canonical
 * text (so that samples taken for one request serve every later request
 * of the same job), and the agents its runs are spread over, by position.
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"

static const char sql_job_find[] =
    "SELECT id FROM jobs WHERE job_id = ?";
static const char sql_job_add[] =
    "INSERT INTO jobs (job_id, testcase, description, canonical, metric, "
    "direction, created) VALUES (?, ?, ?, ?, ?, ?, ?)";
static const char sql_job_get[] =
    "SELECT id, job_id, testcase, description, canonical, metric, direction "
    "FROM jobs WHERE id = ?";
static const char sql_job_agents_get[] =
    "SELECT agent FROM job_agents WHERE job = ? ORDER BY position";
static const char sql_job_agents_set[] =
    "INSERT OR REPLACE INTO job_agents (job, position, agent) "
    "VALUES (?, ?, ?)";

int
store_job_add(struct store *st, const char *job_id, const char *testcase,
    const char *description, const char *canonical, const char *metric,
    const char *direction, int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	if (store_stmt(st, &stmt, cause, sql_job_find, "t", job_id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) < 0)
		return -1;
	if (r == 1) {
		*id = sqlite3_column_int64(stmt, 0);
		sqlite3_reset(stmt);
		return 0;
	}
	if (store_stmt(st, &stmt, cause, sql_job_add, "tttttti", job_id,
	    testcase, description, canonical, metric, direction,
	    store_now()) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int
store_job_get(struct store *st, int64_t id, struct store_job *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_job_get, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) < 0)
		return -1;
	if (r == 0) {
		sqlite3_reset(stmt);
		return error_set(cause, "no job %lld", (long long)id);
	}
	out->id = sqlite3_column_int64(stmt, 0);
	out->job_id = store_column_text(stmt, 1);
	out->testcase = store_column_text(stmt, 2);
	out->description = store_column_text(stmt, 3);
	out->canonical = store_column_text(stmt, 4);
	out->metric = store_column_text(stmt, 5);
	out->direction = store_column_text(stmt, 6);
	sqlite3_reset(stmt);
	return 0;
}

void
store_job_release(struct store_job *job)
{
	if (job == NULL)
		return;
	free(job->job_id);
	free(job->testcase);
	free(job->description);
	free(job->canonical);
	free(job->metric);
	free(job->direction);
	memset(job, 0, sizeof *job);
}

int
store_job_agents_get(struct store *st, int64_t job, char ***out, size_t *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_job_agents_get, "i", job) != 0)
		return -1;
	return store_collect_text(st, stmt, out, NULL, nr, cause);
}

int
store_job_agents_set(struct store *st, int64_t job, int position,
    const char *agent, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_job_agents_set, "iit", job,
	    (int64_t)position, agent) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}
