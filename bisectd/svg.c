/*
 * The web report's plot, an inline SVG written by hand: the headline
 * metric's mean at each tested commit with its ± band, each point coloured
 * by its verdict and the culprit marked; the index draws a tracked series
 * the same way. Every label is escaped (docs/design.md, "File notes").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/report.h"
#include "bisectd/web.h"
#include "util/xalloc.h"

#define SVG_W		960
#define SVG_H		400
#define SVG_LEFT	96
#define SVG_RIGHT	32
#define SVG_TOP		36
#define SVG_BOTTOM	72

#define SVG_LINE	"#1f77b4"	/* the means, and their band */
#define SVG_GOOD	"#2ca02c"
#define SVG_BAD		"#d62728"
#define SVG_SKIP	"#7f7f7f"
#define SVG_REVERT	"#9467bd"
#define SVG_CHANGE	"#ff7f0e"	/* a change point */
#define SVG_TESTED	"#1f77b4"

struct svg_scale {
	double	x0, x1, y0, y1;
};

static double
svg_x(const struct svg_scale *s, double x)
{
	double	w = SVG_W - SVG_LEFT - SVG_RIGHT;

	return SVG_LEFT + (x - s->x0) / (s->x1 - s->x0) * w;
}

static double
svg_y(const struct svg_scale *s, double y)
{
	double	h = SVG_H - SVG_TOP - SVG_BOTTOM;

	return SVG_TOP + (s->y1 - y) / (s->y1 - s->y0) * h;
}

static double
svg_sd(const struct web_point *p)
{
	return isfinite(p->stddev) ? p->stddev : 0;
}

/* A tick step of 1, 2 or 5 times a power of ten, for about n ticks. */
static double
svg_step(double range, int n)
{
	double	raw = range / n, mag = pow(10, floor(log10(raw))), f;

	f = raw / mag;
	if (f <= 1)
		return mag;
	if (f <= 2)
		return 2 * mag;
	if (f <= 5)
		return 5 * mag;
	return 10 * mag;
}

static void
svg_number(char *buf, size_t len, double v, double step)
{
	int	decimals = step >= 1 ? 0 : (int)ceil(-log10(step));

	if (fabs(v) >= 1e7 || (v != 0 && fabs(v) < 1e-4))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.*f", decimals > 6 ? 6 : decimals, v);
}

static void
svg_axes(struct strbuf *sb, const struct svg_scale *s, const char *metric,
    const char *x_label)
{
	double	step = svg_step(s->y1 - s->y0, 7), v, y;
	char	num[64];

	for (v = ceil(s->y0 / step) * step; v <= s->y1 + step * 1e-9;
	    v += step) {
		y = svg_y(s, v);
		svg_number(num, sizeof num, v, step);
		strbuf_addf(sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		    "y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n<text x=\"%d\" "
		    "y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%s</text>\n",
		    SVG_LEFT, y, SVG_W - SVG_RIGHT, y, SVG_LEFT - 8, y + 4,
		    num);
	}
	strbuf_addf(sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#444\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#444\"/>\n", SVG_LEFT, SVG_TOP, SVG_LEFT,
	    SVG_H - SVG_BOTTOM, SVG_LEFT, SVG_H - SVG_BOTTOM, SVG_W - SVG_RIGHT,
	    SVG_H - SVG_BOTTOM);
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
	    "font-size=\"13\">", (SVG_LEFT + SVG_W - SVG_RIGHT) / 2, SVG_H - 14);
	web_escape(sb, x_label != NULL ? x_label :
	    "commits from the good end (topological order)");
	strbuf_addstr(sb, "</text>\n");
	strbuf_addf(sb, "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" "
	    "font-size=\"13\" transform=\"rotate(-90 18 %d)\">",
	    (SVG_TOP + SVG_H - SVG_BOTTOM) / 2,
	    (SVG_TOP + SVG_H - SVG_BOTTOM) / 2);
	web_escape(sb, metric);
	strbuf_addstr(sb, " (mean ± stddev)</text>\n");
}

