/*
 * Rounds over several slots (DESIGN §4 point 8, issue 13): with k free
 * slots a round tests k commits that cut the posterior into k + 1 parts
 * of equal mass, each sampled enough to move its odds decisively in that
 * round, and names the commits the next round will most likely want so
 * that they are built while this round's runs are in flight.
 */
#ifndef STATS_BISECT_ROUNDS_H
#define STATS_BISECT_ROUNDS_H

#include <stddef.h>

#include "stats/bisect-graph.h"
#include "stats/bisect-range.h"
#include "stats/bisect-time.h"

/*
 * Up to k commits among the eligible ones, one nearest each quantile
 * j / (k + 1) of cdf (cdf[i]: the probability that commit i is bad),
 * distinct, in the order of the quantiles. A commit already built
 * (built[i], may be NULL) is taken over an unbuilt one up to a quarter of
 * the quantiles' spacing further away: its build is paid for. Returns
 * how many were chosen.
 */
size_t	 bisect_rounds_points(size_t *out, unsigned k, const double *cdf,
	    const unsigned char *eligible, const unsigned char *built,
	    size_t nr);

/*
 * Samples that move one commit's odds decisively within a round of k
 * points, at this effect size (in units of the noise's scale): e^6 for
 * one point, and e^(6 + ln k) for k, so that all k are right about as
 * often as one is (the one-slot search asks e^3 and comes back later; a
 * round that must come back costs a round). At least 2, at most max; the
 * search asks at least bisect_rounds_floor of a new point.
 */
unsigned bisect_rounds_batch(double effect, unsigned k, unsigned max);

/*
 * A lower confidence bound (one-sided, 1%) on the effect in units of the
 * noise, from its estimate and the good and bad ends' sample counts (the
 * normal approximation of a standardized difference's error); 0 when none
 * can be given.
 */
double	 bisect_rounds_low(double effect, size_t ng, size_t nb);

/*
 * The least batch a round's point gets: twice the job's runs, or fewer
 * when the batch at the effect's lower bound (bisect_rounds_batch(low, k,
 * max)) is fewer: a change the ends show large is decided in a few runs.
 */
unsigned bisect_rounds_floor(double low, unsigned k, unsigned first_runs,
	    unsigned max);

/*
 * The ends' looks with k slots. The first is the job's runs times k (the
 * ends have every slot to themselves); each next one adds half again,
 * times k / 4 from 8 slots on (measured: adding more from 4 slots cost
 * runs and saved no round).
 */
unsigned bisect_rounds_grow(unsigned n, unsigned k);
unsigned bisect_rounds_first(unsigned first_runs, unsigned k);

/*
 * The fresh check's first look, in pairs, with k slots (one-slot: first).
 */
unsigned bisect_rounds_pairs(unsigned first, unsigned k);

/*
 * Samples added to each side of the confirmation (a culprit against its
 * parent) per round with k slots: the one-slot step, ceil(k / 2) times.
 */
unsigned bisect_rounds_regrow(unsigned k_re, unsigned k);

/* A cumulative posterior this close to 0 or 1 decides nothing. */
#define BISECT_ROUNDS_EDGE	1e-9

/*
 * The builds to start now for the next round (bisect-rounds-spec.c): for each outcome of a
 * round testing points[] (the first s of them, in cdf order, good and
 * the rest bad, for s = 0..nr_points), the next round's points (the
 * quantiles of the posterior post[] given that outcome), weighted by the
 * outcome's probability; the commits not built yet (built[], may be
 * NULL) and not among points[], most probable first, at most max of
 * them. g is the range's graph over all nr commits (members = commits).
 * Returns how many were written to out.
 */
size_t	 bisect_rounds_spec(size_t *out, size_t max,
	    struct bisect_graph *g, const double *post,
	    const unsigned char *eligible, const unsigned char *built,
	    const size_t *points, size_t nr_points, unsigned k, size_t nr);

/*
 * The driver's hooks (bisect-range.c). bisect_rounds_search replaces the
 * one-slot search when slots > 1: it wants the ends when their levels are
 * in doubt and the k points, and records the speculative builds in the
 * state. Returns the best gain, as the one-slot search does.
 * When the commits holding 99% of the posterior and their first parents
 * fit in the slots, they are the round (the last one), and the likeliest
 * culprit and its parent end the batch with the fresh check's first look
 * in pairs. bisect_rounds_ends, while the ends are being told apart, wants
 * k points beside them (the quantiles of a flat prior, or of the
 * posterior as if the ends differed) and records the next round's points
 * as speculative builds.
 */
double	 bisect_rounds_search(struct bisect_state *,
	    const struct bisect_range *, double effect, unsigned k_re,
	    double bal_min);
void	 bisect_rounds_ends(struct bisect_state *,
	    const struct bisect_range *);

/*
 * The commits a round may test (bisect.c's cap on the wants): the slots,
 * and with several slots the whole range's ends beside them, so that the
 * ends' look carries a full round of points (bisect_rounds_ends): every
 * commit of a batch runs on every machine (bisectd/dispatch.c), the slots
 * count the points a round splits the range at.
 */
size_t	 bisect_rounds_cap(const struct bisect_state *, unsigned slots);

/*
 * Noise shared in time with several slots. Every batch carries the
 * reference (bt->ref, the bad end: bisect_rounds_ref_wants). When its
 * level moves from batch to batch (the F test of its runs in time order,
 * in groups of 3, at BISECT_TIME_ALPHA), each sample of another commit
 * not among skip[] is taken over the median of the reference's
 * BISECT_ROUNDS_BLOCK runs nearest it in time, times the reference's
 * median, where those are all within BISECT_ROUNDS_NEAR runs of it (in
 * time order over every run): a point decided in one batch carries none
 * of that batch's drift. When the neighbour test has fired (bt->used: a
 * burst as short as a few runs), over the one reference run nearest it,
 * within 4 runs. Other samples stay as taken. Rewrites out[]'s samples
 * from commits[] (both bt->nr long, bt->samples the storage; bt->used
 * set when it blocks); returns 1 when the samples are blocked.
 */
#define BISECT_ROUNDS_BLOCK	3
#define BISECT_ROUNDS_NEAR	30
size_t	 bisect_rounds_block(struct bisect_time *bt, struct bisect_commit *out,
	    const struct bisect_commit *commits, const size_t *skip,
	    size_t nr_skip);

/*
 * With times known (timed) and several slots, a batch without the
 * reference (a round's points, the confirmation's) gets it beside: 3 new
 * runs, enough for the drift test, or once blocked (bt->used) as many as
 * the most any want adds. *wants is grown; raw[] the caller's commits.
 */
void	 bisect_rounds_ref_wants(const struct bisect_time *bt,
	    const struct bisect_commit *raw, int timed, struct bisect_want **wants,
	    size_t *nr_wants);

#endif
