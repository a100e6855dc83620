/*
 * Runs and what they recorded. A run is one execution of a job at a
 * commit; its samples (one per metric, with per-instance values) and the
 * environment it saw are written together with its "done" status in one
 * transaction, and only by the attempt that currently owns the run.
 */
#include <sqlite3.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema/store-internal.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

const char *const store_run_status_names[5] = {
	"pending", "running", "done", "failed", "skipped",
};

const char *
store_run_status_name(enum store_run_status status)
{
	return store_run_status_names[status];
}

static const char sql_run_count[] =
    "SELECT count(*) FILTER (WHERE status IN ('pending', 'running', "
    "'done')), coalesce(max(seq) + 1, 0) FROM runs WHERE job = ? AND "
    "repo = ? AND commit_oid = ?";
static const char sql_run_totals[] =
    "SELECT count(*) FILTER (WHERE status = 'done'), count(*) FILTER "
    "(WHERE status IN ('failed', 'skipped')) FROM runs WHERE job = ? AND "
    "repo = ? AND commit_oid = ?";
static const char sql_run_add[] =
    "INSERT INTO runs (job, repo, commit_oid, seq, recipe, created) "
    "VALUES (?, ?, ?, ?, ?, ?)";
static const char sql_run_pending[] =
    "SELECT id FROM runs WHERE status = 'pending' ORDER BY dispatch_key IS "
    "NULL, dispatch_key, id";
static const char sql_run_get[] =
    "SELECT id, job, repo, commit_oid, seq, recipe, status, agent, token, "
    "attempts, run_dir, error, started_wall, started_mono, ended_wall, "
    "ended_mono, boot_id, set_aside, disturbed, coalesce(dispatch_key, -1) "
    "FROM runs WHERE id = ?";
static const char sql_run_start[] =
    "UPDATE runs SET status = 'running', agent = ?, run_dir = ?, "
    "attempts = attempts + 1, token = abs(random()), started = ?, "
    "error = NULL, dispatched_at = ?, returned_at = NULL WHERE id = ? AND "
    "status = 'pending' RETURNING token";
static const char sql_run_owner[] =
    "SELECT status, token FROM runs WHERE id = ?";
static const char sql_run_done[] =
    "UPDATE runs SET status = 'done', exit_status = ?, finished = ?, "
    "returned_at = ?, started_wall = ?, started_mono = ?, ended_wall = ?, "
    "ended_mono = ?, boot_id = ?, disturbed = ? WHERE id = ?";
static const char sql_sample_add[] =
    "INSERT INTO samples (run, metric, value, instances) VALUES (?, ?, ?, ?)";
static const char sql_env_add[] =
    "INSERT OR REPLACE INTO run_env (run, key, value) VALUES (?, ?, ?)";
static const char sql_run_retry[] =
    "UPDATE runs SET status = CASE WHEN attempts - set_aside >= ? THEN "
    "'failed' ELSE "
    "'pending' END, error = ?, finished = ?, returned_at = ? WHERE id = ? "
    "AND token = ? AND status = 'running'";
static const char sql_run_give_back[] =
    "UPDATE runs SET status = 'pending', requeues = requeues + 1, "
    "attempts = max(attempts - 1, 0), error = ?, returned_at = ? "
    "WHERE id = ? AND token = ? AND status = 'running'";
static const char sql_run_failure_add[] =
    "INSERT OR REPLACE INTO run_failures (run, attempt, agent, error, at) "
    "SELECT id, attempts, agent, ?, ? FROM runs WHERE id = ? AND "
    "token = ? AND status = 'running'";
static const char sql_run_skip_build[] =
    "UPDATE runs SET status = 'skipped', error = ?, finished = ? WHERE "
    "repo = ? AND commit_oid = ? AND recipe = ? AND status = 'pending'";
static const char sql_run_busy[] =
    "SELECT EXISTS (SELECT 1 FROM runs WHERE job = ? AND repo = ? AND "
    "status IN ('pending', 'running'))";