/* The ± band: upper edge left to right, lower edge back. */
static void
svg_band(struct strbuf *sb, const struct svg_scale *s,
    const struct web_point *p, size_t nr)
{
	size_t	i;

	strbuf_addstr(sb, "<polygon fill=\"" SVG_LINE "\" fill-opacity=\"0.18\" "
	    "stroke=\"none\" points=\"");
	for (i = 0; i < nr; i++)
		strbuf_addf(sb, "%.1f,%.1f ", svg_x(s, p[i].x),
		    svg_y(s, p[i].mean + svg_sd(&p[i])));
	for (i = nr; i-- > 0;)
		strbuf_addf(sb, "%.1f,%.1f ", svg_x(s, p[i].x),
		    svg_y(s, p[i].mean - svg_sd(&p[i])));
	strbuf_addstr(sb, "\"/>\n");
}

/*
 * Where each marker goes so that none hides another: a marker that
 * would touch an earlier one at the same height moves right, by one
 * marker's width; when that runs past the plot the markers shrink (to
 * 1.5 px at least) and it is tried again. px[] gets the positions, the
 * radius is returned. Points come in x order.
 */
static double
svg_dodge(const struct svg_scale *s, const struct web_point *p, size_t nr,
    double *px)
{
	double	r = 5.5, d, right = SVG_W - SVG_RIGHT + 8, y;
	size_t	i, j;
	int	moved;

	for (;;) {
		d = 2 * r + 1.5;
		for (i = 0; i < nr; i++) {
			px[i] = svg_x(s, p[i].x);
			y = svg_y(s, p[i].mean);
			do {
				moved = 0;
				for (j = 0; j < i; j++) {
					if (fabs(px[j] - px[i]) < d &&
					    fabs(svg_y(s, p[j].mean) - y) < d) {
						px[i] = px[j] + d;
						moved = 1;
					}
				}
			} while (moved);
		}
		if (nr == 0 || px[nr - 1] <= right || r <= 1.5)
			return r;
		r = fmax(1.5, r * 0.75);
	}
}

/*
 * A series has a point at every tested commit of the branch, one step
 * apart: its markers are sized to the step instead of moved.
 */
static double
svg_series_radius(const struct svg_scale *s, const struct web_point *p,
    size_t nr, double *px)
{
	double	step = svg_x(s, s->x0 + 1) - svg_x(s, s->x0);
	size_t	i;

	for (i = 0; i < nr; i++)
		px[i] = svg_x(s, p[i].x);
	return fmax(0.75, fmin(5.5, (step - 0.5) / 2));
}

