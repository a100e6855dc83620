/*
 * Driving one bisection: gather what the database knows about its range
 * (builds, samples), ask the pure driver in stats/bisect.c what to do next,
 * and turn its answer into runs to take, or into the conclusion: the
 * result JSON, the log of tested commits and the report.
 */
#ifndef BISECTD_BISECTION_H
#define BISECTD_BISECTION_H

#include <stdint.h>

#include "bisectd/services.h"

int	bisection_plan(struct services *, int64_t id, char **cause);
void	bisection_forget(struct services *, int64_t id);
/*
 * Write the reports (and queue the mails) of bisections that concluded
 * with a culprit but were left without a report by a process killed in
 * between; at the scheduler's start.
 */
int	bisection_report_missing(struct services *, char **cause);
void	bisection_free(struct bisection *);
/*
 * Is oid's build only a speculative one of a bisection (queued for the
 * next round, asked for by none since)? The scheduler starts those last.
 */
int	bisection_speculative(const struct services *, const char *oid);

/*
 * "bisect: 42 commits left (about 6 steps)", and when that is more than
 * the progress line before said, why: ", up from 17: new samples moved
 * the likeliest culprit's range".
 */
struct strbuf;
void	 bisection_progress_count(struct strbuf *, size_t remaining,
	     unsigned steps, const char *before);

#endif
