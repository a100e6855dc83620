/*
 * Unit tests for agents/initramfs.c: an archive read back entry by entry
 * with a small newc reader written here from the format's description
 * (magic, thirteen hex fields, name and data each padded to 4 bytes):
 * parents made before their children and once, modes with their types,
 * device numbers, symlink targets, file contents, a tree with skipped
 * paths, the running program with its libraries, and the trailer.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/initramfs.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct entry {
	char		*name;
	unsigned	 mode;
	unsigned	 rmajor;
	unsigned	 rminor;
	char		*data;
	size_t		 size;
};

static struct entry	entries[256];
static size_t		nr_entries;
static int		trailer_last;

static unsigned
hex8(const char *p)
{
	char	buf[9];

	memcpy(buf, p, 8);
	buf[8] = '\0';
	return (unsigned)strtoul(buf, NULL, 16);
}

static int
read_archive(const char *path)
{
	char	*buf = NULL;
	size_t	 len, off = 0, namesize, size;

	nr_entries = 0;
	trailer_last = 0;
	if (file_read(path, &buf, &len, NULL) != 0)
		return -1;
	while (off + 110 <= len && nr_entries < 256) {
		if (memcmp(buf + off, "070701", 6) != 0)
			break;
		size = hex8(buf + off + 54);
		namesize = hex8(buf + off + 94);
		entries[nr_entries].mode = hex8(buf + off + 14);
		entries[nr_entries].rmajor = hex8(buf + off + 78);
		entries[nr_entries].rminor = hex8(buf + off + 86);
		entries[nr_entries].name = xstrndup(buf + off + 110,
		    namesize - 1);
		off += (110 + namesize + 3) & ~(size_t)3;
		entries[nr_entries].data = xstrndup(buf + off, size);
		entries[nr_entries].size = size;
		off += (size + 3) & ~(size_t)3;
		if (strcmp(entries[nr_entries].name, "TRAILER!!!") == 0) {
			trailer_last = off == len;
			free(entries[nr_entries].name);
			free(entries[nr_entries].data);
			break;
		}
		nr_entries++;
	}
	free(buf);
	return 0;
}

static const struct entry *
find(const char *name, size_t *at)
{
	size_t	i;

	for (i = 0; i < nr_entries; i++) {
		if (strcmp(entries[i].name, name) == 0) {
			if (at != NULL)
				*at = i;
			return &entries[i];
		}
	}
	return NULL;
}

static size_t
count(const char *name)
{
	size_t	i, n = 0;

	for (i = 0; i < nr_entries; i++)
		n += strcmp(entries[i].name, name) == 0;
	return n;
}

static void
clear(void)
{
	size_t	i;

	for (i = 0; i < nr_entries; i++) {
		free(entries[i].name);
		free(entries[i].data);
	}
	nr_entries = 0;
}

int
main(void)
{
	char			 tmpl[] = "/tmp/bisectd-test-initramfs.XXXXXX";
	char			*dir, *cpio, *tree, *p, *cause = NULL;
	char			*loader = NULL;
	const char		*skip[] = { "big", "sub/skipme", NULL };
	const struct entry	*e;
	struct initramfs	*ir = NULL;
	size_t			 a, b;

	dir = mkdtemp(tmpl);
	cpio = path_join(dir, "initramfs.cpio");
	tree = path_join(dir, "tree");
	p = path_join(tree, "sub/skipme");
	dir_create(p, NULL);
	free(p);
	p = path_join(tree, "sub/file");
	file_write_atomic(p, "hello", 5, NULL);
	chmod(p, 0750);
	free(p);
	p = path_join(tree, "big");
	file_write_atomic(p, "skipped", 7, NULL);
	free(p);
	p = path_join(tree, "link");
	if (symlink("sub/file", p) != 0)
		diag("symlink failed");
	free(p);

	ok(initramfs_create(cpio, &ir, &cause) == 0, "create");
	ok(initramfs_data(ir, "a/b/c.txt", 0644, "abc", 3, &cause) == 0,
	    "a file two directories down");
	ok(initramfs_dir(ir, "a", 0700, &cause) == 0, "a made already");
	ok(initramfs_node(ir, "dev/ttyS1", S_IFCHR | 0600, 4, 65,
	    &cause) == 0, "a device node");
	ok(initramfs_node(ir, "dev/x", S_IFREG | 0600, 1, 1, &cause) == -1,
	    "a node must be a device");
	free(cause);
	cause = NULL;
	ok(initramfs_data(ir, "/abs", 0644, "", 0, &cause) == -1,
	    "absolute names refused");
	free(cause);
	cause = NULL;
	ok(initramfs_symlink(ir, "bin/sh", "busybox", &cause) == 0,
	    "a symlink");
	ok(initramfs_tree(ir, "work", tree, skip, &cause) == 0, "a tree");
	ok(initramfs_program(ir, "agent", "self", &loader, &cause) == 0,
	    "the running program: %s", cause ? cause : "");
	ok(initramfs_finish(ir, &cause) == 0, "finish");
	initramfs_free(ir);

	ok(read_archive(cpio) == 0, "read back");
	ok(trailer_last, "ends with the trailer");
	ok(find("a", &a) != NULL && find("a/b", &b) != NULL &&
	    find("a/b/c.txt", NULL) != NULL && a < b, "parents first");
	is_int(count("a"), 1, "each directory once");
	e = find("a", NULL);
	ok(e != NULL && e->mode == (S_IFDIR | 0755), "implied parents 0755");
	e = find("a/b/c.txt", NULL);
	ok(e != NULL && e->mode == (S_IFREG | 0644) && e->size == 3 &&
	    memcmp(e->data, "abc", 3) == 0, "file mode and contents");
	e = find("dev/ttyS1", NULL);
	ok(e != NULL && e->mode == (S_IFCHR | 0600) && e->rmajor == 4 &&
	    e->rminor == 65, "device 4:65");
	e = find("bin/sh", NULL);
	ok(e != NULL && S_ISLNK(e->mode) && strcmp(e->data, "busybox") == 0,
	    "symlink target");
	e = find("work/sub/file", NULL);
	ok(e != NULL && e->mode == (S_IFREG | 0750) &&
	    strcmp(e->data, "hello") == 0, "tree file keeps its mode");
	e = find("work/link", NULL);
	ok(e != NULL && S_ISLNK(e->mode) && strcmp(e->data, "sub/file") == 0,
	    "tree symlink");
	ok(find("work/big", NULL) == NULL &&
	    find("work/sub/skipme", NULL) == NULL, "skipped paths left out");
	e = find("agent/self", NULL);
	ok(e != NULL && e->size > 1000 && memcmp(e->data, "\177ELF", 4) == 0,
	    "the program itself");
	ok(loader != NULL && strncmp(loader, "ld-linux", 8) == 0,
	    "its loader: %s", loader ? loader : "(none)");
	p = loader != NULL ? xasprintf("agent/lib/%s", loader) : NULL;
	ok(p != NULL && find(p, NULL) != NULL, "loader in lib/");
	free(p);
	ok(find("agent/lib/libc.so.6", NULL) != NULL,
	    "libc under the name the loader wants");

	clear();
	free(loader);
	p = xasprintf("rm -rf '%s'", dir);
	if (system(p) != 0)
		diag("couldn't remove %s", dir);
	free(p);
	free(cpio);
	free(tree);
	return tap_done();
}
