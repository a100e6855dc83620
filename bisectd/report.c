/*
 * Reports in the 0-day robot's style. The compare table puts the headline
 * metric first, then the other metrics that moved significantly, largest
 * first, each with its ± (sample standard deviation as a percentage of the
 * mean) on both sides, so that a reader sees what moved around the
 * headline (seed 004) and how per-instance fairness changed (seed 002).
 */
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/repo.h"
#include "bisectd/report.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "stats/compare.h"
#include "stats/summary.h"
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
    const char *direction)
{
	return xasprintf("commit %.10s: %+.1f%% %s %s", oid, change_pct,
	    metric, report_kind(change_pct, direction));
}

static void
report_value(char *buf, size_t len, double v)
{
	double	a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1e9)
		snprintf(buf, len, "%.4g", v);
	else if (a >= 100 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

struct report_row {
	const struct store_series	*a;
	const struct store_series	*b;
	struct comparison		 cmp;
	int				 valid;
	int				 headline;
};

static int
report_row_cmp(const void *x, const void *y)
{
	const struct report_row	*a = x, *b = y;
	double			 da, db;

	if (a->headline != b->headline)
		return b->headline - a->headline;
	if (a->cmp.significant != b->cmp.significant)
		return b->cmp.significant - a->cmp.significant;
	da = isfinite(a->cmp.change_pct) ? fabs(a->cmp.change_pct) : 0;
	db = isfinite(b->cmp.change_pct) ? fabs(b->cmp.change_pct) : 0;
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->a->metric, b->a->metric);
}

/* "± 3%", or "± ?%" where one sample leaves the spread unknown. */
static void
report_pct(char *buf, size_t len, double x)
{
	if (isfinite(x))
		snprintf(buf, len, "%2ld%%", lround(x));
	else
		snprintf(buf, len, " ?%%");
}

void
report_compare_table(struct strbuf *sb, const char *label_a,
    const char *label_b, const struct store_series *a, size_t nr_a,
    const struct store_series *b, size_t nr_b, const char *headline, int all)
{
	struct report_row		*rows = xcalloc(nr_a + 1, sizeof *rows);
	const struct metric_info	*mi;
	struct compare_opts		 opts;
	struct summary			 sa, sb_;
	size_t				 i, j, n = 0;
	char				 va[32], vb[32], change[32];
	char				 pa[16], pb[16];

	for (i = 0; i < nr_a; i++) {
		for (j = 0; j < nr_b; j++) {
			if (strcmp(a[i].metric, b[j].metric) == 0)
				break;
		}
		if (j == nr_b)
			continue;
		rows[n].a = &a[i];
		rows[n].b = &b[j];
		rows[n].headline = headline != NULL &&
		    strcmp(a[i].metric, headline) == 0;
		mi = metric_lookup(a[i].metric);
		memset(&opts, 0, sizeof opts);
		opts.min_effect_pct = mi->min_effect_pct;
		opts.direction = mi->direction == JOB_DIRECTION_HIGHER ? 1 :
		    mi->direction == JOB_DIRECTION_LOWER ? -1 : 0;
		rows[n].valid = compare_samples(&rows[n].cmp, a[i].values,
		    a[i].nr, b[j].values, b[j].nr, &opts) == 0;
		if (!rows[n].valid) {
			memset(&rows[n].cmp, 0, sizeof rows[n].cmp);
			summary_compute(&sa, a[i].values, a[i].nr);
			summary_compute(&sb_, b[j].values, b[j].nr);
			rows[n].cmp.change_pct = sa.mean != 0 ?
			    100 * (sb_.mean - sa.mean) / fabs(sa.mean) : NAN;
		}
		n++;
	}
	qsort(rows, n, sizeof *rows, report_row_cmp);
	strbuf_addf(sb, "%16.15s %27.25s\n", label_a, label_b);
	strbuf_addstr(sb, "---------------- ---------------------------\n");
	for (i = 0; i < n; i++) {
		if (!all && !rows[i].headline && !rows[i].cmp.significant)
			continue;
		summary_compute(&sa, rows[i].a->values, rows[i].a->nr);
		summary_compute(&sb_, rows[i].b->values, rows[i].b->nr);
		report_value(va, sizeof va, sa.mean);
		report_value(vb, sizeof vb, sb_.mean);
		if (isfinite(rows[i].cmp.change_pct) &&
		    (rows[i].cmp.significant || rows[i].headline || all))
			snprintf(change, sizeof change, "%+.1f%%",
			    rows[i].cmp.change_pct);
		else
			change[0] = '\0';
		report_pct(pa, sizeof pa, sa.stddev_pct);
		report_pct(pb, sizeof pb, sb_.stddev_pct);
		strbuf_addf(sb, "%10s ± %s  %10s  %10s ± %s  %s%s\n",
		    va, pa, change, vb, pb, rows[i].a->metric,
		    rows[i].valid && rows[i].cmp.significant ? "" :
		    (rows[i].valid ? "" : " (too few samples)"));
	}
	free(rows);
}

