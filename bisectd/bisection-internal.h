/*
 * What the files of one bisection share (bisection.c, bisection-turn.c,
 * bisection-steps.c, bisection-json.c, bisection-revert.c): the cached
 * range, a turn's samples, and the calls that go between the files.
 * Nothing outside them includes it; bisectd/bisection.h is the API.
 */
#ifndef BISECTD_BISECTION_INTERNAL_H
#define BISECTD_BISECTION_INTERNAL_H

#include <jansson.h>

#include "bisectd/bisection.h"
#include "bisectd/repo.h"
#include "bisectd/want.h"
#include "schema/store-kernel.h"
#include "stats/bisect.h"
#include "stats/bisect-revert.h"

struct bisection {
	int64_t			 id;
	struct repo		*repo;
	struct repo_range	 range;
	size_t			*order;		/* indices sorted by oid */
	char			*recipe;
	char			*kconfig;	/* the job's fragment, or NULL */
	/*
	 * By range index: queued as a speculative build by this scheduler
	 * and not asked for since (NULL until the first): the next turn
	 * does not wait for it. After a restart none is marked, and every
	 * build is waited for.
	 */
	unsigned char		*speculated;
};

/* Per turn: the samples of the touched commits. */
struct bisection_turn {
	size_t			*touched;	/* indices into the range */
	size_t			 nr_touched;
	struct store_series	*series;	/* one per touched commit */
	int			*done;
	size_t			 nr_runs;
	/* every build of the range's recipe: status and digest */
	struct store_kernel_image *images;
	size_t			 nr_images;
	size_t			 nr_ran;	/* touched[] with runs come first */
	int			 building;	/* a range commit's build is on */
	int			 asked;		/* ... one not speculated */
};


/* bisection.c: the range's index of oid, or (size_t)-1. */
size_t	bisection_find(const struct bisection *, const char *oid);
/* A want of the bisection's job at oid (bisectd/want.c). */
void	bisection_want_init(struct want *, const struct bisection *,
	    const struct store_bisection *, const char *oid,
	    unsigned samples);

/* bisection-turn.c: the range's builds and samples from the database. */
int	bisection_turn_gather(struct services *, struct bisection *,
	    const struct store_bisection *, struct bisection_turn *,
	    char **cause);
void	bisection_turn_release(struct bisection_turn *);
int	bisection_turn_metric_missing(struct services *,
	    const struct bisection *, const struct store_bisection *,
	    const struct bisection_turn *, char **why, char **cause);

/* bisection-steps.c: the log of tested commits, *nr of them. */
struct store_step *bisection_steps(const struct bisection *,
	    const struct bisection_turn *, const struct bisect_result *,
	    size_t *nr);

/* bisection-json.c: the result JSON; x to the nearest unit, 0 if not finite. */
char	*bisection_json(struct services *, const struct bisection *,
	    const struct store_bisection *, const struct bisection_turn *,
	    const struct bisect_result *, json_t *revert);
double	 bisection_json_round(double x, double unit);

/* bisection-revert.c: the revert check of a found culprit. */
int	bisection_revert(struct services *, struct bisection *,
	    const struct store_bisection *, const struct bisect_result *,
	    unsigned runs, struct bisection_turn *, json_t **out,
	    struct bisect_revert *, char **cause);

#endif
