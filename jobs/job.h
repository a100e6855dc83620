/*
 * Job files (DESIGN §3.2): bisectd's YAML or LKP's as written (documents,
 * includes, program maps). Loading parses it with libyaml, validates it,
 * and expands every list-valued parameter into a cartesian product of
 * concrete jobs, each with its canonical text (what travels to the agent
 * and what its stable id is hashed from).
 */
#ifndef JOBS_JOB_H
#define JOBS_JOB_H

#include <stddef.h>

enum job_direction {
	JOB_DIRECTION_UNKNOWN = 0,
	JOB_DIRECTION_HIGHER,		/* higher is better (throughput) */
	JOB_DIRECTION_LOWER,		/* lower is better (latency, time) */
};

/*
 * One parameter of an expanded job, as it appears in the canonical text.
 * Nested maps (requires:, sysctl:) are flattened with dotted keys:
 * "requires.nr_node" = ">=2", "sysctl.vm.swappiness" = "10".
 */
struct job_param {
	char		*key;
	char		*value;
	unsigned	 line;		/* of its key in job->file; 0: unknown */
	unsigned	 column;
	char		*file;		/* the included file its key is in, */
					/* or NULL: job->file */
};

struct job {
	char			*id;		/* 16 hex: stable over runs: */
	char			*file;		/* the file it came from */
	char			*testcase;
	char			*category;	/* NULL when absent */
	char			*run;		/* inline command, or NULL */
	char			*metric;	/* headline metric, or NULL */
	enum job_direction	 direction;	/* of the headline metric */
	unsigned		 runs;		/* samples to start with; 3 */
	unsigned		 runtime;	/* seconds; 0 when absent */
	unsigned		 timeout;	/* seconds; 0 when absent */
	char			**monitors;
	size_t			 nr_monitors;
	char			**programs;	/* LKP's program keys, sorted */
	size_t			 nr_programs;
	struct job_param	*params;	/* every parameter, sorted by key */
	size_t			 nr_params;
	char			*canonical;	/* canonical YAML of this job */
	char			**axes;		/* keys of the matrix axes, */
	size_t			 nr_axes;	/* in file order */
};

#define JOB_MAX_JOBS	4096		/* one file expands to at most */
#define JOB_MAX_RUNS	1000

/*
 * Reads an included file: 0 with *buf (allocated, NUL-terminated) and
 * *len, 1 when there is no such file, -1 with *cause on any other error.
 */
typedef int (*job_read_fn)(const char *path, char **buf, size_t *len,
    void *payload, char **cause);

/*
 * Where "<< : FILE" includes are found: FILE itself when absolute, else
 * the including file's folder, then each of include_dirs in order.
 */
struct job_options {
	const char *const	 *include_dirs;
	size_t			  nr_include_dirs;
	job_read_fn		  read;		/* NULL: the file system */
	void			 *payload;
	int			  no_include;	/* refuse every include */
	/* Set to the jobs dropped as repeats of an earlier one (LKP's */
	/* documents can give one job twice); NULL: not told. */
	size_t			 *nr_repeats;
};

#define JOB_MAX_INCLUDE_DEPTH	8

/*
 * Parse, validate and expand. On error returns -1 with *cause set to
 * "FILE:LINE:COL: message naming the key" and nothing in *out. Without
 * options (NULL), includes are found in the file's folder only.
 */
int	 job_load(const char *path, struct job ***out, size_t *nr, char **cause);
int	 job_parse(const char *name, const char *buf, size_t len,
	     struct job ***out, size_t *nr, char **cause);
int	 job_load_with(const char *path, const struct job_options *,
	     struct job ***out, size_t *nr, char **cause);
int	 job_parse_with(const char *name, const char *buf, size_t len,
	     const struct job_options *, struct job ***out, size_t *nr,
	     char **cause);
void	 job_free(struct job *);
void	 job_list_free(struct job **, size_t);
/* The value of a parameter (dotted key), or NULL. Borrowed. */
const char *job_param(const struct job *, const char *key);
/*
 * Whether a parameter is the testcase's own (nr_threads, test, runtime,
 * thp_enabled, sysctl.vm.swappiness...), as a report lists it, rather
 * than bisectd's bookkeeping of the job (testcase, category, run, metric,
 * direction, runs, timeout, monitors, requires.*, kconfig.*).
 */
int	 job_param_is_testcase(const char *key);
/* "testcase/k1=v1/k2=v2" over the matrix axes, for display; allocated. */
char	*job_describe(const struct job *);
const char *job_direction_name(enum job_direction);
/*
 * Whether a machine meets the job's requires: map (memory in bytes).
 * Returns 1, or 0 with *why (if not NULL) naming the first unmet key.
 */
int	 job_param_requires_met(const struct job *, unsigned nr_node,
	     unsigned nr_cpu, unsigned long long memory, char **why);

#endif
