/*
 * The values a job's parameters must have (agents/testcase-check.c
 * checks that each is known): the declared type of each adapter file
 * parameter, the benchmarks the installed perf has, and a headline
 * metric the testcase reports (docs/jobs.md).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/disk.h"
#include "agents/inventory.h"
#include "agents/knob.h"
#include "agents/monitor.h"
#include "agents/monitor-tool.h"
#include "agents/testcase.h"
#include "agents/testcase-check.h"
#include "jobs/config.h"
#include "jobs/job.h"
#include "jobs/program.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct job_param *
testcase_check_values_at(const struct job *job, const struct program *prog,
    const char *name)
{
	const struct job_param	*p = testcase_check_param(job, name);
	char			*key;
	size_t			 i;

	for (i = 0; p == NULL && i < prog->nr_programs; i++) {
		key = xasprintf("%s.%s", prog->programs[i], name);
		p = testcase_check_param(job, key);
		free(key);
	}
	return p;
}

/*
 * The perf bench programs whose benchmark a parameter names: the
 * installed perf must have it (perf 6.1 has no "syscall fork"), as its
 * "perf bench COLLECTION" lists them. The perf of the machine that
 * checks, as the sc_* sysctls are resolved; none there: not checked.
 */
static const struct {
	const char	*testcase;
	const char	*param;
	const char	*collection;
} testcase_check_values_perf[] = {
	{ "perf-bench-syscall", "op", "syscall" },
	{ "perf-bench-mem", "op", "mem" },
	{ "perf-bench-futex", "test", "futex" },
};

#define TESTCASE_CHECK_VALUES_NR_PERF \
	(sizeof testcase_check_values_perf / sizeof testcase_check_values_perf[0])

static pthread_mutex_t	testcase_check_values_perf_lock =
    PTHREAD_MUTEX_INITIALIZER;
/* per collection: " NAME NAME " of its benchmarks, "" unknown */
static char
    *testcase_check_values_perf_list[TESTCASE_CHECK_VALUES_NR_PERF];

/* The benchmarks of "perf bench COLLECTION", " a b c ", or NULL. */
static char *
testcase_check_values_perf_names(const char *collection)
{
	char *const	 argv[] = { "perf", "bench", (char *)collection, NULL };
	struct strbuf	 sb = STRBUF_INIT, names = STRBUF_INIT;
	char		*cause = NULL, *line, *save = NULL, *colon, *w;

	if (monitor_tool_probe(argv, &sb, &cause) != 0 ||
	    strstr(sb.buf, "List of available benchmarks") == NULL) {
		free(cause);
		strbuf_release(&sb);
		return NULL;
	}
	strbuf_addch(&names, ' ');
	for (line = strtok_r(sb.buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '#' || (colon = strchr(line, ':')) == NULL)
			continue;
		for (w = line; w < colon && (isalnum((unsigned char)*w) ||
		    *w == '-' || *w == '_'); w++)
			;
		if (w == colon && w > line)
			strbuf_addf(&names, "%.*s ", (int)(colon - line), line);
	}
	strbuf_release(&sb);
	return strbuf_detach(&names, NULL);
}

static int
testcase_check_values_perf_bench(const struct job *job,
    const struct testcase_adapter *ad, char **cause)
{
	const struct program_param	*pp = NULL;
	const char			*v;
	char				*list, *want, *msg, *t;
	size_t				 i, j;
	int				 r = 0;

	for (i = 0; i < TESTCASE_CHECK_VALUES_NR_PERF; i++) {
		if (strcmp(job->testcase, testcase_check_values_perf[i].testcase) == 0)
			break;
	}
	if (i == TESTCASE_CHECK_VALUES_NR_PERF || ad->data == NULL)
		return 0;
	if ((v = testcase_data_value(ad->data, job,
	    testcase_check_values_perf[i].param)) == NULL) {
		for (j = 0; j < ad->data->nr_params; j++) {
			if (strcmp(ad->data->params[j].name,
			    testcase_check_values_perf[i].param) == 0)
				pp = &ad->data->params[j];
		}
		if (pp == NULL || pp->dflt == NULL || pp->dflt_expr != NULL)
			return 0;
		v = pp->dflt;
	}
	pthread_mutex_lock(&testcase_check_values_perf_lock);
	if (testcase_check_values_perf_list[i] == NULL &&
	    (testcase_check_values_perf_list[i] = testcase_check_values_perf_names(
	    testcase_check_values_perf[i].collection)) == NULL)
		testcase_check_values_perf_list[i] = xstrdup("");
	list = xstrdup(testcase_check_values_perf_list[i]);
	pthread_mutex_unlock(&testcase_check_values_perf_lock);
	want = xasprintf(" %s ", v);
	if (*list != '\0' && strstr(list, want) == NULL) {
		t = xstrndup(list + 1, strlen(list) > 1 ? strlen(list) - 2 : 0);
		for (j = 0; t[j] != '\0'; j++) {
			if (t[j] == ' ')
				t[j] = '/';
		}
		msg = xasprintf("testcase '%s': %s '%s' is not a benchmark of "
		    "the installed perf ('perf bench %s' has %s)",
		    job->testcase, testcase_check_values_perf[i].param, v,
		    testcase_check_values_perf[i].collection, t);
		r = testcase_check_fail(cause, job, testcase_check_values_at(job,
		    ad->data, testcase_check_values_perf[i].param) != NULL ?
		    testcase_check_values_at(job, ad->data,
		    testcase_check_values_perf[i].param) : testcase_check_param(job,
		    "testcase"), msg);
		free(msg);
		free(t);
	}
	free(want);
	free(list);
	return r;
}

