/*
 * Building a commit: check it out into the repository's persistent
 * worktree, run the recipe's command with BUILD_DIR, SRC_DIR and NPROC in
 * its environment, and copy the artifacts into a cache keyed by commit and
 * recipe, so that each commit is built once.
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
};

struct build_output {
	enum build_outcome	 outcome;
	char			*artifact_dir;	/* BUILD_OK: in the cache */
	char			*log_path;	/* the whole build log */
	char			*log_tail;	/* last lines, for the record */
	double			 seconds;
};

/* The recipe's identity: 16 hex of a hash of command, kconfig, artifacts. */
char	*build_recipe_id(const struct config_repo *);
/* The cache directory of (recipe, oid); it exists once the build is OK. */
char	*build_cache_dir(const struct config_repo *, const char *workdir,
	     const char *oid);
/*
 * Build (or find in the cache). Returns 0 with out filled, whether the
 * build succeeded or failed; -1 when it could not be attempted (checkout
 * failed, disk error, an artifact path leaving the tree, kconfig unreadable).
 *
 * The layout under the config's workdir:
 *   worktrees/REPO		the persistent checkout (repo_checkout)
 *   worktrees/REPO.lock	flock: one build per repository at a time
 *   builddir/REPO-RECIPE	BUILD_DIR, kept for incremental O= builds
 *   cache/REPO/RECIPE/OID	the artifacts, at their relative paths
 *				(arch/x86/boot/bzImage stays that), and
 *				.complete, written last
 *   logs/build-RECIPE-OID.log	the whole log of the last attempt
 * An artifact is looked up in BUILD_DIR first, then in the tree; with no
 * artifacts listed the whole worktree (in-tree outputs included) is the
 * artifact. The command runs as `/bin/sh -c COMMAND` in the worktree, in
 * its own process group, which is killed once the shell exits. log_tail
 * is the last 20 lines of the log, or "artifact 'x' not found".
 */
int	 build_run(const struct build_request *, struct repo *,
	     struct build_output *out, char **cause);
void	 build_output_release(struct build_output *);

#endif
