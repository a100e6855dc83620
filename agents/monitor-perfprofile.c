/*
 * perf-profile: `perf record -a -g` over the testcase, its call chains
 * folded at stop into LKP's perf-profile rows (agents/perf-profile.c), on
 * the host or, under qemu, in the guest with the host's perf in the
 * initramfs (docs/monitors.md; docs/design.md, "File notes").
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/boot.h"
#include "agents/child.h"
#include "agents/initramfs.h"
#include "agents/monitor.h"
#include "agents/monitor-perfprofile.h"
#include "agents/monitor-tool.h"
#include "agents/perf-profile.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define PERFPROFILE_FREQ	800		/* samples a second per CPU */
#define PERFPROFILE_MAX_FREQ	100000		/* perf_event_max_sample_rate */
#define PERFPROFILE_MAX_DELAY	86400		/* seconds */
#define PERFPROFILE_MAX_DATA	"256M"		/* perf record --max-size */
#define PERFPROFILE_GUEST_DATA	"32M"		/* in a qemu guest's RAM */
#define PERFPROFILE_SYMBOLS	"System.map"	/* the build's, kept */
#define PERFPROFILE_DATA	"perf-profile.data"
#define PERFPROFILE_REPORT_WAIT	600		/* s for perf report */
#define PERFPROFILE_REPORT_MAX	(256u << 20)	/* bytes of its output */
#define PERFPROFILE_READY_WAIT	30000		/* ms for perf record to start */

static const char *const monitor_perfprofile_options[] = {
	"freq", "delay", NULL
};

struct monitor_perfprofile {
	struct monitor_tool	 tool;
	struct strbuf		 out;
	char			*data;
	char			*vmlinux;
	char			*kallsyms;	/* the build's System.map */
	const char		*max_size;
	const char		*event;
	/* perf record --control: "enable" to ctl, "ack" back */
	char			*dir;
	int			 ctl;
	int			 ack;
	struct timespec		 enable_at;	/* with a delay */
	unsigned long		 delay;
	int			 enabled;
	int			 acked;		/* perf answered a command */
};

/* NAME.OPTION as a whole number in [min, max], def when absent. */
static int
monitor_perfprofile_number(const struct job *job, const char *option,
    unsigned long min, unsigned long max, unsigned long def,
    unsigned long *out, char **cause)
{
	char		*key = xasprintf("perf-profile.%s", option), *end;
	const char	*v = job != NULL ? job_param(job, key) : NULL;
	unsigned long	 n;
	int		 r = -1;

	*out = def;
	if (v == NULL) {
		r = 0;
		goto out;
	}
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || n < min ||
	    n > max) {
		error_set(cause, "'%s' must be a whole number from %lu to %lu, "
		    "not '%s'", key, min, max, v);
		goto out;
	}
	*out = n;
	r = 0;
out:
	free(key);
	return r;
}

static int
monitor_perfprofile_settings(const struct job *job, unsigned long *freq,
    unsigned long *delay, const char **key, char **cause)
{
	if (monitor_perfprofile_number(job, "freq", 1, PERFPROFILE_MAX_FREQ,
	    PERFPROFILE_FREQ, freq, cause) != 0) {
		if (key != NULL)
			*key = "perf-profile.freq";
		return -1;
	}
	if (monitor_perfprofile_number(job, "delay", 0, PERFPROFILE_MAX_DELAY,
	    0, delay, cause) != 0) {
		if (key != NULL)
			*key = "perf-profile.delay";
		return -1;
	}
	return 0;
}

static int
monitor_perfprofile_check(const struct job *job, const char **key,
    char **cause)
{
	unsigned long	freq, delay;

	return monitor_perfprofile_settings(job, &freq, &delay, key, cause);
}

/* cycles where the CPU counts them (a PMU); cpu-clock, a timer, else. */
static const char *
monitor_perfprofile_event(void)
{
	char *const	 probe[] = { "perf", "stat", "-x", ",", "-e", "cycles",
	    "--", "true", NULL };
	struct strbuf	 sb = STRBUF_INIT;
	char		*cause = NULL;
	const char	*ev = "cpu-clock";

	if (monitor_tool_probe(probe, &sb, &cause) == 0 &&
	    strstr(sb.buf, "<not") == NULL && strstr(sb.buf, "cycles") != NULL)
		ev = "cycles";
	free(cause);
	strbuf_release(&sb);
	return ev;
}

