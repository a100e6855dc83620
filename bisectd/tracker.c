/*
 * Continuous mode: each tracked branch is fetched in a child on an
 * interval, its new commits recorded and the continuous jobs queued at them;
 * when a job's runs are over its headline series goes through the
 * change-point test, and a new regression becomes a bisection. The rules
 * are in docs/design.md, "File notes".
 */
#include <git2.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/repo.h"
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
/* How far a walk goes counting the commits that max_new skips. */
#define TRACKER_COUNT_MAX	100000
/* The longest wait between two fetches of a failing remote, seconds. */
#define TRACKER_BACKOFF_MAX	3600

struct tracker_repo {
	char	*name;
	time_t	 next_fetch;
	pid_t	 fetching;	/* the fetch child, or 0 */
	int	 fetched;	/* its refs are to be read */
	int	 queue_due;	/* they were read: queue what came in */
	unsigned char *missing;	/* per tracked branch: said it is missing */
	/*
	 * per tracked branch: its series was looked at with none of its runs
	 * pending and nothing asked for since, and no commit came or went:
	 * a run ending elsewhere does not make it look again
	 */
	unsigned char *settled;
	size_t	 nr_missing;
	unsigned failures;	/* fetches failed in a row */
	char	*failure;	/* the last one's cause, said once */
};

struct tracker {
	struct tracker_repo	*repos;
	size_t			 nr_repos;
	size_t			 alloc_repos;
	int64_t			 last_active;	/* runs pending or running, */
	int64_t			 last_newest;	/* and the newest, last turn */
	int			 started;	/* the first turn is over */
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
	for (i = 0; i < t->nr_repos; i++) {
		free(t->repos[i].name);
		free(t->repos[i].missing);
		free(t->repos[i].settled);
		free(t->repos[i].failure);
	}
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
	t->repos[t->nr_repos].queue_due = 1;
	t->repos[t->nr_repos].missing = NULL;
	t->repos[t->nr_repos].settled = NULL;
	t->repos[t->nr_repos].nr_missing = 0;
	t->repos[t->nr_repos].failures = 0;
	t->repos[t->nr_repos].failure = NULL;
	return &t->repos[t->nr_repos++];
}

/*
 * A failed fetch is said once, with its cause, and again only when the
 * cause changes; the next tries come later and later (the interval
 * doubled each time, up to TRACKER_BACKOFF_MAX, or the interval when
 * longer); the first fetch that works again is said too.
 */
void
tracker_fetched(struct tracker *t, const struct config *cfg,
    const char *repo, int status)
{
	struct tracker_repo	*tr = tracker_repo(t, repo);
	char			*note, *why = NULL;
	long			 delay, cap;
	unsigned		 i;
	size_t			 len;

	tr->fetching = 0;
	tr->fetched = 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (tr->failures > 0)
			log_info("repository '%s': fetch works again, after %u "
			    "failed", repo, tr->failures);
		tr->failures = 0;
		free(tr->failure);
		tr->failure = NULL;
		return;
	}
	note = tracker_fetch_note(cfg, repo);
	if (file_read(note, &why, &len, NULL) != 0 || len == 0) {
		free(why);
		if (WIFSIGNALED(status))
			why = xasprintf("repository '%s': its fetch was killed "
			    "by signal %d", repo, WTERMSIG(status));
		else if (WEXITSTATUS(status) == 3)
			why = xasprintf("repository '%s': the fetch stalled",
			    repo);
		else
			why = xasprintf("repository '%s': its fetch exited "
			    "with status %d", repo, WEXITSTATUS(status));
	}
	free(note);
	tr->failures++;
	cap = TRACKER_BACKOFF_MAX;
	if (cap < cfg->continuous.interval)
		cap = cfg->continuous.interval;
	delay = cfg->continuous.interval > 0 ? cfg->continuous.interval : 1;
	for (i = 1; i < tr->failures && delay < cap; i++)
		delay *= 2;
	if (delay > cap)
		delay = cap;
	tr->next_fetch = time(NULL) + delay;
	if (tr->failure == NULL || strcmp(tr->failure, why) != 0)
		log_warn("%s; trying again in %ld s, then less often (up to "
		    "every %ld s) until it works", why, delay, cap);
	free(tr->failure);
	tr->failure = why;
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

