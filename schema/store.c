/*
 * Opening the store: the connection, WAL, busy timeout, the migrations,
 * transactions, recovery after a crash, the prepared-statement cache the
 * other store files use, and the counts bisectctl status shows. SQL is
 * only ever prepared from constant text; values travel as bound parameters.
 */
#include <sqlite3.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema/migration.h"
#include "schema/store-internal.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

#define STORE_BUSY_TIMEOUT_MS	30000

int64_t
store_now(void)
{
	return (int64_t)time(NULL);
}

int
store_error(struct store *st, char **cause, const char *what)
{
	return error_set(cause, "database '%s': %s: %s", st->path, what,
	    sqlite3_errmsg(st->db));
}

char *
store_column_text(sqlite3_stmt *stmt, int col)
{
	const unsigned char	*s = sqlite3_column_text(stmt, col);

	return s == NULL ? NULL : xstrdup((const char *)s);
}

int
store_column_enum(sqlite3_stmt *stmt, int col, const char *const *names,
    int nr, int none)
{
	const char	*s = (const char *)sqlite3_column_text(stmt, col);
	int		 i;

	for (i = 0; s != NULL && i < nr; i++) {
		if (strcmp(s, names[i]) == 0)
			return i;
	}
	return none;
}

int
store_collect_ids(struct store *st, sqlite3_stmt *stmt, int64_t **ids,
    size_t *nr, char **cause)
{
	int64_t	*v = NULL;
	size_t	 n = 0, alloc = 0;
	int	 r;

	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n++] = sqlite3_column_int64(stmt, 0);
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		free(v);
		return -1;
	}
	*ids = v;
	*nr = n;
	return 0;
}

int
store_collect_int(struct store *st, sqlite3_stmt *stmt, int *out,
    char **cause)
{
	int	r;

	if ((r = store_step(st, stmt, cause)) == 1)
		*out = sqlite3_column_int(stmt, 0);
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "database '%s': a query returned no row",
		    st->path);
	return r == 1 ? 0 : -1;
}

int
store_collect_text(struct store *st, sqlite3_stmt *stmt, char ***a,
    char ***b, size_t *nr, char **cause)
{
	char	**va = NULL, **vb = NULL;
	size_t	  n = 0, alloc_a = 0, alloc_b = 0;
	int	  r;

	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(va, n, alloc_a);
		va[n] = store_column_text(stmt, 0);
		if (b != NULL) {
			ALLOC_GROW(vb, n, alloc_b);
			vb[n] = store_column_text(stmt, 1);
		}
		n++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		while (n-- > 0) {
			free(va[n]);
			if (vb != NULL)
				free(vb[n]);
		}
		free(va);
		free(vb);
		return -1;
	}
	*a = va;
	if (b != NULL)
		*b = vb;
	*nr = n;
	return 0;
}

