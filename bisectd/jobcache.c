/*
 * The cache of parsed jobs (bisectd/jobcache.h): a small array searched
 * by row, since a scheduler deals with a handful of jobs at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "bisectd/jobcache.h"
#include "jobs/job.h"
#include "schema/store.h"
#include "util/error.h"
#include "util/xalloc.h"

struct jobcache_entry {
	int64_t		 id;
	struct job	*job;
};

struct jobcache {
	struct jobcache_entry	*v;
	size_t			 nr;
	size_t			 alloc;
};

static struct job *
jobcache_find(const struct jobcache *c, int64_t id)
{
	size_t	i;

	for (i = 0; c != NULL && i < c->nr; i++) {
		if (c->v[i].id == id)
			return c->v[i].job;
	}
	return NULL;
}

const struct job *
jobcache_parse(struct jobcache **cp, int64_t id, const char *job_id,
    const char *canonical, char **cause)
{
	struct jobcache	 *c;
	struct job	**jobs = NULL, *j;
	size_t		  nr = 0;

	if ((j = jobcache_find(*cp, id)) != NULL)
		return j;
	if (canonical == NULL || job_parse(job_id != NULL ? job_id : "job",
	    canonical, strlen(canonical), &jobs, &nr, cause) != 0)
		return NULL;
	if (nr != 1) {
		job_list_free(jobs, nr);
		error_set(cause, "job %s: its canonical text expands to %zu "
		    "jobs, not one", job_id != NULL ? job_id : "?", nr);
		return NULL;
	}
	if ((c = *cp) == NULL)
		c = *cp = xcalloc(1, sizeof *c);
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 8;
		c->v = xreallocarray(c->v, c->alloc, sizeof *c->v);
	}
	c->v[c->nr].id = id;
	c->v[c->nr].job = jobs[0];
	c->nr++;
	j = jobs[0];
	free(jobs);
	return j;
}

const struct job *
jobcache_get(struct jobcache **cp, struct store *st, int64_t id,
    char **cause)
{
	struct store_job	 sj;
	const struct job	*j;

	if ((j = jobcache_find(*cp, id)) != NULL)
		return j;
	memset(&sj, 0, sizeof sj);
	if (store_job_get(st, id, &sj, cause) != 0)
		return NULL;
	j = jobcache_parse(cp, id, sj.job_id, sj.canonical, cause);
	store_job_release(&sj);
	return j;
}

void
jobcache_free(struct jobcache *c)
{
	size_t	i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nr; i++)
		job_free(c->v[i].job);
	free(c->v);
	free(c);
}
