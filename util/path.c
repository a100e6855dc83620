/*
 * Paths as strings (util/path.h): nothing here touches the file system
 * but path_absolute's getcwd.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/path.h"
#include "util/xalloc.h"

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
