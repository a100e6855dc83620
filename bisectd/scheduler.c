/*
 * The scheduler loop: each turn reaps children, plans the active
 * requests, starts builds and, in the dispatch order, runs on agents with a
 * free slot, keeps the probes and ssh links going, then sleeps until a
 * child, a signal or half a second. Signal handlers only set flags and wake
 * the loop through a pipe (docs/design.md, "The scheduler").
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/transport.h"
#include "bisectd/bisection.h"
#include "bisectd/dispatch.h"
#include "bisectd/lock.h"
#include "bisectd/outbox.h"
#include "bisectd/placement.h"
#include "bisectd/reload.h"
#include "bisectd/request.h"
#include "bisectd/builder-slot.h"
#include "bisectd/scheduler.h"
#include "bisectd/tracker.h"
#include "bisectd/worker.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SCHEDULER_TICK_MS	500

static volatile sig_atomic_t	scheduler_stop;
static volatile sig_atomic_t	scheduler_hup;
static int			scheduler_wake[2] = { -1, -1 };

static void
scheduler_signal(int sig)
{
	int	saved = errno;
	char	c = (char)sig;

	if (sig == SIGTERM || sig == SIGINT)
		scheduler_stop = 1;
	else if (sig == SIGHUP)
		scheduler_hup = 1;
	if (scheduler_wake[1] != -1 && write(scheduler_wake[1], &c, 1) < 0) {
		/* the pipe is full: the loop is awake anyway */
	}
	errno = saved;
}

