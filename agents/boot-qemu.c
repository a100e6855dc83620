/*
 * The qemu boot method: an initramfs with busybox, the agent, the job and
 * the artifacts, booted under qemu's TCG; the guest runs the same
 * bisect-agent and sends its result back over a serial port
 * (docs/design.md, "File notes", has the command line and protocol).
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/boot.h"
#include "agents/child.h"
#include "agents/monitor-perfprofile.h"
#include "agents/transport.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define QEMU_MEMORY		"512"
#define QEMU_CMDLINE		"console=ttyS0 panic=-1 quiet"
#define QEMU_RUN_MARGIN		60	/* seconds after the testcase's */
#define QEMU_EXIT_GRACE		30	/* for the guest to reboot */
#define QEMU_MAX_STREAM		(160u << 20)
#define QEMU_CONSOLE_TAIL	12	/* lines of console in an error */
#define QEMU_FILES		4

struct boot_qemu_file {
	const char	*name;
	struct strbuf	 data;		/* decoded */
	int		 seen;
};

/* What came over the guest's serial port. */
struct boot_qemu_stream {
	struct strbuf		 line;
	size_t			 total;
	int			 up;
	double			 up_at;		/* monotonic */
	double			 up_wall;
	double			 done_at;	/* monotonic, and wall clock */
	double			 done_wall;
	char			*release;
	char			*version;
	int			 done;
	int			 status;
	struct boot_qemu_file	 files[QEMU_FILES];	/* result, output.log,
						   agent.log, perf-profile.data */
	struct boot_qemu_file	*in;		/* inside file ... end */
	struct strbuf		 b64;
	int			 bad;		/* base64 did not decode */
};

static double
boot_qemu_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
boot_qemu_wall(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
boot_qemu_b64(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decode base64 text (line breaks ignored); -1 on anything else. */
static int
boot_qemu_decode(const char *s, size_t len, struct strbuf *out)
{
	unsigned	acc = 0;
	size_t		i;
	int		bits = 0, v, pad = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '\n' || s[i] == '\r')
			continue;
		if (s[i] == '=') {
			pad++;
			continue;
		}
		if (pad > 0 || (v = boot_qemu_b64((unsigned char)s[i])) < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (int)((acc >> bits) & 0xff));
		}
	}
	return pad > 2 ? -1 : 0;
}

static void
boot_qemu_stream_init(struct boot_qemu_stream *st)
{
	size_t	i;

	memset(st, 0, sizeof *st);
	strbuf_init(&st->line);
	strbuf_init(&st->b64);
	st->files[0].name = "result";
	st->files[1].name = "output.log";
	st->files[2].name = "agent.log";
	st->files[3].name = "perf-profile.data";
	for (i = 0; i < QEMU_FILES; i++)
		strbuf_init(&st->files[i].data);
	st->status = -1;
}

static void
boot_qemu_stream_release(struct boot_qemu_stream *st)
{
	size_t	i;

	strbuf_release(&st->line);
	strbuf_release(&st->b64);
	for (i = 0; i < QEMU_FILES; i++)
		strbuf_release(&st->files[i].data);
	free(st->release);
	free(st->version);
}

static void
boot_qemu_stream_line(struct boot_qemu_stream *st, char *line)
{
	size_t	 n = strlen(BOOT_MARKER), i;
	char	*word, *rest;

	if (strncmp(line, BOOT_MARKER " ", n + 1) != 0) {
		if (st->in != NULL)
			strbuf_addstr(&st->b64, line);
		return;
	}
	word = line + n + 1;
	rest = word + strcspn(word, " ");
	if (*rest == ' ')
		*rest++ = '\0';
	if (st->in != NULL) {
		if (strcmp(word, "end") == 0 &&
		    strcmp(rest, st->in->name) == 0) {
			strbuf_reset(&st->in->data);
			if (boot_qemu_decode(st->b64.buf != NULL ?
			    st->b64.buf : "", st->b64.len, &st->in->data) != 0)
				st->bad = 1;
			else
				st->in->seen = 1;
			st->in = NULL;
			strbuf_reset(&st->b64);
		}
		return;
	}
	if (strcmp(word, "up") == 0 && !st->up) {
		st->up = 1;
		st->up_at = boot_qemu_now();
		st->up_wall = boot_qemu_wall();
		st->release = xstrdup(rest);
	} else if (strcmp(word, "uname-v") == 0 && st->version == NULL)
		st->version = xstrdup(rest);
	else if (strcmp(word, "file") == 0) {
		for (i = 0; i < QEMU_FILES; i++) {
			if (strcmp(rest, st->files[i].name) == 0)
				st->in = &st->files[i];
		}
		strbuf_reset(&st->b64);
	} else if (strcmp(word, "done") == 0) {
		st->done = 1;
		st->done_at = boot_qemu_now();
		st->done_wall = boot_qemu_wall();
		st->status = atoi(rest);
	}
}

