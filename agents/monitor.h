/*
 * Monitors: what the agent measures around a testcase besides its own
 * output, as LKP's monitors do, each a table entry with start, an optional
 * periodic sample and stop; /proc and /sys readings become snapshots,
 * counters reported as differences, levels as means (docs/monitors.md).
 */
#ifndef AGENTS_MONITOR_H
#define AGENTS_MONITOR_H

#include <sys/resource.h>

#include <stddef.h>
#include <time.h>

struct job;
struct result;
struct strbuf;

/* How the testcase ended, for monitors that take their figures from it. */
struct monitor_exit {
	struct timespec	elapsed;	/* wall clock, fork to reap */
	struct rusage	rusage;		/* of the testcase and its children */
};

/* What a monitor that takes options or keeps a file is given at start. */
struct monitor_run {
	const char		*root;		/* /proc and /sys; NULL: "/" */
	const struct job	*job;
	const char		*resultdir;	/* files it keeps go there */
	const char		*workdir;	/* the build's artifacts */
};

struct monitor_ops {
	const char	*name;
	/*
	 * root: where /proc and /sys are (NULL: "/"); *state for the others.
	 * -1 with *cause when the monitor's files cannot be read here (no
	 * cpufreq in a VM, no NUMA): the monitor is then left out of the run.
	 */
	int		(*start)(void **state, const char *root, char **cause);
	/* Instead of start: with the job's options and the run's paths. */
	int		(*start_run)(void **state, const struct monitor_run *,
			    char **cause);
	/*
	 * Its options, "NAME.OPTION" in a job (LKP's "perf-profile: {freq:
	 * 800}"), NULL-terminated or NULL; check, at queue time, refuses a
	 * value it cannot apply (*key: the option at fault).
	 */
	const char *const *options;
	int		(*check)(const struct job *, const char **key,
			    char **cause);
	/*
	 * Whether it can run where an agent boots the kernel under test
	 * this way ("qemu", "kexec"; NULL: none): -1 with *why when not.
	 */
	int		(*boot)(const char *boot, char **why);
	/* Called every interval from the sampler thread; NULL: no sampling. */
	void		(*sample)(void *state);
	/*
	 * The testcase's process group, once it is forked (NULL: not
	 * wanted). Called from the agent's main thread while the sampler
	 * runs.
	 */
	void		(*attach)(void *state, int pgid);
	int		(*stop)(void *state, const struct monitor_exit *,
			    struct result *, char **cause);
	void		(*free)(void *state);
};

extern const struct monitor_ops monitor_time_ops;
extern const struct monitor_ops monitor_proc_vmstat_ops;
extern const struct monitor_ops monitor_meminfo_ops;
extern const struct monitor_ops monitor_numastat_ops;
extern const struct monitor_ops monitor_numa_meminfo_ops;
extern const struct monitor_ops monitor_proc_stat_ops;
extern const struct monitor_ops monitor_interrupts_ops;
extern const struct monitor_ops monitor_softirqs_ops;
extern const struct monitor_ops monitor_cpufreq_ops;
extern const struct monitor_ops monitor_perfstat_ops;
extern const struct monitor_ops monitor_turbostat_ops;
extern const struct monitor_ops monitor_interference_ops;
extern const struct monitor_ops monitor_perfprofile_ops;

/* By name (or LKP alias: numa-numastat); NULL when no such monitor. */
const struct monitor_ops *monitor_find(const char *name);
/* "time, proc-vmstat, ...": every monitor's name, for messages. */
char	*monitor_names(void);
/*
 * Whether every monitor the job names can run on an agent that boots
 * this way (NULL: none): 0, or -1 with *why (the first that cannot).
 */
int	 monitor_job_boot(const struct job *, const char *boot, char **why);
/* The monitors of a job without "monitors:", NULL-terminated. */
extern const char *const monitor_defaults[];
/*
 * A run's monitors into ops (at most max): "time" and "interference"
 * always, then the
 * job's by name, or the default set when the job has no "monitors:"
 * ("monitors: []" means time alone), and those LKP's job files name as
 * program markers ("proc-vmstat:"). Unknown names are recorded in the
 * result's env monitors_skipped. Returns how many.
 */