static int
scheduler_signals_setup(char **cause)
{
	struct sigaction	sa;
	int			i;

	if (scheduler_wake[0] == -1) {
		if (pipe2(scheduler_wake, O_CLOEXEC | O_NONBLOCK) == -1)
			return error_errno(cause, "couldn't create a pipe");
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = scheduler_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	scheduler_stop = 0;
	scheduler_hup = 0;
	(void)i;
	return 0;
}

static void
scheduler_signals_restore(void)
{
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

double
scheduler_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
scheduler_child_add(struct scheduler *s, pid_t pid,
    enum scheduler_child_kind kind, int64_t id, int64_t token,
    const char *repo, const char *agent)
{
	struct scheduler_child	*c;

	ALLOC_GROW(s->children, s->nr_children, s->alloc_children);
	c = &s->children[s->nr_children++];
	c->pid = pid;
	c->kind = kind;
	c->id = id;
	c->token = token;
	c->repo = repo != NULL ? xstrdup(repo) : NULL;
	c->agent = agent != NULL ? xstrdup(agent) : NULL;
	c->stale = 0;
	c->retired = 0;
}

static void
scheduler_child_remove(struct scheduler *s, size_t i)
{
	free(s->children[i].repo);
	free(s->children[i].agent);
	s->children[i] = s->children[--s->nr_children];
}

static void
scheduler_probe_died(struct scheduler *s, const char *name, const char *why)
{
	const struct config_agent	*a;
	char				*msg, *cause = NULL;

	if ((a = config_agent_find(s->ctx->config, name)) == NULL)
		return;
	msg = xasprintf("agent '%s': the probe failed: %s", name, why);
	if (store_agent_down(s->ctx->store, name, msg, a->probe_interval,
	    &cause) != 0) {
		log_error("%s", cause);
		free(cause);
	}
	free(msg);
}

/* Give a dead child's build or run back to the queue (or fail it). */
static int
scheduler_requeue(struct scheduler *s, enum scheduler_child_kind kind,
    int64_t id, int64_t token, const char *why, char **cause)
{
	if (kind == SCHEDULER_CHILD_BUILD)
		return store_build_retry(s->ctx->store, id, why,
		    s->ctx->config->max_attempts, cause);
	return store_run_retry(s->ctx->store, id, token, why,
	    s->ctx->config->max_attempts, cause);
}

/*
 * Requeues that could not be written when their child died (the
 * database's filesystem full, say): until they are, the rows stay
 * 'running' with no child behind them, and their requests would wait
 * for ever.
 */
static void
scheduler_orphans_retry(struct scheduler *s)
{
	struct scheduler_orphan	*o;
	char			*cause = NULL;
	size_t			 i = 0;

	while (i < s->nr_orphans) {
		o = &s->orphans[i];
		if (scheduler_requeue(s, o->kind, o->id, o->token, o->why,
		    &cause) != 0) {
			free(cause);
			cause = NULL;
			o->tries++;
			i++;
			continue;
		}
		log_info("%s %lld given back to the queue after %u tries",
		    o->kind == SCHEDULER_CHILD_BUILD ? "build" : "run",
		    (long long)o->id, o->tries + 1);
		free(o->why);
		s->orphans[i] = s->orphans[--s->nr_orphans];
		s->sv.progress = 1;
	}
}

/*
 * A child that exited has recorded its outcome itself. If it died
 * without doing so, its work is retried, up to the cap: the retry calls
 * are no-ops for rows the child already finished.
 */
static void
scheduler_reap(struct scheduler *s)
{
	struct scheduler_child	*c;
	char			*cause = NULL, *how, *why;
	pid_t			 pid;
	size_t			 i;
	int			 status;

	scheduler_orphans_retry(s);
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < s->nr_children; i++) {
			if (s->children[i].pid == pid)
				break;
		}
		if (i == s->nr_children)
			continue;
		c = &s->children[i];
		if (WIFSIGNALED(status))
			how = xasprintf("was killed by signal %d",
			    WTERMSIG(status));
		else
			how = xasprintf("exited with status %d",
			    WEXITSTATUS(status));
		why = xasprintf("its worker %s", how);
		if (c->kind == SCHEDULER_CHILD_LINK && c->retired) {
			/* replaced by the new config's at the next turn */
		} else if (c->kind == SCHEDULER_CHILD_LINK) {
			/* restarted by the next turn, a second on */
			log_warn("agent '%s': its link worker %s", c->agent,
			    how);
		} else if (c->kind == SCHEDULER_CHILD_PROBE) {
			/* a probe records its outcome; one that died did not */
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				scheduler_probe_died(s, c->agent, why);
		} else if (c->kind == SCHEDULER_CHILD_FETCH) {
			/* the tracker says why, once */
			tracker_fetched(s->tracker, s->ctx->config, c->repo,
			    status);
		} else if (scheduler_requeue(s, c->kind, c->id, c->token, why,
		    &cause) != 0) {
			/* said once; tried again every turn until it is written */
			log_error("%s; trying again", cause);
			free(cause);
			cause = NULL;
			ALLOC_GROW(s->orphans, s->nr_orphans, s->alloc_orphans);
			s->orphans[s->nr_orphans].kind = c->kind;
			s->orphans[s->nr_orphans].id = c->id;
			s->orphans[s->nr_orphans].token = c->token;
			s->orphans[s->nr_orphans].why = why;
			s->orphans[s->nr_orphans++].tries = 1;
			why = NULL;
		}
		if (cause != NULL) {
			log_error("%s", cause);
			free(cause);
			cause = NULL;
		}
		free(how);
		free(why);
		scheduler_child_remove(s, i);
		s->sv.progress = 1;
	}
}

static int
scheduler_plan(struct scheduler *s, char **cause)
{
	int64_t	*ids = NULL;
	size_t	 nr = 0, i;
	char	*why = NULL;
	int	 r = -1;

	if (store_request_active(s->ctx->store, &ids, &nr, cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
		if (request_plan(&s->sv, ids[i], &why) != 0) {
			log_error("request %lld: %s", (long long)ids[i],
			    why != NULL ? why : "planning failed");
			store_request_set_status(s->ctx->store, ids[i],
			    STORE_REQUEST_FAILED, why, NULL);
			bisection_forget(&s->sv, ids[i]);
			free(why);
			why = NULL;
		}
	}
	r = 0;
	free(ids);
	return r;
}

/* The builds of a repository running now. */
static int
scheduler_repo_building(const struct scheduler *s, const char *repo)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < s->nr_children; i++) {
		if (s->children[i].kind == SCHEDULER_CHILD_BUILD &&
		    strcmp(s->children[i].repo, repo) == 0)
			n++;
	}
	return n;
}

