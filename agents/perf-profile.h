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

/*
 * Kernel frames that perf left as addresses (0xffffffff8109750a: a guest
 * kernel without CONFIG_KALLSYMS has no /proc/kallsyms for perf to read)
 * named from the build's System.map (map): the text symbol at or below
 * the address, below _etext. perf report's text in, the same text with
 * those frames named in out; *named counts them. -1 with *cause when the
 * map holds no text symbol.
 */
struct strbuf;
int	 perf_profile_symbolize(const char *map, size_t maplen,
	     const char *text, size_t len, struct strbuf *out, size_t *named,
	     char **cause);

#endif
