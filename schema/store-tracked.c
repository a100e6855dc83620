/*
 * Continuous mode's commits: the commits of tracked branches in
 * first-parent order, with the tree each was tested as, the branches'
 * next sequence numbers and whether they are gone upstream, and what is
 * pending on a branch's series.
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char sql_tracked_last[] =
    "SELECT seq, commit_oid FROM tracked WHERE repo = ? AND branch = ? "
    "ORDER BY seq DESC LIMIT 1";
static const char sql_tracked_branch_add[] =
    "INSERT OR IGNORE INTO tracked_branches (repo, branch, next_seq) VALUES "
    "(?, ?, (SELECT coalesce(max(seq) + 1, 0) FROM tracked WHERE repo = ? "
    "AND branch = ?))";
static const char sql_tracked_tree[] =
    "SELECT commit_oid FROM tracked_trees WHERE repo = ? AND tree_oid = ?";
static const char sql_tracked_tree_add[] =
    "INSERT OR IGNORE INTO tracked_trees (repo, tree_oid, commit_oid) "
    "VALUES (?, ?, ?)";
static const char sql_tracked_add[] =
    "INSERT OR IGNORE INTO tracked (repo, branch, seq, commit_oid, base, "
    "seen, tree_oid, tested_as, queued) VALUES (?, ?, (SELECT next_seq FROM "
    "tracked_branches WHERE repo = ? AND branch = ?), ?, ?, ?, ?, ?, ?)";
static const char sql_tracked_branch_next[] =
    "UPDATE tracked_branches SET next_seq = next_seq + 1 WHERE repo = ? AND "
    "branch = ?";
static const char sql_tracked_seq[] =
    "SELECT seq FROM tracked WHERE repo = ? AND branch = ? AND "
    "commit_oid = ?";
static const char sql_tracked_drop[] =
    "DELETE FROM tracked WHERE repo = ? AND branch = ? AND seq > ? AND "
    "base = 0";
static const char sql_tracked_gone_get[] =
    "SELECT gone FROM tracked_branches WHERE repo = ? AND branch = ?";
static const char sql_tracked_gone_set[] =
    "UPDATE tracked_branches SET gone = ? WHERE repo = ? AND branch = ?";
static const char sql_tracked_list[] =
    "SELECT seq, commit_oid, base, queued, tested_as FROM tracked WHERE "
    "repo = ? AND branch = ? ORDER BY seq";
static const char sql_tracked_unqueued[] =
    "SELECT seq, commit_oid, base, queued, tested_as, branch FROM tracked "
    "INDEXED BY tracked_unqueued WHERE repo = ? AND queued = 0 ORDER BY "
    "branch, seq";
static const char sql_tracked_activity[] =
    "SELECT (SELECT count(*) FROM runs WHERE status IN ('pending', "
    "'running')), (SELECT coalesce(max(id), 0) FROM runs)";
static const char sql_tracked_queued[] =
    "UPDATE tracked SET queued = 1 WHERE repo = ? AND branch = ? AND seq = ?";
static const char sql_tracked_busy[] =
    "SELECT EXISTS (SELECT 1 FROM tracked t JOIN runs r ON r.job = ? AND "
    "r.repo = t.repo AND r.commit_oid = coalesce(t.tested_as, t.commit_oid) "
    "AND r.status IN ('pending', 'running') WHERE t.repo = ? AND "
    "t.branch = ?)";
static const char sql_tracked_branches[] =
    "SELECT DISTINCT repo, branch FROM tracked ORDER BY repo, branch";
static const char sql_tracked_jobs[] =
    "SELECT DISTINCT r.job FROM tracked t JOIN runs r ON r.repo = t.repo "
    "AND r.commit_oid = coalesce(t.tested_as, t.commit_oid) WHERE t.repo = ? AND t.branch = ? AND "
    "r.status = 'done' ORDER BY r.job";

int
store_tracked_last(struct store *st, const char *repo, const char *branch,
    int64_t *seq, char **oid, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*seq = -1;
	*oid = NULL;
	if (store_stmt(st, &stmt, cause, sql_tracked_last, "tt", repo,
	    branch) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		*seq = sqlite3_column_int64(stmt, 0);
		*oid = store_column_text(stmt, 1);
	}
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

/*
 * A commit whose tree was tested already in the repository is tested as
 * that commit; otherwise it is the one its tree's later commits use.
 */
