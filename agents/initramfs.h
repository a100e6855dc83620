/*
 * Writing an initramfs: a cpio archive in the "newc" format the kernel
 * unpacks into its root file system at boot (the kernel's
 * Documentation/driver-api/early-userspace/buffer-format.rst). Written
 * directly, so that device nodes need no root and no cpio(1) is needed.
 * Entries are made in the order given; missing parent directories are
 * added first, as the kernel does not create them.
 */
#ifndef AGENTS_INITRAMFS_H
#define AGENTS_INITRAMFS_H

#include <stddef.h>

struct initramfs;

/* Names are paths inside the archive, without a leading '/'. */
int	initramfs_create(const char *path, struct initramfs **out,
	    char **cause);
int	initramfs_dir(struct initramfs *, const char *name, unsigned mode,
	    char **cause);
int	initramfs_data(struct initramfs *, const char *name, unsigned mode,
	    const void *, size_t, char **cause);
/* A host file's contents (symlinks followed); mode 0: the file's own. */
int	initramfs_file(struct initramfs *, const char *name, unsigned mode,
	    const char *from, char **cause);
int	initramfs_symlink(struct initramfs *, const char *name,
	    const char *target, char **cause);
/* mode with its type: S_IFCHR | 0600. */
int	initramfs_node(struct initramfs *, const char *name, unsigned mode,
	    unsigned major, unsigned minor, char **cause);
/*
 * A host directory's tree under name, in sorted order; the relative paths
 * in skip (NULL-terminated, may be NULL) are left out with what is below
 * them.
 */
int	initramfs_tree(struct initramfs *, const char *name, const char *from,
	    const char *const *skip, char **cause);
/*
 * The running program as DIR/NAME, with the shared objects it has loaded
 * in DIR/lib under the names the dynamic loader looked for, so that
 * "DIR/lib/LOADER --library-path DIR/lib DIR/NAME" runs it on a machine
 * that has none of them. *loader is the loader's file name, or NULL for
 * a static program. Allocated.
 */
int	initramfs_program(struct initramfs *, const char *dir,
	    const char *name, char **loader, char **cause);
/*
 * A host program at its own path (/usr/bin/perf as usr/bin/perf), with
 * the shared objects and the loader that ldd's output (ldd, "NAME =>
 * PATH (ADDR)" lines) names, each at the path ldd found it at, so that
 * the program runs in the guest as it does here, without a loader
 * command line (it may exec itself). A library ldd did not find is an
 * error.
 */
int	initramfs_host_program(struct initramfs *, const char *path,
	    const char *ldd, char **cause);
/* The trailer; the archive is complete and closed. */
int	initramfs_finish(struct initramfs *, char **cause);
void	initramfs_free(struct initramfs *);

#endif
