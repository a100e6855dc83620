/*
 * Continuous mode. Each tracked branch is fetched (libgit2, from the
 * repository's `fetch:` remote name or URL into refs/bisectd/track/BRANCH;
 * without `fetch:` the local branch is read as it is) every `interval`
 * seconds, in a child process (bisectd/worker.c), so that a slow or
 * silent remote holds up nothing else; the branches are read when it
 * ends. New commits along the first-parent line are appended to the
 * branch's series in the database and the continuous jobs are queued at
 * them (every commit, or only each fetch's newest). When none of a job's
 * runs is pending, the series of its headline metric goes through the
 * change-point test (bisectd/series.c); a change in the bad direction
 * that no earlier regression of the series covers becomes a regression row
 * and a bisection between the last commit before it and the first after.
 * With `web:` set, the index page (bisectd/web-index.c) is written anew
 * when runs have ended, at most every 30 seconds, so that the series'
 * plots follow the runs.
 */
#include <git2.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/request.h"
#include "bisectd/series.h"
#include "bisectd/tracker.h"
#include "bisectd/web.h"
#include "bisectd/worker.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/xalloc.h"

/* Seconds between two writes of the web index in continuous mode. */
#define TRACKER_INDEX_EVERY	30

struct tracker_repo {
	char	*name;
	time_t	 next_fetch;
	pid_t	 fetching;	/* the fetch child, or 0 */
	int	 fetched;	/* its refs are to be read */
};

struct tracker {
	struct tracker_repo	*repos;
	size_t			 nr_repos;
	size_t			 alloc_repos;
	long			 last_samples;	/* runs ended at last detection */
	int			 index_due;	/* runs ended since the index */
	time_t			 next_index;	/* not rewritten before then */
};

struct tracker *
tracker_new(void)
{
	return xcalloc(1, sizeof(struct tracker));
}

void
tracker_free(struct tracker *t)
{
	size_t	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nr_repos; i++)
		free(t->repos[i].name);
	free(t->repos);
	free(t);
}

static struct tracker_repo *
tracker_repo(struct tracker *t, const char *name)
{
	size_t	i;

	for (i = 0; i < t->nr_repos; i++)
		if (strcmp(t->repos[i].name, name) == 0)
			return &t->repos[i];
	ALLOC_GROW(t->repos, t->nr_repos, t->alloc_repos);
	t->repos[t->nr_repos].name = xstrdup(name);
	t->repos[t->nr_repos].next_fetch = 0;
	t->repos[t->nr_repos].fetching = 0;
	t->repos[t->nr_repos].fetched = 0;
	return &t->repos[t->nr_repos++];
}

static int
tracker_git_error(char **cause, const char *what, const char *repo)
{
	const git_error	*e = git_error_last();

	return error_set(cause, "%s in repository '%s': %s", what, repo,
	    e != NULL && e->message != NULL ? e->message : "unknown error");
}

static char	tracker_stall_msg[128];

static void
tracker_stalled(int sig)
{
	ssize_t	w;

	(void)sig;
	w = write(STDERR_FILENO, tracker_stall_msg, strlen(tracker_stall_msg));
	(void)w;
	_exit(3);
}

/* Any progress of the transfer puts the stall off again. */
static int
tracker_fetch_progress(const git_indexer_progress *stats, void *payload)
{
	(void)stats;
	alarm(*(unsigned *)payload);
	return 0;
}

static int
tracker_fetch_sideband(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	alarm(*(unsigned *)payload);
	return 0;
}

/*
 * In the fetch child: fetch the tracked branches, their tips landing in
 * refs/bisectd/track/. A fetch that makes no progress for `stall` seconds
 * (a remote that accepted the connection and went quiet) ends the child.
 */
