/*
 * Continuous mode: fetch the tracked branches on an interval, queue the
 * continuous jobs at their new commits, look for change points in each
 * job's headline metric along each branch, and start a bisection for
 * every regression found, once.
 */
#ifndef BISECTD_TRACKER_H
#define BISECTD_TRACKER_H

#include "bisectd/scheduler.h"

struct tracker;

struct tracker	*tracker_new(void);
void		 tracker_free(struct tracker *);
/* One scheduler turn's worth: cheap when nothing is due. */
int		 tracker_turn(struct tracker *, struct scheduler *,
		     char **cause);

#endif
