/*
 * A build's command: run under /bin/sh in its own process group with the
 * build's environment (SRC_DIR, BUILD_DIR and the recipe's variables), a
 * guard that takes the group along if the worker dies, whatever it left
 * running killed when it ends, and the last lines of its log.
 */
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/build-command.h"
#include "bisectd/build-kernel.h"
#include "util/error.h"
#include "util/xalloc.h"

#define BUILD_TAIL_LINES	20
#define BUILD_TAIL_BYTES	16384

extern char	**environ;

/*
 * The entry of list ("K=V", "?K=V" or "-K") naming entry's variable, or
 * NULL.
 */
static const char *
build_command_env_find(char *const *list, const char *entry)
{
	size_t		 klen = strcspn(entry, "=");
	const char	*e;

	for (; list != NULL && *list != NULL; list++) {
		e = **list == '?' || **list == '-' ? *list + 1 : *list;
		if (strncmp(e, entry, klen) == 0 &&
		    (e[klen] == '=' || (**list == '-' && e[klen] == '\0')))
			return *list;
	}
	return NULL;
}

/*
 * The inherited environment with BUILD_DIR, SRC_DIR and NPROC set, and
 * extra's entries: "K=V" replaces an inherited K, "?K=V" only fills in,
 * "-K" removes it.
 */
static char **
build_command_env(const char *srcdir, const char *builddir, char *const *extra)
{
	char		**env;
	const char	 *x;
	size_t		  n = 0, i;
	long		  nproc = sysconf(_SC_NPROCESSORS_ONLN);

	while (environ[n] != NULL)
		n++;
	for (i = 0; extra != NULL && extra[i] != NULL; i++)
		n++;
	env = xcalloc(n + 4, sizeof *env);
	for (n = 0, i = 0; environ[i] != NULL; i++) {
		if (strncmp(environ[i], "BUILD_DIR=", 10) == 0 ||
		    strncmp(environ[i], "SRC_DIR=", 8) == 0 ||
		    strncmp(environ[i], "NPROC=", 6) == 0)
			continue;
		if ((x = build_command_env_find(extra, environ[i])) != NULL &&
		    *x != '?')
			continue;
		env[n++] = xstrdup(environ[i]);
	}
	for (i = 0; extra != NULL && extra[i] != NULL; i++) {
		if (extra[i][0] == '-' || (extra[i][0] == '?' &&
		    build_command_env_find(environ, extra[i] + 1) != NULL))
			continue;
		env[n++] = xstrdup(extra[i][0] == '?' ? extra[i] + 1 :
		    extra[i]);
	}
	env[n++] = xasprintf("BUILD_DIR=%s", builddir);
	env[n++] = xasprintf("SRC_DIR=%s", srcdir);
	env[n++] = xasprintf("NPROC=%ld", nproc > 0 ? nproc : 1);
	env[n] = NULL;
	return env;
}

static void
build_command_env_free(char **env)
{
	size_t	i;

	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/*
 * The guard of a build's process group: a child of this process that
 * dies with it (PR_SET_PDEATHSIG) and takes the group along, so that a
 * worker killed with its scheduler leaves no make behind writing into a
 * worktree the next build will use. Killed when the build ends.
 */
static pid_t
build_command_guard(pid_t group)
{
	pid_t		parent = getpid(), pid;
	sigset_t	set;
	int		sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	if ((pid = fork()) != 0)
		return pid;
	sigprocmask(SIG_BLOCK, &set, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == parent)
		sigwait(&set, &sig);
	kill(-group, SIGKILL);
	_exit(0);
}

int
build_command_run(const char *cmd, const char *srcdir, const char *builddir,
    const int lockfd[2], char *const *extra, int logfd, int *status,
    char **cause)
{
	char		**env = build_command_env(srcdir, builddir, extra);
	char		 *argv[] = { "sh", "-c", (char *)cmd, NULL };
	sigset_t	  none;
	siginfo_t	  info;
	pid_t		  pid, guard = -1;
	int		  sig, i, devnull, rv = -1;

	if ((pid = fork()) == -1) {
		error_errno(cause, "couldn't fork");
		goto out;
	}
	if (pid == 0) {
		setpgid(0, 0);
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/*
		 * The locks go with the command: should the worker be
		 * killed, what it started keeps the entry and the slot until
		 * it is done, so no retry builds in a tree still written to.
		 */
		for (i = 0; i < 2; i++) {
			if (lockfd[i] != -1)
				fcntl(lockfd[i], F_SETFD, 0);
		}
		if ((devnull = open("/dev/null", O_RDONLY)) != -1)
			dup2(devnull, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		if (chdir(srcdir) == -1) {
			dprintf(2, "bisectd: couldn't enter '%s'\n", srcdir);
			_exit(126);
		}
		execve("/bin/sh", argv, env);
		dprintf(2, "bisectd: couldn't run /bin/sh\n");
		_exit(127);
	}
	setpgid(pid, pid);
	guard = build_command_guard(pid);
	/*
	 * Wait without reaping: while the leader is a zombie its group id
	 * cannot be reused, so the kill reaches only what the build left.
	 */
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == -1) {
		if (errno != EINTR) {
			error_errno(cause, "couldn't wait for the build");
			goto out;
		}
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) == -1) {
		if (errno != EINTR) {
			error_errno(cause, "couldn't wait for the build");
			goto out;
		}
	}
	rv = 0;
out:
	if (guard > 0) {
		kill(guard, SIGKILL);
		while (waitpid(guard, NULL, 0) == -1 && errno == EINTR)
			;
	}
	build_command_env_free(env);
	return rv;
}

char *
build_command_log_tail(const char *path)
{
	char	 buf[BUILD_TAIL_BYTES + 1], *p;
	off_t	 size;
	ssize_t	 n;
	int	 fd, lines = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return xstrdup("");
	size = lseek(fd, 0, SEEK_END);
	if (size > BUILD_TAIL_BYTES)
		lseek(fd, size - BUILD_TAIL_BYTES, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, BUILD_TAIL_BYTES);
	close(fd);
	if (n <= 0)
		return xstrdup("");
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	for (p = buf + n; p > buf; p--) {
		if (p[-1] == '\n' && ++lines == BUILD_TAIL_LINES)
			break;
	}
	return xstrdup(p);
}
