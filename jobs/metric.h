/*
 * The table of known metrics: which way is better and how per-instance
 * values make the run's aggregate, in the manner of LKP's
 * index-perf-all.yaml. Lookup is by exact name, then by glob pattern.
 */
#ifndef JOBS_METRIC_H
#define JOBS_METRIC_H

#include "jobs/job.h"

enum metric_aggregate {
	METRIC_AGGREGATE_MEAN = 0,
	METRIC_AGGREGATE_SUM,		/* throughput of N processes adds up */
};

struct metric_info {
	const char		*pattern;	/* fnmatch(3) pattern */
	enum job_direction	 direction;
	enum metric_aggregate	 aggregate;
	double			 min_effect_pct; /* smaller changes are noise */
};

/* Never NULL: unknown metrics get a default entry (direction unknown). */
const struct metric_info *metric_lookup(const char *name);
/* "sum" or "mean". */
const char	*metric_aggregate_name(enum metric_aggregate);
/* The run's value from n per-instance values (0 when n is 0). */
double		 metric_aggregate(const struct metric_info *,
		     const double *values, size_t n);

#endif