/* The mean over runs of the per-run spread of instances. */
static void
report_spread_of(const struct store_series *s, struct spread *out)
{
	struct spread	one;
	size_t		per, r;
	double		cv = 0, jain = 0, mn = INFINITY, mx = -INFINITY;

	memset(out, 0, sizeof *out);
	if (s->nr_instance_runs == 0 || s->nr_instances == 0)
		return;
	per = s->nr_instances / s->nr_instance_runs;
	if (per == 0)
		return;
	for (r = 0; r < s->nr_instance_runs; r++) {
		spread_compute(&one, s->instances + r * per, per);
		cv += one.cv;
		jain += one.jain;
		mn = one.min < mn ? one.min : mn;
		mx = one.max > mx ? one.max : mx;
	}
	out->n = per;
	out->cv = cv / (double)s->nr_instance_runs;
	out->jain = jain / (double)s->nr_instance_runs;
	out->min = mn;
	out->max = mx;
	out->min_max_ratio = mx != 0 ? mn / mx : NAN;
}

void
report_spread_table(struct strbuf *sb, const struct store_series *a,
    size_t nr_a, const struct store_series *b, size_t nr_b)
{
	struct spread	sa, sb_;
	size_t		i, j;
	int		header = 0;
	char		v1[32], v2[32], v3[32], v4[32];

	for (i = 0; i < nr_a; i++) {
		for (j = 0; j < nr_b; j++) {
			if (strcmp(a[i].metric, b[j].metric) == 0)
				break;
		}
		if (j == nr_b || a[i].nr_instances == 0 ||
		    b[j].nr_instances == 0)
			continue;
		report_spread_of(&a[i], &sa);
		report_spread_of(&b[j], &sb_);
		if (sa.n == 0 || sb_.n == 0)
			continue;
		if (!header) {
			strbuf_addstr(sb, "per-instance spread (min..max, "
			    "CV, Jain's fairness index; 1 is perfectly "
			    "fair):\n");
			header = 1;
		}
		report_value(v1, sizeof v1, sa.min);
		report_value(v2, sizeof v2, sa.max);
		report_value(v3, sizeof v3, sb_.min);
		report_value(v4, sizeof v4, sb_.max);
		strbuf_addf(sb, "  %s (%zu instances)\n"
		    "    %s..%s CV %.1f%% Jain %.3f  ->  %s..%s CV %.1f%% "
		    "Jain %.3f%s\n", a[i].metric, sa.n, v1, v2, sa.cv, sa.jain,
		    v3, v4, sb_.cv, sb_.jain,
		    sb_.jain > sa.jain + 0.02 ? "  (fairer)" :
		    sb_.jain < sa.jain - 0.02 ? "  (less fair)" : "");
	}
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
		strbuf_addf(sb, "# status: %s\n", b.status);
	r = 0;
out:
	json_decref(res);
	store_bisection_release(&b);
	store_steps_free(steps, nr);
	repo_free(repo);
	return r;
}

static void
report_params(struct strbuf *sb, const char *canonical)
{
	struct job	**jobs = NULL;
	size_t		  nr = 0, i;

	if (job_parse("job", canonical, strlen(canonical), &jobs, &nr,
	    NULL) != 0 || nr != 1)
		goto out;
	strbuf_addstr(sb, "with following parameters:\n\n");
	for (i = 0; i < jobs[0]->nr_params; i++) {
		if (strcmp(jobs[0]->params[i].key, "testcase") == 0)
			continue;
		strbuf_addf(sb, "\t%s: %s\n", jobs[0]->params[i].key,
		    jobs[0]->params[i].value);
	}
	strbuf_addch(sb, '\n');
out:
	job_list_free(jobs, nr);
}

