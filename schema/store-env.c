/*
 * The environment done runs saw (run_env): the last run's at a commit, or
 * every run's, for the reports' and the tracker's comparisons.
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/xalloc.h"

static const char sql_env_get[] =
    "SELECT key, value FROM run_env WHERE run = (SELECT id FROM runs WHERE "
    "job = ? AND repo = ? AND commit_oid = ? AND status = 'done' ORDER BY "
    "seq DESC LIMIT 1) ORDER BY key";

int
store_env_get(struct store *st, int64_t job, const char *repo,
    const char *oid, char ***keys, char ***values, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_env_get, "itt", job, repo,
	    oid) != 0)
		return -1;
	return store_collect_text(st, stmt, keys, values, nr, cause);
}

static const char sql_env_runs[] =
    "SELECT r.id, r.seq, r.agent, e.key, e.value, r.boot_id FROM runs r "
    "JOIN run_env e "
    "ON e.run = r.id WHERE r.job = ? AND r.repo = ? AND r.commit_oid = ? "
    "AND r.status = 'done' ORDER BY r.seq, r.id, e.key";

int
store_env_runs(struct store *st, int64_t job, const char *repo,
    const char *oid, struct store_run_env **out, size_t *nr, char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_run_env	*v = NULL, *cur = NULL;
	size_t			 n = 0, alloc = 0, kalloc = 0, valloc = 0;
	int64_t			 run;
	int			 r;

	if (store_stmt(st, &stmt, cause, sql_env_runs, "itt", job, repo,
	    oid) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		run = sqlite3_column_int64(stmt, 0);
		if (cur == NULL || cur->run != run) {
			ALLOC_GROW(v, n, alloc);
			cur = &v[n++];
			memset(cur, 0, sizeof *cur);
			cur->run = run;
			cur->seq = sqlite3_column_int(stmt, 1);
			cur->agent = store_column_text(stmt, 2);
			cur->boot_id = store_column_text(stmt, 5);
			kalloc = valloc = 0;
		}
		ALLOC_GROW(cur->keys, cur->nr, kalloc);
		ALLOC_GROW(cur->values, cur->nr, valloc);
		cur->keys[cur->nr] = store_column_text(stmt, 3);
		cur->values[cur->nr] = store_column_text(stmt, 4);
		cur->nr++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_run_env_list_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}
