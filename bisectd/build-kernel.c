/*
 * Kernel builds that can be compared: Kbuild's date, user, host, version
 * counter and local version are fixed, so that two builds of one tree give
 * the same bzImage and an image identical to its parent's shows that a
 * commit cannot have changed what ran; ccache comes first in PATH. The
 * details are in docs/design.md, "File notes".
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/build-kernel.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define BUILD_KERNEL_MARKER	".complete"

static const char *build_kernel_images[] = {
	"bzImage", "vmlinuz", "vmlinux", "Image", "Image.gz", "zImage",
};

static void
build_kernel_env_push(char ***env, size_t *nr, size_t *alloc, char *entry)
{
	ALLOC_GROW(*env, *nr + 2, *alloc);
	(*env)[(*nr)++] = entry;
	(*env)[*nr] = NULL;
}

char **
build_kernel_env(const char *workdir, const char *builddir, int kernel)
{
	const char	*v = getenv("BISECTD_CCACHE"), *path = getenv("PATH");
	char		**env = NULL, *dir;
	size_t		  nr = 0, alloc = 0;

	dir = path_join(BUILD_KERNEL_CCACHE, "gcc");
	if ((v == NULL || strcmp(v, "0") != 0) && access(dir, X_OK) == 0) {
		if (path == NULL)
			path = "/usr/bin:/bin";
		if (strncmp(path, BUILD_KERNEL_CCACHE ":",
		    strlen(BUILD_KERNEL_CCACHE) + 1) != 0)
			build_kernel_env_push(&env, &nr, &alloc, xasprintf(
			    "PATH=%s:%s", BUILD_KERNEL_CCACHE, path));
		build_kernel_env_push(&env, &nr, &alloc,
		    xasprintf("?CCACHE_DIR=%s/ccache", workdir));
		/*
		 * Paths under the slots are hashed relative to the build's
		 * directory, and the directory itself not, so that one
		 * slot's objects are hits in another's.
		 */
		build_kernel_env_push(&env, &nr, &alloc,
		    xasprintf("?CCACHE_BASEDIR=%s/slots", workdir));
		build_kernel_env_push(&env, &nr, &alloc,
		    xstrdup("?CCACHE_NOHASHDIR=1"));
	}
	free(dir);
	if (kernel) {
		build_kernel_env_push(&env, &nr, &alloc, xstrdup(
		    "?KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970"));
		build_kernel_env_push(&env, &nr, &alloc,
		    xstrdup("?KBUILD_BUILD_USER=bisectd"));
		build_kernel_env_push(&env, &nr, &alloc,
		    xstrdup("?KBUILD_BUILD_HOST=bisectd"));
		build_kernel_env_push(&env, &nr, &alloc,
		    xstrdup("?KBUILD_BUILD_VERSION=1"));
		/*
		 * setlocalversion appends "-gSHA" (LOCALVERSION_AUTO) or "+"
		 * (LOCALVERSION unset) when git finds a repository at the
		 * tree's top: the worktree has no .git, GIT_DIR and
		 * GIT_WORK_TREE could point it at one, and an empty
		 * LOCALVERSION drops the "+".
		 */
		build_kernel_env_push(&env, &nr, &alloc,
		    xstrdup("?LOCALVERSION="));
		build_kernel_env_push(&env, &nr, &alloc, xstrdup("-GIT_DIR"));
		build_kernel_env_push(&env, &nr, &alloc,
		    xstrdup("-GIT_WORK_TREE"));
		build_kernel_env_push(&env, &nr, &alloc, xasprintf(
		    "GIT_CEILING_DIRECTORIES=%s/slots", workdir));
		build_kernel_env_push(&env, &nr, &alloc, xasprintf(
		    "INSTALL_MOD_PATH=%s/%s", builddir, BUILD_KERNEL_MODDIR));
	}
	if (env == NULL)
		env = xcalloc(1, sizeof *env);
	return env;
}

