/*
 * One scheduler per database: an advisory lock on a file next to it.
 */
#ifndef BISECTD_LOCK_H
#define BISECTD_LOCK_H

/* 0: acquired (*fd holds it), 1: another process holds it, -1: error. */
int	lock_try(const char *path, int *fd, char **cause);
void	lock_release(int fd);

#endif
