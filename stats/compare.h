/*
 * Comparing two sets of samples: the percentage change of b against a, a
 * confidence interval for it, a p-value from a test suited to small,
 * non-normal samples, and a verdict that respects the metric's direction
 * and a minimum effect size. docs/methodology.md gives the reasons.
 */
#ifndef STATS_COMPARE_H
#define STATS_COMPARE_H

#include <stddef.h>

struct compare_opts {
	double	alpha;		/* significance level; 0 means 0.05 */
	double	min_effect_pct;	/* |change| below this is not a change */
	int	direction;	/* +1 higher is better, -1 lower, 0 unknown */
};

enum compare_verdict {
	COMPARE_SAME = 0,	/* no significant change */
	COMPARE_REGRESSION,
	COMPARE_IMPROVEMENT,
	COMPARE_CHANGED,	/* significant, direction unknown */
};

struct comparison {
	double			change_pct;	/* (mean b - mean a) / |mean a| */
	double			ci_lo;		/* (1 - alpha) interval, % */
	double			ci_hi;
	double			p_value;
	int			significant;	/* p < alpha and |change| >= min */
	enum compare_verdict	verdict;
	/* added: the evidence behind p_value and the interval */
	double			mean_a;
	double			mean_b;
	double			t;		/* Welch's t of b against a */
	double			df;		/* Welch-Satterthwaite */
	double			mw_p_value;	/* Mann-Whitney U, robustness */
	/* compare_blocked: the machines the change was estimated within */
	unsigned		blocks;		/* 0: not blocked */
};

/*
 * p_value is Welch's two-sided t-test, the interval Fieller's for the ratio
 * of the means with Welch's degrees of freedom, so that a bounded interval
 * excludes 0% exactly when p < alpha; it is (-inf, +inf) when mean a is not
 * itself distinguishable from 0. opts may be NULL (defaults). Returns -1 when
 * either side has fewer than two samples, a sample is not finite, or alpha
 * is outside (0, 1).
 */
int	compare_samples(struct comparison *, const double *a, size_t na,
	    const double *b, size_t nb, const struct compare_opts *);
/*
 * The same comparison with each sample's machine (block_a[i] for a[i],
 * block_b[i] for b[i]; any numbering), for runs spread over several test
 * machines: the change is estimated within machines, by least squares in
 * the additive model value = machine + side + noise, so that one machine
 * being faster than another adds nothing to the noise. t, df and p_value
 * are that model's (df = n - machines - 1); the interval is Fieller's for
 * the change relative to mean a, with the model's covariances. With one
 * machine, or none that ran both sides (the machine and the side cannot
 * then be told apart), it is compare_samples, blocks 0.
 */
int	compare_blocked(struct comparison *, const double *a,
	    const size_t *block_a, size_t na, const double *b,
	    const size_t *block_b, size_t nb, const struct compare_opts *);
/*
 * The building blocks, exposed for tests against SciPy:
 * scipy.stats.mannwhitneyu(a, b, alternative='two-sided') and
 * scipy.stats.ttest_ind(a, b, equal_var=False) as in SciPy 1.10. NaN where
 * SciPy gives NaN or raises (empty side, NaN input; Welch: n < 2, or both
 * sides constant).
 */
double	compare_mannwhitney_p(const double *a, size_t na, const double *b,
	    size_t nb);
double	compare_welch_p(const double *a, size_t na, const double *b,
	    size_t nb);
/* "same", "regression", "improvement", "changed" */
const char *compare_verdict_name(enum compare_verdict);

#endif
