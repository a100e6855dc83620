/*
 * The LKP compare table between two commits' series (bisectd/report.h):
 * the headline metric first, each value with its ±, the other metrics that
 * changed under Benjamini-Hochberg, as text or JSON; changes are estimated
 * within machines when the runs were spread over several.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/report.h"
#include "jobs/job.h"
#include "jobs/metric.h"
#include "stats/compare.h"
#include "stats/fdr.h"
#include "stats/summary.h"
#include "util/xalloc.h"

void
report_compare_value(char *buf, size_t len, double v)
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

/*
 * Number the agents of both series alike: blocks[i] for values[i], a
 * value whose agent is unknown being an agent of its own kind.
 */
static size_t *
report_compare_blocks(const struct store_series *s, const char ***names,
    size_t *nr_names)
{
	size_t		*blocks = xcalloc(s->nr + 1, sizeof *blocks);
	const char	*agent;
	size_t		 i, k;

	for (i = 0; i < s->nr; i++) {
		agent = s->agents != NULL && s->agents[i] != NULL ?
		    s->agents[i] : "";
		for (k = 0; k < *nr_names; k++) {
			if (strcmp((*names)[k], agent) == 0)
				break;
		}
		if (k == *nr_names) {
			*names = xreallocarray(*names, *nr_names + 1,
			    sizeof **names);
			(*names)[(*nr_names)++] = agent;
		}
		blocks[i] = k;
	}
	return blocks;
}

int
report_compare(struct comparison *cmp, const struct store_series *a,
    const struct store_series *b)
{
	const struct metric_info	*mi = metric_lookup(a->metric);
	struct compare_opts		 opts;
	struct summary			 sa, sb;
	const char			**names = NULL;
	size_t				 nr_names = 0, *ba, *bb;
	int				 r;

	memset(&opts, 0, sizeof opts);
	opts.min_effect_pct = mi->min_effect_pct;
	opts.direction = mi->direction == JOB_DIRECTION_HIGHER ? 1 :
	    mi->direction == JOB_DIRECTION_LOWER ? -1 : 0;
	ba = report_compare_blocks(a, &names, &nr_names);
	bb = report_compare_blocks(b, &names, &nr_names);
	r = compare_blocked(cmp, a->values, ba, a->nr, b->values, bb, b->nr,
	    &opts);
	free(ba);
	free(bb);
	free(names);
	if (r == 0)
		return 0;
	memset(cmp, 0, sizeof *cmp);
	summary_compute(&sa, a->values, a->nr);
	summary_compute(&sb, b->values, b->nr);
	cmp->change_pct = sa.mean != 0 ? 100 * (sb.mean - sa.mean) /
	    fabs(sa.mean) : NAN;
	return -1;
}

struct report_row {
	const struct store_series	*a;
	const struct store_series	*b;
	struct comparison		 cmp;
	int				 valid;
	int				 headline;
	int				 sig;	/* shown as a change */
	double				 q;	/* BH-adjusted p */
};

/*
 * Metrics that are themselves percentages (proc-stat.cpu.idle%,
 * perf-profile.*): their change is in points, b - a, as LKP prints it,
 * not a relative change of a percentage.
 */
int
report_compare_metric_is_pct(const char *metric)
{
	size_t	len = strlen(metric);

	return (len > 0 && metric[len - 1] == '%') ||
	    strncmp(metric, "perf-profile.", 13) == 0;
}

static int
report_compare_row_cmp(const void *x, const void *y)
{
	const struct report_row	*a = x, *b = y;
	double			 da, db;

	if (a->headline != b->headline)
		return b->headline - a->headline;
	if (a->sig != b->sig)
		return b->sig - a->sig;
	da = isfinite(a->cmp.change_pct) ? fabs(a->cmp.change_pct) : 0;
	db = isfinite(b->cmp.change_pct) ? fabs(b->cmp.change_pct) : 0;
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->a->metric, b->a->metric);
}

