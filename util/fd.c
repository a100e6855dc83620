/*
 * File descriptors read and written whole (util/fd.h): a signal that
 * interrupts a read or a write restarts it, and a short write goes on
 * with the rest.
 */
#include <errno.h>
#include <unistd.h>

#include "util/fd.h"
#include "util/strbuf.h"

#define FD_CHUNK	65536

ssize_t
fd_read(int fd, void *buf, size_t len)
{
	ssize_t	n;

	do
		n = read(fd, buf, len);
	while (n == -1 && errno == EINTR);
	return n;
}

int
fd_read_all(int fd, struct strbuf *sb, size_t max)
{
	char	chunk[FD_CHUNK];
	ssize_t	n;

	while (sb->len < max) {
		if ((n = fd_read(fd, chunk, sizeof chunk)) == -1)
			return -1;
		if (n == 0)
			break;
		strbuf_add(sb, chunk, (size_t)n);
	}
	return 0;
}

int
fd_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
