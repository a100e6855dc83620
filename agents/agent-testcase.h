/*
 * The testcase's process (agents/agent-testcase.c): forked in its own
 * process group with a clean signal state, told to the monitors, waited
 * for with a timeout and killed with its group, and its exit and times
 * recorded in the run's result.
 */
#ifndef AGENTS_AGENT_TESTCASE_H
#define AGENTS_AGENT_TESTCASE_H

#include <time.h>

#include "agents/monitor.h"

struct result;

struct agent_testcase {
	const char		*command;	/* sh -c COMMAND, or */
	char			**argv;		/* an adapter's program */
	char			**envp;
	const char		*workdir;
	int			 outfd;
	unsigned		 timeout;

	int			 status;	/* wait status */
	int			 timed_out;
	int			 interrupted;	/* the signal that stopped us */
	struct monitor_exit	 exit;
	/* told the testcase's process group once it is forked */
	const struct monitor_ops **mons;
	void			**states;
	size_t			 nr_mons;
	/* LKP's monitor_delay: late(late_arg, pgid) that long after the fork */
	unsigned		 late_delay;
	void			(*late)(void *late_arg, int pgid, double at);
	void			*late_arg;
	/* when it ran: wall clock and monotonic, at fork and at reap */
	struct timespec		 start_wall, start_mono;
	struct timespec		 end_wall, end_mono;
};

int	agent_testcase_run(struct agent_testcase *tc, char **cause);
/* Its times, exit status and any timeout or failure, in r. */
void	agent_testcase_record(struct result *r,
	    const struct agent_testcase *tc);

#endif
