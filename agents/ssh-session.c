/*
 * One SSH connection (ssh-session.h): every libssh2 call under the
 * session's mutex, one poller thread in poll(2) while the others wait, and
 * a receive stamp that sends keepalives and declares a silent session lost
 * (docs/design.md, "File notes").
 */
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <linux/sockios.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/ssh-knownhosts.h"
#include "agents/ssh-session.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SESSION_POLL_CAP	1.0	/* seconds: re-check deadlines */

struct ssh_session {
	char			*name;
	char			*host;
	int			 port;
	char			*user;
	char			*identity;
	char			*known_hosts;
	int			 tofu;
	unsigned		 connect_timeout;
	unsigned		 keepalive;
	unsigned		 silence;

	int			 fd;
	int			 wakefd;
	LIBSSH2_SESSION		*ssh;
	LIBSSH2_SFTP		*sftp;
	char			*host_key;

	pthread_mutex_t		 mu;		/* libssh2 and what follows */
	pthread_cond_t		 cv;
	unsigned long		 gen;		/* bumped on any progress */
	int			 polling;	/* a thread is in poll() */
	int			 want_out;	/* waiters needing POLLOUT */
	double			 last_rx;
	double			 last_ping;
	int			 dead;
	char			*dead_why;
	int			 rx_eof;	/* the server closed */
	int			 rx_errno;	/* the last receive error */

	pthread_mutex_t		 sftp_mu;
	pthread_mutex_t		 open_mu;

	int			 hostkey_any;	/* only learn the host key */
	int			 kex_restricted; /* to known_hosts' types */
};

static pthread_once_t	session_once = PTHREAD_ONCE_INIT;
static int		session_init_rc;

static void
ssh_session_global_init(void)
{
	session_init_rc = libssh2_init(0);
}

double
ssh_session_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void	ssh_session_kick(struct ssh_session *);

/*
 * libssh2 reads through here, always under the session's lock. Every byte
 * heard is a sign of life; and what one thread's call reads may be another
 * thread's packet (libssh2 queues it on its channel), even when the call
 * itself returns EAGAIN: so whoever waits is woken to look again.
 */
static ssize_t
ssh_session_recv(libssh2_socket_t socket, void *buffer, size_t length,
    int flags, void **abstract)
{
	struct ssh_session	*s = *abstract;
	ssize_t			 n;

	n = recv(socket, buffer, length, flags);
	if (n > 0) {
		s->last_rx = ssh_session_now();
		s->gen++;
		pthread_cond_broadcast(&s->cv);
		if (s->polling)
			ssh_session_kick(s);
	} else if (n == 0)
		s->rx_eof = 1;
	else {
		if (errno != EAGAIN && errno != EINTR)
			s->rx_errno = errno;
		return -errno;
	}
	return n;
}

static void
ssh_session_kick(struct ssh_session *s)
{
	uint64_t	one = 1;

	if (write(s->wakefd, &one, sizeof one) < 0) {
		/* the counter is saturated: the poller wakes anyway */
	}
}

void
ssh_session_lock(struct ssh_session *s)
{
	pthread_mutex_lock(&s->mu);
}

void
ssh_session_unlock(struct ssh_session *s)
{
	pthread_mutex_unlock(&s->mu);
}

void
ssh_session_sftp_lock(struct ssh_session *s)
{
	pthread_mutex_lock(&s->sftp_mu);
}

void
ssh_session_sftp_unlock(struct ssh_session *s)
{
	pthread_mutex_unlock(&s->sftp_mu);
}

void
ssh_session_open_lock(struct ssh_session *s)
{
	pthread_mutex_lock(&s->open_mu);
}

void
ssh_session_open_unlock(struct ssh_session *s)
{
	pthread_mutex_unlock(&s->open_mu);
}

LIBSSH2_SESSION *
ssh_session_handle(struct ssh_session *s)
{
	return s->ssh;
}

LIBSSH2_SFTP *
ssh_session_sftp(struct ssh_session *s)
{
	return s->sftp;
}

