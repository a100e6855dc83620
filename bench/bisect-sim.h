/*
 * What the files of bench/bisect-sim share: the scenarios, the synthetic
 * histories, the noise, the samples taken (the store), the revert check,
 * the cost model and the options main() reads (docs/design.md, "File
 * notes", bench/bisect-sim.c, says what each file holds).
 */
#ifndef BENCH_BISECT_SIM_H
#define BENCH_BISECT_SIM_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "stats/bisect.h"

enum sim_noise_model { GAUSS, HEAVY, BIMODAL, DRIFT, BURST, HIDDEN, BOOT };

struct sim_scenario {
	const char	*name;
	int		 dag;
	enum sim_noise_model noise;
	double		 effect_sd;	/* per culprit */
	int		 culprits;	/* 0, 1 or 2 */
	int		 build_fail;
	unsigned	 slots;
	const char	*what;
	int		 core;		/* effect in sd of the gaussian core */
	double		 min_effect;	/* min_effect_pct given to the driver */
	unsigned	 machines;	/* run k on machine k mod machines */
	double		 offset[3];	/* each machine's, in sd of the noise */
	/*
	 * Images: only the culprit changes the build's digest, and one other
	 * commit (the liar), whose image is its parent's, is disturbed
	 * whenever it runs: its runs read as the bad level (2: no liar).
	 */
	int		 images;
};

#define SD		0.02
#define BASE		1000.0
#define MAX_RUNS	sim_max_runs
#define INITIAL_RUNS	sim_initial_runs
#define NR_COMMITS	1024
#define MAX_MACHINES	3
#define MAX_SAMPLES	4096	/* of one commit, with machine names */
#define SIM_MAX_SET_ASIDE	3	/* WORKER_MAX_SET_ASIDE */

struct sim_history {
	size_t			 nr;		/* good end is 0 */
	size_t			 bad;
	size_t			*parent_store;
	struct bisect_commit	*commits;
	unsigned char		*failed;
	double			*mean;
	size_t			 culprit[2];
	size_t			 nr_culprits;
	const char		**image;	/* images scenarios, else NULL */
};

struct sim_noise {
	gsl_rng		*rng;
	double		 drift;
	double		 clock;		/* runs so far: the next run's time */
	unsigned	 burst_left;	/* runs the hog still slows */
	double		 burst;		/* by this much */
	unsigned	 boot;		/* boots so far (BOOT) */
	double		 boot_offset;	/* the current boot's */
	enum sim_noise_model noise;
	unsigned	 machines;
	double		 factor[MAX_MACHINES];	/* each machine's speed */
};

struct sim_outcome {
	int	right;
	size_t	runs;
	size_t	builds;
	size_t	rounds;
	size_t	peak;		/* the most samples of one commit, ends apart */
	int	cut;		/* the driver's budget ended it */
	enum bisect_status status;	/* the driver's */
	size_t	dup;		/* runs at an image sampled before */
	size_t	revert_runs;	/* of the revert check, in runs too */
	double	minutes;	/* wall clock under the cost model */
	size_t	wasted;		/* speculative builds no round wanted */
	size_t	set_aside;	/* disturbed attempts set aside, in runs */
	int	revert_contradicts;	/* the unconfirmed is the revert's */
};
/*
 * The cost model of issue 13 (--rounds): build, boot and run minutes, the
 * machines and the builders; NULL (the default) leaves every table as it
 * was. A round's builds go to the builder free first; its runs go one by
 * one to the machine free first, after their commit's build, a boot each
 * time a machine changes commit (sim_cost_batch). Speculative builds (the
 * driver's res.builds, in its order) start on a free builder once the
 * round's own builds are under way, and only if they end before the round
 * does.
 * Each batch boots afresh.
 */
struct sim_cost_model {
	unsigned	machines;
	unsigned	builders;
	double		build;
	double		boot;
	double		run;
	int		speculate;
	/*
	 * As bisectd places and orders them: run seq of a commit on machine
	 * seq % machines, a batch held until all its commits are built, its
	 * runs interleaved on each machine (bisectd/dispatch.c), a boot at
	 * every change of commit on a machine; else the first free machine
	 * takes the next run, runs grouped by commit.
	 */
	int		placed;
};

#define COST_MAX	16	/* machines or builders */

struct sim_cost_clock {
	double		 now;
	double		 start;		/* of the round: the driver's call */
	double		 builder[COST_MAX];
	unsigned char	*spec;		/* per commit: built speculatively */
	unsigned char	*wanted;	/* named in a round's wants */
};