/*
 * LKP's "±  3%", "± 13%", "±100%": five columns whatever the spread, so
 * that the table holds its place; "±  ?%" where one sample leaves it
 * unknown, "±>1k%" past 999%.
 */
void
report_compare_pct(char *buf, size_t len, double x)
{
	if (!isfinite(x))
		snprintf(buf, len, "±  ?%%");
	else if (lround(x) > 999)
		snprintf(buf, len, "±>1k%%");
	else
		snprintf(buf, len, "±%3ld%%", lround(x));
}

/*
 * The change column: "-3.0%", or "+1.2" in points for a percentage
 * metric; in parentheses when it is not significant (shown only with
 * all).
 */
static void
report_compare_change(char *buf, size_t len, const struct report_row *row)
{
	double	v = row->cmp.change_pct;
	int	pts = report_compare_metric_is_pct(row->a->metric);
	char	num[32];

	if (!isfinite(v)) {
		buf[0] = '\0';
		return;
	}
	if (pts)
		v = v * fabs(row->cmp.mean_a) / 100;
	snprintf(num, sizeof num, pts ? "%+.1f" : "%+.1f%%", v);
	if (row->sig || row->headline)
		snprintf(buf, len, "%s", num);
	else
		snprintf(buf, len, "(%s)", num);
}

/*
 * The rows of a compare table, in the table's order, with each row's test
 * and whether it shows as a change: the headline is the one test the user
 * asked for; every other row is one of many, and shows as a change only
 * when it survives Benjamini-Hochberg at REPORT_FDR over all of them
 * (docs/reports.md). *tested counts those others.
 */
static struct report_row *
report_compare_rows(const struct store_series *a, size_t nr_a,
    const struct store_series *b, size_t nr_b, const char *headline,
    size_t *nr, size_t *tested)
{
	struct report_row	*rows = xcalloc(nr_a + 1, sizeof *rows);
	size_t			 i, j, n = 0;
	double			*p, *q;

	*tested = 0;
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
		rows[n].valid = report_compare(&rows[n].cmp, &a[i],
		    &b[j]) == 0;
		n++;
	}
	p = xcalloc(n + 1, sizeof *p);
	q = xcalloc(n + 1, sizeof *q);
	for (i = 0; i < n; i++) {
		p[i] = rows[i].valid && !rows[i].headline &&
		    isfinite(rows[i].cmp.p_value) ? rows[i].cmp.p_value : NAN;
		*tested += !isnan(p[i]);
	}
	fdr_bh(q, p, n);
	for (i = 0; i < n; i++) {
		rows[i].q = q[i];
		rows[i].sig = rows[i].valid && rows[i].cmp.significant &&
		    (rows[i].headline || (!isnan(q[i]) && q[i] <=
		    REPORT_FDR));
	}
	free(p);
	free(q);
	qsort(rows, n, sizeof *rows, report_compare_row_cmp);
	*nr = n;
	return rows;
}

