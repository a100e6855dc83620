/*
 * The static web report of a bisection: what the text report carries, plus
 * the plot of bisectd/svg.c, its tables the text report's own in <pre>.
 * Everything from a commit, a job or an agent goes through web_escape, and
 * the page's Content-Security-Policy forbids scripts and loads (docs/design.md,
 * "File notes").
 */
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/mail.h"
#include "bisectd/repo.h"
#include "bisectd/report.h"
#include "bisectd/jobcache.h"
#include "bisectd/web.h"
#include "jobs/job.h"
#include "stats/summary.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

static const char web_style[] =
    "body{font-family:sans-serif;max-width:1000px;margin:1.5em auto;"
    "padding:0 1em;color:#222;line-height:1.4}"
    "h1{font-size:26px;margin:.4em 0}"
    "h1.regression{color:#b00020}h1.improvement{color:#1b7f3b}"
    "h1.change{color:#333}"
    "h2{font-size:19px;border-bottom:1px solid #ddd;margin-top:1.6em}"
    "pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.7em;"
    "overflow-x:auto;font-size:12.5px;line-height:1.35}"
    "table.kv{border-collapse:collapse}table.kv th{text-align:left;"
    "padding:2px 1.2em 2px 0;vertical-align:top;font-weight:600}"
    "table.kv td{padding:2px 0}"
    "table.list{border-collapse:collapse;width:100%}"
    "table.list td,table.list th{border-bottom:1px solid #eee;"
    "padding:4px 8px;text-align:left}"
    ".drift{background:#fff4e5;border:2px solid #e8a33d;padding:.6em 1em}"
    ".drift strong{color:#a15c00}"
    "code{font-size:13px}.muted{color:#777}"
    "svg.plot{border:1px solid #e1e4e8;max-width:100%;height:auto}";

void
web_escape(struct strbuf *sb, const char *s)
{
	char		*clean = mail_sanitize(s != NULL ? s : "", 0);
	const char	*p;

	for (p = clean; *p != '\0'; p++) {
		switch (*p) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_addch(sb, *p);
			break;
		}
	}
	free(clean);
}

void
web_head(struct strbuf *sb, const char *title)
{
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\""
	    "default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<title>");
	web_escape(sb, title);
	strbuf_addf(sb, "</title>\n<style>%s</style>\n</head>\n<body>\n",
	    web_style);
}

static void
web_pre(struct strbuf *sb, const char *text)
{
	strbuf_addstr(sb, "<pre>");
	web_escape(sb, text);
	strbuf_addstr(sb, "</pre>\n");
}

static void
web_kv(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_addstr(sb, "<tr><th>");
	web_escape(sb, key);
	strbuf_addstr(sb, "</th><td>");
	web_escape(sb, value);
	strbuf_addstr(sb, "</td></tr>\n");
}

/* What a page is made of, gathered from the store and the repository. */
struct web_report {
	struct store_bisection	 b;
	struct store_job	 job;
	const struct job	*pj;		/* parsed, the context's */
	struct store_request	 rq;
	json_t			*res;
	const char		*culprit;
	char			 parent[REPO_OID_HEX + 1];
	/* whose runs stand for them (an image's other commit), or theirs */
	const char		*culprit_at;
	const char		*parent_at;
	int			 has_parent;
	struct repo		*repo;
	struct repo_commit	 rc;
	char			*headline;
	double			 change;
	char		       **env_k[2];
	char		       **env_v[2];
	size_t			 env_n[2];
};

static void
web_report_release(struct web_report *w)
{
	size_t	i, s;

	store_bisection_release(&w->b);
	store_job_release(&w->job);
	store_request_release(&w->rq);
	json_decref(w->res);
	repo_commit_release(&w->rc);
	repo_free(w->repo);
	free(w->headline);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < w->env_n[s]; i++) {
			free(w->env_k[s][i]);
			free(w->env_v[s][i]);
		}
		free(w->env_k[s]);
		free(w->env_v[s]);
	}
}

