/*
 * The web index: every report, newest first, and every tracked series: a
 * section per tracked branch with a plot per metric of each continuous job,
 * its change points and culprits linked to their reports, and a table of
 * its regressions. What each plot shows is in docs/design.md, "File notes".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisectd/report.h"
#include "bisectd/series.h"
#include "bisectd/web.h"
#include "jobs/metric.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

/* Metrics plotted per job, the headline one included. */
#define WEB_INDEX_METRICS	8

/* What one job's plots share: the branch, its commits, its regressions. */
struct web_index_job {
	const char			*dir;
	const char			*repo;
	const char			*branch;
	const struct store_tracked	*t;
	size_t				 nr_t;
	struct store_job		 job;
	struct store_regression		*regs;
	size_t				 nr_regs;
};

static char *
web_index_report_name(const char *dir, int64_t bisection)
{
	char	*name, *page;

	name = xasprintf("report-%lld.html", (long long)bisection);
	page = path_join(dir, name);
	if (file_exists(page)) {
		free(page);
		return name;
	}
	free(page);
	free(name);
	return NULL;
}

static void
web_index_reports(struct strbuf *sb, const char *dir,
    const struct store_report_entry *v, size_t nr)
{
	char		*name, when[64];
	size_t		 i;
	struct tm	 tm;
	time_t		 t;

	strbuf_addf(sb, "<h2>Reports</h2>\n<p>%zu report%s, newest "
	    "first.</p>\n", nr, nr == 1 ? "" : "s");
	if (nr == 0)
		return;
	strbuf_addstr(sb, "<table class=\"list\">\n<tr><th>bisection</th>"
	    "<th>headline</th><th>concluded</th></tr>\n");
	for (i = 0; i < nr; i++) {
		t = (time_t)v[i].created;
		gmtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
		strbuf_addf(sb, "<tr><td>%lld</td><td>",
		    (long long)v[i].bisection);
		if ((name = web_index_report_name(dir, v[i].bisection)) !=
		    NULL) {
			strbuf_addf(sb, "<a href=\"%s\">", name);
			web_escape(sb, v[i].headline);
			strbuf_addstr(sb, "</a>");
		} else {
			web_escape(sb, v[i].headline);
			strbuf_addf(sb, " <span class=\"muted\">(no page yet: "
			    "<code>bisectctl report %lld --html DIR</code>)"
			    "</span>", (long long)v[i].bisection);
		}
		strbuf_addf(sb, "</td><td>%s</td></tr>\n", when);
		free(name);
	}
	strbuf_addstr(sb, "</table>\n");
}

/* Where a commit of the branch sits, or -1 (a commit merged from aside). */
static double
web_index_seq(const struct web_index_job *ij, const char *oid)
{
	size_t	i;

	for (i = 0; i < ij->nr_t; i++) {
		if (strcmp(ij->t[i].commit_oid, oid) == 0)
			return (double)ij->t[i].seq;
	}
	return -1;
}