int
store_stmt(struct store *st, sqlite3_stmt **out, char **cause,
    const char *sql, const char *fmt, ...)
{
	sqlite3_stmt	*stmt = NULL;
	va_list		 ap;
	const char	*s;
	size_t		 i;
	int		 rc, r = -1;

	for (i = 0; i < st->nr_stmts; i++) {
		if (st->stmts[i].sql == sql) {
			stmt = st->stmts[i].stmt;
			break;
		}
	}
	if (stmt == NULL) {
		rc = sqlite3_prepare_v3(st->db, sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
		if (rc != SQLITE_OK)
			return store_error(st, cause, "preparing a statement");
		ALLOC_GROW(st->stmts, st->nr_stmts, st->alloc_stmts);
		st->stmts[st->nr_stmts].sql = sql;
		st->stmts[st->nr_stmts].stmt = stmt;
		st->nr_stmts++;
	}
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	va_start(ap, fmt);
	for (i = 0; fmt[i] != '\0'; i++) {
		switch (fmt[i]) {
		case 't':
			s = va_arg(ap, const char *);
			if (s == NULL)
				rc = sqlite3_bind_null(stmt, (int)i + 1);
			else
				rc = sqlite3_bind_text(stmt, (int)i + 1, s, -1,
				    SQLITE_TRANSIENT);
			break;
		case 'i':
			rc = sqlite3_bind_int64(stmt, (int)i + 1,
			    va_arg(ap, int64_t));
			break;
		case 'd':
			rc = sqlite3_bind_double(stmt, (int)i + 1,
			    va_arg(ap, double));
			break;
		default:
			rc = SQLITE_MISUSE;
			break;
		}
		if (rc != SQLITE_OK) {
			store_error(st, cause, "binding a value");
			goto out;
		}
	}
	*out = stmt;
	r = 0;
out:
	va_end(ap);
	return r;
}

int
store_step(struct store *st, sqlite3_stmt *stmt, char **cause)
{
	int	rc = sqlite3_step(stmt);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	store_error(st, cause, "running a statement");
	sqlite3_reset(stmt);
	return -1;
}

int
store_exec_stmt(struct store *st, sqlite3_stmt *stmt, char **cause)
{
	int	r;

	while ((r = store_step(st, stmt, cause)) == 1)
		;
	sqlite3_reset(stmt);
	return r;
}

static int
store_exec(struct store *st, const char *sql, char **cause)
{
	char	*msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error_set(cause, "database '%s': %s", st->path,
		    msg != NULL ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int
store_begin(struct store *st, char **cause)
{
	return store_exec(st, "BEGIN IMMEDIATE", cause);
}

int
store_commit(struct store *st, char **cause)
{
	return store_exec(st, "COMMIT", cause);
}

void
store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int
store_schema_version(struct store *st)
{
	sqlite3_stmt	*stmt = NULL;
	int		 v = -1;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &stmt,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}

/* Apply every migration newer than user_version, each in a transaction. */
static int
store_migrate(struct store *st, char **cause)
{
	char	*pragma = NULL;
	size_t	 i;
	int	 version, r = -1;

	if (store_begin(st, cause) != 0)
		return -1;
	if ((version = store_schema_version(st)) < 0) {
		store_error(st, cause, "reading the schema version");
		goto out;
	}
	for (i = 0; i < nr_migrations; i++) {
		if (migrations[i].version <= version)
			continue;
		if (store_exec(st, migrations[i].sql, cause) != 0) {
			error_prefix(cause, "migration %s", migrations[i].name);
			goto out;
		}
		free(pragma);
		pragma = xasprintf("PRAGMA user_version = %d",
		    migrations[i].version);
		if (store_exec(st, pragma, cause) != 0)
			goto out;
		version = migrations[i].version;
	}
	if (nr_migrations > 0 &&
	    version > migrations[nr_migrations - 1].version) {
		error_set(cause, "database '%s' has schema version %d, newer "
		    "than this program's %d", st->path, version,
		    migrations[nr_migrations - 1].version);
		goto out;
	}
	if (store_commit(st, cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0)
		store_rollback(st);
	free(pragma);
	return r;
}

int
store_open(const char *path, struct store **out, char **cause)
{
	struct store	*st = xcalloc(1, sizeof *st);
	char		*dir = path_dirname(path);
	int		 r = -1;

	st->path = xstrdup(path);
	if (dir_create(dir, cause) != 0)
		goto out;
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (st->db == NULL)
			error_set(cause, "couldn't open database '%s'", path);
		else
			store_error(st, cause, "opening");
		goto out;
	}
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	if (store_exec(st, "PRAGMA journal_mode = WAL", cause) != 0 ||
	    store_exec(st, "PRAGMA synchronous = NORMAL", cause) != 0)
		goto out;
	/*
	 * Foreign keys after the migrations: one that makes a table again
	 * (0007) must drop the old one while other tables refer to it, as
	 * SQLite's procedure for schema changes says.
	 */
	if (store_migrate(st, cause) != 0 ||
	    store_exec(st, "PRAGMA foreign_keys = ON", cause) != 0)
		goto out;
	*out = st;
	st = NULL;
	r = 0;
out:
	store_close(st);
	free(dir);
	return r;
}

void
store_close(struct store *st)
{
	size_t	i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nr_stmts; i++)
		sqlite3_finalize(st->stmts[i].stmt);
	free(st->stmts);
	if (st->db != NULL)
		sqlite3_close(st->db);
	free(st->path);
	free(st);
}

static const char sql_recover_runs[] =
    "UPDATE runs SET status = 'pending', requeues = requeues + 1, "
    "attempts = max(attempts - 1, 0), "
    "error = 'requeued: its scheduler went away' WHERE status = 'running'";
static const char sql_recover_builds[] =
    "UPDATE builds SET status = 'pending', requeues = requeues + 1, "
    "attempts = max(attempts - 1, 0), "
    "error = 'requeued: its scheduler went away' WHERE status = 'running'";

/*
 * Only one scheduler runs per database (it holds the lock), so anything
 * still marked running when it starts lost its process in a crash. It is
 * queued again, and the attempt it was on is given back: a crash of the
 * scheduler is not the work's fault. Its token changes when it is
 * started again, so a stale child could not record its results even if
 * it were alive.
 */
int
store_recover(struct store *st, int *nr_runs, int *nr_builds, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r = -1;

	if (store_begin(st, cause) != 0)
		return -1;
	if (store_stmt(st, &stmt, cause, sql_recover_runs, "") != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	*nr_runs = sqlite3_changes(st->db);
	if (store_stmt(st, &stmt, cause, sql_recover_builds, "") != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	*nr_builds = sqlite3_changes(st->db);
	if (store_commit(st, cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0)
		store_rollback(st);
	return r;
}

static const char sql_counts[] =
    "SELECT (SELECT count(*) FROM requests WHERE status IN ('pending', "
    "'running')), "
    "(SELECT count(*) FROM builds WHERE status = 'pending'), "
    "(SELECT count(*) FROM builds WHERE status = 'running'), "
    "(SELECT count(*) FROM builds WHERE status = 'ok'), "
    "(SELECT count(*) FROM builds WHERE status = 'failed'), "
    "(SELECT count(*) FROM runs WHERE status = 'pending'), "
    "(SELECT count(*) FROM runs WHERE status = 'running'), "
    "(SELECT count(*) FROM runs WHERE status = 'done'), "
    "(SELECT count(*) FROM runs WHERE status IN ('failed', 'skipped')), "
    "(SELECT count(*) FROM samples)";

int
store_counts(struct store *st, struct store_counts *out, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_counts, "") != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		out->requests_active = sqlite3_column_int(stmt, 0);
		out->builds_pending = sqlite3_column_int(stmt, 1);
		out->builds_running = sqlite3_column_int(stmt, 2);
		out->builds_ok = sqlite3_column_int(stmt, 3);
		out->builds_failed = sqlite3_column_int(stmt, 4);
		out->runs_pending = sqlite3_column_int(stmt, 5);
		out->runs_running = sqlite3_column_int(stmt, 6);
		out->runs_done = sqlite3_column_int(stmt, 7);
		out->runs_failed = sqlite3_column_int(stmt, 8);
		out->samples = sqlite3_column_int(stmt, 9);
	}
	sqlite3_reset(stmt);
	return r == 1 ? 0 : -1;
}
