/*
 * A tracked series and its change points: each commit's values in run
 * order, tested by E-Divisive with the commit as the group, at continuous
 * mode's settings, and the newest commits by the tail test. The settings
 * and why they are strict are in docs/design.md, "File notes".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/series.h"
#include "util/xalloc.h"

int
series_load(struct series *s, struct store *st, int64_t job,
    const char *repo, const char *metric, const struct store_tracked *t,
    size_t nr, char **cause)
{
	struct store_series	 one;
	struct series_point	*p;
	size_t			 i;

	memset(s, 0, sizeof *s);
	s->points = xcalloc(nr + 1, sizeof *s->points);
	for (i = 0; i < nr; i++) {
		/* a commit of a tree tested already has that one's values */
		if (store_series_get(st, job, repo, t[i].tested_as != NULL ?
		    t[i].tested_as : t[i].commit_oid, metric, &one,
		    cause) != 0) {
			series_release(s);
			return -1;
		}
		if (one.nr == 0) {
			store_series_release(&one);
			continue;
		}
		p = &s->points[s->nr++];
		p->seq = t[i].seq;
		p->oid = xstrdup(t[i].commit_oid);
		p->runs_oid = xstrdup(t[i].tested_as != NULL ?
		    t[i].tested_as : t[i].commit_oid);
		p->base = t[i].base;
		p->values = one.values;
		p->nr = one.nr;
		one.values = NULL;
		summary_compute(&p->sum, p->values, p->nr);
		store_series_release(&one);
	}
	return 0;
}

int
series_detect(struct series *s, double min_effect_pct, int direction,
    char **cause)
{
	struct changepoint_opts	 opts;
	struct changepoint_tail_opts topts;
	double			*values = NULL;
	size_t			*groups = NULL, n = 0, i, k, from;
	int			 r = -1;

	changepoint_result_release(&s->cp);
	memset(&s->cp, 0, sizeof s->cp);
	memset(&s->tail, 0, sizeof s->tail);
	if (s->nr < 6)
		return 0;
	/* the newest SERIES_WINDOW commits: the cost does not grow with age */
	from = s->nr > SERIES_WINDOW ? s->nr - SERIES_WINDOW : 0;
	for (i = from; i < s->nr; i++)
		n += s->points[i].nr;
	values = xcalloc(n, sizeof *values);
	groups = xcalloc(n, sizeof *groups);
	for (n = 0, i = from; i < s->nr; i++) {
		for (k = 0; k < s->points[i].nr; k++) {
			values[n] = s->points[i].values[k];
			groups[n++] = i;
		}
	}
	memset(&opts, 0, sizeof opts);
	opts.min_effect_pct = min_effect_pct;
	opts.alpha = SERIES_ALPHA;
	opts.permutations = SERIES_PERMUTATIONS;
	opts.min_size = SERIES_MIN_SIZE;
	opts.seed = 1;
	if (changepoint_detect(&s->cp, values, groups, n, &opts, cause) != 0)
		goto out;
	memset(&topts, 0, sizeof topts);
	topts.max_tail = SERIES_TAIL;
	topts.reference = SERIES_TAIL_REFERENCE;
	topts.runs = SERIES_TAIL_RUNS;
	topts.screen_p = SERIES_TAIL_SCREEN;
	topts.alpha = SERIES_TAIL_ALPHA;
	topts.direction = direction;
	topts.min_effect_pct = min_effect_pct;
	if (!s->no_tail && changepoint_tail_detect(&s->cp, &s->tail, values, groups, n,
	    &topts, cause) != 0)
		goto out;
	r = 0;
out:
	free(values);
	free(groups);
	return r;
}

long
series_find(const struct series *s, const char *oid)
{
	size_t	i;

	for (i = 0; i < s->nr; i++) {
		if (strcmp(s->points[i].oid, oid) == 0)
			return (long)i;
	}
	return -1;
}

void
series_release(struct series *s)
{
	size_t	i;

	for (i = 0; i < s->nr; i++) {
		free(s->points[i].oid);
		free(s->points[i].runs_oid);
		free(s->points[i].values);
	}
	free(s->points);
	changepoint_result_release(&s->cp);
	memset(s, 0, sizeof *s);
}
