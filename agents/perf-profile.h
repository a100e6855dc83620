/*
 * LKP's perf-profile metrics from perf's own output: "perf report
 * --stdio --no-children --sort symbol -g folded,0,caller,count" lists,
 * under each symbol, every distinct call chain that ended there with its
 * number of samples, root first. From those chains come the share of
 * samples in a symbol itself (self), with it on the stack (children),
 * and along each path from the root (calltrace). docs/monitors.md.
 */
#ifndef AGENTS_PERF_PROFILE_H
#define AGENTS_PERF_PROFILE_H

#include <stddef.h>

struct result;

/* A row is kept when its share of the samples is at least this, in %. */
#define PERF_PROFILE_MIN_PCT	0.5
/* At most this many rows of each kind (self, children, calltrace). */
#define PERF_PROFILE_MAX_ROWS	200

/*
 * perf-profile.self.cycles-pp.SYM, perf-profile.children.cycles-pp.SYM
 * and perf-profile.calltrace.cycles-pp.SYM.CALLER...ROOT, each the % of
 * the samples, into r. Frames perf could not name (0x..., [unknown])
 * give no row, and a calltrace starts below the last of them. Returns the
 * number of samples, -1 with *cause when the text holds no call chain.
 */
long	 perf_profile_parse(struct result *r, const char *text, size_t len,
	     char **cause);

#endif
