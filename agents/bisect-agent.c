/*
 * bisect-agent, the program that runs on a test machine (DESIGN §3.5).
 * "run" takes one expanded job as a file, runs its testcase under the
 * monitors with a timeout, and writes RESULTDIR/output.log and then
 * RESULTDIR/result (docs/agents.md); "info" prints the machine's
 * inventory. The job travels as a file and its values reach the testcase
 * only as environment variables, never through a shell's parser.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/boot.h"
#include "agents/disk.h"
#include "agents/inventory.h"
#include "agents/knob.h"
#include "agents/monitor.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "agents/transport.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define AGENT_EXIT_OK		0
#define AGENT_EXIT_FAILURE	1	/* no result written */
#define AGENT_EXIT_USAGE	2	/* bad arguments or job file */

#define AGENT_KILL_GRACE	5	/* seconds from SIGTERM to SIGKILL */
#define AGENT_MAX_MONITORS	32
#define AGENT_MONITOR_INTERVAL	1000	/* ms between monitor readings */
#define AGENT_MAX_JOB		(1u << 20)
#define AGENT_MAX_OUTPUT	(64u << 20)	/* output.log parsed: the tail */

extern char **environ;

struct agent_testcase {
	const char		*command;	/* sh -c COMMAND, or */
	char			**argv;		/* an adapter's program */
	char			**envp;
	const char		*workdir;
	int			 outfd;
	unsigned		 timeout;

	int			 status;	/* wait status */
	int			 timed_out;
	int			 interrupted;	/* the signal that stopped us */
	struct monitor_exit	 exit;
	/* told the testcase's process group once it is forked */
	const struct monitor_ops **mons;
	void			**states;
	size_t			 nr_mons;
	/* LKP's monitor_delay: late(late_arg, pgid) that long after the fork */
	unsigned		 late_delay;
	void			(*late)(void *late_arg, int pgid, double at);
	void			*late_arg;
	/* when it ran: wall clock and monotonic, at fork and at reap */
	struct timespec		 start_wall, start_mono;
	struct timespec		 end_wall, end_mono;
};

static void
agent_usage(void)
{
	fprintf(stderr, "usage: bisect-agent run [--workdir DIR] "
	    "[--boot none|qemu] [--disk KIND=DEVICE|KIND=loop:BYTES]... "
	    "JOBFILE RESULTDIR\n"
	    "       bisect-agent info [--root DIR]\n"
	    "       bisect-agent vm-scalability --nr-task=N --size=BYTES "
	    "[--runtime=S]\n"
	    "       bisect-agent --version\n");
}

