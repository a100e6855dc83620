/*
 * The monitors of one run (agents/agent-monitor.c): those the job names,
 * started before the testcase with a sampler, stopped after it into the
 * result. With LKP's monitor_delay, all but time and interference start
 * that many seconds into the testcase, from its wait loop.
 */
#ifndef AGENTS_AGENT_MONITOR_H
#define AGENTS_AGENT_MONITOR_H

#include <stddef.h>

#include "agents/monitor.h"

#define AGENT_MONITOR_MAX	32

struct result;

/* The delayed ones: started by agent_monitor_late_start, or never. */
struct agent_monitor_late {
	const struct monitor_run *mrun;
	struct result		 *r;
	const struct monitor_ops *mons[AGENT_MONITOR_MAX];
	void			 *state[AGENT_MONITOR_MAX];
	size_t			  nr;
	int			  started;
	struct monitor_sampler	 *sampler;
};

struct agent_monitor {
	struct monitor_run	  mrun;
	unsigned		  delay;	/* monitor_delay; 0: none */
	const struct monitor_ops *mons[AGENT_MONITOR_MAX];
	void			 *state[AGENT_MONITOR_MAX];
	size_t			  nr;
	struct monitor_sampler	 *sampler;
	struct agent_monitor_late late;
};

void	agent_monitor_init(struct agent_monitor *am);
/* -1 with *cause when the sampler cannot start; free am either way. */
int	agent_monitor_start(struct agent_monitor *am,
	    const struct monitor_run *mrun, struct result *r, char **cause);
/* The testcase's callback at monitor_delay: arg is &am->late. */
void	agent_monitor_late_start(void *arg, int pgid, double at);
/* At the testcase's end: no more readings. */
void	agent_monitor_sampler_stop(struct agent_monitor *am);
/* Each monitor's figures into r, its failure as the run's error. */
void	agent_monitor_stop(struct agent_monitor *am,
	    const struct monitor_exit *exit, struct result *r);
void	agent_monitor_free(struct agent_monitor *am);

#endif