static const char sql_run_running_agent[] =
    "SELECT count(*) FROM runs WHERE status = 'running' AND agent = ?";
static const char sql_run_last_done[] =
    "SELECT id FROM runs WHERE job = ? AND repo = ? AND commit_oid = ? AND "
    "status = 'done' ORDER BY seq DESC LIMIT 1";
static const char sql_run_env_of[] =
    "SELECT key, value FROM run_env WHERE run = ? ORDER BY key";
static const char sql_run_samples[] =
    "SELECT metric, value FROM samples WHERE run = ? ORDER BY metric";

/* Unix time to the microsecond, for dispatched_at and returned_at. */
static double
store_run_clock(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

/*
 * The two counts sql gives for the runs of (job, repo, oid); an aggregate
 * always gives its row.
 */
static int
store_run_counts(struct store *st, const char *sql, int64_t job,
    const char *repo, const char *oid, int *a, int *b, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	if (store_stmt(st, &stmt, cause, sql, "itt", job, repo, oid) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		*a = sqlite3_column_int(stmt, 0);
		*b = sqlite3_column_int(stmt, 1);
	}
	sqlite3_reset(stmt);
	return r == 1 ? 0 : -1;
}

int
store_run_count(struct store *st, int64_t job, const char *repo,
    const char *oid, int *live, int *next_seq, char **cause)
{
	return store_run_counts(st, sql_run_count, job, repo, oid, live,
	    next_seq, cause);
}

int
store_run_totals(struct store *st, int64_t job, const char *repo,
    const char *oid, int *done, int *failed, char **cause)
{
	return store_run_counts(st, sql_run_totals, job, repo, oid, done,
	    failed, cause);
}

int
store_run_add(struct store *st, int64_t job, const char *repo,
    const char *oid, int seq, const char *recipe, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_add, "ittiti", job, repo,
	    oid, (int64_t)seq, recipe, store_now()) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_run_pending(struct store *st, int64_t **ids, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_pending, "") != 0)
		return -1;
	return store_collect_ids(st, stmt, ids, nr, cause);
}

int
store_run_get(struct store *st, int64_t id, struct store_run *out,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_run_get, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		out->id = sqlite3_column_int64(stmt, 0);
		out->job = sqlite3_column_int64(stmt, 1);
		out->repo = store_column_text(stmt, 2);
		out->commit_oid = store_column_text(stmt, 3);
		out->seq = sqlite3_column_int(stmt, 4);
		out->recipe = store_column_text(stmt, 5);
		out->status = store_column_enum(stmt, 6, store_run_status_names,
		    STORE_NR(store_run_status_names), STORE_RUN_PENDING);
		out->agent = store_column_text(stmt, 7);
		out->token = sqlite3_column_int64(stmt, 8);
		out->attempts = sqlite3_column_int(stmt, 9);
		out->run_dir = store_column_text(stmt, 10);
		out->error = store_column_text(stmt, 11);
		out->has_times = sqlite3_column_type(stmt, 12) != SQLITE_NULL;
		out->started_wall = sqlite3_column_double(stmt, 12);
		out->started_mono = sqlite3_column_double(stmt, 13);
		out->ended_wall = sqlite3_column_double(stmt, 14);
		out->ended_mono = sqlite3_column_double(stmt, 15);
		out->boot_id = store_column_text(stmt, 16);
		out->set_aside = sqlite3_column_int(stmt, 17);
		out->disturbed = store_column_text(stmt, 18);
		out->dispatch_key = sqlite3_column_int64(stmt, 19);
	}
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "no run %lld", (long long)id);
	return r < 0 ? -1 : 0;
}

int
store_run_start(struct store *st, int64_t id, const char *agent,
    const char *run_dir, int64_t *token, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	if (store_stmt(st, &stmt, cause, sql_run_start, "ttidi", agent,
	    run_dir, store_now(), store_run_clock(), id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*token = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "run %lld is not pending",
		    (long long)id);
	return r < 0 ? -1 : 0;
}

static char *
store_run_instances_json(const double *v, size_t n)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;

	strbuf_addch(&sb, '[');
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%.17g", i ? "," : "", v[i]);
	strbuf_addch(&sb, ']');
	return strbuf_detach(&sb, NULL);
}