/* Feed bytes; complete lines are handled, '\r' dropped. */
static void
boot_qemu_stream_feed(struct boot_qemu_stream *st, const char *buf,
    size_t len)
{
	size_t	i;

	st->total += len;
	for (i = 0; i < len; i++) {
		if (buf[i] == '\r')
			continue;
		if (buf[i] != '\n') {
			if (st->line.len < 65536)
				strbuf_addch(&st->line, buf[i]);
			continue;
		}
		boot_qemu_stream_line(st, st->line.buf != NULL ?
		    st->line.buf : (char *)"");
		strbuf_reset(&st->line);
	}
}

/*
 * Read the guest's port until it is done, qemu exits or the deadline
 * passes (the boot's until the guest is up, then the run's). *timed_out
 * is set at a deadline; qemu is then still running.
 */
static void
boot_qemu_read(int fd, struct boot_qemu_stream *st, double boot_deadline,
    unsigned run_timeout, int *timed_out)
{
	struct pollfd	pfd;
	char		buf[65536];
	double		deadline, left;
	ssize_t		n;

	*timed_out = 0;
	while (!st->done) {
		deadline = st->up ? st->up_at + run_timeout : boot_deadline;
		if ((left = deadline - boot_qemu_now()) <= 0) {
			*timed_out = 1;
			return;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) == -1) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pfd.revents == 0)
			continue;
		if ((n = fd_read(fd, buf, sizeof buf)) <= 0)
			return;
		boot_qemu_stream_feed(st, buf, (size_t)n);
		if (st->total > QEMU_MAX_STREAM)
			return;
	}
}

/* Wait for qemu until the deadline, then kill it; its wait status. */
static int
boot_qemu_reap(pid_t pid, double deadline, int *killed)
{
	int	status = 0, sent = 0;
	pid_t	w;

	*killed = 0;
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w == -1 && errno != EINTR))
			return status;
		if (boot_qemu_now() >= deadline && !sent) {
			kill(pid, SIGKILL);
			*killed = sent = 1;
		}
		poll(NULL, 0, 20);
	}
}

