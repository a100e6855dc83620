/*
 * The bisection driver (DESIGN §4): a pure function from the state of a
 * bisection -- the commit range as a DAG, which commits built, and every
 * sample taken so far -- to what to do next. No I/O: the scheduler calls it
 * again whenever samples land, and after a crash, and gets the same answer.
 */
#ifndef STATS_BISECT_H
#define STATS_BISECT_H

#include <stddef.h>

enum bisect_build {
	BISECT_BUILD_UNKNOWN = 0,	/* not built yet */
	BISECT_BUILD_OK,
	BISECT_BUILD_FAILED,		/* untestable: never good nor bad */
};

/*
 * One commit of the range `bad ^good`, or one of the good ends. Parents
 * are indices into the same array; parents outside the array (reachable
 * from a good end) are left out, as git bisect leaves them out.
 */
struct bisect_commit {
	const char		*name;		/* borrowed; hex oid */
	const size_t		*parents;
	size_t			 nr_parents;
	enum bisect_build	 build;
	const double		*samples;	/* headline metric, as taken */
	size_t			 nr_samples;
	/*
	 * Per sample, the machine (agent) that took it, borrowed; NULL when
	 * unknown. With more than one, the driver takes the machines'
	 * offsets out of the samples before it decides (stats/bisect-machine.h).
	 */
	const char *const	*machines;
	/*
	 * The digest of the commit's built image (NULL while unknown).
	 * Commits with equal digests ran the same thing: they are one test
	 * point, and a commit whose image is its first parent's is never a
	 * culprit (DESIGN §4, issue 11).
	 */
	const char		*image;
	/*
	 * Per sample, when it ran (seconds, wall clock, start of the run;
	 * NULL when unknown) and the boot it ran in (boot_id, borrowed;
	 * NULL when unknown): the statistics block on them so that a
	 * burst or a drift that hits both sides cancels.
	 */
	const double		*times;
	const char *const	*boots;
};

struct bisect_input {
	const struct bisect_commit	*commits;
	size_t				 nr_commits;
	size_t				 bad;
	const size_t			*good;
	size_t				 nr_good;
	int		direction;	/* +1 higher is better, -1 lower, 0 unknown */
	double		min_effect_pct;	/* smaller differences are no change */
	unsigned	slots;		/* commits that can be sampled at once */
	unsigned	initial_runs;	/* the job's runs: */
	unsigned	max_runs;	/* cap on samples of one commit */
	/*
	 * The whole bisection's budget: runs (samples of every commit,
	 * the ends included) and builds (commits built or found not to
	 * build); 0 means the default, 2 * max_runs * (ceil(log2(N)) + 2)
	 * runs and 6 * (ceil(log2(N)) + 2) builds for N commits in the
	 * range. Once either is spent the driver concludes with what it has.
	 */
	unsigned	max_total_runs;
	unsigned	max_builds;
};

enum bisect_status {
	BISECT_CONTINUE = 0,	/* take the samples in wants, then ask again */
	BISECT_FOUND,
	BISECT_NO_CHANGE,
	BISECT_AMBIGUOUS,
	BISECT_FAILED,
	/*
	 * A culprit was pointed at, but its own evidence contradicts it
	 * (its image is its parent's, the revert restores too little, a
	 * fresh interleaved check disagrees): never mailed as a culprit.
	 */
	BISECT_UNCONFIRMED,
	/*
	 * The ends were not told apart, yet a change worth finding could
	 * be there: min_detectable_pct says the smallest it could have seen.
	 */
	BISECT_INCONCLUSIVE,
};

/* Take samples of commit until it has `samples` in all (build it first). */
struct bisect_want {
	size_t		commit;
	unsigned	samples;
};

