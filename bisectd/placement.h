/*
 * Where the scheduler's runs go: a job's positions over the agents that
 * can run it, and the agent for each run (bisectd/placement.c).
 */
#ifndef BISECTD_PLACEMENT_H
#define BISECTD_PLACEMENT_H

#include "bisectd/context.h"
#include "bisectd/services.h"
#include "jobs/job.h"
#include "schema/store.h"

/*
 * The agent (config index) a pending run should start on now, or -1 to
 * wait (its machine is busy or out of service). Returns 0; 1 when no
 * agent can ever run it, with *why; -1 on an error, with *cause. Reads
 * this turn's agent rows (s->agents) and the runs going on each.
 */
int	placement_find(struct services *, const struct store_run *,
	    int *agent, char **why, char **cause);
/*
 * Can some agent run this job? Jobs without requires: always can. Else
 * each agent's cached inventory is matched, and an agent never inventoried
 * is probed first (in this process). 1, or 0 with *why naming every agent
 * and its reason; -1 on an internal error.
 */
int	placement_job_placeable(struct context *, const struct job *,
	    char **why);
/* The config index of an agent, or -1. */
int	placement_agent_index(const struct services *, const char *name);

#endif
