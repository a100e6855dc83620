/*
 * Continuous mode's detection: each continuous job's series of a tracked
 * branch through the change-point test once its runs are over; a new
 * regression becomes a bisection, an improvement after open regressions
 * closes them and has its fix bisected, and an unclear tail asks for runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/request.h"
#include "bisectd/series.h"
#include "bisectd/tracker.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "util/error.h"
#include "util/file.h"
#include "util/log.h"
#include "util/xalloc.h"

/* The job's canonical text as a file, so that a bisection can name it. */
static char *
tracker_detect_job_file(struct services *s, const struct job *job, char **cause)
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
tracker_detect_regressed(double change_pct, enum job_direction dir)
{
	if (dir == JOB_DIRECTION_HIGHER)
		return change_pct < 0;
	if (dir == JOB_DIRECTION_LOWER)
		return change_pct > 0;
	return 1;
}

/* A bisection between two commits of the series, for metric of job. */
static int
tracker_detect_bisect(struct services *s, const struct config_repo *cr,
    const struct job *job, const char *good, const char *bad,
    const char *direction, int64_t *id, char **cause)
{
	struct request_spec	 spec;
	const char		*revs[2];
	char			*file;
	int			 resumed, r;

	if ((file = tracker_detect_job_file(s, job, cause)) == NULL)
		return -1;
	memset(&spec, 0, sizeof spec);
	revs[0] = good;
	revs[1] = bad;
	spec.kind = "bisect";
	spec.job_file = file;
	spec.repo = cr->name;
	spec.revs = revs;
	spec.nr_revs = 2;
	spec.metric = job->metric;
	spec.direction = direction;
	r = request_create(s->ctx, &spec, id, &resumed, cause);
	free(file);
	return r;
}

/*
 * An improvement after open regressions of the series closes them: the
 * regression that came and went is recorded as fixed by it, and the fix
 * is bisected to its commit (a bisection whose direction is the other
 * way round: the change it looks for is the rise, or the fall, that
 * fixed it), whose report names the regression it fixes
 * (bisectd/report.c) and threads under its mail (bisectd/outbox.c).
 */
static int
tracker_detect_improved(struct services *s, const struct config_repo *cr,
    const char *branch, const struct job *job, int64_t job_row,
    enum job_direction dir, const struct changepoint *cp,
    const struct series_point *before, const struct series_point *after,
    char **cause)
{
	struct store	*st = s->ctx->store;
	int64_t		*open = NULL, id, bisection = 0;
	size_t		 nr = 0, i;
	int		 r = -1;

	if (store_regression_open(st, cr->name, branch, job_row, job->metric,
	    before->seq, &open, &nr, cause) != 0)
		goto out;
	log_info("repository '%s' branch '%s': %+.1f%% %s between %.12s and "
	    "%.12s (p = %.3g): an improvement%s", cr->name, branch,
	    cp->change_pct, job->metric, before->oid, after->oid, cp->p_value,
	    nr > 0 ? ", that fixes the regression before it: bisecting the "
	    "fix" : "");
	/* a fix is bisected to its commit, and reported as the fix */
	if (nr > 0 && tracker_detect_bisect(s, cr, job, before->oid, after->oid,
	    dir == JOB_DIRECTION_HIGHER ? "lower" : "higher", &bisection,
	    cause) != 0)
		goto out;
	if (store_regression_add(st, cr->name, branch, job_row, job->metric,
	    "improvement", before->oid, after->oid, before->seq, after->seq,
	    cp->change_pct, cp->p_value, bisection, &id, cause) != 0)
		goto out;
	for (i = 0; i < nr; i++)
		if (store_regression_fix(st, open[i], id, cause) != 0)
			goto out;
	s->progress = 1;
	r = 0;
out:
	free(open);
	return r;
}

/*
 * The newest commits look changed, but have too few runs to say: they are
 * run more (the tail test, bisectd/series.h), and the series is looked at
 * again when those runs are done.
 */
static int
tracker_detect_tail_more(struct services *s, const struct config_repo *cr,
    const char *branch, const struct job *job, const struct series *series,
    char **cause)
{
	const struct series_point	*p;
	struct request_spec		 spec;
	const char			*rev;
	char				*file;
	size_t				 i;
	int64_t				 id;
	int				 resumed, r = -1;

	if ((file = tracker_detect_job_file(s, job, cause)) == NULL)
		return -1;
	log_info("repository '%s' branch '%s': the newest %zu commits look "
	    "%+.1f%% %s (p = %.3g): running them to %zu runs each",
	    cr->name, branch, series->nr - series->tail.group,
	    series->tail.change_pct, job->metric, series->tail.p_value,
	    series->tail.more_runs);
	for (i = series->tail.group; i < series->nr; i++) {
		p = &series->points[i];
		if (p->nr >= series->tail.more_runs)
			continue;
		memset(&spec, 0, sizeof spec);
		rev = p->runs_oid;
		spec.kind = "queue";
		spec.job_file = file;
		spec.repo = cr->name;
		spec.revs = &rev;
		spec.nr_revs = 1;
		spec.runs = (unsigned)series->tail.more_runs;
		if (request_create(s->ctx, &spec, &id, &resumed, cause) != 0)
			goto out;
	}
	s->progress = 1;
	r = 0;
out:
	free(file);
	return r;
}

