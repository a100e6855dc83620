/*
 * The store: bisectd's state in SQLite, behind prepared statements only.
 * Opening applies the numbered migrations of schema/migrations/ in order,
 * turns on WAL and a busy timeout, so that the scheduler and its children
 * (each with its own connection) can write concurrently.
 */
#ifndef SCHEMA_STORE_H
#define SCHEMA_STORE_H

#include <stddef.h>
#include <stdint.h>

struct store;

/*
 * The states of the rows, as the code sees them; the store reads and
 * writes them as the schema's text (schema/migrations/), and the
 * *_status_name functions give that text for JSON and messages.
 */
enum store_request_status {
	STORE_REQUEST_PENDING,
	STORE_REQUEST_RUNNING,
	STORE_REQUEST_DONE,
	STORE_REQUEST_FAILED,
};

enum store_build_status {
	STORE_BUILD_PENDING,
	STORE_BUILD_RUNNING,
	STORE_BUILD_OK,
	STORE_BUILD_FAILED,
};

enum store_run_status {
	STORE_RUN_PENDING,
	STORE_RUN_RUNNING,
	STORE_RUN_DONE,
	STORE_RUN_FAILED,
	STORE_RUN_SKIPPED,
};

enum store_bisection_status {
	STORE_BISECTION_NONE = -1,	/* no bisection (a regression's) */
	STORE_BISECTION_RUNNING,
	STORE_BISECTION_FOUND,
	STORE_BISECTION_NO_CHANGE,
	STORE_BISECTION_AMBIGUOUS,
	STORE_BISECTION_FAILED,
	STORE_BISECTION_UNCONFIRMED,
	STORE_BISECTION_INCONCLUSIVE,
};

enum store_agent_state {
	STORE_AGENT_UNKNOWN,
	STORE_AGENT_UP,
	STORE_AGENT_DOWN,
	STORE_AGENT_REFUSED,
};

const char	*store_request_status_name(enum store_request_status);
const char	*store_build_status_name(enum store_build_status);
const char	*store_run_status_name(enum store_run_status);
/* NULL for STORE_BISECTION_NONE */
const char	*store_bisection_status_name(enum store_bisection_status);
const char	*store_agent_state_name(enum store_agent_state);
/*
 * A request's status, from its bisection's: running while the bisection
 * runs, failed when it failed, else done.
 */
enum store_request_status store_request_status_of(
		    enum store_bisection_status);

struct store_request {
	int64_t	 id;
	char	*kind;		/* queue, compare, bisect */
	enum store_request_status status;
	char	*repo;
	char	*job_file;
	char	*args;		/* JSON */
	char	*error;
	int64_t	 created;
	int64_t	 finished;
};

struct store_job {
	int64_t	 id;
	char	*job_id;
	char	*testcase;
	char	*description;
	char	*canonical;
	char	*metric;
	char	*direction;
};

struct store_build {
	int64_t	 id;
	char	*repo;
	char	*commit_oid;
	char	*recipe;
	enum store_build_status status;
	int	 attempts;
	char	*artifact_dir;
	char	*log_path;
	char	*log_tail;
	double	 seconds;
	char	*error;
};

struct store_run {
	int64_t	 id;
	int64_t	 job;
	char	*repo;
	char	*commit_oid;
	int	 seq;
	char	*recipe;
	enum store_run_status status;
	char	*agent;
	int64_t	 token;
	int	 attempts;
	char	*run_dir;
	char	*error;
	/* 0006-timing.sql: when and in which boot it ran, once done */
	int	 has_times;
	double	 started_wall;	/* Unix seconds */
	double	 started_mono;	/* the agent's CLOCK_MONOTONIC */
	double	 ended_wall;
	double	 ended_mono;
	char	*boot_id;
	int	 set_aside;	/* attempts set aside as disturbed */
	char	*disturbed;	/* counted though disturbed: why, or NULL */
	int64_t	 dispatch_key;	/* its place in the dispatch order, or -1 */
};