struct sim_store {
	double		**s;
	size_t		 *n;
	size_t		 *alloc;
	unsigned char	 *built;
	double		**t;		/* each sample's time */
	const char	***b;		/* and boot */
	size_t		 *talloc;
};
/* the revert check of one culprit: its runs, their times and boots */
struct sim_revert {
	size_t		 culprit;	/* (size_t)-1: none yet */
	double		*x;
	double		*t;
	const char	**boots;
	size_t		 n;
	size_t		 alloc;
};

struct sim_tally {
	size_t	 right;
	size_t	 cut;
	size_t	 wrong;		/* found, but not the right answer */
	size_t	 unconfirmed;
	size_t	 inconclusive;
	size_t	 dup;
	size_t	 revert_runs;
	size_t	 set_aside;
	size_t	*runs;
	size_t	*builds;
	size_t	*rounds;
	size_t	*peak;
};

/*
 * The settings a user gets from `bisectctl bisect` (bisectd/bisection.c:
 * max_runs 40, the job's runs, 3 by default, as the first look; the metric
 * table's min_effect_pct, 1% for a throughput); --max-runs, --initial-runs
 * and --min-effect change them, and each table says which it used.
 */
extern unsigned	sim_max_runs;
extern unsigned	sim_initial_runs;
extern double	sim_min_effect;
extern unsigned	sim_slots;	/* --slots: instead of the scenario's */
extern int	sim_verbose;
extern int	sim_untimed;	/* the driver is not told times and boots */
extern long	sim_trace;	/* trial whose every round is printed */

extern const struct sim_scenario	sim_scenarios[];
extern const size_t			sim_nr_scenarios;
void	sim_scenario_run(const struct sim_scenario *, size_t, unsigned long);

size_t	sim_tally_quantile(size_t *, size_t, double);
void	sim_tally_init(struct sim_tally *, size_t);
void	sim_tally_release(struct sim_tally *);
void	sim_tally_add(struct sim_tally *, const struct sim_outcome *, size_t,
	    int);
void	sim_tally_print(const char *, struct sim_tally *, size_t, int);

/* the machine of each commit's run k: "m" k mod machines */
extern const char	*sim_noise_machine[MAX_SAMPLES];
double	sim_noise_sample(struct sim_noise *, double, size_t, int *);

void	sim_history_make(struct sim_history *, const struct sim_scenario *,
	    gsl_rng *);
void	sim_history_free(struct sim_history *);
void	sim_history_ancestors(const struct sim_history *, size_t,
	    unsigned char *);
void	sim_history_expected(const struct sim_history *, size_t *, size_t *);

const char *sim_store_boot_name(const char *, unsigned);
void	sim_store_init(struct sim_store *, size_t);
void	sim_store_free(struct sim_store *, size_t);
int	sim_store_run(struct sim_store *, struct sim_noise *,
	    const struct sim_history *, size_t, const char *, unsigned,
	    struct sim_outcome *);
void	sim_store_batch(struct sim_store *, struct sim_noise *,
	    const struct sim_history *, const size_t *, const size_t *, size_t,
	    struct sim_outcome *);
void	sim_store_take(struct sim_store *, struct sim_noise *,
	    const struct sim_history *, size_t, size_t, struct sim_outcome *);

void	sim_revert_reset(struct sim_revert *);
int	sim_revert_look(const struct sim_history *, struct sim_noise *,
	    struct sim_store *, struct bisect_result *, struct sim_outcome *,
	    struct sim_revert *);

/* the cost model in use (--rounds), NULL for none, and its clock */
extern const struct sim_cost_model	*sim_cost_active;
extern struct sim_cost_clock		 sim_cost_time;
void	sim_cost_start(struct sim_cost_clock *, size_t);
void	sim_cost_round(struct sim_cost_clock *, const struct sim_history *,
	    const struct sim_store *, const struct bisect_result *,
	    struct sim_outcome *);
void	sim_cost_speculate(struct sim_cost_clock *, struct sim_history *,
	    struct sim_store *, const struct bisect_result *,
	    struct sim_outcome *);
void	sim_cost_finish(struct sim_cost_clock *, const struct sim_history *,
	    struct sim_outcome *);
void	sim_cost_fixed(unsigned, size_t);

void	sim_driver_run(struct sim_history *, const struct sim_scenario *,
	    struct sim_noise *, struct sim_outcome *, size_t, int);
void	sim_fixed_run(struct sim_history *, const struct sim_scenario *,
	    struct sim_noise *, unsigned, struct sim_outcome *);

void	sim_rounds_report(size_t, unsigned long);

#endif