/* The console's last lines, for an error; "" when it is empty. */
static char *
boot_qemu_console_tail(const char *path)
{
	char	*buf = NULL, *p, *s;
	size_t	 len, i;
	int	 lines = 0;

	if (file_read(path, &buf, &len, NULL) != 0 || len == 0) {
		free(buf);
		return xstrdup("");
	}
	for (i = 0; i < len; i++) {
		if (buf[i] == '\r' || buf[i] == '\0' ||
		    ((unsigned char)buf[i] < ' ' && buf[i] != '\n'))
			buf[i] = ' ';
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	for (p = buf + len; p > buf; p--) {
		if (p[-1] == '\n' && ++lines == QEMU_CONSOLE_TAIL)
			break;
	}
	s = xasprintf("; console: %s", p);
	free(buf);
	return s;
}

static int
boot_qemu_save(const char *resultdir, const char *name,
    const struct strbuf *data, char **cause)
{
	char	*path = path_join(resultdir, name);
	int	 r;

	r = file_write_atomic(path, data->buf != NULL ? data->buf : "",
	    data->len, cause);
	free(path);
	return r;
}

/* The guest agent's result, copied into r. */
static void
boot_qemu_take(struct result *r, const struct result *g)
{
	struct result_metric	*m;
	size_t			 i, j;

	r->exit_status = g->exit_status;
	if (g->boot_id != NULL) {
		free(r->boot_id);
		r->boot_id = xstrdup(g->boot_id);
	}
	if (g->error != NULL)
		result_set_error(r, "%s", g->error);
	if (g->untestable != NULL)
		result_set_untestable(r, "%s", g->untestable);
	for (i = 0; i < g->nr_env; i++)
		result_env_set(r, g->env[i].key, g->env[i].value);
	for (i = 0; i < g->nr_metrics; i++) {
		m = result_metric(r, g->metrics[i].name);
		m->value = g->metrics[i].value;
		for (j = 0; j < g->metrics[i].nr_instances; j++)
			result_metric_add_instance(m,
			    g->metrics[i].instances[j]);
	}
}

static char *
boot_qemu_tail(const struct strbuf *sb)
{
	size_t	len = sb->len, start;

	while (len > 0 && (sb->buf[len - 1] == '\n' ||
	    sb->buf[len - 1] == ' '))
		len--;
	start = len > 400 ? len - 400 : 0;
	return xstrndup(sb->buf != NULL ? sb->buf + start : "", len - start);
}

/* The run's times by the host's clocks: from the guest up to done. */
static void
boot_qemu_times(const struct boot_qemu_stream *st, struct result *r)
{
	r->has_times = 1;
	r->start_wall = st->up_wall;
	r->start_mono = st->up_at;
	r->end_wall = st->done_wall;
	r->end_mono = st->done_at;
}

/*
 * A boot id for a guest that has none of its own (no CONFIG_PROC_SYSCTL):
 * each qemu run is a boot of its own, and the host's kernel hands out a
 * new random UUID at every read of this file.
 */
static char *
boot_qemu_boot_id(void)
{
	char	*buf = NULL;
	size_t	 len;

	if (file_read("/proc/sys/kernel/random/uuid", &buf, &len,
	    NULL) != 0) {
		free(buf);
		return NULL;
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (*buf == '\0' || !result_name_valid(buf)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Turn what came back into the run's result. */
static int
boot_qemu_outcome(const struct boot_qemu_stream *st, int timed_out,
    int status, const char *console, const char *workdir,
    const char *resultdir, unsigned boot_limit, double started,
    struct result *r, char **cause)
{
	struct result	*g = NULL;
	char		*tail = boot_qemu_console_tail(console);
	char		*expected = NULL, *s = NULL, *gcause = NULL;
	int		 rv = -1;

	if (!st->up) {
		r->exit_status = -1;
		if (timed_out)
			result_set_untestable(r, "the kernel did not boot: no "
			    "word from the guest in %us%s", boot_limit, tail);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			result_set_untestable(r, "the kernel did not boot: it "
			    "stopped before the guest's runner started%s",
			    tail);
		else {
			s = path_join(resultdir, "qemu.log");
			free(tail);
			tail = NULL;
			if (file_read(s, &tail, NULL, NULL) != 0)
				tail = xstrdup("");
			tail[strcspn(tail, "\n")] = '\0';
			result_set_error(r, "qemu failed (%s %d): %s",
			    WIFEXITED(status) ? "exit status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) :
			    WTERMSIG(status), tail);
		}
		rv = 0;
		goto out;
	}
	boot_qemu_times(st, r);
	result_env_set(r, "boot", "qemu");
	s = xasprintf("%.2f", st->up_at - started);
	result_env_set(r, "boot_seconds", s);
	free(s);
	s = NULL;
	if (!st->done) {
		r->exit_status = -1;
		result_set_error(r, "the guest stopped answering after it "
		    "booted (%s)%s", timed_out ? "timed out" : "qemu exited",
		    tail);
		rv = 0;
		goto out;
	}
	if (st->files[1].seen &&
	    boot_qemu_save(resultdir, "output.log", &st->files[1].data,
	    cause) != 0)
		goto out;
	if (st->files[2].seen &&
	    boot_qemu_save(resultdir, "guest-agent.log", &st->files[2].data,
	    cause) != 0)
		goto out;
	if (st->files[3].seen &&
	    boot_qemu_save(resultdir, "perf-profile.data", &st->files[3].data,
	    cause) != 0)
		goto out;
	if (!st->files[0].seen || result_parse("guest result",
	    st->files[0].data.buf != NULL ? st->files[0].data.buf : "",
	    st->files[0].data.len, &g, &gcause) != 0) {
		free(s);
		s = boot_qemu_tail(&st->files[2].data);
		r->exit_status = -1;
		result_set_error(r, "the agent in the guest gave no usable "
		    "result (exit status %d%s%s)%s%s", st->status,
		    gcause != NULL ? ", " : "", gcause != NULL ? gcause : "",
		    *s != '\0' ? ": " : "", s);
		rv = 0;
		goto out;
	}
	boot_qemu_take(r, g);
	result_env_set(r, "boot", "qemu");
	if (st->version != NULL)
		result_env_set(r, "kernel_version", st->version);
	expected = boot_expected_release(workdir);
	if (expected != NULL && strcmp(expected, st->release) != 0)
		result_set_error(r, "the guest ran kernel '%s', the build "
		    "made '%s'", st->release, expected);
	rv = 0;
out:
	result_free(g);
	free(tail);
	free(expected);
	free(s);
	free(gcause);
	return rv;
}

/*
 * qemu run to its end: its output read (*st) until the guest is done or
 * its time is up (*timed_out: the boot's limit, then run_timeout once the
 * guest is up), then reaped; its stderr in RESULTDIR/qemu.log. *started is
 * when it was started, *status its wait status.
 */
static int
boot_qemu_boot(char **argv, const char *resultdir, struct boot_qemu_stream *st,
    unsigned limit, unsigned run_timeout, double *started, int *timed_out,
    int *status, char **cause)
{
	char	*qlog = path_join(resultdir, "qemu.log");
	pid_t	 pid = -1;
	int	 pipefd[2] = { -1, -1 }, logfd, killed, r = -1;

	logfd = open(qlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd == -1) {
		error_errno(cause, "couldn't create '%s'", qlog);
		goto out;
	}
	if (pipe2(pipefd, O_CLOEXEC) == -1) {
		error_errno(cause, "couldn't make a pipe");
		goto out;
	}
	*started = boot_qemu_now();
	if (child_spawn(argv, pipefd[1], logfd, SIGKILL, &pid, cause) != 0)
		goto out;
	close(pipefd[1]);
	pipefd[1] = -1;
	boot_qemu_read(pipefd[0], st, *started + limit, run_timeout,
	    timed_out);
	close(pipefd[0]);
	pipefd[0] = -1;
	if (!st->done) {
		st->done_at = boot_qemu_now();
		st->done_wall = boot_qemu_wall();
	}
	*status = boot_qemu_reap(pid, *timed_out ? 0 : boot_qemu_now() +
	    QEMU_EXIT_GRACE, &killed);
	pid = -1;
	r = 0;
out:
	if (pid != -1) {
		kill(pid, SIGKILL);
		while (waitpid(pid, status, 0) == -1 && errno == EINTR)
			;
	}
	if (pipefd[0] != -1)
		close(pipefd[0]);
	if (pipefd[1] != -1)
		close(pipefd[1]);
	if (logfd != -1)
		close(logfd);
	free(qlog);
	return r;
}

/* qemu's command line: one CPU, TCG, the guest's serial consoles. */
static void
boot_qemu_argv(char **argv, const char *qemu, char *kernel, char *cpio,
    char *cmdline, char *serial)
{
	int	n = 0;

	argv[n++] = (char *)qemu;
	argv[n++] = "-accel";
	argv[n++] = "tcg";
	argv[n++] = "-nographic";
	argv[n++] = "-nodefaults";
	argv[n++] = "-no-reboot";
	argv[n++] = "-m";
	argv[n++] = QEMU_MEMORY;
	argv[n++] = "-smp";
	argv[n++] = "1";
	argv[n++] = "-kernel";
	argv[n++] = kernel;
	argv[n++] = "-initrd";
	argv[n++] = cpio;
	argv[n++] = "-append";
	argv[n++] = cmdline;
	argv[n++] = "-serial";
	argv[n++] = serial;
	argv[n++] = "-serial";
	argv[n++] = "stdio";
	argv[n++] = "-monitor";
	argv[n++] = "none";
	argv[n] = NULL;
}

/* A directory of the run's own under $TMPDIR, or NULL with *cause. */
static char *
boot_qemu_tmpdir(char **cause)
{
	const char	*tmpdir = getenv("TMPDIR");
	char		*tmp;

	tmp = xasprintf("%s/bisect-agent-qemu.XXXXXX", tmpdir != NULL &&
	    *tmpdir != '\0' ? tmpdir : "/tmp");
	if (mkdtemp(tmp) == NULL) {
		error_errno(cause, "couldn't create a directory like '%s'",
		    tmp);
		free(tmp);
		return NULL;
	}
	return tmp;
}

int
boot_qemu_run(const struct job *job, const char *jobfile,
    const char *workdir, const char *resultdir, struct result *r,
    char **cause)
{
	struct boot_qemu_stream	 st;
	struct strbuf		 cmdline = STRBUF_INIT;
	const char		*qemu = getenv("BISECT_AGENT_QEMU");
	const char		*v;
	char			*image = NULL, *tmp = NULL, *cpio = NULL;
	char			*kernel = NULL, *console = NULL, *serial = NULL;
	char			*qlog = NULL, *hash = NULL, *argv[32];
	char			*why = NULL;
	int			 perf = monitor_perfprofile_wanted(job);
	unsigned		 limit = boot_timeout(job), run_timeout;
	double			 started;
	int			 timed_out = 0, status = 0;
	int			 rv = -1;

	boot_qemu_stream_init(&st);
	if (qemu == NULL)
		qemu = "qemu-system-x86_64";
	if ((image = boot_kernel_image(workdir, job)) == NULL) {
		result_set_error(r, "boot qemu: no kernel image among the "
		    "artifacts (arch/x86/boot/bzImage, bzImage, vmlinuz, or "
		    "the job's kernel:)");
		rv = 0;
		goto out;
	}
	if (perf && monitor_perfprofile_guest_check(workdir, &why) != 0) {
		result_set_error(r, "%s", why);
		rv = 0;
		goto out;
	}
	if ((tmp = boot_qemu_tmpdir(cause)) == NULL)
		goto out;
	cpio = path_join(tmp, "initramfs.cpio");
	if (boot_qemu_initramfs(cpio, workdir, image, jobfile, perf,
	    cause) != 0) {
		error_prefix(cause, "boot qemu: the initramfs");
		goto out;
	}
	kernel = path_join(workdir, image);
	console = path_join(tmp, "console.log");
	serial = xasprintf("file:%s", console);
	strbuf_addstr(&cmdline, QEMU_CMDLINE);
	if ((v = job_param(job, "kernel_cmdline")) != NULL)
		strbuf_addf(&cmdline, " %s", v);

	boot_qemu_argv(argv, qemu, kernel, cpio, cmdline.buf, serial);
	run_timeout = transport_timeout_testcase(job) + QEMU_RUN_MARGIN;
	if (boot_qemu_boot(argv, resultdir, &st, limit, run_timeout, &started,
	    &timed_out, &status, cause) != 0)
		goto out;
	if (st.bad)
		result_set_error(r, "the guest's results did not decode");
	if (boot_qemu_outcome(&st, timed_out, status, console, workdir,
	    resultdir, limit, started, r, cause) != 0)
		goto out;
	if ((hash = boot_image_hash(workdir)) != NULL)
		result_env_set(r, "kernel_sha256", hash);
	if (st.up && r->boot_id == NULL)
		r->boot_id = boot_qemu_boot_id();
	rv = 0;
out:
	if (console != NULL) {
		qlog = path_join(resultdir, "console.log");
		if (file_exists(console))
			file_copy(console, qlog, NULL);
	}
	if (tmp != NULL)
		dir_remove_tree(tmp, NULL);
	boot_qemu_stream_release(&st);
	strbuf_release(&cmdline);
	free(image);
	free(tmp);
	free(cpio);
	free(kernel);
	free(console);
	free(serial);
	free(qlog);
	free(hash);
	free(why);
	return rv;
}
