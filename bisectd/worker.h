/*
 * The child processes of the scheduler: one builds a commit, one carries
 * out a run on an agent. Each opens its own connection to the database and
 * writes its outcome in one transaction; the scheduler only reaps them.
 */
#ifndef BISECTD_WORKER_H
#define BISECTD_WORKER_H

#include <stdint.h>
#include <sys/types.h>

#include "bisectd/context.h"

/* Fork a child that builds; returns its pid, or -1 with *cause. */
pid_t	worker_build(struct context *, int64_t build, char **cause);
pid_t	worker_run(struct context *, int64_t run, int64_t token,
	    const char *agent, char **cause);

#endif
