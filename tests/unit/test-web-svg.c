/*
 * The plot's markers never hide each other (bisectd/svg.c): a bisection's
 * tested commits two apart in a range of 300, the culprit next to its
 * parent at nearly the same level, are drawn apart with a line back to
 * where each belongs; a long series gets markers sized to its step. The
 * hover text rounds as the compare table does.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/web.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct circle {
	double	x, y, r;
};

static size_t
circles(const char *svg, struct circle *out, size_t max)
{
	regex_t		re;
	regmatch_t	m[4];
	const char	*p = svg;
	size_t		n = 0;

	regcomp(&re, "<circle cx=\"([0-9.]+)\" cy=\"([0-9.]+)\" r=\"([0-9.]+)\"[^>]*><title>",
	    REG_EXTENDED);
	while (n < max && regexec(&re, p, 4, m, 0) == 0) {
		out[n].x = strtod(p + m[1].rm_so, NULL);
		out[n].y = strtod(p + m[2].rm_so, NULL);
		out[n].r = strtod(p + m[3].rm_so, NULL);
		n++;
		p += m[0].rm_eo;
	}
	regfree(&re);
	return n;
}

static int
apart(const struct circle *c, size_t n, double *worst)
{
	size_t	i, j;
	double	d;
	int	ok = 1;

	*worst = INFINITY;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			d = hypot(c[i].x - c[j].x, c[i].y - c[j].y) -
			    c[i].r - c[j].r;
			if (d < *worst)
				*worst = d;
			if (d < 0)
				ok = 0;
		}
	}
	return ok;
}

static void
test_bisection(void)
{
	static const double	xs[] = { 0, 150, 225, 187, 206, 215, 210, 212,
					  211, 213, 300 };
	struct web_point	p[11];
	struct web_plot		plot;
	struct circle		c[32];
	struct strbuf		sb = STRBUF_INIT;
	char			names[11][41];
	size_t			i, n;
	double			worst = 0;

	memset(&plot, 0, sizeof plot);
	for (i = 0; i < 11; i++) {
		snprintf(names[i], sizeof names[i], "%040zu", i);
		memset(&p[i], 0, sizeof p[i]);
		p[i].oid = names[i];
		p[i].x = xs[i];
		p[i].mean = xs[i] <= 211 ? 1000 + (double)(i % 3) :
		    960 + (double)(i % 2);
		p[i].stddev = 8;
		p[i].n = 5;
		p[i].verdict = xs[i] <= 211 ? 'g' : 'b';
	}
	/* in x order, as the page gives them */
	for (i = 0; i < 11; i++) {
		size_t	j, k = i;

		for (j = i + 1; j < 11; j++)
			if (p[j].x < p[k].x)
				k = j;
		if (k != i) {
			struct web_point t = p[i];

			p[i] = p[k];
			p[k] = t;
		}
	}
	plot.metric = "bench.ops";
	plot.points = p;
	plot.nr = 11;
	plot.x_max = 300;
	plot.culprit = names[9];
	svg_plot(&sb, &plot);
	n = circles(sb.buf, c, 32);
	is_int((int)n, 11, "a marker per tested commit");
	ok(apart(c, n, &worst), "no two markers touch (closest gap %.1f px)",
	    worst);
	ok(strstr(sb.buf, "class=\"nudge\"") != NULL, "a moved marker has its "
	    "line back to its commit");
	for (i = 0; i < n; i++)
		if (c[i].x > 960 - 32 + 8 + 6)
			break;
	ok(i == n, "every marker stays inside the plot");
	ok(strstr(sb.buf, "mean 1000 ±  1% (n = 5)") != NULL ||
	    strstr(sb.buf, "mean 1001 ±  1% (n = 5)") != NULL,
	    "the hover text rounds as the compare table does");
	strbuf_release(&sb);
}

static void
test_series(void)
{
	enum { N = 300 };
	struct web_point	*p = xcalloc(N, sizeof *p);
	struct web_plot		 plot;
	struct circle		*c = xcalloc(N + 1, sizeof *c);
	struct strbuf		 sb = STRBUF_INIT;
	size_t			 i, n, overlaps = 0;

	memset(&plot, 0, sizeof plot);
	for (i = 0; i < N; i++) {
		p[i].oid = "0123456789abcdef0123456789abcdef01234567";
		p[i].x = (double)i;
		p[i].mean = 100;
		p[i].n = 3;
		p[i].verdict = 't';
	}
	plot.metric = "bench.ops";
	plot.points = p;
	plot.nr = N;
	plot.x_max = N - 1;
	plot.x_label = "commit";
	svg_plot(&sb, &plot);
	n = circles(sb.buf, c, N + 1);
	is_int((int)n, N, "a marker per commit of the series");
	for (i = 1; i < n; i++)
		if (c[i].x - c[i - 1].x < c[i].r + c[i - 1].r)
			overlaps++;
	is_int((int)overlaps, 0, "300 commits at one level: markers sized to "
	    "the step (r = %.2f)", n ? c[0].r : 0);
	strbuf_release(&sb);
	free(p);
	free(c);
}

int
main(void)
{
	test_bisection();
	test_series();
	return tap_done();
}
