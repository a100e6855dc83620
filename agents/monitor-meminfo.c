/*
 * meminfo: every line of /proc/meminfo (MemFree, AnonHugePages,
 * DirectMap2M, ...) as its mean over the run, sampled every interval, in
 * kB as the file gives them (HugePages_* are page counts): LKP's
 * meminfo.* metrics.
 */
#include "agents/monitor-file.h"
#include "util/xalloc.h"

static int
monitor_meminfo_is_level(const char *name)
{
	(void)name;
	return 1;
}

static const struct monitor_file_spec monitor_meminfo_spec = {
	.prefix = "meminfo",
	.parse = monitor_snap_parse_meminfo,
	.is_level = monitor_meminfo_is_level,
	.sample = 1,
};

static int
monitor_meminfo_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_one(state, &monitor_meminfo_spec, root, "/proc/meminfo",
	    cause);
}

const struct monitor_ops monitor_meminfo_ops = {
	.name = "meminfo",
	.start = monitor_meminfo_start,
	.sample = monitor_file_sample,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};
