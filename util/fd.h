/*
 * Reading and writing file descriptors whole: the loops that restart on
 * EINTR and go on after a short count, written once.
 */
#ifndef UTIL_FD_H
#define UTIL_FD_H

#include <stddef.h>
#include <sys/types.h>

struct strbuf;

/* One read(2), restarted on EINTR: the count, 0 at the end, or -1. */
ssize_t	 fd_read(int fd, void *buf, size_t len);
/*
 * Append what fd holds to sb, to its end or until sb holds at least max
 * bytes (a read may take it past max). 0, or -1 with errno.
 */
int	 fd_read_all(int fd, struct strbuf *sb, size_t max);
/* All of buf, restarted on EINTR and short counts: 0, or -1 with errno. */
int	 fd_write_all(int fd, const void *buf, size_t len);

#endif
