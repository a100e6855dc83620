/*
 * Starting a program as a child of the agent or the transport: stdin from
 * /dev/null, stdout and stderr to the descriptors given, every signal at
 * its default and none blocked, and a signal of its own when its parent
 * dies, so that no child outlives the process that waits for it; with
 * options, in a process group of its own, a directory, an environment
 * and no descriptor but those three (the testcase's process). And whether
 * a bisect-agent of a pid still runs (what a killed one left is reaped).
 */
#ifndef AGENTS_CHILD_H
#define AGENTS_CHILD_H

#include <sys/types.h>

struct child_opts {
	int		 outfd, errfd;
	int		 deathsig;	/* sent when the parent dies */
	const char	*path;		/* the file run; NULL: argv[0] in PATH */
	char *const	*envp;		/* with path: its environment */
	const char	*dir;		/* where it runs; NULL: here */
	int		 pgroup;	/* a process group of its own */
	int		 close_fds;	/* descriptors from 3 closed */
	const char	*name;		/* "bisect-agent": its messages' prefix */
};

int	child_spawn(char *const argv[], int outfd, int errfd, int deathsig,
	    pid_t *pid, char **cause);
int	child_spawn_with(char *const argv[], const struct child_opts *,
	    pid_t *pid, char **cause);
int	child_agent_alive(long pid);

#endif
