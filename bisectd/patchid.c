/*
 * Patch-ids of commits, through libgit2: the commit's tree diffed against
 * its first parent's, hashed by git_diff_patchid as `git patch-id
 * --stable` does.
 */
#include <git2.h>

#include <string.h>

#include "bisectd/patchid.h"
#include "util/error.h"

int
patchid_of(struct repo *repo, const char *oid, char out[PATCHID_HEX + 1],
    char **cause)
{
	git_repository	*git = repo_git(repo);
	git_commit	*c = NULL, *p = NULL;
	git_tree	*ct = NULL, *pt = NULL;
	git_diff	*diff = NULL;
	git_oid		 id, pid;
	const git_error	*e;
	int		 r = -1;

	out[0] = '\0';
	if (git_oid_fromstr(&id, oid) != 0 ||
	    git_commit_lookup(&c, git, &id) != 0 ||
	    git_commit_tree(&ct, c) != 0 ||
	    (git_commit_parentcount(c) > 0 && (git_commit_parent(&p, c, 0) != 0
	    || git_commit_tree(&pt, p) != 0)) ||
	    git_diff_tree_to_tree(&diff, git, pt, ct, NULL) != 0 ||
	    git_diff_patchid(&pid, diff, NULL) != 0) {
		e = git_error_last();
		error_set(cause, "couldn't compute the patch-id of '%.12s' in "
		    "repository '%s': %s", oid, repo_name(repo), e != NULL &&
		    e->message != NULL ? e->message : "unknown error");
		goto out;
	}
	git_oid_tostr(out, PATCHID_HEX + 1, &pid);
	r = 0;
out:
	git_diff_free(diff);
	git_tree_free(pt);
	git_tree_free(ct);
	git_commit_free(p);
	git_commit_free(c);
	return r;
}
