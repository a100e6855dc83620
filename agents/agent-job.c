/*
 * Running one job without a boot (agents/agent-job.h). The run's state
 * lives in one struct from setup to end; a failure of the testcase, a knob
 * or a disk is the result's error, and only what keeps the agent from
 * writing a result at all comes back as -1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent-environ.h"
#include "agents/agent-job.h"
#include "agents/agent-monitor.h"
#include "agents/agent-testcase.h"
#include "agents/disk.h"
#include "agents/inventory.h"
#include "agents/knob.h"
#include "agents/knob-journal.h"
#include "agents/monitor.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "agents/transport.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define AGENT_JOB_MAX_OUTPUT	(64u << 20)	/* output.log: the tail parsed */

/* What a run holds from agent_job_setup to agent_job_end. */
struct agent_job_state {
	struct agent_job	 aj;		/* workdir: the disk's mount */
	struct inventory	*inv;
	struct knob_set		*ks;
	char			*kcause;
	char			*reaped;	/* a killed run's knobs put back */
	struct disk_run		*dr;
	const struct testcase_adapter *ad;
	struct testcase_ctx	 ctx;
	struct testcase_argv	 argv;
	struct agent_monitor	 mon;
	struct agent_testcase	 tc;
	char			*logpath;
};

/* The boot the run is in: ROOT/proc/sys/kernel/random/boot_id. */
static void
agent_job_record_boot(struct result *r, const char *root)
{
	struct strbuf	sb = STRBUF_INIT;

	if (monitor_snap_read(root, "/proc/sys/kernel/random/boot_id", &sb,
	    NULL) == 0) {
		strbuf_rtrim(&sb);
		if (sb.len > 0 && sb.len <= 64 && result_name_valid(sb.buf))
			r->boot_id = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
}

static unsigned long long
agent_job_memory(const struct inventory *inv)
{
	const char	*v = inventory_get(inv, "memory"), *sp;

	if (v == NULL || (sp = strchr(v, ' ')) == NULL)
		return 0;
	return strtoull(sp + 1, NULL, 10);
}

/* A named testcase's context for its adapter. */
static void
agent_job_adapter_ctx(const struct agent_job *aj, const struct inventory *inv,
    struct testcase_ctx *ctx)
{
	const char	*v;

	memset(ctx, 0, sizeof *ctx);
	ctx->job = aj->job;
	ctx->workdir = aj->workdir;
	ctx->resultdir = aj->resultdir;
	ctx->self = aj->self;
	ctx->nr_cpu = (v = inventory_get(inv, "nr_cpu")) != NULL ?
	    (unsigned)strtoul(v, NULL, 10) : 1;
	ctx->memory = agent_job_memory(inv);
}

/* The environment the run sees: inventory after the knobs, the build. */
static int
agent_job_env(const struct agent_job *aj, const struct knob_set *ks,
    struct inventory **inv, struct result *r, char **cause)
{
	struct strbuf	 names = STRBUF_INIT;
	char		*copy;
	size_t		 i;

	if (inventory_collect(aj->root, inv, cause) != 0)
		return -1;
	copy = path_join(aj->resultdir, "kconfig");
	inventory_kernel_build(*inv, aj->workdir, copy);
	free(copy);
	for (i = 0; ks != NULL && i < ks->nr; i++) {
		if (knob_is_lkp(ks->knobs[i].name)) {
			/* LKP's names: recorded as the job wrote them */
			if ((copy = knob_read(ks, &ks->knobs[i])) != NULL)
				inventory_set(*inv, ks->knobs[i].name, copy);
			free(copy);
		} else if (strncmp(ks->knobs[i].name, "sysctl.", 7) == 0)
			inventory_sysctl(*inv, aj->root, ks->knobs[i].name + 7);
		/* cpufreq_governor is one knob per CPU: named once */
		if (i > 0 && strcmp(ks->knobs[i - 1].name,
		    ks->knobs[i].name) == 0)
			continue;
		strbuf_addf(&names, "%s%s", names.len ? " " : "",
		    ks->knobs[i].name);
	}
	for (i = 0; i < (*inv)->nr_items; i++)
		result_env_set(r, (*inv)->items[i].key, (*inv)->items[i].value);
	result_env_set(r, "testcase", aj->job->testcase);
	if (names.len > 0)
		result_env_set(r, "knobs", names.buf);
	strbuf_release(&names);
	return 0;
}

/*
 * The job's disks (agents/disk.c), after reaping what a killed agent
 * left (on every run, disks or not): 0 with *dr (NULL when the job asks
 * for none), -1 with the run's error set. The commands' output goes to
 * RESULTDIR/disk.log.
 */
static int
agent_job_disks(const struct agent_job *aj, struct result *r,
    struct disk_run **dr)
{
	struct disk_want	 w;
	const char		*key;
	char			*path, *cause = NULL;
	int			 fd, ret = -1;

	*dr = NULL;
	/* every run: a killed agent's disks must not wait for a disk job */
	if (disk_run_reap(disk_dir(), -1, &cause) != 0) {
		result_env_set(r, "disks_reap_error", cause);
		free(cause);
		cause = NULL;
	}
	if (disk_job(aj->job, aj->job->run == NULL, &w, &key, &cause) != 0) {
		result_set_error(r, "%s", cause);
		free(cause);
		return -1;
	}
	if (w.nr == 0 && w.fs == NULL)
		return 0;
	path = path_join(aj->resultdir, "disk.log");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(path);
	if (fd == -1) {
		result_set_error(r, "disks: couldn't create disk.log: %s",
		    strerror(errno));
		return -1;
	}
	if (disk_run_setup(aj->job, aj->disks, aj->nr_disks, disk_dir(), fd,
	    dr, &cause) != 0) {
		result_set_error(r, "disks: %s", cause);
		free(cause);
		goto out;
	}
	disk_run_env(*dr, r);
	ret = 0;
out:
	close(fd);
	return ret;
}

/*
 * Everything before the testcase: 0 when it may run, 1 when the run ends
 * here with its error in r, -1 with *cause.
 */
static int
agent_job_setup(struct agent_job_state *s, struct result *r, char **cause)
{
	const struct job	*job = s->aj.job;
	const char		*mnt;
	char			*both;
	int			 knobs_ok = 0;

	/* every run: a killed agent's knobs must not stay for this one */
	if (knob_journal_reap(s->aj.root, &s->reaped, &s->kcause) == 0 &&
	    knob_set_from_job(job, s->aj.root, &s->ks, &s->kcause) == 0 &&
	    knob_apply(s->ks, &s->kcause) == 0)
		knobs_ok = 1;
	if (agent_job_env(&s->aj, s->ks, &s->inv, r, cause) != 0)
		return -1;
	if (s->ks != NULL && s->ks->reaped != NULL) {
		both = s->reaped == NULL ? xstrdup(s->ks->reaped) :
		    xasprintf("%s; %s", s->reaped, s->ks->reaped);
		free(s->reaped);
		s->reaped = both;
	}
	if (s->reaped != NULL)
		result_env_set(r, "knobs_reaped", s->reaped);
	agent_job_record_boot(r, s->aj.root);
	s->logpath = path_join(s->aj.resultdir, "output.log");
	s->tc.outfd = open(s->logpath, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644);
	if (s->tc.outfd == -1)
		return error_errno(cause, "couldn't create '%s'", s->logpath);
	if (!knobs_ok) {
		result_set_error(r, "%s", s->kcause);
		return 1;
	}
	/* LKP's disk and fs: the adapter's benchmark runs in the mount */
	if (agent_job_disks(&s->aj, r, &s->dr) != 0)
		return 1;
	if ((mnt = disk_run_mount(s->dr)) != NULL && job->run == NULL)
		s->aj.workdir = mnt;
	if (job->run != NULL)
		return 0;
	if ((s->ad = testcase_find(job->testcase)) == NULL) {
		result_set_error(r, "testcase '%s' has no 'run:' command and "
		    "bisect-agent has no adapter for it", job->testcase);
		return 1;
	}
	agent_job_adapter_ctx(&s->aj, s->inv, &s->ctx);
	s->ctx.partition = disk_run_partition(s->dr);
	if (testcase_prepare(s->ad, &s->ctx, &s->argv, r) != 0)
		return 1;
	return 0;
}

/* The testcase's process: its command, environment and monitors. */
static void
agent_job_testcase(struct agent_job_state *s, const struct result *r)
{
	struct agent_testcase	*tc = &s->tc;
	const struct job	*job = s->aj.job;

	tc->mons = s->mon.mons;
	tc->states = s->mon.state;
	tc->nr_mons = s->mon.nr;
	tc->late_delay = s->mon.delay;
	tc->late = s->mon.late.nr > 0 ? agent_monitor_late_start : NULL;
	tc->late_arg = &s->mon.late;
	tc->command = job->run;
	tc->argv = s->argv.v;
	tc->workdir = s->aj.workdir;
	tc->timeout = transport_timeout_testcase(job);
	tc->envp = agent_environ(job, s->inv, s->aj.jobfile, s->aj.resultdir,
	    s->aj.workdir);
	agent_environ_disks(&tc->envp, r);
}

/* The figures in output.log: the adapter's parser, or the generic one. */
static int
agent_job_output(struct agent_job_state *s, struct result *r, char **cause)
{
	char	*buf = NULL;
	size_t	 len;

	if (file_read_tail(s->logpath, AGENT_JOB_MAX_OUTPUT, &buf, &len,
	    cause) != 0)
		return -1;
	if (s->ad != NULL)
		testcase_metrics(s->ad, &s->ctx, buf, len, r);
	else
		result_output_parse(r, s->aj.job->testcase, buf, len);
	free(buf);
	return 0;
}

/* Undo the setup: monitors, disks and knobs; what fails goes into r. */
static void
agent_job_end(struct agent_job_state *s, struct result *r)
{
	char	*dcause = NULL;

	agent_monitor_free(&s->mon);
	if (s->dr != NULL && disk_run_teardown(s->dr, &dcause) != 0) {
		fprintf(stderr, "bisect-agent: %s\n", dcause);
		result_set_error(r, "%s", dcause);
		free(dcause);
	}
	if (s->ks != NULL && knob_restore(s->ks, &s->kcause) != 0) {
		fprintf(stderr, "bisect-agent: %s\n", s->kcause);
		result_env_set(r, "knobs_not_restored", s->kcause);
	}
	knob_set_free(s->ks);
	if (s->tc.outfd != -1)
		close(s->tc.outfd);
	agent_environ_free(s->tc.envp);
	testcase_argv_release(&s->argv);
	inventory_free(s->inv);
	free(s->logpath);
	free(s->kcause);
	free(s->reaped);
}

int
agent_job_run(const struct agent_job *aj, struct result *r, int *interrupted,
    char **cause)
{
	struct agent_job_state	s;
	struct monitor_run	mrun;
	int			ret = -1, setup;

	memset(&s, 0, sizeof s);
	s.aj = *aj;
	s.tc.outfd = -1;
	agent_monitor_init(&s.mon);
	if ((setup = agent_job_setup(&s, r, cause)) != 0) {
		ret = setup > 0 ? 0 : -1;
		goto out;
	}
	memset(&mrun, 0, sizeof mrun);
	mrun.root = s.aj.root;
	mrun.job = s.aj.job;
	mrun.resultdir = s.aj.resultdir;
	mrun.workdir = s.aj.workdir;
	if (agent_monitor_start(&s.mon, &mrun, r, cause) != 0)
		goto out;
	agent_job_testcase(&s, r);
	if (agent_testcase_run(&s.tc, cause) != 0)
		goto out;
	agent_monitor_sampler_stop(&s.mon);
	if (s.tc.interrupted != 0) {
		*interrupted = s.tc.interrupted;
		error_set(cause, "interrupted by signal %d (%s)",
		    s.tc.interrupted, strsignal(s.tc.interrupted));
		goto out;
	}
	agent_testcase_record(r, &s.tc);
	if (knob_check(s.ks, &s.kcause) != 0)
		result_set_error(r, "%s", s.kcause);
	agent_monitor_stop(&s.mon, &s.tc.exit, r);
	if (agent_job_output(&s, r, cause) != 0)
		goto out;
	ret = 0;
out:
	agent_job_end(&s, r);
	return ret;
}