static int
agent_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
agent_fail(int code, const char *fmt, ...)
{
	va_list	ap;

	fputs("bisect-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* LKP style: lowercase parameter names, exported as they are. */
static int
agent_env_name(const char *key)
{
	return testcase_env_name(key) && strcmp(key, "run") != 0 &&
	    strcmp(key, "monitors") != 0;
}

static void
agent_env_add(char ***envp, size_t *nr, size_t *alloc, const char *key,
    const char *value)
{
	size_t	klen = strlen(key), i;

	for (i = 0; i < *nr; i++) {
		if (strncmp((*envp)[i], key, klen) == 0 &&
		    (*envp)[i][klen] == '=') {
			free((*envp)[i]);
			(*envp)[i] = xasprintf("%s=%s", key, value);
			return;
		}
	}
	ALLOC_GROW(*envp, *nr + 1, *alloc);
	(*envp)[(*nr)++] = xasprintf("%s=%s", key, value);
	(*envp)[*nr] = NULL;
}

/*
 * The testcase's environment: the agent's own, then the job's parameters,
 * then the agent's variables, which parameters cannot override.
 */
static char **
agent_environ(const struct job *job, const struct inventory *inv,
    const char *jobfile, const char *resultdir, const char *workdir)
{
	char		**envp = NULL, *eq, *key;
	size_t		  nr = 0, alloc = 0, i;
	const char	 *v;

	ALLOC_GROW(envp, 1, alloc);
	envp[0] = NULL;
	for (i = 0; environ[i] != NULL; i++) {
		if ((eq = strchr(environ[i], '=')) == NULL)
			continue;
		key = xstrndup(environ[i], (size_t)(eq - environ[i]));
		agent_env_add(&envp, &nr, &alloc, key, eq + 1);
		free(key);
	}
	for (i = 0; i < job->nr_params; i++) {
		if (agent_env_name(job->params[i].key))
			agent_env_add(&envp, &nr, &alloc, job->params[i].key,
			    job->params[i].value);
	}
	if ((v = inventory_get(inv, "nr_cpu")) != NULL)
		agent_env_add(&envp, &nr, &alloc, "nr_cpu", v);
	if ((v = inventory_get(inv, "nr_node")) != NULL)
		agent_env_add(&envp, &nr, &alloc, "nr_node", v);
	agent_env_add(&envp, &nr, &alloc, "BISECT_AGENT_VERSION",
	    BISECT_AGENT_VERSION);
	agent_env_add(&envp, &nr, &alloc, "BISECT_AGENT_TESTCASE",
	    job->testcase);
	agent_env_add(&envp, &nr, &alloc, "BISECT_AGENT_JOB", jobfile);
	agent_env_add(&envp, &nr, &alloc, "BISECT_AGENT_RESULT_DIR",
	    resultdir);
	agent_env_add(&envp, &nr, &alloc, "BISECT_AGENT_WORKDIR", workdir);
	return envp;
}

static void
agent_environ_free(char **envp)
{
	size_t	i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}

static void
agent_close_from(int lowfd)
{
	long	max, fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = lowfd; fd < max; fd++)
		close((int)fd);
}

/*
 * In the child: never returns. The standard signals go back to their
 * default dispositions and none is blocked (a daemon up the chain may ignore SIGPIPE
 * or block signals, and a benchmark must not inherit that).
 */
static void
agent_exec(struct agent_testcase *tc, pid_t parent)
{
	char		*argv[] = { "sh", "-c", (char *)tc->command, NULL };
	sigset_t	 none;
	int		 null, sig;

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		_exit(127);
	for (sig = 1; sig < 32; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((null = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(null, 0) == -1 || dup2(tc->outfd, 1) == -1 ||
	    dup2(tc->outfd, 2) == -1)
		_exit(127);
	agent_close_from(3);
	if (chdir(tc->workdir) == -1) {
		dprintf(2, "bisect-agent: couldn't enter '%s': %s\n",
		    tc->workdir, strerror(errno));
		_exit(127);
	}
	if (tc->argv != NULL) {
		execve(tc->argv[0], tc->argv, tc->envp);
		dprintf(2, "bisect-agent: couldn't run %s: %s\n", tc->argv[0],
		    strerror(errno));
		_exit(127);
	}
	execve("/bin/sh", argv, tc->envp);
	dprintf(2, "bisect-agent: couldn't run /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

static double
agent_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run the testcase in its own process group and wait for it, at most
 * tc->timeout seconds: then SIGTERM to the group, SIGKILL after a grace.
 * SIGCHLD and the signals that stop the agent are blocked and taken with
 * sigtimedwait, which works on every kernel a bisection may boot (pidfd
 * needs 5.3). Leftover processes of the group are killed at the end.
 */
static int
agent_testcase_run(struct agent_testcase *tc, char **cause)
{
	struct timespec	 start, end, ts;
	sigset_t	 block, old;
	siginfo_t	 info;
	double		 deadline, left, late_at;
	pid_t		 parent = getpid(), pid, w;
	size_t		 i;
	int		 phase = 0, sig, r = -1;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	clock_gettime(CLOCK_REALTIME, &tc->start_wall);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if ((pid = fork()) == -1) {
		error_errno(cause, "couldn't fork");
		goto out;
	}
	if (pid == 0)
		agent_exec(tc, parent);
	setpgid(pid, pid);
	for (i = 0; i < tc->nr_mons; i++) {
		if (tc->mons[i]->attach != NULL)
			tc->mons[i]->attach(tc->states[i], (int)pid);
	}

	deadline = agent_now() + tc->timeout;
	late_at = tc->late != NULL ? agent_now() + tc->late_delay : 0;
	for (;;) {
		w = wait4(pid, &tc->status, WNOHANG, &tc->exit.rusage);
		if (w == pid)
			break;
		if (w == -1 && errno != EINTR) {
			error_errno(cause, "couldn't wait for the testcase");
			killpg(pid, SIGKILL);
			goto out;
		}
		if (tc->late != NULL && phase == 0 && agent_now() >= late_at) {
			tc->late(tc->late_arg, (int)pid, agent_now() -
			    late_at + tc->late_delay);
			tc->late = NULL;
			continue;
		}
		left = deadline - agent_now();
		if (tc->late != NULL && phase == 0 && left > 0 &&
		    late_at - agent_now() < left)
			left = late_at - agent_now() > 0 ?
			    late_at - agent_now() : 0.001;
		if (left <= 0) {
			if (phase == 0) {
				tc->timed_out = 1;
				killpg(pid, SIGTERM);
				deadline = agent_now() + AGENT_KILL_GRACE;
			} else {
				killpg(pid, SIGKILL);
				deadline = agent_now() + 3600;
			}
			phase++;
			continue;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(&block, &info, &ts);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			tc->interrupted = sig;
			killpg(pid, SIGKILL);
			while (wait4(pid, &tc->status, 0, &tc->exit.rusage) ==
			    -1 && errno == EINTR)
				;
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	clock_gettime(CLOCK_REALTIME, &tc->end_wall);
	tc->start_mono = start;
	tc->end_mono = end;
	killpg(pid, SIGKILL);
	tc->exit.elapsed.tv_sec = end.tv_sec - start.tv_sec;
	tc->exit.elapsed.tv_nsec = end.tv_nsec - start.tv_nsec;
	if (tc->exit.elapsed.tv_nsec < 0) {
		tc->exit.elapsed.tv_sec--;
		tc->exit.elapsed.tv_nsec += 1000000000L;
	}
	r = 0;
out:
	if (tc->interrupted == 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

static double
agent_seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

/* The boot the run is in: ROOT/proc/sys/kernel/random/boot_id. */
static void
agent_record_boot(struct result *r, const char *root)
{
	struct strbuf	sb = STRBUF_INIT;

	if (monitor_read(root, "/proc/sys/kernel/random/boot_id", &sb,
	    NULL) == 0) {
		strbuf_rtrim(&sb);
		if (sb.len > 0 && sb.len <= 64 && result_name_valid(sb.buf))
			r->boot_id = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
}

static void
agent_record_exit(struct result *r, const struct agent_testcase *tc)
{
	int	sig;

	r->has_times = 1;
	r->start_wall = agent_seconds(&tc->start_wall);
	r->start_mono = agent_seconds(&tc->start_mono);
	r->end_wall = agent_seconds(&tc->end_wall);
	r->end_mono = agent_seconds(&tc->end_mono);

	if (tc->timed_out)
		result_set_error(r, "timed out after %us", tc->timeout);
	if (WIFEXITED(tc->status)) {
		r->exit_status = WEXITSTATUS(tc->status);
		if (r->exit_status != 0)
			result_set_error(r, "testcase exited with status %d",
			    r->exit_status);
	} else if (WIFSIGNALED(tc->status)) {
		sig = WTERMSIG(tc->status);
		r->exit_status = 128 + sig;
		result_set_error(r, "testcase killed by signal %d (%s)", sig,
		    strsignal(sig));
	}
}

/* What a run needs besides the job: paths and the agent's own program. */
struct agent_run {
	const struct job	*job;
	const char		*jobfile;
	const char		*resultdir;
	const char		*workdir;
	const char		*self;
	const char		*root;
	const struct disk_decl	*disks;		/* --disk: the test disks */
	size_t			 nr_disks;
};

static unsigned long long
agent_memory(const struct inventory *inv)
{
	const char	*v = inventory_get(inv, "memory"), *sp;

	if (v == NULL || (sp = strchr(v, ' ')) == NULL)
		return 0;
	return strtoull(sp + 1, NULL, 10);
}

/* A named testcase's context for its adapter. */
static void
agent_adapter_ctx(const struct agent_run *ar, const struct inventory *inv,
    struct testcase_ctx *ctx)
{
	const char	*v;

	memset(ctx, 0, sizeof *ctx);
	ctx->job = ar->job;
	ctx->workdir = ar->workdir;
	ctx->resultdir = ar->resultdir;
	ctx->self = ar->self;
	ctx->nr_cpu = (v = inventory_get(inv, "nr_cpu")) != NULL ?
	    (unsigned)strtoul(v, NULL, 10) : 1;
	ctx->memory = agent_memory(inv);
}

/* The environment the run sees: inventory after the knobs, the build. */
static int
agent_env(const struct agent_run *ar, const struct knob_set *ks,
    struct inventory **inv, struct result *r, char **cause)
{
	struct strbuf	 names = STRBUF_INIT;
	char		*copy;
	size_t		 i;

	if (inventory_collect(ar->root, inv, cause) != 0)
		return -1;
	copy = path_join(ar->resultdir, "kconfig");
	inventory_build(*inv, ar->workdir, copy);
	free(copy);
	for (i = 0; ks != NULL && i < ks->nr; i++) {
		if (knob_is_lkp(ks->knobs[i].name)) {
			/* LKP's names: recorded as the job wrote them */
			if ((copy = knob_read(ks, &ks->knobs[i])) != NULL)
				inventory_set(*inv, ks->knobs[i].name, copy);
			free(copy);
		} else if (strncmp(ks->knobs[i].name, "sysctl.", 7) == 0)
			inventory_sysctl(*inv, ar->root, ks->knobs[i].name + 7);
		/* cpufreq_governor is one knob per CPU: named once */
		if (i > 0 && strcmp(ks->knobs[i - 1].name,
		    ks->knobs[i].name) == 0)
			continue;
		strbuf_addf(&names, "%s%s", names.len ? " " : "",
		    ks->knobs[i].name);
	}
	for (i = 0; i < (*inv)->nr_items; i++)
		result_env_set(r, (*inv)->items[i].key, (*inv)->items[i].value);
	result_env_set(r, "testcase", ar->job->testcase);
	if (names.len > 0)
		result_env_set(r, "knobs", names.buf);
	strbuf_release(&names);
	return 0;
}

/*
 * LKP's monitor_delay: its monitors start that many seconds into the test
 * (lib/job.sh wakes them then, or at the test's end if it comes first).
 * Here every monitor but time and interference, which measure the whole
 * testcase and the machine's disturbance, starts then, with a sampler of
 * its own. When the testcase ends first they are not started, and env
 * monitors_not_started names them.
 */
struct agent_late {
	const struct monitor_run *mrun;
	struct result		 *r;
	const struct monitor_ops *mons[AGENT_MAX_MONITORS];
	void			 *state[AGENT_MAX_MONITORS];
	size_t			  nr;
	int			  started;
	struct monitor_sampler	 *sampler;
};

/* Seconds of monitor_delay (normalised by jobs/job-param.c); 0: none. */
static unsigned
agent_monitor_delay(const struct job *job)
{
	const char	*v = job_param(job, "monitor_delay");
	char		*end;
	unsigned long	 n;

	if (v == NULL || *v < '0' || *v > '9')
		return 0;
	n = strtoul(v, &end, 10);
	return *end == '\0' && n <= 30UL * 24 * 3600 ? (unsigned)n : 0;
}

/* Move every monitor but time and interference from mons into late. */
static void
agent_late_split(const struct monitor_ops **mons, size_t *nr,
    struct agent_late *late)
{
	size_t	i, kept = 0;

	for (i = 0; i < *nr; i++) {
		if (mons[i] == &monitor_time_ops ||
		    mons[i] == &monitor_interference_ops)
			mons[kept++] = mons[i];
		else
			late->mons[late->nr++] = mons[i];
	}
	*nr = kept;
}

/* env KEY gets " VALUE" after what the first start gave it. */
static void
agent_env_append(struct result *r, const char *key, const char *before,
    const char *added)
{
	char	*v;

	if (added == NULL || *added == '\0') {
		if (before != NULL)
			result_env_set(r, key, before);
		return;
	}
	if (before == NULL || *before == '\0') {
		result_env_set(r, key, added);
		return;
	}
	v = xasprintf("%s %s", before, added);
	result_env_set(r, key, v);
	free(v);
}

static void
agent_late_start(void *arg, int pgid, double at)
{
	struct agent_late	*late = arg;
	const char		*v;
	char			*ran, *gone = NULL, *cause = NULL, *at_text;
	size_t			 i;
	int			 sampling = 0;

	ran = xstrdup((v = result_env_get(late->r, "monitors")) != NULL ?
	    v : "");
	if ((v = result_env_get(late->r, "monitors_unavailable")) != NULL)
		gone = xstrdup(v);
	monitor_start_all(late->mrun, late->r, late->mons, late->state,
	    &late->nr);
	late->started = 1;
	/* when they started, in seconds after the testcase's fork */
	at_text = xasprintf("%.3f", at);
	result_env_set(late->r, "monitors_delayed_started", at_text);
	free(at_text);
	agent_env_append(late->r, "monitors", ran,
	    result_env_get(late->r, "monitors"));
	/* set again only when one of these is unavailable (names differ) */
	v = result_env_get(late->r, "monitors_unavailable");
	agent_env_append(late->r, "monitors_unavailable", gone,
	    v != NULL && (gone == NULL || strcmp(v, gone) != 0) ? v : NULL);
	for (i = 0; i < late->nr; i++) {
		sampling |= late->mons[i]->sample != NULL;
		if (late->mons[i]->attach != NULL)
			late->mons[i]->attach(late->state[i], pgid);
	}
	if (sampling && monitor_sampler_start(&late->sampler, late->mons,
	    (void *const *)late->state, late->nr, AGENT_MONITOR_INTERVAL,
	    &cause) != 0) {
		result_set_error(late->r, "monitor_delay: %s", cause);
		free(cause);
	}
	free(ran);
	free(gone);
}

/* The monitors the testcase ended before: env monitors_not_started. */
static void
agent_late_missed(struct agent_late *late, unsigned delay)
{
	struct strbuf	sb = STRBUF_INIT;
	char		*why;
	size_t		i;

	if (late->started || late->nr == 0)
		return;
	for (i = 0; i < late->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", late->mons[i]->name);
	result_env_set(late->r, "monitors_not_started", sb.buf);
	why = xasprintf("the testcase ended before monitor_delay (%us)",
	    delay);
	result_env_set(late->r, "monitors_not_started_why", why);
	free(why);
	strbuf_release(&sb);
	late->nr = 0;
}

/*
 * The job's disks (agents/disk.c), after reaping what a killed agent
 * left (on every run, disks or not): 0 with *dr (NULL when the job asks
 * for none), -1 with the run's error set. The commands' output goes to
 * RESULTDIR/disk.log.
 */
static int
agent_disks(const struct agent_run *ar, struct result *r,
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
	if (disk_job(ar->job, ar->job->run == NULL, &w, &key, &cause) != 0) {
		result_set_error(r, "%s", cause);
		free(cause);
		return -1;
	}
	if (w.nr == 0 && w.fs == NULL)
		return 0;
	path = path_join(ar->resultdir, "disk.log");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(path);
	if (fd == -1) {
		result_set_error(r, "disks: couldn't create disk.log: %s",
		    strerror(errno));
		return -1;
	}
	if (disk_run_setup(ar->job, ar->disks, ar->nr_disks, disk_dir(), fd,
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

/* An inline run: gets LKP's mount_points and partitions as variables. */
static void
agent_environ_disks(char ***envp, const struct result *r)
{
	static const char *const keys[] = { "mount_points", "partitions",
	    NULL };
	const char	*v;
	size_t		 nr, alloc, i;

	for (nr = 0; (*envp)[nr] != NULL; nr++)
		;
	alloc = nr + 1;
	for (i = 0; keys[i] != NULL; i++) {
		if ((v = result_env_get(r, keys[i])) != NULL)
			agent_env_add(envp, &nr, &alloc, keys[i], v);
	}
}

static int
agent_run_job(const struct agent_run *ar, struct result *r,
    int *interrupted, char **cause)
{
	const struct job	 *job = ar->job;
	struct agent_testcase	  tc;
	struct inventory	 *inv = NULL;
	struct knob_set		 *ks = NULL;
	const struct testcase_adapter *ad = NULL;
	struct testcase_ctx	  ctx;
	struct testcase_argv	  argv;
	struct monitor_sampler	 *sampler = NULL;
	struct monitor_run	  mrun;
	const struct monitor_ops *mons[AGENT_MAX_MONITORS];
	void			 *state[AGENT_MAX_MONITORS];
	struct agent_late	  late;
	unsigned		  delay = agent_monitor_delay(job);
	char			 *logpath = NULL, *buf = NULL;
	char			 *mcause = NULL, *kcause = NULL, *dcause = NULL;
	struct disk_run		 *dr = NULL;
	struct agent_run	  dar;
	const char		 *mnt;
	size_t			  nr_mons = 0, i, len;
	int			  ret = -1, knobs_ok = 0, sampling = 0;

	memset(&tc, 0, sizeof tc);
	memset(&argv, 0, sizeof argv);
	memset(&ctx, 0, sizeof ctx);
	memset(state, 0, sizeof state);
	memset(&late, 0, sizeof late);
	tc.outfd = -1;

	if (knob_set_from_job(job, ar->root, &ks, &kcause) == 0 &&
	    knob_apply(ks, &kcause) == 0)
		knobs_ok = 1;
	if (agent_env(ar, ks, &inv, r, cause) != 0)
		goto out;
	agent_record_boot(r, ar->root);
	logpath = path_join(ar->resultdir, "output.log");
	tc.outfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	if (tc.outfd == -1) {
		error_errno(cause, "couldn't create '%s'", logpath);
		goto out;
	}
	if (!knobs_ok) {
		result_set_error(r, "%s", kcause);
		ret = 0;
		goto out;
	}
	/* LKP's disk and fs: the adapter's benchmark runs in the mount */
	dar = *ar;
	if (agent_disks(ar, r, &dr) != 0) {
		ret = 0;
		goto out;
	}
	if ((mnt = disk_run_mount(dr)) != NULL && job->run == NULL)
		dar.workdir = mnt;
	ar = &dar;
	if (job->run == NULL) {
		if ((ad = testcase_find(job->testcase)) == NULL) {
			result_set_error(r, "testcase '%s' has no 'run:' "
			    "command and bisect-agent has no adapter for it",
			    job->testcase);
			ret = 0;
			goto out;
		}
		agent_adapter_ctx(ar, inv, &ctx);
		ctx.partition = disk_run_partition(dr);
		if (testcase_prepare(ad, &ctx, &argv, r) != 0) {
			ret = 0;
			goto out;
		}
	}

	nr_mons = monitor_select(job, r, mons, AGENT_MAX_MONITORS);
	mrun.root = ar->root;
	mrun.job = job;
	mrun.resultdir = ar->resultdir;
	mrun.workdir = ar->workdir;
	if (delay > 0) {
		agent_late_split(mons, &nr_mons, &late);
		late.mrun = &mrun;
		late.r = r;
		tc.late_delay = delay;
		tc.late = late.nr > 0 ? agent_late_start : NULL;
		tc.late_arg = &late;
	}
	monitor_start_all(&mrun, r, mons, state, &nr_mons);
	for (i = 0; i < nr_mons; i++)
		sampling |= mons[i]->sample != NULL;
	if (sampling && monitor_sampler_start(&sampler, mons,
	    (void *const *)state, nr_mons, AGENT_MONITOR_INTERVAL,
	    cause) != 0)
		goto out;

	tc.mons = mons;
	tc.states = state;
	tc.nr_mons = nr_mons;
	tc.command = job->run;
	tc.argv = argv.v;
	tc.workdir = ar->workdir;
	tc.timeout = transport_testcase_timeout(job);
	tc.envp = agent_environ(job, inv, ar->jobfile, ar->resultdir,
	    ar->workdir);
	agent_environ_disks(&tc.envp, r);
	if (agent_testcase_run(&tc, cause) != 0)
		goto out;
	monitor_sampler_stop(sampler);
	sampler = NULL;
	monitor_sampler_stop(late.sampler);
	late.sampler = NULL;
	if (tc.interrupted != 0) {
		*interrupted = tc.interrupted;
		error_set(cause, "interrupted by signal %d (%s)",
		    tc.interrupted, strsignal(tc.interrupted));
		goto out;
	}
	agent_record_exit(r, &tc);
	if (knob_check(ks, &kcause) != 0)
		result_set_error(r, "%s", kcause);

	if (delay > 0) {
		result_env_set(r, "monitor_delay", job_param(job,
		    "monitor_delay"));
		agent_late_missed(&late, delay);
	}
	for (i = 0; i < nr_mons + late.nr; i++) {
		const struct monitor_ops *m = i < nr_mons ? mons[i] :
		    late.mons[i - nr_mons];
		void	*st = i < nr_mons ? state[i] : late.state[i - nr_mons];

		if (m->stop(st, &tc.exit, r, &mcause) != 0) {
			result_set_error(r, "monitor '%s': %s", m->name,
			    mcause);
			free(mcause);
			mcause = NULL;
		}
	}
	if (file_read_tail(logpath, AGENT_MAX_OUTPUT, &buf, &len, cause) != 0)
		goto out;
	if (ad != NULL)
		testcase_metrics(ad, &ctx, buf, len, r);
	else
		result_output_parse(r, job->testcase, buf, len);
	ret = 0;
out:
	monitor_sampler_stop(sampler);
	monitor_sampler_stop(late.sampler);
	for (i = 0; i < nr_mons; i++) {
		if (mons[i]->free != NULL)
			mons[i]->free(state[i]);
	}
	for (i = 0; late.started && i < late.nr; i++) {
		if (late.mons[i]->free != NULL)
			late.mons[i]->free(late.state[i]);
	}
	if (dr != NULL && disk_run_teardown(dr, &dcause) != 0) {
		fprintf(stderr, "bisect-agent: %s\n", dcause);
		result_set_error(r, "%s", dcause);
		free(dcause);
	}
	if (ks != NULL && knob_restore(ks, &kcause) != 0) {
		fprintf(stderr, "bisect-agent: %s\n", kcause);
		result_env_set(r, "knobs_not_restored", kcause);
	}
	knob_set_free(ks);
	if (tc.outfd != -1)
		close(tc.outfd);
	agent_environ_free(tc.envp);
	testcase_argv_release(&argv);
	inventory_free(inv);
	free(logpath);
	free(buf);
	free(kcause);
	return ret;
}

static int
agent_cmd_run(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "workdir", required_argument, NULL, 'w' },
		{ "boot", required_argument, NULL, 'b' },
		{ "disk", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	struct disk_decl		  disks[DISK_MAX];
	size_t				  nr_disks = 0, di;
	enum boot_method		  boot = BOOT_NONE;
	struct job			**jobs = NULL;
	struct result			 *r = NULL;
	struct agent_run		  ar;
	struct stat			  st;
	char				  self[4096];
	ssize_t				  n;
	char				 *workdir = NULL, *jobfile = NULL;
	char				 *resultdir = NULL, *buf = NULL;
	char				 *path = NULL, *cause = NULL;
	size_t				  nr = 0, len;
	int				  c, code = AGENT_EXIT_FAILURE;
	int				  interrupted = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+w:b:d:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			free(workdir);
			workdir = path_absolute(optarg, NULL);
			break;
		case 'd':
			if (nr_disks == DISK_MAX) {
				code = agent_fail(AGENT_EXIT_USAGE, "more than "
				    "%d --disk", DISK_MAX);
				goto out;
			}
			if (disk_decl_parse(optarg, &disks[nr_disks],
			    &cause) != 0) {
				code = agent_fail(AGENT_EXIT_USAGE, "%s",
				    cause);
				goto out;
			}
			nr_disks++;
			break;
		case 'b':
			if (boot_method_parse(optarg, &boot) != 0) {
				code = agent_fail(AGENT_EXIT_USAGE, "unknown "
				    "boot method '%s' (none, qemu, kexec)",
				    optarg);
				goto out;
			}
			break;
		default:
			agent_usage();
			code = AGENT_EXIT_USAGE;
			goto out;
		}
	}
	if (nr_disks > 0 && boot != BOOT_NONE) {
		code = agent_fail(AGENT_EXIT_USAGE, "--disk is for runs without "
		    "a boot: the disks would be set up outside the booted "
		    "kernel");
		goto out;
	}
	if (argc - optind != 2) {
		agent_usage();
		code = AGENT_EXIT_USAGE;
		goto out;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
		code = agent_fail(AGENT_EXIT_FAILURE, "couldn't find the "
		    "agent's own program: %s", strerror(errno));
		goto out;
	}
	self[n] = '\0';
	jobfile = path_absolute(argv[optind], NULL);
	resultdir = path_absolute(argv[optind + 1], NULL);
	if (workdir == NULL && (workdir = getcwd(NULL, 0)) == NULL) {
		code = agent_fail(AGENT_EXIT_FAILURE, "couldn't get the "
		    "current directory: %s", strerror(errno));
		goto out;
	}
	if (stat(workdir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		code = agent_fail(AGENT_EXIT_USAGE, "workdir '%s' is not a "
		    "directory", workdir);
		goto out;
	}
	if (stat(jobfile, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > AGENT_MAX_JOB) {
		code = agent_fail(AGENT_EXIT_USAGE, "job file '%s' is not a "
		    "regular file of at most %u bytes", jobfile, AGENT_MAX_JOB);
		goto out;
	}
	if (file_read(jobfile, &buf, &len, &cause) != 0 ||
	    job_parse(jobfile, buf, len, &jobs, &nr, &cause) != 0) {
		code = agent_fail(AGENT_EXIT_USAGE, "%s", cause);
		goto out;
	}
	if (nr != 1) {
		code = agent_fail(AGENT_EXIT_USAGE, "job file '%s' expands to "
		    "%zu jobs; the agent runs one expanded job", jobfile, nr);
		goto out;
	}

	if (dir_create(resultdir, &cause) != 0) {
		code = agent_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	path = path_join(resultdir, "result");
	if (unlink(path) == -1 && errno != ENOENT) {
		code = agent_fail(AGENT_EXIT_FAILURE, "couldn't remove '%s': "
		    "%s", path, strerror(errno));
		goto out;
	}
	free(path);
	path = path_join(resultdir, "job.yaml");
	if (file_write_atomic(path, buf, len, &cause) != 0) {
		code = agent_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}

	r = result_new();
	memset(&ar, 0, sizeof ar);
	ar.job = jobs[0];
	ar.jobfile = jobfile;
	ar.resultdir = resultdir;
	ar.workdir = workdir;
	ar.self = self;
	ar.root = inventory_root(NULL);
	ar.disks = disks;
	ar.nr_disks = nr_disks;
	if (boot != BOOT_NONE) {
		if (boot_run(boot, jobs[0], jobfile, workdir, resultdir, r,
		    &cause) != 0) {
			code = agent_fail(AGENT_EXIT_FAILURE, "%s", cause);
			goto out;
		}
	} else if (agent_run_job(&ar, r, &interrupted, &cause) != 0) {
		code = agent_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	if (result_save(resultdir, r, &cause) != 0) {
		code = agent_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	code = AGENT_EXIT_OK;
out:
	job_list_free(jobs, nr);
	result_free(r);
	for (di = 0; di < nr_disks; di++)
		disk_decl_release(&disks[di]);
	free(workdir);
	free(jobfile);
	free(resultdir);
	free(buf);
	free(path);
	free(cause);
	return code;
}

static int
agent_cmd_info(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct inventory		*inv = NULL;
	const char			*root = NULL;
	char				*text = NULL, *cause = NULL;
	int				 c, code = AGENT_EXIT_FAILURE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+r:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		default:
			agent_usage();
			return AGENT_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		agent_usage();
		return AGENT_EXIT_USAGE;
	}
	if (inventory_collect(inventory_root(root), &inv, &cause) != 0) {
		code = agent_fail(AGENT_EXIT_FAILURE, "%s", cause);
		goto out;
	}
	text = inventory_format(inv);
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		code = agent_fail(AGENT_EXIT_FAILURE, "couldn't write the "
		    "inventory: %s", strerror(errno));
		goto out;
	}
	code = AGENT_EXIT_OK;
out:
	inventory_free(inv);
	free(text);
	free(cause);
	return code;
}

static const struct agent_cmd {
	const char	*name;
	int		(*exec)(int, char **);
} agent_cmds[] = {
	{ "run", agent_cmd_run },
	{ "info", agent_cmd_info },
	{ "vm-scalability", testcase_vmscale_main },
};

int
main(int argc, char **argv)
{
	size_t	i;

	if (argc < 2) {
		agent_usage();
		return AGENT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("bisect-agent %s\n", BISECT_AGENT_VERSION);
		return AGENT_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		agent_usage();
		return AGENT_EXIT_OK;
	}
	for (i = 0; i < sizeof agent_cmds / sizeof agent_cmds[0]; i++) {
		if (strcmp(argv[1], agent_cmds[i].name) == 0)
			return agent_cmds[i].exec(argc - 1, argv + 1);
	}
	fprintf(stderr, "bisect-agent: unknown command '%s'\n", argv[1]);
	agent_usage();
	return AGENT_EXIT_USAGE;
}
