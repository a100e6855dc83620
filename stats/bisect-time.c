/*
 * Noise shared in time: the test that neighbours in time move together
 * (Spearman's rank correlation of their residuals), the samples of a
 * commit taken over their reference partners, and the reference want
 * put beside a lone want of the search.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/bisect-rounds.h"
#include "stats/bisect-stat.h"
#include "stats/bisect-time.h"
#include "util/xalloc.h"

static int
bisect_time_cmp(const void *a, const void *b)
{
	const struct bisect_time_run *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->commit != y->commit)
		return x->commit < y->commit ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

static int
bisect_time_cmp_val(const void *a, const void *b)
{
	double	x = **(const double *const *)a, y = **(const double *const *)b;

	return x < y ? -1 : x > y;
}

/* mid-ranks of v[n] into r[n] */
static void
bisect_time_ranks(const double *v, double *r, size_t n)
{
	const double	**p = xcalloc(n + 1, sizeof *p);
	size_t		  i, j, k;

	for (i = 0; i < n; i++)
		p[i] = &v[i];
	qsort(p, n, sizeof *p, bisect_time_cmp_val);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && *p[j] == *p[i]; j++)
			;
		for (k = i; k < j; k++)
			r[p[k] - v] = (double)(i + j + 1) / 2;
	}
	free(p);
}