int
store_run_finish(struct store *st, int64_t id, int64_t token,
    int exit_status, const struct store_sample *samples, size_t nr_samples,
    const struct store_env *env, size_t nr_env, char **cause)
{
	return store_run_finish_at(st, id, token, exit_status, samples,
	    nr_samples, env, nr_env, NULL, cause);
}

/* Is the run still this attempt's (running, with this token)? */
static int
store_run_mine(struct store *st, int64_t id, int64_t token, int *mine,
    char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*mine = 0;
	if (store_stmt(st, &stmt, cause, sql_run_owner, "i", id) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*mine = store_column_enum(stmt, 0, store_run_status_names,
		    STORE_NR(store_run_status_names), -1) ==
		    STORE_RUN_RUNNING &&
		    sqlite3_column_int64(stmt, 1) == token;
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_run_finish_at(struct store *st, int64_t id, int64_t token,
    int exit_status, const struct store_sample *samples, size_t nr_samples,
    const struct store_env *env, size_t nr_env,
    const struct store_run_times *t, char **cause)
{
	static const struct store_run_times none;
	sqlite3_stmt	*stmt;
	char		*inst = NULL;
	size_t		 i;
	int		 r = -1, mine;

	if (store_begin(st, cause) != 0)
		return -1;
	if (store_run_mine(st, id, token, &mine, cause) != 0)
		goto out;
	if (!mine) {
		store_rollback(st);
		r = 1;
		goto out;
	}
	r = -1;
	for (i = 0; i < nr_samples; i++) {
		if (!isfinite(samples[i].value))
			continue;
		free(inst);
		inst = NULL;
		if (samples[i].nr_instances > 0)
			inst = store_run_instances_json(samples[i].instances,
			    samples[i].nr_instances);
		if (store_stmt(st, &stmt, cause, sql_sample_add, "itdt", id,
		    samples[i].metric, samples[i].value, inst) != 0 ||
		    store_exec_stmt(st, stmt, cause) != 0)
			goto out;
	}
	for (i = 0; i < nr_env; i++) {
		if (store_stmt(st, &stmt, cause, sql_env_add, "itt", id,
		    env[i].key, env[i].value) != 0 ||
		    store_exec_stmt(st, stmt, cause) != 0)
			goto out;
	}
	if (t == NULL)
		t = &none;
	if (store_stmt(st, &stmt, cause, sql_run_done, "iidddddtti",
	    (int64_t)exit_status, store_now(), store_run_clock(),
	    t->has_times ? t->started_wall : NAN,
	    t->has_times ? t->started_mono : NAN,
	    t->has_times ? t->ended_wall : NAN,
	    t->has_times ? t->ended_mono : NAN, t->boot_id, t->disturbed,
	    id) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (store_commit(st, cause) != 0)
		goto out;
	r = 0;
out:
	if (r < 0)
		store_rollback(st);
	free(inst);
	return r;
}

/* The attempt's failure is kept (run_failures) along with the retry. */
int
store_run_give_back(struct store *st, int64_t id, int64_t token,
    const char *error, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_give_back, "tdii", error,
	    store_run_clock(), id, token) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_run_retry(struct store *st, int64_t id, int64_t token,
    const char *error, int max_attempts, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 own = sqlite3_get_autocommit(st->db), r = -1;

	if (own && store_begin(st, cause) != 0)
		return -1;
	if (store_stmt(st, &stmt, cause, sql_run_failure_add, "tiii", error,
	    store_now(), id, token) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (store_stmt(st, &stmt, cause, sql_run_retry, "itidii",
	    (int64_t)max_attempts, error, store_now(), store_run_clock(), id,
	    token) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (own && store_commit(st, cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0 && own)
		store_rollback(st);
	return r;
}

int
store_run_skip_build(struct store *st, const char *repo, const char *oid,
    const char *recipe, const char *error, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_skip_build, "tittt",
	    error, store_now(), repo, oid, recipe) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

int
store_run_busy(struct store *st, int64_t job, const char *repo, int *busy,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_busy, "it", job, repo) != 0)
		return -1;
	return store_collect_int(st, stmt, busy, cause);
}

int
store_run_count_running(struct store *st, const char *agent, int *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_running_agent, "t",
	    agent) != 0)
		return -1;
	return store_collect_int(st, stmt, nr, cause);
}

void
store_run_release(struct store_run *run)
{
	if (run == NULL)
		return;
	free(run->repo);
	free(run->commit_oid);
	free(run->recipe);
	free(run->agent);
	free(run->run_dir);
	free(run->error);
	free(run->boot_id);
	free(run->disturbed);
	memset(run, 0, sizeof *run);
}

void
store_run_env_list_free(struct store_run_env *v, size_t n)
{
	size_t	i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i].nr; k++) {
			free(v[i].keys[k]);
			free(v[i].values[k]);
		}
		free(v[i].keys);
		free(v[i].values);
		free(v[i].agent);
		free(v[i].boot_id);
	}
	free(v);
}