static int
web_report_load(struct context *ctx, int64_t id, struct web_report *w,
    char **cause)
{
	const struct config_repo	*cr;
	struct report_fairness		 fair;
	char				 rev[64];

	memset(w, 0, sizeof *w);
	if (store_bisection_get(ctx->store, id, &w->b, cause) != 0 ||
	    store_job_get(ctx->store, w->b.job, &w->job, cause) != 0 ||
	    store_request_get(ctx->store, id, &w->rq, cause) != 0)
		return -1;
	w->pj = jobcache_parse(&ctx->jobs, w->job.id, w->job.job_id,
	    w->job.canonical, NULL);
	if (w->b.result == NULL ||
	    (w->res = json_loads(w->b.result, 0, NULL)) == NULL)
		return error_set(cause, "bisection %lld has not concluded "
		    "(status %s)", (long long)id,
		    store_bisection_status_name(w->b.status));
	w->culprit = json_string_value(json_object_get(w->res, "culprit"));
	w->change = json_number_value(json_object_get(w->res, "change_pct"));
	if ((cr = config_repo_find(ctx->config, w->b.repo)) == NULL)
		return error_set(cause, "no repository '%s' in the config",
		    w->b.repo);
	if (repo_open(cr, &w->repo, cause) != 0)
		return -1;
	/* no culprit (no_change, inconclusive, ambiguous): a page of its own */
	if (w->culprit == NULL) {
		w->headline = xasprintf("bisection %lld: %s, %+.1f%% %s between "
		    "good %.10s and bad %.10s", (long long)id,
		    store_bisection_status_name(w->b.status), w->change, w->b.metric, w->b.good, w->b.bad);
		return 0;
	}
	if (repo_commit_read(w->repo, w->culprit, &w->rc, cause) != 0)
		return -1;
	snprintf(rev, sizeof rev, "%s^", w->culprit);
	w->has_parent = repo_resolve(w->repo, rev, w->parent, NULL) == 0;
	if ((w->culprit_at = json_string_value(json_object_get(w->res,
	    "culprit_sampled_at"))) == NULL)
		w->culprit_at = w->culprit;
	if ((w->parent_at = json_string_value(json_object_get(w->res,
	    "parent_sampled_at"))) == NULL)
		w->parent_at = w->parent;
	report_fairness_load(ctx, &w->b, w->has_parent ? w->parent_at : NULL,
	    w->culprit_at, &fair);
	w->headline = report_headline_fair(w->culprit, w->change, w->b.metric,
	    w->b.direction, w->b.status, &fair);
	if (w->has_parent && store_env_get(ctx->store, w->b.job, w->b.repo,
	    w->parent_at, &w->env_k[0], &w->env_v[0], &w->env_n[0],
	    cause) != 0)
		return -1;
	return store_env_get(ctx->store, w->b.job, w->b.repo, w->culprit_at,
	    &w->env_k[1], &w->env_v[1], &w->env_n[1], cause);
}

static const char *
web_env(const struct web_report *w, int side, const char *key)
{
	size_t	i;

	for (i = 0; i < w->env_n[side]; i++) {
		if (strcmp(w->env_k[side][i], key) == 0)
			return w->env_v[side][i];
	}
	return NULL;
}

/*
 * Where each commit of the range sits: its generation, the longest path
 * from a good end, so that parents always come before their children.
 */
static double *
web_generations(const struct repo_range *range)
{
	const struct bisect_commit	*c = range->commits;
	size_t				 n = range->nr_commits, i, k, j;
	size_t				 head = 0, tail = 0;
	size_t				*left = xcalloc(n + 1, sizeof *left);
	size_t				*queue = xcalloc(n + 1, sizeof *queue);
	size_t				*first = xcalloc(n + 2, sizeof *first);
	size_t				*fill = xcalloc(n + 1, sizeof *fill);
	size_t				*child;
	double				*gen = xcalloc(n + 1, sizeof *gen);

	/* children of each commit, as runs in one array */
	for (i = 0; i < n; i++) {
		for (k = 0; k < c[i].nr_parents; k++)
			first[c[i].parents[k] + 1]++;
	}
	for (i = 0; i < n; i++)
		first[i + 1] += first[i];
	child = xcalloc(first[n] + 1, sizeof *child);
	for (i = 0; i < n; i++) {
		for (k = 0; k < c[i].nr_parents; k++) {
			j = c[i].parents[k];
			child[first[j] + fill[j]++] = i;
		}
		left[i] = c[i].nr_parents;
		if (left[i] == 0)
			queue[tail++] = i;
	}
	while (head < tail) {
		i = queue[head++];
		for (k = first[i]; k < first[i + 1]; k++) {
			j = child[k];
			if (gen[j] < gen[i] + 1)
				gen[j] = gen[i] + 1;
			if (--left[j] == 0)
				queue[tail++] = j;
		}
	}
	free(left);
	free(queue);
	free(first);
	free(fill);
	free(child);
	return gen;
}

