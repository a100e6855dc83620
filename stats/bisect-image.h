/*
 * Identical images are one test point (issue 11): commits whose builds
 * have the same digest ran the same thing, so the samples of any of them
 * count for all of them, a commit whose image is its first parent's can
 * never be a culprit, and a commit not built yet is built before it is
 * run, so that the builds find where the image changes.
 */
#ifndef STATS_BISECT_IMAGE_H
#define STATS_BISECT_IMAGE_H

#include <stddef.h>

#include "stats/bisect.h"

struct bisect_image {
	size_t		 nr;
	int		 used;		/* some commit has a digest */
	size_t		*class;		/* per commit: its class's first member */
	size_t		*rep;		/* per class head: the member run at */
	size_t		*pooled;	/* per commit: samples of its class */
	double		**samples;	/* per commit: the class's samples, or NULL */
	unsigned char	*same_parent;	/* image equals the first parent's */
	unsigned char	*end;		/* the bisection's ends (NULL: none) */
};

/*
 * Group in->commits (the samples as the driver decides on them, after
 * the machines' offsets) into classes of equal digest; out[] is a copy of
 * the commits with each member's samples the class's. Returns the
 * number of commits whose samples were pooled (0: out[] is the input's).
 */
size_t	bisect_image_pool(struct bisect_image *, struct bisect_commit *out,
	    const struct bisect_commit *in, size_t nr);
/*
 * Rewrite the driver's wants for the caller: a commit not built yet, when
 * digests are in use, is built first (a want of 0 samples); a want of a
 * class's total is set to the commit's own total, and moved, unless the
 * commit is an end (bisect_image_ends), to the member that has the most
 * samples. raw[] is the caller's commits. Wants made
 * the same are merged.
 */
void	bisect_image_wants(const struct bisect_image *,
	    const struct bisect_commit *raw, struct bisect_want *wants,
	    size_t *nr_wants);
/*
 * The commit whose runs stand for c's image: the member of its class
 * with the most of its own samples in raw[] (an end on a tie); c when
 * no digests are in use.
 */
size_t	bisect_image_member(const struct bisect_image *,
	    const struct bisect_commit *raw, size_t c);
void	bisect_image_ends(struct bisect_image *, size_t bad,
	    const size_t *goods, size_t nr_goods);
/* 1 when a and b are both built with the same digest */
int	bisect_image_same(const struct bisect_commit *a,
	    const struct bisect_commit *b);
void	bisect_image_release(struct bisect_image *);

#endif
