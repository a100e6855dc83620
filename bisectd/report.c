/*
 * Reports in the 0-day robot's style (DESIGN §3.4, docs/reports.md): the
 * headline, the sections a bisection's report shares with the compare
 * output (testcase, machine, environment, log), and the compare output of
 * a queue or compare request; the bisection's own report is in
 * bisectd/report-bisection.c, the tables in bisectd/report-compare.c
 * and bisectd/report-spread.c.
 */
#include <jansson.h>

#include <math.h>
#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/build-kernel.h"
#include "bisectd/drift.h"
#include "bisectd/jobcache.h"
#include "bisectd/mail.h"
#include "bisectd/repo.h"
#include "bisectd/report.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *
report_kind(double change_pct, const char *direction)
{
	if (direction != NULL && strcmp(direction, "higher") == 0)
		return change_pct < 0 ? "regression" : "improvement";
	if (direction != NULL && strcmp(direction, "lower") == 0)
		return change_pct > 0 ? "regression" : "improvement";
	return "change";
}

char *
report_headline(const char *oid, double change_pct, const char *metric,
    const char *direction, enum store_bisection_status status)
{
	int	unconfirmed = status == STORE_BISECTION_UNCONFIRMED;

	return xasprintf("commit %.10s: %s%+.1f%% %s %s", oid,
	    unconfirmed ? "unconfirmed " : "", change_pct, metric,
	    report_kind(change_pct, direction));
}

int
report_fairness_load(struct context *ctx, const struct store_bisection *b,
    const char *parent, const char *culprit, struct report_fairness *f)
{
	struct store_series	sa, sc;
	int			r = -1;

	memset(f, 0, sizeof *f);
	memset(&sa, 0, sizeof sa);
	memset(&sc, 0, sizeof sc);
	if (parent == NULL || store_series_get(ctx->store, b->job, b->repo,
	    parent, b->metric, &sa, NULL) != 0 || store_series_get(ctx->store,
	    b->job, b->repo, culprit, b->metric, &sc, NULL) != 0)
		goto out;
	r = report_spread_fairness_of(&sa, &sc, f);
out:
	store_series_release(&sa);
	store_series_release(&sc);
	return r;
}

json_t *
report_fairness_json(const struct report_fairness *f, double change_pct,
    const char *direction)
{
	if (!f->known)
		return NULL;
	return json_pack("{s:s, s:I, s:f, s:f, s:f, s:f, s:o, s:b}", "verdict",
	    f->change > 0 ? "fairer" : f->change < 0 ? "less_fair" :
	    "unchanged", "instances", (json_int_t)f->instances, "jain_parent",
	    f->jain_a,
	    "jain_culprit", f->jain_b, "min_max_parent", isfinite(f->minmax_a) ?
	    f->minmax_a : 0.0, "min_max_culprit", isfinite(f->minmax_b) ?
	    f->minmax_b : 0.0, "p_value", f->tested ? json_real(f->p_value) :
	    json_null(), "likely_fairness_improvement",
	    report_spread_fairness_likely(f, change_pct, direction));
}

char *
report_headline_fair(const char *oid, double change_pct, const char *metric,
    const char *direction, enum store_bisection_status status,
    const struct report_fairness *f)
{
	struct strbuf	sb = STRBUF_INIT;
	char		*h = report_headline(oid, change_pct, metric, direction,
			    status);

	strbuf_addstr(&sb, h);
	free(h);
	if (f != NULL)
		report_spread_fairness_suffix(&sb, f);
	return strbuf_detach(&sb, NULL);
}