/* Append one commit to the branch's series, with its tree. */
static int
tracker_add(struct services *s, git_repository *repo,
    const struct config_repo *cr, const char *branch, const git_oid *oid,
    int base, int *reused, char **cause)
{
	git_commit	*c = NULL;
	char		 hex[GIT_OID_HEXSZ + 1], tree[GIT_OID_HEXSZ + 1];
	char		*as = NULL;
	int		 r = -1;

	git_oid_tostr(hex, sizeof hex, oid);
	if (git_commit_lookup(&c, repo, oid) != 0) {
		error_set(cause, "couldn't read a commit in repository "
		    "'%s': %s", cr->name, repo_git_error());
		goto out;
	}
	git_oid_tostr(tree, sizeof tree, git_commit_tree_id(c));
	if (store_tracked_add(s->ctx->store, cr->name, branch, hex, tree, base,
	    &as, cause) != 0)
		goto out;
	if (as != NULL)
		(*reused)++;
	r = 0;
out:
	free(as);
	git_commit_free(c);
	return r;
}

/* A branch without a tip: said once, and marked gone when it was seen. */
static int
tracker_missing(struct services *s, struct tracker_repo *tr,
    const struct config_repo *cr, size_t b, char **cause)
{
	const char	*branch = cr->track[b];
	char		*last = NULL;
	int64_t		 seq;
	int		 gone, r = -1;

	if (store_tracked_last(s->ctx->store, cr->name, branch, &seq, &last,
	    cause) != 0 ||
	    store_tracked_gone(s->ctx->store, cr->name, branch, &gone,
	    cause) != 0)
		goto out;
	if (last == NULL) {
		if (!tr->missing[b])
			log_warn("repository '%s': no branch '%s' to track yet",
			    cr->name, branch);
		tr->missing[b] = 1;
		r = 0;
		goto out;
	}
	if (!gone) {
		log_warn("repository '%s': branch '%s' is gone upstream: its "
		    "series and regressions are kept, marked gone", cr->name,
		    branch);
		if (store_tracked_set_gone(s->ctx->store, cr->name, branch, 1,
		    cause) != 0)
			goto out;
	}
	r = 0;
out:
	free(last);
	return r;
}

/* A branch that was gone upstream is back: say so once. */
static int
tracker_back(struct services *s, const struct config_repo *cr,
    const char *branch, char **cause)
{
	int	gone;

	if (store_tracked_gone(s->ctx->store, cr->name, branch, &gone,
	    cause) != 0)
		return -1;
	if (!gone)
		return 0;
	log_info("repository '%s': branch '%s' is back", cr->name, branch);
	return store_tracked_set_gone(s->ctx->store, cr->name, branch, 0,
	    cause);
}

/* A new series starts with the continuous mode's bases that resolve. */
static int
tracker_bases(struct services *s, git_repository *repo,
    const struct config_repo *cr, const char *branch, int *reused,
    char **cause)
{
	const struct config_continuous	*cc = &s->ctx->config->continuous;
	git_object			*obj;
	git_oid				 base;
	size_t				 i;

	for (i = 0; i < cc->nr_base; i++) {
		obj = NULL;
		if (git_revparse_single(&obj, repo, cc->base[i]) != 0) {
			log_warn("repository '%s': no base '%s'", cr->name,
			    cc->base[i]);
			continue;
		}
		base = *git_object_id(obj);
		git_object_free(obj);
		if (tracker_add(s, repo, cr, branch, &base, 1, reused,
		    cause) != 0)
			return -1;
	}
	return 0;
}

/*
 * The series follows the branch's first-parent line: the walk from the
 * tip stops at the first commit the series has (the fork point). When
 * that is not the series' newest commit the branch was rewritten: the
 * commits after the fork leave the series (their runs stay in the store)
 * and the new line is appended, oldest first.
 */
