/*
 * The interference monitor's arithmetic (agents/monitor-interference.c):
 * how much of the machine something other than the run took while it ran
 * -- other processes' CPU time, the run queue beyond the run's own tasks,
 * steal -- and the rule that calls a run disturbed (docs/monitors.md,
 * "Interference"). Pure functions, so that tests/unit can check them.
 */
#ifndef AGENTS_MONITOR_INTERFERENCE_H
#define AGENTS_MONITOR_INTERFERENCE_H

/* Disturbed: others took more than this % of one CPU over the run, */
#define INTERFERENCE_MAX_OTHER_CPU	25.0
/* or the hypervisor stole more than this % of the machine's CPU time. */
#define INTERFERENCE_MAX_STEAL		5.0

/* /proc/stat's "cpu" line, summed over the CPUs, in USER_HZ ticks. */
struct interference_cpu {
	double	user;		/* guest time is inside user and nice */
	double	nice;
	double	system;
	double	steal;
	double	total;		/* the first eight states, idle included */
};

struct interference_input {
	struct interference_cpu	 before;	/* at the monitor's start */
	struct interference_cpu	 after;		/* at its stop */
	double			 hz;		/* USER_HZ */
	unsigned		 nr_cpu;	/* per-CPU lines of /proc/stat */
	double			 elapsed;	/* seconds the testcase ran */
	double			 job_cpu;	/* its rusage, user + system */
	double			 agent_cpu;	/* the agent's own meanwhile */
	double			 runqueue_sum;	/* of monitor_interference_runqueue */
	unsigned		 samples;	/* readings summed */
};

struct interference {
	double	other_cpu_s;	/* seconds of CPU others took, >= 0 */
	double	other_cpu_pct;	/* the same as % of one CPU over the run */
	double	allowance_s;	/* what the tick accounting may misstate */
	double	runqueue;	/* mean runnable tasks beyond the run's */
	double	steal_pct;	/* % of the machine's CPU time stolen */
	double	elapsed;	/* seconds the testcase ran */
};

/* One reading: procs_running less the job's and the agent's own. */
double	 monitor_interference_runqueue(double procs_running, unsigned job_running,
	     unsigned agent_running);
void	 monitor_interference_compute(const struct interference_input *,
	     struct interference *);
/*
 * Disturbed: others' CPU time, less the allowance, is more than
 * INTERFERENCE_MAX_OTHER_CPU % of one CPU over the run, or steal is more
 * than INTERFERENCE_MAX_STEAL %. 1 when the run was disturbed, with *why saying by what ("other
 * processes took 97% of one CPU (limit 25%)"); 0 otherwise.
 */
int	 monitor_interference_disturbed(const struct interference *, char **why);

#endif
