/*
 * The kernel side of build rows (migration 0005): the job's kconfig
 * fragment a build is queued with, and the image hash and kernel release
 * the build made, with the question the report asks of them: did a commit
 * change the kernel at all?
 */
#ifndef SCHEMA_STORE_KERNEL_H
#define SCHEMA_STORE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "schema/store.h"

struct store_kernel_build {
	char	*kconfig;		/* NULL: no fragment */
	char	*image_hash;		/* NULL until built */
	char	*kernel_release;	/* NULL: not a kernel, or not built */
	char	*artifacts_hash;	/* every artifact's digest (0007) */
};

/* Set once after store_build_ensure, by whoever queues the build. */
int	 store_kernel_set_kconfig(struct store *, int64_t build,
	     const char *fragment, char **cause);
/* After build_run succeeded. */
int	 store_kernel_finish(struct store *, int64_t build,
	     const char *image_hash, const char *kernel_release,
	     char **cause);
/* After build_run succeeded: the digest of every artifact (0007). */
int	 store_kernel_set_artifacts(struct store *, int64_t build,
	     const char *artifacts_hash, char **cause);
/*
 * A build's end in one transaction, so that no reader sees it ok without
 * its digests (a bisection would take it for an image of its own) and no
 * crash leaves it so: its status and log, and when ok its image, release
 * and artifacts' digests, when failed its runs skipped as untestable.
 */
struct store_kernel_end {
	int		 ok;
	const char	*artifact_dir;
	const char	*log_path;
	const char	*log_tail;
	double		 seconds;
	const char	*image_hash;		/* ok */
	const char	*kernel_release;	/* ok; NULL: not a kernel */
	const char	*artifacts_hash;	/* ok */
	const char	*repo;			/* failed: whose runs skip */
	const char	*oid;
	const char	*recipe;
};
int	 store_kernel_end(struct store *, int64_t build,
	     const struct store_kernel_end *, char **cause);
int	 store_kernel_get(struct store *, int64_t build,
	     struct store_kernel_build *out, char **cause);
/*
 * 1 when the builds of oid_a and oid_b in (repo, recipe) both finished ok
 * with the same image hash, 0 when they differ or one is missing.
 */
int	 store_kernel_same_image(struct store *, const char *repo,
	     const char *recipe, const char *oid_a, const char *oid_b,
	     char **cause);
/*
 * Every build of (repo, recipe), ordered by commit: its status and the
 * digest of all its artifacts, as image_hash (NULL until built, or for
 * builds older than migration 0007). The bisection reads its range's test
 * points from it in one query.
 */
struct store_kernel_image {
	char	*commit_oid;
	enum store_build_status status;
	char	*image_hash;
};
int	 store_kernel_images(struct store *, const char *repo,
	     const char *recipe, struct store_kernel_image **out, size_t *nr,
	     char **cause);
void	 store_kernel_images_free(struct store_kernel_image *, size_t nr);
void	 store_kernel_build_release(struct store_kernel_build *);

#endif
