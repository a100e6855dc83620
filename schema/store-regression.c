/*
 * Continuous mode's regressions and improvements, found on the tracked
 * series. A row is keyed by the range of the series it covers, so that the
 * same step seen again after more commits arrive is not reported twice; an
 * improvement after a regression closes it (fixed_by).
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char sql_regression_overlaps[] =
    "SELECT EXISTS (SELECT 1 FROM regressions WHERE repo = ? AND branch = ? "
    "AND job = ? AND metric = ? AND kind = ? AND good_seq <= ? AND "
    "bad_seq >= ?)";
static const char sql_regression_add[] =
    "INSERT INTO regressions (repo, branch, job, metric, good, bad, "
    "good_seq, bad_seq, change_pct, p_value, bisection, created, kind) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char sql_regression_open[] =
    "SELECT id FROM regressions WHERE repo = ? AND branch = ? AND job = ? "
    "AND metric = ? AND kind = 'regression' AND fixed_by IS NULL AND "
    "bad_seq <= ? ORDER BY id";
static const char sql_regression_fix[] =
    "UPDATE regressions SET fixed_by = ? WHERE id = ?";
static const char sql_regression_count[] =
    "SELECT count(*) FROM regressions";
#define SQL_REGRESSION_LIST \
    "SELECT g.metric, g.good, g.bad, g.good_seq, g.bad_seq, g.change_pct, " \
    "g.p_value, g.bisection, b.status, json_extract(b.result, '$.culprit'), " \
    "g.kind, f.good, f.bad, json_extract(fb.result, '$.culprit'), " \
    "coalesce(f.bisection, 0) " \
    "FROM regressions g LEFT JOIN bisections b ON b.id = g.bisection " \
    "LEFT JOIN regressions f ON f.id = g.fixed_by " \
    "LEFT JOIN bisections fb ON fb.id = f.bisection "
static const char sql_regression_culprits[] =
    "SELECT CAST(g.bisection AS TEXT), json_extract(b.result, '$.culprit') "
    "FROM regressions h JOIN regressions g ON g.repo = h.repo AND "
    "g.job = h.job AND g.metric = h.metric AND g.kind = 'regression' AND "
    "g.bisection < h.bisection JOIN bisections b ON b.id = g.bisection "
    "WHERE h.bisection = ? AND h.kind = 'regression' AND "
    "b.status = 'found' AND json_extract(b.result, '$.culprit') IS NOT NULL "
    "ORDER BY g.bisection";
static const char sql_regression_list[] = SQL_REGRESSION_LIST
    "WHERE g.repo = ? AND g.branch = ? AND g.job = ? ORDER BY g.good_seq, "
    "g.id";
static const char sql_regression_fixed_by[] = SQL_REGRESSION_LIST
    "WHERE f.bisection = ? ORDER BY g.id";

int
store_regression_overlaps(struct store *st, const char *repo,
    const char *branch, int64_t job, const char *metric, const char *kind,
    int64_t good_seq, int64_t bad_seq, int *found, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_overlaps, "ttittii",
	    repo, branch, job, metric, kind, bad_seq, good_seq) != 0)
		return -1;
	return store_collect_int(st, stmt, found, cause);
}

int
store_regression_add(struct store *st, const char *repo, const char *branch,
    int64_t job, const char *metric, const char *kind, const char *good,
    const char *bad, int64_t good_seq, int64_t bad_seq, double change_pct,
    double p_value, int64_t bisection, int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_add, "ttitttiiddiit",
	    repo, branch, job, metric, good, bad, good_seq, bad_seq,
	    change_pct, p_value, bisection, store_now(), kind) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int
store_regression_open(struct store *st, const char *repo, const char *branch,
    int64_t job, const char *metric, int64_t before_seq, int64_t **ids,
    size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_open, "ttiti", repo,
	    branch, job, metric, before_seq) != 0)
		return -1;
	return store_collect_ids(st, stmt, ids, nr, cause);
}

int
store_regression_fix(struct store *st, int64_t id, int64_t fixed_by,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_fix, "ii", fixed_by,
	    id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_regression_count(struct store *st, int *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_count, "") != 0)
		return -1;
	return store_collect_int(st, stmt, nr, cause);
}

static int
store_regression_read(struct store *st, sqlite3_stmt *stmt,
    struct store_regression **out, size_t *nr, char **cause)
{
	struct store_regression	*v = NULL;
	size_t			 n = 0, alloc = 0;
	int			 r;

	*out = NULL;
	*nr = 0;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n].metric = store_column_text(stmt, 0);
		v[n].good = store_column_text(stmt, 1);
		v[n].bad = store_column_text(stmt, 2);
		v[n].good_seq = sqlite3_column_int64(stmt, 3);
		v[n].bad_seq = sqlite3_column_int64(stmt, 4);
		v[n].change_pct = sqlite3_column_double(stmt, 5);
		v[n].p_value = sqlite3_column_double(stmt, 6);
		v[n].bisection = sqlite3_column_int64(stmt, 7);
		v[n].status = store_column_enum(stmt, 8,
		    store_bisection_status_names,
		    STORE_NR(store_bisection_status_names),
		    STORE_BISECTION_NONE);
		v[n].culprit = store_column_text(stmt, 9);
		v[n].kind = store_column_text(stmt, 10);
		v[n].fixed_good = store_column_text(stmt, 11);
		v[n].fixed_bad = store_column_text(stmt, 12);
		v[n].fixed_culprit = store_column_text(stmt, 13);
		v[n].fixed_bisection = sqlite3_column_int64(stmt, 14);
		n++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_regression_list_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

int
store_regression_list(struct store *st, const char *repo, const char *branch,
    int64_t job, struct store_regression **out, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_list, "tti", repo,
	    branch, job) != 0)
		return -1;
	return store_regression_read(st, stmt, out, nr, cause);
}

int
store_regression_culprits(struct store *st, int64_t bisection,
    char ***bisections, char ***culprits, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_culprits, "i",
	    bisection) != 0)
		return -1;
	return store_collect_text(st, stmt, bisections, culprits, nr, cause);
}

int
store_regression_fixed_by(struct store *st, int64_t bisection,
    struct store_regression **out, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_regression_fixed_by, "i",
	    bisection) != 0)
		return -1;
	return store_regression_read(st, stmt, out, nr, cause);
}

void
store_regression_list_free(struct store_regression *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].metric);
		free(v[i].good);
		free(v[i].bad);
		free(v[i].culprit);
		free(v[i].kind);
		free(v[i].fixed_good);
		free(v[i].fixed_bad);
		free(v[i].fixed_culprit);
	}
	free(v);
}

const char *
store_regression_status_name(const struct store_regression *g)
{
	return g->status == STORE_BISECTION_NONE ? "pending" :
	    store_bisection_status_names[g->status];
}
