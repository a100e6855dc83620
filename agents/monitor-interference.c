/*
 * interference: how much of the machine something else took while the
 * run ran, and whether that disturbed it (docs/monitors.md,
 * "Interference"). Always on, like time. It reads /proc/stat at start and
 * stop (busy and steal time), counts the runnable tasks every interval
 * (procs_running less the testcase's process group and the agent's own
 * threads), and writes interference.* metrics and, past the limits, the
 * result's "disturbed" line.
 */
#include <sys/resource.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/monitor-interference.h"
#include "agents/monitor.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

double
monitor_interference_runqueue(double procs_running, unsigned job_running,
    unsigned agent_running)
{
	double	v = procs_running - (double)job_running - (double)agent_running;

	return v > 0 ? v : 0;
}

void
monitor_interference_compute(const struct interference_input *in,
    struct interference *out)
{
	double	busy, total, steal, hz = in->hz > 0 ? in->hz : 100;

	memset(out, 0, sizeof *out);
	busy = (in->after.user - in->before.user) +
	    (in->after.nice - in->before.nice) +
	    (in->after.system - in->before.system);
	total = in->after.total - in->before.total;
	steal = in->after.steal - in->before.steal;
	out->other_cpu_s = busy / hz - in->job_cpu - in->agent_cpu;
	if (out->other_cpu_s < 0)
		out->other_cpu_s = 0;
	out->elapsed = in->elapsed;
	if (in->elapsed > 0)
		out->other_cpu_pct = 100 * out->other_cpu_s / in->elapsed;
	/* each CPU's counters are whole ticks, read at both ends */
	out->allowance_s = 2.0 * (in->nr_cpu > 0 ? in->nr_cpu : 1) / hz;
	if (in->samples > 0)
		out->runqueue = in->runqueue_sum / in->samples;
	if (total > 0 && steal > 0)
		out->steal_pct = 100 * steal / total;
}

int
monitor_interference_disturbed(const struct interference *x, char **why)
{
	double	excess = x->other_cpu_s - x->allowance_s;

	if (x->elapsed > 0 && excess > INTERFERENCE_MAX_OTHER_CPU / 100 *
	    x->elapsed) {
		*why = xasprintf("other processes took %.0f%% of one CPU "
		    "(limit %.0f%%; run queue %.2f beyond the run's own)",
		    x->other_cpu_pct, INTERFERENCE_MAX_OTHER_CPU, x->runqueue);
		return 1;
	}
	if (x->steal_pct > INTERFERENCE_MAX_STEAL) {
		*why = xasprintf("the hypervisor stole %.1f%% of the CPU time "
		    "(limit %.0f%%)", x->steal_pct, INTERFERENCE_MAX_STEAL);
		return 1;
	}
	return 0;
}

/* Above the kernel's PID_MAX_LIMIT (4M): such a pid is not read. */
#define MONITOR_INTERFERENCE_MAX_PID	(4L << 20)

struct monitor_interference {
	char			*root;
	struct strbuf		 buf;
	struct interference_input in;
	struct rusage		 self_before;
	pid_t			 self;
	int			 pgid;		/* 0 until attached */
	unsigned char		*known;		/* by pid: 0 unread, 1 other,
						   2 the testcase's */
	size_t			 nr_known;
	char			*error;		/* of a failed sample */
};

