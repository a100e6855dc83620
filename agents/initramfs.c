/*
 * A newc cpio writer for the initramfs the qemu boot method gives the
 * kernel. Each entry is a 110-byte ASCII header (magic 070701, then
 * thirteen 8-digit hex fields), the name with its NUL padded to 4 bytes,
 * and the data padded to 4 bytes; "TRAILER!!!" ends the archive. Times are
 * 0 and owners root, so that the archive depends only on its contents.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/initramfs.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

#define INITRAMFS_MAGIC		"070701"
#define INITRAMFS_TRAILER	"TRAILER!!!"

struct initramfs {
	char		 *path;
	FILE		 *f;
	unsigned	  ino;
	char		**dirs;		/* made so far */
	size_t		  nr_dirs;
	size_t		  alloc_dirs;
	int		  failed;	/* a write failed: errno in err */
	int		  err;
};

int
initramfs_create(const char *path, struct initramfs **out, char **cause)
{
	struct initramfs	*ir;
	FILE			*f;

	if ((f = fopen(path, "we")) == NULL)
		return error_errno(cause, "couldn't create '%s'", path);
	ir = xcalloc(1, sizeof *ir);
	ir->path = xstrdup(path);
	ir->f = f;
	ir->ino = 1;
	*out = ir;
	return 0;
}

void
initramfs_free(struct initramfs *ir)
{
	size_t	i;

	if (ir == NULL)
		return;
	if (ir->f != NULL)
		fclose(ir->f);
	for (i = 0; i < ir->nr_dirs; i++)
		free(ir->dirs[i]);
	free(ir->dirs);
	free(ir->path);
	free(ir);
}

static void
initramfs_write(struct initramfs *ir, const void *p, size_t len)
{
	if (ir->failed || len == 0)
		return;
	if (fwrite(p, 1, len, ir->f) != len) {
		ir->failed = 1;
		ir->err = errno;
	}
}

static void
initramfs_pad(struct initramfs *ir, size_t len)
{
	static const char	zero[4];

	if (len % 4 != 0)
		initramfs_write(ir, zero, 4 - len % 4);
}

static int
initramfs_check(struct initramfs *ir, char **cause)
{
	if (!ir->failed)
		return 0;
	errno = ir->err;
	return error_errno(cause, "couldn't write '%s'", ir->path);
}

static int
initramfs_name_valid(const char *name)
{
	return *name != '\0' && *name != '/' && strlen(name) < 4096 &&
	    name[strlen(name) - 1] != '/';
}

static void
initramfs_header(struct initramfs *ir, const char *name, unsigned mode,
    size_t size, unsigned major, unsigned minor)
{
	char	hdr[111];
	size_t	namesize = strlen(name) + 1;

	snprintf(hdr, sizeof hdr, "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X"
	    "%08X%08X%08X%08X", INITRAMFS_MAGIC, ir->ino++, mode, 0U, 0U,
	    S_ISDIR(mode) ? 2U : 1U, 0U, (unsigned)size, 0U, 0U, major, minor,
	    (unsigned)namesize, 0U);
	initramfs_write(ir, hdr, 110);
	initramfs_write(ir, name, namesize);
	initramfs_pad(ir, 110 + namesize);
}

static int
initramfs_has_dir(const struct initramfs *ir, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < ir->nr_dirs; i++) {
		if (strlen(ir->dirs[i]) == len &&
		    strncmp(ir->dirs[i], name, len) == 0)
			return 1;
	}
	return 0;
}

/* The directories above name that are not in the archive yet. */
static void
initramfs_parents(struct initramfs *ir, const char *name)
{
	const char	*p;
	char		*dir;

	for (p = strchr(name, '/'); p != NULL; p = strchr(p + 1, '/')) {
		if (initramfs_has_dir(ir, name, (size_t)(p - name)))
			continue;
		dir = xstrndup(name, (size_t)(p - name));
		initramfs_header(ir, dir, S_IFDIR | 0755, 0, 0, 0);
		ALLOC_GROW(ir->dirs, ir->nr_dirs + 1, ir->alloc_dirs);
		ir->dirs[ir->nr_dirs++] = dir;
	}
}

static int
initramfs_begin(struct initramfs *ir, const char *name, char **cause)
{
	if (!initramfs_name_valid(name))
		return error_set(cause, "bad initramfs entry name '%s'", name);
	initramfs_parents(ir, name);
	return 0;
}

int
initramfs_dir(struct initramfs *ir, const char *name, unsigned mode,
    char **cause)
{
	if (initramfs_begin(ir, name, cause) != 0)
		return -1;
	if (initramfs_has_dir(ir, name, strlen(name)))
		return 0;
	initramfs_header(ir, name, S_IFDIR | (mode & 07777), 0, 0, 0);
	ALLOC_GROW(ir->dirs, ir->nr_dirs + 1, ir->alloc_dirs);
	ir->dirs[ir->nr_dirs++] = xstrdup(name);
	return initramfs_check(ir, cause);
}

