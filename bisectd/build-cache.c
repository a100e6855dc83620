/*
 * The artifact cache: entries by repository, recipe and commit, filled
 * in a temporary directory and renamed into place once complete, stale
 * halves removed, and an entry's artifacts checked against their digest
 * (docs/design.md, "File notes", bisectd/build.c).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/build-cache.h"
#include "bisectd/build-kernel.h"
#include "bisectd/build.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

char *
build_cache_dir_recipe(const struct config_repo *cr, const char *workdir,
    const char *recipe, const char *oid)
{
	return xasprintf("%s/cache/%s/%s/%s", workdir, cr->name, recipe, oid);
}

char *
build_cache_dir(const struct config_repo *cr, const char *workdir,
    const char *oid)
{
	char	*recipe = build_recipe_id(cr), *dir;

	dir = build_cache_dir_recipe(cr, workdir, recipe, oid);
	free(recipe);
	return dir;
}

int
build_cache_complete(const char *cache)
{
	char	*marker = path_join(cache, BUILD_MARKER);
	int	 rv = file_exists(marker);

	free(marker);
	return rv;
}

/* Leftovers of builds of this entry that died before their rename. */
void
build_cache_remove_stale(const char *cache)
{
	char		*parent = path_dirname(cache), *prefix, *p;
	const char	*base = strrchr(cache, '/') + 1;
	struct dirent	*de;
	DIR		*d;

	if ((d = opendir(parent)) == NULL) {
		free(parent);
		return;
	}
	prefix = xasprintf("%s.tmp.", base);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		p = path_join(parent, de->d_name);
		dir_remove_tree(p, NULL);
		free(p);
	}
	closedir(d);
	free(prefix);
	free(parent);
}

static int
build_cache_copy_artifact(const struct build_paths *p, const char *a,
    int in_build, char **cause)
{
	struct stat	 st;
	char		*from = NULL, *to, *parent;
	int		 rv = -1;

	if (in_build)
		from = path_join(p->builddir, a);
	if (from == NULL || lstat(from, &st) == -1) {
		free(from);
		from = path_join(p->worktree, a);
		if (lstat(from, &st) == -1) {
			free(from);
			return 1;
		}
	}
	to = path_join(p->tmp, a);
	parent = path_dirname(to);
	if (dir_create(parent, cause) == 0 &&
	    dir_copy_tree(from, to, cause) == 0)
		rv = 0;
	free(parent);
	free(to);
	free(from);
	return rv;
}

/*
 * Fill the temporary entry, mark it complete, flush it and rename it into
 * place. Returns 1 with *missing set when an artifact is not there.
 */
int
build_cache_collect(const struct config_repo *cr, const struct build_paths *p,
    const char *oid, int kernel, char **missing, char **cause)
{
	char				*parent = path_dirname(p->cache);
	char				*s = NULL, *marker = NULL;
	char				*release = NULL;
	size_t				 i;
	int				 r, rv = -1;

	build_cache_remove_stale(p->cache);
	if (dir_create(parent, cause) != 0 || dir_create(p->tmp, cause) != 0)
		goto out;
	if (cr->nr_artifacts == 0) {
		if (dir_copy_tree(p->worktree, p->tmp, cause) != 0)
			goto out;
		s = path_join(p->tmp, ".bisectd-checkout");
		unlink(s);
		free(s);
		s = path_join(p->tmp, ".bisectd-index");
		unlink(s);
		free(s);
		s = NULL;
	}
	for (i = 0; i < cr->nr_artifacts; i++) {
		r = build_cache_copy_artifact(p, cr->artifacts[i],
		    cr->build_command != NULL, cause);
		if (r == 1) {
			*missing = xstrdup(cr->artifacts[i]);
			dir_remove_tree(p->tmp, NULL);
			rv = 1;
			goto out;
		}
		if (r != 0)
			goto out;
	}
	if (kernel) {
		s = path_join(p->builddir, BUILD_KERNEL_CONFIG);
		marker = path_join(p->tmp, BUILD_KERNEL_CONFIG);
		if (file_exists(s) && file_copy(s, marker, cause) != 0)
			goto out;
		free(s);
		free(marker);
		s = marker = NULL;
		if (build_kernel_keep_symbols(p->builddir, p->tmp, cause) != 0)
			goto out;
		release = build_kernel_release(p->builddir, p->worktree);
	}
	rv = build_cache_seal(cr, p, oid, release, cause);
out:
	if (rv == -1)
		dir_remove_tree(p->tmp, NULL);
	free(release);
	free(marker);
	free(s);
	free(parent);
	return rv;
}

/*
 * The artifacts in the temporary entry: hash them, mark the entry
 * complete, flush it and rename it into place (release: the kernel's, or
 * NULL).
 */
int
build_cache_seal(const struct config_repo *cr, const struct build_paths *p,
    const char *oid, const char *release, char **cause)
{
	struct build_kernel_meta	 meta;
	char				*parent = path_dirname(p->cache);
	char				*s = NULL, *marker = NULL;
	int				 fd, rv = -1;

	memset(&meta, 0, sizeof meta);
	meta.kernel_release = release != NULL ? xstrdup(release) : NULL;
	if (build_kernel_hash(cr, p->tmp, &meta.image_hash, cause) != 0 ||
	    build_kernel_hash_artifacts(p->tmp, &meta.artifacts_hash,
	    cause) != 0 ||
	    build_kernel_meta_write(p->tmp, &meta, cause) != 0)
		goto out;
	marker = path_join(p->tmp, BUILD_MARKER);
	s = xasprintf("%s %s\n", oid, p->recipe);
	if (file_write_atomic(marker, s, strlen(s), cause) != 0)
		goto out;
	if ((fd = open(p->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		syncfs(fd);
		close(fd);
	}
	if (rename(p->tmp, p->cache) == -1) {
		/* Another build of the same entry, or a half one to replace. */
		if (!build_cache_complete(p->cache) &&
		    (dir_remove_tree(p->cache, cause) != 0 ||
		    rename(p->tmp, p->cache) == -1)) {
			error_errno(cause, "couldn't rename '%s' to '%s'",
			    p->tmp, p->cache);
			goto out;
		}
		dir_remove_tree(p->tmp, NULL);
	}
	if ((fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(fd);
		close(fd);
	}
	rv = 0;
out:
	if (rv == -1)
		dir_remove_tree(p->tmp, NULL);
	build_kernel_meta_release(&meta);
	free(marker);
	free(s);
	free(parent);
	return rv;
}

int
build_cache_check_artifacts(const char *dir, const char *expected, char **cause)
{
	char	*got = NULL, *marker;
	int	 rv = -1;

	if (expected == NULL)
		return 0;
	if (build_kernel_hash_artifacts(dir, &got, cause) != 0) {
		error_prefix(cause, "checking the artifacts' digest");
		goto out;
	}
	if (strcmp(got, expected) != 0) {
		marker = path_join(dir, BUILD_MARKER);
		unlink(marker);
		free(marker);
		error_set(cause, "digest mismatch: the artifacts in '%s' have "
		    "sha256 %s, their build recorded %s: built again", dir,
		    got, expected);
		goto out;
	}
	rv = 0;
out:
	free(got);
	return rv;
}
