/*
 * Running one command on a test machine over a session, its output read
 * as it comes (agents/ssh-exec.c).
 */
#ifndef AGENTS_SSH_EXEC_H
#define AGENTS_SSH_EXEC_H

#include <stddef.h>

#include "agents/ssh-session.h"
#include "util/strbuf.h"

/* Where the output goes. */
struct ssh_exec_sink {
	int		 fd;		/* stdout to a file, or -1 */
	struct strbuf	*out;		/* else stdout here */
	struct strbuf	*err;		/* stderr (NULL: dropped) */
	size_t		 max;
	int		 crlf;		/* a pty's \r\n: write \n */
};

/* How the command ended. */
struct ssh_exec_exit {
	int	 status;		/* -1: killed by a signal */
	char	*signal;		/* its name, or NULL */
};

/*
 * Run cmd (under a pseudo-terminal if pty), its output into the sink, by
 * the deadline (0: none); cancel_fd, if not -1, is a socket whose end of
 * file abandons it. 0 with *ex filled (ex->signal allocated or NULL), or
 * -1 with *cause: "timed out", "cancelled: ...", or why the connection
 * failed.
 */
int	ssh_exec_run(struct ssh_session *, const char *cmd, int pty,
	    struct ssh_exec_sink *, double deadline, int cancel_fd,
	    struct ssh_exec_exit *ex, char **cause);

#endif
