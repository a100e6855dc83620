/*
 * Building a commit: check it out into the repository's persistent
 * worktree, run the recipe's command there, and copy the artifacts into a
 * cache keyed by commit and recipe, so that each commit is built once.
 * Kernel recipes get their .config, reproducible settings and their
 * image's hash (docs/kernel.md; docs/design.md, "File notes").
 */
#ifndef BISECTD_BUILD_H
#define BISECTD_BUILD_H

#include "bisectd/repo.h"
#include "jobs/config.h"

enum build_outcome {
	BUILD_OK = 0,
	BUILD_FAILED,			/* the command failed: untestable */
};

struct build_request {
	const struct config_repo	*repo;
	const char			*oid;
	const char			*workdir;	/* config workdir */
	int				 slots;		/* build_slots; 0: 1 */
	const struct config_agent	*builders;	/* builders:, tried */
	size_t				 nr_builders;	/* before local slots */
};

struct build_output {
	enum build_outcome	 outcome;
	char			*artifact_dir;	/* BUILD_OK: in the cache */
	char			*log_path;	/* the whole build log */
	char			*log_tail;	/* last lines, for the record */
	double			 seconds;
	char			*image_hash;	/* BUILD_OK: sha256 of the kernel
						   image, else of every artifact */
	char			*kernel_release; /* include/config/kernel.release
						   of a kernel build, or NULL */
	char			*artifacts_hash; /* BUILD_OK: sha256 of every
						   artifact (what a run gets) */
	char			*same_as;	/* the first parent, when its
						   build has the same image_hash */
	char			*kconfig_warnings; /* the fragment's values that
						   olddefconfig refused, or NULL */
};

/*
 * The recipe's identity: 16 hex of a hash of the command, the kconfig (a
 * file's contents, or a target's name), the job's kconfig fragment, the
 * artifacts and the compiler (`gcc --version`), so that the cache is keyed
 * by commit, config and compiler. build_recipe_id is build_recipe with no
 * fragment.
 */
char	*build_recipe(const struct config_repo *, const char *fragment);
char	*build_recipe_id(const struct config_repo *);
/*
 * The recipe of a job's builds: build_recipe with the job's kconfig
 * fragment (job NULL: no fragment). When fragment is not NULL it gets the
 * fragment (NULL for none), which the build row keeps
 * (store_kernel_set_kconfig) for build_run_kconfig.
 */
struct job;
char	*build_job_recipe(const struct config_repo *, const struct job *,
	     char **fragment);
/* The cache directory of (recipe, oid); it exists once the build is OK. */
char	*build_cache_dir(const struct config_repo *, const char *workdir,
	     const char *oid);
char	*build_cache_dir_recipe(const struct config_repo *,
	     const char *workdir, const char *recipe, const char *oid);
/*
 * Build (or find in the cache). Returns 0 with out filled, whether the
 * build succeeded or failed; -1 when it could not be attempted (checkout
 * failed, disk error, an artifact path leaving the tree, kconfig unreadable).
 *
 * The layout under the config's workdir:
 *   slots/REPO/K/tree		slot K's persistent checkout (repo_checkout),
 *				K from 0 to req->slots - 1
 *   slots/REPO/K.lock		flock: one build per slot at a time
 *   slots/REPO/K/build-RECIPE	BUILD_DIR, kept for incremental O= builds
 *   cache/REPO/RECIPE/OID.lock	flock: one build of the entry at a time
 *   cache/REPO/RECIPE/OID	the artifacts, at their relative paths
 *				(arch/x86/boot/bzImage stays that), and
 *				.complete, written last
 *   logs/build-RECIPE-OID.log	the whole log of the last attempt
 *   ccache			CCACHE_DIR, when ccache is installed,
 *				shared by every slot (CCACHE_BASEDIR=slots)
 * An artifact is looked up in BUILD_DIR first, then in the tree; with no
 * artifacts listed the whole worktree (in-tree outputs included) is the
 * artifact. The command runs as `/bin/sh -c COMMAND` in the worktree, in
 * its own process group, which is killed once the shell exits. log_tail
 * is the last 20 lines of the log, or "artifact 'x' not found". A cache
 * entry also holds .bisectd-build (image_hash, kernel_release) and, for a
 * kernel, the final .config.
 *
 * With builders (req->builders), a free slot of one in service is taken
 * first and the build made there (bisectd/builder.h); the artifacts come
 * back into the same cache entry, each file's digest checked. A builder
 * that cannot be reached, or refuses us, is marked so and the next one
 * (or a local slot) is tried at once; one lost, or whose artifacts do not
 * match their digests, mid-build fails the attempt (-1, retried by the
 * scheduler, which then finds that builder down and goes elsewhere). With
 * no builder free the build is local. The log says where it was built.
 */
int	 build_run(const struct build_request *, struct repo *,
	     struct build_output *out, char **cause);
/*
 * build_run for a job that adds a kconfig fragment (kconfig_fragment; NULL
 * for none), checking that the recipe the build row was queued under (NULL:
 * no check) is still the one the config and fragment make: an edited
 * config must not fill the cache entry of the old one.
 */
int	 build_run_kconfig(const struct build_request *, const char *kconfig,
	     const char *recipe, struct repo *, struct build_output *out,
	     char **cause);
void	 build_output_release(struct build_output *);

#endif