void
build_kernel_env_free(char **env)
{
	size_t	i;

	for (i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

const char *
build_kernel_compiler(void)
{
	static char	*id;
	char		 line[512], rest[512];
	FILE		*f;

	if (id != NULL)
		return id;
	line[0] = '\0';
	if ((f = popen("gcc --version 2>/dev/null", "r")) != NULL) {
		if (fgets(line, sizeof line, f) == NULL)
			line[0] = '\0';
		while (fgets(rest, sizeof rest, f) != NULL)
			;
		pclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	id = xstrdup(line[0] != '\0' ? line : "none");
	return id;
}

const char *
build_kernel_image(const struct config_repo *cr)
{
	const char	*base;
	size_t		 i, j;

	for (i = 0; i < cr->nr_artifacts; i++) {
		base = strrchr(cr->artifacts[i], '/');
		base = base != NULL ? base + 1 : cr->artifacts[i];
		for (j = 0; j < sizeof build_kernel_images /
		    sizeof build_kernel_images[0]; j++) {
			if (strcmp(base, build_kernel_images[j]) == 0)
				return cr->artifacts[i];
		}
	}
	return NULL;
}

/* Names, kinds and contents, depth first in sorted order. */
static int
build_kernel_hash_visit(const struct dir_walk_entry *e, void *arg,
    char **cause)
{
	struct hash	*h = arg;
	char		*target;
	ssize_t		 len;

	if (e->depth == 0 && (strcmp(e->name, BUILD_KERNEL_META) == 0 ||
	    strcmp(e->name, BUILD_KERNEL_MARKER) == 0))
		return DIR_WALK_SKIP;
	hash_update(h, e->rel, strlen(e->rel) + 1);
	if (S_ISDIR(e->st->st_mode)) {
		hash_update(h, "d", 2);
		return 0;
	}
	if (S_ISLNK(e->st->st_mode)) {
		target = xmalloc((size_t)e->st->st_size + 1);
		len = readlink(e->path, target, (size_t)e->st->st_size + 1);
		if (len < 0) {
			free(target);
			return error_errno(cause, "couldn't read '%s'",
			    e->path);
		}
		hash_update(h, "l", 2);
		hash_update(h, target, (size_t)len);
		free(target);
		return 0;
	}
	hash_update(h, e->st->st_mode & 0111 ? "x" : "f", 2);
	return hash_file(h, e->path, 0, cause);
}

static int
build_kernel_hash_tree(struct hash *h, const char *dir, char **cause)
{
	const struct dir_walk	w = { build_kernel_hash_visit, NULL, h, 0 };

	return dir_walk(dir, &w, cause);
}

int
build_kernel_hash_artifacts(const char *dir, char **out, char **cause)
{
	struct hash	*h = hash_new();
	char		 hex[HASH_HEX_LEN + 1];

	if (build_kernel_hash_tree(h, dir, cause) != 0) {
		hash_free(h);
		return -1;
	}
	hash_finish(h, hex);
	*out = xstrdup(hex);
	return 0;
}

int
build_kernel_hash(const struct config_repo *cr, const char *dir, char **out,
    char **cause)
{
	struct hash	*h = hash_new();
	const char	*image = build_kernel_image(cr);
	char		*path = NULL, hex[HASH_HEX_LEN + 1];
	int		 r = -1;

	if (image != NULL) {
		path = path_join(dir, image);
		if (hash_file(h, path, 0, cause) != 0)
			goto out;
	} else if (build_kernel_hash_tree(h, dir, cause) != 0)
		goto out;
	hash_finish(h, hex);
	h = NULL;
	*out = xstrdup(hex);
	r = 0;
out:
	hash_free(h);
	free(path);
	return r;
}

int
build_kernel_keep_symbols(const char *builddir, const char *dir,
    char **cause)
{
	char	*from = path_join(builddir, BUILD_KERNEL_SYMBOLS);
	char	*to = path_join(dir, BUILD_KERNEL_SYMBOLS);
	int	 r = 0;

	if (file_exists(from) && !file_exists(to))
		r = file_copy(from, to, cause);
	free(from);
	free(to);
	return r;
}

char *
build_kernel_release(const char *builddir, const char *srcdir)
{
	const char	*dirs[] = { builddir, srcdir };
	char		*path, *buf = NULL;
	size_t		 len, i;

	for (i = 0; i < 2; i++) {
		path = path_join(dirs[i], "include/config/kernel.release");
		if (file_read(path, &buf, &len, NULL) == 0) {
			free(path);
			buf[strcspn(buf, "\n")] = '\0';
			if (*buf != '\0')
				return buf;
			free(buf);
			return NULL;
		}
		free(path);
	}
	return NULL;
}

int
build_kernel_meta_write(const char *dir, const struct build_kernel_meta *m,
    char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*path = path_join(dir, BUILD_KERNEL_META);
	int		 r;

	if (m->image_hash != NULL)
		strbuf_addf(&sb, "image_hash %s\n", m->image_hash);
	if (m->kernel_release != NULL)
		strbuf_addf(&sb, "kernel_release %s\n", m->kernel_release);
	if (m->artifacts_hash != NULL)
		strbuf_addf(&sb, "artifacts_hash %s\n", m->artifacts_hash);
	r = file_write_atomic(path, sb.buf != NULL ? sb.buf : "", sb.len,
	    cause);
	strbuf_release(&sb);
	free(path);
	return r;
}

int
build_kernel_meta_read(const char *dir, struct build_kernel_meta *m)
{
	char	*path = path_join(dir, BUILD_KERNEL_META), *buf = NULL;
	char	*line, *next, *sp;
	size_t	 len;

	memset(m, 0, sizeof *m);
	if (file_read(path, &buf, &len, NULL) != 0) {
		free(path);
		return -1;
	}
	free(path);
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		*sp++ = '\0';
		if (strcmp(line, "image_hash") == 0 && m->image_hash == NULL)
			m->image_hash = xstrdup(sp);
		else if (strcmp(line, "kernel_release") == 0 &&
		    m->kernel_release == NULL)
			m->kernel_release = xstrdup(sp);
		else if (strcmp(line, "artifacts_hash") == 0 &&
		    m->artifacts_hash == NULL)
			m->artifacts_hash = xstrdup(sp);
	}
	free(buf);
	return 0;
}

void
build_kernel_meta_release(struct build_kernel_meta *m)
{
	if (m == NULL)
		return;
	free(m->image_hash);
	free(m->kernel_release);
	free(m->artifacts_hash);
	memset(m, 0, sizeof *m);
}
