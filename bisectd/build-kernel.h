/*
 * The parts of a build that are about kernels and their reproducibility,
 * used by bisectd/build.c: the environment that makes two builds of the
 * same tree byte-identical, ccache, the compiler's identity for the
 * recipe, the hash of the built image, and the small metadata file each
 * cache entry carries.
 */
#ifndef BISECTD_BUILD_KERNEL_H
#define BISECTD_BUILD_KERNEL_H

#include <stddef.h>

#include "jobs/config.h"

#define BUILD_KERNEL_META	".bisectd-build"
#define BUILD_KERNEL_CCACHE	"/usr/lib/ccache"	/* compilers through ccache */
#define BUILD_KERNEL_CONFIG	".config"
#define BUILD_KERNEL_SYMBOLS	"System.map"
#define BUILD_KERNEL_MODDIR	"install"	/* INSTALL_MOD_PATH in BUILD_DIR */

/* What a cache entry records besides its artifacts. */
struct build_kernel_meta {
	char	*image_hash;
	char	*kernel_release;	/* NULL when not a kernel */
	char	*artifacts_hash;	/* every artifact: what a run gets */
};

/*
 * "K=V" entries for the build's environment, NULL-terminated and
 * allocated. An entry starting with '?' is a default: the inherited
 * environment wins; "-K" removes K. kernel: the recipe builds a kernel.
 */
char	**build_kernel_env(const char *workdir, const char *builddir,
	      int kernel);
void	  build_kernel_env_free(char **);
/* `gcc --version`'s first line, computed once per process. */
const char *build_kernel_compiler(void);
/*
 * sha256 of every file under dir (names, kinds and contents, in sorted
 * order, the entry's own files left out), whatever the recipe: two builds
 * with equal digests give a run the same thing (the bisection's test
 * points, docs/bisection.md). Returns 0 with *out set.
 */
int	  build_kernel_hash_artifacts(const char *dir, char **out,
	      char **cause);
/* The artifact that is the kernel image (bzImage, vmlinuz...), or NULL. */
const char *build_kernel_image(const struct config_repo *);
/*
 * sha256 of the kernel image inside dir, or when the recipe has none, of
 * every file under dir (names and contents, in sorted order, the entry's
 * own files left out). Returns 0 with *out set.
 */
int	  build_kernel_hash(const struct config_repo *, const char *dir,
	      char **out, char **cause);
/* The release in BUILD_DIR (or the tree): include/config/kernel.release. */
char	 *build_kernel_release(const char *builddir, const char *srcdir);
/*
 * BUILDDIR/System.map into dir, when the build made one and the recipe's
 * artifacts do not already hold it: the kernel's symbols, for perf report
 * on the runs' profiles (docs/monitors.md). 0, or -1 with *cause.
 */
int	  build_kernel_keep_symbols(const char *builddir, const char *dir,
	      char **cause);
int	  build_kernel_meta_write(const char *dir,
	      const struct build_kernel_meta *, char **cause);
/* 0 and m filled, or -1 when the file is missing or unreadable. */
int	  build_kernel_meta_read(const char *dir, struct build_kernel_meta *m);
void	  build_kernel_meta_release(struct build_kernel_meta *);

#endif
