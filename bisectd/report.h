/*
 * Reports in the 0-day robot's style: the headline
 * "commit 8d59d2214c: -3.0% dbench.throughput-MB/sec regression", the
 * compare table with ± per side, and the full text of a bisection's report.
 */
#ifndef BISECTD_REPORT_H
#define BISECTD_REPORT_H

#include <stddef.h>
#include <stdint.h>

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
	    const char *metric, const char *direction, const char *status);
/*
 * One metric's two series compared as the metric table says (smallest
 * effect, direction), blocked by the agent that ran each sample when they
 * ran on more than one (stats/compare.h: compare_blocked). -1 when they
 * are too few to test: then only change_pct is set, from the means.
 */
int	 report_compare(struct comparison *, const struct store_series *a,
	    const struct store_series *b);
/*
 * The LKP compare table between two commits' series: the headline metric
 * first, then every other metric that changed significantly, largest
 * change first; with all set, the unchanged ones follow.
 */
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
void	 report_spread_compare(struct strbuf *, const char *label_a,
	    const char *label_b, const struct store_series *a, size_t nr_a,
	    const struct store_series *b, size_t nr_b);
/* The same, its sides labelled "before" and "after". */
void	 report_spread_table(struct strbuf *, const struct store_series *a,
	    size_t nr_a, const struct store_series *b, size_t nr_b);
/*
 * The compare output of a queue or compare request into out. When the
 * runs drifted in a key that matters it refuses (*refused = 1, out says
 * why) unless allow_drift, which flags the drift at the very top.
 */
int	 report_compare_request(struct strbuf *out, struct context *,
	    int64_t request, int all, int allow_drift, int *refused,
	    char **cause);
/*
 * "in testcase: T", "on test machine: 48 threads Ivytown with 64G memory,
 * 2 nodes" from the culprit's recorded environment (env, may be NULL),
 * and the testcase's own parameters of the job's canonical text ("with
 * following parameters:"), without bisectd's bookkeeping (run, metric,
 * direction, runs...): the robot's header.
 */
void	 report_testcase(struct strbuf *, const char *testcase,
	    const char *description, const char *canonical,
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
/* A bisection's log of tested commits, replayable by `git bisect replay`. */
int	 report_log(struct strbuf *, struct context *, int64_t id,
	    char **cause);
/* The whole report of a concluded bisection. */
int	 report_bisection(struct context *, int64_t id, char **headline,
	    char **body, char **cause);

#endif