const char *
ssh_session_host_key(const struct ssh_session *s)
{
	return s->host_key;
}

unsigned
ssh_session_keepalive(const struct ssh_session *s)
{
	return s->keepalive;
}

/* With the lock held. */
static void
ssh_session_kill_locked(struct ssh_session *s, const char *why)
{
	if (s->dead)
		return;
	s->dead = 1;
	s->dead_why = xstrdup(why);
	if (s->fd != -1)
		shutdown(s->fd, SHUT_RDWR);
	ssh_session_kick(s);
	pthread_cond_broadcast(&s->cv);
}

void
ssh_session_kill(struct ssh_session *s, const char *why)
{
	ssh_session_lock(s);
	ssh_session_kill_locked(s, why);
	ssh_session_unlock(s);
}

int
ssh_session_dead(struct ssh_session *s, char **why)
{
	int	dead;

	ssh_session_lock(s);
	dead = s->dead;
	if (dead && why != NULL)
		*why = xstrdup(s->dead_why);
	ssh_session_unlock(s);
	return dead;
}

double
ssh_session_quiet(struct ssh_session *s)
{
	double	q;

	ssh_session_lock(s);
	q = ssh_session_now() - s->last_rx;
	ssh_session_unlock(s);
	return q;
}

void
ssh_session_progress(struct ssh_session *s)
{
	s->gen++;
	pthread_cond_broadcast(&s->cv);
	if (s->polling)
		ssh_session_kick(s);
}

/*
 * A keepalive request, but only when the socket's send queue has room for
 * all of it: libssh2 keeps a partly sent packet pending, and a pending
 * keepalive (sent from a stack buffer) would block every other sender.
 */
static void
ssh_session_keepalive_locked(struct ssh_session *s, double now)
{
	socklen_t	len = sizeof(int);
	int		queued = 0, sndbuf = 0, seconds;

	if (s->keepalive == 0 || now - s->last_rx < s->keepalive ||
	    now - s->last_ping < s->keepalive)
		return;
	if (ioctl(s->fd, SIOCOUTQ, &queued) != 0 ||
	    getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) != 0 ||
	    queued > sndbuf / 2)
		return;
	s->last_ping = now;
	libssh2_keepalive_send(s->ssh, &seconds);
}

