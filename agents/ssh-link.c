/*
 * The link process and its client (ssh-link.h): one request and one reply
 * per connection, each a frame of length-prefixed fields; the link writes
 * the run's files itself, and reboots a kexec agent before each run
 * (docs/design.md, "File notes", has the frames).
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/ssh-boot.h"
#include "agents/ssh-link.h"
#include "agents/ssh-remote.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define LINK_VERSION		"bisectd-link 1"
#define LINK_MAX_FRAME		(16u << 20)
#define LINK_MAX_FIELDS		16
#define LINK_REQUEST_TIMEOUT	30.0	/* to read a request */
#define LINK_REPLY_MARGIN	120.0	/* beyond the run's own timeout */

struct link_conn {
	struct ssh_session	*s;
	struct ssh_remote	*r;
	int			 refs;
};

struct link {
	struct ssh_session_opts	 opts;
	const char		*remote_dir;
	const char		*agent_path;
	enum boot_method	 boot;
	char *const		*disks;		/* --disk arguments */
	size_t			 nr_disks;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	struct link_conn	*conn;
	int			 connecting;
	unsigned long		 attempts;
	int			 last_rc;
	char			*last_error;
};

struct link_client {
	struct link	*l;
	int		 fd;
};

char *
ssh_link_address(const char *prefix, const char *agent)
{
	return xasprintf("%s/%s", prefix, agent);
}

static int
ssh_link_sockaddr(const char *address, struct sockaddr_un *sa, socklen_t *len,
    char **cause)
{
	size_t	n = strlen(address);

	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (n + 1 > sizeof sa->sun_path)
		return error_set(cause, "link address '%s' is too long",
		    address);
	memcpy(sa->sun_path + 1, address, n);	/* abstract: leading NUL */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	return 0;
}

static int
ssh_link_same_user(int fd)
{
	struct ucred	cred;
	socklen_t	len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return 0;
	return cred.uid == getuid();
}

int
ssh_link_listen(const char *address, int *fd, char **cause)
{
	struct sockaddr_un	sa;
	socklen_t		len;
	int			s;

	if (ssh_link_sockaddr(address, &sa, &len, cause) != 0)
		return -1;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s == -1)
		return error_errno(cause, "couldn't create a socket");
	if (bind(s, (struct sockaddr *)&sa, len) != 0 || listen(s, 64) != 0) {
		error_errno(cause, "couldn't listen on '@%s'", address);
		close(s);
		return -1;
	}
	*fd = s;
	return 0;
}

/* Frames. */

