/*
 * The perf-profile section of a bisection's report: after the compare
 * table, the perf-profile rows (agents/perf-profile.c) that moved most
 * between the culprit's parent and the culprit, in points of the samples,
 * in LKP's layout. A run that has perf-profile rows but not this one had
 * it below the agent's threshold: it counts as 0 there, as LKP reads an
 * absent row. docs/reports.md and docs/monitors.md say the rule.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/report.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "util/xalloc.h"

#define REPORT_PROFILE_PREFIX	"perf-profile."

struct report_profile_row {
	const char	*metric;
	double		*a;		/* runs_a values, 0 where absent */
	double		*b;
	double		 change;	/* points */
	int		 tested;	/* both sides had two runs or more */
};

static int
report_profile_is(const char *metric)
{
	return strncmp(metric, REPORT_PROFILE_PREFIX,
	    strlen(REPORT_PROFILE_PREFIX)) == 0;
}

/* The runs of a side that recorded a profile: its longest series. */
static size_t
report_profile_runs(const struct store_series *s, size_t nr)
{
	size_t	i, runs = 0;

	for (i = 0; i < nr; i++) {
		if (report_profile_is(s[i].metric) && s[i].nr > runs)
			runs = s[i].nr;
	}
	return runs;
}

static double *
report_profile_values(const struct store_series *s, size_t nr,
    const char *metric, size_t runs)
{
	double	*v = xcalloc(runs > 0 ? runs : 1, sizeof *v);
	size_t	 i, j;

	for (i = 0; i < nr; i++) {
		if (strcmp(s[i].metric, metric) != 0)
			continue;
		for (j = 0; j < s[i].nr && j < runs; j++)
			v[j] = s[i].values[j];
		break;
	}
	return v;
}

static double
report_profile_mean(const double *v, size_t n)
{
	double	sum = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return n > 0 ? sum / (double)n : 0;
}

static int
report_profile_cmp(const void *x, const void *y)
{
	const struct report_profile_row	*a = x, *b = y;

	if (fabs(a->change) != fabs(b->change))
		return fabs(a->change) < fabs(b->change) ? 1 : -1;
	return strcmp(a->metric, b->metric);
}

/*
 * Moved: by REPORT_PROFILE_MIN_POINTS or more, and with two runs a side,
 * Welch's test below 5% (both sides constant and apart: moved too).
 */
static int
report_profile_moved(struct report_profile_row *row, size_t na, size_t nb)
{
	double	p;

	if (fabs(row->change) < REPORT_PROFILE_MIN_POINTS)
		return 0;
	row->tested = na >= 2 && nb >= 2;
	if (!row->tested)
		return 1;
	p = compare_welch_p(row->a, na, row->b, nb);
	return isnan(p) || p < 0.05;
}

static void
report_profile_add(struct report_profile_row **rows, size_t *nr,
    size_t *alloc, const char *metric)
{
	size_t	i;

	for (i = 0; i < *nr; i++) {
		if (strcmp((*rows)[i].metric, metric) == 0)
			return;
	}
	ALLOC_GROW(*rows, *nr + 1, *alloc);
	memset(&(*rows)[*nr], 0, sizeof (*rows)[*nr]);
	(*rows)[(*nr)++].metric = metric;
}

int
report_profile(struct strbuf *sb, const char *label_a, const char *label_b,
    const struct store_series *a, size_t nr_a, const struct store_series *b,
    size_t nr_b)
{
	struct report_profile_row	*rows = NULL;
	struct summary			 sa, sb_;
	size_t				 runs_a, runs_b, nr = 0, alloc = 0;
	size_t				 i, kept = 0, shown;
	char				 va[32], vb[32], pa[16], pb[16];

	runs_a = report_profile_runs(a, nr_a);
	runs_b = report_profile_runs(b, nr_b);
	if (runs_a == 0 || runs_b == 0)
		return 0;
	for (i = 0; i < nr_a; i++) {
		if (report_profile_is(a[i].metric))
			report_profile_add(&rows, &nr, &alloc, a[i].metric);
	}
	for (i = 0; i < nr_b; i++) {
		if (report_profile_is(b[i].metric))
			report_profile_add(&rows, &nr, &alloc, b[i].metric);
	}
	for (i = 0; i < nr; i++) {
		rows[i].a = report_profile_values(a, nr_a, rows[i].metric,
		    runs_a);
		rows[i].b = report_profile_values(b, nr_b, rows[i].metric,
		    runs_b);
		rows[i].change = report_profile_mean(rows[i].b, runs_b) -
		    report_profile_mean(rows[i].a, runs_a);
		if (report_profile_moved(&rows[i], runs_a, runs_b)) {
			if (kept != i) {
				struct report_profile_row t = rows[kept];

				rows[kept] = rows[i];
				rows[i] = t;
			}
			kept++;
		}
	}
	qsort(rows, kept, sizeof *rows, report_profile_cmp);
	strbuf_addstr(sb, "perf-profile (the rows that moved most, in points "
	    "of the samples):\n\n");
	strbuf_addf(sb, "%16.16s %27.27s\n", label_a, label_b);
	strbuf_addstr(sb, "---------------- ---------------------------\n");
	strbuf_addstr(sb, "         %stddev     %change         %stddev\n");
	strbuf_addstr(sb, "             \\          |                \\\n");
	for (i = 0, shown = 0; i < kept && shown < REPORT_PROFILE_MAX_ROWS;
	    i++, shown++) {
		summary_compute(&sa, rows[i].a, runs_a);
		summary_compute(&sb_, rows[i].b, runs_b);
		report_compare_value(va, sizeof va, sa.mean);
		report_compare_value(vb, sizeof vb, sb_.mean);
		report_compare_pct(pa, sizeof pa, sa.stddev_pct);
		report_compare_pct(pb, sizeof pb, sb_.stddev_pct);
		/* never sampled on a side: no spread to show */
		if (sa.mean == 0)
			snprintf(pa, sizeof pa, "%5s", "");
		if (sb_.mean == 0)
			snprintf(pb, sizeof pb, "%5s", "");
		strbuf_addf(sb, "%10s %s %+10.1f %10s %s  %s%s\n", va, pa,
		    rows[i].change, vb, pb, rows[i].metric, rows[i].tested ?
		    "" : " (too few samples)");
	}
	if (kept == 0)
		strbuf_addstr(sb, "(none moved)\n");
	strbuf_addf(sb, "(%zu perf-profile rows compared, %zu moved: by %g "
	    "point%s or more and Welch's test\n below 5%%; a row absent "
	    "from a run counts 0 there%s)\n", nr, kept,
	    REPORT_PROFILE_MIN_POINTS, REPORT_PROFILE_MIN_POINTS == 1 ? "" :
	    "s", kept > REPORT_PROFILE_MAX_ROWS ?
	    "; the largest shown" : "");
	for (i = 0; i < nr; i++) {
		free(rows[i].a);
		free(rows[i].b);
	}
	free(rows);
	return 1;
}