int
store_tracked_add(struct store *st, const char *repo, const char *branch,
    const char *oid, const char *tree, int base, char **tested_as,
    char **cause)
{
	sqlite3_stmt	*stmt;
	char		*as = NULL;
	int		 r = -1;

	if (tested_as != NULL)
		*tested_as = NULL;
	if (store_stmt(st, &stmt, cause, sql_tracked_branch_add, "tttt", repo,
	    branch, repo, branch) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (tree != NULL) {
		if (store_stmt(st, &stmt, cause, sql_tracked_tree, "tt", repo,
		    tree) != 0)
			goto out;
		if ((r = store_step(st, stmt, cause)) == 1)
			as = store_column_text(stmt, 0);
		sqlite3_reset(stmt);
		r = -1;
		if (as != NULL && strcmp(as, oid) == 0) {
			free(as);
			as = NULL;
		}
		if (as == NULL && (store_stmt(st, &stmt, cause,
		    sql_tracked_tree_add, "ttt", repo, tree, oid) != 0 ||
		    store_exec_stmt(st, stmt, cause) != 0))
			goto out;
	}
	if (store_stmt(st, &stmt, cause, sql_tracked_add, "tttttiitti", repo,
	    branch, repo, branch, oid, (int64_t)base, store_now(), tree, as,
	    (int64_t)(as != NULL)) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (sqlite3_changes(st->db) == 1 && (store_stmt(st, &stmt, cause,
	    sql_tracked_branch_next, "tt", repo, branch) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0))
		goto out;
	if (tested_as != NULL) {
		*tested_as = as;
		as = NULL;
	}
	r = 0;
out:
	free(as);
	return r;
}

int
store_tracked_seq(struct store *st, const char *repo, const char *branch,
    const char *oid, int64_t *seq, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*seq = -1;
	if (store_stmt(st, &stmt, cause, sql_tracked_seq, "ttt", repo, branch,
	    oid) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*seq = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_tracked_drop(struct store *st, const char *repo, const char *branch,
    int64_t after, int *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	*nr = 0;
	if (store_stmt(st, &stmt, cause, sql_tracked_drop, "tti", repo, branch,
	    after) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	*nr = sqlite3_changes(st->db);
	return 0;
}

int
store_tracked_gone(struct store *st, const char *repo, const char *branch,
    int *gone, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*gone = 0;
	if (store_stmt(st, &stmt, cause, sql_tracked_gone_get, "tt", repo,
	    branch) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*gone = sqlite3_column_int(stmt, 0);
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_tracked_set_gone(struct store *st, const char *repo,
    const char *branch, int gone, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_tracked_branch_add, "tttt", repo,
	    branch, repo, branch) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	if (store_stmt(st, &stmt, cause, sql_tracked_gone_set, "itt",
	    (int64_t)gone, repo, branch) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

static int
store_tracked_read(struct store *st, const char *sql, const char *repo,
    const char *branch, struct store_tracked **out, size_t *nr, char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_tracked	*v = NULL;
	size_t			 n = 0, alloc = 0;
	int			 r;

	*out = NULL;
	*nr = 0;
	if (branch == NULL) {
		if (store_stmt(st, &stmt, cause, sql, "t", repo) != 0)
			return -1;
	} else if (store_stmt(st, &stmt, cause, sql, "tt", repo, branch) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n].seq = sqlite3_column_int64(stmt, 0);
		v[n].commit_oid = store_column_text(stmt, 1);
		v[n].base = sqlite3_column_int(stmt, 2);
		v[n].queued = sqlite3_column_int(stmt, 3);
		v[n].tested_as = store_column_text(stmt, 4);
		v[n].branch = branch == NULL ? store_column_text(stmt, 5) :
		    NULL;
		n++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_tracked_list_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

int
store_tracked_list(struct store *st, const char *repo, const char *branch,
    struct store_tracked **out, size_t *nr, char **cause)
{
	return store_tracked_read(st, sql_tracked_list, repo, branch, out, nr,
	    cause);
}

int
store_tracked_unqueued(struct store *st, const char *repo,
    struct store_tracked **out, size_t *nr, char **cause)
{
	return store_tracked_read(st, sql_tracked_unqueued, repo, NULL, out,
	    nr, cause);
}

int
store_tracked_queued(struct store *st, const char *repo, const char *branch,
    int64_t seq, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_tracked_queued, "tti", repo,
	    branch, seq) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_tracked_activity(struct store *st, int64_t *active, int64_t *newest,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*active = *newest = 0;
	if (store_stmt(st, &stmt, cause, sql_tracked_activity, "") != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		*active = sqlite3_column_int64(stmt, 0);
		*newest = sqlite3_column_int64(stmt, 1);
	}
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_tracked_busy(struct store *st, const char *repo, const char *branch,
    int64_t job, int *busy, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_tracked_busy, "itt", job, repo,
	    branch) != 0)
		return -1;
	return store_collect_int(st, stmt, busy, cause);
}

void
store_tracked_list_free(struct store_tracked *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].commit_oid);
		free(v[i].tested_as);
		free(v[i].branch);
	}
	free(v);
}

int
store_tracked_branches(struct store *st, char ***repos, char ***branches,
    size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_tracked_branches, "") != 0)
		return -1;
	return store_collect_text(st, stmt, repos, branches, nr, cause);
}

int
store_tracked_jobs(struct store *st, const char *repo, const char *branch,
    int64_t **jobs, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_tracked_jobs, "tt", repo,
	    branch) != 0)
		return -1;
	return store_collect_ids(st, stmt, jobs, nr, cause);
}