static int
scheduler_start_builds(struct scheduler *s, char **cause)
{
	struct store_build	*b = NULL;
	unsigned char		*spec = NULL;
	int64_t			*ids = NULL;
	size_t			 nr = 0, i, k, pass;
	pid_t			 pid;
	int			 r = -1;

	if (store_build_pending(s->ctx->store, &ids, &nr, cause) != 0)
		return -1;
	b = xcalloc(nr + 1, sizeof *b);
	spec = xcalloc(nr + 1, 1);
	for (i = 0; i < nr; i++) {
		if (store_build_get(s->ctx->store, ids[i], &b[i], cause) != 0)
			goto out;
		spec[i] = (unsigned char)bisection_speculative(&s->sv,
		    b[i].commit_oid);
	}
	/* the builds asked for first, then the speculative ones */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			if (spec[i] != pass || scheduler_repo_building(s,
			    b[i].repo) >= builder_slot_capacity(s->ctx->config))
				continue;
			if (store_build_start(s->ctx->store, ids[i], cause) != 0)
				goto out;
			if ((pid = worker_build(s->ctx, ids[i], cause)) == -1) {
				store_build_retry(s->ctx->store, ids[i], *cause,
				    s->ctx->config->max_attempts, NULL);
				goto out;
			}
			scheduler_child_add(s, pid, SCHEDULER_CHILD_BUILD,
			    ids[i], 0, b[i].repo, NULL);
			s->sv.progress = 1;
		}
	}
	r = 0;
out:
	for (k = 0; k < nr; k++)
		store_build_release(&b[k]);
	free(b);
	free(spec);
	free(ids);
	return r;
}

/* Running children of a kind on an agent. */
int
scheduler_children_on(const struct scheduler *s, enum scheduler_child_kind kind,
    const char *agent)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < s->nr_children; i++) {
		if (s->children[i].kind == kind &&
		    s->children[i].agent != NULL &&
		    strcmp(s->children[i].agent, agent) == 0)
			n++;
	}
	return n;
}

/* The services' view of the children (bisectd/services.h). */
static int
scheduler_runs_on(void *payload, const char *agent)
{
	return scheduler_children_on(payload, SCHEDULER_CHILD_RUN, agent);
}

static void
scheduler_fetch_started(void *payload, pid_t pid, const char *repo)
{
	scheduler_child_add(payload, pid, SCHEDULER_CHILD_FETCH, 0, 0, repo,
	    NULL);
}

/*
 * Give the runs added since the last turn their place in the dispatch
 * order: each job's new runs are one batch, numbered after every batch
 * before it, in the interleaved order of bisectd/dispatch.c.
 */
static int
scheduler_order_runs(struct scheduler *s, char **cause)
{
	struct store_run_order	*v = NULL;
	struct dispatch_run	*runs = NULL;
	size_t			*group = NULL, *rank = NULL, nr = 0, n, i, j;
	size_t			 nr_pos = 0;
	char			**pos = NULL;
	int64_t			 max_key = -1, batch;
	int			 r = -1, *done = NULL;

	if (store_run_unordered(s->ctx->store, &v, &nr, &max_key, cause) != 0)
		return -1;
	if (nr == 0)
		return 0;
	batch = (max_key >> DISPATCH_BATCH_SHIFT) + 1;
	runs = xcalloc(nr, sizeof *runs);
	group = xcalloc(nr, sizeof *group);
	rank = xcalloc(nr, sizeof *rank);
	done = xcalloc(nr, sizeof *done);
	if (store_begin(s->ctx->store, cause) != 0)
		goto out;
	for (i = 0; i < nr; i++) {
		if (done[i])
			continue;
		for (n = 0, j = i; j < nr && n < DISPATCH_MAX_BATCH; j++) {
			if (done[j] || v[j].job != v[i].job ||
			    strcmp(v[j].repo, v[i].repo) != 0)
				continue;
			runs[n].id = v[j].id;
			runs[n].commit = v[j].commit_oid;
			runs[n].seq = v[j].seq;
			group[n++] = j;
			done[j] = 1;
		}
		if (store_job_agents_get(s->ctx->store, v[i].job, &pos, &nr_pos,
		    cause) != 0)
			goto fail;
		dispatch_order(runs, n, (unsigned)nr_pos, rank);
		while (nr_pos > 0)
			free(pos[--nr_pos]);
		free(pos);
		pos = NULL;
		for (j = 0; j < n; j++) {
			if (store_run_set_order(s->ctx->store, v[group[j]].id,
			    (batch << DISPATCH_BATCH_SHIFT) | (int64_t)rank[j],
			    cause) != 0)
				goto fail;
		}
		batch++;
	}
	if (store_commit(s->ctx->store, cause) != 0)
		goto fail;
	r = 0;
	goto out;
fail:
	store_rollback(s->ctx->store);
out:
	store_run_order_free(v, nr);
	free(runs);
	free(group);
	free(rank);
	free(done);
	return r;
}