/* One metric's plot: its points, change points and the job's culprits. */
static int
web_index_plot(struct strbuf *sb, struct store *st,
    const struct web_index_job *ij, const char *metric, char **cause)
{
	const struct metric_info	*mi = metric_lookup(metric);
	const struct changepoint	*cp;
	const struct store_regression	*g;
	struct series			 s;
	struct web_point		*pts = NULL;
	struct web_mark			*marks = NULL;
	struct web_plot			 plot;
	char				**texts = NULL, **hrefs = NULL;
	char				*x_label = NULL;
	size_t				 i, n = 0, nr_texts;
	double				 x;
	int				 r = -1;

	if (series_load(&s, st, ij->job.id, ij->repo, metric, ij->t, ij->nr_t,
	    cause) != 0)
		return -1;
	if (series_detect(&s, mi->min_effect_pct, 0, cause) != 0)
		goto out;
	pts = xcalloc(s.nr + 1, sizeof *pts);
	for (i = 0; i < s.nr; i++) {
		pts[i].oid = s.points[i].oid;
		pts[i].x = (double)s.points[i].seq;
		pts[i].mean = s.points[i].sum.mean;
		pts[i].stddev = s.points[i].sum.n > 1 ?
		    s.points[i].sum.stddev : NAN;
		pts[i].n = s.points[i].sum.n;
		pts[i].verdict = 't';
		pts[i].base = s.points[i].base;
	}
	nr_texts = s.cp.nr_points + ij->nr_regs + 1;
	marks = xcalloc(nr_texts, sizeof *marks);
	texts = xcalloc(nr_texts, sizeof *texts);
	hrefs = xcalloc(nr_texts, sizeof *hrefs);
	for (i = 0; i < s.cp.nr_points; i++) {
		cp = &s.cp.points[i];
		if (cp->group == 0 || cp->group >= s.nr)
			continue;
		marks[n].x = (s.points[cp->group - 1].seq +
		    s.points[cp->group].seq) / 2.0;
		marks[n].kind = 'c';
		texts[n] = xasprintf("%+.1f%% %s (p %.2g)", cp->change_pct,
		    report_kind(cp->change_pct, ij->job.direction),
		    cp->p_value);
		marks[n].text = texts[n];
		n++;
	}
	for (i = 0; i < ij->nr_regs; i++) {
		g = &ij->regs[i];
		if (g->culprit == NULL)
			continue;
		/* a culprit merged from aside is drawn at the merge's end */
		if ((x = web_index_seq(ij, g->culprit)) < 0)
			x = (double)g->bad_seq;
		marks[n].x = x;
		marks[n].kind = 'x';
		texts[n] = xasprintf("culprit %.10s", g->culprit);
		marks[n].text = texts[n];
		hrefs[n] = web_index_report_name(ij->dir, g->bisection);
		marks[n].href = hrefs[n];
		n++;
	}
	x_label = xasprintf("commits on %s (first-parent order)", ij->branch);
	memset(&plot, 0, sizeof plot);
	plot.metric = metric;
	plot.points = pts;
	plot.nr = s.nr;
	plot.x_label = x_label;
	plot.x_min = s.nr > 0 ? pts[0].x : 0;
	plot.x_max = s.nr > 0 ? pts[s.nr - 1].x : 1;
	plot.marks = marks;
	plot.nr_marks = n;
	strbuf_addstr(sb, "<h4>");
	web_escape(sb, metric);
	strbuf_addf(sb, "</h4>\n<p class=\"muted\">%zu tested commit%s, "
	    "%zu change point%s at p &lt; %.2g.</p>\n", s.nr,
	    s.nr == 1 ? "" : "s", s.cp.nr_points,
	    s.cp.nr_points == 1 ? "" : "s", SERIES_ALPHA);
	svg_plot(sb, &plot);
	r = 0;
out:
	for (i = 0; texts != NULL && i < nr_texts; i++) {
		free(texts[i]);
		free(hrefs[i]);
	}
	free(texts);
	free(hrefs);
	free(marks);
	free(pts);
	free(x_label);
	series_release(&s);
	return r;
}

