/*
 * SFTP transfers for the ssh transport (see ssh-sftp.h). Writes go
 * through libssh2's pipelined sftp_write, reads through its read-ahead;
 * every call retries under the session's calling discipline, so several
 * threads may transfer over one connection, one SFTP operation at a time.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/result.h"
#include "agents/ssh-sftp.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/xalloc.h"

#define SFTP_CHUNK	(256 * 1024)

int
ssh_sftp_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > 255)
		return 0;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	return memchr(name, '/', len) == NULL && memchr(name, '\0', len) ==
	    NULL;
}

static int
ssh_sftp_mkdir_locked(struct ssh_session *s, const char *path, int mode,
    double deadline, char **cause)
{
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	char			*why = NULL;
	int			 rc;

	SSH_CALL(s, deadline, &why, "mkdir", rc,
	    libssh2_sftp_mkdir_ex(ssh_session_sftp(s), path,
	    (unsigned)strlen(path), mode));
	if (rc == 0 || rc == SSH_WAIT_FAILED)
		goto out;
	/* it may exist already (OpenSSH says "failure" then) */
	free(why);
	why = NULL;
	SSH_CALL(s, deadline, &why, "stat", rc,
	    libssh2_sftp_stat_ex(ssh_session_sftp(s), path,
	    (unsigned)strlen(path), LIBSSH2_SFTP_STAT, &attrs));
	if (rc == 0 && !LIBSSH2_SFTP_S_ISDIR(attrs.permissions)) {
		error_set(cause, "couldn't create directory '%s': a file is in "
		    "the way", path);
		return -1;
	}
	if (rc == 0)
		return 0;
out:
	if (rc != 0)
		error_set(cause, "couldn't create directory '%s': %s", path,
		    why);
	free(why);
	return rc == 0 ? 0 : -1;
}

int
ssh_sftp_mkdir(struct ssh_session *s, const char *path, int mode,
    double deadline, char **cause)
{
	int	r;

	ssh_session_sftp_lock(s);
	r = ssh_sftp_mkdir_locked(s, path, mode, deadline, cause);
	ssh_session_sftp_unlock(s);
	return r;
}

int
ssh_sftp_mkdir_p(struct ssh_session *s, const char *path, int mode,
    double deadline, char **cause)
{
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	char			*p = xstrdup(path), *slash, *ignore = NULL;
	int			 rc, r = -1;

	ssh_session_sftp_lock(s);
	SSH_CALL(s, deadline, &ignore, "stat", rc,
	    libssh2_sftp_stat_ex(ssh_session_sftp(s), path,
	    (unsigned)strlen(path), LIBSSH2_SFTP_STAT, &attrs));
	if (rc == 0 && LIBSSH2_SFTP_S_ISDIR(attrs.permissions)) {
		r = 0;
		goto out;
	}
	for (slash = strchr(p + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (ssh_sftp_mkdir_locked(s, p, mode, deadline, cause) != 0)
			goto out;
		*slash = '/';
	}
	r = ssh_sftp_mkdir_locked(s, p, mode, deadline, cause);
out:
	ssh_session_sftp_unlock(s);
	free(ignore);
	free(p);
	return r;
}

int
ssh_sftp_stat(struct ssh_session *s, const char *path, int *exists,
    unsigned long long *size, unsigned long *mode, double deadline,
    char **cause)
{
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	unsigned long		 code = 0;
	char			*why = NULL;
	int			 rc, r = -1;

	ssh_session_sftp_lock(s);
	SSH_CALL(s, deadline, &why, "stat", rc,
	    libssh2_sftp_stat_ex(ssh_session_sftp(s), path,
	    (unsigned)strlen(path), LIBSSH2_SFTP_STAT, &attrs));
	if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL)
		code = libssh2_sftp_last_error(ssh_session_sftp(s));
	ssh_session_sftp_unlock(s);
	if (rc == 0) {
		*exists = 1;
		if (size != NULL)
			*size = attrs.filesize;
		if (mode != NULL)
			*mode = attrs.permissions;
	} else if (code == LIBSSH2_FX_NO_SUCH_FILE ||
	    code == LIBSSH2_FX_NO_SUCH_PATH)
		*exists = 0;
	else {
		error_set(cause, "couldn't stat '%s': %s", path, why);
		goto out;
	}
	r = 0;
out:
	free(why);
	return r;
}