struct bisect_result {
	enum bisect_status	 status;
	struct bisect_want	*wants;
	size_t			 nr_wants;
	/*
	 * slots > 1, CONTINUE: commits worth building while the wants run,
	 * the next round's likeliest points first (stats/bisect-rounds.h);
	 * none of them is among wants
	 */
	size_t			*builds;
	size_t			 nr_builds;
	size_t			*culprits;	/* FOUND: main culprit first */
	size_t			 nr_culprits;
	size_t			*candidates;	/* AMBIGUOUS */
	size_t			 nr_candidates;
	/* good ends against bad end */
	double			 change_pct;
	double			 ci_lo;
	double			 ci_hi;
	double			 p_value;
	/* the main culprit against its first parent */
	double			 culprit_change_pct;
	double			 culprit_ci_lo;
	double			 culprit_ci_hi;
	double			 culprit_p_value;
	double			 explained_pct;
	/* for "bisect: N commits left (about K steps)" */
	size_t			 remaining;
	unsigned		 steps;
	/*
	 * The budget, and whether it ended the bisection: the answer is
	 * then the best the samples allow (FOUND unconfirmed, AMBIGUOUS with
	 * the commits holding the posterior's mass, or NO_CHANGE for a look
	 * that could not finish), not one the method would have stopped on.
	 */
	unsigned		 budget_runs;
	unsigned		 budget_builds;
	int			 budget_spent;
	char			*error;		/* FAILED */
	/* UNCONFIRMED: what contradicts the culprit, in words */
	char			*contradiction;
	/* INCONCLUSIVE (and NO_CHANGE): the smallest change, in % of the
	 * good end's level, that the samples would have shown more often
	 * than not; NAN when not computed */
	double			 min_detectable_pct;
	/*
	 * The fresh interleaved check of the main culprit against its
	 * parent (stats/bisect-pair.h): its verdict (an enum
	 * bisect_pair_verdict; -1 when it was not reached), its pairs, the
	 * median pair's step in % and its two one-sided p-values.
	 */
	int			 fresh_verdict;
	size_t			 fresh_pairs;
	double			 fresh_step_pct;
	double			 fresh_p_agree;
	double			 fresh_p_disagree;
};

/*
 * Decide the next step; see docs/bisection.md. commits[] is the range
 * `bad ^good` plus the good ends, in any order (parents outside the
 * array left out). Wants are totals per commit, at most `slots` of them
 * (1 when 0), the most useful first; asking again without new samples
 * gives the same wants. The one exception is the fresh check of a
 * culprit against its parent, when the samples carry times: its two
 * wants come as one batch whatever the slots (the caller dispatches a
 * batch of two commits as interleaved pairs on one machine), up to
 * max_runs / 2 pairs on top of max_runs. initial_runs is at least 3 (the ends are
 * sampled that often first); max_runs 0 means 30. Once the runs or the
 * builds so far reach the budget (max_total_runs, max_builds), no more
 * samples are asked for and budget_spent says so.
 * Returns 0; -1 with status FAILED and error set when the input is not a
 * bisection (indices out of range, a cycle, bad == good or an ancestor
 * of a good end, the bad end or every good end failing to build).
 * FOUND may also list candidates, from a part of the range that ended
 * ambiguous. Release the result with bisect_result_release.
 */
int	 bisect_decide(struct bisect_result *, const struct bisect_input *);
void	 bisect_result_release(struct bisect_result *);
const char *bisect_status_name(enum bisect_status);

/*
 * git bisect's choice of the next commit among the candidates: the one
 * whose ancestors in the range number closest to half. Here every one of
 * the nr commits is a candidate (the range `bad ^good` as `git rev-list
 * --parents` lists it, without the good ends; build and samples are not
 * looked at). skip[] marks commits that cannot be chosen (may be NULL);
 * they still count in the weights, as with `git bisect skip`. Ties go to
 * the lowest index (git: the first in its list). Returns the index, or
 * (size_t)-1 when nothing is left to choose or the parents make a cycle.
 */
size_t	 bisect_midpoint(const struct bisect_commit *, size_t nr,
	     const unsigned char *skip);

/*
 * out[i] = the number of ancestors-or-self of commit i among the nr
 * commits (git's "weight"; `git rev-list --bisect-all` prints
 * min(w, nr - w) as dist=). -1 with cause on a cycle or a bad parent.
 */
int	 bisect_weights(size_t *out, const struct bisect_commit *, size_t nr,
	     char **cause);

#endif
