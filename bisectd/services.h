/*
 * What the scheduler hands the modules it calls each turn (bisection,
 * request, placement, tracker): the context, this turn's agent rows, the
 * bisections' derived state, a flag to say something changed, and the two
 * services that need its table of children. They call down through it and
 * never back into the scheduler, so each reads, and tests, without the loop.
 */
#ifndef BISECTD_SERVICES_H
#define BISECTD_SERVICES_H

#include <stddef.h>
#include <sys/types.h>

#include "bisectd/context.h"

struct bisection;
struct store_agent;

struct services {
	struct context		 *ctx;
	struct store_agent	 *agents;	/* by agent: this turn's rows */
	int			  progress;	/* something changed this turn */
	struct bisection	**bisections;	/* derived state, by request */
	size_t			  nr_bisections;
	size_t			  alloc_bisections;
	/* the scheduler's children, asked through its payload */
	void			 *payload;
	int			(*runs_on)(void *payload, const char *agent);
	void			(*fetch_started)(void *payload, pid_t,
				    const char *repo);
};

/* The number of run slots over all agents. */
unsigned services_slots(const struct services *);
/* The runs going on an agent now. */
int	services_runs_on(const struct services *, const char *agent);
/* A fetch child started for a repository: the scheduler reaps it. */
void	services_fetch_started(struct services *, pid_t, const char *repo);

#endif
