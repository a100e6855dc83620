/*
 * What every command and the scheduler work with: the loaded config, the
 * open store, and where the agent program is.
 */
#ifndef BISECTD_CONTEXT_H
#define BISECTD_CONTEXT_H

#include "jobs/config.h"
#include "schema/store.h"

struct jobcache;

struct context {
	struct config	*config;
	struct store	*store;
	char		*agent_path;
	struct jobcache	*jobs;		/* parsed jobs (bisectd/jobcache.h) */
};

int	context_open(const char *config_path, struct context **out,
	    char **cause);
void	context_free(struct context *);
/* The lock file that makes one scheduler per database. */
char	*context_lock_path(const struct context *);

#endif
