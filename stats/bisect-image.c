/*
 * Classes of byte-identical images: one test point each. The driver
 * decides on each commit's class's samples, never points at a commit
 * whose image is its first parent's, and asks for builds before runs so
 * that a commit whose image matches one already sampled is never run.
 */
#include <stdlib.h>
#include <string.h>

#include "stats/bisect-image.h"
#include "util/xalloc.h"

static const struct bisect_commit *image_sort_commits;

static int
bisect_image_cmp(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;
	int	c;

	c = strcmp(image_sort_commits[x].image, image_sort_commits[y].image);
	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

int
bisect_image_same(const struct bisect_commit *a, const struct bisect_commit *b)
{
	return a->build == BISECT_BUILD_OK && b->build == BISECT_BUILD_OK &&
	    a->image != NULL && b->image != NULL &&
	    strcmp(a->image, b->image) == 0;
}

size_t
bisect_image_pool(struct bisect_image *im, struct bisect_commit *out,
    const struct bisect_commit *in, size_t nr)
{
	size_t	*order, no = 0, i, j, k, head, total, pooled = 0;
	double	*v;

	memset(im, 0, sizeof *im);
	im->nr = nr;
	im->class = xcalloc(nr ? nr : 1, sizeof *im->class);
	im->rep = xcalloc(nr ? nr : 1, sizeof *im->rep);
	im->pooled = xcalloc(nr ? nr : 1, sizeof *im->pooled);
	im->samples = xcalloc(nr ? nr : 1, sizeof *im->samples);
	im->same_parent = xcalloc(nr ? nr : 1, 1);
	memcpy(out, in, nr * sizeof *out);
	order = xcalloc(nr ? nr : 1, sizeof *order);
	for (i = 0; i < nr; i++) {
		im->class[i] = im->rep[i] = i;
		im->pooled[i] = in[i].nr_samples;
		if (in[i].build == BISECT_BUILD_OK && in[i].image != NULL)
			order[no++] = i;
		if (in[i].image != NULL)
			im->used = 1;
		if (in[i].nr_parents > 0 && in[i].parents[0] < nr &&
		    bisect_image_same(&in[i], &in[in[i].parents[0]]))
			im->same_parent[i] = 1;
	}
	image_sort_commits = in;
	qsort(order, no, sizeof *order, bisect_image_cmp);
	image_sort_commits = NULL;
	for (i = 0; i < no; i = j) {
		head = order[i];
		total = 0;
		for (j = i; j < no && strcmp(in[order[j]].image,
		    in[head].image) == 0; j++) {
			total += in[order[j]].nr_samples;
			if (in[order[j]].nr_samples >
			    in[im->rep[head]].nr_samples)
				im->rep[head] = order[j];
		}
		if (j - i < 2)
			continue;
		v = NULL;
		if (total > 0) {
			v = xcalloc(total, sizeof *v);
			for (k = i, total = 0; k < j; k++) {
				if (in[order[k]].nr_samples == 0)
					continue;
				memcpy(v + total, in[order[k]].samples,
				    in[order[k]].nr_samples * sizeof *v);
				total += in[order[k]].nr_samples;
			}
		}
		for (k = i; k < j; k++) {
			im->class[order[k]] = head;
			im->pooled[order[k]] = total;
			if (total == in[order[k]].nr_samples)
				continue;
			out[order[k]].samples = v;
			out[order[k]].nr_samples = total;
			out[order[k]].machines = NULL;
			out[order[k]].times = NULL;
			out[order[k]].boots = NULL;
			pooled++;
		}
		im->samples[head] = v;
	}
	free(order);
	return pooled;
}

static size_t
bisect_image_rep(const struct bisect_image *im, const struct bisect_commit *raw,
    size_t c)
{
	size_t	i, best = c, head = im->class[c];

	for (i = 0; i < im->nr; i++) {
		if (im->class[i] != head)
			continue;
		if (raw[i].nr_samples > raw[best].nr_samples ||
		    (raw[i].nr_samples == raw[best].nr_samples &&
		    im->end != NULL && im->end[i] && !im->end[best]))
			best = i;
	}
	return best;
}

size_t
bisect_image_member(const struct bisect_image *im,
    const struct bisect_commit *raw, size_t c)
{
	if (!im->used || c >= im->nr)
		return c;
	return bisect_image_rep(im, raw, c);
}

void
bisect_image_ends(struct bisect_image *im, size_t bad, const size_t *goods,
    size_t nr_goods)
{
	size_t	i;

	if (im->end == NULL)
		im->end = xcalloc(im->nr ? im->nr : 1, 1);
	if (bad < im->nr)
		im->end[bad] = 1;
	for (i = 0; i < nr_goods; i++)
		if (goods[i] < im->nr)
			im->end[goods[i]] = 1;
}

void
bisect_image_wants(const struct bisect_image *im,
    const struct bisect_commit *raw, struct bisect_want *w, size_t *nr)
{
	size_t		i, k, n = 0, c, rep, other;
	unsigned	target;

	for (i = 0; i < *nr; i++) {
		c = w[i].commit;
		if (im->used && raw[c].build == BISECT_BUILD_UNKNOWN &&
		    raw[c].image == NULL && raw[c].nr_samples == 0) {
			/* build it: its digest may make runs needless */
			target = 0;
			rep = c;
		} else {
			/*
			 * An end keeps its wants; another commit's go to the
			 * member with the most samples (an end on a tie): a
			 * commit disturbed while it ran is not run again for
			 * an image the others ran as well.
			 */
			rep = c;
			if (im->end == NULL || !im->end[c])
				rep = bisect_image_rep(im, raw, c);
			other = im->pooled[c] - raw[rep].nr_samples;
			target = w[i].samples > other ?
			    w[i].samples - (unsigned)other : 0;
			if (target <= raw[rep].nr_samples)
				continue;
		}
		for (k = 0; k < n; k++)
			if (w[k].commit == rep)
				break;
		if (k < n) {
			if (w[k].samples < target)
				w[k].samples = target;
			continue;
		}
		w[n].commit = rep;
		w[n++].samples = target;
	}
	*nr = n;
}

void
bisect_image_release(struct bisect_image *im)
{
	size_t	i;

	if (im == NULL)
		return;
	for (i = 0; i < im->nr; i++)
		free(im->samples[i]);
	free(im->samples);
	free(im->class);
	free(im->rep);
	free(im->pooled);
	free(im->same_parent);
	free(im->end);
	memset(im, 0, sizeof *im);
}
