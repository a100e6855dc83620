/*
 * The scheduler lock. flock(2) is released by the kernel when its holder
 * dies, even by SIGKILL, so a crashed scheduler never leaves a stale lock.
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/lock.h"
#include "util/error.h"

int
lock_try(const char *path, int *fd, char **cause)
{
	char	pid[32];
	int	f;

	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f == -1)
		return error_errno(cause, "couldn't open lock '%s'", path);
	if (flock(f, LOCK_EX | LOCK_NB) == -1) {
		close(f);
		if (errno == EWOULDBLOCK)
			return 1;
		return error_errno(cause, "couldn't lock '%s'", path);
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(f, 0) == 0 && write(f, pid, strlen(pid)) < 0) {
		/* the pid is informative only */
	}
	*fd = f;
	return 0;
}

void
lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