static void
svg_points(struct strbuf *sb, const struct svg_scale *s,
    const struct web_plot *plot)
{
	const struct web_point	*p = plot->points;
	const char		*fill, *verdict;
	size_t			 i, nr = plot->nr;
	double			 x, sd, r, *px = xcalloc(nr + 1, sizeof *px);
	char			 mean[32], spread[16];

	r = plot->x_label != NULL ? svg_series_radius(s, p, nr, px) :
	    svg_dodge(s, p, nr, px);
	strbuf_addstr(sb, "<polyline fill=\"none\" stroke=\"" SVG_LINE "\" "
	    "stroke-width=\"3\" stroke-linejoin=\"round\" points=\"");
	for (i = 0; i < nr; i++)
		strbuf_addf(sb, "%.1f,%.1f ", px[i], svg_y(s, p[i].mean));
	strbuf_addstr(sb, "\"/>\n");
	for (i = 0; i < nr; i++) {
		x = px[i];
		sd = svg_sd(&p[i]);
		fill = p[i].verdict == 'g' ? SVG_GOOD : p[i].verdict == 'b' ?
		    SVG_BAD : p[i].verdict == 't' ? SVG_TESTED : SVG_SKIP;
		verdict = p[i].verdict == 'g' ? "good" : p[i].verdict == 'b' ?
		    "bad" : p[i].verdict == 't' ? "tested" : "skip";
		/* a marker moved off its commit says where it belongs */
		if (x - svg_x(s, p[i].x) > 0.5)
			strbuf_addf(sb, "<line class=\"nudge\" x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
			    "stroke-width=\"1\"/>\n", svg_x(s, p[i].x),
			    svg_y(s, p[i].mean), x, svg_y(s, p[i].mean));
		if (sd > 0)
			strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" "
			    "x2=\"%.1f\" y2=\"%.1f\" stroke=\"" SVG_LINE "\" "
			    "stroke-width=\"1.5\"/>\n", x,
			    svg_y(s, p[i].mean + sd), x,
			    svg_y(s, p[i].mean - sd));
		strbuf_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.2f\" "
		    "fill=\"%s\" stroke=\"#fff\" stroke-width=\"%.2f\">"
		    "<title>", x, svg_y(s, p[i].mean), r, fill, fmin(1.5,
		    r / 2));
		strbuf_addf(sb, "%.12s ", p[i].oid);
		if (p[i].label != NULL)
			web_escape(sb, p[i].label);
		report_compare_value(mean, sizeof mean, p[i].mean);
		report_compare_pct(spread, sizeof spread, p[i].mean != 0 ?
		    100 * sd / fabs(p[i].mean) : NAN);
		strbuf_addf(sb, ": %s, mean %s %s (n = %zu)</title></circle>\n",
		    verdict, mean, spread, p[i].n);
	}
	free(px);
}

/* The culprit's dashed line, and the good and bad ends named. */
static void
svg_marks(struct strbuf *sb, const struct svg_scale *s,
    const struct web_plot *plot)
{
	size_t	i;
	double	x;
	int	base = SVG_H - SVG_BOTTOM, end;

	for (i = 0; i < plot->nr; i++) {
		x = svg_x(s, plot->points[i].x);
		end = plot->points[i].x == 0 ? 'g' :
		    plot->points[i].x == plot->x_max ? 'b' : 0;
		if (end != 0)
			strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\" "
			    "text-anchor=\"%s\" font-size=\"12\" "
			    "fill=\"%s\">%s %.10s</text>\n", x, base + 18,
			    end == 'g' ? "start" : "end",
			    end == 'g' ? SVG_GOOD : SVG_BAD,
			    end == 'g' ? "good" : "bad", plot->points[i].oid);
		if (plot->culprit == NULL ||
		    strcmp(plot->points[i].oid, plot->culprit) != 0)
			continue;
		strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
		    "y2=\"%d\" stroke=\"" SVG_BAD "\" stroke-width=\"2\" "
		    "stroke-dasharray=\"6 4\"/>\n<text x=\"%.1f\" y=\"%d\" "
		    "text-anchor=\"middle\" font-size=\"12\" font-weight=\"bold\" "
		    "fill=\"" SVG_BAD "\">culprit %.10s</text>\n", x, SVG_TOP,
		    x, base, x, SVG_TOP - 10, plot->points[i].oid);
	}
}

/*
 * A series' ends named by commit, and its marks: a change point as an
 * orange dashed line between the commits it separates, a culprit as a red
 * one at its commit, each labelled (and linked to its report) above.
 */
