/*
 * Starting a program as a child of the agent or the transport: stdin from
 * /dev/null, stdout and stderr to the descriptors given, every signal at
 * its default and none blocked, and a signal of its own when its parent
 * dies, so that no child outlives the process that waits for it.
 */
#ifndef AGENTS_CHILD_H
#define AGENTS_CHILD_H

#include <sys/types.h>

int	child_spawn(char *const argv[], int outfd, int errfd, int deathsig,
	    pid_t *pid, char **cause);

#endif