/* What store_run_finish_at records besides samples and environment. */
struct store_run_times {
	int		 has_times;
	double		 started_wall;
	double		 started_mono;
	double		 ended_wall;
	double		 ended_mono;
	const char	*boot_id;	/* or NULL */
	const char	*disturbed;	/* counted though disturbed, or NULL */
};

/* A disturbed attempt that is set aside (run_set_aside). */
struct store_set_aside {
	const char	*why;
	double		 other_cpu;	/* NAN when unknown */
	double		 runqueue;
	double		 steal;
	double		 value;		/* the headline metric, or NAN */
	double		 started_wall;	/* NAN when unknown */
	const char	*boot_id;
};

/* A pending run not yet given its place in the dispatch order. */
struct store_run_order {
	int64_t	 id;
	int64_t	 job;
	char	*repo;
	char	*commit_oid;
	int	 seq;
};

struct store_bisection {
	int64_t	 id;
	int64_t	 job;
	char	*repo;
	char	*good;
	char	*bad;
	char	*metric;
	char	*direction;
	enum store_bisection_status status;
	char	*progress;
	char	*result;	/* JSON or NULL */
};

struct store_step {
	char	*commit_oid;
	char	*verdict;
	int	 samples;
	double	 mean;
};

/* One metric at one commit: every value, in run order. */
struct store_series {
	char	*metric;
	double	*values;
	char	**agents;	/* per value, the agent that ran it, or NULL */
	double	*starts;	/* per value, its run's wall-clock start
				   (Unix seconds), NAN when unknown */
	char	**boots;	/* per value, its run's boot_id, or NULL */
	size_t	 nr;
	/* per-instance values of the most recent runs, flattened */
	double	*instances;
	size_t	 nr_instances;
	size_t	 nr_instance_runs;
};

/* What a finished run recorded: written in one transaction. */
struct store_sample {
	const char	*metric;
	double		 value;
	const double	*instances;
	size_t		 nr_instances;
};

struct store_env {
	const char	*key;
	const char	*value;
};

int	 store_open(const char *path, struct store **out, char **cause);
void	 store_close(struct store *);
int	 store_begin(struct store *, char **cause);
int	 store_commit(struct store *, char **cause);
void	 store_rollback(struct store *);
int	 store_schema_version(struct store *);

/* requests */
int	 store_request_add(struct store *, const char *kind, const char *repo,
	     const char *job_file, const char *dedup_key, const char *args,
	     int64_t *id, char **cause);
int	 store_request_get(struct store *, int64_t id,
	     struct store_request *out, char **cause);
/* An unfinished request with this key, or 0. */
int	 store_request_find_active(struct store *, const char *dedup_key,
	     int64_t *id, char **cause);
int	 store_request_active(struct store *, int64_t **ids, size_t *nr,
	     char **cause);
int	 store_request_set_status(struct store *, int64_t id,
	     enum store_request_status, const char *error, char **cause);
int	 store_request_job_add(struct store *, int64_t request, int64_t job,
	     char **cause);
int	 store_request_jobs(struct store *, int64_t request, int64_t **jobs,
	     size_t *nr, char **cause);
int	 store_request_commit_add(struct store *, int64_t request, int seq,
	     const char *oid, const char *rev, char **cause);
int	 store_request_commits(struct store *, int64_t request, char ***oids,
	     char ***revs, size_t *nr, char **cause);
int	 store_request_list(struct store *, int limit,
	     struct store_request **out, size_t *nr, char **cause);
void	 store_request_release(struct store_request *);

/* jobs */
int	 store_job_add(struct store *, const char *job_id, const char *testcase,
	     const char *description, const char *canonical, const char *metric,
	     const char *direction, int64_t *id, char **cause);
int	 store_job_get(struct store *, int64_t id, struct store_job *out,
	     char **cause);
void	 store_job_release(struct store_job *);

