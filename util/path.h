/* Paths as strings: joined, their directory, made absolute. */
#ifndef UTIL_PATH_H
#define UTIL_PATH_H

/* dir/name; name itself when it is absolute. */
char	*path_join(const char *dir, const char *name);
char	*path_dirname(const char *path);
/* An absolute form of path: relative paths are taken relative to base. */
char	*path_absolute(const char *path, const char *base);

#endif
