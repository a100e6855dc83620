/*
 * Re-reading the config while the daemon runs (SIGHUP). The new file is
 * checked as at start-up and takes effect for new work only; a file that
 * would not start a daemon leaves the old config in force.
 */
#ifndef BISECTD_RELOAD_H
#define BISECTD_RELOAD_H

#include "jobs/config.h"

struct scheduler;

/*
 * Load the scheduler's config file again and put it in force. -1 with
 * *cause (FILE:LINE:COL where the file is at fault) when the old config
 * stays; nothing in the scheduler has changed then.
 */
int	reload_config(struct scheduler *, char **cause);
/* Do two agent entries reach their machine the same way (its link)? */
int	reload_agent_same_link(const struct config_agent *,
	    const struct config_agent *);

#endif