int
report_log(struct strbuf *sb, struct context *ctx, int64_t id, char **cause)
{
	struct store_bisection		 b;
	struct store_step		*steps = NULL;
	const struct config_repo	*cr;
	struct repo			*repo = NULL;
	struct repo_commit		 rc;
	const char			*first_bad = NULL;
	size_t				 nr = 0, i;
	json_t				*res = NULL, *culprit;
	int				 r = -1;

	memset(&b, 0, sizeof b);
	if (store_bisection_get(ctx->store, id, &b, cause) != 0 ||
	    store_bisection_steps(ctx->store, id, &steps, &nr, cause) != 0)
		goto out;
	if ((cr = config_repo_find(ctx->config, b.repo)) != NULL)
		repo_open(cr, &repo, NULL);
	strbuf_addf(sb, "# bisectd bisection %lld of %s (%s)\n",
	    (long long)id, b.metric, b.direction);
	strbuf_addf(sb, "git bisect start '%s' '%s'\n", b.bad, b.good);
	for (i = 0; i < nr; i++) {
		memset(&rc, 0, sizeof rc);
		if (repo == NULL ||
		    repo_commit_read(repo, steps[i].commit_oid, &rc, NULL) != 0)
			rc.subject = NULL;
		strbuf_addf(sb, "# %s: [%s] %s (%d runs, mean %.6g)\n",
		    steps[i].verdict, steps[i].commit_oid,
		    rc.subject != NULL ? rc.subject : "", steps[i].samples,
		    steps[i].mean);
		strbuf_addf(sb, "git bisect %s %s\n", steps[i].verdict,
		    steps[i].commit_oid);
		repo_commit_release(&rc);
	}
	if (b.result != NULL && (res = json_loads(b.result, 0, NULL)) != NULL &&
	    (culprit = json_object_get(res, "culprit")) != NULL)
		first_bad = json_string_value(culprit);
	if (first_bad != NULL)
		strbuf_addf(sb, "# first bad commit: [%s]\n", first_bad);
	else
		strbuf_addf(sb, "# status: %s\n",
		    store_bisection_status_name(b.status));
	r = 0;
out:
	json_decref(res);
	store_bisection_release(&b);
	store_bisection_steps_free(steps, nr);
	repo_free(repo);
	return r;
}

/*
 * How the environment section treats a key: the machine's go to the "on
 * test machine" line; those a reader checks first -- they move a
 * benchmark by themselves and a job does not say them (seed 000) -- are
 * always shown, in this order; the others only when they differ.
 */
enum report_key {
	REPORT_KEY_OTHER = 0,
	REPORT_KEY_MACHINE,
	REPORT_KEY_SHOWN,
};

static const struct {
	const char	*name;
	enum report_key	 kind;
} report_keys[] = {
	{ "model", REPORT_KEY_MACHINE },
	{ "nr_cpu", REPORT_KEY_MACHINE },
	{ "nr_node", REPORT_KEY_MACHINE },
	{ "memory", REPORT_KEY_MACHINE },
	{ "kernel", REPORT_KEY_SHOWN },
	{ "governor", REPORT_KEY_SHOWN },
	{ "scaling_driver", REPORT_KEY_SHOWN },
	{ "no_turbo", REPORT_KEY_SHOWN },
	{ "cpufreq_boost", REPORT_KEY_SHOWN },
	{ "smt", REPORT_KEY_SHOWN },
	{ "thp_enabled", REPORT_KEY_SHOWN },
	{ "thp_defrag", REPORT_KEY_SHOWN },
	{ "numa_balancing", REPORT_KEY_SHOWN },
	{ "zone_reclaim_mode", REPORT_KEY_SHOWN },
};

static enum report_key
report_key_kind(const char *key)
{
	size_t	i;

	for (i = 0; i < sizeof report_keys / sizeof report_keys[0]; i++) {
		if (strcmp(report_keys[i].name, key) == 0)
			return report_keys[i].kind;
	}
	return REPORT_KEY_OTHER;
}

const char *
report_env_value(const struct drift_run *run, const char *key)
{
	size_t	i;

	for (i = 0; run != NULL && i < run->nr; i++) {
		if (strcmp(run->keys[i], key) == 0)
			return run->values[i];
	}
	return NULL;
}

/* "2 threads AMD EPYC with 24G memory, 1 node", from what is known. */
static void
report_machine(struct strbuf *sb, const struct drift_run *env)
{
	const char	*model = report_env_value(env, "model");
	const char	*cpus = report_env_value(env, "nr_cpu");
	const char	*nodes = report_env_value(env, "nr_node");
	const char	*memory = report_env_value(env, "memory");
	char		*mem;

	if (model == NULL && cpus == NULL && memory == NULL)
		return;
	strbuf_addstr(sb, "on test machine:");
	if (cpus != NULL)
		strbuf_addf(sb, " %s threads", cpus);
	if (model != NULL)
		strbuf_addf(sb, " %s", model);
	if (memory != NULL) {
		mem = drift_value("memory", memory);
		strbuf_addf(sb, "%s %s memory", cpus != NULL || model != NULL ?
		    " with" : "", mem);
		free(mem);
	}
	if (nodes != NULL)
		strbuf_addf(sb, ", %s node%s", nodes, strcmp(nodes, "1") == 0 ?
		    "" : "s");
	strbuf_addch(sb, '\n');
}

