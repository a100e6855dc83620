/*
 * The fresh interleaved check of a culprit against its parent (issue 11,
 * item 5), a pure step of the driver: once the search names a culprit,
 * both commits are run again as one batch, which bisectd/dispatch.c
 * orders as pairs (A,B or B,A at random), and the pairs' differences,
 * free of any drift or burst that hit both runs of a pair, say whether
 * the culprit carries the change (docs/methodology.md, "The fresh
 * check"). The test is Wilcoxon's signed-rank test, checked against SciPy.
 */
#ifndef STATS_BISECT_PAIR_H
#define STATS_BISECT_PAIR_H

#include <stddef.h>

#include "stats/bisect.h"
#include "stats/bisect-stat.h"

/* The culprit worse than its parent: agreement, one-sided. */
#define BISECT_PAIR_ALPHA_AGREE		0.05
/* Significantly less than half of the change: disagreement, one-sided. */
#define BISECT_PAIR_ALPHA_DISAGREE	0.01
/* Pairs of the first look; disagreement stands only at twice as many. */
#define BISECT_PAIR_FIRST		5

enum bisect_pair_verdict {
	BISECT_PAIR_AGREES = 0,
	BISECT_PAIR_DISAGREES,
	BISECT_PAIR_MORE,	/* take `want` pairs in all, ask again */
	BISECT_PAIR_UNDECIDED,	/* the cap reached, neither shown */
	BISECT_PAIR_UNTIMED,	/* samples without times: no check */
};

struct bisect_pair_check {
	enum bisect_pair_verdict verdict;
	size_t		 pairs;		/* fresh pairs found */
	unsigned	 want;		/* MORE: pairs in all */
	/* culprit over parent, the median pair: % for log ratios */
	double		 step_pct;
	double		 p_agree;	/* H1: the culprit is worse */
	double		 p_disagree;	/* H1: less than half the change */
};

/*
 * Wilcoxon's signed-rank test of the n differences d against 0, as
 * scipy.stats.wilcoxon(d, zero_method="wilcox", correction=False): zeros
 * dropped; the exact distribution of R+ when at most 50 differences are
 * left and none are tied, else the normal approximation with the tie
 * correction. alt GREATER: H1 the median is above 0. Returns p (NaN when
 * no difference is left); *stat (may be NULL) gets R+ (one-sided) or
 * min(R+, R-) (two-sided), as SciPy's statistic.
 */
double	bisect_pair_signed_rank(const double *d, size_t n,
	    enum bisect_stat_alt alt, double *stat);

/*
 * The fresh pairs of parent a and culprit b among commits[nr]: their
 * samples later than every sample of any other commit taken before the
 * last of theirs (runs of another commit after the check's batch, the
 * bad end's in the revert check, do not end it), merged in time order
 * and taken two by two from the last, each pair one run of each (the
 * pairs of one batch), up to the first two-run step that is not; when
 * the samples name their machines, each machine's runs apart (several
 * machines run a batch at once: over all of them in time order the two
 * sides come in runs of a side, on one machine by turns). d[k]
 * gets log(b / a) of pair k (b - a when a sample is not positive; *ratio
 * says which, 1 for logs), d holding room for the samples of a and b.
 * Returns the number of pairs;
 * (size_t)-1 when a sample of any commit carries no time (no array, or
 * NaN: a run that recorded none).
 */
size_t	bisect_pair_fresh(double *d, int *ratio,
	    const struct bisect_commit *commits, size_t nr, size_t a, size_t b);

/*
 * The pairs of one interleaved batch of a (na samples at times ta) and b:
 * the samples of either later than `after`, merged in time order and
 * taken two by two from the last, each pair one run of each, up to the
 * first two-run step that is not. d[k] gets log(b / a) of pair k (b - a
 * when a sample is not positive; *ratio says which), d holding room for
 * na + nb. Returns the number of pairs.
 */
size_t	bisect_pair_find(double *d, int *ratio, const double *a,
	    const double *ta, size_t na, const double *b, const double *tb,
	    size_t nb, double after);

/*
 * bisect_pair_find, each machine's runs apart when ma and mb (per sample,
 * the machine that ran it) both name them: several machines run a batch
 * at once, and over all of them in time order the two sides do not come
 * by turns.
 */
size_t	bisect_pair_find_on(double *d, int *ratio, const double *a,
	    const double *ta, const char *const *ma, size_t na,
	    const double *b, const double *tb, const char *const *mb,
	    size_t nb, double after);

/*
 * The Hodges-Lehmann estimate of the pairs' median d[n] (the median of
 * the Walsh averages) and its confidence interval, the Walsh averages'
 * order statistics that the signed-rank test's normal approximation
 * (as bisect_pair_signed_rank's, without the tie correction) puts at
 * two-sided 1 - confidence; the whole range of d when n is too small.
 */
void	bisect_pair_hl(const double *d, size_t n, double confidence,
	    double *est, double *lo, double *hi);

/*
 * The verdict on n fresh pairs d (culprit over parent) when the change
 * claimed is `change` (a log ratio, or a difference, in the sense of d:
 * the bad end against the good one). Looks at first, then half as many
 * more pairs each time, up to cap pairs: agrees when the culprit is
 * worse (p_agree < BISECT_PAIR_ALPHA_AGREE); disagrees when the step is
 * significantly less than half the change (p_disagree <
 * BISECT_PAIR_ALPHA_DISAGREE) on at least twice the first look's pairs,
 * a check tested again before it stands; else more pairs, or undecided
 * at the cap. Returns out->verdict.
 */
enum bisect_pair_verdict bisect_pair_decide(struct bisect_pair_check *out,
		    const double *d, size_t n, double change, unsigned first,
		    unsigned cap);
const char *bisect_pair_verdict_name(enum bisect_pair_verdict);

#endif
