/*
 * The table of monitors the agent has, looked up by the names a job's
 * "monitors:" lists (LKP's names, with "numastat" for LKP's
 * "numa-numastat"), and the set a job without "monitors:" gets. Each
 * monitor is a monitor-NAME.c beside this file.
 */
#include <stddef.h>
#include <string.h>

#include "agents/monitor.h"

static const struct monitor_ops *const monitor_table[] = {
	&monitor_time_ops,
	&monitor_proc_vmstat_ops,
	&monitor_meminfo_ops,
	&monitor_numastat_ops,
	&monitor_numa_meminfo_ops,
	&monitor_proc_stat_ops,
	&monitor_interrupts_ops,
	&monitor_softirqs_ops,
	&monitor_cpufreq_ops,
};

static const struct {
	const char	*alias;
	const char	*name;
} monitor_aliases[] = {
	{ "numa-numastat", "numastat" },
};

const char *const monitor_defaults[] = {
	"time", "proc-vmstat", "meminfo", "numastat", "numa-meminfo",
	"proc-stat", "interrupts", "softirqs", "cpufreq", NULL
};

const struct monitor_ops *
monitor_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof monitor_aliases / sizeof monitor_aliases[0];
	    i++) {
		if (strcmp(monitor_aliases[i].alias, name) == 0) {
			name = monitor_aliases[i].name;
			break;
		}
	}
	for (i = 0; i < sizeof monitor_table / sizeof monitor_table[0]; i++) {
		if (strcmp(monitor_table[i]->name, name) == 0)
			return monitor_table[i];
	}
	return NULL;
}
