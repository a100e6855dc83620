/*
 * What the store's files share: the connection, a cache of prepared
 * statements keyed by their (static) SQL text, and binding helpers.
 */
#ifndef SCHEMA_STORE_INTERNAL_H
#define SCHEMA_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "schema/store.h"

struct store_stmt {
	const char	*sql;
	sqlite3_stmt	*stmt;
};

struct store {
	sqlite3			*db;
	char			*path;
	struct store_stmt	*stmts;
	size_t			 nr_stmts;
	size_t			 alloc_stmts;
};

/*
 * Prepare (or reuse) sql and bind its parameters from fmt: 't' text (NULL
 * binds NULL), 'i' int64_t, 'd' double. The statement is reset first.
 */
int	 store_stmt(struct store *, sqlite3_stmt **out, char **cause,
	     const char *sql, const char *fmt, ...);
/* Step a statement that returns no rows (or ignores them). */
int	 store_exec_stmt(struct store *, sqlite3_stmt *, char **cause);
/* sqlite3_step: 1 row, 0 done, -1 error with *cause. */
int	 store_step(struct store *, sqlite3_stmt *, char **cause);
char	*store_column_text(sqlite3_stmt *, int);
/*
 * The index of a text column's value in names (the schema's words of an
 * enum, in its order), or none when NULL or not among them.
 */
int	 store_column_enum(sqlite3_stmt *, int, const char *const *names,
	     int nr, int none);
/* The schema's words of the enums of store.h, in their order. */
extern const char *const store_request_status_names[4];
extern const char *const store_build_status_names[4];
extern const char *const store_run_status_names[5];
extern const char *const store_bisection_status_names[7];
extern const char *const store_agent_state_names[4];
extern const char *const store_mail_status_names[4];
#define STORE_NR(a)	((int)(sizeof (a) / sizeof (a)[0]))
/* Every row's first column as int64 (ids). Resets the statement. */
int	 store_collect_ids(struct store *, sqlite3_stmt *, int64_t **ids,
	     size_t *nr, char **cause);
/* The first column of the one row a query returns (a count, a flag). */
int	 store_collect_int(struct store *, sqlite3_stmt *, int *out,
	     char **cause);
/* Every row's first column into *a and, when b is not NULL, its second. */
int	 store_collect_text(struct store *, sqlite3_stmt *, char ***a,
	     char ***b, size_t *nr, char **cause);
int64_t	 store_now(void);
int	 store_error(struct store *, char **cause, const char *what);

#endif
