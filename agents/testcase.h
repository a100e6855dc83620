/*
 * Testcase adapters: how the agent runs a named benchmark without an
 * inline "run:" (an argv built from the job's parameters, never a shell
 * line) and turns its output into LKP-named metrics; each declares the
 * parameters it takes, and testcase_check refuses any other.
 */
#ifndef AGENTS_TESTCASE_H
#define AGENTS_TESTCASE_H

#include <stddef.h>

struct inventory;
struct job;
struct program;
struct result;
struct strbuf;

struct testcase_ctx {
	const struct job	*job;
	const char		*workdir;	/* where the testcase runs */
	const char		*resultdir;	/* for files it leaves */
	const char		*partition;	/* LKP's raw_disk: the disk */
	const char		*self;		/* this agent program */
	unsigned		 nr_cpu;
	unsigned long long	 memory;	/* bytes */
	int			 dry_run;	/* build argv, create nothing */
};

struct testcase_argv {
	char	**v;		/* NULL-terminated */
	size_t	  nr;
};

struct testcase_adapter {
	const char	*name;
	const char	*package;	/* the Debian package holding it */
	const struct program *data;	/* a program file's, or NULL */
	const char *const *params;	/* C: the parameters it takes */
	/* C: LKP's programs it does too, whose options are its params */
	/* ("fio-setup-basic": fio-setup-basic.rw is rw) */
	const char *const *programs;
	const char *const *metrics;	/* C: globs of the metrics it reports */
	int		(*command)(const struct testcase_adapter *,
			    const struct testcase_ctx *,
			    struct testcase_argv *, char **cause);
	/* The output as "name: number" lines; -1 if it has no result. */
	int		(*parse)(const struct testcase_adapter *,
			    const struct testcase_ctx *, const char *out,
			    size_t len, struct strbuf *metrics, char **cause);
	/*
	 * C: the job's values checked before it is queued; -1 with *key
	 * the parameter at fault. NULL: nothing to check.
	 */
	int		(*check)(const struct job *, const char **key,
			    char **cause);
};

/*
 * A C adapter's parameter in a job: its own key, else an option of a
 * program the adapter covers ("fio-setup-basic.rw"), or NULL.
 */
const char *testcase_job_value(const struct job *, const char *key);
/* 1 when the adapter (C or program file) covers LKP's program name. */
int	 testcase_covers(const struct testcase_adapter *, const char *name);
/* A C adapter or a program file's, or NULL. */
const struct testcase_adapter *testcase_find(const char *name);
/*
 * What the agent will run for a job on a machine of nr_cpu CPUs, for
 * display ("bisectctl check"): the argv, words quoted where a shell
 * would need it, with WORKDIR, RESULTDIR and bisect-agent for the run's
 * paths; the inline command for a "run:" job. -1 with *cause.
 */
int	 testcase_describe(const struct job *, unsigned nr_cpu, char **out,
	     char **cause);
/* "dbench, hackbench, ..." for messages; allocated. */
char	*testcase_names(void);
/*
 * Every parameter of the job is applied or refused (docs/jobs.md): a
 * bisectd key, a knob, a parameter its testcase declares (any name that
 * can be an environment variable for an inline "run:"), with a value of
 * its type. A testcase with neither "run:" nor an adapter is refused.
 * -1 with *cause "FILE:LINE:COL: message" (with "did you mean ...?").
 */
int	 testcase_check(const struct job *, char **cause);
struct config_agent;
/*
 * Whether an agent can run the job: the disks it asks for
 * (disk_agent_fits), and LKP's force_reboot: 1 only where every run boots
 * (kexec, qemu). 1, or 0 with *why.
 */
int	 testcase_check_agent_fits(const struct job *,
    const struct config_agent *,
	     char **why);
/*
 * The adapter's argv with its program's path found in PATH; else -1 and
 * an error of the run in r (bad parameters, program not installed).
 */
int	 testcase_prepare(const struct testcase_adapter *,
	     const struct testcase_ctx *, struct testcase_argv *,
	     struct result *);
/*
 * The output as metrics: the adapter's "name: number" lines, kept in
 * RESULTDIR/stats.log, through result_output_parse; an output without
 * a result is an error of the run.
 */