/*
 * A batch waits until the builds of all its commits are done (or failed:
 * their runs are skipped), so that its first commit's runs do not all go
 * ahead of the others'. The batches that must wait, from the pending runs.
 */
static int
scheduler_held_batches(struct scheduler *s, const int64_t *ids, size_t nr,
    int64_t **held, size_t *nr_held, char **cause)
{
	struct store_run	 run;
	struct store_build	 b;
	size_t			 i, k, alloc = 0;
	int64_t			 batch;
	int			 found, r = -1;

	*held = NULL;
	*nr_held = 0;
	memset(&run, 0, sizeof run);
	memset(&b, 0, sizeof b);
	for (i = 0; i < nr; i++) {
		store_run_release(&run);
		store_build_release(&b);
		if (store_run_get(s->ctx->store, ids[i], &run, cause) != 0)
			goto out;
		if (run.dispatch_key < 0)
			continue;
		found = store_build_find(s->ctx->store, run.repo,
		    run.commit_oid, run.recipe, &b, cause);
		if (found < 0)
			goto out;
		if (found && (b.status == STORE_BUILD_OK ||
		    b.status == STORE_BUILD_FAILED))
			continue;
		batch = run.dispatch_key >> DISPATCH_BATCH_SHIFT;
		for (k = 0; k < *nr_held && (*held)[k] != batch; k++)
			;
		if (k == *nr_held) {
			ALLOC_GROW(*held, *nr_held + 1, alloc);
			(*held)[(*nr_held)++] = batch;
		}
	}
	r = 0;
out:
	store_run_release(&run);
	store_build_release(&b);
	return r;
}

static int
scheduler_held(const int64_t *held, size_t nr_held, int64_t key)
{
	size_t	k;

	for (k = 0; key >= 0 && k < nr_held; k++) {
		if (held[k] == key >> DISPATCH_BATCH_SHIFT)
			return 1;
	}
	return 0;
}