int
tracker_fetch_repo(const struct config_repo *cr, unsigned stall, char **cause)
{
	git_repository		*repo = NULL;
	git_remote		*remote = NULL;
	git_fetch_options	 opts = GIT_FETCH_OPTIONS_INIT;
	git_strarray		 specs;
	char			**refspecs = NULL;
	size_t			 i;
	int			 r = -1;

	git_libgit2_init();
	snprintf(tracker_stall_msg, sizeof tracker_stall_msg, "bisectd: "
	    "repository '%s': fetch stalled: no progress for %u seconds\n",
	    cr->name, stall);
	signal(SIGALRM, tracker_stalled);
	alarm(stall);
	if (git_repository_open(&repo, cr->path) != 0) {
		tracker_git_error(cause, "couldn't open", cr->name);
		goto out;
	}
	if (git_remote_lookup(&remote, repo, cr->fetch) != 0 &&
	    git_remote_create_anonymous(&remote, repo, cr->fetch) != 0) {
		tracker_git_error(cause, "couldn't find the remote", cr->name);
		goto out;
	}
	refspecs = xcalloc(cr->nr_track + 1, sizeof *refspecs);
	for (i = 0; i < cr->nr_track; i++)
		refspecs[i] = xasprintf("+refs/heads/%s:refs/bisectd/track/%s",
		    cr->track[i], cr->track[i]);
	specs.strings = refspecs;
	specs.count = cr->nr_track;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	opts.callbacks.transfer_progress = tracker_fetch_progress;
	opts.callbacks.sideband_progress = tracker_fetch_sideband;
	opts.callbacks.payload = &stall;
	if (git_remote_fetch(remote, &specs, &opts, "bisectd fetch") != 0) {
		tracker_git_error(cause, "couldn't fetch", cr->name);
		goto out;
	}
	r = 0;
out:
	alarm(0);
	for (i = 0; refspecs != NULL && i < cr->nr_track; i++)
		free(refspecs[i]);
	free(refspecs);
	git_remote_free(remote);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return r;
}

void
tracker_fetched(struct tracker *t, const char *repo)
{
	struct tracker_repo	*tr = tracker_repo(t, repo);

	tr->fetching = 0;
	tr->fetched = 1;
}

static int
tracker_tip(git_repository *repo, const struct config_repo *cr,
    const char *branch, git_oid *out)
{
	char	ref[512];

	if (cr->fetch != NULL)
		snprintf(ref, sizeof ref, "refs/bisectd/track/%s", branch);
	else
		snprintf(ref, sizeof ref, "refs/heads/%s", branch);
	return git_reference_name_to_id(out, repo, ref);
}

/* Append the branch's new first-parent commits, oldest first. */
static int
tracker_record(struct scheduler *s, git_repository *repo,
    const struct config_repo *cr, const char *branch, char **cause)
{
	const struct config_continuous	*cc = &s->ctx->config->continuous;
	git_revwalk			*walk = NULL;
	git_oid				 tip, oid, base;
	char				 hex[GIT_OID_HEXSZ + 1], *last = NULL;
	char				**fresh = NULL;
	size_t				 nr = 0, i;
	int64_t				 seq;
	int				 r = -1;

	if (tracker_tip(repo, cr, branch, &tip) != 0) {
		log_warn("repository '%s': no branch '%s' to track yet",
		    cr->name, branch);
		return 0;
	}
	if (store_tracked_last(s->ctx->store, cr->name, branch, &seq, &last,
	    cause) != 0)
		return -1;
	git_oid_tostr(hex, sizeof hex, &tip);
	if (last != NULL && strcmp(last, hex) == 0) {
		r = 0;
		goto out;
	}
	if (last == NULL) {
		for (i = 0; i < cc->nr_base; i++) {
			git_object	*obj = NULL;

			if (git_revparse_single(&obj, repo, cc->base[i]) != 0) {
				log_warn("repository '%s': no base '%s'",
				    cr->name, cc->base[i]);
				continue;
			}
			base = *git_object_id(obj);
			git_object_free(obj);
			git_oid_tostr(hex, sizeof hex, &base);
			if (store_tracked_add(s->ctx->store, cr->name, branch,
			    hex, 1, cause) != 0)
				goto out;
		}
		git_oid_tostr(hex, sizeof hex, &tip);
		r = store_tracked_add(s->ctx->store, cr->name, branch, hex, 0,
		    cause);
		goto out;
	}
	if (git_revwalk_new(&walk, repo) != 0 ||
	    git_revwalk_push(walk, &tip) != 0) {
		tracker_git_error(cause, "couldn't walk", cr->name);
		goto out;
	}
	git_revwalk_simplify_first_parent(walk);
	while (nr < (size_t)cc->max_new && git_revwalk_next(&oid, walk) == 0) {
		git_oid_tostr(hex, sizeof hex, &oid);
		if (strcmp(hex, last) == 0)
			break;
		fresh = xreallocarray(fresh, nr + 1, sizeof *fresh);
		fresh[nr++] = xstrdup(hex);
	}
	for (i = nr; i > 0; i--) {
		if (!cc->every && i != 1)
			continue;
		if (store_tracked_add(s->ctx->store, cr->name, branch,
		    fresh[i - 1], 0, cause) != 0)
			goto out;
	}
	if (nr > 0)
		log_info("repository '%s': %zu new commits on '%s'", cr->name,
		    nr, branch);
	r = 0;
out:
	for (i = 0; i < nr; i++)
		free(fresh[i]);
	free(fresh);
	free(last);
	git_revwalk_free(walk);
	return r;
}