static void
svg_series_marks(struct strbuf *sb, const struct svg_scale *s,
    const struct web_plot *plot)
{
	const struct web_mark	*m;
	const char		*colour;
	size_t			 i, last = plot->nr - 1;
	double			 x;
	int			 base = SVG_H - SVG_BOTTOM, y, right;

	for (i = 0; i < plot->nr; i++) {
		if (i != 0 && i != last && !plot->points[i].base)
			continue;
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" "
		    "font-size=\"12\" fill=\"#444\">%s%.10s</text>\n",
		    svg_x(s, plot->points[i].x), base + 18 +
		    (plot->points[i].base && i != 0 && i != last ? 14 : 0),
		    i == 0 ? "start" : i == last ? "end" : "middle",
		    plot->points[i].base ? "base " : "", plot->points[i].oid);
	}
	for (i = 0; i < plot->nr_marks; i++) {
		m = &plot->marks[i];
		x = svg_x(s, m->x);
		colour = m->kind == 'x' ? SVG_BAD : SVG_CHANGE;
		y = m->kind == 'x' ? SVG_TOP - 10 : SVG_TOP + 14 + 14 * (i % 2);
		strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
		    "y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" "
		    "stroke-dasharray=\"%s\"/>\n", x, SVG_TOP, x, base, colour,
		    m->kind == 'x' ? "6 4" : "3 3");
		if (m->href != NULL) {
			strbuf_addstr(sb, "<a href=\"");
			web_escape(sb, m->href);
			strbuf_addstr(sb, "\">");
		}
		/*
		 * A culprit's label reads right of its line, a change
		 * point's left of it (the culprit is the commit after it),
		 * unless that would leave the plot.
		 */
		right = m->kind == 'x' ? x < SVG_W * 0.7 : x < SVG_W * 0.3;
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" "
		    "font-size=\"12\" font-weight=\"bold\" fill=\"%s\">",
		    right ? x + 4 : x - 4, y, right ? "start" : "end", colour);
		web_escape(sb, m->text);
		strbuf_addstr(sb, "</text>");
		if (m->href != NULL)
			strbuf_addstr(sb, "</a>");
		strbuf_addch(sb, '\n');
	}
}

/* The revert check: a diamond right of the bad end, joined to it. */
static void
svg_revert(struct strbuf *sb, const struct svg_scale *s,
    const struct web_plot *plot)
{
	char			 mean[32], spread[16];
	const struct web_point	*rv = plot->revert;
	const struct web_point	*bad = NULL;
	double			 x = svg_x(s, rv->x), y = svg_y(s, rv->mean);
	double			 sd = svg_sd(rv);
	size_t			 i;

	for (i = 0; i < plot->nr; i++) {
		if (plot->points[i].x == plot->x_max)
			bad = &plot->points[i];
	}
	if (bad != NULL)
		strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"" SVG_REVERT "\" stroke-width=\"2\" "
		    "stroke-dasharray=\"4 3\"/>\n", svg_x(s, bad->x),
		    svg_y(s, bad->mean), x, y);
	if (sd > 0)
		strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"" SVG_REVERT "\" "
		    "stroke-width=\"1.5\"/>\n", x, svg_y(s, rv->mean + sd), x,
		    svg_y(s, rv->mean - sd));
	report_compare_value(mean, sizeof mean, rv->mean);
	report_compare_pct(spread, sizeof spread, rv->mean != 0 ?
	    100 * sd / fabs(rv->mean) : NAN);
	strbuf_addf(sb, "<path d=\"M%.1f %.1fl7 7l-7 7l-7 -7z\" fill=\""
	    SVG_REVERT "\" stroke=\"#fff\" stroke-width=\"1.5\"><title>"
	    "%.12s the culprit reverted on top of bad: mean %s %s "
	    "(n = %zu)</title></path>\n<text x=\"%.1f\" y=\"%d\" "
	    "text-anchor=\"end\" font-size=\"12\" fill=\"" SVG_REVERT "\">"
	    "revert</text>\n", x, y - 7, rv->oid, mean, spread, rv->n, x,
	    SVG_H - SVG_BOTTOM + 34);
}