void
report_testcase(struct strbuf *sb, const char *testcase,
    const char *description, const struct job *job,
    const struct drift_run *env)
{
	size_t	i, shown = 0;

	if (description == NULL || strcmp(testcase, description) == 0)
		strbuf_addf(sb, "in testcase: %s\n", testcase);
	else
		strbuf_addf(sb, "in testcase: %s (%s)\n", testcase,
		    description);
	report_machine(sb, env);
	for (i = 0; job != NULL && i < job->nr_params; i++) {
		if (!job_param_is_testcase(job->params[i].key))
			continue;
		if (shown++ == 0)
			strbuf_addstr(sb, "with following parameters:\n\n");
		strbuf_addf(sb, "\t%s: %s\n", job->params[i].key,
		    job->params[i].value);
	}
	strbuf_addch(sb, '\n');
}

static int
report_drifted(const struct drift *d, const char *key)
{
	size_t	i;

	for (i = 0; d != NULL && i < d->nr; i++) {
		if (strcmp(d->items[i].key, key) == 0)
			return 1;
	}
	return 0;
}

/* Whether the parent's runs had key at another value (or none). */
static int
report_env_differs(const struct drift_run *parent, const char *key,
    const char *value)
{
	if (parent == NULL || parent->nr == 0)
		return 0;
	return !drift_same(key, report_env_value(parent, key), value);
}

static void
report_env_line(struct strbuf *sb, const struct drift_run *parent,
    const char *key, const char *value)
{
	const char	*pv = report_env_value(parent, key);

	strbuf_addf(sb, "\t%s: %s", key, value != NULL ? value : "(unset)");
	if (report_env_differs(parent, key, value))
		strbuf_addf(sb, " (parent: %s)", pv != NULL ? pv : "(unset)");
	strbuf_addch(sb, '\n');
}

void
report_environment(struct strbuf *sb, const struct drift *d,
    const struct drift_run *parent, const struct drift_run *culprit,
    const char *listed_by)
{
	const char	*key, *value;
	size_t		 i, same = 0;

	if (d != NULL && d->nr > 0) {
		strbuf_addstr(sb, "the compared runs differ in their "
		    "environment:\n");
		drift_format(sb, d, "\t");
		strbuf_addch(sb, '\n');
	}
	if (culprit == NULL || culprit->nr == 0)
		return;
	strbuf_addstr(sb, "environment of the culprit's runs:\n");
	for (i = 0; i < sizeof report_keys / sizeof report_keys[0]; i++) {
		key = report_keys[i].name;
		if (report_keys[i].kind != REPORT_KEY_SHOWN)
			continue;
		if ((value = report_env_value(culprit, key)) != NULL &&
		    !report_drifted(d, key))
			report_env_line(sb, parent, key, value);
	}
	for (i = 0; i < culprit->nr; i++) {
		key = culprit->keys[i];
		if (report_key_kind(key) != REPORT_KEY_OTHER ||
		    report_drifted(d, key))
			continue;
		if (report_env_differs(parent, key, culprit->values[i]))
			report_env_line(sb, parent, key, culprit->values[i]);
		else
			same++;
	}
	for (i = 0; parent != NULL && i < parent->nr; i++) {
		key = parent->keys[i];
		if (report_env_value(culprit, key) == NULL &&
		    report_key_kind(key) != REPORT_KEY_MACHINE &&
		    !report_drifted(d, key))
			report_env_line(sb, parent, key, NULL);
	}
	if (same > 0) {
		strbuf_addf(sb, "\tand %zu more %ssetting%s", same,
		    parent != NULL && parent->nr > 0 ? "identical " : "",
		    same == 1 ? "" : "s");
		if (listed_by != NULL)
			strbuf_addf(sb, "; %s lists them", listed_by);
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
}

/*
 * The compare output of a queue or compare request: per job, the drift
 * of its runs over the request's commits, then for each pair of
 * consecutive commits the compare table and the spread of instances.
 */
/* The drift of one job's runs, for --json: key, whether it matters, text. */
static void
report_drift_json(json_t *jout, const struct store_job *job,
    const struct drift *d)
{
	json_t	*a = json_object_get(jout, "drift");
	size_t	 i;

	for (i = 0; i < d->nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:b, s:s}",
		    "job", job->job_id, "key", d->items[i].key, "matters",
		    d->items[i].matters, "text", d->items[i].text));
}

