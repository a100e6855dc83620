/*
 * Running a monitor's program (agents/monitor-tool.h): its stdout and
 * stderr go to a temporary file that is unlinked at once, so nothing is
 * left behind however the agent ends; the child dies with the agent.
 * Stopping waits for its exit, polling waitpid, at most a few seconds.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/child.h"
#include "agents/monitor-tool.h"
#include "agents/testcase.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MONITOR_TOOL_GRACE	5000	/* ms from SIGINT to SIGKILL */
#define MONITOR_TOOL_MAX	(64 << 20)

static double
monitor_tool_since(const struct timespec *t0)
{
	struct timespec	now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	    (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

int
monitor_tool_start(struct monitor_tool *mt, char *const argv[], char **cause)
{
	const char	*tmp = getenv("TMPDIR");
	char		*path = NULL, *full = NULL;
	char		**v = NULL;
	size_t		 n, i;
	int		 r = -1;

	mt->pid = -1;
	mt->fd = -1;
	if ((full = testcase_which(argv[0])) == NULL) {
		error_set(cause, "'%s' is not installed", argv[0]);
		goto out;
	}
	path = xasprintf("%s/bisect-agent-monitor.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if ((mt->fd = mkostemp(path, O_CLOEXEC)) == -1) {
		error_errno(cause, "couldn't create '%s'", path);
		goto out;
	}
	unlink(path);
	for (n = 0; argv[n] != NULL; n++)
		;
	v = xcalloc(n + 1, sizeof *v);
	v[0] = full;
	for (i = 1; i < n; i++)
		v[i] = argv[i];
	clock_gettime(CLOCK_MONOTONIC, &mt->start);
	if (child_spawn(v, mt->fd, mt->fd, SIGKILL, &mt->pid, cause) != 0) {
		mt->pid = -1;
		goto out;
	}
	r = 0;
out:
	if (r != 0 && mt->fd != -1) {
		close(mt->fd);
		mt->fd = -1;
	}
	free(v);
	free(full);
	free(path);
	return r;
}

static int
monitor_tool_reap(struct monitor_tool *mt, int *status)
{
	struct timespec	ts = { 0, 10 * 1000 * 1000 };
	pid_t		w;
	int		waited;

	for (waited = 0; waited < MONITOR_TOOL_GRACE; waited += 10) {
		w = waitpid(mt->pid, status, WNOHANG);
		if (w == mt->pid || (w == -1 && errno != EINTR))
			break;
		nanosleep(&ts, NULL);
	}
	if (waited >= MONITOR_TOOL_GRACE) {
		kill(mt->pid, SIGKILL);
		while (waitpid(mt->pid, status, 0) == -1 && errno == EINTR)
			;
		mt->pid = -1;
		return -1;
	}
	mt->pid = -1;
	return 0;
}

int
monitor_tool_stop(struct monitor_tool *mt, struct strbuf *sb,
    double *seconds, char **cause)
{
	char	buf[8192];
	ssize_t	n;
	off_t	off = 0;
	int	status = 0, early;

	strbuf_reset(sb);
	early = waitpid(mt->pid, &status, WNOHANG) == mt->pid;
	*seconds = monitor_tool_since(&mt->start);
	if (early)
		mt->pid = -1;
	else {
		kill(mt->pid, SIGINT);
		if (monitor_tool_reap(mt, &status) != 0)
			return error_set(cause, "it did not stop within %ds of "
			    "SIGINT", MONITOR_TOOL_GRACE / 1000);
	}
	while ((n = pread(mt->fd, buf, sizeof buf, off)) > 0 &&
	    sb->len < MONITOR_TOOL_MAX) {
		strbuf_add(sb, buf, (size_t)n);
		off += n;
	}
	if (n == -1)
		return error_errno(cause, "couldn't read its output");
	if (early) {
		while (sb->len > 0 && sb->buf[sb->len - 1] == '\n')
			sb->buf[--sb->len] = '\0';
		return error_set(cause, "it exited before the testcase ended "
		    "(%s %d): %.300s", WIFEXITED(status) ? "status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) :
		    WTERMSIG(status), sb->buf);
	}
	return 0;
}

int
monitor_tool_probe(char *const argv[], struct strbuf *sb, char **cause)
{
	struct monitor_tool	mt;
	char			buf[8192];
	ssize_t			n;
	off_t			off = 0;
	int			status = 0, r = -1;

	strbuf_reset(sb);
	if (monitor_tool_start(&mt, argv, cause) != 0)
		return -1;
	if (monitor_tool_reap(&mt, &status) != 0) {
		error_set(cause, "'%s' did not end within %ds", argv[0],
		    MONITOR_TOOL_GRACE / 1000);
		goto out;
	}
	while ((n = pread(mt.fd, buf, sizeof buf, off)) > 0 &&
	    sb->len < MONITOR_TOOL_MAX) {
		strbuf_add(sb, buf, (size_t)n);
		off += n;
	}
	strbuf_rtrim(sb);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error_set(cause, "'%s' failed here: %.300s", argv[0], sb->buf);
		goto out;
	}
	r = 0;
out:
	monitor_tool_release(&mt);
	return r;
}

void
monitor_tool_release(struct monitor_tool *mt)
{
	int	status;

	if (mt->pid > 0) {
		kill(mt->pid, SIGKILL);
		while (waitpid(mt->pid, &status, 0) == -1 && errno == EINTR)
			;
		mt->pid = -1;
	}
	if (mt->fd != -1) {
		close(mt->fd);
		mt->fd = -1;
	}
}
