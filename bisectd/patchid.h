/*
 * A commit's patch-id (git patch-id, libgit2's git_diff_patchid): the
 * hash of its diff against its first parent, with line numbers and
 * whitespace left out, so that a commit rebased or cherry-picked with the
 * same change has the same one. Continuous mode uses it so that a culprit
 * rewritten by a rebase is not reported again.
 */
#ifndef BISECTD_PATCHID_H
#define BISECTD_PATCHID_H

#include "bisectd/repo.h"

#define PATCHID_HEX	40

/* out gets the 40-hex patch-id of commit oid (a root commit: its tree's). */
int	patchid_of(struct repo *, const char *oid, char out[PATCHID_HEX + 1],
	    char **cause);

#endif