static void
monitor_perfprofile_free(void *state)
{
	struct monitor_perfprofile	*mp = state;

	if (mp == NULL)
		return;
	monitor_tool_release(&mp->tool);
	strbuf_release(&mp->out);
	if (mp->ctl != -1)
		close(mp->ctl);
	if (mp->ack != -1)
		close(mp->ack);
	if (mp->dir != NULL)
		dir_remove_tree(mp->dir, NULL);
	free(mp->dir);
	free(mp->data);
	free(mp->vmlinux);
	free(mp->kallsyms);
	free(mp);
}

static int	monitor_perfprofile_slurp(int, size_t, struct strbuf *, char **);

/* Two FIFOs in a directory of their own; the paths into ctl and ack. */
static int
monitor_perfprofile_fifos(struct monitor_perfprofile *mp, char **ctl,
    char **ack, char **cause)
{
	const char	*tmp = getenv("TMPDIR");

	mp->dir = xasprintf("%s/bisect-agent-perf.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(mp->dir) == NULL) {
		error_errno(cause, "couldn't create '%s'", mp->dir);
		free(mp->dir);
		mp->dir = NULL;
		return -1;
	}
	*ctl = path_join(mp->dir, "ctl");
	*ack = path_join(mp->dir, "ack");
	if (mkfifo(*ctl, 0600) == -1 || mkfifo(*ack, 0600) == -1)
		return error_errno(cause, "couldn't make FIFOs in '%s'",
		    mp->dir);
	/* read-write: neither open waits for perf to open its end */
	if ((mp->ctl = open(*ctl, O_RDWR | O_CLOEXEC)) == -1 ||
	    (mp->ack = open(*ack, O_RDWR | O_CLOEXEC)) == -1)
		return error_errno(cause, "couldn't open the FIFOs in '%s'",
		    mp->dir);
	return 0;
}

/*
 * perf record's "ack" of a command within the time: it is then in its
 * main loop, its SIGINT handler set, so that a stop cannot kill it
 * before it writes its data (the start-up race perf-stat had).
 */
static int
monitor_perfprofile_wait_ack(struct monitor_perfprofile *mp, char **cause)
{
	struct pollfd	pfd = { mp->ack, POLLIN, 0 };
	char		buf[64];
	ssize_t		n;
	int		waited = 0;

	while (waited < PERFPROFILE_READY_WAIT) {
		if (poll(&pfd, 1, 100) == 1) {
			if ((n = read(mp->ack, buf, sizeof buf)) > 0 &&
			    memmem(buf, (size_t)n, "ack", 3) != NULL) {
				mp->acked = 1;
				return 0;
			}
		}
		if (waitpid(mp->tool.pid, NULL, WNOHANG) == mp->tool.pid) {
			mp->tool.pid = -1;
			strbuf_reset(&mp->out);
			monitor_perfprofile_slurp(mp->tool.fd, 8192, &mp->out,
			    NULL);
			strbuf_rtrim(&mp->out);
			return error_set(cause, "perf record exited at start: "
			    "%.300s", mp->out.buf);
		}
		waited += 100;
	}
	return error_set(cause, "perf record did not answer on its control "
	    "pipe within %ds", PERFPROFILE_READY_WAIT / 1000);
}

/* "enable" to perf record; with wait, its "ack" within the time. */
static int
monitor_perfprofile_enable(struct monitor_perfprofile *mp, int wait,
    char **cause)
{
	mp->enabled = 1;
	if (write(mp->ctl, "enable\n", 7) != 7)
		return error_errno(cause, "couldn't tell perf record to start");
	return wait ? monitor_perfprofile_wait_ack(mp, cause) : 0;
}

int
monitor_perfprofile_in_guest(void)
{
	const char	*v = getenv(MONITOR_PERFPROFILE_GUEST_ENV);

	return v != NULL && strcmp(v, "qemu") == 0;
}

/*
 * The build's System.map, for the kernel's symbols, when this is the
 * build's kernel (a qemu guest booted on it: the host checked its
 * release) and it has no /proc/kallsyms of its own (CONFIG_KALLSYMS).
 */
static char *
monitor_perfprofile_symbols(const struct monitor_run *run)
{
	char	*map;

	if (!monitor_perfprofile_in_guest() ||
	    access("/proc/kallsyms", R_OK) == 0)
		return NULL;
	map = path_join(run->workdir, PERFPROFILE_SYMBOLS);
	if (access(map, R_OK) != 0) {
		free(map);
		return NULL;
	}
	return map;
}

