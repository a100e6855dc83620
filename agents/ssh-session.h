/*
 * One SSH connection to an agent (libssh2): TCP connect, handshake, host
 * key verification against known_hosts, public key authentication, and an
 * SFTP channel, all bounded by the connect timeout. The session is
 * non-blocking and may be shared by several threads: every libssh2 call is
 * made under the session's lock, and a call that would block waits in
 * ssh_session_wait, where one thread polls the socket for all of them. A
 * connection that stays silent longer than the silence timeout is declared
 * lost and shut down, which fails every call still waiting on it.
 */
#ifndef AGENTS_SSH_SESSION_H
#define AGENTS_SSH_SESSION_H

#include <libssh2.h>
#include <libssh2_sftp.h>

struct ssh_session;

struct ssh_session_opts {
	const char	*name;			/* the agent's, for messages */
	const char	*host;
	int		 port;
	const char	*user;
	const char	*identity;		/* private key file */
	const char	*known_hosts;
	int		 tofu;			/* trust an unknown host key */
	unsigned	 connect_timeout;	/* seconds */
	unsigned	 keepalive;		/* seconds between pings */
	unsigned	 silence_timeout;	/* seconds */
};

/*
 * A permanent failure: the host key is unknown or changed, the key is
 * refused or unusable. Retrying cannot help until the configuration (or
 * the machine) changes. Same value as TRANSPORT_REFUSED.
 */
#define SSH_SESSION_REFUSED	(-2)

/* 0, -1 (try again later) or SSH_SESSION_REFUSED, with *cause. */
int	 ssh_session_open(const struct ssh_session_opts *,
	     struct ssh_session **out, char **cause);
void	 ssh_session_free(struct ssh_session *);
/* "ED25519 key SHA256:...", the host key the session verified. */
const char *ssh_session_host_key(const struct ssh_session *);
/* Why the session died, or NULL while it lives. Thread-safe. */
int	 ssh_session_dead(struct ssh_session *, char **why);
/* Declare the connection lost and shut its socket down. Thread-safe. */
void	 ssh_session_kill(struct ssh_session *, const char *why);
double	 ssh_session_now(void);

/*
 * The calling discipline. With the lock held, call libssh2; on
 * LIBSSH2_ERROR_EAGAIN call ssh_session_wait (which drops and retakes the
 * lock) and try again; after any other result call ssh_session_progress.
 * ssh_session_wait returns -1 with *cause when the deadline (absolute,
 * ssh_session_now() seconds; 0: none) passes or the session is dead.
 * SSH_CALL and SSH_CALL_PTR wrap this for one call.
 */
void	 ssh_session_lock(struct ssh_session *);
void	 ssh_session_unlock(struct ssh_session *);
int	 ssh_session_wait(struct ssh_session *, double deadline, char **cause);
void	 ssh_session_progress(struct ssh_session *);
/* With the lock held, after a call failed: the cause, "what: reason". */
int	 ssh_session_error(struct ssh_session *, int rc, char **cause,
	     const char *what);
LIBSSH2_SESSION	*ssh_session_handle(struct ssh_session *);
LIBSSH2_SFTP	*ssh_session_sftp(struct ssh_session *);
/* The SFTP channel's own lock: hold it across one whole SFTP operation. */
void	 ssh_session_sftp_lock(struct ssh_session *);
void	 ssh_session_sftp_unlock(struct ssh_session *);
/* Channels are opened one at a time (libssh2 keeps that state per session). */
void	 ssh_session_open_lock(struct ssh_session *);
void	 ssh_session_open_unlock(struct ssh_session *);

/* Seconds since the server last sent anything. */
double	 ssh_session_quiet(struct ssh_session *);
unsigned ssh_session_keepalive(const struct ssh_session *);
/* A round trip to the server (an SFTP stat), bounded by the silence. */
int	 ssh_session_ping(struct ssh_session *, char **cause);

/*
 * rc = expr, retried while it would block; on failure *cause is "WHAT:
 * libssh2's reason", and rc is SSH_WAIT_FAILED if the wait failed.
 */
#define SSH_WAIT_FAILED		(-1000)
#define SSH_CALL(s, deadline, cause, what, rc, expr) do {			\
	ssh_session_lock(s);						\
	for (;;) {							\
		(rc) = (expr);						\
		if ((rc) != LIBSSH2_ERROR_EAGAIN) {			\
			ssh_session_progress(s);			\
			break;						\
		}							\
		if (ssh_session_wait((s), (deadline), (cause)) != 0) {	\
			(rc) = SSH_WAIT_FAILED;				\
			break;						\
		}							\
	}								\
	if ((rc) < 0 && (rc) != SSH_WAIT_FAILED)			\
		ssh_session_error((s), (rc), (cause), (what));		\
	ssh_session_unlock(s);						\
} while (0)
/* p = expr for calls returning a pointer (NULL with EAGAIN to retry). */
#define SSH_CALL_PTR(s, deadline, cause, what, p, expr) do {			\
	int	ssh_call_rc_ = 0;					\
	ssh_session_lock(s);						\
	for (;;) {							\
		(p) = (expr);						\
		if ((p) != NULL || (ssh_call_rc_ =			\
		    libssh2_session_last_errno(				\
		    ssh_session_handle(s))) != LIBSSH2_ERROR_EAGAIN) {	\
			ssh_session_progress(s);			\
			break;						\
		}							\
		if (ssh_session_wait((s), (deadline), (cause)) != 0) {	\
			ssh_call_rc_ = SSH_WAIT_FAILED;			\
			break;						\
		}							\
	}								\
	if ((p) == NULL && ssh_call_rc_ != SSH_WAIT_FAILED)		\
		ssh_session_error((s), ssh_call_rc_, (cause), (what));	\
	ssh_session_unlock(s);						\
} while (0)

#endif
