/*
 * Reports in the 0-day robot's style: the headline
 * "commit 8d59d2214c: -3.0% dbench.throughput-MB/sec regression", the
 * compare table with ± per side, and the full text of a bisection's report.
 */
#ifndef BISECTD_REPORT_H
#define BISECTD_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "bisectd/context.h"
#include "bisectd/drift.h"
#include "schema/store.h"
#include "stats/compare.h"
#include "util/strbuf.h"

/*
 * How much of the good -> bad change a culprit explains, in words: "all
 * of" from 90% (two noisy estimates of one step rarely agree better, and
 * 120% reads as nonsense), else "64% of". The exact share is in the JSON.
 */
const char *report_share(char *buf, size_t len, double explained_pct);
/* "regression", "improvement" or "change" for a % change and direction. */
const char *report_kind(double change_pct, const char *direction);
char	*report_headline(const char *oid, double change_pct,
	    const char *metric, const char *direction,
	    enum store_bisection_status);
/*
 * One metric's two series compared as the metric table says (smallest
 * effect, direction), blocked by the agent that ran each sample when they
 * ran on more than one (stats/compare.h: compare_blocked). -1 when they
 * are too few to test: then only change_pct is set, from the means.
 */
int	 report_compare(struct comparison *, const struct store_series *a,
	    const struct store_series *b);
/*
 * The one rounding rule of the table, the plot and the report: a mean as
 * "24913", "49.69" or "1.235e+09", and a spread as LKP's "±  3%" (five
 * columns, "±  ?%" unknown, "±>1k%" past 999%).
 */
void	 report_compare_value(char *buf, size_t len, double v);
void	 report_compare_pct(char *buf, size_t len, double stddev_pct);
/* The false discovery rate the "other metrics that moved" are held to. */
#define REPORT_FDR	0.05
/*
 * The LKP compare table between two commits' series: the headline metric
 * first, then every other metric that changed significantly (its own test
 * and the metric's minimum effect, and Benjamini-Hochberg at REPORT_FDR
 * over all the other metrics), largest change first; with all set, the
 * rest follow, their change in parentheses. Percentage metrics change in
 * points.
 */
int	 report_compare_metric_is_pct(const char *metric);
/*
 * The same rows as JSON: {"a", "b", "tested", "fdr", "rows": [{"metric",
 * "headline", "significant", "a": {"mean", "stddev_pct", "n"}, "b": {...},
 * "change_pct", "change_points" (percentage metrics), "p_value",
 * "q_value" (Benjamini-Hochberg), "machines"}]}, only the rows the table
 * would show unless all.
 */
json_t	*report_compare_json(const char *oid_a, const char *oid_b,
	    const struct store_series *a, size_t nr_a,
	    const struct store_series *b, size_t nr_b, const char *headline,
	    int all);
void	 report_compare_table(struct strbuf *, const char *label_a,
	    const char *label_b, const struct store_series *a, size_t nr_a,
	    const struct store_series *b, size_t nr_b, const char *headline,
	    int all);
/*
 * Per-instance spread of the testcase's metrics that have instances (per
 * process, thread, node), both sides, with the change of the aggregate
 * and whether the instances became fairer, so that "throughput -61%,
 * much fairer" reads at a glance (seed 002). Monitors' per-CPU instances
 * are left out.
 */
/*
 * The perf-profile rows that moved most from a (the parent) to b (the
 * culprit), under their own heading, in points (bisectd/report-profile.c):
 * by REPORT_PROFILE_MIN_POINTS or more and Welch's p < 0.05, at most
 * REPORT_PROFILE_MAX_ROWS, largest first. 0 and nothing written when a
 * side has no perf-profile row, 1 when the section was written.
 */
#define REPORT_PROFILE_MIN_POINTS	1.0
#define REPORT_PROFILE_MAX_ROWS		25
int	 report_profile(struct strbuf *, const char *label_a,
	    const char *label_b, const struct store_series *a, size_t nr_a,
	    const struct store_series *b, size_t nr_b);
void	 report_spread_compare(struct strbuf *, const char *label_a,
	    const char *label_b, const struct store_series *a, size_t nr_a,
	    const struct store_series *b, size_t nr_b);
/*
 * Whether a metric's instances became fairer between two sides: the mean
 * per-run Jain's index of each, compared by Welch's t over the runs (two
 * runs a side at least); a change when p < 0.05 and the index moved by
 * REPORT_FAIRNESS_MIN or more. -1 when either side has no instances.
 */
#define REPORT_FAIRNESS_MIN	0.02
struct report_fairness {
	int	known;		/* both sides have instances */
	int	tested;		/* and runs enough to test */
	int	change;		/* +1 fairer, -1 less fair, 0 neither */
	size_t	instances;	/* per run */
	double	jain_a, jain_b;
	double	minmax_a, minmax_b;	/* min/max over the runs */
	double	min_a, min_b;	/* the worst-off instance */
	double	p_value;
};
int	 report_spread_fairness_of(const struct store_series *a,
	     const struct store_series *b, struct report_fairness *);
