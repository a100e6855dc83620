/*
 * A build's command, run in its own process group and waited for, and
 * the tail of its log (bisectd/build-command.c).
 */
#ifndef BISECTD_BUILD_COMMAND_H
#define BISECTD_BUILD_COMMAND_H

/*
 * Run cmd under /bin/sh in srcdir, in its own process group, output to
 * logfd, and wait for it (*status); what it leaves running in its group is
 * killed, since it would write into BUILD_DIR under the next build. The
 * lock descriptors (-1: none) go with the command.
 */
int	 build_command_run(const char *cmd, const char *srcdir,
	    const char *builddir, const int lockfd[2], char *const *extra,
	    int logfd, int *status, char **cause);
/* The last lines of the log at path, for the record ("" when none). */
char	*build_command_log_tail(const char *path);

#endif
