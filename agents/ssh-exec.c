/*
 * Commands on a test machine over a session (see ssh-exec.h): a channel
 * opened (one at a time: libssh2 keeps that state per session), an
 * optional pseudo-terminal without output translation, the command, its
 * output read to its end into a sink -- a file, with the terminal's \r
 * dropped, or buffers -- then the exit status or signal. A run abandoned
 * (its deadline, its owner gone) has its channel closed, which hangs up
 * the command's terminal over there.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/ssh-exec.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/xalloc.h"

#define EXEC_CLOSE_GRACE	5.0	/* seconds to close a channel */

static int
ssh_exec_cancelled(int fd)
{
	char	c;

	if (fd == -1)
		return 0;
	return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}


static int
ssh_exec_sink_add(struct ssh_exec_sink *k, int stream, const char *p, size_t n,
    char **cause)
{
	struct strbuf	*sb = stream == 0 ? k->out : k->err;
	size_t		 i, start;

	if (stream == 0 && k->fd != -1) {
		for (start = i = 0; i <= n; i++) {
			if (i < n && !(k->crlf && p[i] == '\r'))
				continue;
			if (start < i && fd_write_all(k->fd, p + start,
			    i - start) != 0)
				return error_errno(cause, "couldn't write the "
				    "log");
			start = i + 1;
		}
		return 0;
	}
	if (sb != NULL && sb->len < k->max)
		strbuf_add(sb, p, n);
	return 0;
}

/* Read a channel's output to its end, by the deadline. */
static int
ssh_exec_drain(struct ssh_session *s, LIBSSH2_CHANNEL *ch,
    struct ssh_exec_sink *k, double deadline, int cancel_fd, char **cause)
{
	char	buf[16384];
	ssize_t	n;
	int	stream, got, r = -1;

	ssh_session_lock(s);
	for (;;) {
		got = 0;
		for (stream = 0; stream < 2; stream++) {
			n = libssh2_channel_read_ex(ch, stream, buf,
			    sizeof buf);
			if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
				continue;
			ssh_session_progress(s);
			if (n < 0) {
				ssh_session_error(s, (int)n, cause,
				    "reading the output");
				goto out;
			}
			got = 1;
			ssh_session_unlock(s);
			if (ssh_exec_sink_add(k, stream, buf, (size_t)n,
			    cause) != 0) {
				ssh_session_lock(s);
				goto out;
			}
			ssh_session_lock(s);
		}
		if (got)
			continue;
		if (libssh2_channel_eof(ch)) {
			ssh_session_progress(s);
			break;
		}
		if (ssh_exec_cancelled(cancel_fd)) {
			error_set(cause, "cancelled: the run's owner went away");
			goto out;
		}
		if (ssh_session_wait(s, deadline, cause) != 0)
			goto out;
	}
	r = 0;
out:
	ssh_session_unlock(s);
	return r;
}


static void
ssh_exec_channel_free(struct ssh_session *s, LIBSSH2_CHANNEL *ch, int close_it)
{
	double	 deadline = ssh_session_now() + EXEC_CLOSE_GRACE;
	char	*ignore = NULL;
	int	 rc;

	if (ch == NULL)
		return;
	if (!ssh_session_dead(s, NULL)) {
		if (close_it)
			SSH_CALL(s, deadline, &ignore, "close", rc,
			    libssh2_channel_close(ch));
		free(ignore);
		ignore = NULL;
		SSH_CALL(s, deadline, &ignore, "free", rc,
		    libssh2_channel_free(ch));
		free(ignore);
		return;
	}
	/* the session is gone: its own free releases the channel */
}

int
ssh_exec_run(struct ssh_session *s, const char *cmd, int pty,
    struct ssh_exec_sink *k, double deadline, int cancel_fd,
    struct ssh_exec_exit *ex, char **cause)
{
	static const char	 modes[] = { 72, 0, 0, 0, 0, 0 };	/* -onlcr */
	LIBSSH2_CHANNEL		*ch = NULL;
	char			*why = NULL, *sig = NULL;
	size_t			 siglen = 0;
	int			 rc, ret = -1, closed = 0;

	ex->status = -1;
	ex->signal = NULL;
	ssh_session_open_lock(s);
	SSH_CALL_PTR(s, deadline, &why, "opening a channel", ch,
	    libssh2_channel_open_session(ssh_session_handle(s)));
	ssh_session_open_unlock(s);
	if (ch == NULL)
		goto fail;
	if (pty) {
		SSH_CALL(s, deadline, &why, "requesting a terminal", rc,
		    libssh2_channel_request_pty_ex(ch, "dumb", 4, modes,
		    sizeof modes, 200, 50, 0, 0));
		if (rc != 0)
			goto fail;
	}
	SSH_CALL(s, deadline, &why, "starting the command", rc,
	    libssh2_channel_process_startup(ch, "exec", 4, cmd,
	    (unsigned)strlen(cmd)));
	if (rc != 0)
		goto fail;
	if (ssh_exec_drain(s, ch, k, deadline, cancel_fd, &why) != 0)
		goto fail;
	SSH_CALL(s, deadline, &why, "closing the channel", rc,
	    libssh2_channel_close(ch));
	if (rc != 0)
		goto fail;
	closed = 1;
	SSH_CALL(s, deadline, &why, "closing the channel", rc,
	    libssh2_channel_wait_closed(ch));
	if (rc != 0)
		goto fail;
	ssh_session_lock(s);
	ex->status = libssh2_channel_get_exit_status(ch);
	if (libssh2_channel_get_exit_signal(ch, &sig, &siglen, NULL, NULL,
	    NULL, NULL) == 0 && sig != NULL) {
		ex->signal = xstrndup(sig, siglen);
		ex->status = -1;
		libssh2_free(ssh_session_handle(s), sig);
	}
	ssh_session_unlock(s);
	ret = 0;
	goto out;
fail:
	error_set(cause, "%s", why != NULL ? why : "failed");
out:
	ssh_exec_channel_free(s, ch, !closed);
	free(why);
	return ret;
}