/* builds */
int	 store_build_ensure(struct store *, const char *repo, const char *oid,
	     const char *recipe, int64_t *id, char **cause);
/* 1 and out filled when the build exists, 0 when not. */
int	 store_build_find(struct store *, const char *repo, const char *oid,
	     const char *recipe, struct store_build *out, char **cause);
int	 store_build_get(struct store *, int64_t id, struct store_build *out,
	     char **cause);
int	 store_build_pending(struct store *, int64_t **ids, size_t *nr,
	     char **cause);
int	 store_build_start(struct store *, int64_t id, char **cause);
/*
 * A build found ok whose artifacts no longer match their digest: pending
 * again (failed once it had max_attempts), with the error.
 */
int	 store_build_invalidate(struct store *, int64_t id, const char *error,
	     int max_attempts, char **cause);
int	 store_build_finish(struct store *, int64_t id,
	     enum store_build_status,
	     const char *artifact_dir, const char *log_path,
	     const char *log_tail, double seconds, const char *error,
	     char **cause);
/* The child died without finishing: back to pending, or failed at cap. */
int	 store_build_retry(struct store *, int64_t id, const char *error,
	     int max_attempts, char **cause);
int	 store_build_count_running(struct store *, const char *repo, int *nr,
	     char **cause);
void	 store_build_release(struct store_build *);

/* runs */
/* Runs of (job, repo, oid) that are pending, running or done. */
int	 store_run_count(struct store *, int64_t job, const char *repo,
	     const char *oid, int *live, int *next_seq, char **cause);
int	 store_run_add(struct store *, int64_t job, const char *repo,
	     const char *oid, int seq, const char *recipe, char **cause);
/* Pending runs in dispatch order (then creation order). */
int	 store_run_pending(struct store *, int64_t **ids, size_t *nr,
	     char **cause);
int	 store_run_get(struct store *, int64_t id, struct store_run *out,
	     char **cause);
int	 store_run_start(struct store *, int64_t id, const char *agent,
	     const char *run_dir, int64_t *token, char **cause);
/*
 * Record a finished run in one transaction: samples, environment, status
 * done. Returns 1 when the run is no longer ours (token changed, status not
 * running): nothing is written then, so nothing is counted twice.
 */
int	 store_run_finish(struct store *, int64_t id, int64_t token,
	     int exit_status, const struct store_sample *, size_t nr_samples,
	     const struct store_env *, size_t nr_env, char **cause);
/* The same, with when it ran (times may be NULL). */
int	 store_run_finish_at(struct store *, int64_t id, int64_t token,
	     int exit_status, const struct store_sample *, size_t nr_samples,
	     const struct store_env *, size_t nr_env,
	     const struct store_run_times *, char **cause);
/*
 * A disturbed attempt: recorded in run_set_aside, the run pending again
 * (at the end of the dispatch order), nothing of it counted. 1 when the
 * run is no longer ours, as store_run_finish.
 */
int	 store_run_set_aside(struct store *, int64_t id, int64_t token,
	     const struct store_set_aside *, char **cause);
/* A job's attempts set aside, and its runs counted though disturbed. */
int	 store_run_disturbed_totals(struct store *, int64_t job,
	     const char *repo, int *set_aside, int *kept, char **why,
	     char **cause);
/*
 * An agent's disturbed attempts (set aside, or counted disturbed) since
 * Unix time since (*disturbed), and when the first one after its last
 * undisturbed run came (*busy_since; 0 when none did).
 */
int	 store_agent_disturbance(struct store *, const char *agent,
	     double since, int *disturbed, double *busy_since, char **cause);
/* Pending runs without a dispatch_key, by id; and the largest key. */
int	 store_run_unordered(struct store *, struct store_run_order **out,
	     size_t *nr, int64_t *max_key, char **cause);
int	 store_run_set_order(struct store *, int64_t id, int64_t key,
	     char **cause);