static int
tracker_queue(struct scheduler *s, const struct config_repo *cr,
    const char *branch, char **cause)
{
	const struct config_continuous	*cc = &s->ctx->config->continuous;
	struct store_tracked		*t = NULL;
	struct request_spec		 spec;
	const char			*rev;
	size_t				 nr = 0, i, j;
	int64_t				 id;
	int				 resumed, r = -1;

	if (store_tracked_list(s->ctx->store, cr->name, branch, &t, &nr,
	    cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
		if (t[i].queued)
			continue;
		rev = t[i].commit_oid;
		for (j = 0; j < cc->nr_jobs; j++) {
			memset(&spec, 0, sizeof spec);
			spec.kind = "queue";
			spec.job_file = cc->jobs[j];
			spec.repo = cr->name;
			spec.revs = &rev;
			spec.nr_revs = 1;
			if (request_create(s->ctx, &spec, &id, &resumed,
			    cause) != 0) {
				error_prefix(cause, "continuous job '%s'",
				    cc->jobs[j]);
				goto out;
			}
		}
		if (store_tracked_queued(s->ctx->store, cr->name, branch,
		    t[i].seq, cause) != 0)
			goto out;
		s->progress = 1;
	}
	r = 0;
out:
	store_tracked_list_free(t, nr);
	return r;
}

/* The job's canonical text as a file, so that a bisection can name it. */
static char *
tracker_job_file(struct scheduler *s, const struct job *job, char **cause)
{
	char	*dir = path_join(s->ctx->config->workdir, "jobs");
	char	*name = xasprintf("%s.yaml", job->id), *path = NULL;

	if (dir_create(dir, cause) == 0) {
		path = path_join(dir, name);
		if (file_write_atomic(path, job->canonical,
		    strlen(job->canonical), cause) != 0) {
			free(path);
			path = NULL;
		}
	}
	free(dir);
	free(name);
	return path;
}

static int
tracker_regressed(double change_pct, enum job_direction dir)
{
	if (dir == JOB_DIRECTION_HIGHER)
		return change_pct < 0;
	if (dir == JOB_DIRECTION_LOWER)
		return change_pct > 0;
	return 1;
}

static int
tracker_detect_job(struct scheduler *s, const struct config_repo *cr,
    const char *branch, const struct job *job, const struct store_tracked *t,
    size_t nr, char **cause)
{
	struct store			*st = s->ctx->store;
	const struct metric_info	*mi = metric_lookup(job->metric);
	enum job_direction		 dir = job->direction;
	const struct changepoint	*cp;
	const struct series_point	*before, *after;
	struct series			 series;
	struct request_spec		 spec;
	size_t				 i;
	char				*desc = job_describe(job), *file = NULL;
	const char			*revs[2];
	int64_t				 job_row, id;
	int				 busy, found, resumed, r = -1;

	memset(&series, 0, sizeof series);
	if (dir == JOB_DIRECTION_UNKNOWN)
		dir = mi->direction;
	if (store_job_add(st, job->id, job->testcase, desc, job->canonical,
	    job->metric, job_direction_name(job->direction), &job_row,
	    cause) != 0 ||
	    store_run_busy(st, job_row, cr->name, &busy, cause) != 0)
		goto out;
	if (busy) {
		r = 0;
		goto out;
	}
	if (series_load(&series, st, job_row, cr->name, job->metric, t, nr,
	    cause) != 0 ||
	    series_detect(&series, mi->min_effect_pct, cause) != 0)
		goto out;
	for (i = 0; i < series.cp.nr_points; i++) {
		cp = &series.cp.points[i];
		if (!tracker_regressed(cp->change_pct, dir) || cp->group == 0)
			continue;
		before = &series.points[cp->group - 1];
		after = &series.points[cp->group];
		if (store_regression_overlaps(st, cr->name, branch, job_row,
		    job->metric, before->seq, after->seq, &found, cause) != 0)
			goto out;
		if (found)
			continue;
		log_info("repository '%s' branch '%s': %+.1f%% %s between "
		    "%.12s and %.12s (p = %.3g): bisecting", cr->name, branch,
		    cp->change_pct, job->metric, before->oid, after->oid,
		    cp->p_value);
		free(file);
		if ((file = tracker_job_file(s, job, cause)) == NULL)
			goto out;
		memset(&spec, 0, sizeof spec);
		revs[0] = before->oid;
		revs[1] = after->oid;
		spec.kind = "bisect";
		spec.job_file = file;
		spec.repo = cr->name;
		spec.revs = revs;
		spec.nr_revs = 2;
		spec.metric = job->metric;
		if (request_create(s->ctx, &spec, &id, &resumed, cause) != 0)
			goto out;
		if (store_regression_add(st, cr->name, branch, job_row,
		    job->metric, before->oid, after->oid, before->seq,
		    after->seq, cp->change_pct, cp->p_value, id, cause) != 0)
			goto out;
		s->progress = 1;
	}
	r = 0;
out:
	series_release(&series);
	free(desc);
	free(file);
	return r;
}

static int
tracker_detect(struct scheduler *s, const struct config_repo *cr,
    const char *branch, char **cause)
{
	const struct config_continuous	*cc = &s->ctx->config->continuous;
	struct store_tracked		*t = NULL;
	struct job			**jobs = NULL;
	size_t				  nr = 0, nr_jobs = 0, i, j;
	int				  r = -1;

	if (store_tracked_list(s->ctx->store, cr->name, branch, &t, &nr,
	    cause) != 0)
		return -1;
	for (i = 0; i < cc->nr_jobs; i++) {
		job_list_free(jobs, nr_jobs);
		jobs = NULL;
		nr_jobs = 0;
		if (job_load(cc->jobs[i], &jobs, &nr_jobs, cause) != 0)
			goto out;
		for (j = 0; j < nr_jobs; j++) {
			if (jobs[j]->metric == NULL)
				continue;
			if (tracker_detect_job(s, cr, branch, jobs[j], t, nr,
			    cause) != 0)
				goto out;
		}
	}
	r = 0;
out:
	job_list_free(jobs, nr_jobs);
	store_tracked_list_free(t, nr);
	return r;
}

int
tracker_turn(struct tracker *t, struct scheduler *s, char **cause)
{
	const struct config		*cfg = s->ctx->config;
	const struct config_repo	*cr;
	struct tracker_repo		*tr;
	struct store_counts		 counts;
	git_repository			*repo = NULL;
	time_t				 now = time(NULL);
	pid_t				 pid;
	size_t				 i, j;
	char				*why = NULL;
	int				 detect, r = -1;

	if (cfg->continuous.nr_jobs == 0)
		return 0;
	if (store_counts(s->ctx->store, &counts, cause) != 0)
		return -1;
	/* Detection runs again only when a run has ended since. */
	detect = counts.runs_done + counts.runs_failed != t->last_samples;
	t->last_samples = counts.runs_done + counts.runs_failed;
	for (i = 0; i < cfg->nr_repos; i++) {
		cr = &cfg->repos[i];
		if (cr->nr_track == 0)
			continue;
		tr = tracker_repo(t, cr->name);
		if (tr->fetching == 0 && now >= tr->next_fetch) {
			tr->next_fetch = now + cfg->continuous.interval;
			/* a remote is fetched in a child: it may be slow */
			if (cr->fetch == NULL)
				tr->fetched = 1;
			else if ((pid = worker_fetch(s->ctx, cr->name,
			    &why)) == -1) {
				log_warn("repository '%s': %s", cr->name, why);
				free(why);
				why = NULL;
			} else {
				scheduler_child_add(s, pid,
				    SCHEDULER_CHILD_FETCH, 0, 0, cr->name,
				    NULL);
				tr->fetching = pid;
			}
		}
		if (tr->fetched) {
			tr->fetched = 0;
			git_libgit2_init();
			if (git_repository_open(&repo, cr->path) != 0) {
				tracker_git_error(cause, "couldn't open",
				    cr->name);
				goto out;
			}
			for (j = 0; j < cr->nr_track; j++) {
				if (tracker_record(s, repo, cr, cr->track[j],
				    cause) != 0)
					goto out;
			}
			git_repository_free(repo);
			repo = NULL;
			git_libgit2_shutdown();
		}
		for (j = 0; j < cr->nr_track; j++) {
			if (tracker_queue(s, cr, cr->track[j], cause) != 0)
				goto out;
			if (detect && tracker_detect(s, cr, cr->track[j],
			    cause) != 0)
				goto out;
		}
	}
	/*
	 * The series' page follows its runs, at most every
	 * TRACKER_INDEX_EVERY seconds (a long series' plots cost a good part
	 * of a second); a page never stops the daemon.
	 */
	t->index_due |= detect;
	if (t->index_due && cfg->web != NULL && now >= t->next_index) {
		t->index_due = 0;
		t->next_index = now + TRACKER_INDEX_EVERY;
		if (web_index_write(s->ctx, cfg->web, cause) != 0) {
			log_warn("web: %s", *cause);
			free(*cause);
			*cause = NULL;
		}
	}
	r = 0;
out:
	if (repo != NULL) {
		git_repository_free(repo);
		git_libgit2_shutdown();
	}
	return r;
}
