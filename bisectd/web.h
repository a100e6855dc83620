/*
 * The static web report: one self-contained HTML page per bisection
 * (report-ID.html: the text report's sections, laid out, and an inline SVG
 * plot of the headline metric over the tested commits) and an index of
 * every report and every tracked series (index.html). No script, no
 * font, nothing from the network; a Content-Security-Policy says so to the
 * browser too. Every text from a commit or a job is escaped.
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
	int		 verdict;	/* 'g', 'b', 's'; 't' tested (series) */
	int		 base;		/* a series' base (release tag) */
};

/* A vertical mark across a series plot. */
struct web_mark {
	double		 x;
	int		 kind;		/* 'c' change point, 'x' culprit */
	const char	*text;		/* its label, escaped when drawn */
	const char	*href;		/* a page to link it to, or NULL */
};

struct web_plot {
	const char		*metric;
	const struct web_point	*points;
	size_t			 nr;
	double			 x_max;		/* the bad end's position */
	const char		*culprit;	/* oid or NULL */
	/* the culprit reverted on top of the bad end, drawn right of it */
	const struct web_point	*revert;	/* NULL: no revert check */
	/*
	 * A tracked series instead of a bisection's range: the x axis says
	 * x_label and runs from x_min; the ends are not good and bad; marks
	 * show its change points and culprits.
	 */
	const char		*x_label;	/* NULL: a bisection */
	double			 x_min;
	const struct web_mark	*marks;
	size_t			 nr_marks;
};

/* Text escaped for HTML element content and attribute values. */
void	 web_escape(struct strbuf *, const char *);
/* The plot as an inline <svg> element (bisectd/svg.c). */
void	 svg_plot(struct strbuf *, const struct web_plot *);
/*
 * Write DIR/report-ID.html for a concluded bisection with a culprit and
 * regenerate DIR/index.html. *path is the report page.
 */
int	 web_write(struct context *, int64_t id, const char *dir, char **path,
	     char **cause);
/*
 * Write DIR/index.html: every report, newest first, and every tracked
 * series -- each continuous job's metrics over the branch's commits with
 * their change points and culprits (bisectd/web-index.c).
 */
int	 web_index_write(struct context *, const char *dir, char **cause);
/* The page's <head> and the opening of its <body>. */
void	 web_head(struct strbuf *, const char *title);

/*
 * The plot of a concluded bisection's tested commits (the one its page
 * shows), for the index; -1 when it cannot be drawn.
 */
int	 web_bisection_plot(struct strbuf *, struct context *, int64_t id);

#endif