static int
ssh_link_io(int fd, void *buf, size_t len, int writing, double deadline)
{
	struct pollfd	 pfd;
	char		*p = buf;
	double		 left;
	ssize_t		 n;

	while (len > 0) {
		int	ms = -1;

		if (deadline > 0) {
			left = deadline - ssh_session_now();
			if (left <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			ms = (int)(left * 1000) + 1;
		}
		pfd.fd = fd;
		pfd.events = writing ? POLLOUT : POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, ms) == -1 && errno != EINTR)
			return -1;
		if (pfd.revents == 0)
			continue;
		n = writing ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) :
		    recv(fd, p, len, MSG_DONTWAIT);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n == -1)
			return -1;
		if (n == 0) {
			errno = EPIPE;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
ssh_link_put_u32(struct strbuf *sb, uint32_t v)
{
	uint32_t	n = htonl(v);

	strbuf_add(sb, &n, sizeof n);
}

static int
ssh_link_send(int fd, const char *const *fields, size_t nr, double deadline)
{
	struct strbuf	body = STRBUF_INIT, frame = STRBUF_INIT;
	size_t		i;
	int		r;

	for (i = 0; i < nr; i++) {
		ssh_link_put_u32(&body, (uint32_t)strlen(fields[i]));
		strbuf_addstr(&body, fields[i]);
	}
	ssh_link_put_u32(&frame, (uint32_t)body.len);
	strbuf_add(&frame, body.buf, body.len);
	r = ssh_link_io(fd, frame.buf, frame.len, 1, deadline);
	strbuf_release(&body);
	strbuf_release(&frame);
	return r;
}

static void
ssh_link_fields_free(char **v, size_t n)
{
	while (n-- > 0)
		free(v[n]);
	free(v);
}

static int
ssh_link_recv(int fd, double deadline, char ***out, size_t *nr)
{
	uint32_t	 len, flen;
	char		*body = NULL, **v = NULL;
	size_t		 off = 0, n = 0;

	if (ssh_link_io(fd, &len, sizeof len, 0, deadline) != 0)
		return -1;
	len = ntohl(len);
	if (len > LINK_MAX_FRAME) {
		errno = EMSGSIZE;
		return -1;
	}
	body = xmalloc(len + 1);
	if (ssh_link_io(fd, body, len, 0, deadline) != 0)
		goto fail;
	v = xcalloc(LINK_MAX_FIELDS, sizeof *v);
	while (off < len) {
		if (n == LINK_MAX_FIELDS || len - off < 4)
			goto bad;
		memcpy(&flen, body + off, 4);
		flen = ntohl(flen);
		off += 4;
		if (flen > len - off)
			goto bad;
		v[n++] = xstrndup(body + off, flen);
		off += flen;
	}
	free(body);
	*out = v;
	*nr = n;
	return 0;
bad:
	errno = EPROTO;
fail:
	free(body);
	ssh_link_fields_free(v, n);
	return -1;
}

/* The server. */

static void
ssh_link_conn_unref(struct link_conn *c)
{
	if (c == NULL || --c->refs > 0)
		return;
	ssh_remote_free(c->r);
	ssh_session_free(c->s);
	free(c);
}

/*
 * The live connection, connecting first if there is none (within limit
 * seconds when this thread connects and limit is not 0).
 */
static int
ssh_link_get(struct link *l, struct link_conn **out, unsigned limit,
    char **cause)
{
	struct ssh_session_opts	 o = l->opts;
	struct ssh_session	*s = NULL;
	struct link_conn	*c;
	unsigned long		 attempt;
	char			*why = NULL;
	int			 rc;

	pthread_mutex_lock(&l->mu);
	for (;;) {
		if (l->conn != NULL && !ssh_session_dead(l->conn->s, NULL)) {
			l->conn->refs++;
			*out = l->conn;
			pthread_mutex_unlock(&l->mu);
			return 0;
		}
		if (l->conn != NULL) {
			ssh_link_conn_unref(l->conn);
			l->conn = NULL;
		}
		if (l->connecting) {
			attempt = l->attempts;
			while (l->connecting)
				pthread_cond_wait(&l->cv, &l->mu);
			if (l->attempts != attempt && l->conn == NULL) {
				rc = l->last_rc;
				error_set(cause, "%s", l->last_error);
				pthread_mutex_unlock(&l->mu);
				return rc;
			}
			continue;
		}
		l->connecting = 1;
		pthread_mutex_unlock(&l->mu);
		if (limit > 0 && limit < o.connect_timeout)
			o.connect_timeout = limit;
		rc = ssh_session_open(&o, &s, &why);
		pthread_mutex_lock(&l->mu);
		l->connecting = 0;
		l->attempts++;
		pthread_cond_broadcast(&l->cv);
		if (rc != 0) {
			free(l->last_error);
			l->last_error = why;
			l->last_rc = rc;
			error_set(cause, "%s", why);
			pthread_mutex_unlock(&l->mu);
			return rc;
		}
		c = xcalloc(1, sizeof *c);
		c->s = s;
		c->r = ssh_remote_new(s, l->opts.name, l->remote_dir,
		    l->agent_path);
		if (l->boot == BOOT_QEMU)
			ssh_remote_set_boot(c->r, BOOT_QEMU);
		ssh_remote_set_disks(c->r, l->disks, l->nr_disks);
		c->refs = 1;
		l->conn = c;
		log_info("agent '%s': connected to '%s' port %d (%s)",
		    l->opts.name, l->opts.host, l->opts.port,
		    ssh_session_host_key(s));
	}
}

/* boot: kexec: the connection a run holds, made again after the reboot. */
struct link_boot {
	struct link		*l;
	struct link_conn	*c;
};

static struct ssh_remote *
ssh_link_boot_remote(void *arg)
{
	struct link_boot	*lb = arg;

	if (lb->c == NULL || ssh_session_dead(lb->c->s, NULL))
		return NULL;
	return lb->c->r;
}

static int
ssh_link_boot_reconnect(void *arg, unsigned limit, char **cause)
{
	struct link_boot	*lb = arg;

	pthread_mutex_lock(&lb->l->mu);
	if (lb->c != NULL) {
		ssh_session_kill(lb->c->s, "the machine reboots (kexec)");
		ssh_link_conn_unref(lb->c);
		lb->c = NULL;
	}
	pthread_mutex_unlock(&lb->l->mu);
	return ssh_link_get(lb->l, &lb->c, limit, cause);
}

static void
ssh_link_reply(int fd, int status, const char *message, const char *output)
{
	char		 st[16];
	const char	*fields[3];

	snprintf(st, sizeof st, "%d", status);
	fields[0] = st;
	fields[1] = message != NULL ? message : "";
	fields[2] = output != NULL ? output : "";
	ssh_link_send(fd, fields, 3, ssh_session_now() + LINK_REQUEST_TIMEOUT);
}

static void *
ssh_link_client_main(void *arg)
{
	struct link_client	*lc = arg;
	struct link		*l = lc->l;
	struct link_conn	*c = NULL;
	struct transport_job	 job;
	struct link_boot	 lb;
	struct ssh_boot_conn	 bc;
	char			**v = NULL, *cause = NULL, *out = NULL, *end;
	size_t			 n = 0;
	unsigned long		 timeout;
	int			 rc = -1;

	if (ssh_link_recv(lc->fd, ssh_session_now() + LINK_REQUEST_TIMEOUT, &v,
	    &n) != 0)
		goto done;
	if (n < 2 || strcmp(v[0], LINK_VERSION) != 0) {
		error_set(&cause, "agent '%s': bad request to its link",
		    l->opts.name);
		goto reply;
	}
	if ((rc = ssh_link_get(l, &c, 0, &cause)) != 0)
		goto reply;
	rc = -1;
	if (strcmp(v[1], "info") == 0 && n == 2)
		rc = ssh_remote_info(c->r, &out, &cause);
	else if (strcmp(v[1], "run") == 0 && n == 6) {
		memset(&job, 0, sizeof job);
		job.run_dir = v[2];
		job.job_text = v[3];
		job.artifact_dir = *v[4] != '\0' ? v[4] : NULL;
		errno = 0;
		timeout = strtoul(v[5], &end, 10);
		job.timeout = errno == 0 && *end == '\0' ?
		    (unsigned)timeout : 0;
		if (l->boot != BOOT_KEXEC) {
			rc = ssh_remote_run(c->r, &job, lc->fd, NULL, &cause);
			goto reply;
		}
		lb.l = l;
		lb.c = c;
		bc.remote = ssh_link_boot_remote;
		bc.reconnect = ssh_link_boot_reconnect;
		bc.arg = &lb;
		rc = ssh_boot_kexec_run(&bc, l->opts.name, l->opts.user, &job,
		    lc->fd, NULL, &cause);
		c = lb.c;
	} else
		error_set(&cause, "agent '%s': unknown request '%s'",
		    l->opts.name, v[1]);
reply:
	ssh_link_reply(lc->fd, rc, cause, out);
done:
	pthread_mutex_lock(&l->mu);
	ssh_link_conn_unref(c);
	pthread_mutex_unlock(&l->mu);
	ssh_link_fields_free(v, n);
	close(lc->fd);
	free(lc);
	free(cause);
	free(out);
	return NULL;
}

/* Ping an idle connection; a ping that goes unanswered kills it. */
static void *
ssh_link_keepalive_main(void *arg)
{
	struct link		*l = arg;
	struct link_conn	*c;
	char			*cause;

	for (;;) {
		sleep(1);
		pthread_mutex_lock(&l->mu);
		c = l->conn;
		if (c != NULL)
			c->refs++;
		pthread_mutex_unlock(&l->mu);
		if (c == NULL)
			continue;
		if (!ssh_session_dead(c->s, NULL) &&
		    ssh_session_quiet(c->s) >= ssh_session_keepalive(c->s)) {
			cause = NULL;
			if (ssh_session_ping(c->s, &cause) != 0)
				log_warn("%s", cause);
			free(cause);
		}
		pthread_mutex_lock(&l->mu);
		ssh_link_conn_unref(c);
		pthread_mutex_unlock(&l->mu);
	}
	return NULL;
}

int
ssh_link_serve(int fd, const struct ssh_session_opts *opts,
    const char *remote_dir, const char *agent_path, enum boot_method boot,
    char *const *disks, size_t nr_disks, char **cause)
{
	struct link		 l;
	struct link_client	*lc;
	pthread_attr_t		 attr;
	pthread_t		 t;
	int			 cfd;

	memset(&l, 0, sizeof l);
	l.opts = *opts;
	l.remote_dir = remote_dir;
	l.agent_path = agent_path;
	l.boot = boot;
	l.disks = disks;
	l.nr_disks = nr_disks;
	pthread_mutex_init(&l.mu, NULL);
	pthread_cond_init(&l.cv, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, ssh_link_keepalive_main, &l) != 0)
		return error_set(cause, "couldn't start a thread");
	for (;;) {
		cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			return error_errno(cause, "accept");
		}
		if (!ssh_link_same_user(cfd)) {
			close(cfd);
			continue;
		}
		lc = xcalloc(1, sizeof *lc);
		lc->l = &l;
		lc->fd = cfd;
		if (pthread_create(&t, &attr, ssh_link_client_main, lc) != 0) {
			ssh_link_reply(cfd, -1,
			    "the link couldn't start a thread", NULL);
			close(cfd);
			free(lc);
		}
	}
}