static const char sql_run_commits[] =
    "SELECT commit_oid FROM runs WHERE job = ? AND repo = ? GROUP BY "
    "commit_oid ORDER BY min(id)";

int
store_run_commits(struct store *st, int64_t job, const char *repo,
    char ***oids, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_commits, "it", job,
	    repo) != 0)
		return -1;
	return store_collect_text(st, stmt, oids, NULL, nr, cause);
}

int
store_run_last_done(struct store *st, int64_t job, const char *repo,
    const char *oid, int64_t *run, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*run = 0;
	if (store_stmt(st, &stmt, cause, sql_run_last_done, "itt", job, repo,
	    oid) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*run = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_run_env_of(struct store *st, int64_t run, char ***keys,
    char ***values, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_env_of, "i", run) != 0)
		return -1;
	return store_collect_text(st, stmt, keys, values, nr, cause);
}

int
store_run_samples(struct store *st, int64_t run, char ***metrics,
    double **values, size_t *nr, char **cause)
{
	sqlite3_stmt	*stmt;
	char		**m = NULL;
	double		 *v = NULL;
	size_t		  n = 0, alloc = 0;
	int		  r;

	if (store_stmt(st, &stmt, cause, sql_run_samples, "i", run) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		if (n >= alloc) {
			ALLOC_GROW(m, n, alloc);
			v = xreallocarray(v, alloc, sizeof *v);
		}
		m[n] = store_column_text(stmt, 0);
		v[n++] = sqlite3_column_double(stmt, 1);
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		while (n-- > 0)
			free(m[n]);
		free(m);
		free(v);
		return -1;
	}
	*metrics = m;
	*values = v;
	*nr = n;
	return 0;
}

static const char sql_set_aside_add[] =
    "INSERT INTO run_set_aside (run, nth, attempt, agent, why, other_cpu, "
    "runqueue, steal, value, started_wall, boot_id, at) SELECT id, "
    "set_aside + 1, attempts, agent, ?, ?, ?, ?, ?, ?, ?, ? FROM runs "
    "WHERE id = ?";
static const char sql_set_aside_run[] =
    "UPDATE runs SET status = 'pending', set_aside = set_aside + 1, "
    "dispatch_key = NULL, error = ?, returned_at = ? WHERE id = ?";
static const char sql_disturbed_totals[] =
    "SELECT (SELECT count(*) FROM run_set_aside a JOIN runs r ON "
    "a.run = r.id WHERE r.job = ? AND r.repo = ?), (SELECT count(*) "
    "FROM runs WHERE job = ? AND repo = ? AND status = 'done' AND "
    "disturbed IS NOT NULL), (SELECT a.why FROM run_set_aside a JOIN runs "
    "r ON a.run = r.id WHERE r.job = ? AND r.repo = ? ORDER BY a.at "
    "DESC, a.run DESC LIMIT 1)";
