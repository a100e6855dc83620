/*
 * The "time" monitor: what GNU time(1) prints for a command, under LKP's
 * metric names, taken from the rusage that wait4() returns for the
 * testcase (which covers every descendant the testcase waited for). It
 * runs for every job: time.elapsed_time is the one figure every testcase
 * has.
 */
#include <stddef.h>

#include "agents/monitor.h"
#include "agents/result.h"

static double
monitor_time_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static int
monitor_time_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	const struct rusage	*ru = &e->rusage;
	double			 elapsed, user, sys;

	elapsed = (double)e->elapsed.tv_sec + (double)e->elapsed.tv_nsec / 1e9;
	user = monitor_time_seconds(&ru->ru_utime);
	sys = monitor_time_seconds(&ru->ru_stime);
	result_metric(r, "time.elapsed_time")->value = elapsed;
	result_metric(r, "time.user_time")->value = user;
	result_metric(r, "time.system_time")->value = sys;
	result_metric(r, "time.percent_of_cpu_this_job_got")->value =
	    elapsed > 0 ? (user + sys) * 100 / elapsed : 0;
	result_metric(r, "time.maximum_resident_set_size")->value =
	    (double)ru->ru_maxrss;
	result_metric(r, "time.minor_page_faults")->value =
	    (double)ru->ru_minflt;
	result_metric(r, "time.major_page_faults")->value =
	    (double)ru->ru_majflt;
	result_metric(r, "time.voluntary_context_switches")->value =
	    (double)ru->ru_nvcsw;
	result_metric(r, "time.involuntary_context_switches")->value =
	    (double)ru->ru_nivcsw;
	result_metric(r, "time.file_system_inputs")->value =
	    (double)ru->ru_inblock;
	result_metric(r, "time.file_system_outputs")->value =
	    (double)ru->ru_oublock;
	return 0;
}

const struct monitor_ops monitor_time_ops = {
	.name = "time",
	.start = NULL,
	.stop = monitor_time_stop,
	.free = NULL,
};
