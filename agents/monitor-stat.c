/*
 * proc-stat: how the CPUs spent the run, from /proc/stat. For each state
 * (user, nice, system, idle, iowait, irq, softirq, steal, guest,
 * guest_nice) proc-stat.cpu.STATE% is its share of the CPU time that
 * passed, over all CPUs, with one instance per CPU; guest time is already
 * inside user and nice, so the shares of the first eight states add up to
 * 100. The counters intr, ctxt, processes and softirq are reported as
 * their change, procs_running and procs_blocked as their mean, sampled
 * every interval.
 */
#include <stdio.h>
#include <string.h>

#include "agents/monitor-file.h"
#include "agents/result.h"
#include "util/xalloc.h"

static const char *const monitor_stat_states[] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
	"guest", "guest_nice",
};
#define MONITOR_STAT_TOTAL	8	/* states that add up to all time */

static int
monitor_stat_is_level(const char *name)
{
	return strcmp(name, "procs_running") == 0 ||
	    strcmp(name, "procs_blocked") == 0;
}

static int
monitor_stat_is_counter(const char *name)
{
	return strcmp(name, "intr") == 0 || strcmp(name, "ctxt") == 0 ||
	    strcmp(name, "processes") == 0 || strcmp(name, "softirq") == 0;
}

/* The change of cpu.STATE, overall (col -1) or on one CPU. */
static double
monitor_stat_delta(const struct monitor_file *mf, size_t state, long col)
{
	const struct monitor_field	*a, *b;
	char				 name[32];

	snprintf(name, sizeof name, "cpu.%s", monitor_stat_states[state]);
	if ((a = monitor_snap_find(&mf->last, name)) == NULL ||
	    (b = monitor_snap_find(&mf->first, name)) == NULL)
		return 0;
	if (col < 0)
		return a->value - b->value;
	if ((size_t)col >= a->nr_cols || (size_t)col >= b->nr_cols)
		return 0;
	return a->cols[col] - b->cols[col];
}

static size_t
monitor_stat_cpus(const struct monitor_file *mf)
{
	const struct monitor_field	*a, *b;

	if ((a = monitor_snap_find(&mf->last, "cpu.user")) == NULL ||
	    (b = monitor_snap_find(&mf->first, "cpu.user")) == NULL ||
	    a->nr_cols != b->nr_cols)
		return 0;
	return a->nr_cols;
}

static double
monitor_stat_total(const struct monitor_file *mf, long col)
{
	double	t = 0;
	size_t	i;

	for (i = 0; i < MONITOR_STAT_TOTAL; i++)
		t += monitor_stat_delta(mf, i, col);
	return t;
}

static void
monitor_stat_emit(struct monitor_file *mf, struct result *r)
{
	struct result_metric	*m;
	const struct monitor_field *f;
	char			 name[64];
	size_t			 i, c, ncpu = monitor_stat_cpus(mf);
	double			 total, t;

	total = monitor_stat_total(mf, -1);
	for (i = 0; i < sizeof monitor_stat_states /
	    sizeof monitor_stat_states[0]; i++) {
		snprintf(name, sizeof name, "cpu.%s",
		    monitor_stat_states[i]);
		if (monitor_snap_find(&mf->last, name) == NULL ||
		    total <= 0)
			continue;
		snprintf(name, sizeof name, "proc-stat.cpu.%s%%",
		    monitor_stat_states[i]);
		m = result_metric(r, name);
		m->value = 100 * monitor_stat_delta(mf, i, -1) / total;
		for (c = 0; ncpu > 1 && c < ncpu; c++) {
			t = monitor_stat_total(mf, (long)c);
			result_metric_add_instance(m, t > 0 ? 100 *
			    monitor_stat_delta(mf, i, (long)c) / t : 0);
		}
	}
	monitor_snap_emit_delta(r, "proc-stat", &mf->first, &mf->last,
	    monitor_stat_is_counter, 1);
	for (i = 0; i < mf->acc.nr; i++) {
		f = &mf->acc.fields[i];
		if (!monitor_stat_is_level(f->name) || f->n == 0)
			continue;
		snprintf(name, sizeof name, "proc-stat.%s", f->name);
		result_metric(r, name)->value = f->value / (double)f->n;
	}
}

static const struct monitor_file_spec monitor_stat_spec = {
	.prefix = "proc-stat",
	.parse = monitor_snap_parse_stat,
	.is_level = monitor_stat_is_level,
	.sample = 1,
	.emit = monitor_stat_emit,
};

static int
monitor_stat_start(void **state, const char *root, char **cause)
{
	return monitor_file_start_one(state, &monitor_stat_spec, root, "/proc/stat",
	    cause);
}

const struct monitor_ops monitor_proc_stat_ops = {
	.name = "proc-stat",
	.start = monitor_stat_start,
	.sample = monitor_file_sample,
	.stop = monitor_file_stop,
	.free = monitor_file_free,
};
