/*
 * The whole report of a concluded bisection (DESIGN §3.4, docs/reports.md):
 * the bisection read once into a struct report_bisection, then its
 * sections in order -- headline, drift, commit, how sure, tags, the
 * parent-against-culprit details, the log and a reproducer -- as text or as
 * the robot's mail.
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

/* One side's recorded environment, owned, with its drift_run view. */
struct report_bisection_side {
	char		**keys;
	char		**values;
	struct drift_run run;
};

static void
report_bisection_side_load(struct report_bisection_side *side,
    struct context *ctx, int64_t job, const char *repo, const char *oid)
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
report_bisection_side_release(struct report_bisection_side *side)
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
report_bisection_env(struct strbuf *sb, struct context *ctx, int64_t id,
    int64_t job, const char *repo,
    const struct report_bisection_side *parent,
    const struct report_bisection_side *culprit)
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
report_bisection_drift_banner(struct strbuf *sb, const struct drift *d,
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
 * "branch: NAME" as the robot writes it: the branches that contain the
 * culprit (local ones and those continuous mode tracks), at most four
 * named; none when no branch has it yet.
 */
static void
report_bisection_branches(struct strbuf *sb, struct repo *repo, const char *oid)
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

/* How many runs other load disturbed, set aside and repeated, and why. */
static int
report_bisection_disturbed(struct strbuf *sb, struct context *ctx, int64_t job,
    const char *repo, char **cause)
{
	char	*why = NULL;
	int	 set_aside, kept;

	if (store_run_disturbed_totals(ctx->store, job, repo, &set_aside,
	    &kept, &why, cause) != 0)
		return -1;
	if (set_aside == 0 && kept == 0)
		mail_para(sb, "Runs set aside as disturbed by other load: "
		    "none.");
	else
		mail_para(sb, "Runs set aside as disturbed by other load "
		    "and repeated: %d%s%s%s; counted although disturbed: %d.",
		    set_aside, why != NULL ? " (the last: " : "",
		    why != NULL ? why : "", why != NULL ? ")" : "", kept);
	free(why);
	return 0;
}

/* The revert check's verdict, in words. */
static void
report_bisection_revert(struct strbuf *sb, json_t *rv)
{
	double	restored;

	if (rv == NULL)
		return;
	if (!json_is_true(json_object_get(rv, "clean"))) {
		mail_para(sb, "Revert check: the culprit does not revert "
		    "cleanly on top of the bad commit.");
		return;
	}
	if (!json_is_true(json_object_get(rv, "built"))) {
		mail_para(sb, "Revert check: the culprit reverted on top of "
		    "the bad commit (%.12s) does not build.",
		    json_string_value(json_object_get(rv, "commit")));
		return;
	}
	if (json_is_true(json_object_get(rv, "same_image_as_parent"))) {
		mail_para(sb, "Revert check: the culprit reverted on top of "
		    "the bad commit (%.12s) builds an image byte-identical to "
		    "the culprit's parent's: it restores all of the change by "
		    "construction, and was not run.",
		    json_string_value(json_object_get(rv, "commit")));
		return;
	}
	restored = json_number_value(json_object_get(rv, "restored_pct"));
	mail_para(sb, "Revert check: with the culprit reverted on top of the "
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
report_bisection_branch(struct repo *repo, const struct config_repo *cr,
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

/*
 * A short compiler name for the axes line, as the robot writes it:
 * "gcc (Debian 12.2.0-14) 12.2.0" is gcc-12, "clang version 14.0.6" is
 * clang-14; anything else is kept, its spaces made dashes.
 */
static char *
report_bisection_compiler(const char *full)
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
report_bisection_axes(struct strbuf *sb, const char *compiler,
    const char *kconfig, const struct job *job, const char *machine,
    const char *testcase)
{
	struct strbuf	 keys = STRBUF_INIT, vals = STRBUF_INIT;
	size_t		 i;
	char		*cc = report_bisection_compiler(compiler);

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
report_bisection_kconfig(const struct config_repo *cr)
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
report_bisection_fix_headline(const struct store_regression *g,
    const char *culprit, const char *tree, const char *branch,
    char **headline, char **subject)
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
report_bisection_fix_para(struct strbuf *sb, const struct store_regression *g,
    size_t nr, const char *branch)
{
	size_t	i;

	for (i = 0; i < nr; i++) {
		if (g[i].culprit != NULL)
			mail_para(sb, "This commit fixes the %+.1f%% %s "
			    "regression of commit %.12s%s%s (bisection %lld): "
			    "the series is back from where that commit took "
			    "it. The regression is closed.", g[i].change_pct,
			    g[i].metric, g[i].culprit, branch != NULL ? " on " :
			    "", branch != NULL ? branch : "",
			    (long long)g[i].bisection);
		else
			mail_para(sb, "This commit fixes the %+.1f%% %s "
			    "regression found between %.12s and %.12s%s%s "
			    "(bisection %lld, %s). The regression is closed.",
			    g[i].change_pct, g[i].metric, g[i].good, g[i].bad,
			    branch != NULL ? " on " : "", branch != NULL ?
			    branch : "", (long long)g[i].bisection,
			    store_regression_status_name(&g[i]));
	}
}


/*
 * One concluded bisection, read once for its report: the rows, the
 * culprit and its parent, the commits whose runs stand for them, both
 * sides' environments, the fixes it names and the recipe's names.
 */
struct report_bisection {
	int64_t				 id;
	struct store_bisection		 b;
	struct store_job		 job;
	struct store_request		 rq;
	const struct config_repo	*cr;
	struct repo			*repo;
	struct repo_commit		 rc, pc;	/* culprit, parent */
	json_t				*res;
	const char			*culprit, *parent_oid;
	const char			*culprit_at, *parent_at;
	double				 change;
	struct report_fairness		 fair;
	struct report_bisection_side	 penv, cenv;
	const struct job		*pj;
	const char			*compiler;
	char				*branch, *kconfig;
	struct store_regression		*fixes;
	size_t				 nr_fixes;
};

static void
report_bisection_release(struct report_bisection *rb)
{
	free(rb->branch);
	free(rb->kconfig);
	store_regression_list_free(rb->fixes, rb->nr_fixes);
	json_decref(rb->res);
	report_bisection_side_release(&rb->penv);
	report_bisection_side_release(&rb->cenv);
	store_bisection_release(&rb->b);
	store_job_release(&rb->job);
	store_request_release(&rb->rq);
	repo_commit_release(&rb->rc);
	repo_commit_release(&rb->pc);
	repo_free(rb->repo);
	memset(rb, 0, sizeof *rb);
}

/* The culprit's parent, when it has one the repository can read. */
static void
report_bisection_parent(struct report_bisection *rb)
{
	char	rev[64], oid[REPO_OID_HEX + 1];

	snprintf(rev, sizeof rev, "%s^", rb->culprit);
	if (repo_resolve(rb->repo, rev, oid, NULL) == 0 &&
	    repo_commit_read(rb->repo, oid, &rb->pc, NULL) == 0)
		rb->parent_oid = rb->pc.oid;
}

static int
report_bisection_load(struct report_bisection *rb, struct context *ctx,
    int64_t id, char **cause)
{
	struct store_bisection	*b = &rb->b;
	const char		*cc;

	memset(rb, 0, sizeof *rb);
	rb->id = id;
	if (store_bisection_get(ctx->store, id, b, cause) != 0 ||
	    store_job_get(ctx->store, b->job, &rb->job, cause) != 0 ||
	    store_request_get(ctx->store, id, &rb->rq, cause) != 0)
		return -1;
	if (b->result == NULL ||
	    (rb->res = json_loads(b->result, 0, NULL)) == NULL ||
	    (rb->culprit = json_string_value(json_object_get(rb->res,
	    "culprit"))) == NULL) {
		error_set(cause, "bisection %lld found no culprit (status %s)",
		    (long long)id, store_bisection_status_name(b->status));
		return -1;
	}
	rb->change = json_number_value(json_object_get(rb->res, "change_pct"));
	if ((rb->cr = config_repo_find(ctx->config, b->repo)) == NULL) {
		error_set(cause, "no repository '%s' in the config", b->repo);
		return -1;
	}
	if (repo_open(rb->cr, &rb->repo, cause) != 0 ||
	    repo_commit_read(rb->repo, rb->culprit, &rb->rc, cause) != 0)
		return -1;
	report_bisection_parent(rb);
	/* the commits whose runs stand for them: theirs, or their image's */
	rb->culprit_at = json_string_value(json_object_get(rb->res,
	    "culprit_sampled_at"));
	if (rb->culprit_at == NULL)
		rb->culprit_at = rb->culprit;
	if (rb->parent_oid != NULL && (rb->parent_at = json_string_value(
	    json_object_get(rb->res, "parent_sampled_at"))) == NULL)
		rb->parent_at = rb->parent_oid;
	report_fairness_load(ctx, b, rb->parent_at, rb->culprit_at, &rb->fair);
	rb->branch = report_bisection_branch(rb->repo, rb->cr, rb->culprit);
	if (store_regression_fixed_by(ctx->store, id, &rb->fixes,
	    &rb->nr_fixes, cause) != 0)
		return -1;
	report_bisection_side_load(&rb->penv, ctx, b->job, b->repo,
	    rb->parent_at);
	report_bisection_side_load(&rb->cenv, ctx, b->job, b->repo,
	    rb->culprit_at);
	rb->pj = jobcache_parse(&ctx->jobs, rb->job.id, rb->job.job_id,
	    rb->job.canonical, NULL);
	cc = report_env_value(&rb->cenv.run, "compiler_built");
	if (cc == NULL && rb->cr->build_command != NULL)
		cc = build_kernel_compiler();
	rb->compiler = cc;
	rb->kconfig = report_bisection_kconfig(rb->cr);
	return 0;
}

/* The headline and the mail's subject, a fix's when it fixes one. */
static void
report_bisection_titles(const struct report_bisection *rb, char **headline,
    char **subject)
{
	const struct config_repo	*cr = rb->cr;
	const char			*tree;

	tree = cr->tree != NULL ? cr->tree : cr->name;
	*headline = report_headline_fair(rb->culprit, rb->change, rb->b.metric,
	    rb->b.direction, rb->b.status, &rb->fair);
	if (subject != NULL)
		*subject = report_subject(tree, rb->branch, rb->rc.subject,
		    rb->culprit, rb->change, rb->b.metric, rb->b.direction,
		    &rb->fair);
	if (rb->nr_fixes > 0)
		report_bisection_fix_headline(rb->fixes, rb->culprit, tree,
		    rb->branch, headline, subject);
}

/* The drift banner over the runs of the ends, the parent and the culprit. */
static int
report_bisection_drift(struct strbuf *sb, const struct report_bisection *rb,
    struct context *ctx, char **cause)
{
	const struct store_bisection	*b = &rb->b;
	const char			*oids[4], *labels[4];
	char				 l[4][32];
	struct drift			 drift;
	size_t				 n = 0;
	int				 r = -1;

	memset(&drift, 0, sizeof drift);
	/* an end whose runs stand for the parent or culprit is that */
	if (rb->parent_at == NULL || strcmp(rb->parent_at, b->good) != 0) {
		oids[n] = b->good;
		snprintf(l[n], sizeof l[n], "good %.10s", b->good);
		labels[n] = l[n];
		n++;
	}
	if (strcmp(rb->culprit_at, b->bad) != 0) {
		oids[n] = b->bad;
		snprintf(l[n], sizeof l[n], "bad %.10s", b->bad);
		labels[n] = l[n];
		n++;
	}
	if (rb->parent_oid != NULL) {
		oids[n] = rb->parent_at;
		snprintf(l[n], sizeof l[n], "parent %.10s", rb->parent_oid);
		labels[n] = l[n];
		n++;
	}
	oids[n] = rb->culprit_at;
	snprintf(l[n], sizeof l[n], "culprit %.10s", rb->culprit);
	labels[n] = l[n];
	n++;
	if (drift_check(ctx->store, b->job, b->repo, oids, labels, n, &drift,
	    cause) != 0)
		goto out;
	report_bisection_drift_banner(sb, &drift, "The runs of this bisection");
	r = 0;
out:
	drift_release(&drift);
	return r;
}

/* The commit, its author and branches, the testcase and the build. */
static void
report_bisection_commit(struct strbuf *sb, const struct report_bisection *rb)
{
	const struct store_bisection	*b = &rb->b;
	const char			*branch = rb->branch;

	/* a fix is bisected the other way round: it is an improvement */
	strbuf_addf(sb, "bisectd noticed a %+.1f%% %s of %s on:\n\n",
	    rb->change, rb->nr_fixes > 0 ? "improvement" :
	    report_kind(rb->change, b->direction), b->metric);
	strbuf_addf(sb, "commit: %s (\"%s\")\n", rb->culprit, rb->rc.subject);
	if (rb->cr->url != NULL)
		strbuf_addf(sb, "%s%s%s\n", rb->cr->url, branch != NULL ? " " :
		    "", branch != NULL ? branch : "");
	strbuf_addf(sb, "author: %s\n", rb->rc.author);
	strbuf_addf(sb, "repository: %s\n", b->repo);
	report_bisection_branches(sb, rb->repo, rb->culprit);
	strbuf_addch(sb, '\n');
	report_testcase(sb, rb->job.testcase, rb->job.description, rb->pj,
	    &rb->cenv.run);
	strbuf_addf(sb, "compiler: %s\nkconfig: %s\n\n", rb->compiler != NULL ?
	    rb->compiler : "none", rb->kconfig);
}

/* How sure: the share explained, its interval, the notes that qualify it. */
static void
report_bisection_verdict(struct strbuf *sb, const struct report_bisection *rb)
{
	const struct report_fairness	*fair = &rb->fair;
	json_t				*res = rb->res, *list;
	char				 share[32];
	size_t				 k;

	mail_para(sb, "The culprit explains %s the change between "
	    "good %.12s and bad %.12s (95%% CI of its own change: [%+.1f%%, "
	    "%+.1f%%], p = %.2g; %lld builds, %lld runs).",
	    report_share(share, sizeof share, json_number_value(
	    json_object_get(res, "explained_pct"))), rb->b.good,
	    rb->b.bad, json_number_value(json_array_get(json_object_get(res,
	    "ci_pct"), 0)), json_number_value(json_array_get(
	    json_object_get(res, "ci_pct"), 1)),
	    json_number_value(json_object_get(res, "p_value")),
	    (long long)json_integer_value(json_object_get(res, "builds")),
	    (long long)json_integer_value(json_object_get(res, "runs")));
	if (json_is_true(json_object_get(res, "same_image_as_parent")))
		mail_para(sb, "Note: the culprit's build is "
		    "byte-identical to its parent's (the same kernel image): "
		    "the commit cannot have changed what ran. Suspect noise or "
		    "the environment before this commit.");
	list = json_object_get(res, "culprits");
	if (json_array_size(list) > 1) {
		strbuf_addf(sb, "It is one of %zu culprits in the range:\n",
		    json_array_size(list));
		for (k = 0; k < json_array_size(list); k++)
			strbuf_addf(sb, "\t%s\n",
			    json_string_value(json_array_get(list, k)));
		strbuf_addch(sb, '\n');
	}
	if (fair->known && fair->change != 0)
		mail_para(sb, "The %zu instances of %s became %s (Jain's "
		    "fairness index %.3f -> %.3f, p = %.2g; slowest over "
		    "fastest %.2f -> %.2f)%s", fair->instances, rb->b.metric,
		    fair->change > 0 ? "fairer" : "less fair", fair->jain_a,
		    fair->jain_b, fair->p_value, fair->minmax_a, fair->minmax_b,
		    report_spread_fairness_likely(fair, rb->change,
		    rb->b.direction) ?
		    ": this is likely a fairness improvement rather than a "
		    "plain regression. The instances now proceed at more "
		    "similar speeds, and the total fell with it; judge whether "
		    "the job's total is what matters before blaming the "
		    "commit." : ".");
	report_bisection_revert(sb, json_object_get(res, "revert"));
}

/* The Reported-by: and Closes: tags a mail asks a fix to carry. */
static void
report_bisection_tags(struct strbuf *sb, const struct report_mail *mail)
{
	if (mail == NULL || mail->reported_by == NULL)
		return;
	mail_para(sb, "If you fix the issue in a separate "
	    "patch/commit (i.e. not just a new version of the same "
	    "patch/commit), kindly add following tags");
	strbuf_addf(sb, "| Reported-by: %s\n", mail->reported_by);
	if (mail->closes != NULL && mail->message_id != NULL)
		strbuf_addf(sb, "| Closes: %s%s\n", mail->closes,
		    mail->message_id);
	strbuf_addch(sb, '\n');
}

/* Parent against culprit: environment, axes, tables, profile, spread. */
static int
report_bisection_details(struct strbuf *sb, const struct report_bisection *rb,
    struct context *ctx, char **cause)
{
	const struct store_bisection	*b = &rb->b;
	const char			*parent = rb->parent_oid;
	const char			*culprit = rb->culprit;
	struct store_series		*sa = NULL, *sc = NULL;
	size_t				 na = 0, nc = 0;
	int				 r = -1;

	if (parent == NULL)
		return 0;
	if (store_series_all(ctx->store, b->job, b->repo, rb->parent_at, &sa,
	    &na, cause) != 0 ||
	    store_series_all(ctx->store, b->job, b->repo, rb->culprit_at, &sc,
	    &nc, cause) != 0)
		goto out;
	if (rb->culprit_at != culprit || rb->parent_at != parent)
		mail_para(sb, "The culprit and its parent were "
		    "built, not run: their images are byte-identical to those "
		    "of %.12s and %.12s, whose runs stand for them below "
		    "(identical images are one test point).", rb->culprit_at,
		    rb->parent_at);
	report_bisection_env(sb, ctx, rb->id, b->job, b->repo, &rb->penv,
	    &rb->cenv);
	report_bisection_axes(sb, rb->compiler, rb->kconfig, rb->pj,
	    report_env_value(&rb->cenv.run, "hostname"), rb->job.testcase);
	strbuf_addf(sb, "commit:\n  %.10s (\"%s\")\n  %.10s (\"%s\")\n\n",
	    parent, rb->pc.subject != NULL ? rb->pc.subject : "", culprit,
	    rb->rc.subject);
	report_compare_table(sb, parent, culprit, sa, na, sc, nc, b->metric,
	    0);
	strbuf_addch(sb, '\n');
	if (report_profile(sb, parent, culprit, sa, na, sc, nc))
		strbuf_addch(sb, '\n');
	report_spread_compare(sb, parent, culprit, sa, na, sc, nc);
	strbuf_addch(sb, '\n');
	r = 0;
out:
	store_series_list_free(sa, na);
	store_series_list_free(sc, nc);
	return r;
}

int
report_bisection_mail(struct context *ctx, int64_t id,
    const struct report_mail *mail, char **headline, char **subject,
    char **body, char **cause)
{
	struct report_bisection	 rb;
	struct strbuf		 sb = STRBUF_INIT;
	const char		*why;
	int			 r = -1;

	*headline = NULL;
	if (subject != NULL)
		*subject = NULL;
	if (report_bisection_load(&rb, ctx, id, cause) != 0)
		goto out;
	report_bisection_titles(&rb, headline, subject);
	if (mail == NULL)
		strbuf_addf(&sb, "%s\n\n", *headline);
	if (rb.b.status == STORE_BISECTION_UNCONFIRMED) {
		why = json_string_value(json_object_get(rb.res,
		    "contradiction"));
		mail_para(&sb, "UNCONFIRMED: the bisection pointed "
		    "at this commit, but its own evidence contradicts it: %s. "
		    "Its author has not been mailed; suspect noise or the "
		    "environment, and run the bisection again.", why != NULL ?
		    why : "see below");
	}
	if (report_bisection_drift(&sb, &rb, ctx, cause) != 0)
		goto out;
	if (mail != NULL)
		strbuf_addstr(&sb, "Hello,\n\n");
	report_bisection_fix_para(&sb, rb.fixes, rb.nr_fixes, rb.branch);
	report_bisection_commit(&sb, &rb);
	report_bisection_verdict(&sb, &rb);
	if (report_bisection_disturbed(&sb, ctx, rb.b.job, rb.b.repo,
	    cause) != 0)
		goto out;
	report_bisection_tags(&sb, mail);
	strbuf_addstr(&sb, "Details are as below:\n");
	strbuf_addstr(&sb, "--------------------------------------------------"
	    "------------------------------------------------>\n\n");
	if (report_bisection_details(&sb, &rb, ctx, cause) != 0)
		goto out;
	strbuf_addstr(&sb, "bisection log (git bisect replay):\n\n");
	if (report_log(&sb, ctx, id, cause) != 0)
		goto out;
	strbuf_addf(&sb, "\nTo reproduce:\n\n\tbisectctl bisect %s --good %s "
	    "--bad %s --metric %s --wait\n\njob (%s):\n\n%s", rb.rq.job_file,
	    rb.b.good, rb.b.bad, rb.b.metric, rb.job.job_id,
	    rb.job.canonical);
	*body = strbuf_detach(&sb, NULL);
	r = 0;
out:
	if (r != 0) {
		free(*headline);
		*headline = NULL;
		if (subject != NULL) {
			free(*subject);
			*subject = NULL;
		}
	}
	report_bisection_release(&rb);
	strbuf_release(&sb);
	return r;
}
