/*
 * The services the scheduler hands the modules below it: each call goes
 * to the scheduler through the callbacks it set, so that a unit test can
 * set its own instead.
 */
#include "bisectd/services.h"

unsigned
services_slots(const struct services *s)
{
	const struct config	*cfg = s->ctx->config;
	unsigned		 n = 0;
	size_t			 i;

	for (i = 0; i < cfg->nr_agents; i++)
		n += cfg->agents[i].slots > 0 ?
		    (unsigned)cfg->agents[i].slots : 1;
	return n > 0 ? n : 1;
}

int
services_runs_on(const struct services *s, const char *agent)
{
	return s->runs_on != NULL ? s->runs_on(s->payload, agent) : 0;
}

void
services_fetch_started(struct services *s, pid_t pid, const char *repo)
{
	if (s->fetch_started != NULL)
		s->fetch_started(s->payload, pid, repo);
}
