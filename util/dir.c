/*
 * Directories, and the one tree walker (util/dir.h). The walk reads each
 * directory with scandir in name order, so that what is built from a walk
 * (a hash of a tree, an archive) comes out the same on every machine.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/xalloc.h"

static int
dir_walk_level(const struct dir_walk *w, const char *dir, const char *rel,
    int depth, char **cause)
{
	struct dirent		**names = NULL;
	struct dir_walk_entry	  e;
	struct stat		  st;
	char			 *path = NULL, *sub = NULL;
	int			  n, i, v, r = -1;

	if ((n = scandir(dir, &names, NULL, alphasort)) == -1)
		return error_errno(cause, "couldn't read directory '%s'", dir);
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") == 0 ||
		    strcmp(names[i]->d_name, "..") == 0)
			continue;
		free(path);
		free(sub);
		path = path_join(dir, names[i]->d_name);
		sub = *rel != '\0' ? path_join(rel, names[i]->d_name) :
		    xstrdup(names[i]->d_name);
		if (lstat(path, &st) == -1) {
			error_errno(cause, "couldn't stat '%s'", path);
			goto out;
		}
		e.path = path;
		e.rel = sub;
		e.name = names[i]->d_name;
		e.st = &st;
		e.depth = depth;
		if (S_ISDIR(st.st_mode) && w->max_depth > 0 &&
		    depth + 1 > w->max_depth) {
			error_set(cause, "'%s' is nested too deep", path);
			goto out;
		}
		if ((v = w->visit(&e, w->arg, cause)) < 0)
			goto out;
		if (v == DIR_WALK_SKIP || !S_ISDIR(st.st_mode))
			continue;
		if (dir_walk_level(w, path, sub, depth + 1, cause) != 0)
			goto out;
		if (w->leave != NULL && w->leave(&e, w->arg, cause) != 0)
			goto out;
	}
	r = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(path);
	free(sub);
	return r;
}

int
dir_walk(const char *root, const struct dir_walk *w, char **cause)
{
	return dir_walk_level(w, root, "", 0, cause);
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

static int
dir_remove_visit(const struct dir_walk_entry *e, void *arg, char **cause)
{
	if (!S_ISDIR(e->st->st_mode) && unlink(e->path) == -1)
		return error_errno(cause, "couldn't remove '%s'", e->path);
	return 0;
}

static int
dir_remove_leave(const struct dir_walk_entry *e, void *arg, char **cause)
{
	if (rmdir(e->path) == -1)
		return error_errno(cause, "couldn't remove directory '%s'",
		    e->path);
	return 0;
}

int
dir_remove_tree(const char *path, char **cause)
{
	const struct dir_walk	w = {
		dir_remove_visit, dir_remove_leave, NULL, 0,
	};
	struct stat		st;

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
	if (dir_walk(path, &w, cause) != 0)
		return -1;
	if (rmdir(path) == -1)
		return error_errno(cause, "couldn't remove directory '%s'",
		    path);
	return 0;
}

/* One entry of a copy: from, a link or a file, at to. */
static int
dir_copy_one(const char *from, const struct stat *st, const char *to,
    char **cause)
{
	char	link[PATH_MAX];
	ssize_t	n;

	if (S_ISDIR(st->st_mode))
		return dir_create(to, cause);
	if (!S_ISLNK(st->st_mode))
		return file_copy(from, to, cause);
	if ((n = readlink(from, link, sizeof link - 1)) == -1)
		return error_errno(cause, "couldn't read link '%s'", from);
	link[n] = '\0';
	if (symlink(link, to) == -1)
		return error_errno(cause, "couldn't link '%s'", to);
	return 0;
}

static int
dir_copy_visit(const struct dir_walk_entry *e, void *arg, char **cause)
{
	char	*to = path_join(arg, e->rel);
	int	 r;

	r = dir_copy_one(e->path, e->st, to, cause);
	free(to);
	return r;
}

int
dir_copy_tree(const char *from, const char *to, char **cause)
{
	struct dir_walk	w = { dir_copy_visit, NULL, NULL, 0 };
	struct stat	st;

	if (lstat(from, &st) == -1)
		return error_errno(cause, "couldn't stat '%s'", from);
	if (dir_copy_one(from, &st, to, cause) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	w.arg = (void *)to;
	return dir_walk(from, &w, cause);
}