static int
tracker_record(struct services *s, struct tracker_repo *tr,
    git_repository *repo, const struct config_repo *cr, size_t b,
    unsigned char *settled, char **cause)
{
	const struct config_continuous	*cc = &s->ctx->config->continuous;
	const char			*branch = cr->track[b];
	git_revwalk			*walk = NULL;
	git_oid				 tip, oid, old;
	char				 hex[GIT_OID_HEXSZ + 1], *last = NULL;
	git_oid				*fresh = NULL;
	size_t				 nr = 0, skipped = 0, i;
	int64_t				 seq, fork = -1;
	int				 dropped = 0, reused = 0, ff;
	int				 r = -1;

	if (tracker_tip(repo, cr, branch, &tip) != 0)
		return tracker_missing(s, tr, cr, b, cause);
	tr->missing[b] = 0;
	if (tracker_back(s, cr, branch, cause) != 0)
		return -1;
	if (store_tracked_last(s->ctx->store, cr->name, branch, &seq, &last,
	    cause) != 0)
		return -1;
	git_oid_tostr(hex, sizeof hex, &tip);
	if (last != NULL && strcmp(last, hex) == 0) {
		r = 0;
		goto out;
	}
	*settled = 0;	/* its series changes: it is looked at again */
	if (last == NULL) {
		if (tracker_bases(s, repo, cr, branch, &reused, cause) == 0)
			r = tracker_add(s, repo, cr, branch, &tip, 0, &reused,
			    cause);
		goto out;
	}
	if (git_revwalk_new(&walk, repo) != 0 ||
	    git_revwalk_push(walk, &tip) != 0) {
		error_set(cause, "couldn't walk in repository '%s': %s",
		    cr->name, repo_git_error());
		goto out;
	}
	git_revwalk_simplify_first_parent(walk);
	while (git_revwalk_next(&oid, walk) == 0) {
		git_oid_tostr(hex, sizeof hex, &oid);
		if (store_tracked_seq(s->ctx->store, cr->name, branch, hex,
		    &fork, cause) != 0)
			goto out;
		if (fork >= 0)
			break;
		if (nr < (size_t)cc->max_new) {
			fresh = xreallocarray(fresh, nr + 1, sizeof *fresh);
			fresh[nr++] = oid;
		} else if (++skipped == TRACKER_COUNT_MAX)
			break;
	}
	if (skipped == TRACKER_COUNT_MAX)
		log_warn("repository '%s': branch '%s': no commit of its series "
		    "in the newest %d of its line: nothing leaves the series",
		    cr->name, branch, TRACKER_COUNT_MAX);
	else if (fork < 0 || strcmp(hex, last) != 0) {
		ff = git_oid_fromstr(&old, last) == 0 &&
		    git_graph_descendant_of(repo, &tip, &old) == 1;
		if (store_tracked_drop(s->ctx->store, cr->name, branch, fork,
		    &dropped, cause) != 0)
			goto out;
		log_info("repository '%s': branch '%s' %s: %d commits leave "
		    "its series, %zu come in%s", cr->name, branch, ff ?
		    "moved off its first-parent line" : "was rewritten",
		    dropped, nr + skipped, fork < 0 ? " (no commit in "
		    "common)" : "");
	}
	for (i = nr; i > 0; i--) {
		if (!cc->every && i != 1)
			continue;
		if (tracker_add(s, repo, cr, branch, &fresh[i - 1], 0, &reused,
		    cause) != 0)
			goto out;
	}
	if (nr > 0 && fork >= 0 && dropped == 0)
		log_info("repository '%s': %zu new commits on '%s'", cr->name,
		    nr + skipped, branch);
	if (skipped > 0)
		log_info("repository '%s': branch '%s': %s%zu older new commits "
		    "skipped (continuous: max_new is %d): the newest %zu are "
		    "tested", cr->name, branch, skipped == TRACKER_COUNT_MAX ?
		    "at least " : "", skipped, cc->max_new, nr);
	if (reused > 0)
		log_info("repository '%s': branch '%s': %d commits of a tree "
		    "tested already: their builds and runs are reused",
		    cr->name, branch, reused);
	r = 0;
out:
	free(fresh);
	free(last);
	git_revwalk_free(walk);
	return r;
}

