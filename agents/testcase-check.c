/*
 * Every parameter is applied or refused (docs/jobs.md): before a job is
 * queued, each of its keys must be bisectd's own, a knob the agent
 * applies, or a parameter its testcase declares -- any environment name
 * for an inline "run:", which receives them all -- with a value of its
 * type. Anything else is refused at its line and column with the
 * nearest known name, so a misspelling never becomes a silent parameter.
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

/* bisectd's own keys: what a job is and how it is sampled. */
static const char *const testcase_check_bisectd[] = {
	"testcase", "category", "suite", "run", "metric", "direction",
	"runs", "timeout", "monitors", "programs", "disturbed", "need_memory",
	/* LKP's: the monitors start that many seconds in (agent-monitor.c) */
	"monitor_delay",
	/* LKP's: a reboot after the job (testcase_check_agent_fits) */
	"force_reboot",
	NULL
};
/* The knobs (agents/knob.c); sysctl.* too. */
static const char *const testcase_check_knobs[] = {
	"thp_enabled", "thp_defrag", "numa_balancing", "cpufreq_governor",
	NULL
};
/* Set by the agent from the machine: a parameter cannot override them. */
static const char *const testcase_check_agent[] = {
	"nr_cpu", "nr_node", NULL
};
/*
 * LKP's setup keys (and programs) that a run here cannot honour: the key,
 * or a map or marker of that name, is refused saying why.
 */
static const struct {
	const char	*key;
	const char	*why;
} testcase_check_lkp[] = {
	{ "disk", "LKP's 'disk:' without a count takes the disks its host "
	  "file lists; bisectd needs the count of the agent's disks: 'disk: "
	  "1HDD' or '1SSD'" },
	{ "debug-setup", "LKP's 'debug-setup' is its self-test setup script, "
	  "which prints its arguments and environment; bisect-agent has no "
	  "such script to run" },
	{ "fs1", "LKP's 'fs1''' exports the job's file system over NFS and "
	  "runs on the network mount, which bisectd does not set up" },
	{ "md", "LKP's 'md' builds a RAID array of the job's disks (mdadm), "
	  "which bisectd does not set up" },
	{ "raid_level", "LKP's 'raid_level' builds a RAID array of the job's "
	  "disks (md, or btrfs' braid*), which bisectd does not set up" },
	{ "swap", "LKP's 'swap' makes swap on the job's disks, which bisectd "
	  "does not set up" },
	{ "boot_params", "LKP's 'boot_params' are kernel command-line "
	  "parameters of its boot; bisect-agent boots no command line a job "
	  "chooses" },
	{ "cgroup2", "LKP's 'cgroup2' runs the test in cgroups it makes; "
	  "bisect-agent does not" },
	{ "oom-killer", "LKP's 'oom-killer' watches for the kernel's OOM "
	  "kills and fails the job on one; bisect-agent has no such watch "
	  "(only 'oom-killer: {ignored: 1}', which keeps the job going, is "
	  "what it does)" },
	{ "nr_instances", "LKP's 'nr_instances' runs that many copies of "
	  "the test at once, each in its own cgroup; bisect-agent runs one" },
};

static const char *
testcase_check_lkp_why(const char *key)
{
	size_t	i, len;

	for (i = 0; i < sizeof testcase_check_lkp / sizeof testcase_check_lkp[0];
	    i++) {
		len = strlen(testcase_check_lkp[i].key);
		if (strncmp(key, testcase_check_lkp[i].key, len) == 0 &&
		    (key[len] == '\0' || key[len] == '.'))
			return testcase_check_lkp[i].why;
	}
	return NULL;
}

/* Maps whose keys bisectd checks itself (jobs/job-param.c). */
static const char *const testcase_check_maps[] = {
	"requires", "kconfig", "sysctl", NULL
};

static int
testcase_check_in(const char *const *list, const char *key)
{
	size_t	i;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (strcmp(list[i], key) == 0)
			return 1;
	}
	return 0;
}

