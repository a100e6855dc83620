/*
 * The results of one run, as bisect-agent writes them into RESULTDIR and
 * the daemon reads them back (docs/agents.md gives the format): metrics
 * with their per-instance values, the environment the run saw, the
 * testcase's exit status. Also the parser of a testcase's own output,
 * where every "name: number" line is a metric.
 */
#ifndef AGENTS_RESULT_H
#define AGENTS_RESULT_H

#include <stddef.h>

/* Bounds on what result_parse accepts (and result_format writes). */
#define RESULT_VERSION		1
#define RESULT_MAX_SIZE		(64u << 20)	/* bytes in a result file */
#define RESULT_MAX_LINE		65536		/* bytes in one line */
#define RESULT_MAX_NAME		255		/* metric name or env key */
#define RESULT_MAX_METRICS	100000
#define RESULT_MAX_INSTANCES	65536		/* per metric */
#define RESULT_MAX_ENV		10000
#define RESULT_MAX_TEXT		8192		/* an error or env value,
						   before escaping */

struct result_metric {
	char	*name;		/* "dbench.throughput-MB/sec" */
	double	 value;		/* the run's value (aggregate of instances) */
	double	*instances;	/* per process/thread/node, or NULL */
	size_t	 nr_instances;
	size_t	 alloc_instances; /* 0 is fine: ALLOC_GROW reallocates */
};

struct result_env {
	char	*key;
	char	*value;
};

struct result {
	int			 exit_status;	/* the testcase's; -1 unknown */
	char			*error;		/* why the run failed, or NULL */
	struct result_metric	*metrics;
	size_t			 nr_metrics;
	struct result_env	*env;
	size_t			 nr_env;
	size_t			 alloc_metrics;	/* 0 is fine (ALLOC_GROW) */
	size_t			 alloc_env;
	char			*untestable;	/* why the commit cannot be
						   tested at all (its kernel
						   did not boot), or NULL */
	char			*disturbed;	/* what else took the machine
						   during the run, or NULL */
	/*
	 * When the testcase ran: wall clock (Unix seconds) and monotonic
	 * seconds at its start and end (has_times: they are known), and
	 * the boot it ran in (boot_id), or NULL.
	 */
	int			 has_times;
	double			 start_wall;
	double			 start_mono;
	double			 end_wall;
	double			 end_mono;
	char			*boot_id;
};

struct result	*result_new(void);
void		 result_free(struct result *);
/* Find or add a metric by name. */
struct result_metric *result_metric(struct result *, const char *name);
/* Add a metric the caller knows is not there yet (no search). */
struct result_metric *result_metric_add(struct result *, const char *name);
const struct result_metric *result_metric_find(const struct result *,
		     const char *name);
void		 result_metric_add_instance(struct result_metric *, double);
void		 result_set_error(struct result *, const char *fmt, ...)
		     __attribute__((format(printf, 2, 3)));
/*
 * The commit cannot be tested here: no retry can help (a kernel that
 * panics or hangs at boot). Sets the error too, when there is none yet.
 */
void		 result_set_untestable(struct result *, const char *fmt, ...)
		     __attribute__((format(printf, 2, 3)));
/* Something else took the machine during the run (the first cause wins). */
void		 result_set_disturbed(struct result *, const char *fmt, ...)
		     __attribute__((format(printf, 2, 3)));
void		 result_env_set(struct result *, const char *key,
		     const char *value);
const char	*result_env_get(const struct result *, const char *key);

/* RESULTDIR/result: parse (untrusted input: fuzzed) and write. */
int		 result_parse(const char *name, const char *buf, size_t len,
		     struct result **out, char **cause);
int		 result_load(const char *dir, struct result **out, char **cause);
int		 result_save(const char *dir, const struct result *,
		     char **cause);
/* The text result_save writes; -1 on names or values it cannot write. */
int		 result_format(const struct result *, char **out, size_t *len,
		     char **cause);
/* Whether a metric name or env key can be written (1..255 of [!-~]). */
int		 result_name_valid(const char *);
/*
 * The one number grammar of results and testcase output: a finite decimal
 * [+-]?(D+(.D*)?|.D+)([eE][+-]?D+)?, at most 63 characters, nothing else.
 */
int		 result_number_parse(const char *, size_t len, double *out);

/*
 * A testcase's output: each "name: number" line becomes metric
 * TESTCASE.name; "name.N: number" and repeated lines are per-instance
 * values, aggregated by the metric table (jobs/metric.h). Returns the
 * number of lines taken as metrics. docs/agents.md has the exact rules.
 */
int		 result_output_parse(struct result *, const char *testcase,
		     const char *buf, size_t len);

#endif