/*
 * A commit with no sample: every run, or its build, failed. Said in the
 * output and counted, so that the command does not exit 0 on an empty
 * table.
 */
static int
report_compare_missing(struct strbuf *sb, struct context *ctx, int64_t job,
    const char *repo, const char *oid, size_t nr_series, size_t *missing,
    char **cause)
{
	int	done, failed;

	if (nr_series > 0)
		return 0;
	if (store_run_totals(ctx->store, job, repo, oid, &done, &failed,
	    cause) != 0)
		return -1;
	(*missing)++;
	strbuf_addf(sb, "no samples at %.12s: %d run%s failed, %d done "
	    "(`bisectctl status` and `bisectctl show --run RUN` say why)\n",
	    oid, failed, failed == 1 ? "" : "s", done);
	return 0;
}

/*
 * The environment drift of each job's runs at the request's commits, as
 * lines under a job's name in warn; *matter counts the keys that matter.
 */
static int
report_compare_drift(struct context *ctx, const char *repo,
    const int64_t *jobs, size_t nr_jobs, char **oids, char **revs,
    size_t nr_oids, json_t *jout, struct strbuf *warn, size_t *matter,
    char **cause)
{
	struct store_job	job;
	struct drift		d;
	size_t			i;
	int			r = -1;

	memset(&job, 0, sizeof job);
	memset(&d, 0, sizeof d);
	for (i = 0; i < nr_jobs; i++) {
		store_job_release(&job);
		drift_release(&d);
		if (store_job_get(ctx->store, jobs[i], &job, cause) != 0 ||
		    drift_check(ctx->store, jobs[i], repo,
		    (const char *const *)oids, (const char *const *)revs,
		    nr_oids, &d, cause) != 0)
			goto out;
		if (d.nr == 0)
			continue;
		*matter += d.nr_matter;
		if (jout != NULL)
			report_drift_json(jout, &job, &d);
		strbuf_addf(warn, "  %s (job %s):\n", job.description,
		    job.job_id);
		drift_format(warn, &d, "    ");
	}
	r = 0;
out:
	drift_release(&d);
	store_job_release(&job);
	return r;
}

/* One job's table between commits a and b (a == b: one commit's). */
static int
report_compare_pair(struct strbuf *body, struct context *ctx,
    const struct store_job *job, int64_t job_row, const char *repo,
    const char *a, const char *b, int all, size_t *missing, json_t *jout,
    char **cause)
{
	struct store_series	*sa = NULL, *sb = NULL;
	size_t			 na = 0, nb = 0;
	int			 r = -1;

	if (store_series_all(ctx->store, job_row, repo, a, &sa, &na,
	    cause) != 0 ||
	    store_series_all(ctx->store, job_row, repo, b, &sb, &nb,
	    cause) != 0)
		goto out;
	strbuf_addf(body, "%s%s (job %s)\n\n", body->len ? "\n" : "",
	    job->description, job->job_id);
	if (report_compare_missing(body, ctx, job_row, repo, a, na, missing,
	    cause) != 0 ||
	    (a != b && report_compare_missing(body, ctx, job_row, repo, b, nb,
	    missing, cause) != 0))
		goto out;
	if (jout != NULL)
		json_array_append_new(json_object_get(jout, "comparisons"),
		    json_pack("{s:s, s:s, s:o}", "job", job->job_id,
		    "description", job->description, "table", na == 0 ||
		    nb == 0 ? json_pack("{s:s, s:s, s:b}", "a", a, "b", b,
		    "no_samples", 1) : report_compare_json(a, b, sa, na, sb,
		    nb, job->metric, all)));
	if (na > 0 && nb > 0) {
		report_compare_table(body, a, b, sa, na, sb, nb, job->metric,
		    all);
		if (a != b) {
			strbuf_addch(body, '\n');
			report_spread_compare(body, a, b, sa, na, sb, nb);
		}
	}
	r = 0;
out:
	store_series_list_free(sa, na);
	store_series_list_free(sb, nb);
	return r;
}