void	 store_run_order_free(struct store_run_order *, size_t);
/*
 * A run that did not start through no fault of its own (its build's
 * artifacts must be made again): pending, its attempt given back, no
 * failure recorded.
 */
int	 store_run_give_back(struct store *, int64_t id, int64_t token,
	     const char *error, char **cause);
int	 store_run_retry(struct store *, int64_t id, int64_t token,
	     const char *error, int max_attempts, char **cause);
int	 store_run_skip_build(struct store *, const char *repo, const char *oid,
	     const char *recipe, const char *error, char **cause);
/* Any run of this job in this repository still pending or running? */
int	 store_run_busy(struct store *, int64_t job, const char *repo,
	     int *busy, char **cause);
int	 store_run_count_running(struct store *, const char *agent, int *nr,
	     char **cause);
/* The per-commit totals of a job: done runs and failed runs. */
int	 store_run_totals(struct store *, int64_t job, const char *repo,
	     const char *oid, int *done, int *failed, char **cause);
/* The commits a job has runs at, in the order they were first asked for. */
int	 store_run_commits(struct store *, int64_t job, const char *repo,
	     char ***oids, size_t *nr, char **cause);
void	 store_run_release(struct store_run *);

/* After a crash: work marked running belongs to nobody; queue it again. */
int	 store_recover(struct store *, int *nr_runs, int *nr_builds,
	     char **cause);

/* samples */
int	 store_series_get(struct store *, int64_t job, const char *repo,
	     const char *oid, const char *metric, struct store_series *out,
	     char **cause);
/* Every metric recorded for (job, repo, oid). */
int	 store_series_all(struct store *, int64_t job, const char *repo,
	     const char *oid, struct store_series **out, size_t *nr,
	     char **cause);
void	 store_series_release(struct store_series *);
void	 store_series_list_free(struct store_series *, size_t);
/* The newest done run of (job, repo, oid); 0 when there is none. */
int	 store_run_last_done(struct store *, int64_t job, const char *repo,
	     const char *oid, int64_t *run, char **cause);
/* One run's environment, sorted by key, and its samples, by metric. */
int	 store_run_env_of(struct store *, int64_t run, char ***keys,
	     char ***values, size_t *nr, char **cause);
int	 store_run_samples(struct store *, int64_t run, char ***metrics,
	     double **values, size_t *nr, char **cause);
int	 store_env_get(struct store *, int64_t job, const char *repo,
	     const char *oid, char ***keys, char ***values, size_t *nr,
	     char **cause);
/* The environment of every done run of (job, repo, oid), in run order. */
struct store_run_env {
	int64_t	  run;
	int	  seq;
	char	 *agent;
	char	 *boot_id;	/* NULL: not recorded */
	char	**keys;		/* sorted */
	char	**values;
	size_t	  nr;
};
int	 store_env_runs(struct store *, int64_t job, const char *repo,
	     const char *oid, struct store_run_env **out, size_t *nr,
	     char **cause);
void	 store_run_env_list_free(struct store_run_env *, size_t);

/* bisections */
int	 store_bisection_add(struct store *, int64_t id, int64_t job,
	     const char *repo, const char *good, const char *bad,
	     const char *metric, const char *direction, char **cause);
int	 store_bisection_get(struct store *, int64_t id,
	     struct store_bisection *out, char **cause);
int	 store_bisection_progress(struct store *, int64_t id,
	     const char *progress, char **cause);
/*
 * The bisections that named a culprit (found, unconfirmed) and have no
 * report: a process killed between the two writes left them so.
 */
int	 store_bisection_unreported(struct store *, int64_t **ids, size_t *nr,
	     char **cause);
int	 store_bisection_finish(struct store *, int64_t id,
	     enum store_bisection_status,
	     const char *result, const struct store_step *, size_t nr_steps,
	     char **cause);
int	 store_bisection_steps(struct store *, int64_t id,
	     struct store_step **out, size_t *nr, char **cause);
