/*
 * What the vm-scalability adapter (testcase-vmscale.c) and its usemem
 * worker (testcase-vmscale-usemem.c) share: the suite's cases, how each
 * sizes its region, and one usemem run (docs/jobs.md, "vm-scalability").
 */
#ifndef AGENTS_TESTCASE_VMSCALE_H
#define AGENTS_TESTCASE_VMSCALE_H

#include <sys/time.h>
#include <sys/types.h>

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
	VMSCALE_ROTATE_8,	/* ROTATE_BYTES >> 3 */
	VMSCALE_MEM,		/* mem */
	VMSCALE_MEM_TASK,	/* mem / nr_task */
	VMSCALE_MSYNC_SIZE,	/* mem / nr_cpu / 2 */
	VMSCALE_SHM_SIZE,	/* shm_size */
	VMSCALE_SHM_TASK_HALF,	/* shm_size / nr_task / 2 */
};

#define VMSCALE_MT		0x01	/* usemem -t: threads of one process */
#define VMSCALE_READ		0x02	/* --readonly */
#define VMSCALE_RAND		0x04	/* --random */
#define VMSCALE_PREALLOC	0x08	/* --prealloc: made before the tasks */
#define VMSCALE_PREFAULT	0x10	/* --prefault: populated too */
#define VMSCALE_UNIT		0x20	/* --unit: 10 pages at a time */
#define VMSCALE_SHM		0x40	/* -f: a sparse file in the run's tmpfs */
#define VMSCALE_FILE		0x80	/* -f: a sparse file in SPARSE_ROOT */
#define VMSCALE_INST		0x100	/* a usemem per task, on file i each */
#define VMSCALE_NCPU		0x200	/* nr_cpu tasks, not nr_task */
#define VMSCALE_REMAP		0x400	/* -E: the prealloc mremapped x10 */
#define VMSCALE_MSYNC		0x800	/* -S -F --open-rw: msync each pass */
#define VMSCALE_DD		0x1000	/* dd bs=4k readers of file i each */
#define VMSCALE_DD2		0x2000	/* two of them per file */
#define VMSCALE_TRUNC		0x4000	/* read the files in, then rm them */
#define VMSCALE_SEQ		0x8000	/* truncate-seq: rm one by one */
#define VMSCALE_HUGETLB		0x10000	/* usemem -O -U: 2 MiB hugetlb pages */

/* The suite's hugetlb pages (usemem -U maps MAP_HUGE_2MB). */
#define VMSCALE_HUGE_PAGE	(2UL << 20)
/* Where LKP's setup_hugetlb allows them: the default (2 MiB) size's. */
#define VMSCALE_HUGE_KNOB	"/proc/sys/vm/nr_overcommit_hugepages"

struct vmscale_case {
	const char		*name;
	unsigned		 flags;
	enum vmscale_bytes	 bytes;
	enum vmscale_bytes	 file;	/* VMSCALE_FILE, INST: each file's size */
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
	int			 rw;		/* --open-rw: the file read-write */
};

/* The worker's options beyond the run's (0: not given). */
struct vmscale_opts {
	unsigned long		 nr_task;
	unsigned long long	 size, unit, eat;
	const char		*root;	/* pre_setup: the job's SPARSE_ROOT */
};

/* The suite's hw_vars, from this machine. */
struct vmscale_hw {
	unsigned long	mem, mem_avail, rotate, pte_limit, as_limit;
	unsigned long	shm_size;	/* the tmpfs's size */
	unsigned long	pagesize;
	unsigned long	hugepagesize;	/* meminfo's Hugepagesize, bytes */
	unsigned	nr_node;
};

const struct vmscale_case *testcase_vmscale_find(const char *name);
/* One usemem: prealloc, the tasks on the barrier; 0 or 1. */
int	 testcase_vmscale_usemem_one(struct vmscale_run *);
/* The case's size for kind (enum vmscale_bytes) on this machine. */
unsigned long testcase_vmscale_usemem_bytes(enum vmscale_bytes,
	     const struct vmscale_hw *, unsigned nr_task, unsigned long unit,
	     long ncpu);
/*
 * LKP's run: with size (0: none), the unit each run of the case takes
 * (unit_size, or its set_def_unit_size; at most size x nr_node) and
 * the runs (*repeat); without, unit as given (0: the case's default).
 */
unsigned long long testcase_vmscale_usemem_unit(const struct vmscale_case *,
	     const struct vmscale_hw *, long ncpu, unsigned long long size,
	     unsigned long long unit, unsigned long long *repeat);
/*
 * LKP's setup_hugetlb: the 2 MiB pages a hugetlb case may take, for its
 * unit (0: mem / 2) and nr_task: the unit's pages, and nr_task + 1 for
 * the regions' rounding.
 */
unsigned long long testcase_vmscale_usemem_hugetlb_pages(const struct vmscale_hw *,
	     unsigned long long unit, unsigned nr_task);
/*
 * The knob a job's hugetlb case needs (agents/knob.c): 1 with *value,
 * vm.nr_overcommit_hugepages for the machine at root (its memory, CPUs
 * and nodes, as the run's inventory reads them); 0 when the job has no
 * hugetlb case; -1 with *cause when the machine cannot have it.
 */
struct job;
int	 testcase_vmscale_knob(const struct job *, const char *root,
	     char **value, char **cause);
/*
 * The cases on sparse files (testcase-vmscale-file.c): SPARSE_ROOT, an
 * ext4 on a loop image in the worker's tmpfs (at tmpfs/), made, and
 * one run of the case; the files made and removed. 0 or 1.
 */
int	 testcase_vmscale_file_root(const char *tmpfs,
	     const struct vmscale_hw *);
int	 testcase_vmscale_file_one(const struct vmscale_case *,
	     const struct vmscale_hw *, struct vmscale_run *,
	     const char *dir);
void	 testcase_vmscale_file_root_done(const char *tmpfs);
/* LKP's run of the case: 0, or 1 when it could not run. */
int	 testcase_vmscale_usemem_run(const struct vmscale_case *,
	     struct vmscale_run *, const struct vmscale_opts *);

/*
 * LKP's eatmem: bytes / nr_node per node mapped, populated and locked by
 * a child each (bound to its node where there are several), held until
 * testcase_vmscale_eatmem_stop; the pids in pids[] (0 where none
 * started). -1 when one could not hold its share.
 */
int	testcase_vmscale_eatmem_start(unsigned long long bytes,
	    unsigned nr_node, pid_t *pids);
void	testcase_vmscale_eatmem_stop(pid_t *pids, unsigned nr_node);

#endif
