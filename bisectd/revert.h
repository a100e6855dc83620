/*
 * Reports that check themselves: the culprit reverted on top of the bad
 * commit, as a commit of its own that can be built and run like any other.
 */
#ifndef BISECTD_REVERT_H
#define BISECTD_REVERT_H

#include "bisectd/repo.h"

/*
 * Revert culprit on top of onto (libgit2's revert, mainline 1 for a
 * merge) and write the result as a commit whose parent is onto. Its author
 * and dates are fixed from onto, so the same revert always has the same
 * oid. Returns 0 with out filled, 1 when the revert does not apply
 * cleanly, -1 with *cause on error.
 */
int	revert_onto(struct repo *, const char *culprit, const char *onto,
	    char out[REPO_OID_HEX + 1], char **cause);

#endif