void	 store_bisection_release(struct store_bisection *);
void	 store_bisection_steps_free(struct store_step *, size_t);

/* status */
struct store_counts {
	int	requests_active;
	int	builds_pending;
	int	builds_running;
	int	builds_ok;
	int	builds_failed;
	int	runs_pending;
	int	runs_running;
	int	runs_done;
	int	runs_failed;
	int	samples;
};
int	 store_counts(struct store *, struct store_counts *, char **cause);

/* continuous mode */
struct store_tracked {
	int64_t	 seq;
	char	*commit_oid;
	int	 base;
	int	 queued;
	char	*tested_as;	/* the commit of the same tree run, or NULL */
	char	*branch;	/* store_tracked_unqueued's only */
};
/* The newest seq of a branch, or -1 when it was never seen. */
int	 store_tracked_last(struct store *, const char *repo,
	     const char *branch, int64_t *seq, char **oid, char **cause);
/*
 * Append a commit (ignored when the branch already has it) of tree tree
 * (or NULL). When a commit of the same tree was tested already in the
 * repository, the new one is tested as that one: *tested_as (when not
 * NULL) gets it, and the row needs no queueing.
 */
int	 store_tracked_add(struct store *, const char *repo, const char *branch,
	     const char *oid, const char *tree, int base, char **tested_as,
	     char **cause);
/* A commit's seq in the branch's series, or -1. */
int	 store_tracked_seq(struct store *, const char *repo,
	     const char *branch, const char *oid, int64_t *seq, char **cause);
/* The rows after seq leave the series (bases stay); *nr of them. */
int	 store_tracked_drop(struct store *, const char *repo,
	     const char *branch, int64_t after, int *nr, char **cause);
/* Whether the branch was marked gone upstream. */
int	 store_tracked_gone(struct store *, const char *repo,
	     const char *branch, int *gone, char **cause);
int	 store_tracked_set_gone(struct store *, const char *repo,
	     const char *branch, int gone, char **cause);
int	 store_tracked_list(struct store *, const char *repo,
	     const char *branch, struct store_tracked **out, size_t *nr,
	     char **cause);
/* The rows not queued yet, of every branch of the repository. */
int	 store_tracked_unqueued(struct store *, const char *repo,
	     struct store_tracked **out, size_t *nr, char **cause);
int	 store_tracked_queued(struct store *, const char *repo,
	     const char *branch, int64_t seq, char **cause);
void	 store_tracked_list_free(struct store_tracked *, size_t);
/*
 * The runs pending or running, and the newest run's id: cheap (indexes
 * only), so that an idle daemon sees at once that no run has ended.
 */
int	 store_tracked_activity(struct store *, int64_t *active,
	     int64_t *newest, char **cause);
/* Is a run of job pending or running at one of the branch's commits? */
int	 store_tracked_busy(struct store *, const char *repo,
	     const char *branch, int64_t job, int *busy, char **cause);
/*
 * Is a row of this kind ('regression', 'improvement') known whose range
 * overlaps or touches [good, bad]?
 */
int	 store_regression_overlaps(struct store *, const char *repo,
	     const char *branch, int64_t job, const char *metric,
	     const char *kind, int64_t good_seq, int64_t bad_seq, int *found,
	     char **cause);
int	 store_regression_add(struct store *, const char *repo,
	     const char *branch, int64_t job, const char *metric,
	     const char *kind, const char *good, const char *bad,
	     int64_t good_seq, int64_t bad_seq, double change_pct,
	     double p_value, int64_t bisection, int64_t *id, char **cause);
/* The open (not fixed) regressions of a series ending at or before seq. */
int	 store_regression_open(struct store *, const char *repo,
	     const char *branch, int64_t job, const char *metric,
	     int64_t before_seq, int64_t **ids, size_t *nr, char **cause);
/* Regression id was fixed by the improvement fixed_by. */
int	 store_regression_fix(struct store *, int64_t id, int64_t fixed_by,
	     char **cause);