int
ssh_sftp_realpath(struct ssh_session *s, const char *path, char **out,
    double deadline, char **cause)
{
	char	 buf[4096], *why = NULL;
	int	 rc;

	ssh_session_sftp_lock(s);
	SSH_CALL(s, deadline, &why, "realpath", rc,
	    libssh2_sftp_symlink_ex(ssh_session_sftp(s), path,
	    (unsigned)strlen(path), buf, sizeof buf - 1,
	    LIBSSH2_SFTP_REALPATH));
	ssh_session_sftp_unlock(s);
	if (rc < 0) {
		error_set(cause, "couldn't resolve '%s': %s", path, why);
		free(why);
		return -1;
	}
	buf[rc] = '\0';
	*out = xstrdup(buf);
	return 0;
}

static int
ssh_sftp_close_locked(struct ssh_session *s, LIBSSH2_SFTP_HANDLE *h,
    double deadline, char **cause)
{
	int	rc;

	SSH_CALL(s, deadline, cause, "close", rc,
	    libssh2_sftp_close_handle(h));
	return rc == 0 ? 0 : -1;
}

static int
ssh_sftp_write_all(struct ssh_session *s, LIBSSH2_SFTP_HANDLE *h, const char *p,
    size_t len, double deadline, char **cause)
{
	ssize_t	n;

	while (len > 0) {
		SSH_CALL(s, deadline, cause, "write", n,
		    libssh2_sftp_write(h, p, len));
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Open remote for writing, and feed it from a buffer or a local fd. */
static int
ssh_sftp_put_locked(struct ssh_session *s, const void *buf, size_t len, int fd,
    const char *remote, int mode, double deadline, char **cause)
{
	LIBSSH2_SFTP_HANDLE	*h = NULL;
	char			*why = NULL, *chunk = NULL;
	ssize_t			 n;
	int			 r = -1;

	SSH_CALL_PTR(s, deadline, &why, "open", h,
	    libssh2_sftp_open_ex(ssh_session_sftp(s), remote,
	    (unsigned)strlen(remote), LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT |
	    LIBSSH2_FXF_TRUNC, mode, LIBSSH2_SFTP_OPENFILE));
	if (h == NULL)
		goto out;
	if (fd == -1) {
		if (ssh_sftp_write_all(s, h, buf, len, deadline, &why) != 0)
			goto out;
	} else {
		chunk = xmalloc(SFTP_CHUNK);
		for (;;) {
			n = fd_read(fd, chunk, SFTP_CHUNK);
			if (n == -1) {
				why = xasprintf("reading the local file: %s",
				    strerror(errno));
				goto out;
			}
			if (n == 0)
				break;
			if (ssh_sftp_write_all(s, h, chunk, (size_t)n, deadline,
			    &why) != 0)
				goto out;
		}
	}
	r = ssh_sftp_close_locked(s, h, deadline, &why);
	h = NULL;
out:
	if (h != NULL) {
		char	*ignore = NULL;

		ssh_sftp_close_locked(s, h, deadline, &ignore);
		free(ignore);
	}
	if (r != 0)
		error_set(cause, "couldn't upload '%s': %s", remote, why);
	free(why);
	free(chunk);
	return r;
}

int
ssh_sftp_put_buffer(struct ssh_session *s, const void *buf, size_t len,
    const char *remote, int mode, double deadline, char **cause)
{
	int	r;

	ssh_session_sftp_lock(s);
	r = ssh_sftp_put_locked(s, buf, len, -1, remote, mode, deadline, cause);
	ssh_session_sftp_unlock(s);
	return r;
}

int
ssh_sftp_put_file(struct ssh_session *s, const char *local,
    const char *remote, int mode, double deadline, char **cause)
{
	int	fd, r;

	if ((fd = open(local, O_RDONLY | O_CLOEXEC)) == -1)
		return error_errno(cause, "couldn't open '%s'", local);
	ssh_session_sftp_lock(s);
	r = ssh_sftp_put_locked(s, NULL, 0, fd, remote, mode, deadline, cause);
	ssh_session_sftp_unlock(s);
	close(fd);
	return r;
}

struct sftp_put_tree {
	struct ssh_session	*s;
	const char		*remote;
	double			 deadline;
};

static int
ssh_sftp_put_tree_visit(const struct dir_walk_entry *e, void *arg, char **cause)
{
	struct sftp_put_tree	*pt = arg;
	char			*rp = path_join(pt->remote, e->rel);
	int			 fd, r = -1;

	if (S_ISDIR(e->st->st_mode))
		r = ssh_sftp_mkdir_locked(pt->s, rp, 0755, pt->deadline, cause);
	else if (S_ISREG(e->st->st_mode)) {
		if ((fd = open(e->path, O_RDONLY | O_CLOEXEC |
		    O_NOFOLLOW)) == -1) {
			error_errno(cause, "couldn't open '%s'", e->path);
			goto out;
		}
		r = ssh_sftp_put_locked(pt->s, NULL, 0, fd, rp,
		    (int)(e->st->st_mode & 0777), pt->deadline, cause);
		close(fd);
	} else
		error_set(cause, "refusing to upload '%s': not a regular "
		    "file or a directory", e->path);
out:
	free(rp);
	return r;
}

int
ssh_sftp_put_tree(struct ssh_session *s, const char *local, const char *remote,
    double deadline, char **cause)
{
	struct sftp_put_tree	pt = { s, remote, deadline };
	struct dir_walk		w = {
		ssh_sftp_put_tree_visit, NULL, &pt, SSH_SFTP_MAX_DEPTH,
	};
	int			r;

	ssh_session_sftp_lock(s);
	r = ssh_sftp_mkdir_locked(s, remote, 0755, deadline, cause);
	if (r == 0)
		r = dir_walk(local, &w, cause);
	ssh_session_sftp_unlock(s);
	return r;
}

int
ssh_sftp_rename(struct ssh_session *s, const char *from, const char *to,
    int *exists, double deadline, char **cause)
{
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	char			*why = NULL, *ignore = NULL;
	int			 rc, r = -1;

	*exists = 0;
	ssh_session_sftp_lock(s);
	SSH_CALL(s, deadline, &why, "rename", rc,
	    libssh2_sftp_rename_ex(ssh_session_sftp(s), from,
	    (unsigned)strlen(from), to, (unsigned)strlen(to),
	    LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE));
	if (rc != 0 && rc != SSH_WAIT_FAILED) {
		SSH_CALL(s, deadline, &ignore, "stat", rc,
		    libssh2_sftp_stat_ex(ssh_session_sftp(s), to,
		    (unsigned)strlen(to), LIBSSH2_SFTP_LSTAT, &attrs));
		if (rc == 0)
			*exists = 1;
		else
			rc = -1;
	}
	ssh_session_sftp_unlock(s);
	if (rc != 0 && !*exists) {
		error_set(cause, "couldn't rename '%s' to '%s': %s", from, to,
		    why);
		goto out;
	}
	r = 0;
out:
	free(why);
	free(ignore);
	return r;
}

struct sftp_get {
	unsigned long long	bytes;
	int			files;
	int			skipped;
};

static int
ssh_sftp_get_file_locked(struct ssh_session *s, const char *remote,
    const char *local, struct sftp_get *g, double deadline, char **cause)
{
	LIBSSH2_SFTP_HANDLE	*h = NULL;
	char			*why = NULL, *buf = xmalloc(SFTP_CHUNK);
	const char		*base;
	unsigned long long	 cap, size = 0;
	ssize_t			 n;
	int			 fd = -1, r = -1, created = 0;

	fd = open(local, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd == -1) {
		error_errno(cause, "couldn't create '%s'", local);
		goto out;
	}
	created = 1;
	SSH_CALL_PTR(s, deadline, &why, "open", h,
	    libssh2_sftp_open_ex(ssh_session_sftp(s), remote,
	    (unsigned)strlen(remote), LIBSSH2_FXF_READ, 0,
	    LIBSSH2_SFTP_OPENFILE));
	if (h == NULL)
		goto fail;
	base = strrchr(remote, '/');
	base = base != NULL ? base + 1 : remote;
	/* the file the parser reads has the parser's cap: no more is read */
	cap = strcmp(base, "result") == 0 ? RESULT_MAX_SIZE : 0;
	for (;;) {
		SSH_CALL(s, deadline, &why, "read", n,
		    libssh2_sftp_read(h, buf, SFTP_CHUNK));
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		g->bytes += (unsigned long long)n;
		size += (unsigned long long)n;
		if (cap > 0 && size > cap) {
			why = xasprintf("'%s' is larger than %llu MiB, the most "
			    "a result may be", base, cap >> 20);
			goto fail;
		}
		if (g->bytes > SSH_SFTP_MAX_BYTES) {
			why = xasprintf("the results are larger than %llu MiB",
			    SSH_SFTP_MAX_BYTES >> 20);
			goto fail;
		}
		if (fd_write_all(fd, buf, (size_t)n) != 0) {
			error_errno(cause, "couldn't write '%s'", local);
			goto out;
		}
	}
	if (close(fd) != 0) {
		fd = -1;
		error_errno(cause, "couldn't write '%s'", local);
		goto out;
	}
	fd = -1;
	r = 0;
	goto out;
fail:
	error_set(cause, "couldn't download '%s': %s", remote, why);
out:
	if (h != NULL) {
		char	*ignore = NULL;

		ssh_sftp_close_locked(s, h, deadline, &ignore);
		free(ignore);
	}
	if (fd != -1)
		close(fd);
	/* a file cut short is not left behind for the next reader */
	if (r != 0 && created)
		unlink(local);
	free(why);
	free(buf);
	return r;
}

static int
ssh_sftp_get_tree_locked(struct ssh_session *s, const char *remote,
    const char *local, int depth, struct sftp_get *g, double deadline,
    char **cause)
{
	LIBSSH2_SFTP_HANDLE	*h = NULL;
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	char			 name[512], *why = NULL, *rp = NULL, *lp = NULL;
	int			 n, r = -1;

	if (mkdir(local, 0755) != 0) {
		error_errno(cause, "couldn't create directory '%s'", local);
		return -1;
	}
	SSH_CALL_PTR(s, deadline, &why, "opendir", h,
	    libssh2_sftp_open_ex(ssh_session_sftp(s), remote,
	    (unsigned)strlen(remote), 0, 0, LIBSSH2_SFTP_OPENDIR));
	if (h == NULL) {
		error_set(cause, "couldn't open directory '%s': %s", remote,
		    why);
		goto out;
	}
	for (;;) {
		SSH_CALL(s, deadline, &why, "readdir", n,
		    libssh2_sftp_readdir_ex(h, name, sizeof name - 1, NULL, 0,
		    &attrs));
		if (n < 0) {
			error_set(cause, "couldn't read directory '%s': %s",
			    remote, why);
			goto out;
		}
		if (n == 0)
			break;
		name[n] = '\0';
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (!ssh_sftp_name_ok(name, (size_t)n) ||
		    !(attrs.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS)) {
			g->skipped++;
			continue;
		}
		if (++g->files > SSH_SFTP_MAX_FILES) {
			error_set(cause, "'%s' holds more than %d files", remote,
			    SSH_SFTP_MAX_FILES);
			goto out;
		}
		free(rp);
		free(lp);
		rp = path_join(remote, name);
		lp = path_join(local, name);
		if (LIBSSH2_SFTP_S_ISDIR(attrs.permissions) &&
		    depth < SSH_SFTP_MAX_DEPTH) {
			if (ssh_sftp_get_tree_locked(s, rp, lp, depth + 1, g,
			    deadline, cause) != 0)
				goto out;
		} else if (LIBSSH2_SFTP_S_ISREG(attrs.permissions)) {
			if (ssh_sftp_get_file_locked(s, rp, lp, g, deadline,
			    cause) != 0)
				goto out;
		} else
			g->skipped++;
	}
	r = 0;
out:
	if (h != NULL) {
		char	*ignore = NULL;

		ssh_sftp_close_locked(s, h, deadline, &ignore);
		free(ignore);
	}
	free(why);
	free(rp);
	free(lp);
	return r;
}

int
ssh_sftp_get_tree(struct ssh_session *s, const char *remote, const char *local,
    int *skipped, double deadline, char **cause)
{
	struct sftp_get	g;
	int		r;

	memset(&g, 0, sizeof g);
	ssh_session_sftp_lock(s);
	r = ssh_sftp_get_tree_locked(s, remote, local, 0, &g, deadline, cause);
	ssh_session_sftp_unlock(s);
	if (skipped != NULL)
		*skipped = g.skipped;
	return r;
}