/* The client. */

static int
ssh_link_call(const char *address, const char *const *req, size_t nr_req,
    double deadline, char **out, char **cause)
{
	struct sockaddr_un	  sa;
	socklen_t		  len;
	char			**v = NULL;
	size_t			  n = 0;
	int			  fd = -1, r = -1;

	if (ssh_link_sockaddr(address, &sa, &len, cause) != 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return error_errno(cause, "couldn't create a socket");
	if (connect(fd, (struct sockaddr *)&sa, len) != 0) {
		error_errno(cause, "its link '@%s' is not answering",
		    address);
		goto out;
	}
	if (!ssh_link_same_user(fd)) {
		error_set(cause, "its link '@%s' belongs to another user",
		    address);
		goto out;
	}
	if (ssh_link_send(fd, req, nr_req, deadline) != 0 ||
	    ssh_link_recv(fd, deadline, &v, &n) != 0) {
		error_errno(cause, "its link '@%s' went away", address);
		goto out;
	}
	if (n != 3) {
		error_set(cause, "its link '@%s' sent a bad reply", address);
		goto out;
	}
	r = atoi(v[0]);
	if (r != 0 && r != SSH_SESSION_REFUSED)
		r = -1;
	if (r != 0)
		error_set(cause, "%s", *v[1] != '\0' ? v[1] : "failed");
	else if (out != NULL) {
		*out = v[2];
		v[2] = NULL;
	}
out:
	ssh_link_fields_free(v, n);
	if (fd != -1)
		close(fd);
	return r;
}

int
ssh_link_run(const char *address, const struct transport_job *job,
    char **cause)
{
	const char	*req[6];
	char		 timeout[32];
	double		 deadline = 0;

	snprintf(timeout, sizeof timeout, "%u", job->timeout);
	req[0] = LINK_VERSION;
	req[1] = "run";
	req[2] = job->run_dir;
	req[3] = job->job_text;
	req[4] = job->artifact_dir != NULL ? job->artifact_dir : "";
	req[5] = timeout;
	if (job->timeout > 0)
		deadline = ssh_session_now() + job->timeout + LINK_REPLY_MARGIN;
	return ssh_link_call(address, req, 6, deadline, NULL, cause);
}

int
ssh_link_info(const char *address, unsigned timeout, char **out,
    char **cause)
{
	const char	*req[2] = { LINK_VERSION, "info" };

	return ssh_link_call(address, req, 2, ssh_session_now() + timeout +
	    LINK_REPLY_MARGIN, out, cause);
}
