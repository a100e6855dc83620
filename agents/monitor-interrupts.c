/*
 * interrupts and softirqs: the change over the run of every row of
 * /proc/interrupts and /proc/softirqs, summed over CPUs, with one instance
 * per CPU column. Names follow LKP's stats/interrupts:
 * interrupts.LOC:Local_timer_interrupts, interrupts.24:IO-APIC.5-edge.ACPI:Ged,
 * softirqs.TIMER. Where LKP writes one metric per CPU
 * (interrupts.CPU3.LOC:...), the CPUs here are the metric's instances.
 */
#include "agents/monitor-file.h"
#include "util/xalloc.h"

static const struct monitor_file_spec monitor_interrupts_spec = {
	.prefix = "interrupts",
	.parse = monitor_snap_parse_table,
	.is_level = NULL,
	.sample = 0,
};

static const struct monitor_file_spec monitor_softirqs_spec = {
	.prefix = "softirqs",
	.parse = monitor_snap_parse_table,
	.is_level = NULL,
	.sample = 0,
};

static int
monitor_interrupts_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_one(state, &monitor_interrupts_spec, root,
	    "/proc/interrupts", cause);
}

static int
monitor_interrupts_softirqs_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_one(state, &monitor_softirqs_spec, root,
	    "/proc/softirqs", cause);
}

const struct monitor_ops monitor_interrupts_ops = {
	.name = "interrupts",
	.start = monitor_interrupts_start,
	.sample = NULL,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};

const struct monitor_ops monitor_softirqs_ops = {
	.name = "softirqs",
	.start = monitor_interrupts_softirqs_start,
	.sample = NULL,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};