static json_t *
report_compare_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *
report_compare_json(const char *oid_a, const char *oid_b,
    const struct store_series *a, size_t nr_a, const struct store_series *b,
    size_t nr_b, const char *headline, int all)
{
	struct report_row	*rows;
	struct summary		 sa, sb_;
	size_t			 i, n, tested;
	json_t			*o, *arr = json_array(), *row;
	double			 pts;

	rows = report_compare_rows(a, nr_a, b, nr_b, headline, &n, &tested);
	for (i = 0; i < n; i++) {
		if (!all && !rows[i].headline && !rows[i].sig)
			continue;
		summary_compute(&sa, rows[i].a->values, rows[i].a->nr);
		summary_compute(&sb_, rows[i].b->values, rows[i].b->nr);
		row = json_pack("{s:s, s:b, s:b, s:{s:o, s:o, s:I}, "
		    "s:{s:o, s:o, s:I}}", "metric", rows[i].a->metric,
		    "headline", rows[i].headline, "significant", rows[i].sig,
		    "a", "mean", report_compare_real(sa.mean), "stddev_pct",
		    report_compare_real(sa.stddev_pct), "n", (json_int_t)sa.n,
		    "b", "mean", report_compare_real(sb_.mean), "stddev_pct",
		    report_compare_real(sb_.stddev_pct), "n",
		    (json_int_t)sb_.n);
		json_object_set_new(row, "change_pct",
		    report_compare_real(rows[i].cmp.change_pct));
		if (report_compare_metric_is_pct(rows[i].a->metric)) {
			pts = rows[i].cmp.change_pct *
			    fabs(rows[i].cmp.mean_a) / 100;
			json_object_set_new(row, "change_points",
			    report_compare_real(pts));
		}
		json_object_set_new(row, "p_value", rows[i].valid ?
		    report_compare_real(rows[i].cmp.p_value) : json_null());
		json_object_set_new(row, "q_value",
		    report_compare_real(rows[i].q));
		if (rows[i].cmp.blocks > 1)
			json_object_set_new(row, "machines",
			    json_integer(rows[i].cmp.blocks));
		json_array_append_new(arr, row);
	}
	o = json_pack("{s:s, s:s, s:I, s:f, s:o}", "a", oid_a, "b", oid_b,
	    "tested", (json_int_t)tested, "fdr", REPORT_FDR, "rows", arr);
	free(rows);
	return o;
}

void
report_compare_table(struct strbuf *sb, const char *label_a,
    const char *label_b, const struct store_series *a, size_t nr_a,
    const struct store_series *b, size_t nr_b, const char *headline, int all)
{
	struct report_row	*rows;
	struct summary		 sa, sb_;
	size_t			 i, n = 0, tested = 0, shown = 0, hidden = 0;
	unsigned		 blocks = 0;
	char			 va[32], vb[32], change[48];
	char			 pa[16], pb[16];

	rows = report_compare_rows(a, nr_a, b, nr_b, headline, &n, &tested);
	strbuf_addf(sb, "%16.16s %27.27s\n", label_a, label_b);
	strbuf_addstr(sb, "---------------- ---------------------------\n");
	strbuf_addstr(sb, "         %stddev     %change         %stddev\n");
	strbuf_addstr(sb, "             \\          |                \\\n");
	for (i = 0; i < n; i++) {
		if (!all && !rows[i].headline && !rows[i].sig) {
			hidden++;
			continue;
		}
		shown++;
		summary_compute(&sa, rows[i].a->values, rows[i].a->nr);
		summary_compute(&sb_, rows[i].b->values, rows[i].b->nr);
		report_compare_value(va, sizeof va, sa.mean);
		report_compare_value(vb, sizeof vb, sb_.mean);
		report_compare_change(change, sizeof change, &rows[i]);
		report_compare_pct(pa, sizeof pa, sa.stddev_pct);
		report_compare_pct(pb, sizeof pb, sb_.stddev_pct);
		strbuf_addf(sb, "%10s %s %10s %10s %s  %s%s\n", va, pa, change,
		    vb, pb, rows[i].a->metric, rows[i].valid ? "" :
		    " (too few samples)");
		if (rows[i].cmp.blocks > blocks)
			blocks = rows[i].cmp.blocks;
	}
	/* the change is not the means' when machine shares differ */
	if (blocks > 1)
		strbuf_addf(sb, "(the runs were spread over %u test machines: "
		    "changes and tests are within each machine)\n", blocks);
	/* prose, but each line short and the rest indented, as a table's */
	if (tested > 0) {
		strbuf_addf(sb, "(%zu other metric%s tested: a change is shown "
		    "where it passes its own\n test, the metric's minimum "
		    "effect and Benjamini-Hochberg at %g%% false\n "
		    "discoveries", tested, tested == 1 ? "" : "s",
		    100 * REPORT_FDR);
		if (all)
			strbuf_addstr(sb, "; (+x%) is not significant");
		else if (hidden > 0)
			strbuf_addstr(sb, "; the rest are left out, see --all");
		strbuf_addstr(sb, ")\n");
	}
	free(rows);
}