/*
 * "likely a fairness improvement": the aggregate regressed while the
 * instances became significantly and much fairer (Jain's index up by
 * REPORT_FAIRNESS_MUCH or more, and the slowest instance closer to the
 * fastest): the commit changed how the machine is shared out, which a
 * reader judges before calling it a regression (seed 002).
 */
#define REPORT_FAIRNESS_MUCH	0.1
int	 report_spread_fairness_likely(const struct report_fairness *,
	     double change_pct, const char *direction);
/* " (instances fairer: Jain 0.29 → 0.99)", nothing when unchanged. */
void	 report_spread_fairness_suffix(struct strbuf *,
	     const struct report_fairness *);
/*
 * The fairness of the headline metric's instances, parent against
 * culprit, from the database; f->known is 0 without instances.
 */
int	 report_fairness_load(struct context *, const struct store_bisection *,
	     const char *parent, const char *culprit, struct report_fairness *);
/* The JSON's "fairness" object, NULL without instances. */
json_t	*report_fairness_json(const struct report_fairness *,
	     double change_pct, const char *direction);
/* The headline with the fairness suffix (DESIGN §3.4). */
char	*report_headline_fair(const char *oid, double change_pct,
	     const char *metric, const char *direction,
	     enum store_bisection_status, const struct report_fairness *);
/* The same, its sides labelled "before" and "after". */
void	 report_spread_table(struct strbuf *, const struct store_series *a,
	    size_t nr_a, const struct store_series *b, size_t nr_b);
/*
 * The compare output of a queue or compare request into out. When the
 * runs drifted in a key that matters it refuses (*refused = 1, out says
 * why) unless allow_drift, which flags the drift at the very top. A
 * commit without a single sample (every run or its build failed) is said
 * in out instead of a table and counted in *missing. With jout (an object
 * with arrays "drift" and "comparisons"), the same goes there as JSON.
 */
int	 report_compare_request(struct strbuf *out, struct context *,
	    int64_t request, int all, int allow_drift, int *refused,
	    size_t *missing, json_t *jout, char **cause);
/*
 * "in testcase: T", "on test machine: 48 threads Ivytown with 64G memory,
 * 2 nodes" from the culprit's recorded environment (env, may be NULL),
 * and the testcase's own parameters of the parsed job ("with
 * following parameters:"), without bisectd's bookkeeping (run, metric,
 * direction, runs...): the robot's header.
 */
struct job;
void	 report_testcase(struct strbuf *, const char *testcase,
	    const char *description, const struct job *,
	    const struct drift_run *env);
/*
 * The environment section: the differences between the compared runs
 * (d, may be NULL) first, then the culprit's settings that a reader
 * checks first (kernel, governor, THP, NUMA balancing...) and every other
 * key whose value differs from the parent's; the rest, the same on both
 * sides, as a count "and N more identical settings; LISTED_BY lists
 * them". The machine's keys are left to report_testcase.
 */
void	 report_environment(struct strbuf *, const struct drift *d,
	    const struct drift_run *parent, const struct drift_run *culprit,
	    const char *listed_by);
/* A recorded environment's value of key, NULL when it has none. */
const char *report_env_value(const struct drift_run *, const char *key);
/* A bisection's log of tested commits, replayable by `git bisect replay`. */
int	 report_log(struct strbuf *, struct context *, int64_t id,
	    char **cause);
/* The whole report of a concluded bisection. */
int	 report_bisection(struct context *, int64_t id, char **headline,
	    char **body, char **cause);
/*
 * The same as a mail: "Hello," first, the Reported-by: and Closes: tags
 * (when reported_by is set; Closes: the prefix and the Message-ID), and
 * *subject in the robot's form (report_subject) when subject is not NULL.
 */
struct report_mail {
	const char	*message_id;	/* without brackets */
	const char	*reported_by;	/* NULL: no tags */
	const char	*closes;	/* URL prefix; NULL: no Closes: */
};
int	 report_bisection_mail(struct context *, int64_t id,
	    const struct report_mail *, char **headline, char **subject,
	    char **body, char **cause);
/*
 * The robot's subject: "[tree:branch] [subsys] 1a2b3c4d5e: METRIC -3.0%
 * regression", the subsystem from the commit subject's "subsys: " when it
 * has one (not for reverts and merges), the fairness suffix when f says.
 */
#define REPORT_MAX_SUBSYS	40
char	*report_subject(const char *tree, const char *branch,
	    const char *commit_subject, const char *oid, double change_pct,
	    const char *metric, const char *direction,
	    const struct report_fairness *f);

#endif