static double
monitor_interference_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* The "cpu" line of /proc/stat and the number of "cpuN" lines. */
static int
monitor_interference_stat(struct monitor_interference *mi,
    struct interference_cpu *cpu, unsigned *nr_cpu, double *running,
    char **cause)
{
	const struct monitor_field	*f;
	struct monitor_snap		 s;
	static const char *const	 states[] = {
		"cpu.user", "cpu.nice", "cpu.system", "cpu.idle", "cpu.iowait",
		"cpu.irq", "cpu.softirq", "cpu.steal",
	};
	size_t				 i;
	int				 r = -1;

	memset(&s, 0, sizeof s);
	if (monitor_snap_read(mi->root, "/proc/stat", &mi->buf, cause) != 0)
		goto out;
	if (monitor_snap_parse_stat(&s, mi->buf.buf) < 0 ||
	    monitor_snap_find(&s, "cpu.user") == NULL) {
		error_set(cause, "'/proc/stat' has no 'cpu' line");
		goto out;
	}
	memset(cpu, 0, sizeof *cpu);
	for (i = 0; i < sizeof states / sizeof states[0]; i++) {
		if ((f = monitor_snap_find(&s, states[i])) == NULL)
			continue;
		cpu->total += f->value;
		if (i == 0)
			cpu->user = f->value;
		else if (i == 1)
			cpu->nice = f->value;
		else if (i == 2)
			cpu->system = f->value;
		else if (i == 7)
			cpu->steal = f->value;
	}
	if (nr_cpu != NULL) {
		f = monitor_snap_find(&s, "cpu.user");
		*nr_cpu = f->nr_cols > 0 ? (unsigned)f->nr_cols : 1;
	}
	if (running != NULL)
		*running = (f = monitor_snap_find(&s, "procs_running")) !=
		    NULL ? f->value : 0;
	r = 0;
out:
	monitor_snap_release(&s);
	return r;
}

/* State letter and process group of ROOT/proc/.../stat, or -1. */
static int
monitor_interference_task(struct monitor_interference *mi, const char *path,
    char *state, long *pgrp)
{
	const char	*p;
	long		 ppid;

	if (monitor_snap_read(mi->root, path, &mi->buf, NULL) != 0 ||
	    (p = strrchr(mi->buf.buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %ld %ld", state, &ppid, pgrp) != 3)
		return -1;
	return 0;
}

/* Runnable threads of process pid (ROOT/proc/PID/task/ * /stat). */
static unsigned
monitor_interference_threads(struct monitor_interference *mi, long pid)
{
	char		 path[96], *dir;
	struct dirent	*de;
	DIR		*d;
	unsigned	 n = 0;
	char		 state;
	long		 pgrp;

	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	dir = xasprintf("%s%s", mi->root != NULL ? mi->root : "", path);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/stat", pid,
		    de->d_name);
		if (monitor_interference_task(mi, path, &state, &pgrp) == 0 &&
		    state == 'R')
			n++;
	}
	closedir(d);
	free(dir);
	return n;
}

/*
 * The testcase's runnable threads (its process group) and the agent's.
 * A process of the group that is not running may have running threads,
 * so every member's threads are counted. Whether a process is a member is
 * read once per pid (mi->known): a reading then costs a readdir of /proc
 * and the members' own files, not a file of every process.
 */
static void
monitor_interference_count(struct monitor_interference *mi, int pgid,
    unsigned *job, unsigned *agent)
{
	char		 path[64], *dir;
	struct dirent	*de;
	DIR		*d;
	char		 state;
	long		 pid, pgrp;
	size_t		 n;

	*job = 0;
	*agent = monitor_interference_threads(mi, (long)mi->self);
	if (pgid <= 0)
		return;
	dir = xasprintf("%s/proc", mi->root != NULL ? mi->root : "");
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0 || pid == (long)mi->self ||
		    pid >= MONITOR_INTERFERENCE_MAX_PID)
			continue;
		if ((size_t)pid >= mi->nr_known) {
			n = mi->nr_known;
			mi->nr_known = (size_t)pid * 2 + 1024;
			mi->known = xreallocarray(mi->known, mi->nr_known, 1);
			memset(mi->known + n, 0, mi->nr_known - n);
		}
		if (mi->known[pid] == 0) {
			snprintf(path, sizeof path, "/proc/%ld/stat", pid);
			if (monitor_interference_task(mi, path, &state,
			    &pgrp) != 0)
				continue;
			mi->known[pid] = pgrp == pgid ? 2 : 1;
		}
		if (mi->known[pid] == 2)
			*job += monitor_interference_threads(mi, pid);
	}
	closedir(d);
	free(dir);
}

