/*
 * Starting a child program (agents/child.h): the one fork and exec of the
 * local transport's agent runs, of the qemu the agent boots and of the
 * testcase's process.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/child.h"
#include "util/error.h"
#include "util/file.h"

static void
child_close_from(int lowfd)
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

/* In the child: never returns. */
static void
child_exec(char *const argv[], const struct child_opts *o, int null,
    pid_t parent)
{
	const char	*sep = o->name != NULL ? ": " : "";
	const char	*name = o->name != NULL ? o->name : "";
	sigset_t	 none;
	int		 sig;

	if (o->pgroup)
		setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, o->deathsig) == -1 ||
	    getppid() != parent)
		_exit(127);
	for (sig = 1; sig < 32; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(null, 0) == -1 || dup2(o->outfd, 1) == -1 ||
	    dup2(o->errfd, 2) == -1)
		_exit(127);
	if (o->close_fds)
		child_close_from(3);
	if (o->dir != NULL && chdir(o->dir) == -1) {
		dprintf(2, "%s%scouldn't enter '%s': %s\n", name, sep, o->dir,
		    strerror(errno));
		_exit(127);
	}
	if (o->path != NULL && o->envp != NULL)
		execve(o->path, argv, o->envp);
	else if (o->path != NULL)
		execv(o->path, argv);
	else
		execvp(argv[0], argv);
	dprintf(2, "%s%scouldn't run '%s': %s\n", name, sep,
	    o->path != NULL ? o->path : argv[0], strerror(errno));
	_exit(127);
}

int
child_spawn_with(char *const argv[], const struct child_opts *o, pid_t *pid,
    char **cause)
{
	pid_t	parent = getpid(), p;
	int	null;

	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return error_errno(cause, "couldn't open '/dev/null'");
	if ((p = fork()) == -1) {
		close(null);
		return error_errno(cause, "couldn't fork");
	}
	if (p == 0)
		child_exec(argv, o, null, parent);
	/* both sides: the group is there before either goes on */
	if (o->pgroup)
		setpgid(p, p);
	close(null);
	*pid = p;
	return 0;
}

int
child_spawn(char *const argv[], int outfd, int errfd, int deathsig,
    pid_t *pid, char **cause)
{
	struct child_opts	o;

	memset(&o, 0, sizeof o);
	o.outfd = outfd;
	o.errfd = errfd;
	o.deathsig = deathsig;
	return child_spawn_with(argv, &o, pid, cause);
}

/* A bisect-agent of that id still runs (its comm says so). */
int
child_agent_alive(long pid)
{
	char	 path[64], *buf = NULL, *cause = NULL;
	size_t	 len;
	int	 alive;

	if (pid <= 0 || (kill((pid_t)pid, 0) == -1 && errno == ESRCH))
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/comm", pid);
	if (file_read(path, &buf, &len, &cause) != 0) {
		free(cause);
		return 0;
	}
	alive = strncmp(buf, "bisect-agent", 12) == 0;
	free(buf);
	return alive;
}
