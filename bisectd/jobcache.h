/*
 * The parsed jobs of this process, by their row in the store. A job's
 * canonical text is parsed once, the first time it is needed, and the
 * struct serves placement, the worker, the build recipe, the report and
 * the page: a row never changes (its id is the hash of that text).
 * Entries made before a fork are the child's too.
 */
#ifndef BISECTD_JOBCACHE_H
#define BISECTD_JOBCACHE_H

#include <stdint.h>

struct job;
struct jobcache;
struct store;

/*
 * The job of row id, read from st when it is not cached yet. NULL with
 * *cause when there is no such row or its text does not parse as one job.
 * Borrowed: it lives as long as the cache.
 */
const struct job *jobcache_get(struct jobcache **, struct store *st,
	     int64_t id, char **cause);
/* The same for a row already read: job_id and canonical as stored. */
const struct job *jobcache_parse(struct jobcache **, int64_t id,
	     const char *job_id, const char *canonical, char **cause);
void	 jobcache_free(struct jobcache *);

#endif