int
ssh_session_wait(struct ssh_session *s, double deadline, char **cause)
{
	struct pollfd	pfd[2];
	struct timespec	ts;
	unsigned long	gen;
	uint64_t	drain;
	double		now, limit;
	int		dirs, out, n, pending = 0;

	if (s->dead)
		return error_set(cause, "%s", s->dead_why);
	now = ssh_session_now();
	limit = now + SESSION_POLL_CAP;
	if (deadline > 0 && deadline < limit)
		limit = deadline;
	if (s->last_rx + s->silence < limit)
		limit = s->last_rx + s->silence;
	dirs = libssh2_session_block_directions(s->ssh);
	out = (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0;
	if (!s->polling) {
		ssh_session_keepalive_locked(s, now);
		s->polling = 1;
		pfd[0].fd = s->fd;
		pfd[0].events = POLLIN | (out || s->want_out ? POLLOUT : 0);
		pfd[1].fd = s->wakefd;
		pfd[1].events = POLLIN;
		ssh_session_unlock(s);
		n = poll(pfd, 2, limit > now ? (int)((limit - now) * 1000) + 1 :
		    0);
		ssh_session_lock(s);
		if (n > 0 && (pfd[1].revents & POLLIN) &&
		    read(s->wakefd, &drain, sizeof drain) < 0) {
			/* nothing to drain: another thread did */
		}
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			s->last_rx = ssh_session_now();
		s->polling = 0;
		s->gen++;
		pthread_cond_broadcast(&s->cv);
	} else {
		if (out) {
			s->want_out++;
			ssh_session_kick(s);
		}
		gen = s->gen;
		clock_gettime(CLOCK_REALTIME, &ts);
		limit -= now;
		ts.tv_sec += (time_t)limit;
		ts.tv_nsec += (long)((limit - (double)(time_t)limit) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (gen == s->gen && !s->dead && s->polling &&
		    pthread_cond_timedwait(&s->cv, &s->mu, &ts) == 0)
			;
		if (out)
			s->want_out--;
	}
	now = ssh_session_now();
	if (!s->dead && now - s->last_rx >= s->silence &&
	    ioctl(s->fd, FIONREAD, &pending) == 0 && pending > 0)
		s->last_rx = now;	/* we were slow, not the server */
	if (!s->dead && now - s->last_rx >= s->silence) {
		char	*why = xasprintf("connection to '%s' lost: no answer "
			    "for %us", s->host, s->silence);

		ssh_session_kill_locked(s, why);
		free(why);
	}
	if (s->dead)
		return error_set(cause, "%s", s->dead_why);
	if (deadline > 0 && now >= deadline)
		return error_set(cause, "timed out");
	return 0;
}

static const char *
ssh_session_sftp_status(unsigned long code)
{
	static const char	*names[] = {
		"ok", "end of file", "no such file", "permission denied",
		"failure", "bad message", "no connection", "connection lost",
		"operation unsupported", "invalid handle", "no such path",
		"file already exists", "write protected", "no media",
		"no space on file system", "quota exceeded", "unknown principal",
		"lock conflict", "directory not empty", "not a directory",
		"invalid file name", "link loop",
	};

	if (code < sizeof names / sizeof names[0])
		return names[code];
	return "unknown SFTP status";
}

int
ssh_session_error(struct ssh_session *s, int rc, char **cause,
    const char *what)
{
	char	*msg = NULL;
	int	 len = 0;

	if (s->dead)
		return error_set(cause, "%s", s->dead_why);
	if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL && s->sftp != NULL)
		return error_set(cause, "%s: %s", what,
		    ssh_session_sftp_status(libssh2_sftp_last_error(s->sftp)));
	libssh2_session_last_error(s->ssh, &msg, &len, 0);
	if (rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV ||
	    rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_NONE) {
		char	*why;

		if (s->rx_eof)
			why = xasprintf("connection to '%s' lost: closed by "
			    "the other end", s->host);
		else if (s->rx_errno != 0)
			why = xasprintf("connection to '%s' lost: %s",
			    s->host, strerror(s->rx_errno));
		else
			why = xasprintf("connection to '%s' lost: %s",
			    s->host, msg != NULL && *msg ? msg :
			    "socket error");
		ssh_session_kill_locked(s, why);
		free(why);
		return error_set(cause, "%s", s->dead_why);
	}
	return error_set(cause, "%s: %s", what, msg != NULL && *msg ? msg :
	    "unknown libssh2 error");
}

/* OpenSSH's rule: a private key others can read is not used. */
static int
ssh_session_check_identity(const char *name, const char *path, char **cause)
{
	struct stat	st;

	if (stat(path, &st) != 0) {
		error_errno(cause, "agent '%s': private key '%s'", name, path);
		return SSH_SESSION_REFUSED;
	}
	if (!S_ISREG(st.st_mode)) {
		error_set(cause, "agent '%s': private key '%s' is not a regular "
		    "file", name, path);
		return SSH_SESSION_REFUSED;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		error_set(cause, "agent '%s': private key '%s' belongs to uid "
		    "%u, not to us", name, path, (unsigned)st.st_uid);
		return SSH_SESSION_REFUSED;
	}
	if ((st.st_mode & 077) != 0) {
		error_set(cause, "agent '%s': private key '%s' is accessible "
		    "by others (mode %04o): refusing to use it; chmod 600 it",
		    name, path, (unsigned)(st.st_mode & 07777));
		return SSH_SESSION_REFUSED;
	}
	return 0;
}

static int
ssh_session_connect(struct ssh_session *s, double deadline, char **cause)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	struct pollfd	 pfd;
	char		 port[16], *last = NULL;
	socklen_t	 len;
	double		 left;
	int		 fd = -1, err, one = 1, rc, r = -1;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof port, "%d", s->port);
	if ((rc = getaddrinfo(s->host, port, &hints, &res)) != 0) {
		error_set(cause, "agent '%s': couldn't resolve '%s': %s",
		    s->name, s->host, gai_strerror(rc));
		goto out;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		err = errno;
		if (err == EINPROGRESS) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			do {
				left = deadline - ssh_session_now();
				rc = left > 0 ? poll(&pfd, 1,
				    (int)(left * 1000) + 1) : 0;
			} while (rc == -1 && errno == EINTR);
			if (rc == 0)
				err = ETIMEDOUT;
			else {
				len = sizeof err;
				if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
				    &len) != 0)
					err = errno;
			}
			if (err == 0)
				break;
		}
		free(last);
		last = xstrdup(err == ETIMEDOUT ? "timed out" : strerror(err));
		close(fd);
		fd = -1;
	}
	if (fd == -1) {
		error_set(cause, "agent '%s': couldn't connect to '%s' port %d: "
		    "%s", s->name, s->host, s->port, last != NULL ? last :
		    "no address");
		goto out;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
	s->fd = fd;
	fd = -1;
	r = 0;
out:
	if (fd != -1)
		close(fd);
	if (res != NULL)
		freeaddrinfo(res);
	free(last);
	return r;
}

