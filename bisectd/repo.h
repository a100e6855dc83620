/*
 * The repositories under test, through libgit2 (no git subprocess):
 * resolving revisions, reading commits, loading a bisection range as a DAG
 * for the driver, and checking commits out into a persistent worktree.
 */
#ifndef BISECTD_REPO_H
#define BISECTD_REPO_H

#include <stddef.h>
#include <time.h>

#include "jobs/config.h"
#include "stats/bisect.h"

#define REPO_OID_HEX 40

struct repo;

struct repo_commit {
	char	 oid[REPO_OID_HEX + 1];
	char	*subject;		/* git's %s: first paragraph */
	char	*author;		/* "Name <email>" */
	time_t	 time;			/* author date */
	size_t	 nr_parents;
};

struct repo_oidmap;
struct git_oid;

/*
 * The range `bad ^good...` as the driver wants it: commits[] holds the
 * candidates then the good ends; parents point inside the array.
 *
 * The candidates come in git rev-list's default order (`git rev-list BAD
 * ^GOOD...`: newest committer date first, as the walk meets them), so bad
 * is commits[0]; the good ends follow, once each, in the order given, with
 * no parents. A parent that is neither a candidate nor a good end is left
 * out, as git bisect leaves it out. build is BISECT_BUILD_UNKNOWN and
 * samples NULL: the scheduler fills them.
 */
struct repo_range {
	struct bisect_commit	*commits;
	size_t			 nr_commits;
	size_t			 bad;
	size_t			*good;
	size_t			 nr_good;
	char			(*oids)[REPO_OID_HEX + 1];
	size_t			*parent_store;
	struct repo_oidmap	*map;		/* oid -> index */
};

int	 repo_open(const struct config_repo *, struct repo **out, char **cause);
/* The libgit2 handle, borrowed, for the few callers that need more. */
struct git_repository *repo_git(struct repo *);
const char *repo_name(const struct repo *);
/* libgit2's last error message, "unknown error" when it has none. */
const char *repo_git_error(void);
/* Whether s is a full hexadecimal object name. */
int	 repo_is_hex_oid(const char *s);
/* A full hex oid as it is; anything else through revparse. */
int	 repo_oid(struct repo *, const char *rev, struct git_oid *out,
	     char **cause);
void	 repo_free(struct repo *);
int	 repo_resolve(struct repo *, const char *rev,
	     char out[REPO_OID_HEX + 1], char **cause);
int	 repo_commit_read(struct repo *, const char *oid,
	     struct repo_commit *out, char **cause);
void	 repo_commit_release(struct repo_commit *);
/*
 * The branches that contain oid: local ones and those continuous mode
 * tracks, by short name, sorted; *out is an allocated array.
 */
int	 repo_branches_containing(struct repo *, const char *oid,
	     char ***out, size_t *nr, char **cause);
/*
 * Whether commit a is an ancestor of commit b (both oids or revisions):
 * 1 yes, 0 no (also when a == b), -1 with *cause on error.
 */
int	 repo_is_ancestor(struct repo *, const char *a, const char *b,
	     char **cause);
/*
 * good must be an ancestor of bad; several good ends are allowed. Each is
 * any revision repo_resolve takes; good ends naming the same commit count
 * once.
 */
int	 repo_range_load(struct repo *, const char *const *good, size_t nr_good,
	     const char *bad, struct repo_range *out, char **cause);
void	 repo_range_release(struct repo_range *);
/* The index of a 40-hex oid in the range, or (size_t)-1. */
size_t	 repo_range_find(const struct repo_range *, const char *oid);
/*
 * Make dir hold exactly the tree of oid, touching only the files that
 * differ from what was checked out there before, so that incremental
 * builds stay incremental. dir is not a repository: dir/.bisectd-checkout
 * names the commit checked out and dir/.bisectd-index caches stat data.
 * Untracked files (in-tree build outputs) are left alone. Without a
 * readable marker every file of oid is compared and written where it
 * differs; files of an unknown earlier checkout cannot be told from build
 * outputs and stay.
 */
int	 repo_checkout(struct repo *, const char *oid, const char *dir,
	     char **cause);

#endif