static int
web_point_cmp(const void *a, const void *b)
{
	const struct web_point	*x = a, *y = b;

	return x->x < y->x ? -1 : x->x > y->x;
}

static void
web_plot(struct strbuf *sb, struct context *ctx, struct web_report *w,
    int64_t id)
{
	struct store_step	*steps = NULL;
	struct store_series	 series;
	struct repo_range	 range;
	struct repo_commit	*rcs = NULL;
	struct web_point	*pts = NULL;
	const char		*stand;
	struct web_plot		 plot;
	struct web_point	 revert;
	struct summary		 sum;
	const char		*good = w->b.good, *revert_oid;
	double			*gen = NULL;
	size_t			 nr = 0, n = 0, i, at;

	memset(&range, 0, sizeof range);
	if (store_bisection_steps(ctx->store, id, &steps, &nr, NULL) != 0 ||
	    repo_range_load(w->repo, &good, 1, w->b.bad, &range, NULL) != 0) {
		strbuf_addstr(sb, "<p class=\"muted\">The tested commits could "
		    "not be placed in the range: no plot.</p>\n");
		goto out;
	}
	gen = web_generations(&range);
	pts = xcalloc(nr + 1, sizeof *pts);
	rcs = xcalloc(nr + 1, sizeof *rcs);
	for (i = 0; i < nr; i++) {
		/* a commit only built shows the runs of its image */
		if ((stand = json_string_value(json_object_get(json_object_get(
		    w->res, "stand_ins"), steps[i].commit_oid))) == NULL)
			stand = steps[i].commit_oid;
		if ((at = repo_range_find(&range, steps[i].commit_oid)) ==
		    (size_t)-1 || store_series_get(ctx->store, w->b.job,
		    w->b.repo, stand, w->b.metric, &series, NULL) != 0)
			continue;
		summary_compute(&sum, series.values, series.nr);
		store_series_release(&series);
		if (sum.n == 0 || !isfinite(sum.mean))
			continue;
		pts[n].oid = steps[i].commit_oid;
		if (repo_commit_read(w->repo, steps[i].commit_oid, &rcs[n],
		    NULL) == 0)
			pts[n].label = rcs[n].subject;
		pts[n].x = gen[at];
		pts[n].mean = sum.mean;
		pts[n].stddev = sum.n > 1 ? sum.stddev : NAN;
		pts[n].n = sum.n;
		pts[n].verdict = steps[i].verdict[0];
		n++;
	}
	qsort(pts, n, sizeof *pts, web_point_cmp);
	memset(&plot, 0, sizeof plot);
	plot.metric = w->b.metric;
	plot.points = pts;
	plot.nr = n;
	plot.x_max = gen[range.bad];
	plot.culprit = w->culprit;
	revert_oid = json_string_value(json_object_get(json_object_get(w->res,
	    "revert"), "commit"));
	/* a revert of the parent's image was not run: the parent's runs */
	if (revert_oid != NULL && store_series_get(ctx->store, w->b.job,
	    w->b.repo, json_is_true(json_object_get(json_object_get(w->res,
	    "revert"), "same_image_as_parent")) && w->has_parent ?
	    w->parent_at : revert_oid, w->b.metric, &series, NULL) == 0) {
		summary_compute(&sum, series.values, series.nr);
		store_series_release(&series);
		if (sum.n > 0 && isfinite(sum.mean)) {
			memset(&revert, 0, sizeof revert);
			revert.oid = revert_oid;
			revert.x = plot.x_max + fmax(1, plot.x_max / 16);
			revert.mean = sum.mean;
			revert.stddev = sum.n > 1 ? sum.stddev : NAN;
			revert.n = sum.n;
			revert.verdict = 'r';
			plot.revert = &revert;
		}
	}
	svg_plot(sb, &plot);
out:
	for (i = 0; rcs != NULL && i < nr; i++)
		repo_commit_release(&rcs[i]);
	free(rcs);
	free(pts);
	free(gen);
	repo_range_release(&range);
	store_bisection_steps_free(steps, nr);
}