double
bisect_time_spearman(const double *x, const double *y, size_t n, double *rho)
{
	double	*rx = xcalloc(n, sizeof *rx), *ry = xcalloc(n, sizeof *ry);
	double	 mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0, t, p = NAN;
	size_t	 i;

	bisect_time_ranks(x, rx, n);
	bisect_time_ranks(y, ry, n);
	for (i = 0; i < n; i++) {
		mx += rx[i];
		my += ry[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	*rho = NAN;
	if (sxx > 0 && syy > 0 && n > 2) {
		*rho = sxy / sqrt(sxx * syy);
		if (*rho >= 1)
			p = 0;
		else {
			t = *rho * sqrt((double)(n - 2) / (1 - *rho * *rho));
			p = gsl_cdf_tdist_Q(t, (double)(n - 2));
		}
	}
	free(rx);
	free(ry);
	return p;
}

void
bisect_time_release(struct bisect_time *bt)
{
	size_t	i;

	if (bt == NULL)
		return;
	if (bt->samples != NULL)
		for (i = 0; i < bt->nr; i++)
			free(bt->samples[i]);
	free(bt->samples);
	memset(bt, 0, sizeof *bt);
}

int
bisect_time_runs(struct bisect_time_run **out, size_t *n,
    const struct bisect_commit *commits, size_t nr)
{
	struct bisect_time_run	*runs;
	size_t			 i, k, total = 0;

	for (i = 0; i < nr; i++) {
		if (commits[i].nr_samples > 0 && commits[i].times == NULL)
			return -1;
		for (k = 0; k < commits[i].nr_samples; k++)
			if (!isfinite(commits[i].times[k]))
				return -1;
		total += commits[i].nr_samples;
	}
	runs = xcalloc(total + 1, sizeof *runs);
	*n = 0;
	for (i = 0; i < nr; i++)
		for (k = 0; k < commits[i].nr_samples; k++) {
			runs[*n].t = commits[i].times[k];
			runs[*n].commit = i;
			runs[(*n)++].k = k;
		}
	qsort(runs, *n, sizeof *runs, bisect_time_cmp);
	*out = runs;
	return 0;
}

int
bisect_time_adjust(struct bisect_time *bt, struct bisect_commit *out,
    const struct bisect_commit *commits, size_t nr, size_t ref,
    const size_t *skip, size_t nr_skip)
{
	struct bisect_time_run	*runs = NULL;
	double			*med = NULL, *x = NULL, *y = NULL, *logs, level;
	size_t			 i, k, n = 0, np = 0;

	memset(bt, 0, sizeof *bt);
	bt->nr = nr;
	bt->ref = ref;
	bt->rho = bt->p = NAN;
	if (ref >= nr || commits[ref].nr_samples < 3)
		return 0;
	for (i = 0; i < nr; i++)
		for (k = 0; k < commits[i].nr_samples; k++)
			if (!(commits[i].samples[k] > 0))
				return 0;
	if (bisect_time_runs(&runs, &n, commits, nr) != 0)
		return 0;
	med = xcalloc(nr, sizeof *med);
	for (i = 0; i < nr; i++) {
		const struct bisect_commit *c = &commits[i];

		med[i] = NAN;
		if (c->nr_samples >= 3) {
			logs = xcalloc(c->nr_samples, sizeof *logs);
			for (k = 0; k < c->nr_samples; k++)
				logs[k] = log(c->samples[k]);
			med[i] = bisect_stat_median(logs, c->nr_samples);
			free(logs);
		}
	}
	/* neighbours at two commits, two by two */
	x = xcalloc(n / 2 + 1, sizeof *x);
	y = xcalloc(n / 2 + 1, sizeof *y);
	for (i = 0; i + 1 < n;) {
		const struct bisect_time_run *a = &runs[i], *b = &runs[i + 1];

		if (a->commit == b->commit || isnan(med[a->commit]) ||
		    isnan(med[b->commit])) {
			i++;
			continue;
		}
		x[np] = log(commits[a->commit].samples[a->k]) - med[a->commit];
		y[np++] = log(commits[b->commit].samples[b->k]) -
		    med[b->commit];
		i += 2;
	}
	bt->pairs = np;
	if (np < BISECT_TIME_MIN_PAIRS)
		goto out;
	bt->p = bisect_time_spearman(x, y, np, &bt->rho);
	if (!(bt->p < BISECT_TIME_ALPHA))
		goto out;
	bt->used = 1;
	level = exp(med[ref]);
	memcpy(out, commits, nr * sizeof *out);
	bt->samples = xcalloc(nr, sizeof *bt->samples);
	/* two by two in time, as the batch's rounds came: one of ref's each */
	for (i = 0; i + 1 < n;) {
		const struct bisect_time_run	*a = &runs[i], *r = &runs[i + 1];
		size_t			 m;

		if (a->commit == ref) {
			a = &runs[i + 1];
			r = &runs[i];
		}
		for (m = 0; m < nr_skip && skip[m] != a->commit; m++)
			;
		if (r->commit != ref || a->commit == ref || m < nr_skip) {
			i++;
			continue;
		}
		i += 2;
		if (bt->samples[a->commit] == NULL) {
			bt->samples[a->commit] = xcalloc(
			    commits[a->commit].nr_samples,
			    sizeof *bt->samples[a->commit]);
			memcpy(bt->samples[a->commit],
			    commits[a->commit].samples,
			    commits[a->commit].nr_samples *
			    sizeof *bt->samples[a->commit]);
			out[a->commit].samples = bt->samples[a->commit];
		}
		bt->samples[a->commit][a->k] = commits[a->commit].samples[a->k] *
		    level / commits[ref].samples[r->k];
	}
out:
	free(runs);
	free(med);
	free(x);
	free(y);
	return bt->used;
}

/* Whether the wants are one search batch: new runs of one unskipped commit. */
static int
bisect_time_lone(const struct bisect_time *bt, const struct bisect_commit *raw,
    const size_t *skip, size_t nr_skip, const struct bisect_want *w,
    size_t nr_wants)
{
	size_t	c, i;

	if (nr_wants != 1)
		return 0;
	c = w[0].commit;
	if (c == bt->ref || c >= bt->nr || w[0].samples <= raw[c].nr_samples)
		return 0;
	for (i = 0; i < nr_skip; i++)
		if (skip[i] == c)
			return 0;
	return 1;
}

void
bisect_time_wants(const struct bisect_time *bt,
    const struct bisect_commit *raw, const size_t *skip, size_t nr_skip,
    struct bisect_want **wants, size_t *nr_wants)
{
	struct bisect_want	*w = *wants;
	size_t			 c;

	if (!bt->used || !bisect_time_lone(bt, raw, skip, nr_skip, w,
	    *nr_wants))
		return;
	c = w[0].commit;
	w = xreallocarray(w, 2, sizeof *w);
	w[1].commit = bt->ref;
	w[1].samples = (unsigned)(raw[bt->ref].nr_samples + w[0].samples -
	    raw[c].nr_samples);
	*wants = w;
	*nr_wants = 2;
}

/*
 * With one slot the rounds' F test gates the blocking: the sentinels
 * (bisect_time_sentinel) give the bad end a run beside every batch, and
 * where its level moves from group to group the search's samples are
 * read over the bad end's runs nearest them (stats/bisect-rounds.h).
 * Where the neighbour test has fired, its pairs stand.
 */
size_t
bisect_time_block(struct bisect_time *bt, struct bisect_commit *out,
    const struct bisect_commit *commits, const size_t *skip, size_t nr_skip)
{
	if (bt->used)
		return 0;
	return bisect_rounds_block(bt, out, commits, skip, nr_skip);
}

void
bisect_time_sentinel(const struct bisect_time *bt,
    const struct bisect_commit *raw, int timed, const size_t *skip,
    size_t nr_skip, struct bisect_want **wants, size_t *nr_wants)
{
	struct bisect_want	*w = *wants;
	struct bisect_time_run	*runs = NULL;
	size_t			 c, n = 0, since = 0;

	if (!timed || bt->used || bt->ref >= bt->nr ||
	    !bisect_time_lone(bt, raw, skip, nr_skip, w, *nr_wants))
		return;
	c = w[0].commit;
	/* the runs since the reference's last, this want's new ones too */
	if (bisect_time_runs(&runs, &n, raw, bt->nr) != 0)
		return;
	while (since < n && runs[n - 1 - since].commit != bt->ref)
		since++;
	free(runs);
	if (since + w[0].samples - raw[c].nr_samples < BISECT_TIME_EVERY)
		return;
	w = xreallocarray(w, 2, sizeof *w);
	w[1].commit = bt->ref;
	w[1].samples = (unsigned)(raw[bt->ref].nr_samples +
	    BISECT_TIME_SENTINEL);
	*wants = w;
	*nr_wants = 2;
}
