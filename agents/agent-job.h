/*
 * One expanded job run on this machine without a boot (agents/agent-job.c):
 * its knobs set, the inventory and boot recorded, its disks made, the
 * testcase run under its monitors, its output parsed into the result, and
 * the knobs and disks put back at the end.
 */
#ifndef AGENTS_AGENT_JOB_H
#define AGENTS_AGENT_JOB_H

#include <stddef.h>

struct disk_decl;
struct job;
struct result;

/* What a run needs besides the job: paths and the agent's own program. */
struct agent_job {
	const struct job	*job;
	const char		*jobfile;
	const char		*resultdir;
	const char		*workdir;
	const char		*self;
	const char		*root;
	const struct disk_decl	*disks;		/* --disk: the test disks */
	size_t			 nr_disks;
};

/*
 * 0 when r holds the run (its error too, if the testcase or a knob
 * failed); -1 with *cause when the agent could not run it, *interrupted
 * the signal that stopped the agent, if one did.
 */
int	agent_job_run(const struct agent_job *aj, struct result *r,
	    int *interrupted, char **cause);

#endif
