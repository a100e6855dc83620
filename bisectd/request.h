/*
 * Requests: turning a command line (a job file, revisions) into request
 * rows, and planning queue and compare requests: make sure each of their
 * jobs has its runs at each of their commits, and finish them when all
 * runs are over.
 */
#ifndef BISECTD_REQUEST_H
#define BISECTD_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "bisectd/context.h"
#include "bisectd/services.h"
#include "jobs/job.h"

/* Return values of request_create: bad input is the user's to fix. */
#define REQUEST_BAD_INPUT	(-2)

struct request_spec {
	const char	 *kind;		/* queue, compare, bisect */
	const char	 *job_file;
	const char	 *repo;		/* NULL: the only repository */
	const char	**revs;		/* compare: a, b; bisect: good, bad */
	size_t		  nr_revs;
	const char	 *metric;	/* bisect: --metric, or NULL */
	int		  allow_drift;	/* compare runs whose env differs */
	unsigned	  runs;		/* queue: runs per commit, 0: the job's */
	/*
	 * bisect: "higher" or "lower" instead of the metric's direction, so
	 * that a fix (a change the good way) is bisected; NULL: the metric's
	 */
	const char	 *direction;
};

/*
 * Create (or, for an identical unfinished bisection, find) the request.
 * *resumed is set when an existing request was found.
 */
int	request_create(struct context *, const struct request_spec *,
	    int64_t *id, int *resumed, char **cause);
int	request_plan(struct services *, int64_t id, char **cause);
/*
 * The runs per commit a request asked for: the job file's `runs:` when the
 * request was made (a job's identity leaves `runs:` out, so the stored
 * canonical text may carry an older value).
 */
unsigned request_runs(const struct store_request *);

#endif
