/*
 * The per-instance spread of a report (bisectd/report.h): each metric
 * with instances (processes, threads, nodes) on both sides, the change of
 * the aggregate, and whether the instances became fairer (Jain's index,
 * Welch's t over the runs), which a headline and a mail then mention.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/report.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "util/xalloc.h"

/* Metrics of the agent's monitors: their instances are CPUs or nodes. */
static int
report_spread_monitor_metric(const char *name)
{
	static const char *const prefixes[] = {
		"time.", "proc-vmstat.", "meminfo.", "numa-numastat.",
		"numa-meminfo.", "proc-stat.", "interrupts.", "softirqs.",
		"cpufreq.", NULL
	};
	size_t	i;

	for (i = 0; prefixes[i] != NULL; i++) {
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	}
	return 0;
}

/* The spread of instances in each run of one side. */
struct report_spread {
	size_t	 per;		/* instances per run */
	size_t	 runs;
	double	*jain;		/* per run */
	double	*cv;		/* per run, % */
	double	 min;		/* over every run */
	double	 max;
	double	 jain_mean;
	double	 cv_mean;
};

static void
report_spread_release(struct report_spread *sp)
{
	free(sp->jain);
	free(sp->cv);
	memset(sp, 0, sizeof *sp);
}

/*
 * Runs with a different number of instances cannot be told apart in the
 * flattened list: they are then taken as one pool.
 */
static int
report_spread_of(const struct store_series *s, struct report_spread *out)
{
	struct spread	one;
	size_t		r;

	memset(out, 0, sizeof *out);
	if (s->nr_instance_runs == 0 || s->nr_instances < 2)
		return -1;
	out->runs = s->nr_instance_runs;
	if (s->nr_instances % out->runs != 0)
		out->runs = 1;
	out->per = s->nr_instances / out->runs;
	if (out->per < 2)
		return -1;
	out->jain = xcalloc(out->runs, sizeof *out->jain);
	out->cv = xcalloc(out->runs, sizeof *out->cv);
	out->min = INFINITY;
	out->max = -INFINITY;
	for (r = 0; r < out->runs; r++) {
		summary_spread(&one, s->instances + r * out->per, out->per);
		out->jain[r] = one.jain;
		out->cv[r] = one.cv;
		out->jain_mean += one.jain / (double)out->runs;
		out->cv_mean += one.cv / (double)out->runs;
		out->min = one.min < out->min ? one.min : out->min;
		out->max = one.max > out->max ? one.max : out->max;
	}
	return 0;
}

/*
 * Did the instances become fairer? The per-run Jain's indexes of the two
 * sides are compared (Welch, when each side has two runs or more); a
 * change below 0.02 is no change, 0.1 or more is a large one.
 */
static void
report_spread_fairness(struct strbuf *sb, const struct report_spread *a,
    const struct report_spread *b)
{
	struct comparison	cmp;
	double			dj = b->jain_mean - a->jain_mean;
	int			sig = 1, tested = 0;

	if (a->runs >= 2 && b->runs >= 2 &&
	    compare_samples(&cmp, a->jain, a->runs, b->jain, b->runs,
	    NULL) == 0) {
		tested = isfinite(cmp.p_value);
		if (tested)
			sig = cmp.p_value < 0.05;
	}
	if (fabs(dj) < 0.02 || !sig)
		strbuf_addstr(sb, "fairness unchanged");
	else
		strbuf_addf(sb, "the instances became %s%s",
		    fabs(dj) >= 0.1 ? "much " : "",
		    dj > 0 ? "fairer" : "less fair");
	strbuf_addf(sb, " (Jain's index %.3f -> %.3f", a->jain_mean,
	    b->jain_mean);
	if (tested)
		strbuf_addf(sb, ", p = %.2g", cmp.p_value);
	strbuf_addch(sb, ')');
}

static void
report_spread_row(struct strbuf *sb, const char *label,
    const struct report_spread *sp)
{
	char	mn[32], mx[32];

	report_compare_value(mn, sizeof mn, sp->min);
	report_compare_value(mx, sizeof mx, sp->max);
	strbuf_addf(sb, "    %-16.16s %12s %12s %7.1f%% %7.3f\n", label, mn, mx,
	    sp->cv_mean, sp->jain_mean);
}