static int
monitor_perfprofile_start(void **state, const struct monitor_run *run,
    char **cause)
{
	struct monitor_perfprofile	*mp = xcalloc(1, sizeof *mp);
	unsigned long			 freq, delay;
	const char			*ev;
	char				 fbuf[32], *control = NULL;
	char				*vmlinux = NULL, *ctl = NULL, *ack = NULL;
	char				*msize = NULL;
	int				 r = -1;

	mp->tool.pid = -1;
	mp->tool.fd = -1;
	mp->ctl = mp->ack = -1;
	strbuf_init(&mp->out);
	if (run->root != NULL && strcmp(run->root, "/") != 0) {
		error_set(cause, "perf samples this machine's CPUs, not those "
		    "of '%s'", run->root);
		goto out;
	}
	if (monitor_perfprofile_settings(run->job, &freq, &delay, NULL,
	    cause) != 0)
		goto out;
	mp->event = ev = monitor_perfprofile_event();
	mp->max_size = monitor_perfprofile_in_guest() ?
	    PERFPROFILE_GUEST_DATA : PERFPROFILE_MAX_DATA;
	snprintf(fbuf, sizeof fbuf, "%lu", freq);
	mp->data = path_join(run->resultdir, PERFPROFILE_DATA);
	if (monitor_perfprofile_fifos(mp, &ctl, &ack, cause) != 0)
		goto out;
	control = xasprintf("--control=fifo:%s,%s", ctl, ack);
	msize = xasprintf("--max-size=%s", mp->max_size);
	{
		char *const	probe[] = { "perf", "record", "-a", "-g", "-e",
		    (char *)ev, "-F", fbuf, "-o", "/dev/null", "--", "true",
		    NULL };
		/*
		 * -N: no copy of every binary sampled into ~/.debug; -B: no
		 * pass over the whole data for build ids when perf stops,
		 * which on a loaded machine (or under TCG) outlasts the
		 * stop's grace and fails the run; perf report reads the
		 * same files right after, by path
		 */
		char *const	argv[] = { "perf", "record", "-a", "-g", "-N",
		    "-B", "-e", (char *)ev, "-F", fbuf, msize, "-D", "-1",
		    control, "-o", mp->data, NULL };

		/* perf refuses -a without the rights (perf_event_paranoid) */
		if (monitor_tool_probe(probe, &mp->out, cause) != 0 ||
		    monitor_tool_start(&mp->tool, argv, cause) != 0) {
			if (strstr(*cause, "not installed") != NULL) {
				free(*cause);
				*cause = xstrdup("'perf' is not installed "
				    "(Debian package linux-perf)");
			}
			goto out;
		}
	}
	/* the testcase starts once perf samples, or after the delay */
	mp->delay = delay;
	if (delay == 0) {
		if (monitor_perfprofile_enable(mp, 1, cause) != 0)
			goto out;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &mp->enable_at);
		mp->enable_at.tv_sec += (time_t)delay;
	}
	if (run->workdir != NULL) {
		vmlinux = path_join(run->workdir, "vmlinux");
		if (access(vmlinux, R_OK) == 0) {
			mp->vmlinux = vmlinux;
			vmlinux = NULL;
		}
		mp->kallsyms = monitor_perfprofile_symbols(run);
	}
	*state = mp;
	mp = NULL;
	r = 0;
out:
	free(vmlinux);
	free(msize);
	free(control);
	free(ctl);
	free(ack);
	monitor_perfprofile_free(mp);
	return r;
}

/* The sampler thread's tick: start sampling once the delay is over. */
static void
monitor_perfprofile_sample(void *state)
{
	struct monitor_perfprofile	*mp = state;
	struct timespec			 now;

	if (mp->enabled)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > mp->enable_at.tv_sec ||
	    (now.tv_sec == mp->enable_at.tv_sec &&
	    now.tv_nsec >= mp->enable_at.tv_nsec))
		monitor_perfprofile_enable(mp, 0, NULL);
}

