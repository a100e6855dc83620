/*
 * File system helpers shared by the daemon and the agent. Writes that other
 * processes may read concurrently go through a temporary file and rename, so
 * a reader sees the old contents or the new, never half of them.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int
file_read(const char *path, char **out, size_t *outlen, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	int		 fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		error_errno(cause, "couldn't open '%s'", path);
		goto out;
	}
	if (fd_read_all(fd, &sb, SIZE_MAX) != 0) {
		error_errno(cause, "couldn't read '%s'", path);
		goto out;
	}
	if (outlen != NULL)
		*outlen = sb.len;
	*out = strbuf_detach(&sb, NULL);
	r = 0;
out:
	if (fd != -1)
		close(fd);
	strbuf_release(&sb);
	return r;
}

int
file_write_atomic(const char *path, const void *data, size_t len,
    char **cause)
{
	char	*tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int	 fd, r = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1) {
		error_errno(cause, "couldn't create '%s'", tmp);
		goto out;
	}
	if (fd_write_all(fd, data, len) == -1 || fsync(fd) == -1) {
		error_errno(cause, "couldn't write '%s'", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) == -1) {
		error_errno(cause, "couldn't rename '%s' to '%s'", tmp, path);
		unlink(tmp);
		goto out;
	}
	r = 0;
out:
	free(tmp);
	return r;
}

int
file_copy(const char *from, const char *to, char **cause)
{
	struct stat	 st;
	char		 chunk[65536];
	ssize_t		 n;
	int		 in = -1, outfd = -1, r = -1;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(in, &st) == -1) {
		error_errno(cause, "couldn't open '%s'", from);
		goto out;
	}
	outfd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    st.st_mode & 0777);
	if (outfd == -1) {
		error_errno(cause, "couldn't create '%s'", to);
		goto out;
	}
	for (;;) {
		n = fd_read(in, chunk, sizeof chunk);
		if (n == -1) {
			error_errno(cause, "couldn't read '%s'", from);
			goto out;
		}
		if (n == 0)
			break;
		if (fd_write_all(outfd, chunk, (size_t)n) == -1) {
			error_errno(cause, "couldn't write '%s'", to);
			goto out;
		}
	}
	if (fchmod(outfd, st.st_mode & 07777) == -1) {
		error_errno(cause, "couldn't chmod '%s'", to);
		goto out;
	}
	r = 0;
out:
	if (in != -1)
		close(in);
	if (outfd != -1)
		close(outfd);
	return r;
}

int
file_read_tail(const char *path, size_t max, char **out, size_t *outlen,
    char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	struct stat	 st;
	char		*nl;
	int		 fd, r = -1, cut = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		error_errno(cause, "couldn't open '%s'", path);
		goto out;
	}
	if ((size_t)st.st_size > max) {
		lseek(fd, st.st_size - (off_t)max, SEEK_SET);
		cut = 1;
	}
	if (fd_read_all(fd, &sb, max) != 0) {
		error_errno(cause, "couldn't read '%s'", path);
		goto out;
	}
	if (cut && (nl = memchr(sb.buf, '\n', sb.len)) != NULL) {
		*outlen = sb.len - (size_t)(nl + 1 - sb.buf);
		*out = xstrndup(nl + 1, *outlen);
	} else {
		*outlen = sb.len;
		*out = strbuf_detach(&sb, NULL);
	}
	r = 0;
out:
	if (fd != -1)
		close(fd);
	strbuf_release(&sb);
	return r;
}

void
file_tail_append(struct strbuf *sb, const char *path, size_t max)
{
	char	*buf = NULL;
	size_t	 len;

	if (file_read_tail(path, max, &buf, &len, NULL) != 0) {
		free(buf);
		return;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	if (len > 0)
		strbuf_addf(sb, "; %s: %s", path, buf);
	free(buf);
}

int
file_exists(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0;
}