int
report_compare_request(struct strbuf *out, struct context *ctx,
    int64_t request, int all, int allow_drift, int *refused, size_t *missing,
    json_t *jout, char **cause)
{
	struct store_job	  job;
	struct store_request	  rq;
	struct strbuf		  warn = STRBUF_INIT, body = STRBUF_INIT;
	int64_t			 *jobs = NULL;
	char			**oids = NULL, **revs = NULL;
	size_t			  nr_jobs = 0, nr_oids = 0;
	size_t			  i, k, matter = 0;
	int			  r = -1;

	*refused = 0;
	*missing = 0;
	memset(&job, 0, sizeof job);
	memset(&rq, 0, sizeof rq);
	if (store_request_get(ctx->store, request, &rq, cause) != 0 ||
	    store_request_jobs(ctx->store, request, &jobs, &nr_jobs,
	    cause) != 0 ||
	    store_request_commits(ctx->store, request, &oids, &revs, &nr_oids,
	    cause) != 0)
		goto out;
	if (report_compare_drift(ctx, rq.repo, jobs, nr_jobs, oids, revs,
	    nr_oids, jout, &warn, &matter, cause) != 0)
		goto out;
	if (matter > 0 && !allow_drift) {
		*refused = 1;
		strbuf_addstr(out, "refusing to compare: the runs did not run in "
		    "the same environment:\n");
		strbuf_add(out, warn.buf, warn.len);
		strbuf_addstr(out, "make the machine's settings agree (a job "
		    "can set thp_enabled, thp_defrag, numa_balancing and "
		    "sysctl: itself) and run again, or pass --allow-drift to "
		    "see the comparison flagged\n");
		r = 0;
		goto out;
	}
	if (matter > 0) {
		strbuf_addstr(out, "WARNING: ENVIRONMENT DRIFT. The runs "
		    "compared below did not run in the same environment;\n"
		    "the comparison may measure the environment, not the "
		    "commits:\n");
		strbuf_add(out, warn.buf, warn.len);
		strbuf_addch(out, '\n');
	} else if (warn.len > 0) {
		strbuf_addstr(out, "note: the runs differ in keys that do not "
		    "change the comparison:\n");
		strbuf_add(out, warn.buf, warn.len);
		strbuf_addch(out, '\n');
	}
	for (i = 0; i < nr_jobs; i++) {
		store_job_release(&job);
		if (store_job_get(ctx->store, jobs[i], &job, cause) != 0)
			goto out;
		for (k = 0; k + 1 < nr_oids || (k == 0 && nr_oids == 1); k++) {
			if (report_compare_pair(&body, ctx, &job, jobs[i],
			    rq.repo, oids[k], oids[nr_oids > 1 ? k + 1 : k],
			    all, missing, jout, cause) != 0)
				goto out;
		}
	}
	strbuf_add(out, body.buf, body.len);
	r = 0;
out:
	strbuf_release(&warn);
	strbuf_release(&body);
	store_job_release(&job);
	store_request_release(&rq);
	free(jobs);
	for (i = 0; i < nr_oids; i++) {
		free(oids[i]);
		free(revs[i]);
	}
	free(oids);
	free(revs);
	return r;
}

const char *
report_share(char *buf, size_t len, double explained_pct)
{
	if (!isfinite(explained_pct) || explained_pct >= 90)
		snprintf(buf, len, "all of");
	else
		snprintf(buf, len, "%.0f%% of", explained_pct);
	return buf;
}

char *
report_subject(const char *tree, const char *branch, const char *commit_subject,
    const char *oid, double change_pct, const char *metric,
    const char *direction, const struct report_fairness *f)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*colon;
	size_t		 len;

	strbuf_addf(&sb, "[%s%s%s]", tree, branch != NULL ? ":" : "",
	    branch != NULL ? branch : "");
	if (commit_subject != NULL &&
	    (colon = strstr(commit_subject, ": ")) != NULL &&
	    (len = (size_t)(colon - commit_subject)) > 0 &&
	    len <= REPORT_MAX_SUBSYS &&
	    memchr(commit_subject, '"', len) == NULL &&
	    strncmp(commit_subject, "Revert", 6) != 0 &&
	    strncmp(commit_subject, "Merge", 5) != 0)
		strbuf_addf(&sb, " [%.*s]", (int)len, commit_subject);
	strbuf_addf(&sb, " %.10s: %s %+.1f%% %s", oid, metric, change_pct,
	    report_kind(change_pct, direction));
	if (f != NULL)
		report_spread_fairness_suffix(&sb, f);
	return strbuf_detach(&sb, NULL);
}
