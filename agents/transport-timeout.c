/*
 * The one timeout rule of agent and transport (agents/transport.h): how
 * long a testcase may run, its whole run, and what a boot adds. Apart from
 * agents/transport.c so that bisect-agent, which needs the rule, does not
 * link the transports (and libssh2) with it.
 */
#include "agents/boot.h"
#include "agents/transport.h"

#define TRANSPORT_DEFAULT_TIMEOUT	3600
#define TRANSPORT_MARGIN		120	/* copy, start, kill grace */
#define TRANSPORT_KEXEC_STEPS		120	/* uname, kexec -l, kexec -e */

unsigned
transport_timeout_testcase(const struct job *job)
{
	if (job == NULL)
		return TRANSPORT_DEFAULT_TIMEOUT;
	if (job->timeout > 0)
		return job->timeout;
	if (job->runtime > 0)
		return 3 * job->runtime + 60;
	return TRANSPORT_DEFAULT_TIMEOUT;
}

unsigned
transport_timeout_run(const struct job *job)
{
	return transport_timeout_testcase(job) + TRANSPORT_MARGIN;
}

unsigned
transport_timeout_boot(const struct config_agent *agent, const struct job *job)
{
	enum boot_method	m = BOOT_NONE;

	if (job == NULL || agent == NULL || agent->boot == NULL ||
	    boot_method_parse(agent->boot, &m) != 0)
		return 0;
	switch (m) {
	case BOOT_QEMU:
		return boot_timeout(job);
	case BOOT_KEXEC:
		return boot_timeout(job) + TRANSPORT_KEXEC_FALLBACK +
		    TRANSPORT_KEXEC_STEPS;
	case BOOT_NONE:
		break;
	}
	return 0;
}

unsigned
transport_timeout_agent_run(const struct config_agent *agent,
    const struct job *job)
{
	unsigned	margin = TRANSPORT_MARGIN;

	if (agent != NULL && agent->run_margin > 0)
		margin = (unsigned)agent->run_margin;
	return transport_timeout_testcase(job) + margin +
	    transport_timeout_boot(agent, job);
}
