/*
 * proc-vmstat: the counters of /proc/vmstat (pgfault, pswpout, numa_hit,
 * thp_fault_alloc, ...) as their change over the run, and its levels
 * (nr_free_pages, nr_anon_pages, ... and workingset_nodes) as their mean
 * over the run, sampled every interval: LKP's proc-vmstat.* metrics.
 */
#include <string.h>

#include "agents/monitor-file.h"
#include "util/xalloc.h"

static int
monitor_vmstat_is_level(const char *name)
{
	return strncmp(name, "nr_", 3) == 0 ||
	    strcmp(name, "workingset_nodes") == 0;
}

static const struct monitor_file_spec monitor_vmstat_spec = {
	.prefix = "proc-vmstat",
	.parse = monitor_snap_parse_vmstat,
	.is_level = monitor_vmstat_is_level,
	.sample = 1,
};

static int
monitor_vmstat_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_one(state, &monitor_vmstat_spec, root, "/proc/vmstat",
	    cause);
}

const struct monitor_ops monitor_proc_vmstat_ops = {
	.name = "proc-vmstat",
	.start = monitor_vmstat_start,
	.sample = monitor_file_sample,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};