size_t	 monitor_select(const struct job *, struct result *,
	     const struct monitor_ops **ops, size_t max);
/*
 * Start them; one whose files this machine does not have is dropped
 * (env monitors_unavailable, and monitor_unavailable.NAME saying why)
 * and *nr shrinks. env monitors lists the
 * others.
 */
void	 monitor_start_all(const struct monitor_run *, struct result *,
	     const struct monitor_ops **ops, void **state, size_t *nr);

/* A named value, with one column per CPU or node when it has them. */
struct monitor_field {
	char	*name;
	double	 value;
	double	*cols;
	size_t	 nr_cols;
	size_t	 n;		/* readings summed into it (monitor_snap_add) */
};

struct monitor_snap {
	struct monitor_field	*fields;
	size_t			 nr;
	size_t			 alloc;
	size_t			 hint;	/* where the last lookup matched */
};

void	 monitor_snap_release(struct monitor_snap *);
struct monitor_field *monitor_snap_field(struct monitor_snap *,
	     const char *name, size_t len);
const struct monitor_field *monitor_snap_find(const struct monitor_snap *,
	     const char *name);
/* acc += s, field by field and column by column, counting readings. */
void	 monitor_snap_add(struct monitor_snap *acc,
	     const struct monitor_snap *s);

/*
 * Parsers of the files' real formats; each returns the number of fields
 * read, -1 when the text is not of that format.
 *   "name value" lines: /proc/vmstat, nodeN/numastat;
 *   "Name:  value [kB]" lines, with an optional "Node N " prefix:
 *     /proc/meminfo, nodeN/meminfo;
 *   a CPU table: /proc/interrupts, /proc/softirqs (LKP's names: "LOC:
 *     Local timer interrupts" is "LOC:Local_timer_interrupts", "24: IO-APIC
 *     5-edge ACPI:Ged" is "24:IO-APIC.5-edge.ACPI:Ged"), per-CPU columns;
 *   /proc/stat: "cpu.user" ... "cpu.guest_nice" in USER_HZ with per-CPU
 *     columns, "intr", "ctxt", "processes", "procs_running",
 *     "procs_blocked", "softirq".
 */
int	 monitor_snap_parse_vmstat(struct monitor_snap *, const char *text);
int	 monitor_snap_parse_meminfo(struct monitor_snap *, const char *text);
int	 monitor_snap_parse_table(struct monitor_snap *, const char *text);
int	 monitor_snap_parse_stat(struct monitor_snap *, const char *text);

/* ROOT/path into sb (reset first); -1 with *cause when unreadable. */
int	 monitor_snap_read(const char *root, const char *path, struct strbuf *sb,
	     char **cause);
/* Node numbers under ROOT/sys/devices/system/node, sorted; count or -1. */
int	 monitor_snap_nodes(const char *root, unsigned **out, char **cause);

/*
 * Metrics from snapshots: PREFIX.name for each field, its value (and
 * columns as instances). delta: after - before; mean: acc / readings.
 * A field is reported when is_level is NULL or is_level(name) == level.
 * Names a result cannot hold are skipped.
 */
void	 monitor_snap_emit_delta(struct result *, const char *prefix,
	     const struct monitor_snap *before,
	     const struct monitor_snap *after, int (*is_level)(const char *),
	     int level);
void	 monitor_snap_emit_mean(struct result *, const char *prefix,
	     const struct monitor_snap *acc, int (*is_level)(const char *),
	     int level);

/*
 * The sampler: one thread that calls each sampling monitor's sample()
 * every interval_ms until stopped. It runs with every signal blocked, so
 * the agent's signal handling is unchanged.
 */
struct monitor_sampler;
int	 monitor_sampler_start(struct monitor_sampler **out,
	     const struct monitor_ops *const *ops, void *const *states,
	     size_t nr, unsigned interval_ms, char **cause);
/* Rounds sampled so far. */
unsigned monitor_sampler_rounds(struct monitor_sampler *);
/* Stops and joins the thread; returns how many rounds it sampled. */
unsigned monitor_sampler_stop(struct monitor_sampler *);

#endif
