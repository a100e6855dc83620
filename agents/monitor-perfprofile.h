/*
 * The perf-profile monitor's part in a qemu boot (agents/boot-qemu.c):
 * whether a job runs it, whether the kernel under test can be profiled,
 * and the host's perf with its libraries for the guest's initramfs.
 * The monitor itself is monitor_perfprofile_ops (agents/monitor.h).
 */
#ifndef AGENTS_MONITOR_PERFPROFILE_H
#define AGENTS_MONITOR_PERFPROFILE_H

#include "jobs/job.h"

struct initramfs;

/*
 * Set to "qemu" by the qemu boot's runner for the agent in the guest: the
 * kernel is the build's (its release was checked), the artifacts' System.map
 * names its symbols, and the data is capped to what the guest's RAM and
 * serial port carry.
 */
#define MONITOR_PERFPROFILE_GUEST_ENV	"BISECT_AGENT_GUEST"

/* Whether the job runs perf-profile ("monitors:" or LKP's marker). */
int	monitor_perfprofile_wanted(const struct job *);
int	monitor_perfprofile_in_guest(void);
/*
 * Whether the kernel among the artifacts in workdir can be profiled from
 * inside: 0, or -1 with *why naming the kconfig symbol its .config lacks
 * (CONFIG_PERF_EVENTS, CONFIG_EVENTFD). No .config: 0.
 */
int	monitor_perfprofile_guest_check(const char *workdir, char **why);
/*
 * The host's perf into the initramfs at its own path, with the shared
 * objects ldd finds for it; when perf is not installed here nothing (the
 * monitor in the guest then says it is not installed). -1 with *cause.
 */
int	monitor_perfprofile_guest_add(struct initramfs *, char **cause);

#endif
