/*
 * File system helpers shared by the daemon and the agent. Writes that other
 * processes may read concurrently go through a temporary file and rename, so
 * a reader sees the old contents or the new, never half of them.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int
file_read(const char *path, char **out, size_t *outlen, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		 chunk[65536];
	ssize_t		 n;
	int		 fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		error_errno(cause, "couldn't open '%s'", path);
		goto out;
	}
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			error_errno(cause, "couldn't read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		strbuf_add(&sb, chunk, (size_t)n);
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

static int
file_write_all(int fd, const void *data, size_t len)
{
	const char	*p = data;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
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
	if (file_write_all(fd, data, len) == -1 || fsync(fd) == -1) {
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
		n = read(in, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			error_errno(cause, "couldn't read '%s'", from);
			goto out;
		}
		if (n == 0)
			break;
		if (file_write_all(outfd, chunk, (size_t)n) == -1) {
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
	char		 chunk[65536], *nl;
	ssize_t		 n;
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
	while (sb.len < max) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			error_errno(cause, "couldn't read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		strbuf_add(&sb, chunk, (size_t)n);
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

int
dir_create(const char *path, char **cause)
{
	char	*copy = xstrdup(path), *p;
	int	 r = -1;

	for (p = copy + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) == -1 && errno != EEXIST) {
			error_errno(cause, "couldn't create directory '%s'",
			    copy);
			goto out;
		}
		*p = '/';
	}
	if (mkdir(copy, 0755) == -1 && errno != EEXIST) {
		error_errno(cause, "couldn't create directory '%s'", copy);
		goto out;
	}
	r = 0;
out:
	free(copy);
	return r;
}

int
dir_remove_tree(const char *path, char **cause)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d = NULL;
	char		*child;
	int		 r = -1;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		return error_errno(cause, "couldn't stat '%s'", path);
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) == -1)
			return error_errno(cause, "couldn't remove '%s'", path);
		return 0;
	}
	if ((d = opendir(path)) == NULL)
		return error_errno(cause, "couldn't open directory '%s'", path);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		child = path_join(path, de->d_name);
		r = dir_remove_tree(child, cause);
		free(child);
		if (r != 0)
			goto out;
	}
	if (rmdir(path) == -1) {
		error_errno(cause, "couldn't remove directory '%s'", path);
		r = -1;
		goto out;
	}
	r = 0;
out:
	closedir(d);
	return r;
}

int
dir_copy_tree(const char *from, const char *to, char **cause)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d = NULL;
	char		*a, *b, link[PATH_MAX];
	ssize_t		 n;
	int		 r = -1;

	if (lstat(from, &st) == -1)
		return error_errno(cause, "couldn't stat '%s'", from);
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlink(from, link, sizeof link - 1)) == -1)
			return error_errno(cause, "couldn't read link '%s'",
			    from);
		link[n] = '\0';
		if (symlink(link, to) == -1)
			return error_errno(cause, "couldn't link '%s'", to);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return file_copy(from, to, cause);
	if (dir_create(to, cause) != 0)
		return -1;
	if ((d = opendir(from)) == NULL)
		return error_errno(cause, "couldn't open directory '%s'", from);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		a = path_join(from, de->d_name);
		b = path_join(to, de->d_name);
		r = dir_copy_tree(a, b, cause);
		free(a);
		free(b);
		if (r != 0)
			goto out;
	}
	r = 0;
out:
	closedir(d);
	return r;
}

char *
path_join(const char *dir, const char *name)
{
	size_t	len = strlen(dir);

	if (name[0] == '/')
		return xstrdup(name);
	if (len > 0 && dir[len - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

char *
path_dirname(const char *path)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* An absolute form of path: relative paths are taken relative to base. */
char *
path_absolute(const char *path, const char *base)
{
	char	 cwd[PATH_MAX];

	if (path[0] == '/')
		return xstrdup(path);
	if (base != NULL && base[0] == '/')
		return path_join(base, path);
	if (getcwd(cwd, sizeof cwd) == NULL)
		return xstrdup(path);
	if (base != NULL) {
		char	*b = path_join(cwd, base), *r = path_join(b, path);

		free(b);
		return r;
	}
	return path_join(cwd, path);
}
