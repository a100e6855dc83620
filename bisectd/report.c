/*
 * Reports in the 0-day robot's style (DESIGN §3.4, docs/reports.md): the
 * headline, the whole text of a concluded bisection's report -- commit,
 * testcase and machine, how sure, the environment with its drift first,
 * the tables (bisectd/report-table.c), the bisection log, a reproducer --
 * and the compare output of a queue or compare request.
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
	r = report_fairness_of(&sa, &sc, f);
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
	    report_fairness_likely(f, change_pct, direction));
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
		report_fairness_suffix(&sb, f);
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
	store_steps_free(steps, nr);
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

static const char *
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

/* One side's recorded environment, owned, with its drift_run view. */
struct report_side {
	char		**keys;
	char		**values;
	struct drift_run run;
};

static void
report_side_load(struct report_side *side, struct context *ctx,
    int64_t job, const char *repo, const char *oid)
{
	memset(side, 0, sizeof *side);
	side->run.commit = oid;
	if (oid == NULL || store_env_get(ctx->store, job, repo, oid,
	    &side->keys, &side->values, &side->run.nr, NULL) != 0) {
		side->keys = side->values = NULL;
		side->run.nr = 0;
	}
	side->run.keys = side->keys;
	side->run.values = side->values;
}

static void
report_side_release(struct report_side *side)
{
	size_t	i;

	for (i = 0; i < side->run.nr; i++) {
		free(side->keys[i]);
		free(side->values[i]);
	}
	free(side->keys);
	free(side->values);
	memset(side, 0, sizeof *side);
}

/* The environment section of bisection id, parent against culprit. */
static void
report_env(struct strbuf *sb, struct context *ctx, int64_t id, int64_t job,
    const char *repo, const struct report_side *parent,
    const struct report_side *culprit)
{
	const char	 *oids[2], *labels[2];
	char		  la[32], lb[32], *listed_by;
	struct drift	  d;
	int64_t		  run;

	memset(&d, 0, sizeof d);
	snprintf(la, sizeof la, "parent %.10s", parent->run.commit);
	snprintf(lb, sizeof lb, "culprit %.10s", culprit->run.commit);
	oids[0] = parent->run.commit;
	oids[1] = culprit->run.commit;
	labels[0] = la;
	labels[1] = lb;
	if (drift_check(ctx->store, job, repo, oids, labels, 2, &d,
	    NULL) != 0)
		drift_release(&d);
	/* the culprit's run whose environment the section shows */
	if (store_run_last_done(ctx->store, job, repo, culprit->run.commit,
	    &run, NULL) == 0 && run > 0)
		listed_by = xasprintf("`bisectctl show --run %lld`",
		    (long long)run);
	else
		listed_by = xasprintf("`bisectctl report %lld --html DIR`",
		    (long long)id);
	report_environment(sb, &d, &parent->run, &culprit->run, listed_by);
	free(listed_by);
	drift_release(&d);
}

