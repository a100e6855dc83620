/*
 * The scheduler's children: builds, runs, probes. A child dies with its
 * parent and records through a run token (docs/design.md, "Crash
 * safety"); a run that fails in the transport takes its agent out of
 * service until it answers a probe; a run found disturbed by other load is
 * set aside and pending again (docs/monitors.md).
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/result.h"
#include "agents/transport.h"
#include "bisectd/build-cache.h"
#include "bisectd/build.h"
#include "bisectd/repo.h"
#include "bisectd/tracker.h"
#include "bisectd/worker.h"
#include "bisectd/jobcache.h"
#include "jobs/job.h"
#include "schema/store-kernel.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Seconds a fetch may go without progress. */
#define WORKER_FETCH_STALL	120
/*
 * Disturbed attempts of one run set aside before a disturbed one is
 * counted (with its flag): a machine that is always busy must not repeat
 * a run forever (docs/monitors.md, "Interference").
 */
#define WORKER_MAX_SET_ASIDE	3
/*
 * A machine that has had no undisturbed run for this long, and at least
 * WORKER_BUSY_ATTEMPTS disturbed attempts in the last as long, is busy
 * for good: its disturbed runs count (flagged) instead of being repeated
 * into the same load. Bursts of load leave undisturbed runs between them
 * and are still set aside.
 */
#define WORKER_BUSY_WINDOW	30
#define WORKER_BUSY_ATTEMPTS	5

static void
worker_child_setup(pid_t parent)
{
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
}