int
testcase_check_values(const struct job *job,
    const struct testcase_adapter *ad, char **cause)
{
	const struct program_param	*pp;
	const struct job_param		*p = NULL;
	const char			*key = NULL, *v;
	char				*why = NULL, *path;
	double				 num;
	size_t				 i;
	int				 r = -1;

	for (i = 0; i < job->nr_params; i++) {
		p = &job->params[i];
		if (strncmp(p->key, "sysctl.", 7) == 0 &&
		    strncmp(p->key, "sysctl.sc_", 10) != 0) {
			if ((path = inventory_sysctl_path(p->key + 7)) == NULL) {
				error_set(&why, "'%s' is not a sysctl name "
				    "that bisect-agent can set", p->key);
				goto fail;
			}
			free(path);
		}
	}
	if ((v = job_param(job, "cpufreq_governor")) != NULL) {
		p = testcase_check_param(job, "cpufreq_governor");
		if (*v == '\0' || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789"
		    "_") != strlen(v)) {
			error_set(&why, "'cpufreq_governor' must be a governor "
			    "name (performance, powersave, ...), not '%s'", v);
			goto fail;
		}
	}
	if (ad == NULL)
		return 0;
	if (ad->data != NULL) {
		for (i = 0; i < ad->data->nr_params; i++) {
			pp = &ad->data->params[i];
			if ((v = testcase_data_value(ad->data, job,
			    pp->name)) == NULL)
				continue;
			p = testcase_check_values_at(job, ad->data, pp->name);
			if (program_value(pp, v, 0, &num, NULL, &why) != 0)
				goto fail;
		}
		/* a parameter the run needs and nothing gives (kernbench's src) */
		if (testcase_data_required(ad->data, job, &key, &why) != 0) {
			p = testcase_check_param(job, "testcase");
			goto fail;
		}
		return testcase_check_values_perf_bench(job, ad, cause);
	}
	if (ad->check != NULL && ad->check(job, &key, &why) != 0) {
		p = key != NULL ? testcase_check_param(job, key) : NULL;
		/* an option of a program it covers: fio-setup-basic.rw */
		for (i = 0; p == NULL && key != NULL && ad->programs != NULL &&
		    ad->programs[i] != NULL; i++) {
			path = xasprintf("%s.%s", ad->programs[i], key);
			p = testcase_check_param(job, path);
			free(path);
		}
		if (p == NULL)
			p = testcase_check_param(job, "testcase");
		goto fail;
	}
	return 0;
fail:
	error_prefix(&why, "testcase '%s'", job->testcase);
	testcase_check_fail(cause, job, p, why);
	free(why);
	return r;
}

/*
 * A headline metric named after the testcase must be one it reports: a
 * misspelt metric would give a bisection with no sample at all. Other
 * names (a monitor's, time.elapsed_time...) are the caller's to know.
 */
int
testcase_check_values_metric(const struct job *job,
    const struct testcase_adapter *ad, char **cause)
{
	struct testcase_check_near	 n;
	struct strbuf			 sb = STRBUF_INIT;
	const char			**globs = NULL;
	size_t				 len = strlen(job->testcase), nr = 0, i;
	int				 r = 0;

	if (ad == NULL || job->metric == NULL ||
	    strncmp(job->metric, job->testcase, len) != 0 ||
	    job->metric[len] != '.')
		return 0;
	if (ad->data != NULL) {
		globs = xcalloc(ad->data->nr_metrics + 1, sizeof *globs);
		for (i = 0; i < ad->data->nr_metrics; i++)
			globs[nr++] = ad->data->metrics[i].info.pattern;
	} else if (ad->metrics != NULL) {
		for (i = 0; ad->metrics[i] != NULL; i++)
			;
		globs = xcalloc(i + 1, sizeof *globs);
		for (i = 0; ad->metrics[i] != NULL; i++)
			globs[nr++] = ad->metrics[i];
	} else
		return 0;
	for (i = 0; i < nr; i++) {
		if (fnmatch(globs[i], job->metric, 0) == 0)
			goto out;
	}
	memset(&n, 0, sizeof n);
	n.key = job->metric;
	n.distance = 64;
	testcase_check_try(&n, globs);
	strbuf_addf(&sb, "metric '%s' is not one testcase '%s' reports",
	    job->metric, job->testcase);
	for (i = 0; i < nr && n.distance > 4; i++) {
		/* a name cut short: dbench.throughput for ...-MB/sec */
		if (strncmp(globs[i], job->metric, strlen(job->metric)) == 0) {
			n.best = globs[i];
			n.distance = 0;
		}
	}
	if (n.best != NULL && n.distance <= 4 && strchr(n.best, '*') == NULL &&
	    strchr(n.best, '\\') == NULL)
		strbuf_addf(&sb, ": did you mean '%s'?", n.best);
	else {
		strbuf_addstr(&sb, " (it reports ");
		for (i = 0; i < nr; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", globs[i]);
		strbuf_addch(&sb, ')');
	}
	r = testcase_check_fail(cause, job, testcase_check_param(job,
	    "metric"), sb.buf);
out:
	strbuf_release(&sb);
	free(globs);
	return r;
}
