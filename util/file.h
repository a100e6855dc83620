/*
 * Files: whole-file reads, atomic writes (write a temporary, fsync,
 * rename), copies, tails. All return 0 or -1 with *cause set. The
 * directories (util/dir.h) and paths (util/path.h) come along with it.
 */
#ifndef UTIL_FILE_H
#define UTIL_FILE_H

#include <stddef.h>

#include "util/dir.h"
#include "util/path.h"

struct strbuf;

int	 file_read(const char *path, char **out, size_t *outlen, char **cause);
int	 file_write_atomic(const char *path, const void *, size_t, char **cause);
int	 file_copy(const char *from, const char *to, char **cause);
int	 file_exists(const char *path);
/*
 * At most max bytes from the end of a file, from a line start (the whole
 * file when it is no longer); only that much is read.
 */
int	 file_read_tail(const char *path, size_t max, char **out,
	     size_t *outlen, char **cause);
/* Append "; PATH: <its last max bytes, from a line start>" for a cause. */
void	 file_tail_append(struct strbuf *, const char *path, size_t max);

#endif