/* Optimal string alignment distance: a transposition counts one. */
static size_t
testcase_check_distance(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i, j, *d, r, v;

	if (la > 64 || lb > 64)
		return 64;
	d = xcalloc((la + 1) * (lb + 1), sizeof *d);
#define D(x, y)	d[(x) * (lb + 1) + (y)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			v = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);
			if (D(i - 1, j) + 1 < v)
				v = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}


void
testcase_check_try(struct testcase_check_near *n, const char *const *list)
{
	size_t	i, d;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		d = testcase_check_distance(n->key, list[i]);
		if (d < n->distance) {
			n->distance = d;
			n->best = list[i];
		}
	}
}

static const char **
testcase_check_declared(const struct testcase_adapter *ad)
{
	const char	**v;
	size_t		  i;

	if (ad == NULL)
		return xcalloc(1, sizeof *v);
	if (ad->data == NULL) {
		for (i = 0; ad->params != NULL && ad->params[i] != NULL; i++)
			;
		v = xcalloc(i + 1, sizeof *v);
		memcpy(v, ad->params, i * sizeof *v);
		return v;
	}
	v = xcalloc(ad->data->nr_params + 1, sizeof *v);
	for (i = 0; i < ad->data->nr_params; i++)
		v[i] = ad->data->params[i].name;
	return v;
}

/* "FILE:LINE:COL: " of a parameter, or of the file. */
static void
testcase_check_at(struct strbuf *sb, const struct job *job,
    const struct job_param *p)
{
	if (p != NULL && p->file != NULL)
		strbuf_addf(sb, "%s:", p->file);
	else
		strbuf_addf(sb, "%s:", job->file != NULL ? job->file : "job");
	if (p != NULL && p->line > 0)
		strbuf_addf(sb, "%u:%u:", p->line, p->column);
	strbuf_addch(sb, ' ');
}

int
testcase_check_fail(char **cause, const struct job *job,
    const struct job_param *p, const char *msg)
{
	struct strbuf	sb = STRBUF_INIT;

	testcase_check_at(&sb, job, p);
	strbuf_addstr(&sb, msg);
	error_set(cause, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

const struct job_param *
testcase_check_param(const struct job *job, const char *key)
{
	size_t	i;

	for (i = 0; i < job->nr_params; i++) {
		if (strcmp(job->params[i].key, key) == 0)
			return &job->params[i];
	}
	return NULL;
}

int
testcase_check_env_name(const char *key)
{
	const char	*p;

	if (*key < 'a' || *key > 'z')
		return 0;
	for (p = key; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '_'))
			return 0;
	}
	return 1;
}

