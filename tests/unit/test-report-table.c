/*
 * The compare table (bisectd/report-compare.c) on series made here: LKP's
 * sub-header, the ± column at five characters whatever the spread, points
 * for percentage metrics, and the "other metrics" held to a false
 * discovery rate: among 300 metrics of pure noise, a row that clears 5%
 * on its own is not shown, while a metric that really moved is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/report.h"
#include "stats/rng.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define N	8

static void
series_make(struct store_series *s, const char *metric, struct rng *r,
    double mean, double sd)
{
	size_t	i;

	memset(s, 0, sizeof *s);
	s->metric = xstrdup(metric);
	s->values = xcalloc(N, sizeof *s->values);
	s->nr = N;
	for (i = 0; i < N; i++)
		s->values[i] = mean + sd * rng_normal(r);
}

static void
series_free(struct store_series *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(s[i].metric);
		free(s[i].values);
	}
	free(s);
}

static const char *
line_of(const char *text, const char *metric)
{
	static char	 buf[512];
	const char	*p = text, *nl;
	size_t		 len = strlen(metric);

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if ((size_t)(nl - p) > len && strncmp(nl - len, metric,
		    len) == 0 && nl[-len - 1] == ' ') {
			snprintf(buf, sizeof buf, "%.*s", (int)(nl - p), p);
			return buf;
		}
		p = *nl ? nl + 1 : nl;
	}
	return NULL;
}

static void
test_layout(void)
{
	struct rng		 r;
	struct store_series	*a = xcalloc(3, sizeof *a);
	struct store_series	*b = xcalloc(3, sizeof *b);
	struct strbuf		 sb = STRBUF_INIT;
	const char		*l;

	rng_seed(&r, 1);
	series_make(&a[0], "bench.ops", &r, 1000, 0.01);
	series_make(&b[0], "bench.ops", &r, 900, 0.01);
	series_make(&a[1], "proc-stat.cpu.idle%", &r, 50, 0.001);
	series_make(&b[1], "proc-stat.cpu.idle%", &r, 40, 0.001);
	series_make(&a[2], "bench.wild", &r, 10, 14);
	series_make(&b[2], "bench.wild", &r, 10, 14);
	report_compare_table(&sb, "aaaa", "bbbb", a, 3, b, 3, "bench.ops", 1);
	ok(strstr(sb.buf, "\n         %stddev     %change         %stddev\n"
	    "             \\          |                \\\n") != NULL,
	    "LKP's sub-header under the dashes");
	l = line_of(sb.buf, "bench.ops");
	ok(l != NULL && strstr(l, "-10.0%") != NULL, "the headline's change "
	    "in %%: %s", l ? l : "(none)");
	l = line_of(sb.buf, "proc-stat.cpu.idle%");
	ok(l != NULL && strstr(l, " -10.0 ") != NULL && strstr(l, "-10.0%") ==
	    NULL && strstr(l, "-20.0") == NULL, "a percentage metric changes in "
	    "points, not relative %%: %s", l ? l : "(none)");
	l = line_of(sb.buf, "bench.wild");
	ok(l != NULL && strstr(l, "±") != NULL &&
	    (strstr(l, "±1") != NULL || strstr(l, "± ") != NULL),
	    "a wide spread keeps the column: %s", l ? l : "(none)");
	ok(l != NULL && (size_t)(strstr(l, "±") - l) ==
	    (size_t)(strstr(line_of(sb.buf, "bench.ops"), "±") -
	    line_of(sb.buf, "bench.ops")), "the ± column does not move");
	strbuf_release(&sb);
	series_free(a, 3);
	series_free(b, 3);
}

static void
test_false_discoveries(void)
{
	enum { M = 300 };
	struct rng		 r;
	struct store_series	*a = xcalloc(M + 1, sizeof *a);
	struct store_series	*b = xcalloc(M + 1, sizeof *b);
	struct strbuf		 sb = STRBUF_INIT, all = STRBUF_INIT;
	struct comparison	 cmp;
	char			 name[64];
	size_t			 i, lucky = 0, shown = 0;
	const char		*p;

	rng_seed(&r, 7);
	series_make(&a[0], "bench.ops", &r, 1000, 5);
	series_make(&b[0], "bench.ops", &r, 900, 5);
	for (i = 1; i < M; i++) {
		snprintf(name, sizeof name, "noise.m%03zu", i);
		series_make(&a[i], name, &r, 100, 10);
		series_make(&b[i], name, &r, 100, 10);
		if (report_compare(&cmp, &a[i], &b[i]) == 0 && cmp.significant)
			lucky++;
	}
	series_make(&a[M], "real.moved", &r, 100, 1);
	series_make(&b[M], "real.moved", &r, 130, 1);
	report_compare_table(&sb, "aaaa", "bbbb", a, M + 1, b, M + 1,
	    "bench.ops", 0);
	report_compare_table(&all, "aaaa", "bbbb", a, M + 1, b, M + 1,
	    "bench.ops", 1);
	for (p = sb.buf; (p = strstr(p, "noise.m")) != NULL; p++)
		shown++;
	ok(lucky > 0, "some noise rows clear 5%% and the minimum effect on "
	    "their own (%zu of %d)", lucky, M - 1);
	is_int((int)shown, 0, "none of them is shown as a change");
	ok(line_of(sb.buf, "real.moved") != NULL, "the metric that moved is");
	ok(line_of(sb.buf, "bench.ops") != NULL, "and the headline");
	ok(strstr(sb.buf, "300 other metrics tested:") != NULL &&
	    strstr(sb.buf, "see --all") != NULL, "the footer says how many "
	    "were tested and where the rest are");
	ok(line_of(all.buf, "noise.m001") != NULL &&
	    strstr(line_of(all.buf, "noise.m001"), "(") != NULL,
	    "with all, a noise row shows with its change in parentheses");
	strbuf_release(&sb);
	strbuf_release(&all);
	series_free(a, M + 1);
	series_free(b, M + 1);
}

int
main(void)
{
	test_layout();
	test_false_discoveries();
	return tap_done();
}