static const char sql_run_unordered[] =
    "SELECT id, job, repo, commit_oid, seq FROM runs WHERE status = "
    "'pending' AND dispatch_key IS NULL ORDER BY id";
static const char sql_run_order_max[] =
    "SELECT coalesce(max(dispatch_key), -1) FROM runs";
static const char sql_run_set_order[] =
    "UPDATE runs SET dispatch_key = ? WHERE id = ?";

int
store_run_set_aside(struct store *st, int64_t id, int64_t token,
    const struct store_set_aside *sa, char **cause)
{
	sqlite3_stmt	*stmt;
	char		*error = NULL;
	int		 mine, r = -1;

	if (store_begin(st, cause) != 0)
		return -1;
	if (store_run_mine(st, id, token, &mine, cause) != 0)
		goto out;
	if (!mine) {
		store_rollback(st);
		return 1;
	}
	error = xasprintf("set aside as disturbed: %s", sa->why);
	if (store_stmt(st, &stmt, cause, sql_set_aside_add, "tdddddtii",
	    sa->why, sa->other_cpu, sa->runqueue, sa->steal, sa->value,
	    sa->started_wall, sa->boot_id, store_now(), id) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (store_stmt(st, &stmt, cause, sql_set_aside_run, "tdi", error,
	    store_run_clock(), id) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		goto out;
	if (store_commit(st, cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0)
		store_rollback(st);
	free(error);
	return r;
}

int
store_run_disturbed_totals(struct store *st, int64_t job, const char *repo,
    int *set_aside, int *kept, char **why, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	*set_aside = *kept = 0;
	if (why != NULL)
		*why = NULL;
	if (store_stmt(st, &stmt, cause, sql_disturbed_totals, "ititit", job,
	    repo, job, repo, job, repo) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		*set_aside = sqlite3_column_int(stmt, 0);
		*kept = sqlite3_column_int(stmt, 1);
		if (why != NULL)
			*why = store_column_text(stmt, 2);
	}
	sqlite3_reset(stmt);
	return r < 0 ? -1 : 0;
}

int
store_run_unordered(struct store *st, struct store_run_order **out,
    size_t *nr, int64_t *max_key, char **cause)
{
	sqlite3_stmt		*stmt;
	struct store_run_order	*v = NULL;
	size_t			 n = 0, alloc = 0;
	int			 r;

	*out = NULL;
	*nr = 0;
	if (store_stmt(st, &stmt, cause, sql_run_order_max, "") != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		*max_key = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	if (r < 0)
		return -1;
	if (store_stmt(st, &stmt, cause, sql_run_unordered, "") != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n].id = sqlite3_column_int64(stmt, 0);
		v[n].job = sqlite3_column_int64(stmt, 1);
		v[n].repo = store_column_text(stmt, 2);
		v[n].commit_oid = store_column_text(stmt, 3);
		v[n].seq = sqlite3_column_int(stmt, 4);
		n++;
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_run_order_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

int
store_run_set_order(struct store *st, int64_t id, int64_t key, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_set_order, "ii", key,
	    id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}

void
store_run_order_free(struct store_run_order *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].repo);
		free(v[i].commit_oid);
	}
	free(v);
}

static const char sql_run_done_on[] =
    "SELECT count(*) FROM runs WHERE job = ? AND agent = ? AND "
    "status = 'done'";
static const char sql_run_fail[] =
    "UPDATE runs SET status = 'failed', error = ?, finished = ? WHERE "
    "id = ? AND status = 'pending'";

int
store_run_done_on(struct store *st, int64_t job, const char *agent, int *nr,
    char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_done_on, "it", job,
	    agent) != 0)
		return -1;
	return store_collect_int(st, stmt, nr, cause);
}

int
store_run_fail(struct store *st, int64_t id, const char *error, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_run_fail, "tii", error,
	    store_now(), id) != 0)
		return -1;
	return store_exec_stmt(st, stmt, cause);
}
