/*
 * The table of monitors the agent has, looked up by the names a job's
 * "monitors:" lists. Later monitors (proc-vmstat, meminfo, numastat, ...)
 * add an entry here and a monitor-NAME.c beside this file.
 */
#include <stddef.h>
#include <string.h>

#include "agents/monitor.h"

static const struct monitor_ops *const monitor_table[] = {
	&monitor_time_ops,
};

const struct monitor_ops *
monitor_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof monitor_table / sizeof monitor_table[0]; i++) {
		if (strcmp(monitor_table[i]->name, name) == 0)
			return monitor_table[i];
	}
	return NULL;
}
