/*
 * Continuous mode: fetch the tracked branches on an interval, queue the
 * continuous jobs at their new commits, look for change points in each
 * job's headline metric along each branch, and start a bisection for
 * every regression found, once.
 */
#ifndef BISECTD_TRACKER_H
#define BISECTD_TRACKER_H

#include "bisectd/services.h"
#include "jobs/config.h"

struct tracker;

struct tracker	*tracker_new(void);
void		 tracker_free(struct tracker *);
/* One scheduler turn's worth: cheap when nothing is due. */
int		 tracker_turn(struct tracker *, struct services *,
		     char **cause);
/*
 * The repository's fetch child has ended with wait status status: read
 * its branches next turn; after a failure, fetch again later and later.
 */
void		 tracker_fetched(struct tracker *, const struct config *,
		     const char *repo, int status);
/*
 * In the fetch child: fetch the repository's tracked branches (refs of
 * branches gone upstream are pruned); a fetch without progress for stall
 * seconds ends the process (exit status 3). A failure's cause is left in
 * the work directory for the daemon, which says it once.
 */
int		 tracker_fetch_repo(const struct config *,
		     const struct config_repo *, unsigned stall, char **cause);
/* Where a fetch child leaves the cause of its failure (allocated). */
char		*tracker_fetch_note(const struct config *, const char *repo);
/*
 * The change-point test over each job's series of a branch (jobs with a
 * metric): a new regression is bisected; *settled when no job's series
 * of the branch waits for runs.
 */
struct job;
int		 tracker_detect(struct services *, const struct config_repo *,
		     const char *branch, struct job **jobs, size_t nr_jobs,
		     int *settled, char **cause);

#endif
