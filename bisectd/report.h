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
#include "schema/store.h"
#include "util/strbuf.h"

/* "regression", "improvement" or "change" for a % change and direction. */
const char *report_kind(double change_pct, const char *direction);
char	*report_headline(const char *oid, double change_pct,
	    const char *metric, const char *direction);
/*
 * The LKP compare table between two commits' series: the headline metric
 * first, then every other metric that changed significantly, largest
 * change first; with all set, the unchanged ones follow.
 */
void	 report_compare_table(struct strbuf *, const char *label_a,
	    const char *label_b, const struct store_series *a, size_t nr_a,
	    const struct store_series *b, size_t nr_b, const char *headline,
	    int all);
/* Per-instance spread of the metrics that have instances, both sides. */
void	 report_spread_table(struct strbuf *, const struct store_series *a,
	    size_t nr_a, const struct store_series *b, size_t nr_b);
/* A bisection's log of tested commits, replayable by `git bisect replay`. */
int	 report_log(struct strbuf *, struct context *, int64_t id,
	    char **cause);
/* The whole report of a concluded bisection. */
int	 report_bisection(struct context *, int64_t id, char **headline,
	    char **body, char **cause);

#endif
