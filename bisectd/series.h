/*
 * A tracked series: one metric of one job along a branch's tracked
 * commits (first-parent order), each commit with every value its runs
 * recorded, and the change points the continuous mode's test finds in it.
 * The tracker decides on it; the web index draws it. Both see the same
 * points and the same change points because both come from here.
 */
#ifndef BISECTD_SERIES_H
#define BISECTD_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"
#include "stats/changepoint.h"
#include "stats/changepoint-tail.h"
#include "stats/summary.h"

/* Continuous mode's significance level for a change point (p < it). */
#define SERIES_ALPHA		0.01
/* Permutations of its test: p < 0.01 then means 3 exceedances or fewer. */
#define SERIES_PERMUTATIONS	399
/* The newest commits of a series looked at for change points. */
#define SERIES_WINDOW		200
/* Commits each side of a change point while it is searched for. */
#define SERIES_MIN_SIZE		3
/*
 * The tail test (stats/changepoint-tail.h): the newest SERIES_TAIL commits
 * against the SERIES_TAIL_REFERENCE before them; one that looks changed
 * (p < SERIES_TAIL_SCREEN) is run until it has SERIES_TAIL_RUNS values,
 * and found changed then at p < SERIES_TAIL_ALPHA.
 */
#define SERIES_TAIL		3
#define SERIES_TAIL_REFERENCE	30
#define SERIES_TAIL_RUNS	12
#define SERIES_TAIL_SCREEN	0.1
#define SERIES_TAIL_ALPHA	0.001

struct series_point {
	int64_t		 seq;		/* the commit's place on the branch */
	char		*oid;
	char		*runs_oid;	/* whose runs these are (tested_as) */
	int		 base;		/* a configured base (release tag) */
	double		*values;
	size_t		 nr;
	struct summary	 sum;
};

struct series {
	struct series_point		*points;	/* commits with values */
	size_t				 nr;
	/* group i of a change point is points[i] */
	struct changepoint_result	 cp;
	/* the tail test's answer; its group is an index into points too */
	struct changepoint_tail		 tail;
	int				 no_tail;	/* bench: skip it */
};

/*
 * Load metric of job (a jobs row) at the tracked commits t[0 .. nr - 1]
 * of repository repo; commits without a value are left out.
 */
int	series_load(struct series *, struct store *, int64_t job,
	    const char *repo, const char *metric,
	    const struct store_tracked *t, size_t nr, char **cause);
/*
 * The change points among the newest SERIES_WINDOW commits, at
 * SERIES_ALPHA, ignoring changes smaller than min_effect_pct; none with
 * fewer than six commits. Then the tail test, for a change in direction
 * (-1 a fall, +1 a rise, 0 either): a tail found changed is one of the
 * change points; one that wants more runs leaves s->tail.verdict
 * CHANGEPOINT_TAIL_MORE, naming the commits from s->tail.group on.
 */
int	series_detect(struct series *, double min_effect_pct, int direction,
	    char **cause);
/* Where a commit sits in the series: its index, or -1. */
long	series_find(const struct series *, const char *oid);
void	series_release(struct series *);

#endif