/*
 * Keep only the methods this libssh2 supports: 1.10 drops the others
 * itself, but with an overlapping memcpy.
 */
static char *
ssh_session_supported(LIBSSH2_SESSION *ssh, const char *methods)
{
	struct strbuf	  sb = STRBUF_INIT;
	const char	**algs = NULL;
	const char	 *p, *comma;
	size_t		  len;
	int		  n, i;

	if (methods == NULL ||
	    (n = libssh2_session_supported_algs(ssh, LIBSSH2_METHOD_HOSTKEY,
	    &algs)) <= 0)
		return NULL;
	for (p = methods; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		if ((comma = strchr(p, ',')) == NULL)
			comma = p + strlen(p);
		len = (size_t)(comma - p);
		for (i = 0; i < n; i++) {
			if (strlen(algs[i]) == len &&
			    strncmp(algs[i], p, len) == 0) {
				strbuf_addf(&sb, "%s%.*s", sb.len ? "," : "",
				    (int)len, p);
				break;
			}
		}
	}
	libssh2_free(ssh, algs);
	if (sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* Handshake, host key, authentication and SFTP, by the deadline. */
static int
ssh_session_setup(struct ssh_session *s, double deadline, char **cause)
{
	char	*methods = NULL, *offered = NULL, *why = NULL;
	int	 rc, r = -1;

	methods = s->hostkey_any ? NULL :
	    ssh_knownhosts_methods(s->known_hosts, s->host, s->port);
	offered = ssh_session_supported(s->ssh, methods);
	if (offered != NULL &&
	    libssh2_session_method_pref(s->ssh, LIBSSH2_METHOD_HOSTKEY,
	    offered) != 0) {
		/* none of them is supported: let the server choose */
	}
	SSH_CALL(s, deadline, &why, "handshake", rc,
	    libssh2_session_handshake(s->ssh, s->fd));
	if (rc == LIBSSH2_ERROR_KEX_FAILURE) {
		s->kex_restricted = offered != NULL;
		/* most often: an RSA host key, see docs/agents.md */
		char	*more = xasprintf("%s (host key algorithms offered: "
			    "%s; libssh2 %s signs with ssh-rsa, not "
			    "rsa-sha2-256/512)", why, offered != NULL ?
			    offered : "any", LIBSSH2_VERSION);

		free(why);
		why = more;
	}
	if (rc != 0)
		goto fail;
	s->host_key = ssh_knownhosts_fingerprint(s->ssh);
	if (s->hostkey_any) {
		/* the caller only asked which key the host shows */
		r = 0;
		goto out;
	}
	if ((r = ssh_knownhosts_verify(s->ssh, s->name, s->known_hosts,
	    s->host, s->port, s->tofu, cause)) != 0)
		goto out;
	r = -1;
	SSH_CALL(s, deadline, &why, "authentication", rc,
	    libssh2_userauth_publickey_fromfile_ex(s->ssh, s->user,
	    (unsigned)strlen(s->user), NULL, s->identity, NULL));
	if (rc == LIBSSH2_ERROR_AUTHENTICATION_FAILED ||
	    rc == LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED ||
	    rc == LIBSSH2_ERROR_FILE) {
		error_set(cause, "agent '%s': '%s' refused the key '%s' for "
		    "user '%s' (%s)", s->name, s->host, s->identity, s->user,
		    why);
		r = SSH_SESSION_REFUSED;
		goto out;
	}
	if (rc != 0)
		goto fail;
	ssh_session_lock(s);
	libssh2_keepalive_config(s->ssh, 1, s->keepalive);
	ssh_session_unlock(s);
	SSH_CALL_PTR(s, deadline, &why, "starting SFTP", s->sftp,
	    libssh2_sftp_init(s->ssh));
	/*
	 * A server without the sftp subsystem says so at once, and will say
	 * it again at every try: a fault of the machine's set-up, not a
	 * passing one.
	 */
	if (s->sftp == NULL && why != NULL &&
	    (strstr(why, "Unable to request SFTP subsystem") != NULL ||
	    strstr(why, "subsystem request failed") != NULL)) {
		error_set(cause, "agent '%s': '%s' has no SFTP subsystem (%s): "
		    "add 'Subsystem sftp internal-sftp' to its sshd_config",
		    s->name, s->host, why);
		r = SSH_SESSION_REFUSED;
		goto out;
	}
	if (s->sftp == NULL)
		goto fail;
	r = 0;
	goto out;
fail:
	if (why == NULL)
		why = xstrdup("failed");
	if (strstr(why, "timed out") != NULL && deadline > 0 &&
	    ssh_session_now() >= deadline)
		error_set(cause, "agent '%s': '%s' port %d: %s timed out after "
		    "%us", s->name, s->host, s->port, why, s->connect_timeout);
	else
		error_set(cause, "agent '%s': '%s' port %d: %s", s->name,
		    s->host, s->port, why);
out:
	free(methods);
	free(offered);
	free(why);
	return r;
}

/*
 * One connection. hostkey_any: offer every host key type and stop after
 * the handshake (s->host_key says what the host showed). *restricted: the
 * handshake failed with the host key types known_hosts has for the host.
 */
static int
ssh_session_open_once(const struct ssh_session_opts *o, int hostkey_any,
    struct ssh_session **out, int *restricted, char **cause)
{
	struct ssh_session	*s;
	double			 deadline;
	int			 r;

	*restricted = 0;
	s = xcalloc(1, sizeof *s);
	s->hostkey_any = hostkey_any;
	s->name = xstrdup(o->name);
	s->host = xstrdup(o->host);
	s->port = o->port;
	s->user = xstrdup(o->user);
	s->identity = xstrdup(o->identity);
	s->known_hosts = xstrdup(o->known_hosts);
	s->tofu = o->tofu;
	s->connect_timeout = o->connect_timeout > 0 ? o->connect_timeout : 10;
	s->keepalive = o->keepalive;
	s->silence = o->silence_timeout > 0 ? o->silence_timeout : 30;
	s->fd = -1;
	s->wakefd = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_mutex_init(&s->sftp_mu, NULL);
	pthread_mutex_init(&s->open_mu, NULL);
	r = -1;
	if ((s->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
		error_errno(cause, "couldn't create an eventfd");
		goto out;
	}
	deadline = ssh_session_now() + s->connect_timeout;
	if (ssh_session_connect(s, deadline, cause) != 0)
		goto out;
	s->last_rx = s->last_ping = ssh_session_now();
	s->ssh = libssh2_session_init_ex(NULL, NULL, NULL, s);
	if (s->ssh == NULL) {
		error_set(cause, "agent '%s': couldn't create a libssh2 session",
		    s->name);
		goto out;
	}
	libssh2_session_callback_set(s->ssh, LIBSSH2_CALLBACK_RECV,
	    (void *)ssh_session_recv);
	libssh2_session_set_blocking(s->ssh, 0);
	if ((r = ssh_session_setup(s, deadline, cause)) != 0) {
		*restricted = s->kex_restricted;
		goto out;
	}
	*out = s;
	s = NULL;
out:
	ssh_session_free(s);
	return r;
}

int
ssh_session_open(const struct ssh_session_opts *o, struct ssh_session **out,
    char **cause)
{
	struct ssh_session	*probe = NULL;
	char			*known = NULL, *why = NULL;
	int			 r, restricted;

	pthread_once(&session_once, ssh_session_global_init);
	if (session_init_rc != 0)
		return error_set(cause, "couldn't initialise libssh2");
	if ((r = ssh_session_check_identity(o->name, o->identity, cause)) != 0)
		return r;
	r = ssh_session_open_once(o, 0, out, &restricted, cause);
	if (r != -1 || !restricted)
		return r;
	/*
	 * No host key of the types known_hosts has for the host: if it
	 * shows one of another type, it is known only under that other
	 * type, which no retry changes (OpenSSH, too, refuses to go on).
	 */
	if (ssh_session_open_once(o, 1, &probe, &restricted, &why) != 0) {
		free(why);
		return r;
	}
	known = ssh_knownhosts_methods(o->known_hosts, o->host, o->port);
	error_set(cause, "agent '%s': '%s' shows a host key of another type "
	    "(%s) than '%s' knows for it (%s): refusing to connect; if the "
	    "machine's keys were changed, replace its line there (ssh-keyscan, "
	    "checked out of band)", o->name, o->host, probe->host_key,
	    o->known_hosts, known != NULL ? known : "none");
	ssh_session_free(probe);
	free(known);
	return SSH_SESSION_REFUSED;
}

int
ssh_session_ping(struct ssh_session *s, char **cause)
{
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	double			 deadline;
	int			 rc;

	ssh_session_sftp_lock(s);
	if (ssh_session_quiet(s) < s->keepalive) {
		/* whoever held the SFTP channel heard from the server */
		ssh_session_sftp_unlock(s);
		return 0;
	}
	deadline = ssh_session_now() + s->silence;
	SSH_CALL(s, deadline, cause, "ping", rc,
	    libssh2_sftp_stat_ex(s->sftp, ".", 1, LIBSSH2_SFTP_STAT, &attrs));
	ssh_session_sftp_unlock(s);
	if (rc == SSH_WAIT_FAILED && !ssh_session_dead(s, NULL)) {
		char	*why = xasprintf("connection to '%s' lost: no answer "
			    "for %us", s->host, s->silence);

		ssh_session_kill(s, why);
		free(why);
	}
	return rc == 0 ? 0 : -1;
}

void
ssh_session_free(struct ssh_session *s)
{
	if (s == NULL)
		return;
	if (s->ssh != NULL) {
		/*
		 * Blocking now, with a short timeout: a polite goodbye on a
		 * live connection; on a dead one every call fails at once.
		 */
		libssh2_session_set_blocking(s->ssh, 1);
		libssh2_session_set_timeout(s->ssh, 2000);
		if (s->sftp != NULL)
			libssh2_sftp_shutdown(s->sftp);
		if (!s->dead)
			libssh2_session_disconnect(s->ssh, "bye");
		libssh2_session_free(s->ssh);
	}
	if (s->fd != -1)
		close(s->fd);
	if (s->wakefd != -1)
		close(s->wakefd);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->sftp_mu);
	pthread_mutex_destroy(&s->open_mu);
	free(s->name);
	free(s->host);
	free(s->user);
	free(s->identity);
	free(s->known_hosts);
	free(s->host_key);
	free(s->dead_why);
	free(s);
}
