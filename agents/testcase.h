/*
 * Testcase adapters: how the agent runs a named benchmark that has no
 * inline "run:" (dbench, stress-ng, hackbench, vm-scalability), and how
 * it turns the benchmark's own output into metrics named as LKP names
 * them. An adapter builds an argv from the job's parameters -- never a
 * shell command line, so a job value cannot become shell syntax -- and
 * writes its metrics as "name: number" lines, which go through the same
 * output parser as an inline testcase's (instances included).
 */
#ifndef AGENTS_TESTCASE_H
#define AGENTS_TESTCASE_H

#include <stddef.h>

struct inventory;
struct job;
struct result;
struct strbuf;

struct testcase_ctx {
	const struct job	*job;
	const char		*workdir;	/* where the testcase runs */
	const char		*resultdir;	/* for files it leaves */
	const char		*self;		/* this agent program */
	unsigned		 nr_cpu;
	unsigned long long	 memory;	/* bytes */
};

struct testcase_argv {
	char	**v;		/* NULL-terminated */
	size_t	  nr;
};

struct testcase_adapter {
	const char	*name;
	const char	*program;	/* looked up in PATH; NULL: self */
	const char	*package;	/* the Debian package holding it */
	int		(*command)(const struct testcase_ctx *,
			    struct testcase_argv *, char **cause);
	/* The output as "name: number" lines; -1 if it has no result. */
	int		(*parse)(const struct testcase_ctx *, const char *out,
			    size_t len, struct strbuf *metrics, char **cause);
};

const struct testcase_adapter *testcase_find(const char *name);
/*
 * The adapter's argv with its program's path found in PATH; else -1 and
 * an error of the run in r (bad parameters, program not installed).
 */
int	 testcase_prepare(const struct testcase_adapter *,
	     const struct testcase_ctx *, struct testcase_argv *,
	     struct result *);
/*
 * The output as metrics: the adapter's "name: number" lines, kept in
 * RESULTDIR/stats.log, through result_parse_output; an output without
 * a result is an error of the run.
 */
void	 testcase_metrics(const struct testcase_adapter *,
	     const struct testcase_ctx *, const char *out, size_t len,
	     struct result *);

extern const struct testcase_adapter testcase_dbench;
extern const struct testcase_adapter testcase_stress_ng;
extern const struct testcase_adapter testcase_hackbench;
extern const struct testcase_adapter testcase_vmscale;
extern const struct testcase_adapter testcase_fio;

/* fio's JSON report as "name: number" lines (agents/testcase-fio.c). */
int	 testcase_fio_parse_json(const char *buf, size_t len,
	     struct strbuf *metrics, char **cause);

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
/* A parameter from a fixed list of words, or dflt. */
int	 testcase_word(const struct testcase_ctx *, const char *key,
	     const char *const *words, const char *dflt, const char **out,
	     char **cause);

/* bisect-agent vm-scalability ...: the anonymous-memory worker. */
int	 testcase_vmscale_main(int argc, char **argv);

#endif
