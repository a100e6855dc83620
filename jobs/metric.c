/*
 * The table of known metrics, in the spirit of LKP's index-perf-all.yaml:
 * for each metric, which way is better, how the values of several
 * instances (processes, threads, nodes) make the run's value, and the
 * smallest change worth reporting. A program file's metrics (jobs/program.h)
 * are looked up first. Names are looked up exactly next, then
 * against the glob patterns in the order they are listed, so a specific
 * pattern must come before a general one. Matching ignores case, so
 * "netperf.Throughput_Mbps" is a throughput like "ebizzy.throughput".
 */
#include <fnmatch.h>
#include <stddef.h>
#include <string.h>

#include "jobs/metric.h"
#include "jobs/program.h"

#define H	JOB_DIRECTION_HIGHER
#define L	JOB_DIRECTION_LOWER
#define U	JOB_DIRECTION_UNKNOWN
#define SUM	METRIC_AGGREGATE_SUM
#define MEAN	METRIC_AGGREGATE_MEAN

/* Names matched as they are. */
static const struct metric_info metric_exact[] = {
	{ "dbench.throughput-MB/sec",		H, SUM,  1.0 },
	{ "dbench.max_latency",			L, MEAN, 5.0 },
	{ "hackbench.throughput",		H, SUM,  1.0 },
	{ "hackbench.workload",			H, SUM,  1.0 },
	{ "vm-scalability.throughput",		H, SUM,  1.0 },
	{ "vm-scalability.median",		H, MEAN, 1.0 },
	{ "vm-scalability.stddev%",		L, MEAN, 10.0 },
	{ "vm-scalability.median_stddev%",	L, MEAN, 10.0 },
	{ "will-it-scale.per_process_ops",	H, SUM,  1.0 },
	{ "will-it-scale.per_thread_ops",	H, SUM,  1.0 },
	{ "will-it-scale.workload",		H, SUM,  1.0 },
	{ "unixbench.score",			H, SUM,  1.0 },
	{ "kbuild.buildtime_per_iteration",	L, MEAN, 1.0 },
	{ "microbench.ops_per_sec",		H, SUM,  1.0 },
	{ "microbench.ns_per_op",		L, MEAN, 1.0 },
	{ "microbench.elapsed",			L, MEAN, 1.0 },

	/* The time monitor (agents/monitor-time.c): GNU time's figures. */
	{ "time.elapsed_time",			L, MEAN, 1.0 },
	{ "time.user_time",			L, MEAN, 1.0 },
	{ "time.system_time",			L, MEAN, 1.0 },
	{ "time.percent_of_cpu_this_job_got",	U, MEAN, 1.0 },
	{ "time.maximum_resident_set_size",	L, MEAN, 1.0 },
	{ "time.voluntary_context_switches",	L, MEAN, 5.0 },
	{ "time.involuntary_context_switches",	L, MEAN, 5.0 },
	{ "time.minor_page_faults",		L, MEAN, 5.0 },
	{ "time.major_page_faults",		L, MEAN, 5.0 },
	{ "time.file_system_inputs",		U, MEAN, 5.0 },
	{ "time.file_system_outputs",		U, MEAN, 5.0 },
};

/* Patterns, tried in order after the exact names. */
static const struct metric_info metric_patterns[] = {
	{ "stress-ng.*.ops_per_sec",		H, SUM,  1.0 },
	{ "stress-ng.*.ops",			H, SUM,  1.0 },
	{ "vm-scalability.*time*",		L, MEAN, 1.0 },
	{ "vm-scalability.*",			H, SUM,  1.0 },
	{ "fio.*latency*",			L, MEAN, 1.0 },
	{ "fio.*_iops",				H, SUM,  1.0 },
	{ "fio.*_bw_*",				H, SUM,  1.0 },
	/*
	 * Monitors (agents/monitor-*.c): no direction, a change is reported
	 * when it is significant. Per-CPU interrupt and softirq counts are
	 * noisy, so they need a larger change.
	 */
	{ "interrupts.*",			U, SUM, 10.0 },
	/* shares of samples, named by symbol: never a direction by name */
	{ "perf-profile.*",			U, MEAN, 1.0 },
	{ "softirqs.*",				U, SUM, 10.0 },
	{ "time.*context_switches",		L, MEAN, 5.0 },
	{ "time.*page_faults",			L, MEAN, 5.0 },
	{ "time.*",				U, MEAN, 1.0 },
	{ "*latency*",				L, MEAN, 1.0 },
	{ "*.ns_per_op",			L, MEAN, 1.0 },
	{ "*.elapsed_time*",			L, MEAN, 1.0 },
	{ "*.ops_per_sec",			H, SUM,  1.0 },
	{ "*.ops_per_s",			H, SUM,  1.0 },
	{ "*throughput*",			H, SUM,  1.0 },
	{ "*.iops",				H, SUM,  1.0 },
	{ "*.score",				H, SUM,  1.0 },
};

/* Unknown metrics: no direction, so they never make a headline alone. */
static const struct metric_info metric_default = { "*", U, MEAN, 1.0 };

const struct metric_info *
metric_lookup(const char *name)
{
	const struct metric_info	*info;
	size_t				 i;

	if (name == NULL)
		return &metric_default;
	/* a program file's own metrics first: it is their definition */
	if ((info = program_metric_info(name)) != NULL)
		return info;
	for (i = 0; i < sizeof metric_exact / sizeof metric_exact[0]; i++) {
		if (strcmp(metric_exact[i].pattern, name) == 0)
			return &metric_exact[i];
	}
	for (i = 0; i < sizeof metric_patterns / sizeof metric_patterns[0];
	    i++) {
		if (fnmatch(metric_patterns[i].pattern, name,
		    FNM_CASEFOLD) == 0)
			return &metric_patterns[i];
	}
	return &metric_default;
}

const char *
metric_aggregate_name(enum metric_aggregate aggregate)
{
	switch (aggregate) {
	case METRIC_AGGREGATE_SUM:
		return "sum";
	case METRIC_AGGREGATE_MEAN:
		break;
	}
	return "mean";
}

double
metric_aggregate(const struct metric_info *info, const double *values,
    size_t n)
{
	double	sum = 0;
	size_t	i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		sum += values[i];
	if (info->aggregate == METRIC_AGGREGATE_SUM)
		return sum;
	return sum / (double)n;
}
