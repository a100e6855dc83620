/*
 * Wants into builds and runs: the one place where "N samples of job J at
 * commit C" becomes the commit's build and the runs it lacks, so that a
 * bisection step, a queued request and the revert check count alike. A
 * failed run is replaced only until as many have failed as were wanted
 * (docs/design.md, "File notes").
 */
#include "bisectd/want.h"
#include "schema/store-kernel.h"

int
want_queue(struct store *st, const struct want *w, int *added,
    int *exhausted, char **cause)
{
	int64_t	build;
	int	live, next, done, failed;

	*exhausted = 0;
	if (store_build_ensure(st, w->repo, w->oid, w->recipe, &build,
	    cause) != 0 || (w->kconfig != NULL &&
	    store_kernel_set_kconfig(st, build, w->kconfig, cause) != 0))
		return -1;
	if (w->samples == 0)
		return 0;
	if (store_run_count(st, w->job, w->repo, w->oid, &live, &next,
	    cause) != 0 || store_run_totals(st, w->job, w->repo, w->oid,
	    &done, &failed, cause) != 0)
		return -1;
	while ((unsigned)live < w->samples) {
		/*
		 * Before any run is done a failure is the commit's (the
		 * driver calls it untestable), after one it is the run's.
		 */
		if (failed > 0 && (done == 0 ||
		    (unsigned)failed >= w->samples)) {
			*exhausted = 1;
			break;
		}
		if (store_run_add(st, w->job, w->repo, w->oid, next++,
		    w->recipe, cause) != 0)
			return -1;
		live++;
		(*added)++;
	}
	return 0;
}
