/*
 * The revert check of a bisection's culprit. The revert commit is written
 * to the object database only (and kept reachable by a ref under
 * refs/bisectd/revert/), never to a branch: the repository's own history
 * is not touched.
 */
#include <git2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/revert.h"
#include "util/error.h"
#include "util/xalloc.h"

static int
revert_error(char **cause, const char *what, const char *oid)
{
	const git_error	*e = git_error_last();

	return error_set(cause, "%s '%s': %s", what, oid,
	    e != NULL && e->message != NULL ? e->message : "unknown error");
}

int
revert_onto(struct repo *r, const char *culprit, const char *onto,
    char out[REPO_OID_HEX + 1], char **cause)
{
	git_repository		*git = repo_git(r);
	git_commit		*c = NULL, *o = NULL;
	git_index		*index = NULL;
	git_tree		*tree = NULL;
	git_signature		*sig = NULL;
	git_oid			 coid, ooid, tree_oid, result;
	git_merge_options	 opts = GIT_MERGE_OPTIONS_INIT;
	const git_signature	*when;
	const git_commit	*parents[1];
	char			*msg = NULL, ref[128];
	int			 rv = -1;

	if (git_oid_fromstr(&coid, culprit) != 0 ||
	    git_commit_lookup(&c, git, &coid) != 0) {
		revert_error(cause, "couldn't read the culprit", culprit);
		goto out;
	}
	if (git_oid_fromstr(&ooid, onto) != 0 ||
	    git_commit_lookup(&o, git, &ooid) != 0) {
		revert_error(cause, "couldn't read commit", onto);
		goto out;
	}
	if (git_revert_commit(&index, git, c, o,
	    git_commit_parentcount(c) > 1 ? 1 : 0, &opts) != 0) {
		revert_error(cause, "couldn't revert", culprit);
		goto out;
	}
	if (git_index_has_conflicts(index)) {
		rv = 1;
		goto out;
	}
	if (git_index_write_tree_to(&tree_oid, index, git) != 0 ||
	    git_tree_lookup(&tree, git, &tree_oid) != 0) {
		revert_error(cause, "couldn't write the revert of", culprit);
		goto out;
	}
	when = git_commit_committer(o);
	if (git_signature_new(&sig, "bisectd", "bisectd@localhost",
	    when->when.time, 0) != 0) {
		revert_error(cause, "couldn't sign the revert of", culprit);
		goto out;
	}
	msg = xasprintf("Revert \"%s\"\n\nThis reverts commit %s on top of %s,\n"
	    "to check that the regression goes away.\n",
	    git_commit_summary(c) != NULL ? git_commit_summary(c) : culprit,
	    culprit, onto);
	parents[0] = o;
	if (git_commit_create(&result, git, NULL, sig, sig, NULL, msg, tree, 1,
	    parents) != 0) {
		revert_error(cause, "couldn't commit the revert of", culprit);
		goto out;
	}
	git_oid_tostr(out, REPO_OID_HEX + 1, &result);
	snprintf(ref, sizeof ref, "refs/bisectd/revert/%s", out);
	{
		git_reference	*refp = NULL;

		if (git_reference_create(&refp, git, ref, &result, 1,
		    "bisectd revert check") == 0)
			git_reference_free(refp);
	}
	rv = 0;
out:
	free(msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_commit_free(c);
	git_commit_free(o);
	return rv;
}