int	 store_regression_count(struct store *, int *nr, char **cause);
/* Every tracked branch, as repository and branch names side by side. */
int	 store_tracked_branches(struct store *, char ***repos,
	     char ***branches, size_t *nr, char **cause);
/* The jobs with finished runs at a branch's tracked commits. */
int	 store_tracked_jobs(struct store *, const char *repo,
	     const char *branch, int64_t **jobs, size_t *nr, char **cause);
/* A regression of a series, with its bisection's outcome so far. */
struct store_regression {
	char	*metric;
	char	*good;
	char	*bad;
	int64_t	 good_seq;
	int64_t	 bad_seq;
	double	 change_pct;
	double	 p_value;
	int64_t	 bisection;
	enum store_bisection_status status;	/* or STORE_BISECTION_NONE */
	char	*culprit;	/* NULL until one is found */
	char	*kind;		/* "regression" or "improvement" */
	char	*fixed_good;	/* the fix's range, NULL while open */
	char	*fixed_bad;
	char	*fixed_culprit;	/* the fix's culprit, when bisected */
	int64_t	 fixed_bisection;	/* the fix's bisection, or 0 */
};
/* A job's regressions on a branch, oldest range first. */
/*
 * When bisection is that of a regression row: the bisections of earlier
 * regression rows of the same repository, job and metric that found a
 * culprit, with it (bisections[i] as decimal text); none otherwise.
 */
int	 store_regression_culprits(struct store *, int64_t bisection,
	     char ***bisections, char ***culprits, size_t *nr, char **cause);
/* The regressions the improvement bisected by `bisection` fixed. */
int	 store_regression_fixed_by(struct store *, int64_t bisection,
	     struct store_regression **out, size_t *nr, char **cause);
int	 store_regression_list(struct store *, const char *repo,
	     const char *branch, int64_t job, struct store_regression **out,
	     size_t *nr, char **cause);
void	 store_regression_list_free(struct store_regression *, size_t);
/* Its bisection's status, "pending" before it has one. */
const char *store_regression_status_name(const struct store_regression *);

/* agents (0004-agents.sql) */
struct store_agent {
	char			*name;
	enum store_agent_state	 state;
	char			*error;
	int64_t			 since;
	int			 failures;	/* in a row */
	int64_t			 retry_at;	/* down: probe again then */
	char			*stamp;		/* refused: its config digest */
	char			*inventory;	/* "key value" lines, or NULL */
	int64_t			 inventory_at;
	int			 has_inventory;
	unsigned		 nr_node;
	unsigned		 nr_cpu;
	unsigned long long	 memory;	/* bytes */
};
/*
 * Make sure the agent has a row, and mark it unknown (to be probed); a
 * refused one stays refused until its next probe, which it is due.
 */
int	 store_agent_reset(struct store *, const char *name, char **cause);
/* *found = 0 when the agent has no row. */
int	 store_agent_get(struct store *, const char *name,
	     struct store_agent *out, int *found, char **cause);
int	 store_agent_list(struct store *, struct store_agent **out,
	     size_t *nr, char **cause);
/* It answered: in service, with this inventory. */
int	 store_agent_up(struct store *, const char *name,
	     const char *inventory, unsigned nr_node, unsigned nr_cpu,
	     unsigned long long memory, char **cause);
/* It failed: out of service; probe again after 1, 2, 4... seconds, at
 * most max_interval. */
int	 store_agent_down(struct store *, const char *name, const char *error,
	     int max_interval, char **cause);
/* It failed for good under this configuration (stamp). */
int	 store_agent_refuse(struct store *, const char *name,
	     const char *error, const char *stamp, char **cause);
void	 store_agent_release(struct store_agent *);
void	 store_agent_list_free(struct store_agent *, size_t);
/* A job's positions: the agent of each, in position order. */
int	 store_job_agents_get(struct store *, int64_t job, char ***agents,
	     size_t *nr, char **cause);
