/*
 * Starting a child program (agents/child.h): the one fork and exec of the
 * local transport's agent runs and of the qemu the agent boots.
 */
#include <sys/prctl.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agents/child.h"
#include "util/error.h"

int
child_spawn(char *const argv[], int outfd, int errfd, int deathsig,
    pid_t *pid, char **cause)
{
	sigset_t	none;
	pid_t		parent = getpid(), p;
	int		null, sig;

	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return error_errno(cause, "couldn't open '/dev/null'");
	if ((p = fork()) == -1) {
		close(null);
		return error_errno(cause, "couldn't fork");
	}
	if (p == 0) {
		if (prctl(PR_SET_PDEATHSIG, deathsig) == -1 ||
		    getppid() != parent)
			_exit(127);
		for (sig = 1; sig < 32; sig++) {
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(null, 0) == -1 || dup2(outfd, 1) == -1 ||
		    dup2(errfd, 2) == -1)
			_exit(127);
		execvp(argv[0], argv);
		dprintf(2, "couldn't run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(null);
	*pid = p;
	return 0;
}
