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

struct result_metric {
	char	*name;		/* "dbench.throughput-MB/sec" */
	double	 value;		/* the run's value (aggregate of instances) */
	double	*instances;	/* per process/thread/node, or NULL */
	size_t	 nr_instances;
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
};

struct result	*result_new(void);
void		 result_free(struct result *);
/* Find or add a metric by name. */
struct result_metric *result_metric(struct result *, const char *name);
const struct result_metric *result_metric_find(const struct result *,
		     const char *name);
void		 result_env_set(struct result *, const char *key,
		     const char *value);
const char	*result_env_get(const struct result *, const char *key);

/* RESULTDIR/result: parse (untrusted input: fuzzed) and write. */
int		 result_parse(const char *name, const char *buf, size_t len,
		     struct result **out, char **cause);
int		 result_load(const char *dir, struct result **out, char **cause);
int		 result_save(const char *dir, const struct result *,
		     char **cause);

/*
 * A testcase's output: each "name: number" line becomes metric
 * TESTCASE.name; "name.N: number" and repeated lines are per-instance
 * values, aggregated by the metric table (jobs/metric.h).
 */
int		 result_parse_output(struct result *, const char *testcase,
		     const char *buf, size_t len);

#endif