void	 testcase_metrics(const struct testcase_adapter *,
	     const struct testcase_ctx *, const char *out, size_t len,
	     struct result *);

extern const struct testcase_adapter testcase_stress_ng;
extern const struct testcase_adapter testcase_vmscale;
extern const struct testcase_adapter testcase_fio;
extern const struct testcase_adapter testcase_fio_basic;

/* fio's JSON report as "name: number" lines (agents/testcase-fio.c). */
int	 testcase_fio_parse_json(const char *buf, size_t len,
	     struct strbuf *metrics, char **cause);

/* Program files (agents/testcase-data.c). */
/*
 * A program file's parameter in a job: its own key, else an option of an
 * LKP program the file covers ("pgbench-setup.scale_factor"), or NULL.
 */
const char *testcase_data_value(const struct program *, const struct job *,
	     const char *name);
/*
 * Whether the run would use a parameter that has no value (the job does
 * not give it, it has no default), as the run builds its mkdir, setup,
 * argv and repeat: 0, or -1 with *name the parameter and *cause. Files
 * are not looked for (the agent's machine is not this one); a value that
 * cannot be worked out here is left to the run.
 */
int	 testcase_data_required(const struct program *, const struct job *,
	     const char **name, char **cause);
int	 testcase_data_command(const struct testcase_adapter *,
	     const struct testcase_ctx *, struct testcase_argv *,
	     char **cause);
/*
 * argv with "setup:" or "repeat:": wrapped in a /bin/sh script that runs
 * the steps, then argv its count of times.
 */
int	 testcase_data_wrap(const struct testcase_adapter *,
	     const struct testcase_ctx *, struct testcase_argv *,
	     char **cause);
/* For testcase_describe: "setup: CMD; " for each step. */
int	 testcase_data_describe(const struct testcase_adapter *,
	     const struct testcase_ctx *, struct strbuf *, char **cause);
/* For testcase_describe: " (N times)". */
int	 testcase_data_repeat_count(const struct testcase_adapter *,
	     const struct testcase_ctx *, struct strbuf *, char **cause);
/* s as one shell word, quoted only where it must be (for display). */
void	 testcase_quote(struct strbuf *, const char *s);
int	 testcase_data_parse(const struct testcase_adapter *,
	     const struct testcase_ctx *, const char *out, size_t len,
	     struct strbuf *metrics, char **cause);
/*
 * The metrics of a program's output, as testcase_data_parse; for the
 * unit tests and the fuzz target, without a run (resultdir may be NULL
 * when the output is the run's).
 */
int	 testcase_data_parse_output(const struct program *, const char *resultdir,
	     const char *out, size_t len, struct strbuf *metrics,
	     char **cause);

void	 testcase_argv_add(struct testcase_argv *, const char *fmt, ...)
	     __attribute__((format(printf, 2, 3)));
void	 testcase_argv_release(struct testcase_argv *);
/* The program's absolute path in $PATH, or NULL. */
char	*testcase_which(const char *program);
/*
 * A task count parameter: "N" or "N%" of the CPUs (at least 1), or dflt
 * when the job does not have it. -1 with *cause naming the key.
 */
int	 testcase_count(const struct testcase_ctx *, const char *key,
	     const char *dflt, unsigned *out, char **cause);
/* A size parameter "64M" (K M G T, powers of 1024), or dflt. */
int	 testcase_size(const struct testcase_ctx *, const char *key,
	     unsigned long long dflt, unsigned long long *out, char **cause);
/* Before a run: the job's key, when it has one, is a count (N, N%). */
int	 testcase_check_count(const struct job *, const char *key,
	     char **cause);
/* A parameter from a fixed list of words, or dflt. */
int	 testcase_word(const struct testcase_ctx *, const char *key,
	     const char *const *words, const char *dflt, const char **out,
	     char **cause);

/* bisect-agent vm-scalability ...: the anonymous-memory worker. */
int	 testcase_vmscale_main(int argc, char **argv);

/*
 * An inline testcase's parameter reaches its command as an environment
 * variable of its name: lowercase letters, digits and '_', starting with
 * a letter (LKP's style). 1 when key is such a name.
 */
int	 testcase_check_env_name(const char *key);

#endif
