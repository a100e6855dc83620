/*
 * The artifact cache (bisectd/build-cache.c): one build's paths, its
 * temporary entry filled from the worktree or BUILD_DIR, hashed, marked
 * complete and renamed into place, and an entry's artifacts checked
 * against the digest their build recorded.
 */
#ifndef BISECTD_BUILD_CACHE_H
#define BISECTD_BUILD_CACHE_H

#include "jobs/config.h"

#define BUILD_MARKER		".complete"

/* Paths of one build, all under the config's workdir. */
struct build_paths {
	char	*recipe;
	char	*cache;		/* WORKDIR/cache/REPO/RECIPE/OID */
	char	*tmp;		/* the same with .tmp.PID, while filling */
	char	*entry_lock;	/* the same with .lock: one build of it */
	char	*slots;		/* WORKDIR/slots/REPO */
	char	*worktree;	/* SLOTS/K/tree, once a slot is taken */
	char	*lock;		/* SLOTS/K.lock */
	char	*builddir;	/* SLOTS/K/build-RECIPE */
	char	*logdir;
	char	*log;		/* WORKDIR/logs/build-RECIPE-OID.log */
	int	 slot;		/* K, once taken; else -1 */
	int	 lockfd[2];	/* the entry's and the slot's, or -1 */
};


/* Whether the entry at cache is complete (its marker is there). */
int	 build_cache_complete(const char *cache);
/* Leftovers of builds of this entry that died before their rename. */
void	 build_cache_remove_stale(const char *cache);
/*
 * Fill the temporary entry from the build (kernel: with its .config,
 * symbols and release), then seal it; 1 with *missing set when an
 * artifact is not there.
 */
int	 build_cache_collect(const struct config_repo *,
	    const struct build_paths *, const char *oid, int kernel,
	    char **missing, char **cause);
/*
 * The artifacts in the temporary entry: hash them, mark the entry
 * complete, flush it and rename it into place (release: the kernel's, or
 * NULL).
 */
int	 build_cache_seal(const struct config_repo *,
	    const struct build_paths *, const char *oid, const char *release,
	    char **cause);
/*
 * Before the artifacts of a finished build go to an agent: their digest
 * (build_kernel_hash_artifacts) is the one the build recorded (expected;
 * NULL: none was recorded, nothing to check). On a mismatch the entry is
 * marked incomplete, so that the next build of it fills it again, and -1
 * returned with *cause "digest mismatch: ...".
 */
int	 build_cache_check_artifacts(const char *artifact_dir,
	    const char *expected, char **cause);

#endif
