/*
 * cpufreq: the current frequency of each CPU (scaling_cur_freq, kHz) as
 * its mean over the run, sampled every interval;
 * cpufreq.scaling_cur_freq is the mean over CPUs, with one instance per
 * CPU. Where no CPU has a readable cpufreq directory (virtual machines,
 * kernels without CPU_FREQ) the monitor is unavailable and the run says
 * so in its environment (monitors_unavailable).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor.h"
#include "agents/result.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MONITOR_CPUFREQ_MAX	8192

struct monitor_cpufreq {
	char		 *root;
	char		**paths;
	double		 *sum;
	size_t		  nr;
	unsigned	  readings;
	struct strbuf	  buf;
	char		 *error;
};

static int
monitor_cpufreq_cmp(const void *a, const void *b)
{
	unsigned long	x = *(const unsigned long *)a;
	unsigned long	y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static int
monitor_cpufreq_read(struct monitor_cpufreq *mc, char **cause)
{
	size_t	i;
	char	*end;
	double	 v;

	for (i = 0; i < mc->nr; i++) {
		if (monitor_snap_read(mc->root, mc->paths[i], &mc->buf,
		    cause) != 0)
			return -1;
		v = strtod(mc->buf.buf, &end);
		if (end == mc->buf.buf || (*end != '\n' && *end != '\0'))
			return error_set(cause, "'%s' is not a frequency",
			    mc->paths[i]);
		mc->sum[i] += v;
	}
	mc->readings++;
	return 0;
}

static void
monitor_cpufreq_free(void *state)
{
	struct monitor_cpufreq	*mc = state;
	size_t			 i;

	if (mc == NULL)
		return;
	for (i = 0; i < mc->nr; i++)
		free(mc->paths[i]);
	free(mc->paths);
	free(mc->sum);
	free(mc->root);
	free(mc->error);
	strbuf_release(&mc->buf);
	free(mc);
}

static int
monitor_cpufreq_start(void **state, const char *root, char **cause)
{
	struct monitor_cpufreq	*mc = xcalloc(1, sizeof *mc);
	struct dirent		*de;
	unsigned long		*cpus = NULL, n;
	size_t			 nr = 0, alloc = 0, i;
	char			*dir, *end, *path;
	DIR			*d;

	strbuf_init(&mc->buf);
	mc->root = root != NULL ? xstrdup(root) : NULL;
	dir = root != NULL ? xasprintf("%s/sys/devices/system/cpu", root) :
	    xstrdup("/sys/devices/system/cpu");
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL && nr < MONITOR_CPUFREQ_MAX) {
			if (strncmp(de->d_name, "cpu", 3) != 0 ||
			    !isdigit((unsigned char)de->d_name[3]))
				continue;
			n = strtoul(de->d_name + 3, &end, 10);
			if (*end != '\0')
				continue;
			ALLOC_GROW(cpus, nr, alloc);
			cpus[nr++] = n;
		}
		closedir(d);
	}
	if (nr > 0)
		qsort(cpus, nr, sizeof *cpus, monitor_cpufreq_cmp);
	mc->paths = xcalloc(nr + 1, sizeof *mc->paths);
	for (i = 0; i < nr; i++) {
		path = xasprintf("/sys/devices/system/cpu/cpu%lu/cpufreq/"
		    "scaling_cur_freq", cpus[i]);
		if (monitor_snap_read(root, path, &mc->buf, NULL) == 0)
			mc->paths[mc->nr++] = path;
		else
			free(path);
	}
	free(cpus);
	if (mc->nr == 0) {
		error_set(cause, "no CPU has a readable '%s/cpuN/cpufreq/"
		    "scaling_cur_freq'", dir);
		free(dir);
		monitor_cpufreq_free(mc);
		return -1;
	}
	free(dir);
	mc->sum = xcalloc(mc->nr, sizeof *mc->sum);
	if (monitor_cpufreq_read(mc, cause) != 0) {
		monitor_cpufreq_free(mc);
		return -1;
	}
	*state = mc;
	return 0;
}

static void
monitor_cpufreq_sample(void *state)
{
	struct monitor_cpufreq	*mc = state;

	if (mc->error == NULL)
		monitor_cpufreq_read(mc, &mc->error);
}

static int
monitor_cpufreq_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	struct monitor_cpufreq	*mc = state;
	struct result_metric	*m;
	double			 total = 0;
	size_t			 i;

	(void)e;
	if (mc->error != NULL)
		return error_set(cause, "a reading during the run failed: %s",
		    mc->error);
	if (monitor_cpufreq_read(mc, cause) != 0)
		return -1;
	m = result_metric(r, "cpufreq.scaling_cur_freq");
	for (i = 0; i < mc->nr; i++) {
		total += mc->sum[i] / mc->readings;
		if (mc->nr > 1)
			result_metric_add_instance(m, mc->sum[i] /
			    mc->readings);
	}
	m->value = total / (double)mc->nr;
	return 0;
}

const struct monitor_ops monitor_cpufreq_ops = {
	.name = "cpufreq",
	.start = monitor_cpufreq_start,
	.sample = monitor_cpufreq_sample,
	.stop = monitor_cpufreq_stop,
	.free = monitor_cpufreq_free,
};