/* A loud block at the very top when compared runs drifted. */
static void
report_drift_banner(struct strbuf *sb, const struct drift *d,
    const char *what)
{
	if (d->nr_matter == 0)
		return;
	strbuf_addf(sb, "WARNING: ENVIRONMENT DRIFT. %s did not run in the "
	    "same environment;\nthe comparison may measure the environment, "
	    "not the commits:\n", what);
	drift_format(sb, d, "    ");
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

/*
 * A paragraph of prose: formatted, then wrapped at MAIL_WIDTH columns at
 * spaces (a longer word stays whole), so that the report reads the same
 * on a terminal as in the mail, whose wrapping then leaves it alone; a
 * blank line after it.
 */
static void report_para(struct strbuf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
report_para(struct strbuf *sb, const char *fmt, ...)
{
	va_list		 ap;
	char		*text;
	const char	*p, *word, *start;
	size_t		 col = 0, w;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (text == NULL)
		return;
	for (p = start = text; *p != '\0';) {
		word = p;
		for (w = 0; *p != '\0' && *p != ' '; p++)
			w += ((unsigned char)*p & 0xc0) != 0x80;
		if (col > 0 && col + 1 + w > MAIL_WIDTH) {
			strbuf_add(sb, start, (size_t)(word - 1 - start));
			strbuf_addch(sb, '\n');
			start = word;
			col = 0;
		}
		col += (col > 0) + w;
		while (*p == ' ')
			p++;
	}
	strbuf_addstr(sb, start);
	strbuf_addstr(sb, "\n\n");
	free(text);
}

/*
 * "branch: NAME" as the robot writes it: the branches that contain the
 * culprit (local ones and those continuous mode tracks), at most four
 * named; none when no branch has it yet.
 */
static void
report_branches(struct strbuf *sb, struct repo *repo, const char *oid)
{
	char	**names = NULL;
	size_t	  nr = 0, i;

	if (repo_branches_containing(repo, oid, &names, &nr, NULL) != 0 ||
	    nr == 0)
		goto out;
	strbuf_addf(sb, "branch%s: ", nr == 1 ? "" : "es");
	for (i = 0; i < nr && i < 4; i++)
		strbuf_addf(sb, "%s%s", i > 0 ? ", " : "", names[i]);
	if (nr > 4)
		strbuf_addf(sb, " and %zu more", nr - 4);
	strbuf_addch(sb, '\n');
out:
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
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

/* The revert check's verdict, in words. */
/* How many runs other load disturbed, set aside and repeated, and why. */
static int
report_disturbed(struct strbuf *sb, struct context *ctx, int64_t job,
    const char *repo, char **cause)
{
	char	*why = NULL;
	int	 set_aside, kept;

	if (store_run_disturbed_totals(ctx->store, job, repo, &set_aside,
	    &kept, &why, cause) != 0)
		return -1;
	if (set_aside == 0 && kept == 0)
		report_para(sb, "Runs set aside as disturbed by other load: "
		    "none.");
	else
		report_para(sb, "Runs set aside as disturbed by other load "
		    "and repeated: %d%s%s%s; counted although disturbed: %d.",
		    set_aside, why != NULL ? " (the last: " : "",
		    why != NULL ? why : "", why != NULL ? ")" : "", kept);
	free(why);
	return 0;
}

static void
report_revert(struct strbuf *sb, json_t *rv)
{
	double	restored;

	if (rv == NULL)
		return;
	if (!json_is_true(json_object_get(rv, "clean"))) {
		report_para(sb, "Revert check: the culprit does not revert "
		    "cleanly on top of the bad commit.");
		return;
	}
	if (!json_is_true(json_object_get(rv, "built"))) {
		report_para(sb, "Revert check: the culprit reverted on top of "
		    "the bad commit (%.12s) does not build.",
		    json_string_value(json_object_get(rv, "commit")));
		return;
	}
	if (json_is_true(json_object_get(rv, "same_image_as_parent"))) {
		report_para(sb, "Revert check: the culprit reverted on top of "
		    "the bad commit (%.12s) builds an image byte-identical to "
		    "the culprit's parent's: it restores all of the change by "
		    "construction, and was not run.",
		    json_string_value(json_object_get(rv, "commit")));
		return;
	}
	restored = json_number_value(json_object_get(rv, "restored_pct"));
	report_para(sb, "Revert check: with the culprit reverted on top of the "
	    "bad commit (%.12s), the metric moves %+.1f%% against bad "
	    "(%lld runs): the revert %s the change (%.0f%% of it, 95%% CI "
	    "[%.0f%%, %.0f%%]; p = %.2g that it restores less than half).",
	    json_string_value(json_object_get(rv, "commit")),
	    json_number_value(json_object_get(rv, "change_pct")),
	    (long long)json_integer_value(json_object_get(rv, "n")),
	    restored >= 90 ? "undoes all of" : restored >= 50 ?
	    "undoes most of" : "undoes little of", restored,
	    json_number_value(json_array_get(json_object_get(rv,
	    "restored_ci_pct"), 0)),
	    json_number_value(json_array_get(json_object_get(rv,
	    "restored_ci_pct"), 1)),
	    json_number_value(json_object_get(rv, "p_value")));
}

/* The branch a subject names: a tracked one first, else any that has it. */
static char *
report_subject_branch(struct repo *repo, const struct config_repo *cr,
    const char *oid)
{
	char	**names = NULL, *out = NULL;
	size_t	  nr = 0, i, t;

	if (repo_branches_containing(repo, oid, &names, &nr, NULL) != 0)
		return NULL;
	for (t = 0; t < cr->nr_track && out == NULL; t++) {
		for (i = 0; i < nr; i++) {
			if (strcmp(names[i], cr->track[t]) == 0) {
				out = xstrdup(names[i]);
				break;
			}
		}
	}
	if (out == NULL && nr > 0)
		out = xstrdup(names[0]);
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return out;
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
		report_fairness_suffix(&sb, f);
	return strbuf_detach(&sb, NULL);
}

/*
 * A short compiler name for the axes line, as the robot writes it:
 * "gcc (Debian 12.2.0-14) 12.2.0" is gcc-12, "clang version 14.0.6" is
 * clang-14; anything else is kept, its spaces made dashes.
 */
static char *
report_compiler_short(const char *full)
{
	const char	*name, *v, *p;
	char		*out;

	if (full == NULL || *full == '\0' || strcmp(full, "none") == 0)
		return xstrdup("none");
	name = strncmp(full, "gcc", 3) == 0 ? "gcc" :
	    strstr(full, "clang") != NULL ? "clang" : NULL;
	v = strrchr(full, ' ');
	v = v != NULL ? v + 1 : full;
	if (strncmp(full, "clang", 5) == 0 || strstr(full, "clang version")) {
		v = strstr(full, "version ");
		v = v != NULL ? v + 8 : full;
	}
	if (name != NULL && *v >= '0' && *v <= '9') {
		for (p = v; *p >= '0' && *p <= '9'; p++)
			;
		return xasprintf("%s-%.*s", name, (int)(p - v), v);
	}
	out = xstrdup(full);
	for (p = out; *p != '\0'; p++) {
		if (*p == ' ' || *p == '/')
			out[p - out] = '-';
	}
	return out;
}

/*
 * The robot's axes line over the report: "compiler/kconfig/PARAM.../
 * tbox_group/testcase:" and their values, the testcase's own parameters
 * in the job's order.
 */
static void
report_axes(struct strbuf *sb, const char *compiler, const char *kconfig,
    const struct job *job, const char *machine, const char *testcase)
{
	struct strbuf	 keys = STRBUF_INIT, vals = STRBUF_INIT;
	size_t		 i;
	char		*cc = report_compiler_short(compiler);

	strbuf_addstr(&keys, "compiler/kconfig");
	strbuf_addf(&vals, "%s/%s", cc, kconfig);
	for (i = 0; job != NULL && i < job->nr_params; i++) {
		if (!job_param_is_testcase(job->params[i].key))
			continue;
		strbuf_addf(&keys, "/%s", job->params[i].key);
		strbuf_addf(&vals, "/%s", job->params[i].value);
	}
	strbuf_addf(&keys, "/tbox_group/testcase");
	strbuf_addf(&vals, "/%s/%s", machine != NULL ? machine : "unknown",
	    testcase);
	strbuf_addstr(sb, "================================================="
	    "========================================\n");
	strbuf_addf(sb, "%s:\n  %s\n\n", keys.buf, vals.buf);
	strbuf_release(&keys);
	strbuf_release(&vals);
	free(cc);
}

/* The kconfig the axes line names: the recipe's base config, or none. */
static char *
report_kconfig_name(const struct config_repo *cr)
{
	const char	*base;

	if (cr->kconfig == NULL)
		return xstrdup(cr->build_command != NULL &&
		    strstr(cr->build_command, "defconfig") != NULL ?
		    "defconfig" : "none");
	base = strrchr(cr->kconfig, '/');
	return xstrdup(base != NULL ? base + 1 : cr->kconfig);
}

int
report_bisection(struct context *ctx, int64_t id, char **headline,
    char **body, char **cause)
{
	return report_bisection_mail(ctx, id, NULL, headline, NULL, body,
	    cause);
}

/* "commit X fixes the -5.0% M regression of commit Y" (or of a range). */
static void
report_fix_headline(const struct store_regression *g, const char *culprit,
    const char *tree, const char *branch, char **headline, char **subject)
{
	char	of[64];

	if (g->culprit != NULL)
		snprintf(of, sizeof of, "commit %.10s", g->culprit);
	else
		snprintf(of, sizeof of, "%.10s..%.10s", g->good, g->bad);
	free(*headline);
	*headline = xasprintf("commit %.10s fixes the %+.1f%% %s regression "
	    "of %s", culprit, g->change_pct, g->metric, of);
	if (subject == NULL)
		return;
	free(*subject);
	*subject = xasprintf("[%s%s%s] %.10s: fixes the %s %+.1f%% regression "
	    "of %s", tree, branch != NULL ? ":" : "", branch != NULL ? branch :
	    "", culprit, g->metric, g->change_pct, of);
}

/* What a fix fixes, first in its report. */
static void
report_fix_para(struct strbuf *sb, const struct store_regression *g,
    size_t nr, const char *branch)
{
	size_t	i;

	for (i = 0; i < nr; i++) {
		if (g[i].culprit != NULL)
			report_para(sb, "This commit fixes the %+.1f%% %s "
			    "regression of commit %.12s%s%s (bisection %lld): "
			    "the series is back from where that commit took "
			    "it. The regression is closed.", g[i].change_pct,
			    g[i].metric, g[i].culprit, branch != NULL ? " on " :
			    "", branch != NULL ? branch : "",
			    (long long)g[i].bisection);
		else
			report_para(sb, "This commit fixes the %+.1f%% %s "
			    "regression found between %.12s and %.12s%s%s "
			    "(bisection %lld, %s). The regression is closed.",
			    g[i].change_pct, g[i].metric, g[i].good, g[i].bad,
			    branch != NULL ? " on " : "", branch != NULL ?
			    branch : "", (long long)g[i].bisection,
			    store_regression_status_name(&g[i]));
	}
}

int
report_bisection_mail(struct context *ctx, int64_t id,
    const struct report_mail *mail, char **headline, char **subject,
    char **body, char **cause)
{
	struct store_bisection		 b;
	struct store_job		 job;
	struct store_request		 rq;
	struct store_series		*sa = NULL, *sc = NULL;
	size_t				 na = 0, nc = 0;
	const struct config_repo	*cr;
	struct repo			*repo = NULL;
	struct repo_commit		 rc, pc;
	struct strbuf			 sb = STRBUF_INIT;
	json_t				*res = NULL;
	const char			*culprit, *parent_oid = NULL;
	const char			*culprit_at, *parent_at = NULL;
	struct drift			 drift;
	struct report_side		 penv, cenv;
	struct report_fairness		 fair;
	const char			*compiler, *machine;
	const struct job		*pj = NULL;
	double				 change;
	char				 share[32];
	char				*branch = NULL, *kconfig = NULL;
	struct store_regression		*fixes = NULL;
	size_t				 nr_fixes = 0;
	int				 r = -1;

	*headline = NULL;
	if (subject != NULL)
		*subject = NULL;
	memset(&fair, 0, sizeof fair);
	memset(&drift, 0, sizeof drift);
	memset(&penv, 0, sizeof penv);
	memset(&cenv, 0, sizeof cenv);
	memset(&b, 0, sizeof b);
	memset(&job, 0, sizeof job);
	memset(&rq, 0, sizeof rq);
	memset(&rc, 0, sizeof rc);
	memset(&pc, 0, sizeof pc);
	if (store_bisection_get(ctx->store, id, &b, cause) != 0 ||
	    store_job_get(ctx->store, b.job, &job, cause) != 0 ||
	    store_request_get(ctx->store, id, &rq, cause) != 0)
		goto out;
	if (b.result == NULL || (res = json_loads(b.result, 0, NULL)) == NULL ||
	    (culprit = json_string_value(json_object_get(res, "culprit")))
	    == NULL) {
		error_set(cause, "bisection %lld found no culprit (status %s)",
		    (long long)id, store_bisection_status_name(b.status));
		goto out;
	}
	change = json_number_value(json_object_get(res, "change_pct"));
	if ((cr = config_repo_find(ctx->config, b.repo)) == NULL) {
		error_set(cause, "no repository '%s' in the config", b.repo);
		goto out;
	}
	if (repo_open(cr, &repo, cause) != 0 ||
	    repo_commit_read(repo, culprit, &rc, cause) != 0)
		goto out;
	{
		char	rev[64], oid[REPO_OID_HEX + 1];

		snprintf(rev, sizeof rev, "%s^", culprit);
		if (repo_resolve(repo, rev, oid, NULL) == 0 &&
		    repo_commit_read(repo, oid, &pc, NULL) == 0)
			parent_oid = pc.oid;
	}
	/* the commits whose runs stand for them: theirs, or their image's */
	culprit_at = json_string_value(json_object_get(res,
	    "culprit_sampled_at"));
	if (culprit_at == NULL)
		culprit_at = culprit;
	if (parent_oid != NULL && (parent_at = json_string_value(
	    json_object_get(res, "parent_sampled_at"))) == NULL)
		parent_at = parent_oid;
	report_fairness_load(ctx, &b, parent_at, culprit_at, &fair);
	*headline = report_headline_fair(culprit, change, b.metric,
	    b.direction, b.status, &fair);
	branch = report_subject_branch(repo, cr, culprit);
	if (subject != NULL)
		*subject = report_subject(cr->tree != NULL ? cr->tree :
		    cr->name, branch, rc.subject, culprit, change, b.metric,
		    b.direction, &fair);
	if (store_regression_fixed_by(ctx->store, id, &fixes, &nr_fixes,
	    cause) != 0)
		goto out;
	if (nr_fixes > 0)
		report_fix_headline(fixes, culprit, cr->tree != NULL ?
		    cr->tree : cr->name, branch, headline, subject);
	if (mail == NULL)
		strbuf_addf(&sb, "%s\n\n", *headline);
	if (b.status == STORE_BISECTION_UNCONFIRMED)
		report_para(&sb, "UNCONFIRMED: the bisection pointed at this "
		    "commit, but its own evidence contradicts it: %s. Its "
		    "author has not been mailed; suspect noise or the "
		    "environment, and run the bisection again.",
		    json_string_value(json_object_get(res, "contradiction")) ?
		    json_string_value(json_object_get(res, "contradiction")) :
		    "see below");
	{
		const char	*oids[4], *labels[4];
		char		 l[4][32];
		size_t		 n = 0;

		/* an end whose runs stand for the parent or culprit is that */
		if (parent_at == NULL || strcmp(parent_at, b.good) != 0) {
			oids[n] = b.good;
			snprintf(l[n], sizeof l[n], "good %.10s", b.good);
			labels[n] = l[n];
			n++;
		}
		if (strcmp(culprit_at, b.bad) != 0) {
			oids[n] = b.bad;
			snprintf(l[n], sizeof l[n], "bad %.10s", b.bad);
			labels[n] = l[n];
			n++;
		}
		if (parent_oid != NULL) {
			oids[n] = parent_at;
			snprintf(l[n], sizeof l[n], "parent %.10s", parent_oid);
			labels[n] = l[n];
			n++;
		}
		oids[n] = culprit_at;
		snprintf(l[n], sizeof l[n], "culprit %.10s", culprit);
		labels[n] = l[n];
		n++;
		if (drift_check(ctx->store, b.job, b.repo, oids, labels, n,
		    &drift, cause) != 0)
			goto out;
		report_drift_banner(&sb, &drift, "The runs of this bisection");
	}
	if (mail != NULL)
		strbuf_addstr(&sb, "Hello,\n\n");
	report_fix_para(&sb, fixes, nr_fixes, branch);
	/* a fix is bisected the other way round: it is an improvement */
	strbuf_addf(&sb, "bisectd noticed a %+.1f%% %s of %s on:\n\n",
	    change, nr_fixes > 0 ? "improvement" : report_kind(change,
	    b.direction), b.metric);
	strbuf_addf(&sb, "commit: %s (\"%s\")\n", culprit, rc.subject);
	if (cr->url != NULL)
		strbuf_addf(&sb, "%s%s%s\n", cr->url, branch != NULL ? " " : "",
		    branch != NULL ? branch : "");
	strbuf_addf(&sb, "author: %s\n", rc.author);
	strbuf_addf(&sb, "repository: %s\n", b.repo);
	report_branches(&sb, repo, culprit);
	strbuf_addch(&sb, '\n');
	report_side_load(&penv, ctx, b.job, b.repo, parent_at);
	report_side_load(&cenv, ctx, b.job, b.repo, culprit_at);
	pj = jobcache_parse(&ctx->jobs, job.id, job.job_id, job.canonical,
	    NULL);
	report_testcase(&sb, job.testcase, job.description, pj,
	    &cenv.run);
	compiler = report_env_value(&cenv.run, "compiler_built");
	if (compiler == NULL && cr->build_command != NULL)
		compiler = build_kernel_compiler();
	kconfig = report_kconfig_name(cr);
	strbuf_addf(&sb, "compiler: %s\nkconfig: %s\n\n", compiler != NULL ?
	    compiler : "none", kconfig);
	report_para(&sb, "The culprit explains %s the change between "
	    "good %.12s and bad %.12s (95%% CI of its own change: [%+.1f%%, "
	    "%+.1f%%], p = %.2g; %lld builds, %lld runs).",
	    report_share(share, sizeof share, json_number_value(
	    json_object_get(res, "explained_pct"))), b.good,
	    b.bad, json_number_value(json_array_get(json_object_get(res,
	    "ci_pct"), 0)), json_number_value(json_array_get(
	    json_object_get(res, "ci_pct"), 1)),
	    json_number_value(json_object_get(res, "p_value")),
	    (long long)json_integer_value(json_object_get(res, "builds")),
	    (long long)json_integer_value(json_object_get(res, "runs")));
	if (json_is_true(json_object_get(res, "same_image_as_parent")))
		report_para(&sb, "Note: the culprit's build is byte-identical "
		    "to its parent's (the same kernel image): the commit "
		    "cannot have changed what ran. Suspect noise or the "
		    "environment before this commit.");
	if (json_array_size(json_object_get(res, "culprits")) > 1) {
		size_t	k;

		strbuf_addf(&sb, "It is one of %zu culprits in the range:\n",
		    json_array_size(json_object_get(res, "culprits")));
		for (k = 0; k < json_array_size(json_object_get(res,
		    "culprits")); k++)
			strbuf_addf(&sb, "\t%s\n", json_string_value(
			    json_array_get(json_object_get(res, "culprits"), k)));
		strbuf_addch(&sb, '\n');
	}
	if (fair.known && fair.change != 0)
		report_para(&sb, "The %zu instances of %s became %s (Jain's "
		    "fairness index %.3f -> %.3f, p = %.2g; slowest over fastest "
		    "%.2f -> %.2f)%s", fair.instances, b.metric, fair.change > 0 ?
		    "fairer" : "less fair", fair.jain_a, fair.jain_b,
		    fair.p_value, fair.minmax_a, fair.minmax_b,
		    report_fairness_likely(&fair, change, b.direction) ?
		    ": this is likely a fairness improvement rather than a "
		    "plain regression. The instances now proceed at more similar "
		    "speeds, and the total fell with it; judge whether the job's "
		    "total is what matters before blaming the commit." : ".");
	report_revert(&sb, json_object_get(res, "revert"));
	if (report_disturbed(&sb, ctx, b.job, b.repo, cause) != 0)
		goto out;
	if (mail != NULL && mail->reported_by != NULL) {
		report_para(&sb, "If you fix the issue in a separate "
		    "patch/commit (i.e. not just a new version of the same "
		    "patch/commit), kindly add following tags");
		strbuf_addf(&sb, "| Reported-by: %s\n", mail->reported_by);
		if (mail->closes != NULL && mail->message_id != NULL)
			strbuf_addf(&sb, "| Closes: %s%s\n", mail->closes,
			    mail->message_id);
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb, "Details are as below:\n");
	strbuf_addstr(&sb, "--------------------------------------------------"
	    "------------------------------------------------>\n\n");
	if (parent_oid != NULL) {
		if (store_series_all(ctx->store, b.job, b.repo, parent_at, &sa,
		    &na, cause) != 0 ||
		    store_series_all(ctx->store, b.job, b.repo, culprit_at, &sc,
		    &nc, cause) != 0)
			goto out;
		if (culprit_at != culprit || parent_at != parent_oid)
			report_para(&sb, "The culprit and its parent were built, "
			    "not run: their images are byte-identical to those "
			    "of %.12s and %.12s, whose runs stand for them "
			    "below (identical images are one test point).",
			    culprit_at, parent_at);
		report_env(&sb, ctx, id, b.job, b.repo, &penv, &cenv);
		machine = report_env_value(&cenv.run, "hostname");
		report_axes(&sb, compiler, kconfig, pj, machine,
		    job.testcase);
		strbuf_addf(&sb, "commit:\n  %.10s (\"%s\")\n  %.10s (\"%s\")"
		    "\n\n", parent_oid, pc.subject != NULL ? pc.subject : "",
		    culprit, rc.subject);
		report_compare_table(&sb, parent_oid, culprit, sa, na, sc, nc,
		    b.metric, 0);
		strbuf_addch(&sb, '\n');
		if (report_profile(&sb, parent_oid, culprit, sa, na, sc, nc))
			strbuf_addch(&sb, '\n');
		report_spread_compare(&sb, parent_oid, culprit, sa, na, sc,
		    nc);
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb, "bisection log (git bisect replay):\n\n");
	if (report_log(&sb, ctx, id, cause) != 0)
		goto out;
	strbuf_addf(&sb, "\nTo reproduce:\n\n\tbisectctl bisect %s --good %s "
	    "--bad %s --metric %s --wait\n\njob (%s):\n\n%s", rq.job_file,
	    b.good, b.bad, b.metric, job.job_id, job.canonical);
	*body = strbuf_detach(&sb, NULL);
	r = 0;
out:
	if (r != 0 && *headline != NULL) {
		free(*headline);
		*headline = NULL;
	}
	if (r != 0 && subject != NULL) {
		free(*subject);
		*subject = NULL;
	}
	free(branch);
	free(kconfig);
	store_regression_list_free(fixes, nr_fixes);
	json_decref(res);
	drift_release(&drift);
	report_side_release(&penv);
	report_side_release(&cenv);
	store_bisection_release(&b);
	store_job_release(&job);
	store_request_release(&rq);
	store_series_list_free(sa, na);
	store_series_list_free(sc, nc);
	repo_commit_release(&rc);
	repo_commit_release(&pc);
	repo_free(repo);
	strbuf_release(&sb);
	return r;
}