int
initramfs_data(struct initramfs *ir, const char *name, unsigned mode,
    const void *data, size_t len, char **cause)
{
	if (len > 0xffffffffUL)
		return error_set(cause, "initramfs entry '%s' is too large",
		    name);
	if (initramfs_begin(ir, name, cause) != 0)
		return -1;
	initramfs_header(ir, name, S_IFREG | (mode & 07777), len, 0, 0);
	initramfs_write(ir, data, len);
	initramfs_pad(ir, len);
	return initramfs_check(ir, cause);
}

int
initramfs_file(struct initramfs *ir, const char *name, unsigned mode,
    const char *from, char **cause)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len;
	int		 r;

	if (stat(from, &st) == -1)
		return error_errno(cause, "couldn't stat '%s'", from);
	if (!S_ISREG(st.st_mode))
		return error_set(cause, "'%s' is not a regular file", from);
	if (file_read(from, &buf, &len, cause) != 0)
		return -1;
	r = initramfs_data(ir, name, mode != 0 ? mode : st.st_mode & 07777,
	    buf, len, cause);
	free(buf);
	return r;
}

int
initramfs_symlink(struct initramfs *ir, const char *name, const char *target,
    char **cause)
{
	size_t	len = strlen(target);

	if (initramfs_begin(ir, name, cause) != 0)
		return -1;
	initramfs_header(ir, name, S_IFLNK | 0777, len, 0, 0);
	initramfs_write(ir, target, len);
	initramfs_pad(ir, len);
	return initramfs_check(ir, cause);
}

int
initramfs_node(struct initramfs *ir, const char *name, unsigned mode,
    unsigned major, unsigned minor, char **cause)
{
	if (!S_ISCHR(mode) && !S_ISBLK(mode))
		return error_set(cause, "'%s' is not a device node", name);
	if (initramfs_begin(ir, name, cause) != 0)
		return -1;
	initramfs_header(ir, name, mode, 0, major, minor);
	return initramfs_check(ir, cause);
}

static int
initramfs_skipped(const char *const *skip, const char *rel)
{
	for (; skip != NULL && *skip != NULL; skip++) {
		if (strcmp(*skip, rel) == 0)
			return 1;
	}
	return 0;
}

static int
initramfs_walk(struct initramfs *ir, const char *name, const char *from,
    const char *rel, const char *const *skip, char **cause)
{
	struct dirent	**ents = NULL;
	struct stat	  st;
	char		 *path = NULL, *entry = NULL, *sub = NULL;
	char		  target[4096];
	ssize_t		  len;
	int		  n, i, r = -1;

	if ((n = scandir(from, &ents, NULL, alphasort)) == -1)
		return error_errno(cause, "couldn't read '%s'", from);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") == 0 ||
		    strcmp(ents[i]->d_name, "..") == 0)
			continue;
		free(path);
		free(entry);
		free(sub);
		path = path_join(from, ents[i]->d_name);
		entry = path_join(name, ents[i]->d_name);
		sub = *rel == '\0' ? xstrdup(ents[i]->d_name) :
		    path_join(rel, ents[i]->d_name);
		if (initramfs_skipped(skip, sub))
			continue;
		if (lstat(path, &st) == -1) {
			error_errno(cause, "couldn't stat '%s'", path);
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			if (initramfs_dir(ir, entry, st.st_mode, cause) != 0 ||
			    initramfs_walk(ir, entry, path, sub, skip,
			    cause) != 0)
				goto out;
		} else if (S_ISLNK(st.st_mode)) {
			len = readlink(path, target, sizeof target - 1);
			if (len < 0) {
				error_errno(cause, "couldn't read '%s'", path);
				goto out;
			}
			target[len] = '\0';
			if (initramfs_symlink(ir, entry, target, cause) != 0)
				goto out;
		} else if (S_ISREG(st.st_mode)) {
			if (initramfs_file(ir, entry, 0, path, cause) != 0)
				goto out;
		}
	}
	r = 0;
out:
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	free(path);
	free(entry);
	free(sub);
	return r;
}

int
initramfs_tree(struct initramfs *ir, const char *name, const char *from,
    const char *const *skip, char **cause)
{
	if (initramfs_dir(ir, name, 0755, cause) != 0)
		return -1;
	return initramfs_walk(ir, name, from, "", skip, cause);
}

struct initramfs_objects {
	char	**paths;		/* as the loader opened them */
	size_t	  nr;
	size_t	  alloc;
	char	 *interp;		/* PT_INTERP of the program */
};