static void
svg_series_legend(struct strbuf *sb)
{
	int	y = SVG_H - 34, x = SVG_W - SVG_RIGHT - 430;

	strbuf_addf(sb, "<g font-size=\"12\">"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" SVG_LINE
	    "\" stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">mean</text>"
	    "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"10\" fill=\""
	    SVG_LINE "\" fill-opacity=\"0.18\"/>"
	    "<text x=\"%d\" y=\"%d\">± 1 stddev</text>"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" SVG_CHANGE
	    "\" stroke-width=\"2\" stroke-dasharray=\"3 3\"/>"
	    "<text x=\"%d\" y=\"%d\">change point</text>"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" SVG_BAD
	    "\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>"
	    "<text x=\"%d\" y=\"%d\">culprit</text></g>\n",
	    x, y, x + 22, y, x + 28, y + 4,
	    x + 80, y - 5, x + 108, y + 4,
	    x + 190, y, x + 212, y, x + 218, y + 4,
	    x + 320, y, x + 342, y, x + 348, y + 4);
}

static void
svg_legend(struct strbuf *sb)
{
	int	y = SVG_H - 34, x = SVG_W - SVG_RIGHT - 400;

	strbuf_addf(sb, "<g font-size=\"12\">"
	    "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"" SVG_GOOD "\"/>"
	    "<text x=\"%d\" y=\"%d\">good</text>"
	    "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"" SVG_BAD "\"/>"
	    "<text x=\"%d\" y=\"%d\">bad</text>"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" SVG_LINE
	    "\" stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">mean</text>"
	    "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"10\" fill=\""
	    SVG_LINE "\" fill-opacity=\"0.18\"/>"
	    "<text x=\"%d\" y=\"%d\">± 1 stddev</text></g>\n",
	    x, y, x + 9, y + 4, x + 60, y, x + 69, y + 4, x + 110, y, x + 132, y,
	    x + 138, y + 4, x + 190, y - 5, x + 218, y + 4);
}

void
svg_plot(struct strbuf *sb, const struct web_plot *plot)
{
	struct svg_scale	s;
	size_t			i;
	double			lo = INFINITY, hi = -INFINITY, pad;

	for (i = 0; i < plot->nr; i++) {
		lo = fmin(lo, plot->points[i].mean - svg_sd(&plot->points[i]));
		hi = fmax(hi, plot->points[i].mean + svg_sd(&plot->points[i]));
	}
	if (plot->revert != NULL && isfinite(plot->revert->mean)) {
		lo = fmin(lo, plot->revert->mean - svg_sd(plot->revert));
		hi = fmax(hi, plot->revert->mean + svg_sd(plot->revert));
	}
	if (plot->nr == 0 || !isfinite(lo) || !isfinite(hi)) {
		strbuf_addstr(sb, "<p>No tested commit to plot.</p>\n");
		return;
	}
	if (hi - lo < 1e-9 * fmax(1, fabs(hi))) {
		pad = fmax(fabs(hi) * 0.01, 1e-9);
		lo -= pad;
		hi += pad;
	}
	pad = (hi - lo) * 0.08;
	s.y0 = lo - pad;
	s.y1 = hi + pad;
	s.x0 = plot->x_min;
	s.x1 = plot->x_max > plot->x_min ? plot->x_max : plot->x_min + 1;
	if (plot->revert != NULL)
		s.x1 = fmax(s.x1, plot->revert->x);
	strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
	    "class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "font-family=\"sans-serif\" role=\"img\"><title>", SVG_W, SVG_H,
	    SVG_W, SVG_H);
	web_escape(sb, plot->metric);
	strbuf_addstr(sb, plot->x_label != NULL ? " along the branch" :
	    " at each tested commit");
	strbuf_addstr(sb, "</title>\n"
	    "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
	svg_axes(sb, &s, plot->metric, plot->x_label);
	svg_band(sb, &s, plot->points, plot->nr);
	if (plot->x_label != NULL)
		svg_series_marks(sb, &s, plot);
	else
		svg_marks(sb, &s, plot);
	svg_points(sb, &s, plot);
	if (plot->revert != NULL && isfinite(plot->revert->mean))
		svg_revert(sb, &s, plot);
	if (plot->x_label != NULL)
		svg_series_legend(sb);
	else
		svg_legend(sb);
	strbuf_addstr(sb, "</svg>\n");
}
