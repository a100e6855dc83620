/*
 * The slots of build hosts: slot K of builder NAME is held through a flock
 * of WORKDIR/builders/NAME/K.lock for as long as a build uses it.
 */
#ifndef BISECTD_BUILDER_SLOT_H
#define BISECTD_BUILDER_SLOT_H

#include <stddef.h>

#include "jobs/config.h"

/* A slot taken on a builder. */
struct builder_slot {
	const struct config_agent	*builder;
	int				 slot;
	int				 lockfd;
};

/*
 * Take a free slot of a builder in service (not down or refused before
 * its retry time), without waiting, skipping the builders in skip
 * (nr_builders flags, or NULL). 0 with *out filled, 1 when none is free.
 */
int	 builder_slot_take(const char *workdir, const struct config_agent *,
	     size_t nr_builders, const char *skip, struct builder_slot *out,
	     char **cause);
void	 builder_slot_release(struct builder_slot *);

/* Builds of a repository the scheduler may run at once: local + remote. */
int	 builder_slot_capacity(const struct config *);

#endif