static int
scheduler_start_runs(struct scheduler *s, char **cause)
{
	const struct config_agent	 *agent;
	struct store_run		  run;
	struct store_build		  b;
	int64_t				 *ids = NULL, *held = NULL, token;
	size_t				  nr = 0, nr_held = 0, i;
	char				 *dir = NULL, *why = NULL;
	pid_t				  pid;
	int				  found, impossible, k, r = -1;

	memset(&run, 0, sizeof run);
	memset(&b, 0, sizeof b);
	if (scheduler_agents_load(s, cause) != 0)
		return -1;
	scheduler_agents_turn(s);
	if (scheduler_order_runs(s, cause) != 0 ||
	    store_run_pending(s->ctx->store, &ids, &nr, cause) != 0 ||
	    scheduler_held_batches(s, ids, nr, &held, &nr_held, cause) != 0) {
		free(ids);
		return -1;
	}
	for (i = 0; i < nr; i++) {
		store_run_release(&run);
		store_build_release(&b);
		if (store_run_get(s->ctx->store, ids[i], &run, cause) != 0)
			goto out;
		found = store_build_find(s->ctx->store, run.repo,
		    run.commit_oid, run.recipe, &b, cause);
		if (found < 0)
			goto out;
		if (found && b.status == STORE_BUILD_FAILED) {
			if (store_run_skip_build(s->ctx->store, run.repo,
			    run.commit_oid, run.recipe,
			    "untestable: the build failed", cause) != 0)
				goto out;
			continue;
		}
		if (!found || b.status != STORE_BUILD_OK ||
		    scheduler_held(held, nr_held, run.dispatch_key))
			continue;
		if ((impossible = placement_find(&s->sv, &run, &k, &why,
		    cause)) < 0)
			goto out;
		if (impossible) {
			log_error("run %lld: %s", (long long)run.id, why);
			if (store_run_fail(s->ctx->store, run.id, why,
			    cause) != 0)
				goto out;
			free(why);
			why = NULL;
			s->sv.progress = 1;
			continue;
		}
		if (k < 0 || scheduler_agents_link_stale(s,
		    s->ctx->config->agents[k].name))
			continue;
		agent = &s->ctx->config->agents[k];
		free(dir);
		dir = xasprintf("%s/runs/%lld", s->ctx->config->workdir,
		    (long long)run.id);
		if (store_run_start(s->ctx->store, run.id, agent->name, dir,
		    &token, cause) != 0)
			goto out;
		if ((pid = worker_run(s->ctx, run.id, token, agent->name,
		    cause)) == -1) {
			store_run_retry(s->ctx->store, run.id, token, *cause,
			    s->ctx->config->max_attempts, NULL);
			goto out;
		}
		scheduler_child_add(s, pid, SCHEDULER_CHILD_RUN, run.id, token,
		    run.repo, agent->name);
		s->sv.progress = 1;
	}
	r = 0;
out:
	store_run_release(&run);
	store_build_release(&b);
	free(ids);
	free(held);
	free(dir);
	free(why);
	return r;
}

static void
scheduler_sleep(int ms)
{
	struct pollfd	pfd;
	char		buf[64];

	pfd.fd = scheduler_wake[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, ms) > 0) {
		while (read(scheduler_wake[0], buf, sizeof buf) > 0)
			;
	}
}

/* Stop every child and give its work back to the queue. */
static void
scheduler_shutdown(struct scheduler *s)
{
	size_t	 i, n = s->nr_children;
	int	 status, nr_runs, nr_builds;
	char	*cause = NULL;

	for (i = 0; i < s->nr_children; i++)
		kill(s->children[i].pid, SIGKILL);
	for (i = 0; i < s->nr_children; i++)
		waitpid(s->children[i].pid, &status, 0);
	while (s->nr_children > 0)
		scheduler_child_remove(s, 0);
	if (store_recover(s->ctx->store, &nr_runs, &nr_builds,
	    &cause) != 0) {
		log_error("stopping: %s", cause);
		free(cause);
	} else if (n > 0)
		log_info("stopping: %zu children stopped; %d runs and %d "
		    "builds given back to the queue", n, nr_runs, nr_builds);
}

static int
scheduler_request_over(struct scheduler *s, int64_t id)
{
	struct store_request	rq;
	int			over;

	if (store_request_get(s->ctx->store, id, &rq, NULL) != 0)
		return 1;
	over = rq.status == STORE_REQUEST_DONE ||
	    rq.status == STORE_REQUEST_FAILED;
	store_request_release(&rq);
	return over;
}

