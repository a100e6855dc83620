/*
 * The one timeout rule of agent and transport (agents/transport.h): how
 * long a testcase may run, and how long its whole run may take. Apart
 * from agents/transport.c so that bisect-agent, which needs the rule,
 * does not link the transports (and libssh2) with it.
 */
#include "agents/transport.h"

#define TRANSPORT_DEFAULT_TIMEOUT	3600
#define TRANSPORT_MARGIN		120	/* copy, start, kill grace */

unsigned
transport_testcase_timeout(const struct job *job)
{
	if (job->timeout > 0)
		return job->timeout;
	if (job->runtime > 0)
		return 3 * job->runtime + 60;
	return TRANSPORT_DEFAULT_TIMEOUT;
}

unsigned
transport_run_timeout(const struct job *job)
{
	return transport_testcase_timeout(job) + TRANSPORT_MARGIN;
}