int
report_spread_fairness_of(const struct store_series *a,
    const struct store_series *b, struct report_fairness *out)
{
	struct report_spread	sa, sb_;
	struct comparison	cmp;
	double			dj;
	int			r = -1;

	memset(out, 0, sizeof *out);
	out->p_value = NAN;
	memset(&sb_, 0, sizeof sb_);
	if (report_spread_of(a, &sa) != 0 || report_spread_of(b, &sb_) != 0)
		goto out;
	out->known = 1;
	out->instances = sb_.per;
	out->jain_a = sa.jain_mean;
	out->jain_b = sb_.jain_mean;
	out->minmax_a = sa.max > 0 ? sa.min / sa.max : NAN;
	out->minmax_b = sb_.max > 0 ? sb_.min / sb_.max : NAN;
	out->min_a = sa.min;
	out->min_b = sb_.min;
	dj = sb_.jain_mean - sa.jain_mean;
	if (sa.runs >= 2 && sb_.runs >= 2 && compare_samples(&cmp, sa.jain,
	    sa.runs, sb_.jain, sb_.runs, NULL) == 0 &&
	    isfinite(cmp.p_value)) {
		out->tested = 1;
		out->p_value = cmp.p_value;
		if (cmp.p_value < 0.05 && fabs(dj) >= REPORT_FAIRNESS_MIN)
			out->change = dj > 0 ? 1 : -1;
	}
	r = 0;
out:
	report_spread_release(&sa);
	report_spread_release(&sb_);
	return r;
}

int
report_spread_fairness_likely(const struct report_fairness *f,
    double change_pct, const char *direction)
{
	return f->change > 0 && strcmp(report_kind(change_pct, direction),
	    "regression") == 0 && f->jain_b - f->jain_a >=
	    REPORT_FAIRNESS_MUCH && f->minmax_b > f->minmax_a;
}

void
report_spread_fairness_suffix(struct strbuf *sb,
    const struct report_fairness *f)
{
	if (!f->known || f->change == 0)
		return;
	strbuf_addf(sb, " (instances %s: Jain %.2f → %.2f)", f->change > 0 ?
	    "fairer" : "less fair", f->jain_a, f->jain_b);
}

/* The change of the metric's aggregate, as the compare table has it. */
static void
report_spread_aggregate(struct strbuf *sb, const struct store_series *a,
    const struct store_series *b)
{
	struct comparison	cmp;

	if (report_compare(&cmp, a, b) != 0)
		strbuf_addf(sb, "aggregate %+.1f%% (too few runs to test)",
		    cmp.change_pct);
	else if (cmp.significant)
		strbuf_addf(sb, "aggregate %+.1f%% (%s)", cmp.change_pct,
		    report_kind(cmp.change_pct, job_direction_name(
		    metric_lookup(a->metric)->direction)));
	else
		strbuf_addf(sb, "aggregate unchanged (%+.1f%%, not "
		    "significant)", cmp.change_pct);
}

void
report_spread_compare(struct strbuf *sb, const char *label_a,
    const char *label_b, const struct store_series *a, size_t nr_a,
    const struct store_series *b, size_t nr_b)
{
	struct report_spread	sa, sb_;
	size_t			i, j;
	int			header = 0;
	char			la[16], lb[16];

	snprintf(la, sizeof la, "%.10s", label_a);
	snprintf(lb, sizeof lb, "%.10s", label_b);
	for (i = 0; i < nr_a; i++) {
		if (report_spread_monitor_metric(a[i].metric))
			continue;
		for (j = 0; j < nr_b; j++) {
			if (strcmp(a[i].metric, b[j].metric) == 0)
				break;
		}
		if (j == nr_b)
			continue;
		memset(&sb_, 0, sizeof sb_);
		if (report_spread_of(&a[i], &sa) != 0 ||
		    report_spread_of(&b[j], &sb_) != 0) {
			report_spread_release(&sa);
			report_spread_release(&sb_);
			continue;
		}
		if (!header) {
			strbuf_addstr(sb, "per-instance spread (min and max "
			    "over the runs; CV and Jain's fairness index per "
			    "run, averaged;\nJain's index is 1 when every "
			    "instance did the same, 1/n when one did it "
			    "all):\n");
			header = 1;
		}
		strbuf_addf(sb, "\n  %s: %zu instances per run, %zu run%s -> "
		    "%zu run%s\n", a[i].metric, sa.per, sa.runs, sa.runs == 1 ?
		    "" : "s", sb_.runs, sb_.runs == 1 ? "" : "s");
		strbuf_addf(sb, "    %-16s %12s %12s %8s %7s\n", "", "min",
		    "max", "CV", "Jain");
		report_spread_row(sb, la, &sa);
		report_spread_row(sb, lb, &sb_);
		strbuf_addstr(sb, "    => ");
		report_spread_aggregate(sb, &a[i], &b[j]);
		strbuf_addstr(sb, ", ");
		report_spread_fairness(sb, &sa, &sb_);
		strbuf_addch(sb, '\n');
		report_spread_release(&sa);
		report_spread_release(&sb_);
	}
}

void
report_spread_table(struct strbuf *sb, const struct store_series *a,
    size_t nr_a, const struct store_series *b, size_t nr_b)
{
	report_spread_compare(sb, "before", "after", a, nr_a, b, nr_b);
}
