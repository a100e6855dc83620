/*
 * What the vm-scalability adapter (testcase-vmscale.c) and its usemem
 * worker (testcase-vmscale-usemem.c) share: the suite's cases, how each
 * sizes its region, and one usemem run (docs/jobs.md, "vm-scalability").
 */
#ifndef AGENTS_TESTCASE_VMSCALE_H
#define AGENTS_TESTCASE_VMSCALE_H

#include <sys/time.h>

#define VMSCALE_MAX_TASKS	65536
#define VMSCALE_DEFAULT_RUNTIME	300	/* LKP's run */

/* How a case sizes its region, from the suite's hw_vars. */
enum vmscale_bytes {
	VMSCALE_ROTATE_TASK,	/* ROTATE_BYTES / nr_task */
	VMSCALE_ROTATE,		/* ROTATE_BYTES */
	VMSCALE_PTE_TASK_AS,	/* min(PTE_LIMIT / nr_task, AS_LIMIT) */
	VMSCALE_PTE_AS_TASK,	/* min(PTE_LIMIT, AS_LIMIT) / nr_task */
	VMSCALE_HALF_TASK,	/* unit_size (mem / 2) / nr_task */
	VMSCALE_HALF,		/* unit_size (mem / 2) */
	VMSCALE_HALF_TASK1,	/* unit_size (mem / 2) / (nr_task + 1) */
	VMSCALE_QUARTER,	/* unit_size (mem / 4) */
	VMSCALE_SMALL,		/* small-allocs-common's size / nr_task */
	VMSCALE_SHM_HALF,	/* shm_size / 2, of the file in the tmpfs */
};

#define VMSCALE_MT		0x01	/* usemem -t: threads of one process */
#define VMSCALE_READ		0x02	/* --readonly */
#define VMSCALE_RAND		0x04	/* --random */
#define VMSCALE_PREALLOC	0x08	/* --prealloc: made before the tasks */
#define VMSCALE_PREFAULT	0x10	/* --prefault: populated too */
#define VMSCALE_UNIT		0x20	/* --unit: 10 pages at a time */
#define VMSCALE_SHM		0x40	/* -f: a sparse file in the run's tmpfs */

struct vmscale_case {
	const char		*name;
	unsigned		 flags;
	enum vmscale_bytes	 bytes;
};

/* One usemem run: what every task of it shares. */
struct vmscale_run {
	unsigned		 flags;
	unsigned long		 bytes;		/* per task */
	unsigned long		 unit;		/* 0: the whole region */
	unsigned long		 runtime;
	struct timeval		 start;		/* usemem's start_time */
	unsigned long		*prealloc;
	int			 wake;		/* read end: EOF is "go" */
	int			 ready;		/* write end: one byte each */
	int			 madv;
	int			 pin;
	long			 ncpu;
	unsigned		 nr_task;
	int			 fd;		/* the shm- cases' file, or -1 */
};

/* The worker's options beyond the run's (0: not given). */
struct vmscale_opts {
	unsigned long		 nr_task;
	unsigned long long	 size, unit, eat;
};

const struct vmscale_case *testcase_vmscale_find(const char *name);
/* LKP's run of the case: 0, or 1 when it could not run. */
int	 testcase_vmscale_usemem_run(const struct vmscale_case *,
	     struct vmscale_run *, const struct vmscale_opts *);

#endif
