/*
 * Files and paths: whole-file reads, atomic writes (write a temporary, fsync,
 * rename), recursive mkdir/remove/copy. All return 0 or -1 with *cause set.
 */
#ifndef UTIL_FILE_H
#define UTIL_FILE_H

#include <stddef.h>

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
int	 dir_create(const char *path, char **cause);
int	 dir_remove_tree(const char *path, char **cause);
int	 dir_copy_tree(const char *from, const char *to, char **cause);
char	*path_join(const char *dir, const char *name);
char	*path_dirname(const char *path);
char	*path_absolute(const char *path, const char *base);

#endif