static int
initramfs_object(struct dl_phdr_info *info, size_t size, void *payload)
{
	struct initramfs_objects	*o = payload;
	int				 i;

	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') {
		for (i = 0; i < info->dlpi_phnum; i++) {
			if (info->dlpi_phdr[i].p_type == PT_INTERP &&
			    o->interp == NULL)
				o->interp = xstrdup((const char *)
				    (info->dlpi_addr +
				    info->dlpi_phdr[i].p_vaddr));
		}
		return 0;
	}
	if (info->dlpi_name[0] != '/')
		return 0;		/* the vDSO */
	ALLOC_GROW(o->paths, o->nr + 1, o->alloc);
	o->paths[o->nr++] = xstrdup(info->dlpi_name);
	return 0;
}

static const char *
initramfs_base(const char *path)
{
	const char	*b = strrchr(path, '/');

	return b != NULL ? b + 1 : path;
}

int
initramfs_program(struct initramfs *ir, const char *dir, const char *name,
    char **loader, char **cause)
{
	struct initramfs_objects	 o;
	char				*entry = NULL, *lib = NULL;
	size_t				 i;
	int				 r = -1, have_interp = 0;

	memset(&o, 0, sizeof o);
	dl_iterate_phdr(initramfs_object, &o);
	entry = path_join(dir, name);
	if (initramfs_file(ir, entry, 0755, "/proc/self/exe", cause) != 0)
		goto out;
	lib = path_join(dir, "lib");
	if (initramfs_dir(ir, lib, 0755, cause) != 0)
		goto out;
	for (i = 0; i < o.nr; i++) {
		free(entry);
		entry = path_join(lib, initramfs_base(o.paths[i]));
		if (o.interp != NULL && strcmp(initramfs_base(o.paths[i]),
		    initramfs_base(o.interp)) == 0)
			have_interp = 1;
		if (initramfs_file(ir, entry, 0755, o.paths[i], cause) != 0)
			goto out;
	}
	if (o.interp != NULL && !have_interp) {
		free(entry);
		entry = path_join(lib, initramfs_base(o.interp));
		if (initramfs_file(ir, entry, 0755, o.interp, cause) != 0)
			goto out;
	}
	*loader = o.interp != NULL ? xstrdup(initramfs_base(o.interp)) : NULL;
	r = 0;
out:
	for (i = 0; i < o.nr; i++)
		free(o.paths[i]);
	free(o.paths);
	free(o.interp);
	free(entry);
	free(lib);
	return r;
}

/* "/lib/x/libm.so.6" as "lib/x/libm.so.6"; NULL for a relative path. */
static const char *
initramfs_host_name(const char *path)
{
	if (*path != '/')
		return NULL;
	while (*path == '/')
		path++;
	return path;
}

int
initramfs_host_program(struct initramfs *ir, const char *path,
    const char *ldd, char **cause)
{
	const char	*line, *end, *p, *name;
	char		*lib = NULL, *what = NULL;
	size_t		 len;
	int		 r = -1;

	if ((name = initramfs_host_name(path)) == NULL)
		return error_set(cause, "'%s' is not an absolute path", path);
	if (initramfs_file(ir, name, 0755, path, cause) != 0)
		return -1;
	for (line = ldd; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		len = (size_t)(end - line);
		free(lib);
		free(what);
		lib = what = NULL;
		while (len > 0 && (*line == ' ' || *line == '\t')) {
			line++;
			len--;
		}
		if (len == 0)
			continue;
		/* "NAME => PATH (ADDR)", "PATH (ADDR)" or "NAME (ADDR)" */
		if ((p = memmem(line, len, " => ", 4)) != NULL) {
			what = xstrndup(line, (size_t)(p - line));
			len -= (size_t)(p + 4 - line);
			line = p + 4;
		}
		lib = xstrndup(line, strcspn(line, " \n"));
		if (strncmp(lib, "not", 3) == 0 && what != NULL) {
			error_set(cause, "'%s' needs '%s', which the loader does "
			    "not find", path, what);
			goto out;
		}
		if (*lib != '/')
			continue;	/* the vDSO: the kernel's */
		if (initramfs_file(ir, initramfs_host_name(lib), 0755, lib,
		    cause) != 0)
			goto out;
	}
	r = 0;
out:
	free(lib);
	free(what);
	return r;
}

int
initramfs_finish(struct initramfs *ir, char **cause)
{
	FILE	*f = ir->f;

	initramfs_header(ir, INITRAMFS_TRAILER, 0, 0, 0, 0);
	initramfs_pad(ir, 0);
	if (initramfs_check(ir, cause) != 0)
		return -1;
	ir->f = NULL;
	if (fflush(f) != 0 || ferror(f)) {
		fclose(f);
		return error_errno(cause, "couldn't write '%s'", ir->path);
	}
	if (fclose(f) != 0)
		return error_errno(cause, "couldn't close '%s'", ir->path);
	return 0;
}
