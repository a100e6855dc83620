/*
 * The table of monitors the agent has, looked up by the names a job's
 * "monitors:" lists (LKP's names, with "numastat" for LKP's
 * "numa-numastat"), the set a job without "monitors:" gets, and choosing
 * and starting a run's monitors. Each monitor is a monitor-NAME.c beside
 * this file.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor.h"
#include "agents/result.h"
#include "jobs/job.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct monitor_ops *const monitor_table[] = {
	&monitor_time_ops,
	&monitor_proc_vmstat_ops,
	&monitor_meminfo_ops,
	&monitor_numastat_ops,
	&monitor_numa_meminfo_ops,
	&monitor_proc_stat_ops,
	&monitor_interrupts_ops,
	&monitor_softirqs_ops,
	&monitor_cpufreq_ops,
	&monitor_perfstat_ops,
	&monitor_turbostat_ops,
	&monitor_interference_ops,
	&monitor_perfprofile_ops,
};

static const struct {
	const char	*alias;
	const char	*name;
} monitor_aliases[] = {
	{ "numa-numastat", "numastat" },
};

const char *const monitor_defaults[] = {
	"time", "proc-vmstat", "meminfo", "numastat", "numa-meminfo",
	"proc-stat", "interrupts", "softirqs", "cpufreq", NULL
};

const struct monitor_ops *
monitor_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof monitor_aliases / sizeof monitor_aliases[0];
	    i++) {
		if (strcmp(monitor_aliases[i].alias, name) == 0) {
			name = monitor_aliases[i].name;
			break;
		}
	}
	for (i = 0; i < sizeof monitor_table / sizeof monitor_table[0]; i++) {
		if (strcmp(monitor_table[i]->name, name) == 0)
			return monitor_table[i];
	}
	return NULL;
}

char *
monitor_names(void)
{
	struct strbuf	sb = STRBUF_INIT;
	size_t		i;

	for (i = 0; i < sizeof monitor_table / sizeof monitor_table[0]; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", monitor_table[i]->name);
	return strbuf_detach(&sb, NULL);
}

/* Add m unless it is there; 0 when ops is full. */
static int
monitor_select_add(const struct monitor_ops **ops, size_t *nr, size_t max,
    const struct monitor_ops *m)
{
	size_t	j;

	for (j = 0; j < *nr && ops[j] != m; j++)
		;
	if (j < *nr)
		return 1;
	if (*nr >= max)
		return 0;
	ops[(*nr)++] = m;
	return 1;
}

int
monitor_job_boot(const struct job *job, const char *boot, char **why)
{
	const struct monitor_ops	*m;
	size_t				 i;

	for (i = 0; i < job->nr_monitors + job->nr_programs; i++) {
		m = monitor_find(i < job->nr_monitors ? job->monitors[i] :
		    job->programs[i - job->nr_monitors]);
		if (m != NULL && m->boot != NULL && m->boot(boot, why) != 0)
			return -1;
	}
	return 0;
}

size_t
monitor_select(const struct job *job, struct result *r,
    const struct monitor_ops **ops, size_t max)
{
	struct strbuf		  skipped = STRBUF_INIT;
	const struct monitor_ops *m;
	const char *const	 *names;
	size_t			  i, j, nr = 0, nr_names;

	ops[nr++] = &monitor_time_ops;
	ops[nr++] = &monitor_interference_ops;
	if (job_param(job, "monitors") == NULL) {
		names = monitor_defaults;
		for (nr_names = 0; names[nr_names] != NULL; nr_names++)
			;
	} else {
		names = (const char *const *)job->monitors;
		nr_names = job->nr_monitors;
	}
	for (i = 0; i < nr_names && nr < max; i++) {
		if ((m = monitor_find(names[i])) == NULL) {
			fprintf(stderr, "bisect-agent: monitor '%s' does not "
			    "exist; skipped\n", names[i]);
			strbuf_addf(&skipped, "%s%s", skipped.len ? " " : "",
			    names[i]);
			continue;
		}
		monitor_select_add(ops, &nr, max, m);
	}
	/* LKP's markers: a program key that is a monitor's name */
	for (j = 0; j < job->nr_programs; j++) {
		if (strcmp(job->programs[j], job->testcase) != 0 &&
		    (m = monitor_find(job->programs[j])) != NULL)
			monitor_select_add(ops, &nr, max, m);
	}
	if (skipped.len > 0)
		result_env_set(r, "monitors_skipped", skipped.buf);
	strbuf_release(&skipped);
	return nr;
}

/* Why a monitor is not there: env monitor_unavailable.NAME. */
static void
monitor_unavailable(struct result *r, const char *name, const char *cause)
{
	char	*key = xasprintf("monitor_unavailable.%s", name);

	result_env_set(r, key, cause);
	free(key);
}

void
monitor_start_all(const struct monitor_run *run, struct result *r,
    const struct monitor_ops **ops, void **state, size_t *nr)
{
	struct strbuf	 ran = STRBUF_INIT, gone = STRBUF_INIT;
	char		*cause = NULL;
	size_t		 i, kept = 0;

	for (i = 0; i < *nr; i++) {
		state[kept] = NULL;
		if ((ops[i]->start_run != NULL ? ops[i]->start_run(
		    &state[kept], run, &cause) : ops[i]->start != NULL ?
		    ops[i]->start(&state[kept], run->root, &cause) : 0) != 0) {
			fprintf(stderr, "bisect-agent: monitor '%s' is not "
			    "available: %s\n", ops[i]->name, cause);
			strbuf_addf(&gone, "%s%s", gone.len ? " " : "",
			    ops[i]->name);
			monitor_unavailable(r, ops[i]->name, cause);
			free(cause);
			cause = NULL;
			continue;
		}
		ops[kept++] = ops[i];
		strbuf_addf(&ran, "%s%s", ran.len ? " " : "", ops[i]->name);
	}
	*nr = kept;
	result_env_set(r, "monitors", ran.buf);
	if (gone.len > 0)
		result_env_set(r, "monitors_unavailable", gone.buf);
	strbuf_release(&ran);
	strbuf_release(&gone);
}