static void
monitor_interference_sample(void *state)
{
	struct monitor_interference	*mi = state;
	struct interference_cpu		 cpu;
	unsigned			 job, agent;
	double				 running;
	char				*cause = NULL;
	int				 pgid;

	pgid = __atomic_load_n(&mi->pgid, __ATOMIC_ACQUIRE);
	if (monitor_interference_stat(mi, &cpu, NULL, &running, &cause) != 0) {
		if (mi->error == NULL)
			mi->error = cause;
		else
			free(cause);
		return;
	}
	monitor_interference_count(mi, pgid, &job, &agent);
	mi->in.runqueue_sum += monitor_interference_runqueue(running, job, agent);
	mi->in.samples++;
}

static void
monitor_interference_attach(void *state, int pgid)
{
	struct monitor_interference	*mi = state;

	__atomic_store_n(&mi->pgid, pgid, __ATOMIC_RELEASE);
}

static int
monitor_interference_start(void **state, const char *root, char **cause)
{
	struct monitor_interference	*mi = xcalloc(1, sizeof *mi);
	long				 hz = sysconf(_SC_CLK_TCK);

	strbuf_init(&mi->buf);
	mi->root = root != NULL && strcmp(root, "/") != 0 ? xstrdup(root) :
	    NULL;
	mi->self = getpid();
	mi->in.hz = hz > 0 ? (double)hz : 100;
	if (monitor_interference_stat(mi, &mi->in.before, &mi->in.nr_cpu,
	    NULL, cause) != 0) {
		strbuf_release(&mi->buf);
		free(mi->root);
		free(mi);
		return -1;
	}
	getrusage(RUSAGE_SELF, &mi->self_before);
	*state = mi;
	return 0;
}

static int
monitor_interference_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	struct monitor_interference	*mi = state;
	struct interference		 x;
	struct rusage			 self;
	char				*why = NULL;

	if (mi->error != NULL) {
		error_set(cause, "%s", mi->error);
		return -1;
	}
	if (mi->in.samples == 0)
		monitor_interference_sample(mi);
	if (monitor_interference_stat(mi, &mi->in.after, NULL, NULL,
	    cause) != 0)
		return -1;
	getrusage(RUSAGE_SELF, &self);
	mi->in.elapsed = (double)e->elapsed.tv_sec +
	    (double)e->elapsed.tv_nsec / 1e9;
	mi->in.job_cpu = monitor_interference_seconds(&e->rusage.ru_utime) +
	    monitor_interference_seconds(&e->rusage.ru_stime);
	mi->in.agent_cpu = monitor_interference_seconds(&self.ru_utime) +
	    monitor_interference_seconds(&self.ru_stime) -
	    monitor_interference_seconds(&mi->self_before.ru_utime) -
	    monitor_interference_seconds(&mi->self_before.ru_stime);
	monitor_interference_compute(&mi->in, &x);
	result_metric(r, "interference.other_cpu%")->value = x.other_cpu_pct;
	result_metric(r, "interference.other_cpu_s")->value = x.other_cpu_s;
	result_metric(r, "interference.runqueue")->value = x.runqueue;
	result_metric(r, "interference.steal%")->value = x.steal_pct;
	if (monitor_interference_disturbed(&x, &why)) {
		result_set_disturbed(r, "%s", why);
		free(why);
	}
	return 0;
}

static void
monitor_interference_free(void *state)
{
	struct monitor_interference	*mi = state;

	if (mi == NULL)
		return;
	strbuf_release(&mi->buf);
	free(mi->root);
	free(mi->error);
	free(mi->known);
	free(mi);
}

const struct monitor_ops monitor_interference_ops = {
	.name = "interference",
	.start = monitor_interference_start,
	.sample = monitor_interference_sample,
	.attach = monitor_interference_attach,
	.stop = monitor_interference_stop,
	.free = monitor_interference_free,
};
