/*
 * The per-node monitors, LKP's numa-numastat and numa-meminfo: for each
 * node of /sys/devices/system/node, the change over the run of its
 * numastat counters (numa-numastat.node0.numa_hit, .numa_miss,
 * .local_node, .other_node, ...) and the mean over the run of its meminfo
 * (numa-meminfo.node1.MemFree, ...). Where memory is allocated, and how
 * much of it is remote, is what moves when a NUMA policy changes (seed
 * 004). The job names the first "numastat" (or "numa-numastat").
 */
#include "agents/monitor-file.h"

static const struct monitor_file_spec monitor_numastat_spec = {
	.prefix = "numa-numastat",
	.parse = monitor_snap_parse_vmstat,
	.is_level = NULL,
	.sample = 0,
};

static int
monitor_numa_meminfo_is_level(const char *name)
{
	(void)name;
	return 1;
}

static const struct monitor_file_spec monitor_numa_meminfo_spec = {
	.prefix = "numa-meminfo",
	.parse = monitor_snap_parse_meminfo,
	.is_level = monitor_numa_meminfo_is_level,
	.sample = 1,
};

static int
monitor_numa_stat_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_nodes(state, &monitor_numastat_spec, root,
	    "/sys/devices/system/node/node%u/numastat", cause);
}

static int
monitor_numa_meminfo_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_nodes(state, &monitor_numa_meminfo_spec,
	    root, "/sys/devices/system/node/node%u/meminfo", cause);
}

const struct monitor_ops monitor_numastat_ops = {
	.name = "numastat",
	.start = monitor_numa_stat_start,
	.sample = monitor_file_sample,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};

const struct monitor_ops monitor_numa_meminfo_ops = {
	.name = "numa-meminfo",
	.start = monitor_numa_meminfo_start,
	.sample = monitor_file_sample,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};
