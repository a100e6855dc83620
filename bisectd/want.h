/*
 * Wants into builds and runs. What the bisection driver, a queued request
 * and the revert check ask for at a commit, "N samples of job J at commit
 * C", becomes the commit's build (queued once) and runs, under one rule
 * for what already counts (docs/bisection.md, "Wants").
 */
#ifndef BISECTD_WANT_H
#define BISECTD_WANT_H

#include <stdint.h>

#include "schema/store.h"

struct want {
	const char	*repo;
	int64_t		 job;
	const char	*oid;
	const char	*recipe;	/* the build's */
	const char	*kconfig;	/* the build's fragment, or NULL */
	unsigned	 samples;	/* runs wanted in all; 0: the build alone */
};

/*
 * Queue the want's build and the runs it lacks, in the caller's
 * transaction. A run that is pending, running or done counts (it gives, or
 * gave, its sample); a failed or skipped one does not, and is replaced
 * once a run there is done, until as many runs as the want's samples have
 * failed there. Otherwise nothing more is queued and *exhausted is 1: the
 * commit had its chances (with no run done, it is untestable). *added
 * counts the runs queued.
 */
int	 want_queue(struct store *, const struct want *, int *added,
	     int *exhausted, char **cause);

#endif