/* A temporary file, unlinked at once; -1 with *cause. */
static int
monitor_perfprofile_tmp(char **cause)
{
	const char	*tmp = getenv("TMPDIR");
	char		*path;
	int		 fd;

	path = xasprintf("%s/bisect-agent-perf.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		error_errno(cause, "couldn't create '%s'", path);
	else
		unlink(path);
	free(path);
	return fd;
}

static int
monitor_perfprofile_slurp(int fd, size_t max, struct strbuf *sb,
    char **cause)
{
	char	buf[65536];
	ssize_t	n = 0;
	off_t	off = 0;

	strbuf_reset(sb);
	while (sb->len < max && (n = pread(fd, buf, sizeof buf, off)) > 0) {
		strbuf_add(sb, buf, (size_t)n);
		off += n;
	}
	if (n == -1)
		return error_errno(cause, "couldn't read perf report's output");
	return 0;
}

/* perf report's folded chains into sb; its messages quoted on failure. */
static int
monitor_perfprofile_report(struct monitor_perfprofile *mp, struct strbuf *sb,
    char **cause)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	struct strbuf	 err = STRBUF_INIT;
	char		*perf = NULL, *karg = NULL;
	pid_t		 pid = -1, w;
	long		 waited;
	int		 outfd = -1, errfd = -1, status = 0, r = -1;

	if ((perf = testcase_which("perf")) == NULL) {
		error_set(cause, "'perf' is not installed");
		goto out;
	}
	if (mp->vmlinux != NULL)
		karg = xasprintf("--vmlinux=%s", mp->vmlinux);
	{
		char *const	argv[] = { perf, "report", "-i", mp->data,
		    "--stdio", "--no-children", "--sort", "symbol", "-g",
		    "folded,0,caller,count", karg, NULL };

		if ((outfd = monitor_perfprofile_tmp(cause)) == -1 ||
		    (errfd = monitor_perfprofile_tmp(cause)) == -1 ||
		    child_spawn(argv, outfd, errfd, SIGKILL, &pid,
		    cause) != 0) {
			pid = -1;
			goto out;
		}
	}
	for (waited = 0; waited < PERFPROFILE_REPORT_WAIT * 50L; waited++) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w == -1 && errno != EINTR))
			break;
		nanosleep(&ts, NULL);
	}
	if (waited >= PERFPROFILE_REPORT_WAIT * 50L) {
		error_set(cause, "perf report did not end within %ds",
		    PERFPROFILE_REPORT_WAIT);
		goto out;
	}
	pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		monitor_perfprofile_slurp(errfd, 8192, &err, NULL);
		strbuf_rtrim(&err);
		error_set(cause, "perf report failed: %.300s", err.buf);
		goto out;
	}
	if (monitor_perfprofile_slurp(outfd, PERFPROFILE_REPORT_MAX, sb,
	    cause) != 0)
		goto out;
	r = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
			;
	}
	if (outfd != -1)
		close(outfd);
	if (errfd != -1)
		close(errfd);
	strbuf_release(&err);
	free(perf);
	free(karg);
	return r;
}

/*
 * perf names no kernel frame when the kernel has no /proc/kallsyms (and
 * ignores --kallsyms then: the recording has no kernel map): the build's
 * System.map names them.
 */
static int
monitor_perfprofile_kernel_names(struct monitor_perfprofile *mp,
    struct strbuf *folded, struct result *r, char **cause)
{
	struct strbuf	 named = STRBUF_INIT;
	char		*map = NULL, *n = NULL;
	size_t		 len, count;
	int		 ret = -1;

	if (file_read(mp->kallsyms, &map, &len, cause) != 0)
		goto out;
	if (perf_profile_symbolize(map, len, folded->buf != NULL ?
	    folded->buf : "", folded->len, &named, &count, cause) != 0) {
		error_prefix(cause, "'%s'", mp->kallsyms);
		goto out;
	}
	strbuf_reset(folded);
	strbuf_add(folded, named.buf != NULL ? named.buf : "", named.len);
	n = xasprintf("%zu", count);
	result_env_set(r, "perf_profile_kernel_frames", n);
	ret = 0;
out:
	strbuf_release(&named);
	free(map);
	free(n);
	return ret;
}

static int
monitor_perfprofile_stop(void *state, const struct monitor_exit *e,
    struct result *r, char **cause)
{
	struct monitor_perfprofile	*mp = state;
	struct strbuf			 folded = STRBUF_INIT;
	double				 seconds;
	char				 why[96];
	int				 ret = -1;

