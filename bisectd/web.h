/*
 * The static web report: one self-contained HTML page per bisection
 * (report-ID.html: the text report's sections, laid out, and an inline SVG
 * plot of the headline metric over the tested commits) and an index of
 * every report (index.html). No script, no font, nothing from the network;
 * a Content-Security-Policy says so to the browser too. Every text from a
 * commit or a job is escaped.
 */
#ifndef BISECTD_WEB_H
#define BISECTD_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "bisectd/context.h"
#include "util/strbuf.h"

/* One tested commit in the plot, in topological order (good end first). */
struct web_point {
	const char	*oid;
	const char	*label;		/* e.g. "commit 37 (culprit)"; NULL */
	double		 x;		/* position in the range */
	double		 mean;
	double		 stddev;	/* NaN or 0 with one sample */
	size_t		 n;
	int		 verdict;	/* 'g', 'b', 's' */
};

struct web_plot {
	const char		*metric;
	const struct web_point	*points;
	size_t			 nr;
	double			 x_max;		/* the bad end's position */
	const char		*culprit;	/* oid or NULL */
	/* the culprit reverted on top of the bad end, drawn right of it */
	const struct web_point	*revert;	/* NULL: no revert check */
};

/* Text escaped for HTML element content and attribute values. */
void	 web_escape(struct strbuf *, const char *);
/* The plot as an inline <svg> element (bisectd/svg.c). */
void	 web_svg_plot(struct strbuf *, const struct web_plot *);
/*
 * Write DIR/report-ID.html for a concluded bisection with a culprit and
 * regenerate DIR/index.html. *path is the report page.
 */
int	 web_write(struct context *, int64_t id, const char *dir, char **path,
	     char **cause);

#endif
