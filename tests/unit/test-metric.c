/*
 * Unit tests for the metric table (jobs/metric.c): exact names win over
 * patterns, patterns apply in order, unknown names get the default, and
 * aggregates sum or average as the table says.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/metric.h"
#include "tests/unit/tap.h"

struct metric_case {
	const char		*name;
	enum job_direction	 direction;
	enum metric_aggregate	 aggregate;
	const char		*pattern;	/* the entry that must match */
};

static const struct metric_case metric_cases[] = {
	{ "dbench.throughput-MB/sec", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "dbench.throughput-MB/sec" },
	{ "hackbench.throughput", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_MEAN, "hackbench.throughput" },
	{ "vm-scalability.throughput", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "vm-scalability.throughput" },
	{ "vm-scalability.median", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_MEAN, "vm-scalability.median" },
	{ "vm-scalability.free_time", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "vm-scalability.*time*" },
	{ "vm-scalability.workload", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "vm-scalability.*" },
	{ "stress-ng.fork.ops_per_sec", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "stress-ng.*.ops_per_sec" },
	{ "stress-ng.fork.ops", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "stress-ng.*.ops" },
	{ "time.elapsed_time", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "time.elapsed_time" },
	{ "time.user_time", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "time.user_time" },
	{ "time.system_time", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "time.system_time" },
	{ "time.involuntary_context_switches", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "time.involuntary_context_switches" },
	{ "time.maximum_resident_set_size", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "time.maximum_resident_set_size" },
	{ "time.percent_of_cpu_this_job_got", JOB_DIRECTION_UNKNOWN,
	    METRIC_AGGREGATE_MEAN, "time.percent_of_cpu_this_job_got" },
	{ "time.other_context_switches", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "time.*context_switches" },
	{ "time.something_new", JOB_DIRECTION_UNKNOWN,
	    METRIC_AGGREGATE_MEAN, "time.*" },
	{ "cyclictest.max_latency_us", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "*latency*" },
	{ "fio.read_clat_latency_us", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "fio.*latency*" },
	{ "fio.write_iops", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "fio.*_iops" },
	{ "microbench.ops_per_sec", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "microbench.ops_per_sec" },
	{ "microbench.ns_per_op", JOB_DIRECTION_LOWER,
	    METRIC_AGGREGATE_MEAN, "microbench.ns_per_op" },
	{ "mybench.ops_per_sec", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "*.ops_per_sec" },
	{ "ebizzy.throughput", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "*throughput*" },
	{ "netperf.Throughput_Mbps", JOB_DIRECTION_HIGHER,
	    METRIC_AGGREGATE_SUM, "*throughput*" },
	{ "meminfo.DirectMap2M", JOB_DIRECTION_UNKNOWN,
	    METRIC_AGGREGATE_MEAN, "*" },
	{ "", JOB_DIRECTION_UNKNOWN, METRIC_AGGREGATE_MEAN, "*" },
};

static void
test_lookup(void)
{
	const struct metric_case	*c;
	const struct metric_info	*m;
	size_t				 i;

	for (i = 0; i < sizeof metric_cases / sizeof metric_cases[0]; i++) {
		c = &metric_cases[i];
		m = metric_lookup(c->name);
		if (!ok(strcmp(m->pattern, c->pattern) == 0,
		    "'%s' matches '%s'", c->name, c->pattern))
			diag("got '%s'", m->pattern);
		is_int(m->direction, c->direction, "'%s' direction", c->name);
		is_int(m->aggregate, c->aggregate, "'%s' aggregates by %s",
		    c->name, metric_aggregate_name(c->aggregate));
		ok(m->min_effect_pct > 0 && m->min_effect_pct < 100,
		    "'%s' has a sane minimum effect", c->name);
	}
	m = metric_lookup(NULL);
	ok(m != NULL && m->direction == JOB_DIRECTION_UNKNOWN,
	    "NULL name gets the default");
	is_close(metric_lookup("unknown.metric")->min_effect_pct, 1.0, 1e-12,
	    "default minimum effect is 1%%");
}

static void
test_aggregate(void)
{
	const double	v[] = { 1819435, 1732205, 558694, 454652 };
	double		want_sum = 0;
	size_t		i;

	for (i = 0; i < 4; i++)
		want_sum += v[i];
	is_close(metric_aggregate(metric_lookup("vm-scalability.throughput"),
	    v, 4), want_sum, 1e-12, "throughput of processes adds up");
	is_close(metric_aggregate(metric_lookup("cyclictest.avg_latency"),
	    v, 4), want_sum / 4, 1e-12, "latency of processes averages");
	is_close(metric_aggregate(metric_lookup("x.y"), v, 0), 0, 1e-12,
	    "no instances aggregate to 0");
	is_str(metric_aggregate_name(METRIC_AGGREGATE_SUM), "sum",
	    "sum has a name");
	is_str(metric_aggregate_name(METRIC_AGGREGATE_MEAN), "mean",
	    "mean has a name");
}

int
main(void)
{
	test_lookup();
	test_aggregate();
	return tap_done();
}