static int
tracker_queue(struct services *s, const struct config_repo *cr,
    char **cause)
{
	const struct config_continuous	*cc = &s->ctx->config->continuous;
	struct store_tracked		*t = NULL;
	struct request_spec		 spec;
	const char			*rev;
	size_t				 nr = 0, i, j;
	int64_t				 id;
	int				 resumed, r = -1;

	if (store_tracked_unqueued(s->ctx->store, cr->name, &t, &nr,
	    cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
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
		if (store_tracked_queued(s->ctx->store, cr->name, t[i].branch,
		    t[i].seq, cause) != 0)
			goto out;
		s->progress = 1;
	}
	r = 0;
out:
	store_tracked_list_free(t, nr);
	return r;
}

/* The continuous jobs, loaded once for a turn's detection. */
static int
tracker_jobs(struct services *s, struct job ***out, size_t *nr,
    char **cause)
{
	const struct config		*cfg = s->ctx->config;
	struct job_options		 jopts;
	struct job			**one = NULL;
	size_t				 n = 0, i, j;

	memset(&jopts, 0, sizeof jopts);
	jopts.include_dirs = (const char *const *)cfg->job_include;
	jopts.nr_include_dirs = cfg->nr_job_include;
	for (i = 0; i < cfg->continuous.nr_jobs; i++) {
		if (job_load_with(cfg->continuous.jobs[i], &jopts, &one, &n,
		    cause) != 0)
			return -1;
		*out = xreallocarray(*out, *nr + n, sizeof **out);
		for (j = 0; j < n; j++)
			(*out)[(*nr)++] = one[j];
		free(one);
		one = NULL;
	}
	return 0;
}

/* A remote is fetched in a child (it may be slow); a local one is read. */
static void
tracker_fetch_start(struct services *s, struct tracker_repo *tr,
    const struct config_repo *cr, time_t now)
{
	char	*why = NULL;
	pid_t	 pid;

	tr->next_fetch = now + s->ctx->config->continuous.interval;
	if (cr->fetch == NULL)
		tr->fetched = 1;
	else if ((pid = worker_fetch(s->ctx, cr->name, &why)) == -1) {
		log_warn("repository '%s': %s", cr->name, why);
		free(why);
	} else {
		services_fetch_started(s, pid, cr->name);
		tr->fetching = pid;
	}
}

/* Read the fetched branches into their series, in one transaction. */
static int
tracker_read(struct services *s, struct tracker_repo *tr,
    const struct config_repo *cr, char **cause)
{
	git_repository	*repo = NULL;
	size_t		 j;
	int		 r = -1;

	tr->fetched = 0;
	tr->queue_due = 1;
	git_libgit2_init();
	if (git_repository_open(&repo, cr->path) != 0) {
		error_set(cause, "couldn't open in repository '%s': %s",
		    cr->name, repo_git_error());
		goto out;
	}
	/* one transaction: one lock, not one per query */
	if (store_begin(s->ctx->store, cause) != 0)
		goto out;
	for (j = 0; j < cr->nr_track; j++) {
		if (tracker_record(s, tr, repo, cr, j, &tr->settled[j],
		    cause) != 0) {
			store_rollback(s->ctx->store);
			goto out;
		}
	}
	if (store_commit(s->ctx->store, cause) != 0)
		goto out;
	r = 0;
out:
	git_repository_free(repo);
	git_libgit2_shutdown();
	return r;
}

int
tracker_turn(struct tracker *t, struct services *s, char **cause)
{
	const struct config		*cfg = s->ctx->config;
	const struct config_repo	*cr;
	struct tracker_repo		*tr;
	int64_t				 active, newest;
	struct job			**jobs = NULL;
	size_t				 nr_jobs = 0;
	time_t				 now = time(NULL);
	size_t				 i, j;
	int				 detect, settled, r = -1;

	if (cfg->continuous.nr_jobs == 0)
		return 0;
	if (store_tracked_activity(s->ctx->store, &active, &newest,
	    cause) != 0)
		return -1;
	/*
	 * Detection runs again only when a run may have ended since: fewer
	 * runs are active, or runs were added (and may have ended already).
	 */
	detect = active != t->last_active || newest != t->last_newest ||
	    !t->started;
	t->started = 1;
	if (detect && tracker_jobs(s, &jobs, &nr_jobs, cause) != 0)
		goto out;
	t->last_active = active;
	t->last_newest = newest;
	for (i = 0; i < cfg->nr_repos; i++) {
		cr = &cfg->repos[i];
		if (cr->nr_track == 0)
			continue;
		tr = tracker_repo(t, cr->name);
		if (tr->nr_missing < cr->nr_track) {
			tr->missing = xreallocarray(tr->missing, cr->nr_track,
			    1);
			tr->settled = xreallocarray(tr->settled, cr->nr_track,
			    1);
			memset(tr->missing + tr->nr_missing, 0,
			    cr->nr_track - tr->nr_missing);
			memset(tr->settled + tr->nr_missing, 0,
			    cr->nr_track - tr->nr_missing);
			tr->nr_missing = cr->nr_track;
		}
		if (tr->fetching == 0 && now >= tr->next_fetch)
			tracker_fetch_start(s, tr, cr, now);
		if (tr->fetched && tracker_read(s, tr, cr, cause) != 0)
			goto out;
		/* only a reading of the branches adds rows to queue */
		if (tr->queue_due && tracker_queue(s, cr, cause) != 0)
			goto out;
		tr->queue_due = 0;
		for (j = 0; j < cr->nr_track; j++) {
			if (!detect || tr->settled[j])
				continue;
			if (tracker_detect(s, cr, cr->track[j], jobs, nr_jobs,
			    &settled, cause) != 0)
				goto out;
			tr->settled[j] = (unsigned char)settled;
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
	job_list_free(jobs, nr_jobs);
	return r;
}