int
scheduler_run(struct context *ctx, const struct scheduler_opts *opts,
    char **cause)
{
	struct scheduler	s;
	size_t			i;
	char			*why = NULL;
	int			nr_runs = 0, nr_builds = 0, r = -1;

	memset(&s, 0, sizeof s);
	s.ctx = ctx;
	s.sv.ctx = ctx;
	s.sv.payload = &s;
	s.sv.runs_on = scheduler_runs_on;
	s.sv.fetch_started = scheduler_fetch_started;
	if (scheduler_signals_setup(cause) != 0)
		return -1;
	if (store_recover(ctx->store, &nr_runs, &nr_builds, cause) != 0)
		goto out;
	if (nr_runs > 0 || nr_builds > 0)
		log_info("requeued %d runs and %d builds left by a scheduler "
		    "that went away", nr_runs, nr_builds);
	if (scheduler_agents_setup(&s, cause) != 0 ||
	    bisection_report_missing(&s.sv, cause) != 0)
		goto out;
	s.tracker = tracker_new();
	while (!scheduler_stop) {
		s.sv.progress = 0;
		scheduler_reap(&s);
		if (scheduler_hup) {
			scheduler_hup = 0;
			/* bisectctl --wait: its terminal hung up */
			if (opts->wait_request != 0) {
				scheduler_stop = 1;
				break;
			}
			if (reload_config(&s, &why) != 0) {
				log_error("bisectd: the config is not reloaded, "
				    "the old one stays in force: %s", why);
				free(why);
				why = NULL;
			}
		}
		if (opts->wait_request == 0 &&
		    tracker_turn(s.tracker, &s.sv, &why) != 0) {
			log_error("continuous mode: %s", why);
			free(why);
			why = NULL;
		}
		if (scheduler_plan(&s, cause) != 0 ||
		    scheduler_start_builds(&s, cause) != 0 ||
		    scheduler_start_runs(&s, cause) != 0)
			goto out;
		if (opts->tick != NULL)
			opts->tick(&s, opts->payload);
		/* Mail never stops the scheduler: failures are retried. */
		if (outbox_flush(ctx, &why) != 0) {
			log_error("mail: %s", why);
			free(why);
			why = NULL;
		}
		if (opts->wait_request != 0 &&
		    scheduler_request_over(&s, opts->wait_request))
			break;
		if (s.sv.progress)
			continue;
		scheduler_sleep(SCHEDULER_TICK_MS);
	}
	r = 0;
out:
	scheduler_shutdown(&s);
	scheduler_agents_free(&s);
	tracker_free(s.tracker);
	for (i = 0; i < s.sv.nr_bisections; i++)
		bisection_free(s.sv.bisections[i]);
	free(s.sv.bisections);
	free(s.children);
	for (i = 0; i < s.nr_orphans; i++)
		free(s.orphans[i].why);
	free(s.orphans);
	scheduler_signals_restore();
	if (r == 0 && scheduler_stop && opts->wait_request != 0)
		r = error_set(cause, "interrupted");
	return r;
}

struct scheduler_wait_tick {
	void	(*tick)(struct context *, int64_t, void *);
	void	 *payload;
	int64_t	  id;
};

static void
scheduler_wait_tick(struct scheduler *s, void *payload)
{
	struct scheduler_wait_tick	*w = payload;

	if (w->tick != NULL)
		w->tick(s->ctx, w->id, w->payload);
}

int
scheduler_wait(struct context *ctx, int64_t request,
    void (*tick)(struct context *, int64_t, void *), void *payload,
    char **cause)
{
	struct scheduler_opts		opts;
	struct scheduler_wait_tick	w = { tick, payload, request };
	struct scheduler		probe;
	char				*lock = context_lock_path(ctx);
	int				 fd = -1, held, r = -1;

	memset(&probe, 0, sizeof probe);
	probe.ctx = ctx;
	for (;;) {
		held = lock_try(lock, &fd, cause);
		if (held < 0)
			goto out;
		if (held == 0) {
			memset(&opts, 0, sizeof opts);
			opts.wait_request = request;
			opts.tick = scheduler_wait_tick;
			opts.payload = &w;
			r = scheduler_run(ctx, &opts, cause);
			goto out;
		}
		/* A daemon runs the scheduler: follow the database. */
		if (tick != NULL)
			tick(ctx, request, payload);
		if (scheduler_request_over(&probe, request)) {
			r = 0;
			goto out;
		}
		usleep(200 * 1000);
	}
out:
	lock_release(fd);
	free(lock);
	return r;
}
