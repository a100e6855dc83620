/*
 * LKP's test disks (docs/jobs.md "Disks and file systems"): a job's
 * "disk: 1HDD" takes that many of its agent's declared disks, "fs: xfs"
 * makes that file system on each and mounts it, and the benchmark runs in
 * the mount. The job side reads and checks the keys (for bisectctl check,
 * queue and placement); the agent side sets the disks up around a run,
 * loop-backed scratch disks included, and reaps what a crashed run left.
 */
#ifndef AGENTS_DISK_H
#define AGENTS_DISK_H

#include <stddef.h>

struct config_agent;
struct job;
struct result;

#define DISK_MAX	64	/* disks a job may take */

/* What a job asks for. */
struct disk_want {
	char		 kind[4];	/* "hdd", "ssd"; "" when no disk */
	unsigned	 nr;		/* 0 when no disk */
	const char	*fs;		/* "ext4"...; NULL: no file system */
	const char	*mount_option;	/* NULL: the file system's defaults */
};

/*
 * "1HDD", "2SSD": *nr and kind ("hdd", "ssd"); -1 with *cause for
 * anything else, naming what LKP means by it when bisectd does not do it
 * (BRD ram disks, pmem).
 */
int	 disk_spec_parse(const char *v, unsigned *nr, char kind[4],
	     char **cause);
/*
 * The job's disk, fs, fs2, mount_option (and LKP's map form, disk.nr_hdd):
 * 0 with *out filled (nothing asked: nr 0 and fs NULL), or -1 with *key
 * the job's key at fault and *cause. adapter: the testcase is an adapter
 * (it runs in one mount point), not an inline run: (which gets them all).
 */
int	 disk_job(const struct job *, int adapter, struct disk_want *out,
	     const char **key, char **cause);
/* For bisectctl check: what the agent will set up, or NULL. */
char	*disk_describe(const struct job *);
/* 1 when the agent has the disks the job asks for, else 0 with *why. */
int	 disk_agent_fits(const struct job *, const struct config_agent *,
	     char **why);
/* The agent's disks as bisect-agent's --disk arguments ("hdd=/dev/sdb1",
 * "ssd=loop:8589934592"); allocated, NULL-terminated. */
char	**disk_agent_args(const struct config_agent *, size_t *nr);

/* The agent side. */
struct disk_decl {
	char			 kind[4];
	char			*device;	/* NULL: a loop disk */
	unsigned long long	 loop_size;
};

/* One --disk argument, "KIND=DEVICE" or "KIND=loop:BYTES". */
int	 disk_decl_parse(const char *arg, struct disk_decl *, char **cause);
void	 disk_decl_release(struct disk_decl *);

struct disk_run;

/*
 * Set up what the job asks for from the declared disks, under dir (loop
 * files and mount points, named with this process's id): loop devices
 * attached, file systems made and mounted. The commands' output goes to
 * logfd. *out is NULL when the job asks for nothing. On failure what was
 * done is undone.
 */
int	 disk_run_setup(const struct job *, const struct disk_decl *,
	     size_t nr, const char *dir, int logfd, struct disk_run **out, char **cause);
/* The first mount point, where an adapter's benchmark runs; or NULL. */
const char *disk_run_mount(const struct disk_run *);
/* The first disk when nothing is mounted on it (LKP's raw_disk); or NULL. */
const char *disk_run_partition(const struct disk_run *);
/* env: disk, partitions, fs, mkfs, mount_points, mounted (read back). */
void	 disk_run_env(const struct disk_run *, struct result *);
/* Unmount, detach, remove; -1 with *cause naming what is left. Frees. */
int	 disk_run_teardown(struct disk_run *, char **cause);
/*
 * What runs of agents that are gone left under dir (a crash, a kill -9):
 * unmounted, detached, removed; a missing dir is nothing to do. -1 with
 * *cause when something stays.
 */
int	 disk_run_reap(const char *dir, int logfd, char **cause);
/* mkfs's argv for fs (NULL-terminated; empty for tmpfs); NULL: not one. */
const char *const *disk_mkfs_argv(const char *fs);
/* $BISECT_AGENT_DISK_DIR, else /var/tmp/bisect-agent-disks. */
const char *disk_dir(void);

#endif