static void
web_summary(struct strbuf *sb, const struct web_report *w,
    char **oids, char **revs, size_t nr_revs)
{
	const char	*kind = report_kind(w->change, w->b.direction);
	char		 when[64], **branches = NULL, share[32];
	struct tm	 tm;
	size_t		 i, nr_branches = 0;

	strbuf_addf(sb, "<h1 class=\"%s\">", kind);
	web_escape(sb, w->headline);
	strbuf_addstr(sb, "</h1>\n");
	/* pointed at, but contradicted by its own evidence: not mailed */
	if (w->b.status == STORE_BISECTION_UNCONFIRMED) {
		strbuf_addstr(sb, "<p><strong>Unconfirmed:</strong> the "
		    "bisection pointed at this commit, but its own evidence "
		    "contradicts it: ");
		web_escape(sb, json_string_value(json_object_get(w->res,
		    "contradiction")) != NULL ? json_string_value(
		    json_object_get(w->res, "contradiction")) : "see below");
		strbuf_addstr(sb, ". Its author has not been mailed.</p>\n");
	}
	strbuf_addf(sb, "<p>bisectd noticed a %+.1f%% %s of <code>",
	    w->change, kind);
	web_escape(sb, w->b.metric);
	strbuf_addstr(sb, "</code> on:</p>\n<table class=\"kv\">\n"
	    "<tr><th>commit</th><td><code>");
	web_escape(sb, w->culprit);
	strbuf_addstr(sb, "</code> (&ldquo;");
	web_escape(sb, w->rc.subject);
	strbuf_addstr(sb, "&rdquo;)</td></tr>\n");
	web_kv(sb, "author", w->rc.author);
	gmtime_r(&w->rc.time, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	web_kv(sb, "date", when);
	web_kv(sb, "repository", w->b.repo);
	if (repo_branches_containing(w->repo, w->culprit, &branches,
	    &nr_branches, NULL) == 0 && nr_branches > 0) {
		strbuf_addstr(sb, "<tr><th>branch</th><td>");
		for (i = 0; i < nr_branches; i++) {
			if (i > 0)
				strbuf_addstr(sb, ", ");
			web_escape(sb, branches[i]);
			free(branches[i]);
		}
		free(branches);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "<tr><th>range</th><td>");
	for (i = 0; i < nr_revs; i++) {
		strbuf_addstr(sb, i == 0 ? "good " : " &hellip; bad ");
		web_escape(sb, revs[i]);
		if (strcmp(revs[i], oids[i]) != 0) {
			strbuf_addstr(sb, " (<code>");
			strbuf_addf(sb, "%.12s", oids[i]);
			strbuf_addstr(sb, "</code>)");
		}
	}
	if (nr_revs == 0)
		strbuf_addf(sb, "good <code>%.12s</code> &hellip; bad "
		    "<code>%.12s</code>", w->b.good, w->b.bad);
	strbuf_addstr(sb, "</td></tr>\n</table>\n<p>");
	strbuf_addf(sb, "The culprit explains %s the change between "
	    "the good and the bad end (95%% CI of its own change: [%+.1f%%, "
	    "%+.1f%%], p = %.2g; %lld builds, %lld runs).</p>\n",
	    report_share(share, sizeof share, json_number_value(
	    json_object_get(w->res, "explained_pct"))),
	    json_number_value(json_array_get(json_object_get(w->res, "ci_pct"),
	    0)), json_number_value(json_array_get(json_object_get(w->res,
	    "ci_pct"), 1)), json_number_value(json_object_get(w->res,
	    "p_value")), (long long)json_integer_value(json_object_get(w->res,
	    "builds")), (long long)json_integer_value(json_object_get(w->res,
	    "runs")));
}

/* Whether reverting the culprit on top of the bad end undoes the change. */
static void
web_revert(struct strbuf *sb, const struct web_report *w)
{
	char		 mean[32];
	json_t		*rv = json_object_get(w->res, "revert");
	const char	*oid = json_string_value(json_object_get(rv, "commit"));

	if (rv == NULL)
		return;
	strbuf_addstr(sb, "<h2>Revert check</h2>\n<p>");
	if (!json_is_true(json_object_get(rv, "clean")))
		strbuf_addstr(sb, "The culprit does not revert cleanly on top "
		    "of the bad end: no check.");
	else if (!json_is_true(json_object_get(rv, "built")))
		strbuf_addf(sb, "The culprit reverted on top of the bad end "
		    "(<code>%.12s</code>) did not build: no check.",
		    oid != NULL ? oid : "");
	else if (json_is_true(json_object_get(rv, "same_image_as_parent")))
		strbuf_addf(sb, "Reverting the culprit on top of the bad end "
		    "(<code>%.12s</code>, kept under "
		    "<code>refs/bisectd/revert/</code>) builds an image "
		    "byte-identical to the culprit's parent's: it restores "
		    "100%% of the good&rarr;bad change by construction, and "
		    "was not run.", oid != NULL ? oid : "");
	else {
		report_compare_value(mean, sizeof mean, json_number_value(
		    json_object_get(rv, "mean")));
		strbuf_addf(sb, "Reverting the culprit on top of the bad end "
		    "(<code>%.12s</code>, kept under "
		    "<code>refs/bisectd/revert/</code>) restores %.0f%% of the "
		    "good&rarr;bad change: mean %s over %lld runs, %+.1f%% "
		    "against the bad end (p = %.2g that it restores less than "
		    "half).", oid != NULL ? oid : "",
		    json_number_value(json_object_get(rv, "restored_pct")),
		    mean,
		    (long long)json_integer_value(json_object_get(rv, "n")),
		    json_number_value(json_object_get(rv, "change_pct")),
		    json_number_value(json_object_get(rv, "p_value")));
	}
	strbuf_addstr(sb, "</p>\n");
}

static void
web_testcase(struct strbuf *sb, const struct web_report *w)
{
	static const char	*machine[] = {
		"model", "nr_cpu", "memory", "nr_node", "hostname", "kernel"
	};
	const struct job	 *pj = w->pj;
	size_t			  i;
	const char		 *v;

	strbuf_addstr(sb, "<h2>Testcase</h2>\n<table class=\"kv\">\n");
	web_kv(sb, "testcase", w->job.testcase);
	if (strcmp(w->job.description, w->job.testcase) != 0)
		web_kv(sb, "job", w->job.description);
	web_kv(sb, "job id", w->job.job_id);
	for (i = 0; pj != NULL && i < pj->nr_params; i++) {
		if (strcmp(pj->params[i].key, "testcase") != 0)
			web_kv(sb, pj->params[i].key, pj->params[i].value);
	}
	strbuf_addstr(sb, "</table>\n<h2>Test machine</h2>\n");
	if (w->env_n[1] == 0) {
		strbuf_addstr(sb, "<p class=\"muted\">No run recorded its "
		    "machine.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<table class=\"kv\">\n");
	for (i = 0; i < sizeof machine / sizeof machine[0]; i++) {
		if ((v = web_env(w, 1, machine[i])) != NULL)
			web_kv(sb, machine[i], v);
	}
	strbuf_addstr(sb, "</table>\n");
}

/* The environment, any difference between the compared runs first. */
static void
web_environment(struct strbuf *sb, const struct web_report *w)
{
	const char	*a;
	size_t		 i, diffs = 0;

	strbuf_addstr(sb, "<h2>Environment</h2>\n");
	for (i = 0; w->has_parent && i < w->env_n[1]; i++) {
		a = web_env(w, 0, w->env_k[1][i]);
		if (a != NULL && strcmp(a, w->env_v[1][i]) == 0)
			continue;
		if (diffs++ == 0)
			strbuf_addstr(sb, "<div class=\"drift\"><p><strong>"
			    "Warning: the compared runs ran in different "
			    "environments.</strong> Part of the change may "
			    "come from these differences, not from the "
			    "commit:</p>\n<table class=\"kv\">\n");
		strbuf_addstr(sb, "<tr><th>");
		web_escape(sb, w->env_k[1][i]);
		strbuf_addstr(sb, "</th><td>");
		web_escape(sb, a != NULL ? a : "(unset)");
		strbuf_addstr(sb, " &rarr; ");
		web_escape(sb, w->env_v[1][i]);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	if (diffs > 0)
		strbuf_addstr(sb, "</table></div>\n");
	else if (w->has_parent && w->env_n[0] > 0)
		strbuf_addstr(sb, "<p>The parent's and the culprit's runs ran "
		    "in the same environment.</p>\n");
	if (w->env_n[1] == 0)
		return;
	strbuf_addstr(sb, "<p>The culprit's runs:</p>\n<table class=\"kv\">\n");
	for (i = 0; i < w->env_n[1]; i++)
		web_kv(sb, w->env_k[1][i], w->env_v[1][i]);
	strbuf_addstr(sb, "</table>\n");
}

static int
web_tables(struct strbuf *sb, struct context *ctx, const struct web_report *w,
    int64_t id, char **cause)
{
	struct store_series	*sa = NULL, *sc = NULL;
	struct strbuf		 t = STRBUF_INIT;
	size_t			 na = 0, nc = 0;
	int			 r = -1;

	if (w->has_parent) {
		if (store_series_all(ctx->store, w->b.job, w->b.repo,
		    w->parent_at, &sa, &na, cause) != 0 ||
		    store_series_all(ctx->store, w->b.job, w->b.repo,
		    w->culprit_at, &sc, &nc, cause) != 0)
			goto out;
		report_compare_table(&t, w->parent, w->culprit, sa, na, sc, nc,
		    w->b.metric, 0);
		strbuf_addstr(sb, "<h2>Compare: the culprit against its "
		    "parent</h2>\n");
		web_pre(sb, t.buf);
		strbuf_reset(&t);
		report_spread_table(&t, sa, na, sc, nc);
		if (t.len > 0) {
			strbuf_addstr(sb, "<h2>Per-instance spread</h2>\n");
			web_pre(sb, t.buf);
		}
		strbuf_reset(&t);
	}
	web_environment(sb, w);
	strbuf_addstr(sb, "<h2>Bisection log</h2>\n<p>Replayable with "
	    "<code>git bisect replay</code>:</p>\n");
	if (report_log(&t, ctx, id, cause) != 0)
		goto out;
	web_pre(sb, t.buf);
	strbuf_reset(&t);
	strbuf_addstr(sb, "<h2>Reproduce</h2>\n");
	strbuf_addf(&t, "bisectctl bisect %s --good %s --bad %s --metric %s "
	    "--wait", w->rq.job_file, w->b.good, w->b.bad, w->b.metric);
	web_pre(sb, t.buf);
	strbuf_addf(sb, "<p>with the job file (job <code>%s</code>):</p>\n",
	    w->job.job_id);
	web_pre(sb, w->job.canonical);
	r = 0;
out:
	store_series_list_free(sa, na);
	store_series_list_free(sc, nc);
	strbuf_release(&t);
	return r;
}

int
web_bisection_plot(struct strbuf *sb, struct context *ctx, int64_t id)
{
	struct web_report	w;
	int			r = -1;

	if (web_report_load(ctx, id, &w, NULL) == 0) {
		web_plot(sb, ctx, &w, id);
		r = 0;
	}
	web_report_release(&w);
	return r;
}

/* DIR/KIND-ID.html from the page's text, then the index with it. */
static int
web_page_write(struct context *ctx, const char *dir, const char *kind,
    int64_t id, const struct strbuf *sb, char **path, char **cause)
{
	char	*name = NULL, *page = NULL;
	int	 r = -1;

	if (dir_create(dir, cause) != 0)
		goto out;
	name = xasprintf("%s-%lld.html", kind, (long long)id);
	page = path_join(dir, name);
	if (file_write_atomic(page, sb->buf, sb->len, cause) != 0 ||
	    web_index_write(ctx, dir, cause) != 0)
		goto out;
	*path = page;
	page = NULL;
	r = 0;
out:
	free(name);
	free(page);
	return r;
}

/*
 * The page of a bisection that named no culprit: what it concluded and
 * why, and the plot of the commits it tested, so that a no_change or an
 * inconclusive can be looked at as a found culprit can.
 */
static int
web_write_bisection(struct context *ctx, int64_t id, struct web_report *w,
    const char *dir, char **path, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	json_t		*cands, *ci;
	size_t		 i;
	int		 r = -1;

	web_head(&sb, w->headline);
	strbuf_addstr(&sb, "<p class=\"muted\"><a href=\"index.html\">all "
	    "reports</a></p>\n<h1>");
	web_escape(&sb, w->headline);
	strbuf_addstr(&sb, "</h1>\n<table class=\"kv\">\n");
	web_kv(&sb, "status", store_bisection_status_name(w->b.status));
	web_kv(&sb, "metric", w->b.metric);
	web_kv(&sb, "good", w->b.good);
	web_kv(&sb, "bad", w->b.bad);
	strbuf_addstr(&sb, "</table>\n<p>");
	ci = json_object_get(w->res, "ci_pct");
	strbuf_addf(&sb, "Bad against good: %+.1f%% (95%% CI [%+.1f%%, "
	    "%+.1f%%], p = %.2g; %lld builds, %lld runs).", w->change,
	    json_number_value(json_array_get(ci, 0)),
	    json_number_value(json_array_get(ci, 1)),
	    json_number_value(json_object_get(w->res, "p_value")),
	    (long long)json_integer_value(json_object_get(w->res, "builds")),
	    (long long)json_integer_value(json_object_get(w->res, "runs")));
	if (json_is_number(json_object_get(w->res, "min_detectable_pct")))
		strbuf_addf(&sb, " A change under %.1f%% would have been missed "
		    "more often than not.", json_number_value(json_object_get(
		    w->res, "min_detectable_pct")));
	strbuf_addstr(&sb, "</p>\n");
	if ((cands = json_object_get(w->res, "candidates")) != NULL &&
	    json_array_size(cands) > 0) {
		strbuf_addstr(&sb, "<p>The first bad commit is one of:</p>\n"
		    "<ul>\n");
		for (i = 0; i < json_array_size(cands) && i < 50; i++) {
			strbuf_addstr(&sb, "<li><code>");
			web_escape(&sb, json_string_value(json_array_get(cands,
			    i)));
			strbuf_addstr(&sb, "</code></li>\n");
		}
		strbuf_addstr(&sb, "</ul>\n");
	}
	web_plot(&sb, ctx, w, id);
	web_testcase(&sb, w);
	strbuf_addstr(&sb, "</body>\n</html>\n");
	r = web_page_write(ctx, dir, "bisection", id, &sb, path, cause);
	strbuf_release(&sb);
	return r;
}

int
web_write(struct context *ctx, int64_t id, const char *dir, char **path,
    char **cause)
{
	struct web_report	  w;
	struct strbuf		  sb = STRBUF_INIT;
	char			**oids = NULL, **revs = NULL;
	size_t			  nr_revs = 0, i;
	int			  r = -1;

	if (web_report_load(ctx, id, &w, cause) != 0)
		goto out;
	if (w.culprit == NULL) {
		r = web_write_bisection(ctx, id, &w, dir, path, cause);
		goto out;
	}
	if (store_request_commits(ctx->store, id, &oids, &revs, &nr_revs,
	    cause) != 0)
		goto out;
	web_head(&sb, w.headline);
	strbuf_addstr(&sb, "<p class=\"muted\"><a href=\"index.html\">all "
	    "reports</a></p>\n");
	web_summary(&sb, &w, oids, revs, nr_revs);
	web_plot(&sb, ctx, &w, id);
	web_revert(&sb, &w);
	web_testcase(&sb, &w);
	if (web_tables(&sb, ctx, &w, id, cause) != 0)
		goto out;
	strbuf_addstr(&sb, "</body>\n</html>\n");
	r = web_page_write(ctx, dir, "report", id, &sb, path, cause);
out:
	web_report_release(&w);
	for (i = 0; i < nr_revs; i++) {
		free(oids[i]);
		free(revs[i]);
	}
	free(oids);
	free(revs);
	strbuf_release(&sb);
	return r;
}
