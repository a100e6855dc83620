/*
 * A commit's series: the values one job's done runs at that commit
 * recorded for a metric (or for every metric), in run order, each with
 * its per-instance values, the agent that ran it, its start (on a clock
 * a wall clock step cannot move) and its boot.
 */
#include <sqlite3.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/xalloc.h"

/*
 * A run's start on a clock that a step of the wall clock cannot move: the
 * wall clock read at its boot's first run, plus the monotonic time since.
 * NTP stepping the clock back an hour would otherwise make the runs before
 * the step the newest forever, and the time blocks and the sentinel
 * (stats/bisect-time.c) read every later run as older than they are. A run
 * without a monotonic reading or a boot keeps its wall clock.
 */
#define RUN_START							\
    "CASE WHEN r.started_mono IS NULL OR r.boot_id IS NULL "		\
    "THEN r.started_wall ELSE r.started_mono + (SELECT "		\
    "b.started_wall - b.started_mono FROM runs b WHERE "		\
    "b.boot_id = r.boot_id AND b.started_mono IS NOT NULL AND "		\
    "b.started_wall IS NOT NULL ORDER BY b.id LIMIT 1) END"

static const char sql_series_get[] =
    "SELECT s.value, s.instances, r.agent, " RUN_START ", r.boot_id FROM "
    "samples s JOIN runs r ON "
    "s.run = r.id "
    "WHERE r.job = ? AND r.repo = ? AND r.commit_oid = ? AND "
    "r.status = 'done' AND s.metric = ? ORDER BY r.seq";
static const char sql_series_all[] =
    "SELECT s.metric, s.value, s.instances, r.agent, " RUN_START ", "
    "r.boot_id FROM samples s JOIN "
    "runs r ON "
    "s.run = r.id WHERE r.job = ? AND r.repo = ? AND r.commit_oid = ? AND "
    "r.status = 'done' ORDER BY s.metric, r.seq";

/* Parse the "[1,2.5,...]" store-run.c writes; anything else gives nothing. */
static void
store_series_instances_parse(const char *s, double **v, size_t *n, size_t *alloc)
{
	char	*end;
	double	 x;

	if (s == NULL || *s != '[')
		return;
	s++;
	while (*s != '\0' && *s != ']') {
		x = strtod(s, &end);
		if (end == s)
			return;
		ALLOC_GROW(*v, *n, *alloc);
		(*v)[(*n)++] = x;
		s = end;
		if (*s == ',')
			s++;
	}
}

/*
 * One run's sample: its value in column col, its instances next, then the
 * agent that ran it, its start and its boot.
 */
static void
store_series_add(struct store_series *s, sqlite3_stmt *stmt, int col,
    size_t *alloc, size_t *ialloc)
{
	if (s->nr >= *alloc) {
		ALLOC_GROW(s->values, s->nr, *alloc);
		s->agents = xreallocarray(s->agents, *alloc,
		    sizeof *s->agents);
		s->starts = xreallocarray(s->starts, *alloc,
		    sizeof *s->starts);
		s->boots = xreallocarray(s->boots, *alloc, sizeof *s->boots);
	}
	s->agents[s->nr] = store_column_text(stmt, col + 2);
	s->starts[s->nr] = sqlite3_column_type(stmt, col + 3) == SQLITE_NULL ?
	    NAN : sqlite3_column_double(stmt, col + 3);
	s->boots[s->nr] = store_column_text(stmt, col + 4);
	s->values[s->nr++] = sqlite3_column_double(stmt, col);
	if (sqlite3_column_type(stmt, col + 1) == SQLITE_TEXT) {
		store_series_instances_parse((const char *)sqlite3_column_text(stmt,
		    col + 1), &s->instances, &s->nr_instances, ialloc);
		s->nr_instance_runs++;
	}
}

int
store_series_get(struct store *st, int64_t job, const char *repo,
    const char *oid, const char *metric, struct store_series *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	size_t		 alloc = 0, ialloc = 0;
	int		 r;

	memset(out, 0, sizeof *out);
	out->metric = xstrdup(metric);
	if (store_stmt(st, &stmt, cause, sql_series_get, "ittt", job, repo,
	    oid, metric) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1)
		store_series_add(out, stmt, 0, &alloc, &ialloc);
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_series_all(struct store *st, int64_t job, const char *repo,
    const char *oid, struct store_series **out, size_t *nr, char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_series	*v = NULL, *cur = NULL;
	size_t			 n = 0, alloc = 0, valloc = 0, ialloc = 0;
	const char		*metric;
	int			 r;

	if (store_stmt(st, &stmt, cause, sql_series_all, "itt", job, repo,
	    oid) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		metric = (const char *)sqlite3_column_text(stmt, 0);
		if (cur == NULL || strcmp(cur->metric, metric) != 0) {
			ALLOC_GROW(v, n, alloc);
			cur = &v[n++];
			memset(cur, 0, sizeof *cur);
			cur->metric = xstrdup(metric);
			valloc = ialloc = 0;
		}
		store_series_add(cur, stmt, 1, &valloc, &ialloc);
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_series_list_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

void
store_series_release(struct store_series *s)
{
	if (s == NULL)
		return;
	size_t	i;

	for (i = 0; s->agents != NULL && i < s->nr; i++)
		free(s->agents[i]);
	free(s->agents);
	for (i = 0; s->boots != NULL && i < s->nr; i++)
		free(s->boots[i]);
	free(s->boots);
	free(s->starts);
	free(s->metric);
	free(s->values);
	free(s->instances);
	memset(s, 0, sizeof *s);
}

void
store_series_list_free(struct store_series *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		store_series_release(&v[i]);
	free(v);
}