	(void)e;
	/*
	 * After a delay perf was told to sample without waiting; before
	 * the delay it was told nothing, and its start-up may still be
	 * under way on a loaded machine: either way its answer first.
	 */
	if (!mp->enabled && write(mp->ctl, "disable\n", 8) != 8) {
		error_errno(cause, "couldn't write to perf record's control "
		    "pipe");
		goto out;
	}
	if (!mp->acked && monitor_perfprofile_wait_ack(mp, cause) != 0)
		goto out;
	if (!mp->enabled) {
		/* as monitor_delay's monitors_not_started: no profile */
		if (monitor_tool_stop(&mp->tool, &mp->out, &seconds,
		    cause) != 0)
			goto out;
		snprintf(why, sizeof why, "the testcase ended before its "
		    "delay (%lus)", mp->delay);
		result_env_set(r, "perf_profile_not_started", why);
		ret = 0;
		goto out;
	}
	if (monitor_tool_stop(&mp->tool, &mp->out, &seconds, cause) != 0) {
		/* --max-size ends perf record early: the profile is kept */
		if (strstr(mp->out.buf, "size limit reached") == NULL)
			goto out;
		free(*cause);
		*cause = NULL;
		result_env_set(r, "perf_profile_capped", mp->max_size);
	}
	if (monitor_perfprofile_report(mp, &folded, cause) != 0)
		goto out;
	if (mp->kallsyms != NULL &&
	    monitor_perfprofile_kernel_names(mp, &folded, r, cause) != 0)
		goto out;
	if (perf_profile_parse(r, folded.buf, folded.len, cause) < 0)
		goto out;
	result_env_set(r, "perf_profile_event", mp->event);
	if (mp->vmlinux != NULL)
		result_env_set(r, "perf_profile_symbols", "vmlinux");
	else if (mp->kallsyms != NULL)
		result_env_set(r, "perf_profile_symbols", PERFPROFILE_SYMBOLS);
	if (monitor_perfprofile_in_guest())
		result_env_set(r, "perf_profile_where", "qemu guest");
	ret = 0;
out:
	strbuf_release(&folded);
	return ret;
}

int
monitor_perfprofile_wanted(const struct job *job)
{
	size_t	i;

	for (i = 0; i < job->nr_monitors; i++) {
		if (strcmp(job->monitors[i], "perf-profile") == 0)
			return 1;
	}
	for (i = 0; i < job->nr_programs; i++) {
		if (strcmp(job->programs[i], "perf-profile") == 0)
			return 1;
	}
	return 0;
}

int
monitor_perfprofile_guest_check(const char *workdir, char **why)
{
	static const char *const	 need[] = { "CONFIG_PERF_EVENTS",
	    "CONFIG_EVENTFD", NULL };
	const char *const		*s;
	char				*v = NULL;
	int				 r = 0, known;

	for (s = need; *s != NULL && r == 0; s++) {
		if ((known = boot_kconfig(workdir, *s, &v)) < 0)
			break;		/* no .config: the guest will tell */
		if (v == NULL || strcmp(v, "y") != 0)
			r = error_set(why, "monitor 'perf-profile' records in "
			    "the qemu guest, and its kernel was built without "
			    "%s (%s=%s in the build's .config; perf needs "
			    "CONFIG_PERF_EVENTS=y and CONFIG_EVENTFD=y)", *s,
			    *s, v != NULL ? v : "n");
		free(v);
		v = NULL;
	}
	return r;
}

int
monitor_perfprofile_guest_add(struct initramfs *ir, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*perf = NULL, *real = NULL;
	int		 r = -1;

	if ((perf = testcase_which("perf")) == NULL) {
		r = 0;
		goto out;
	}
	if ((real = realpath(perf, NULL)) == NULL) {
		error_errno(cause, "couldn't resolve '%s'", perf);
		goto out;
	}
	{
		char *const	argv[] = { "ldd", real, NULL };

		/* a static perf: ldd says so and fails; it needs nothing */
		if (monitor_tool_probe(argv, &sb, cause) != 0) {
			if (strstr(sb.buf != NULL ? sb.buf : "",
			    "not a dynamic executable") == NULL) {
				error_prefix(cause, "the libraries of '%s'",
				    real);
				goto out;
			}
			free(*cause);
			*cause = NULL;
			strbuf_reset(&sb);
		}
	}
	if (initramfs_host_program(ir, real, sb.buf != NULL ? sb.buf : "",
	    cause) != 0)
		goto out;
	/* under the name PATH finds it by, when that is a link */
	if (*perf == '/' && strcmp(real, perf) != 0 &&
	    initramfs_symlink(ir, perf + 1, real, cause) != 0)
		goto out;
	r = 0;
out:
	strbuf_release(&sb);
	free(perf);
	free(real);
	return r;
}

const struct monitor_ops monitor_perfprofile_ops = {
	.name = "perf-profile",
	.start_run = monitor_perfprofile_start,
	.sample = monitor_perfprofile_sample,
	.options = monitor_perfprofile_options,
	.check = monitor_perfprofile_check,
	.stop = monitor_perfprofile_stop,
	.free = monitor_perfprofile_free,
};
