/*
 * Agents and the placement of runs on them (schema/migrations/
 * 0004-agents.sql): whether each agent answers, why not and when to ask
 * again, its cached inventory and how disturbed its recent runs were
 * (where a job's runs go is store-job.c's).
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *const store_agent_state_names[4] = {
	"unknown", "up", "down", "refused",
};

static const char sql_agent_ensure[] =
    "INSERT OR IGNORE INTO agents (name, since) VALUES (?, ?)";
/*
 * A refused agent stays refused (placement keeps off it) until its probe
 * says otherwise; its stamp is forgotten, so that it is probed once more.
 */
static const char sql_agent_reset[] =
    "UPDATE agents SET since = CASE WHEN state = 'refused' THEN since "
    "ELSE ?1 END, stamp = CASE WHEN state = 'refused' THEN NULL ELSE stamp "
    "END, state = CASE WHEN state = 'refused' THEN state ELSE 'unknown' END, "
    "retry_at = NULL WHERE name = ?2";
static const char sql_agent_get[] =
    "SELECT name, state, error, since, failures, retry_at, stamp, "
    "inventory, inventory_at, nr_node, nr_cpu, memory FROM agents "
    "WHERE name = ?";
static const char sql_agent_list[] =
    "SELECT name, state, error, since, failures, retry_at, stamp, "
    "inventory, inventory_at, nr_node, nr_cpu, memory FROM agents "
    "ORDER BY name";
static const char sql_agent_up[] =
    "UPDATE agents SET state = 'up', error = NULL, since = CASE WHEN "
    "state = 'up' THEN since ELSE ? END, failures = 0, retry_at = NULL, "
    "stamp = NULL, inventory = ?, inventory_at = ?, nr_node = ?, "
    "nr_cpu = ?, memory = ? WHERE name = ?";
static const char sql_agent_down[] =
    "UPDATE agents SET state = 'down', since = CASE WHEN state = 'down' "
    "THEN since ELSE ? END, error = ?, failures = failures + 1, "
    "retry_at = ? + min(?, 1 << min(failures, 20)), stamp = NULL "
    "WHERE name = ?";
static const char sql_agent_refused[] =
    "UPDATE agents SET state = 'refused', error = ?2, since = ?1, "
    "failures = failures + 1, retry_at = NULL, stamp = ?3 WHERE name = ?4";

static int
store_agent_ensure(struct store *st, const char *name, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_agent_ensure, "ti", name,
	    store_now()) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_agent_reset(struct store *st, const char *name, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_agent_ensure(st, name, cause) != 0 ||
	    store_stmt(st, &stmt, cause, sql_agent_reset, "it", store_now(),
	    name) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

const char *
store_agent_state_name(enum store_agent_state state)
{
	return store_agent_state_names[state];
}

static void
store_agent_row(sqlite3_stmt *stmt, struct store_agent *a)
{
	memset(a, 0, sizeof *a);
	a->name = store_column_text(stmt, 0);
	a->state = store_column_enum(stmt, 1, store_agent_state_names,
	    STORE_NR(store_agent_state_names), STORE_AGENT_UNKNOWN);
	a->error = store_column_text(stmt, 2);
	a->since = sqlite3_column_int64(stmt, 3);
	a->failures = sqlite3_column_int(stmt, 4);
	a->retry_at = sqlite3_column_int64(stmt, 5);
	a->stamp = store_column_text(stmt, 6);
	a->inventory = store_column_text(stmt, 7);
	a->inventory_at = sqlite3_column_int64(stmt, 8);
	a->has_inventory = sqlite3_column_type(stmt, 9) != SQLITE_NULL;
	a->nr_node = (unsigned)sqlite3_column_int64(stmt, 9);
	a->nr_cpu = (unsigned)sqlite3_column_int64(stmt, 10);
	a->memory = (unsigned long long)sqlite3_column_int64(stmt, 11);
}

int
store_agent_get(struct store *st, const char *name, struct store_agent *out,
    int *found, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	*found = 0;
	if (store_stmt(st, &stmt, cause, sql_agent_get, "t", name) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		store_agent_row(stmt, out);
		*found = 1;
	}
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_agent_list(struct store *st, struct store_agent **out, size_t *nr,
    char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_agent	*v = NULL;
	size_t			 n = 0, alloc = 0;
	int			 r;

	if (store_stmt(st, &stmt, cause, sql_agent_list, "") != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		store_agent_row(stmt, &v[n++]);
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_agent_list_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

int
store_agent_up(struct store *st, const char *name, const char *inventory,
    unsigned nr_node, unsigned nr_cpu, unsigned long long memory,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_agent_ensure(st, name, cause) != 0 ||
	    store_stmt(st, &stmt, cause, sql_agent_up, "itiiiit", store_now(),
	    inventory, store_now(), (int64_t)nr_node, (int64_t)nr_cpu,
	    (int64_t)memory, name) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_agent_down(struct store *st, const char *name, const char *error,
    int max_interval, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_agent_ensure(st, name, cause) != 0 ||
	    store_stmt(st, &stmt, cause, sql_agent_down, "itiit", store_now(),
	    error, store_now(), (int64_t)(max_interval > 0 ? max_interval : 1),
	    name) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_agent_refuse(struct store *st, const char *name, const char *error,
    const char *stamp, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_agent_ensure(st, name, cause) != 0 ||
	    store_stmt(st, &stmt, cause, sql_agent_refused, "ittt",
	    store_now(), error, stamp, name) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

void
store_agent_release(struct store_agent *a)
{
	if (a == NULL)
		return;
	free(a->name);
	free(a->error);
	free(a->stamp);
	free(a->inventory);
	memset(a, 0, sizeof *a);
}

void
store_agent_list_free(struct store_agent *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		store_agent_release(&v[i]);
	free(v);
}

static const char sql_agent_disturbance[] =
    "WITH c AS (SELECT coalesce(max(returned_at), 0) AS t FROM runs WHERE "
    "agent = ? AND status = 'done' AND disturbed IS NULL) "
    "SELECT (SELECT count(*) FROM run_set_aside WHERE agent = ? AND at > ?) "
    "+ (SELECT count(*) FROM runs WHERE agent = ? AND status = 'done' AND "
    "disturbed IS NOT NULL AND returned_at > ?), (SELECT min(x) FROM "
    "(SELECT min(a.at) AS x FROM run_set_aside a, c WHERE a.agent = ? AND "
    "a.at > c.t UNION ALL SELECT min(r.returned_at) FROM runs r, c WHERE "
    "r.agent = ? AND r.status = 'done' AND r.disturbed IS NOT NULL AND "
    "r.returned_at > c.t))";

int
store_agent_disturbance(struct store *st, const char *agent, double since,
    int *disturbed, double *busy_since, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*disturbed = 0;
	*busy_since = 0;
	if (store_stmt(st, &stmt, cause, sql_agent_disturbance, "ttdtdtt",
	    agent, agent, since, agent, since, agent, agent) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		*disturbed = sqlite3_column_int(stmt, 0);
		*busy_since = sqlite3_column_double(stmt, 1);
	}
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}