static int
worker_build_child(struct context *parent, int64_t id)
{
	struct store			*st = NULL;
	struct store_build		 b;
	struct store_kernel_build	 kb;
	struct store_kernel_end		 end;
	const struct config_repo	*cr;
	struct repo			*repo = NULL;
	struct build_request		 req;
	struct build_output		 out;
	char				*cause = NULL;
	int				 r = 1;

	memset(&end, 0, sizeof end);
	memset(&b, 0, sizeof b);
	memset(&kb, 0, sizeof kb);
	memset(&out, 0, sizeof out);
	if (store_open(parent->config->db, &st, &cause) != 0 ||
	    store_build_get(st, id, &b, &cause) != 0 ||
	    store_kernel_get(st, id, &kb, &cause) != 0)
		goto out;
	if ((cr = config_repo_find(parent->config, b.repo)) == NULL) {
		error_set(&cause, "no repository '%s' in the config", b.repo);
		goto out;
	}
	if (repo_open(cr, &repo, &cause) != 0)
		goto out;
	req.repo = cr;
	req.oid = b.commit_oid;
	req.workdir = parent->config->workdir;
	req.slots = parent->config->build_slots;
	req.builders = parent->config->builders;
	req.nr_builders = parent->config->nr_builders;
	if (build_run_kconfig(&req, kb.kconfig, b.recipe, repo, &out,
	    &cause) != 0)
		goto out;
	/* its end in one transaction (store_kernel_end) */
	end.ok = out.outcome == BUILD_OK;
	end.artifact_dir = out.artifact_dir;
	end.log_path = out.log_path;
	end.log_tail = out.log_tail;
	end.seconds = out.seconds;
	end.image_hash = out.image_hash;
	end.kernel_release = out.kernel_release;
	end.artifacts_hash = out.artifacts_hash;
	end.repo = b.repo;
	end.oid = b.commit_oid;
	end.recipe = b.recipe;
	if (store_kernel_end(st, id, &end, &cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0 && cause != NULL) {
		log_error("build of '%.12s': %s", b.commit_oid ?
		    b.commit_oid : "?", cause);
		if (st != NULL)
			store_build_retry(st, id, cause,
			    parent->config->max_attempts, NULL);
	}
	build_output_release(&out);
	store_build_release(&b);
	store_kernel_build_release(&kb);
	repo_free(repo);
	store_close(st);
	free(cause);
	return r;
}

static double
worker_metric(const struct result *res, const char *name)
{
	const struct result_metric	*m;

	if (name == NULL || (m = result_metric_find(res, name)) == NULL)
		return NAN;
	return m->value;
}

int
worker_busy_for_good(int disturbed, double busy_since, double now)
{
	return disturbed >= WORKER_BUSY_ATTEMPTS && busy_since > 0 &&
	    now - busy_since >= WORKER_BUSY_WINDOW;
}

/*
 * A disturbed run is set aside and repeated, unless the job keeps
 * disturbed runs or this run was set aside WORKER_MAX_SET_ASIDE times
 * already; then it counts, and says why in runs.disturbed (*kept).
 * 1 when it was set aside.
 */
static int
worker_set_aside(struct store *st, const struct store_run *run,
    int64_t token, const struct result *res, const struct job *job,
    char **kept, char **cause)
{
	struct store_set_aside	 sa;
	const char		*v;
	double			 now, busy_since = 0;
	int			 r, disturbed = 0;

	*kept = NULL;
	if (res->disturbed == NULL)
		return 0;
	v = job != NULL ? job_param(job, "disturbed") : NULL;
	if (v != NULL && strcmp(v, "keep") == 0) {
		*kept = xasprintf("kept (the job says 'disturbed: keep'): %s",
		    res->disturbed);
		return 0;
	}
	if (run->set_aside >= WORKER_MAX_SET_ASIDE) {
		*kept = xasprintf("counted: set aside %d times already, as "
		    "often as allowed: %s", run->set_aside, res->disturbed);
		log_debug("run %lld of '%.12s': %s", (long long)run->id,
		    run->commit_oid, *kept);
		return 0;
	}
	now = (double)time(NULL);
	if (run->agent != NULL && store_agent_disturbance(st, run->agent,
	    now - WORKER_BUSY_WINDOW, &disturbed, &busy_since, cause) != 0)
		return -1;
	if (worker_busy_for_good(disturbed, busy_since, now)) {
		*kept = xasprintf("counted: agent '%s' has had no undisturbed "
		    "run for %.0f s (%d disturbed in the last %d s): %s",
		    run->agent, now - busy_since, disturbed,
		    WORKER_BUSY_WINDOW, res->disturbed);
		log_debug("run %lld of '%.12s': %s", (long long)run->id,
		    run->commit_oid, *kept);
		return 0;
	}
	memset(&sa, 0, sizeof sa);
	sa.why = res->disturbed;
	sa.other_cpu = worker_metric(res, "interference.other_cpu%");
	sa.runqueue = worker_metric(res, "interference.runqueue");
	sa.steal = worker_metric(res, "interference.steal%");
	sa.value = worker_metric(res, job != NULL ? job->metric : NULL);
	sa.started_wall = res->has_times ? res->start_wall : NAN;
	sa.boot_id = res->boot_id;
	if ((r = store_run_set_aside(st, run->id, token, &sa, cause)) < 0)
		return -1;
	if (r == 1)
		log_warn("run %lld was requeued meanwhile; its result is "
		    "dropped", (long long)run->id);
	else
		log_debug("run %lld of '%.12s' set aside as disturbed (%d of "
		    "%d): %s", (long long)run->id, run->commit_oid,
		    run->set_aside + 1, WORKER_MAX_SET_ASIDE, res->disturbed);
	return 1;
}

/* Turn an agent's result into rows; -1 when it reports a failed run. */
static int
worker_record(struct store *st, const struct store_run *run, int64_t token,
    const struct result *res, const struct job *job, int max_attempts,
    char **cause)
{
	int64_t			 id = run->id;
	struct store_sample	*samples = NULL;
	struct store_env	*env = NULL;
	struct store_run_times	 times;
	char			*why = NULL, *kept = NULL;
	size_t			 i;
	int			 r = -1;

	if (res->untestable != NULL) {
		/*
		 * A kernel that does not boot: no retry can help. This run
		 * fails now and the commit's other pending runs are skipped.
		 */
		why = xasprintf("untestable: %s", res->untestable);
		if ((r = store_begin(st, cause)) != 0)
			goto out;
		if (store_run_retry(st, id, token, why, 0, cause) != 0 ||
		    store_run_skip_build(st, run->repo, run->commit_oid,
		    run->recipe, why, cause) != 0 ||
		    store_commit(st, cause) != 0) {
			store_rollback(st);
			r = -1;
		}
		goto out;
	}
	if (res->error != NULL || res->exit_status != 0) {
		why = res->error != NULL ? xstrdup(res->error) :
		    xasprintf("the testcase exited with status %d",
		    res->exit_status);
		r = store_run_retry(st, id, token, why, max_attempts, cause);
		goto out;
	}
	if ((r = worker_set_aside(st, run, token, res, job, &kept,
	    cause)) != 0) {
		r = r < 0 ? -1 : 0;
		goto out;
	}
	memset(&times, 0, sizeof times);
	times.has_times = res->has_times;
	times.started_wall = res->start_wall;
	times.started_mono = res->start_mono;
	times.ended_wall = res->end_wall;
	times.ended_mono = res->end_mono;
	times.boot_id = res->boot_id;
	times.disturbed = kept;
	samples = xcalloc(res->nr_metrics + 1, sizeof *samples);
	for (i = 0; i < res->nr_metrics; i++) {
		samples[i].metric = res->metrics[i].name;
		samples[i].value = res->metrics[i].value;
		samples[i].instances = res->metrics[i].instances;
		samples[i].nr_instances = res->metrics[i].nr_instances;
	}
	env = xcalloc(res->nr_env + 1, sizeof *env);
	for (i = 0; i < res->nr_env; i++) {
		env[i].key = res->env[i].key;
		env[i].value = res->env[i].value;
	}
	r = store_run_finish_at(st, id, token, res->exit_status, samples,
	    res->nr_metrics, env, res->nr_env, &times, cause);
	if (r == 1)
		log_warn("run %lld was requeued meanwhile; its result is "
		    "dropped", (long long)id);
	r = r < 0 ? -1 : 0;
out:
	free(samples);
	free(env);
	free(why);
	free(kept);
	return r;
}

static int
worker_run_child(struct context *parent, int64_t id, int64_t token,
    const char *agent_name)
{
	struct store			*st = NULL;
	struct store_run		 run;
	struct store_job		 job;
	struct store_build		 b;
	struct store_kernel_build	 kb;
	const struct config_agent	*agent;
	struct transport		*tr = NULL;
	struct transport_job		 tj;
	struct result			*res = NULL;
	const struct job		 *pj = NULL;
	char				*cause = NULL;
	int				 r = 1, rt;

	memset(&run, 0, sizeof run);
	memset(&job, 0, sizeof job);
	memset(&b, 0, sizeof b);
	memset(&kb, 0, sizeof kb);
	if (store_open(parent->config->db, &st, &cause) != 0 ||
	    store_run_get(st, id, &run, &cause) != 0 ||
	    store_job_get(st, run.job, &job, &cause) != 0)
		goto out;
	/* the scheduler's cache, copied with the fork: parsed once */
	pj = jobcache_parse(&parent->jobs, run.job, job.job_id, job.canonical,
	    NULL);
	if (store_build_find(st, run.repo, run.commit_oid, run.recipe, &b,
	    &cause) != 1 || b.status != STORE_BUILD_OK) {
		error_set(&cause, "no finished build of '%.12s'",
		    run.commit_oid);
		goto out;
	}
	if ((agent = config_agent_find(parent->config, agent_name)) == NULL) {
		error_set(&cause, "no agent '%s' in the config", agent_name);
		goto out;
	}
	/* what goes to the agent is what was built (bisectd/build.h) */
	if (store_kernel_get(st, b.id, &kb, &cause) != 0)
		goto out;
	if (build_cache_check_artifacts(b.artifact_dir, kb.artifacts_hash,
	    &cause) != 0) {
		/* built again; the run waits for it, its attempt not spent */
		log_error("run %lld of '%.12s': %s", (long long)id,
		    run.commit_oid, cause);
		if (store_build_invalidate(st, b.id, cause,
		    parent->config->max_attempts, NULL) == 0 &&
		    store_run_give_back(st, id, token, cause, NULL) == 0)
			r = 0;
		goto out;
	}
	if (dir_remove_tree(run.run_dir, &cause) != 0 ||
	    dir_create(run.run_dir, &cause) != 0)
		goto out;
	if ((rt = transport_open(agent, parent->agent_path, &tr,
	    &cause)) != 0) {
		worker_agent_failed(st, agent, rt, cause);
		goto out;
	}
	memset(&tj, 0, sizeof tj);
	tj.run_dir = run.run_dir;
	tj.job_text = job.canonical;
	tj.artifact_dir = b.artifact_dir;
	tj.timeout = transport_timeout_agent_run(agent, pj);
	if ((rt = transport_run(tr, &tj, &res, &cause)) != 0) {
		worker_agent_failed(st, agent, rt, cause);
		goto out;
	}
	if (worker_record(st, &run, token, res, pj,
	    parent->config->max_attempts, &cause) != 0)
		goto out;
	r = 0;
out:
	if (r != 0) {
		if (cause == NULL)
			cause = xstrdup("the run failed");
		log_error("run %lld of '%.12s' on '%s': %s", (long long)id,
		    run.commit_oid ? run.commit_oid : "?", agent_name, cause);
		if (st != NULL)
			store_run_retry(st, id, token, cause,
			    parent->config->max_attempts, NULL);
	}
	result_free(res);
	transport_close(tr);
	store_run_release(&run);
	store_job_release(&job);
	store_build_release(&b);
	store_kernel_build_release(&kb);
	store_close(st);
	free(cause);
	return r;
}

pid_t
worker_build(struct context *ctx, int64_t build, char **cause)
{
	pid_t	parent = getpid(), pid;

	fflush(NULL);
	if ((pid = fork()) == -1)
		return error_errno(cause, "couldn't fork a build");
	if (pid == 0) {
		worker_child_setup(parent);
		_exit(worker_build_child(ctx, build));
	}
	return pid;
}

pid_t
worker_run(struct context *ctx, int64_t run, int64_t token, const char *agent,
    char **cause)
{
	pid_t	parent = getpid(), pid;

	fflush(NULL);
	if ((pid = fork()) == -1)
		return error_errno(cause, "couldn't fork a run");
	if (pid == 0) {
		worker_child_setup(parent);
		_exit(worker_run_child(ctx, run, token, agent));
	}
	return pid;
}

void
worker_inventory_parse(const char *text, unsigned *nr_node, unsigned *nr_cpu,
    unsigned long long *memory)
{
	const char	*p = text, *nl, *v;
	size_t		 klen;

	*nr_node = *nr_cpu = 0;
	*memory = 0;
	for (; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if ((v = strchr(p, ' ')) == NULL || (nl != NULL && v > nl))
			continue;
		klen = (size_t)(v - p);
		v++;
		if (klen == 7 && strncmp(p, "nr_node", 7) == 0)
			*nr_node = (unsigned)strtoul(v, NULL, 10);
		else if (klen == 6 && strncmp(p, "nr_cpu", 6) == 0)
			*nr_cpu = (unsigned)strtoul(v, NULL, 10);
		else if (klen == 6 && strncmp(p, "memory", 6) == 0) {
			/* "64G 68719476736": the bytes come second */
			if ((v = strchr(v, ' ')) != NULL &&
			    (nl == NULL || v < nl))
				*memory = strtoull(v + 1, NULL, 10);
		}
	}
}

static void
worker_stamp_file(struct strbuf *sb, const char *path)
{
	struct stat	st;

	if (path == NULL || stat(path, &st) != 0)
		strbuf_addstr(sb, "-\n");
	else
		strbuf_addf(sb, "%llu %lld %lld.%09ld %o\n",
		    (unsigned long long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		    (unsigned)st.st_mode);
}

char *
worker_agent_stamp(const struct config_agent *a)
{
	struct strbuf	sb = STRBUF_INIT;
	char		hex[HASH_HEX_LEN + 1];

	strbuf_addf(&sb, "%s\n%s\n%d\n%s\n%s\n%s\n%d\n", a->transport,
	    a->host != NULL ? a->host : "", a->port,
	    a->user != NULL ? a->user : "",
	    a->identity != NULL ? a->identity : "",
	    a->known_hosts != NULL ? a->known_hosts : "", a->tofu);
	worker_stamp_file(&sb, a->identity);
	worker_stamp_file(&sb, a->known_hosts);
	hash_sha256_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
	return xstrdup(hex);
}

void
worker_agent_failed(struct store *st, const struct config_agent *a, int rc,
    const char *why)
{
	char	*stamp, *cause = NULL;
	int	 r;

	if (rc == TRANSPORT_REFUSED) {
		stamp = worker_agent_stamp(a);
		r = store_agent_refuse(st, a->name, why, stamp, &cause);
		free(stamp);
	} else
		r = store_agent_down(st, a->name, why, a->probe_interval,
		    &cause);
	if (r != 0) {
		log_error("agent '%s': %s", a->name, cause);
		free(cause);
	}
}

int
worker_probe_now(struct store *st, const struct config_agent *a,
    const char *agent_path, char **cause)
{
	struct transport	*tr = NULL;
	unsigned long long	 memory;
	unsigned		 nr_node, nr_cpu;
	char			*info = NULL, *why = NULL;
	int			 r;

	if ((r = transport_open(a, agent_path, &tr, &why)) != 0 ||
	    (r = transport_info(tr, &info, &why)) != 0) {
		worker_agent_failed(st, a, r, why);
		error_set(cause, "%s", why);
		goto out;
	}
	worker_inventory_parse(info, &nr_node, &nr_cpu, &memory);
	if (store_agent_up(st, a->name, info, nr_node, nr_cpu, memory,
	    cause) != 0) {
		r = -1;
		goto out;
	}
	r = 0;
out:
	transport_close(tr);
	free(info);
	free(why);
	return r;
}

static int
worker_probe_child(struct context *parent, const char *name)
{
	const struct config_agent	*a;
	struct store			*st = NULL;
	char				*cause = NULL;
	int				 r = 1;

	if ((a = config_agent_find(parent->config, name)) == NULL)
		goto out;
	if (store_open(parent->config->db, &st, &cause) != 0) {
		log_error("probing agent '%s': %s", name, cause);
		goto out;
	}
	if (worker_probe_now(st, a, parent->agent_path, &cause) != 0)
		log_warn("%s", cause);
	else
		log_debug("agent '%s' is up", name);
	r = 0;
out:
	store_close(st);
	free(cause);
	return r;
}

pid_t
worker_probe(struct context *ctx, const char *agent, char **cause)
{
	pid_t	parent = getpid(), pid;

	fflush(NULL);
	if ((pid = fork()) == -1)
		return error_errno(cause, "couldn't fork a probe");
	if (pid == 0) {
		worker_child_setup(parent);
		_exit(worker_probe_child(ctx, agent));
	}
	return pid;
}

pid_t
worker_fetch(struct context *ctx, const char *repo, char **cause)
{
	const struct config_repo	*cr;
	const char			*env;
	pid_t				 parent = getpid(), pid;
	char				*why = NULL;
	unsigned			 stall = WORKER_FETCH_STALL;

	if ((cr = config_repo_find(ctx->config, repo)) == NULL)
		return error_set(cause, "no repository '%s' in the config",
		    repo);
	if ((env = getenv("BISECTD_TEST_FETCH_STALL")) != NULL &&
	    atoi(env) > 0)
		stall = (unsigned)atoi(env);
	fflush(NULL);
	if ((pid = fork()) == -1)
		return error_errno(cause, "couldn't fork a fetch");
	if (pid == 0) {
		worker_child_setup(parent);
		/* the cause is said by the daemon, once */
		if (tracker_fetch_repo(ctx->config, cr, stall, &why) == 0)
			_exit(0);
		_exit(1);
	}
	return pid;
}

pid_t
worker_link(struct context *ctx, const char *agent, int fd, char **cause)
{
	const struct config_agent	*a;
	pid_t				 parent = getpid(), pid;
	char				*why = NULL;

	if ((a = config_agent_find(ctx->config, agent)) == NULL)
		return error_set(cause, "no agent '%s' in the config", agent);
	fflush(NULL);
	if ((pid = fork()) == -1)
		return error_errno(cause, "couldn't fork a link");
	if (pid == 0) {
		worker_child_setup(parent);
		transport_link_serve(fd, a, ctx->agent_path, &why);
		log_error("agent '%s': its link: %s", agent, why);
		_exit(1);
	}
	return pid;
}
