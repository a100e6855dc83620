/*
 * Monitors: what the agent measures around a testcase besides the
 * testcase's own output (LKP's monitors: time, proc-vmstat, meminfo, ...).
 * Each is a table entry with start and stop; stop adds its metrics, named
 * "MONITOR.field", to the run's result. Only "time" exists so far; it needs
 * no start, since its figures come from the testcase's wait4() rusage.
 */
#ifndef AGENTS_MONITOR_H
#define AGENTS_MONITOR_H

#include <sys/resource.h>

#include <time.h>

struct result;

/* How the testcase ended, for monitors that take their figures from it. */
struct monitor_exit {
	struct timespec	elapsed;	/* wall clock, fork to reap */
	struct rusage	rusage;		/* of the testcase and its children */
};

struct monitor_ops {
	const char	*name;
	/* root: where /proc and /sys are (NULL: "/"); *state for stop. */
	int		(*start)(void **state, const char *root, char **cause);
	int		(*stop)(void *state, const struct monitor_exit *,
			    struct result *, char **cause);
	void		(*free)(void *state);
};

extern const struct monitor_ops monitor_time_ops;

/* By name; NULL when no such monitor is built. */
const struct monitor_ops *monitor_find(const char *name);

#endif
