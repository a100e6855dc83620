/*
 * Job knobs: the environment settings a job asks for (thp_enabled,
 * thp_defrag, numa_balancing, sysctl: {...}), applied by the agent before
 * the testcase runs, checked after it (a setting that did not stick is an
 * error of the run: its figures were not measured where the job said),
 * and restored afterwards. Files are written under the root path, so the
 * tests work on fixture trees. Each knob's file is locked while a run has
 * it, and its old value journaled until restored, so that a killed
 * agent's knobs are put back by the next run (docs/agents.md, "Knobs").
 */
#ifndef AGENTS_KNOB_H
#define AGENTS_KNOB_H

#include <stddef.h>

#define KNOB_LOCK_WAIT	1800	/* seconds for another run's knob */
/* The journals of the knobs runs have set: ROOT/var/tmp/..., or the env's */
#define KNOB_JOURNAL_DIR	"/var/tmp/bisect-agent-knobs"
#define KNOB_JOURNAL_ENV	"BISECT_AGENT_KNOB_DIR"

struct job;

struct knob {
	char	*name;		/* job key: "thp_enabled", "sysctl.vm.swappiness" */
	char	*path;		/* under the root: "/proc/sys/vm/swappiness" */
	char	*want;		/* the job's value */
	char	*orig;		/* as read before applying; NULL until then */
	int	 bracketed;	/* "always [madvise] never" files */
	int	 applied;
	/* a testcase's own knob (vm-scalability's hugetlb pages) */
	int	 exclusive;
	/*
	 * Every knob's file is held with flock from before it is read
	 * until it is restored, so that two runs on one machine take it
	 * in turn; -1 when not held (a file that is not a regular one).
	 */
	int	 lockfd;
	char	*journal;	/* its old value's journal, while it exists */
};

struct knob_set {
	char		*root;
	char		*dir;		/* the journals: knob_journal_dir */
	struct knob	*knobs;
	size_t		 nr;
	int		 lock_wait;	/* seconds: KNOB_LOCK_WAIT */
	char		*reaped;	/* the killed runs' knobs put back */
};

/*
 * LKP's names for knobs: "sc_NAME" or "sysctl.sc_NAME" (its sysctl
 * setup: the file NAME, or
 * with '-' for '_', under /proc/sys/kernel, vm, fs, net/core, net/ipv4,
 * abi or debug, the first that root has) and "transparent_hugepage.KEY"
 * (thp_enabled, thp_defrag, shmem_enabled, enabled_NkB). 1 with *path
 * (allocated) when key is one, 0 when it is not such a key, -1 with
 * *cause when it is but names no file.
 */
/* Whether key is one of those LKP names (recorded as written). */
int	 knob_is_lkp(const char *key);
int	 knob_lkp_path(const char *root, const char *key, char **path,
	     int *bracketed, char **cause);
/* The job's knobs; -1 with *cause for a sysctl name that is not one. */
int	 knob_set_from_job(const struct job *, const char *root,
	     struct knob_set **out, char **cause);
void	 knob_set_free(struct knob_set *);
/*
 * Lock every knob's file, in the order of their paths (while another run
 * holds one, waited for, at most lock_wait seconds in all, then an
 * error); then for each knob: put back what a killed run's journal says
 * (recorded in ks->reaped), read its current value, journal it durably,
 * write the job's, read it back. Stops at the first knob that cannot be
 * set (missing file, refused write, a value that reads back different),
 * with *cause naming it; the knobs applied until then stay applied:
 * call knob_restore.
 */
int	 knob_apply(struct knob_set *, char **cause);
/* After the run: every applied knob still has its value, else -1. */
int	 knob_check(const struct knob_set *, char **cause);
/*
 * Write back the values read before, read them back, remove their
 * journals, and let go of the locks; -1 naming those that failed (their
 * journals stay, for the next run to put back).
 */
int	 knob_restore(struct knob_set *, char **cause);
/* The current value of a knob as the environment records it. */
char	*knob_read(const struct knob_set *, const struct knob *);

/* knob.c's reading, writing and locking of one file, for knob-journal.c */
char	*knob_text(const char *full);
char	*knob_value(const char *full, int bracketed);
void	 knob_normalize(char *);
int	 knob_write_full(const char *full, const char *value, char **cause);
char	*knob_wanted(const struct knob *);
int	 knob_lock_file(const char *full, int *fd, char **cause);

#endif