int	 store_job_agents_set(struct store *, int64_t job, int position,
	     const char *agent, char **cause);
/* The finished runs of a job on an agent. */
int	 store_run_done_on(struct store *, int64_t job, const char *agent,
	     int *nr, char **cause);
/* A pending run that can never start: failed, without a retry. */
int	 store_run_fail(struct store *, int64_t id, const char *error,
	     char **cause);

/* reports */
int	 store_report_add(struct store *, int64_t bisection,
	     const char *headline, const char *body, int64_t *id,
	     char **cause);

/*
 * ---- mail outbox and report listing: schema/store-mail.c, with
 * schema/migrations/0002-mail.sql (owner: mail; see docs/reports.md) ----
 */
enum store_mail_status {
	STORE_MAIL_QUEUED,
	STORE_MAIL_SENDING,
	STORE_MAIL_SENT,
	STORE_MAIL_FAILED,
};

struct store_mail {
	int64_t	 id;
	int64_t	 bisection;
	char	*message_id;	/* without the angle brackets */
	char	*thread;	/* reports about one commit share it */
	char	*sender;	/* envelope MAIL FROM */
	char	*recipients;	/* envelope RCPT TO, one a line */
	char	*message;	/* the whole message, CRLF line ends */
	enum store_mail_status status;
	int	 attempts;
	int64_t	 next_attempt;
	char	*last_error;
	int64_t	 created;
	int64_t	 sent;		/* 0 until sent */
};

struct store_report_entry {
	int64_t	 bisection;
	char	*headline;
	int64_t	 created;
};

int	 store_mail_add(struct store *, int64_t bisection,
	     const char *message_id, const char *thread, const char *sender,
	     const char *recipients, const char *message, int64_t *id,
	     char **cause);
/* 1 and out filled when a mail has this Message-ID, 0 when none has. */
int	 store_mail_find(struct store *, const char *message_id,
	     struct store_mail *out, char **cause);
int	 store_mail_get(struct store *, int64_t id, struct store_mail *out,
	     char **cause);
/* The Message-ID of a thread's first mail; *out NULL when none yet. */
int	 store_mail_thread_root(struct store *, const char *thread,
	     char **out, char **cause);
/* Queued mails whose next attempt is due at now, oldest first. */
int	 store_mail_due(struct store *, int64_t now, int64_t **ids,
	     size_t *nr, char **cause);
/* queued -> sending, one more attempt; *claimed 0 when it wasn't queued. */
int	 store_mail_claim(struct store *, int64_t id, int *claimed,
	     char **cause);
/* sending -> sent. */
int	 store_mail_sent(struct store *, int64_t id, char **cause);
/* sending -> queued until next_attempt, or -> failed with give_up. */
int	 store_mail_retry(struct store *, int64_t id, const char *error,
	     int64_t next_attempt, int give_up, char **cause);
/* queued or failed -> queued and due now; a failed mail starts afresh. */
int	 store_mail_requeue(struct store *, int64_t id, char **cause);
/*
 * sending -> queued and due now: only the holder of the scheduler lock
 * sends, so a mail it finds in 'sending' lost its process mid-attempt.
 */
int	 store_mail_recover(struct store *, int *nr, char **cause);
void	 store_mail_release(struct store_mail *);
const char	*store_mail_status_name(enum store_mail_status);
/* Every bisection with a report, newest first, with its latest headline. */
int	 store_report_list(struct store *, struct store_report_entry **out,
	     size_t *nr, char **cause);
void	 store_report_list_free(struct store_report_entry *, size_t);
/* ---- end of mail outbox and report listing ---- */

/* progress (schema/store-progress.c) */
struct store_progress {
	int	pending;
	int	running;
	int	done;
	int	failed;		/* failed or skipped */
	double	mean_run_s;	/* of the done runs that say; 0 unknown */
};
int	 store_progress_get(struct store *, int64_t request, int bisection,
	     struct store_progress *, char **cause);

#endif