static void
web_index_regressions(struct strbuf *sb, const struct web_index_job *ij)
{
	const struct store_regression	*g;
	char				*name;
	size_t				 i;

	if (ij->nr_regs == 0) {
		strbuf_addstr(sb, "<p>No regression found on this branch.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<table class=\"list\">\n<tr><th>between</th>"
	    "<th>change</th><th>p</th><th>bisection</th><th>culprit</th>"
	    "</tr>\n");
	for (i = 0; i < ij->nr_regs; i++) {
		g = &ij->regs[i];
		strbuf_addf(sb, "<tr><td><code>%.10s</code> and <code>%.10s"
		    "</code></td><td>%+.1f%% ", g->good, g->bad, g->change_pct);
		web_escape(sb, g->metric);
		if (strcmp(g->kind, "improvement") == 0) {
			strbuf_addf(sb, "</td><td>%.2g</td><td colspan=\"2\">"
			    "an improvement</td></tr>\n", g->p_value);
			continue;
		}
		strbuf_addf(sb, "</td><td>%.2g</td><td>%lld ", g->p_value,
		    (long long)g->bisection);
		web_escape(sb, store_regression_status_name(g));
		if (g->fixed_culprit != NULL && (name = web_index_report_name(
		    ij->dir, g->fixed_bisection)) != NULL) {
			strbuf_addf(sb, "; closed: fixed by commit <a href=\"%s"
			    "\"><code>%.10s</code></a>", name,
			    g->fixed_culprit);
			free(name);
		} else if (g->fixed_culprit != NULL)
			strbuf_addf(sb, "; closed: fixed by commit <code>%.10s"
			    "</code>", g->fixed_culprit);
		else if (g->fixed_bad != NULL)
			strbuf_addf(sb, "; closed: fixed between <code>%.10s"
			    "</code> and <code>%.10s</code>", g->fixed_good,
			    g->fixed_bad);
		strbuf_addstr(sb, "</td><td>");
		if (g->culprit == NULL)
			strbuf_addstr(sb, "<span class=\"muted\">none yet</span>");
		else if ((name = web_index_report_name(ij->dir,
		    g->bisection)) != NULL) {
			strbuf_addf(sb, "<a href=\"%s\"><code>%.10s</code></a>",
			    name, g->culprit);
			free(name);
		} else
			strbuf_addf(sb, "<code>%.10s</code>", g->culprit);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/*
 * The metrics to plot: the headline one, then the testcase's own (named
 * TESTCASE.something) as the newest tested commit recorded them.
 */
static int
web_index_metrics(struct store *st, const struct web_index_job *ij,
    char ***out, size_t *nr, size_t *more, char **cause)
{
	struct store_series	*all = NULL;
	char			**v = NULL, *prefix;
	size_t			  nr_all = 0, n = 0, i, len;

	*more = 0;
	v = xcalloc(WEB_INDEX_METRICS + 1, sizeof *v);
	if (ij->job.metric != NULL)
		v[n++] = xstrdup(ij->job.metric);
	for (i = ij->nr_t; i-- > 0;) {
		if (store_series_all(st, ij->job.id, ij->repo,
		    ij->t[i].tested_as != NULL ? ij->t[i].tested_as :
		    ij->t[i].commit_oid, &all, &nr_all, cause) != 0) {
			while (n-- > 0)
				free(v[n]);
			free(v);
			return -1;
		}
		if (nr_all > 0)
			break;
		store_series_list_free(all, nr_all);
		all = NULL;
		nr_all = 0;
	}
	prefix = xasprintf("%s.", ij->job.testcase);
	len = strlen(prefix);
	for (i = 0; i < nr_all; i++) {
		if (strncmp(all[i].metric, prefix, len) != 0 ||
		    (ij->job.metric != NULL &&
		    strcmp(all[i].metric, ij->job.metric) == 0))
			continue;
		if (n == WEB_INDEX_METRICS)
			(*more)++;
		else
			v[n++] = xstrdup(all[i].metric);
	}
	free(prefix);
	store_series_list_free(all, nr_all);
	*out = v;
	*nr = n;
	return 0;
}

static int
web_index_job(struct strbuf *sb, struct store *st, struct web_index_job *ij,
    int64_t job, char **cause)
{
	char	**metrics = NULL;
	size_t	  nr = 0, more = 0, i;
	int	  r = -1;

	if (store_job_get(st, job, &ij->job, cause) != 0 ||
	    store_regression_list(st, ij->repo, ij->branch, job, &ij->regs,
	    &ij->nr_regs, cause) != 0 ||
	    web_index_metrics(st, ij, &metrics, &nr, &more, cause) != 0)
		goto out;
	strbuf_addstr(sb, "<h3>Job <code>");
	web_escape(sb, ij->job.job_id);
	strbuf_addstr(sb, "</code>: ");
	web_escape(sb, ij->job.description);
	strbuf_addstr(sb, "</h3>\n");
	web_index_regressions(sb, ij);
	for (i = 0; i < nr; i++) {
		if (web_index_plot(sb, st, ij, metrics[i], cause) != 0)
			goto out;
	}
	if (more > 0)
		strbuf_addf(sb, "<p class=\"muted\">%zu more metric%s of the "
		    "testcase not plotted; <code>bisectctl compare</code> "
		    "tables them.</p>\n", more, more == 1 ? "" : "s");
	r = 0;
out:
	for (i = 0; i < nr; i++)
		free(metrics[i]);
	free(metrics);
	store_regression_list_free(ij->regs, ij->nr_regs);
	ij->regs = NULL;
	ij->nr_regs = 0;
	store_job_release(&ij->job);
	memset(&ij->job, 0, sizeof ij->job);
	return r;
}

static int
web_index_branch(struct strbuf *sb, struct store *st, const char *dir,
    const char *repo, const char *branch, char **cause)
{
	struct web_index_job	 ij;
	struct store_tracked	*t = NULL;
	int64_t			*jobs = NULL;
	size_t			 nr_t = 0, nr_jobs = 0, i, queued = 0;
	int			 gone, r = -1;

	memset(&ij, 0, sizeof ij);
	if (store_tracked_list(st, repo, branch, &t, &nr_t, cause) != 0 ||
	    store_tracked_jobs(st, repo, branch, &jobs, &nr_jobs, cause) != 0 ||
	    store_tracked_gone(st, repo, branch, &gone, cause) != 0)
		goto out;
	for (i = 0; i < nr_t; i++)
		queued += t[i].queued != 0;
	strbuf_addstr(sb, "<h2>Tracked: ");
	web_escape(sb, repo);
	strbuf_addch(sb, ' ');
	web_escape(sb, branch);
	strbuf_addf(sb, "</h2>\n<p>%zu commit%s seen, %zu queued for testing",
	    nr_t, nr_t == 1 ? "" : "s", queued);
	if (nr_t > 0)
		strbuf_addf(sb, "; from <code>%.12s</code> to <code>%.12s"
		    "</code>", t[0].commit_oid, t[nr_t - 1].commit_oid);
	strbuf_addstr(sb, ".</p>\n");
	if (gone)
		strbuf_addstr(sb, "<p class=\"gone\">This branch is gone "
		    "upstream: its series is as it was last seen.</p>\n");
	if (nr_jobs == 0)
		strbuf_addstr(sb, "<p class=\"muted\">No run has finished on "
		    "this branch yet.</p>\n");
	ij.dir = dir;
	ij.repo = repo;
	ij.branch = branch;
	ij.t = t;
	ij.nr_t = nr_t;
	for (i = 0; i < nr_jobs; i++) {
		if (web_index_job(sb, st, &ij, jobs[i], cause) != 0)
			goto out;
	}
	r = 0;
out:
	store_tracked_list_free(t, nr_t);
	free(jobs);
	return r;
}

/*
 * The recent bisections that named no culprit and have a page of their
 * own (web.c writes bisection-ID.html): their status, with the link.
 */
static int
web_index_others(struct strbuf *sb, struct store *st, const char *dir,
    char **cause)
{
	struct store_request	*rq = NULL;
	struct store_bisection	 b;
	char			*name, *path;
	size_t			 nr = 0, i, shown = 0;

	if (store_request_list(st, 100, &rq, &nr, cause) != 0)
		return -1;
	for (i = 0; i < nr; i++) {
		if (strcmp(rq[i].kind, "bisect") != 0 ||
		    store_bisection_get(st, rq[i].id, &b, NULL) != 0)
			continue;
		name = xasprintf("bisection-%lld.html", (long long)rq[i].id);
		path = path_join(dir, name);
		if (file_exists(path)) {
			if (shown++ == 0)
				strbuf_addstr(sb, "<h2>Bisections without a "
				    "culprit</h2>\n<table>\n<tr><th>bisection"
				    "</th><th>status</th><th>metric</th></tr>"
				    "\n");
			strbuf_addf(sb, "<tr><td><a href=\"%s\">%lld</a></td>"
			    "<td>", name, (long long)rq[i].id);
			web_escape(sb, store_bisection_status_name(b.status));
			strbuf_addstr(sb, "</td><td><code>");
			web_escape(sb, b.metric);
			strbuf_addstr(sb, "</code></td></tr>\n");
		}
		free(name);
		free(path);
		store_bisection_release(&b);
	}
	if (shown > 0)
		strbuf_addstr(sb, "</table>\n");
	for (i = 0; i < nr; i++)
		store_request_release(&rq[i]);
	free(rq);
	return 0;
}

/*
 * The plots of the newest bisections that have a page, culprit or not,
 * so that the index shows them without continuous mode too.
 */
#define WEB_INDEX_PLOTS	10
static void
web_index_bisections(struct strbuf *sb, struct context *ctx, const char *dir)
{
	struct store_request	*rq = NULL;
	struct store_bisection	 b;
	char			*name, *path;
	size_t			 nr_rq = 0, i, shown = 0;

	if (store_request_list(ctx->store, 100, &rq, &nr_rq, NULL) != 0)
		return;
	for (i = 0; i < nr_rq && shown < WEB_INDEX_PLOTS; i++) {
		if (strcmp(rq[i].kind, "bisect") != 0 ||
		    store_bisection_get(ctx->store, rq[i].id, &b, NULL) != 0)
			continue;
		name = web_index_report_name(dir, rq[i].id);
		if (name == NULL) {
			name = xasprintf("bisection-%lld.html",
			    (long long)rq[i].id);
			path = path_join(dir, name);
			if (!file_exists(path)) {
				free(name);
				name = NULL;
			}
			free(path);
		}
		if (name != NULL) {
			if (shown++ == 0)
				strbuf_addstr(sb, "<h2>Bisections</h2>\n");
			strbuf_addf(sb, "<h3><a href=\"%s\">bisection %lld</a>: ",
			    name, (long long)rq[i].id);
			web_escape(sb, store_bisection_status_name(b.status));
			strbuf_addstr(sb, ", <code>");
			web_escape(sb, b.metric);
			strbuf_addstr(sb, "</code></h3>\n");
			web_bisection_plot(sb, ctx, rq[i].id);
		}
		free(name);
		store_bisection_release(&b);
	}
	for (i = 0; i < nr_rq; i++)
		store_request_release(&rq[i]);
	free(rq);
}

int
web_index_write(struct context *ctx, const char *dir, char **cause)
{
	struct store_report_entry	 *v = NULL;
	struct strbuf			  sb = STRBUF_INIT;
	char				**repos = NULL, **branches = NULL;
	char				 *page = NULL;
	size_t				  nr = 0, nr_branches = 0, i;
	int				  r = -1;

	if (dir_create(dir, cause) != 0 ||
	    store_report_list(ctx->store, &v, &nr, cause) != 0 ||
	    store_tracked_branches(ctx->store, &repos, &branches,
	    &nr_branches, cause) != 0)
		goto out;
	web_head(&sb, "bisectd reports");
	strbuf_addstr(&sb, "<h1>bisectd reports</h1>\n");
	web_index_reports(&sb, dir, v, nr);
	if (web_index_others(&sb, ctx->store, dir, cause) != 0)
		goto out;
	web_index_bisections(&sb, ctx, dir);
	for (i = 0; i < nr_branches; i++) {
		if (web_index_branch(&sb, ctx->store, dir, repos[i],
		    branches[i], cause) != 0)
			goto out;
	}
	strbuf_addstr(&sb, "</body>\n</html>\n");
	page = path_join(dir, "index.html");
	r = file_write_atomic(page, sb.buf, sb.len, cause);
out:
	for (i = 0; i < nr_branches; i++) {
		free(repos[i]);
		free(branches[i]);
	}
	free(repos);
	free(branches);
	free(page);
	store_report_list_free(v, nr);
	strbuf_release(&sb);
	return r;
}