static int
tracker_detect_job(struct services *s, const struct config_repo *cr,
    const char *branch, const struct job *job, const struct store_tracked *t,
    size_t nr, int *idle, char **cause)
{
	struct store			*st = s->ctx->store;
	const struct metric_info	*mi = metric_lookup(job->metric);
	enum job_direction		 dir = job->direction;
	const struct changepoint	*cp;
	const struct series_point	*before, *after;
	struct series			 series;
	size_t				 i;
	char				*desc = job_describe(job);
	const char			*kind;
	int64_t				 job_row, id;
	int				 busy, found, bad, r = -1;

	*idle = 0;
	memset(&series, 0, sizeof series);
	if (dir == JOB_DIRECTION_UNKNOWN)
		dir = mi->direction;
	if (store_job_add(st, job->id, job->testcase, desc, job->canonical,
	    job->metric, job_direction_name(job->direction), &job_row,
	    cause) != 0 ||
	    store_tracked_busy(st, cr->name, branch, job_row, &busy,
	    cause) != 0)
		goto out;
	*idle = !busy;
	if (busy) {
		r = 0;
		goto out;
	}
	if (series_load(&series, st, job_row, cr->name, job->metric, t, nr,
	    cause) != 0 ||
	    series_detect(&series, mi->min_effect_pct,
	    dir == JOB_DIRECTION_HIGHER ? -1 : dir == JOB_DIRECTION_LOWER ?
	    1 : 0, cause) != 0)
		goto out;
	if (series.tail.verdict == CHANGEPOINT_TAIL_MORE) {
		*idle = 0;	/* it waits for the runs it asks for */
		if (tracker_detect_tail_more(s, cr, branch, job, &series,
		    cause) != 0)
			goto out;
	}
	for (i = 0; i < series.cp.nr_points; i++) {
		cp = &series.cp.points[i];
		if (cp->group == 0)
			continue;
		bad = tracker_detect_regressed(cp->change_pct, dir);
		/* with no direction known every change is a regression */
		kind = bad ? "regression" : "improvement";
		before = &series.points[cp->group - 1];
		after = &series.points[cp->group];
		if (store_regression_overlaps(st, cr->name, branch, job_row,
		    job->metric, kind, before->seq, after->seq, &found,
		    cause) != 0)
			goto out;
		if (found)
			continue;
		if (!bad) {
			if (tracker_detect_improved(s, cr, branch, job,
			    job_row, dir, cp, before, after, cause) != 0)
				goto out;
			continue;
		}
		log_info("repository '%s' branch '%s': %+.1f%% %s between "
		    "%.12s and %.12s (p = %.3g): bisecting", cr->name, branch,
		    cp->change_pct, job->metric, before->oid, after->oid,
		    cp->p_value);
		if (tracker_detect_bisect(s, cr, job, before->oid, after->oid,
		    NULL, &id, cause) != 0)
			goto out;
		if (store_regression_add(st, cr->name, branch, job_row,
		    job->metric, "regression", before->oid, after->oid,
		    before->seq, after->seq, cp->change_pct, cp->p_value, id,
		    NULL, cause) != 0)
			goto out;
		s->progress = 1;
	}
	r = 0;
out:
	series_release(&series);
	free(desc);
	return r;
}

int
tracker_detect(struct services *s, const struct config_repo *cr,
    const char *branch, struct job **jobs, size_t nr_jobs, int *settled,
    char **cause)
{
	struct store_tracked	*t = NULL;
	size_t			 nr = 0, j, off;
	int			 idle, r = -1;

	*settled = 1;
	if (store_tracked_list(s->ctx->store, cr->name, branch, &t, &nr,
	    cause) != 0)
		return -1;
	/* the test looks at the newest SERIES_WINDOW commits only */
	off = nr > SERIES_WINDOW ? nr - SERIES_WINDOW : 0;
	for (j = 0; j < nr_jobs; j++) {
		if (jobs[j]->metric == NULL)
			continue;
		if (tracker_detect_job(s, cr, branch, jobs[j], t + off,
		    nr - off, &idle, cause) != 0)
			goto out;
		*settled &= idle;
	}
	r = 0;
out:
	store_tracked_list_free(t, nr);
	return r;
}