/* The environment, with any difference between the two sides first. */
static void
report_env(struct strbuf *sb, struct context *ctx, int64_t job,
    const char *repo, const char *a, const char *b)
{
	char	**ka = NULL, **va = NULL, **kb = NULL, **vb = NULL;
	size_t	  na = 0, nb = 0, i, j;
	int	  diffs = 0;

	if (store_env_get(ctx->store, job, repo, a, &ka, &va, &na, NULL) != 0 ||
	    store_env_get(ctx->store, job, repo, b, &kb, &vb, &nb, NULL) != 0)
		goto out;
	for (i = 0; i < nb; i++) {
		for (j = 0; j < na; j++)
			if (strcmp(ka[j], kb[i]) == 0)
				break;
		if (j < na && strcmp(va[j], vb[i]) == 0)
			continue;
		if (!diffs)
			strbuf_addstr(sb, "WARNING: the compared runs ran in "
			    "different environments:\n");
		diffs++;
		strbuf_addf(sb, "\t%s: %s -> %s\n", kb[i], j < na ? va[j] :
		    "(unset)", vb[i]);
	}
	if (diffs)
		strbuf_addch(sb, '\n');
	if (nb > 0)
		strbuf_addstr(sb, "environment of the culprit's runs:\n");
	for (i = 0; i < nb; i++)
		strbuf_addf(sb, "\t%s: %s\n", kb[i], vb[i]);
	if (nb > 0)
		strbuf_addch(sb, '\n');
out:
	for (i = 0; i < na; i++) {
		free(ka[i]);
		free(va[i]);
	}
	for (i = 0; i < nb; i++) {
		free(kb[i]);
		free(vb[i]);
	}
	free(ka);
	free(va);
	free(kb);
	free(vb);
}

int
report_bisection(struct context *ctx, int64_t id, char **headline,
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
	double				 change;
	int				 r = -1;

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
		    (long long)id, b.status);
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
	*headline = report_headline(culprit, change, b.metric, b.direction);
	strbuf_addf(&sb, "%s\n\n", *headline);
	strbuf_addf(&sb, "FYI, we noticed a %+.1f%% %s of %s due to commit:\n\n",
	    change, report_kind(change, b.direction), b.metric);
	strbuf_addf(&sb, "commit: %s (\"%s\")\n", culprit, rc.subject);
	strbuf_addf(&sb, "author: %s\n", rc.author);
	strbuf_addf(&sb, "repository: %s\n\n", b.repo);
	if (strcmp(job.testcase, job.description) == 0)
		strbuf_addf(&sb, "in testcase: %s\n", job.testcase);
	else
		strbuf_addf(&sb, "in testcase: %s (%s)\n", job.testcase,
		    job.description);
	report_params(&sb, job.canonical);
	strbuf_addf(&sb, "The culprit explains %.0f%% of the change between "
	    "good %.12s and bad %.12s\n(95%% CI of its own change: [%+.1f%%, "
	    "%+.1f%%], p = %.2g; %lld builds, %lld runs).\n\n",
	    json_number_value(json_object_get(res, "explained_pct")), b.good,
	    b.bad, json_number_value(json_array_get(json_object_get(res,
	    "ci_pct"), 0)), json_number_value(json_array_get(
	    json_object_get(res, "ci_pct"), 1)),
	    json_number_value(json_object_get(res, "p_value")),
	    (long long)json_integer_value(json_object_get(res, "builds")),
	    (long long)json_integer_value(json_object_get(res, "runs")));
	if (json_array_size(json_object_get(res, "culprits")) > 1)
		strbuf_addf(&sb, "It is one of %zu culprits in the range: %s\n\n",
		    json_array_size(json_object_get(res, "culprits")),
		    "see the JSON result for the others");
	if (parent_oid != NULL) {
		if (store_series_all(ctx->store, b.job, b.repo, parent_oid, &sa,
		    &na, cause) != 0 ||
		    store_series_all(ctx->store, b.job, b.repo, culprit, &sc,
		    &nc, cause) != 0)
			goto out;
		report_env(&sb, ctx, b.job, b.repo, parent_oid, culprit);
		report_compare_table(&sb, parent_oid, culprit, sa, na, sc, nc,
		    b.metric, 0);
		strbuf_addch(&sb, '\n');
		report_spread_table(&sb, sa, na, sc, nc);
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
	json_decref(res);
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
