/*
 * The reports of concluded bisections (the reports table): each report
 * kept as written, and the list of the latest one per bisection that the
 * web index shows.
 */
#include <sqlite3.h>

#include <stdlib.h>

#include "schema/store-internal.h"
#include "util/xalloc.h"

static const char sql_report_add[] =
    "INSERT INTO reports (bisection, headline, body, created) VALUES "
    "(?, ?, ?, ?)";
static const char sql_report_list[] =
    "SELECT bisection, headline, max(created) FROM reports "
    "GROUP BY bisection ORDER BY bisection DESC";

int
store_report_add(struct store *st, int64_t bisection, const char *headline,
    const char *body, int64_t *id, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_report_add, "itti", bisection,
	    headline, body, store_now()) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int
store_report_list(struct store *st, struct store_report_entry **out,
    size_t *nr, char **cause)
{
	sqlite3_stmt			*stmt;
	struct store_report_entry	*v = NULL;
	size_t				 n = 0, alloc = 0;
	int				 r;

	if (store_stmt(st, &stmt, cause, sql_report_list, "") != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n].bisection = sqlite3_column_int64(stmt, 0);
		v[n].headline = store_column_text(stmt, 1);
		v[n].created = sqlite3_column_int64(stmt, 2);
		n++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_report_list_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

void
store_report_list_free(struct store_report_entry *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i].headline);
	free(v);
}