static int
testcase_check_unknown(const struct job *job, const struct job_param *p,
    const struct testcase_adapter *ad, const char **declared, char **cause)
{
	struct testcase_check_near	 n = { p->key, NULL, 64 };
	struct strbuf			 sb = STRBUF_INIT;
	char				*head;
	size_t				 i, limit;
	int				 inline_run = job->run != NULL;

	testcase_check_try(&n, testcase_check_bisectd);
	testcase_check_try(&n, testcase_check_knobs);
	testcase_check_try(&n, testcase_check_maps);
	testcase_check_try(&n, declared);
	limit = strlen(p->key) <= 4 ? 1 : 2;
	if (inline_run) {
		/* only what is surely a misspelling of a bisectd key */
		if (n.distance > 1 || testcase_check_in(declared, n.best))
			return 0;
		limit = 1;
	}
	head = xasprintf("unknown parameter '%s' for testcase '%s'", p->key,
	    job->testcase);
	if (n.best != NULL && n.distance <= limit && n.distance > 0) {
		strbuf_addf(&sb, "%s: did you mean '%s'?", head, n.best);
		if (inline_run)
			strbuf_addstr(&sb, " (an inline testcase receives its "
			    "parameters as environment variables, but not "
			    "one this close to a bisectd key)");
	} else {
		strbuf_addf(&sb, "%s (it takes ", head);
		for (i = 0; declared[i] != NULL; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", declared[i]);
		if (i == 0)
			strbuf_addstr(&sb, "no parameters");
		strbuf_addstr(&sb, "; bisectd's keys and the knobs are in "
		    "docs/jobs.md)");
	}
	(void)ad;
	free(head);
	testcase_check_fail(cause, job, p, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* "pgbench-setup.scale_factor": an option of a program the file covers. */
static int
testcase_check_covered(const struct testcase_adapter *ad, const char *key,
    const char **declared)
{
	const char	*dot = strchr(key, '.');
	char		*prefix;
	int		 r;

	if (ad == NULL || dot == NULL)
		return 0;
	prefix = xstrndup(key, (size_t)(dot - key));
	r = testcase_covers(ad, prefix) &&
	    testcase_check_in(declared, dot + 1);
	free(prefix);
	return r;
}

static int
testcase_check_is_program(const struct job *job, const char *name)
{
	size_t	i;

	for (i = 0; i < job->nr_programs; i++) {
		if (strcmp(job->programs[i], name) == 0)
			return 1;
	}
	return 0;
}

/*
 * A key LKP applies: 1 when bisectd applies it too (a knob under LKP's
 * name, cluster: cs-localhost), -1 with *cause when it cannot be honoured
 * here, 0 when it is none of LKP's.
 */
static int
testcase_check_lkp_key(const struct job *job,
    const struct testcase_adapter *ad, const struct job_param *p,
    char **cause)
{
	const struct monitor_ops	*m;
	const char	*why;
	char		*path = NULL, *msg = NULL, *prefix, *dot;
	int		 bracketed, r;

	if ((r = knob_lkp_path(NULL, p->key, &path, &bracketed, &msg)) != 0) {
		free(path);
		if (r < 0) {
			testcase_check_fail(cause, job, p, msg);
			free(msg);
		}
		return r;
	}
	if (strcmp(p->key, "cluster") == 0) {
		if (strcmp(p->value, "cs-localhost") == 0)
			return 1;
		msg = xasprintf("cluster '%s' is several machines: bisectd "
		    "runs a job on one (only 'cluster: cs-localhost', where "
		    "it has every role)", p->value);
		goto fail;
	}
	/* what LKP's ignored OOM watch leaves is what bisect-agent does */
	if (strcmp(p->key, "oom-killer.ignored") == 0 &&
	    strcmp(p->value, "1") == 0)
		return 1;
	/* an inline run: gets them as its environment, as any parameter */
	if (job->run == NULL && (why = testcase_check_lkp_why(p->key)) != NULL) {
		msg = xasprintf("'%s' cannot be honoured here: %s", p->key, why);
		goto fail;
	}
	/* the option of a marker: perf-profile.delay */
	if ((dot = strchr(p->key, '.')) == NULL)
		return 0;
	prefix = xstrndup(p->key, (size_t)(dot - p->key));
	if (!testcase_check_is_program(job, prefix) ||
	    strcmp(prefix, job->testcase) == 0 || testcase_covers(ad,
	    prefix)) {
		free(prefix);
		return 0;
	}
	/* a monitor with options checks them (testcase_check_monitor_option) */
	if ((m = monitor_find(prefix)) != NULL && m->options != NULL) {
		free(prefix);
		return 0;
	}
	if (m != NULL)
		msg = xasprintf("monitor '%s' takes no options: '%s' would "
		    "not be applied", prefix, p->key);
	else
		msg = xasprintf("'%s' is an option of program '%s', which is "
		    "neither the testcase's nor a monitor bisect-agent has",
		    p->key, prefix);
	free(prefix);
fail:
	testcase_check_fail(cause, job, p, msg);
	free(msg);
	return -1;
}

static int
testcase_check_monitors(const struct job *job, char **cause)
{
	struct testcase_check_near	 n;
	const struct job_param		*p = testcase_check_param(job,
					     "monitors");
	struct strbuf			 sb = STRBUF_INIT;
	size_t				 i;
	int				 r = 0;

	for (i = 0; i < job->nr_monitors && r == 0; i++) {
		if (monitor_find(job->monitors[i]) != NULL)
			continue;
		memset(&n, 0, sizeof n);
		n.key = job->monitors[i];
		n.distance = 64;
		testcase_check_try(&n, monitor_defaults);
		strbuf_addf(&sb, "'monitors' lists '%s', which bisect-agent "
		    "does not have", job->monitors[i]);
		if (n.best != NULL && n.distance <= 2)
			strbuf_addf(&sb, ": did you mean '%s'?", n.best);
		r = testcase_check_fail(cause, job, p, sb.buf);
	}
	strbuf_release(&sb);
	return r;
}

static int
testcase_check_has_monitor(const struct job *job, const char *name)
{
	size_t	i;

	for (i = 0; i < job->nr_monitors; i++) {
		if (strcmp(job->monitors[i], name) == 0)
			return 1;
	}
	/* an LKP marker, "perf-profile:", runs the monitor too */
	for (i = 0; i < job->nr_programs; i++) {
		if (strcmp(job->programs[i], name) == 0)
			return 1;
	}
	return 0;
}

/*
 * A monitor's option, "perf-profile.freq": 1 when p is one the monitor
 * has, -1 (with *cause) when it names a monitor that has no such option,
 * 0 when p is not the option of a monitor under "monitors:".
 */
static int
testcase_check_monitor_option(const struct job *job,
    const struct job_param *p, char **cause)
{
	const struct monitor_ops	*m;
	const char			*dot = strchr(p->key, '.');
	struct strbuf			 sb = STRBUF_INIT;
	char				*name;
	size_t				 i;

	if (dot == NULL)
		return 0;
	name = xstrndup(p->key, (size_t)(dot - p->key));
	m = monitor_find(name);
	/* the options of a monitor the job does not run are unknown */
	if (m == NULL || m->options == NULL ||
	    !testcase_check_has_monitor(job, name)) {
		free(name);
		return 0;
	}
	free(name);
	for (i = 0; m->options[i] != NULL; i++) {
		if (strcmp(m->options[i], dot + 1) == 0)
			return 1;
	}
	strbuf_addf(&sb, "monitor '%s' has no option '%s' (it has", m->name,
	    dot + 1);
	for (i = 0; m->options[i] != NULL; i++)
		strbuf_addf(&sb, "%s %s", i ? "," : "", m->options[i]);
	strbuf_addch(&sb, ')');
	testcase_check_fail(cause, job, p, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* The values of the options of the job's monitors. */
static int
testcase_check_monitor_values(const struct job *job, char **cause)
{
	const struct monitor_ops	*m;
	const char			*key = NULL;
	char				*why = NULL;
	size_t				 i;
	int				 r = 0;

	for (i = 0; i < job->nr_monitors + job->nr_programs && r == 0; i++) {
		m = monitor_find(i < job->nr_monitors ? job->monitors[i] :
		    job->programs[i - job->nr_monitors]);
		if (m == NULL ||
		    m->check == NULL || m->check(job, &key, &why) == 0)
			continue;
		r = testcase_check_fail(cause, job, key != NULL ?
		    testcase_check_param(job, key) : NULL, why);
		free(why);
	}
	return r;
}

/*
 * LKP's program keys (jobs/job.c): the testcase's own program is what
 * runs, and a marker that names a monitor the agent has (by its name, so
 * any monitor registered in agents/monitor.c) runs that monitor beside
 * it; any other (a setup script bisectd does not have) would not run, so
 * it is refused rather than ignored.
 */
/* Whether the job has options under program name ("size.x"). */
static int
testcase_check_has_options(const struct job *job, const char *name)
{
	size_t	i, len = strlen(name);

	for (i = 0; i < job->nr_params; i++) {
		if (strncmp(job->params[i].key, name, len) == 0 &&
		    job->params[i].key[len] == '.')
			return 1;
	}
	return 0;
}

static int
testcase_check_programs(const struct job *job,
    const struct testcase_adapter *ad, const char **declared,
    unsigned nr_disks, char **cause)
{
	const struct job_param	*p = testcase_check_param(job, "programs");
	const char		*why, *v;
	char			*msg, *names = NULL;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < job->nr_programs && r == 0; i++) {
		/* the testcase's own; a monitor; the knobs' program */
		if (strcmp(job->programs[i], job->testcase) == 0 ||
		    monitor_find(job->programs[i]) != NULL ||
		    strcmp(job->programs[i], "transparent_hugepage") == 0 ||
		    testcase_covers(ad, job->programs[i]))
			continue;
		/*
		 * "size:" with no value: LKP exports the parameter empty,
		 * and the program takes its default (vm-scalability's run
		 * does); a parameter the adapter declares is read so, never
		 * a program. Not for program files' parameters, whose
		 * defaults the file gives, nor options given a value.
		 */
		if (ad != NULL && ad->data == NULL &&
		    testcase_check_in(declared, job->programs[i]) &&
		    !testcase_check_has_options(job, job->programs[i]))
			continue;
		/* disk: {nr_hdd: 1}, LKP's map form (agents/disk.c) */
		if (strcmp(job->programs[i], "disk") == 0 && nr_disks > 0)
			continue;
		/* fs: {fs: ext4}, checked by agents/disk.c */
		if (strcmp(job->programs[i], "fs") == 0 &&
		    job_param(job, "fs.fs") != NULL)
			continue;
		v = job_param(job, "oom-killer.ignored");
		if (strcmp(job->programs[i], "oom-killer") == 0 && v != NULL &&
		    strcmp(v, "1") == 0)
			continue;
		if ((why = testcase_check_lkp_why(job->programs[i])) != NULL)
			msg = xasprintf("program '%s' cannot be honoured "
			    "here: %s", job->programs[i], why);
		else
			msg = xasprintf("program '%s' is not one bisectd runs: "
			    "neither the testcase's own, '%s', nor a monitor "
			    "bisect-agent has (%s)", job->programs[i],
			    job->testcase, names = monitor_names());
		r = testcase_check_fail(cause, job, p, msg);
		free(msg);
		free(names);
		names = NULL;
	}
	return r;
}

/* File order, so the first error reported is the first in the file. */
static int
testcase_check_cmp(const void *a, const void *b)
{
	const struct job_param	*x = *(const struct job_param *const *)a;
	const struct job_param	*y = *(const struct job_param *const *)b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A testcase with no run: and no adapter: refused, with the known ones. */
static int
testcase_check_no_adapter(const struct job *job, char **cause)
{
	const struct program *const	*t;
	size_t				 nr;
	char				*names, *msg = NULL;

	/* a built-in program file that does not parse: say so */
	if (program_table(&t, &nr, &msg) != 0) {
		error_prefix(&msg, "the built-in program files");
		testcase_check_fail(cause, job, testcase_check_param(job,
		    "testcase"), msg);
		free(msg);
		return -1;
	}
	names = testcase_names();
	msg = xasprintf("testcase '%s' has no 'run:' command and no "
	    "adapter (known: %s)", job->testcase, names);
	testcase_check_fail(cause, job, testcase_check_param(job,
	    "testcase"), msg);
	free(msg);
	free(names);
	return -1;
}

/*
 * One parameter: bisectd's, a knob, the adapter's, LKP's (applied or
 * refused), a monitor's option, or refused with the nearest name.
 */
static int
testcase_check_one(const struct job *job, const struct testcase_adapter *ad,
    const struct job_param *p, const char **declared, char **cause)
{
	char	*msg, *dot;
	int	 lkp;

	if (testcase_check_in(testcase_check_bisectd, p->key) ||
	    testcase_check_in(testcase_check_knobs, p->key))
		return 0;
	if (testcase_check_covered(ad, p->key, declared))
		return 0;
	if (strcmp(p->key, "disk") == 0 || strcmp(p->key, "fs") == 0 ||
	    strcmp(p->key, "fs2") == 0 ||
	    strcmp(p->key, "mount_option") == 0 ||
	    strncmp(p->key, "disk.", 5) == 0 ||
	    strncmp(p->key, "fs.", 3) == 0)
		return 0;
	if ((lkp = testcase_check_lkp_key(job, ad, p, cause)) < 0)
		return -1;
	if (lkp > 0)
		return 0;
	if ((dot = strchr(p->key, '.')) != NULL) {
		msg = xstrndup(p->key, (size_t)(dot - p->key));
		if (testcase_check_in(testcase_check_maps, msg)) {
			free(msg);
			return 0;
		}
		free(msg);
	}
	switch (testcase_check_monitor_option(job, p, cause)) {
	case 1:
		return 0;
	case -1:
		return -1;
	}
	if (testcase_check_in(testcase_check_agent, p->key)) {
		msg = xasprintf("'%s' is the agent's (it is set from "
		    "the machine): it cannot be a parameter", p->key);
		testcase_check_fail(cause, job, p, msg);
		free(msg);
		return -1;
	}
	if (ad != NULL && testcase_check_in(declared, p->key))
		return 0;
	if (ad == NULL && !testcase_check_env_name(p->key)) {
		msg = xasprintf("parameter '%s' of inline testcase "
		    "'%s' cannot reach its 'run:' command: names of "
		    "environment variables are lowercase letters, "
		    "digits and '_', starting with a letter", p->key,
		    job->testcase);
		testcase_check_fail(cause, job, p, msg);
		free(msg);
		return -1;
	}
	return testcase_check_unknown(job, p, ad, declared, cause);
}

int
testcase_check(const struct job *job, char **cause)
{
	const struct job_param		**order = NULL;
	const struct testcase_adapter	 *ad = NULL;
	const struct job_param		 *p;
	const char			**declared = NULL;
	struct disk_want		  dw;
	const struct job_param		 *dp = NULL;
	const char			 *dkey = NULL;
	char				 *dmsg = NULL;
	size_t				  i;
	int				  r = -1;

	if (job->run == NULL && (ad = testcase_find(job->testcase)) == NULL)
		return testcase_check_no_adapter(job, cause);
	/*
	 * LKP's disk, fs, fs2, mount_option: applied by agents/disk.c; a
	 * refusal is reported at its key, in file order with the others.
	 */
	if (disk_job(job, ad != NULL, &dw, &dkey, &dmsg) != 0) {
		dp = dkey != NULL ? testcase_check_param(job, dkey) : NULL;
		if (dp == NULL)
			dp = testcase_check_param(job, "programs");
		error_prefix(&dmsg, "testcase '%s'", job->testcase);
	}
	declared = testcase_check_declared(ad);
	order = xcalloc(job->nr_params + 1, sizeof *order);
	for (i = 0; i < job->nr_params; i++)
		order[i] = &job->params[i];
	qsort(order, job->nr_params, sizeof *order, testcase_check_cmp);
	for (i = 0; i < job->nr_params; i++) {
		p = order[i];
		if (dmsg != NULL && p == dp) {
			testcase_check_fail(cause, job, p, dmsg);
			goto out;
		}
		if (testcase_check_one(job, ad, p, declared, cause) != 0)
			goto out;
	}
	if (dmsg != NULL) {
		testcase_check_fail(cause, job, dp, dmsg);
		goto out;
	}
	if (testcase_check_monitors(job, cause) != 0 ||
	    testcase_check_programs(job, ad, declared, dw.nr, cause) != 0 ||
	    testcase_check_monitor_values(job, cause) != 0)
		goto out;
	if (testcase_check_values(job, ad, cause) != 0)
		goto out;
	if (testcase_check_values_metric(job, ad, cause) != 0)
		goto out;
	r = 0;
out:
	free(order);
	free(declared);
	free(dmsg);
	return r;
}

int
testcase_check_agent_fits(const struct job *job, const struct config_agent *a,
    char **why)
{
	const char	*v = job_param(job, "force_reboot");

	if (!disk_agent_fits(job, a, why))
		return 0;
	if (v == NULL || strcmp(v, "0") == 0)
		return 1;
	if (strcmp(v, "1") != 0) {
		*why = xasprintf("'force_reboot' must be 0 or 1, not '%s'", v);
		return 0;
	}
	/* every run boots its kernel: the next job starts on a fresh boot */
	if (a->boot != NULL && strcmp(a->boot, "none") != 0)
		return 1;
	*why = xasprintf("'force_reboot: 1' asks for the machine to be "
	    "rebooted after the job (LKP's lkp-setup-rootfs reboots it); "
	    "the agent boots nothing ('boot: none'), only agents with boot: "
	    "kexec or qemu start every run on a fresh boot");
	return 0;
}
