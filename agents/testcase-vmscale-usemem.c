/*
 * The worker behind "bisect-agent vm-scalability": usemem as the suite's
 * case scripts run it, for the cases testcase-vmscale.c lists, with the
 * suite's hw_vars read from this machine, LKP's tmpfs for the shm- and
 * file cases (testcase-vmscale-file.c) and its eatmem (docs/jobs.md,
 * "vm-scalability").
 */
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/testcase-vmscale.h"
#include "util/xalloc.h"

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB	(21 << MAP_HUGE_SHIFT)
#endif

struct vmscale_thread {
	struct vmscale_run	*run;
	unsigned		 idx;
	int			 status;
};

/* usemem's check: whole seconds since the start, more than runtime. */
static int
testcase_vmscale_usemem_exceeded(const struct vmscale_run *run)
{
	struct timeval	now;

	if (run->runtime == 0)
		return 0;
	gettimeofday(&now, NULL);
	return (unsigned long)(now.tv_sec - run->start.tv_sec) > run->runtime;
}

/* A map's length: a hugetlb one is whole huge pages, as the kernel's. */
static unsigned long
testcase_vmscale_usemem_len(const struct vmscale_run *run, unsigned long bytes)
{
	if (!(run->flags & VMSCALE_HUGETLB))
		return bytes;
	return (bytes + VMSCALE_HUGE_PAGE - 1) & ~(VMSCALE_HUGE_PAGE - 1);
}

/* A line of /proc/meminfo's "KEY: N" figures, or -1. */
static long long
testcase_vmscale_usemem_meminfo(const char *key)
{
	long long	 v = -1;
	size_t		 len = strlen(key);
	FILE		*f;
	char		 line[256];

	if ((f = fopen("/proc/meminfo", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, key, len) == 0 && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* A number file's value (a sysctl), or -1. */
static long long
testcase_vmscale_usemem_number(const char *path)
{
	long long	 v = -1;
	FILE		*f;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Why a hugetlb map failed: the pool's figures as the kernel has them. */
static void
testcase_vmscale_usemem_huge_why(unsigned long bytes, int err)
{
	dprintf(2, "vm-scalability: couldn't map %lu bytes of 2 MiB hugetlb "
	    "pages: %s: the kernel could not have the pages (%s %lld; "
	    "HugePages_Total %lld, HugePages_Free %lld, HugePages_Rsvd %lld, "
	    "HugePages_Surp %lld)\n", bytes, strerror(err),
	    "vm.nr_overcommit_hugepages",
	    testcase_vmscale_usemem_number(VMSCALE_HUGE_KNOB),
	    testcase_vmscale_usemem_meminfo("HugePages_Total"),
	    testcase_vmscale_usemem_meminfo("HugePages_Free"),
	    testcase_vmscale_usemem_meminfo("HugePages_Rsvd"),
	    testcase_vmscale_usemem_meminfo("HugePages_Surp"));
}

static unsigned long *
testcase_vmscale_usemem_map(const struct vmscale_run *run, unsigned long bytes,
    int populate)
{
	int	prot = PROT_READ, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void	*p;

	/* usemem -f: the file, shared (read-only: opened so) */
	if (run->fd >= 0)
		flags = MAP_SHARED;
	/* --open-rw: writable, though the case may only read */
	if (run->rw)
		prot |= PROT_WRITE;
	/*
	 * usemem -O -U: hugetlb pages, reserved when mapped (as usemem
	 * maps them: a shortfall fails the map, not a later fault)
	 */
	if (run->flags & VMSCALE_HUGETLB) {
		prot |= PROT_WRITE;
		flags |= MAP_HUGETLB | MAP_HUGE_2MB;
	} else if (!(run->flags & VMSCALE_READ)) {
		prot |= PROT_WRITE;
		/* LKP's run sets vm.overcommit_memory=1; this asks per map */
		flags |= MAP_NORESERVE;
	}
	if (populate)
		flags |= MAP_POPULATE;
	p = mmap(NULL, testcase_vmscale_usemem_len(run, bytes), prot, flags,
	    run->fd, 0);
	if (p == MAP_FAILED && (run->flags & VMSCALE_HUGETLB)) {
		testcase_vmscale_usemem_huge_why(bytes, errno);
		return NULL;
	}
	if (p == MAP_FAILED) {
		dprintf(2, "vm-scalability: couldn't map %lu bytes: %s%s\n",
		    bytes, strerror(errno), errno == ENOMEM &&
		    (run->flags & VMSCALE_UNIT) ? " (LKP's run raises "
		    "vm.max_map_count to 2^30: the job's sysctl: may)" : "");
		return NULL;
	}
	if (run->madv)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/*
 * Every word of p once, in order or at random places (as many as it
 * has): the bytes it touched. Runtime is looked at every 65536 words
 * (4096 in a tmpfs file).
 */
static unsigned long
testcase_vmscale_usemem_pass(const struct vmscale_run *run, unsigned long *p,
    unsigned long bytes, unsigned long long *rnd)
{
	volatile unsigned long	*vp = p;
	unsigned long		 m = bytes / sizeof *p, i, idx, done = 0;
	unsigned long		 sink = 0;
	/*
	 * a word of a file may be a page to allocate: look oftener; a
	 * random one of a file on a disk file system may be a large folio
	 * read around it (ext4's, up to 2 MiB): every 16
	 */
	unsigned long		 mask = run->fd < 0 ? 0xffff :
	    (run->flags & (VMSCALE_FILE | VMSCALE_RAND)) ==
	    (VMSCALE_FILE | VMSCALE_RAND) ? 0xf : 0xfff;

	for (i = 0; i < m; i++) {
		idx = i;
		if (run->flags & VMSCALE_RAND) {
			*rnd ^= *rnd << 13;
			*rnd ^= *rnd >> 7;
			*rnd ^= *rnd << 17;
			idx = m > 1 ? (unsigned long)((double)(m - 1) *
			    (double)(*rnd >> 33) / 2147483648.0) : 0;
		}
		if (run->flags & VMSCALE_READ)
			sink += vp[idx];
		else
			vp[idx] = idx;
		done += sizeof *p;
		if (!(i & mask) && testcase_vmscale_usemem_exceeded(run))
			break;
	}
	(void)sink;
	return done;
}

/* One task: ready, wait for the others, its units, its line. */
static int
testcase_vmscale_usemem_task(struct vmscale_run *run, unsigned idx)
{
	unsigned long long	 rnd;
	struct timeval		 stop;
	struct pollfd		 pfd;
	unsigned long		 left = run->bytes, size, total, usecs, *p;
	unsigned long		**maps = NULL, *lens = NULL;
	size_t			 nr_maps = 0, alloc_maps = 0, alloc_lens = 0;
	size_t			 i;
	char			 c = '*', line[128];
	int			 len, ret = 1;

	rnd = ((unsigned long long)time(NULL) << 20) ^
	    ((unsigned long long)getpid() << 8) ^ idx ^ 0x9e3779b97f4a7c15ULL;
	if (rnd == 0)
		rnd = 1;
	total = run->prealloc != NULL ? run->bytes / 8 : 0;
	/* usemem -E counts the mremap as it counts a map */
	if (run->flags & VMSCALE_REMAP)
		total += run->bytes / 8;
	if (write(run->ready, &c, 1) != 1)
		return 1;
	pfd.fd = run->wake;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, -1) == -1 && errno == EINTR)
		;
	do {
		size = run->unit > 0 && run->unit < left ? run->unit : left;
		if (run->prealloc != NULL) {
			p = run->prealloc;
		} else {
			if ((p = testcase_vmscale_usemem_map(run, size, 0)) == NULL)
				goto out;
			ALLOC_GROW(maps, nr_maps, alloc_maps);
			ALLOC_GROW(lens, nr_maps, alloc_lens);
			maps[nr_maps] = p;
			lens[nr_maps++] = size;
			total += size / 8;
		}
		total += testcase_vmscale_usemem_pass(run, p, size, &rnd);
		/* usemem -S: msync(MS_SYNC) after each pass */
		if ((run->flags & VMSCALE_MSYNC) && msync(p, size, MS_SYNC) != 0) {
			dprintf(2, "vm-scalability: msync failed: %s\n",
			    strerror(errno));
			goto out;
		}
		left -= size;
	} while (left > 0 && !testcase_vmscale_usemem_exceeded(run));
	gettimeofday(&stop, NULL);
	usecs = (unsigned long)((stop.tv_sec - run->start.tv_sec) * 1000000 +
	    (stop.tv_usec - run->start.tv_usec));
	if (usecs == 0)
		usecs = 1;
	len = snprintf(line, sizeof line, "%lu bytes / %lu usecs = %lu KB/s\n",
	    total, usecs, (unsigned long)(((unsigned long long)total *
	    1000000ULL >> 10) / usecs));
	ret = write(1, line, (size_t)len) == len ? 0 : 1;
out:
	for (i = 0; i < nr_maps; i++)
		munmap(maps[i], testcase_vmscale_usemem_len(run, lens[i]));
	free(maps);
	free(lens);
	return ret;
}

static void
testcase_vmscale_usemem_bind(const struct vmscale_run *run, unsigned idx,
    pthread_t *t)
{
	cpu_set_t	set;

	if (!run->pin || run->ncpu <= 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(idx % (unsigned long)run->ncpu, &set);
	if (t != NULL)
		pthread_setaffinity_np(*t, sizeof set, &set);
	else
		sched_setaffinity(0, sizeof set, &set);
}

static void *
testcase_vmscale_usemem_thread(void *arg)
{
	struct vmscale_thread	*th = arg;

	th->status = testcase_vmscale_usemem_task(th->run, th->idx);
	return NULL;
}

/* usemem -t: nr_task threads of this process. */
static int
testcase_vmscale_usemem_threads(struct vmscale_run *run)
{
	struct vmscale_thread	*th = xcalloc(run->nr_task, sizeof *th);
	pthread_t		*t = xcalloc(run->nr_task, sizeof *t);
	unsigned		 i, started = 0;
	int			 bad = 0;

	for (i = 0; i < run->nr_task; i++) {
		th[i].run = run;
		th[i].idx = i;
		if (pthread_create(&t[i], NULL, testcase_vmscale_usemem_thread,
		    &th[i]) != 0) {
			dprintf(2, "vm-scalability: couldn't start thread %u\n",
			    i);
			bad = 1;
			/* the parent counts one "ready" per task */
			for (; i < run->nr_task; i++)
				if (write(run->ready, "*", 1) != 1)
					break;
			break;
		}
		testcase_vmscale_usemem_bind(run, i, &t[i]);
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		bad |= th[i].status != 0;
	}
	free(th);
	free(t);
	return bad;
}

/* One usemem: prealloc, the tasks on the barrier, their exit statuses. */
int
testcase_vmscale_usemem_one(struct vmscale_run *run)
{
	pid_t		*pids = NULL, pid;
	unsigned	 i, nr, started = 0;
	unsigned long	 mapped = run->bytes;
	ssize_t		 n;
	int		 ready[2], wake[2], st, bad = 0;
	char		 c;
	void		*q;

	gettimeofday(&run->start, NULL);
	if (run->flags & VMSCALE_PREALLOC) {
		/* usemem -F (the msync cases) populates every map */
		run->prealloc = testcase_vmscale_usemem_map(run, run->bytes,
		    (run->flags & (VMSCALE_PREFAULT | VMSCALE_MSYNC)) != 0);
		if (run->prealloc == NULL)
			return 1;
	}
	/* usemem -E: the prealloc moved to a map SCALE_FACTOR (10) times it */
	if ((run->flags & VMSCALE_REMAP) && run->prealloc != NULL) {
		q = mremap(run->prealloc, run->bytes, 10 * run->bytes,
		    MREMAP_MAYMOVE);
		if (q == MAP_FAILED) {
			dprintf(2, "vm-scalability: couldn't mremap %lu bytes to "
			    "%lu: %s\n", run->bytes, 10 * run->bytes,
			    strerror(errno));
			munmap(run->prealloc, run->bytes);
			run->prealloc = NULL;
			return 1;
		}
		run->prealloc = q;
		mapped = 10 * run->bytes;
	}
	if (pipe(ready) == -1 || pipe(wake) == -1) {
		perror("vm-scalability: pipe");
		return 1;
	}
	run->ready = ready[1];
	run->wake = wake[0];
	nr = run->flags & VMSCALE_MT ? 1 : run->nr_task;
	pids = xcalloc(nr, sizeof *pids);
	for (i = 0; i < nr; i++) {
		fflush(NULL);
		if ((pid = fork()) == -1) {
			perror("vm-scalability: fork");
			bad = 1;
			break;
		}
		if (pid == 0) {
			close(ready[0]);
			close(wake[1]);
			if (run->flags & VMSCALE_MT)
				_exit(testcase_vmscale_usemem_threads(run));
			testcase_vmscale_usemem_bind(run, i, NULL);
			_exit(testcase_vmscale_usemem_task(run, i));
		}
		pids[started++] = pid;
	}
	close(ready[1]);
	close(wake[0]);
	/* every task ready (or every process gone), then all go at once */
	for (i = 0; i < (run->flags & VMSCALE_MT ? run->nr_task : started);) {
		if ((n = read(ready[0], &c, 1)) == 1)
			i++;
		else if (n == 0 || errno != EINTR)
			break;
	}
	close(wake[1]);
	close(ready[0]);
	for (i = 0; i < started; i++) {
		while (waitpid(pids[i], &st, 0) == -1 && errno == EINTR)
			;
		if (WIFSIGNALED(st))
			fprintf(stderr, "vm-scalability: task %u killed by "
			    "signal %d (%s)%s\n", i, WTERMSIG(st),
			    strsignal(WTERMSIG(st)), WTERMSIG(st) == SIGBUS &&
			    (run->flags & VMSCALE_HUGETLB) ? ": a hugetlb page "
			    "its copy on write needed could not be had" : "");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	free(pids);
	if (run->prealloc != NULL)
		munmap(run->prealloc, testcase_vmscale_usemem_len(run, mapped));
	run->prealloc = NULL;
	return bad;
}

static int
testcase_vmscale_usemem_hw(struct vmscale_hw *hw)
{
	unsigned long	 kb;
	glob_t		 g;
	FILE		*f;
	char		 line[256];

	memset(hw, 0, sizeof *hw);
	hw->pagesize = (unsigned long)sysconf(_SC_PAGESIZE);
	if ((f = fopen("/proc/meminfo", "re")) == NULL) {
		perror("vm-scalability: /proc/meminfo");
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "MemTotal: %lu", &kb) == 1)
			hw->mem = kb << 10;
		else if (sscanf(line, "MemAvailable: %lu", &kb) == 1)
			hw->mem_avail = kb << 10;
		else if (sscanf(line, "Hugepagesize: %lu", &kb) == 1)
			hw->hugepagesize = kb << 10;
	}
	fclose(f);
	if (hw->mem == 0 || hw->mem_avail == 0) {
		fprintf(stderr, "vm-scalability: no MemTotal or MemAvailable "
		    "in /proc/meminfo\n");
		return -1;
	}
	hw->nr_node = 1;
	if (glob("/sys/devices/system/node/node[0-9]*", GLOB_NOSORT, NULL,
	    &g) == 0) {
		hw->nr_node = (unsigned)g.gl_pathc;
		globfree(&g);
	}
	hw->as_limit = 1UL << 46;
	hw->pte_limit = hw->mem_avail << 8;
	hw->rotate = 1UL << 42;
	if (hw->rotate > hw->pte_limit)
		hw->rotate = hw->pte_limit;
	return 0;
}

/* small-allocs-common: ROTATE_BYTES halved until the VMAs fit mem / 3. */
static unsigned long
testcase_vmscale_usemem_small(const struct vmscale_hw *hw, unsigned long unit)
{
	unsigned long	size = hw->rotate;
	unsigned long	vma_max = 21 * (hw->mem / 3) / 4096;

	while (size / unit > vma_max)
		size >>= 1;
	return size;
}

/* A size of the case script's, from hw_vars. */
unsigned long
testcase_vmscale_usemem_bytes(enum vmscale_bytes kind,
    const struct vmscale_hw *hw, unsigned nr_task, unsigned long unit_size,
    long ncpu)
{
	unsigned long	half = unit_size > 0 ? unit_size : hw->mem / 2;
	unsigned long	quarter = unit_size > 0 ? unit_size : hw->mem / 4;
	unsigned long	pte = hw->pte_limit, b = 0;

	if (ncpu <= 0)
		ncpu = 1;
	switch (kind) {
	case VMSCALE_ROTATE_TASK:
		b = hw->rotate / nr_task;
		break;
	case VMSCALE_ROTATE:
		b = hw->rotate;
		break;
	case VMSCALE_ROTATE_8:
		b = hw->rotate >> 3;
		break;
	case VMSCALE_PTE_TASK_AS:
		b = pte / nr_task;
		if (b > hw->as_limit)
			b = hw->as_limit;
		break;
	case VMSCALE_PTE_AS_TASK:
		b = (pte > hw->as_limit ? hw->as_limit : pte) / nr_task;
		break;
	case VMSCALE_HALF_TASK:
		b = half / nr_task;
		break;
	case VMSCALE_HALF:
		b = half;
		break;
	case VMSCALE_HALF_TASK1:
		b = half / (nr_task + 1);
		break;
	case VMSCALE_QUARTER:
		b = quarter;
		break;
	case VMSCALE_SMALL:
		b = testcase_vmscale_usemem_small(hw, 10 * hw->pagesize) /
		    nr_task;
		break;
	case VMSCALE_SHM_HALF:
		b = hw->shm_size / 2;
		break;
	case VMSCALE_MEM:
		b = hw->mem;
		break;
	case VMSCALE_MEM_TASK:
		b = hw->mem / nr_task;
		break;
	case VMSCALE_MSYNC_SIZE:
		b = hw->mem / (unsigned long)ncpu / 2;
		break;
	case VMSCALE_SHM_SIZE:
		b = hw->shm_size;
		break;
	case VMSCALE_SHM_TASK_HALF:
		b = hw->shm_size / nr_task / 2;
		break;
	}
	/* usemem rounds nothing; a region is whole words */
	return b - b % sizeof(unsigned long);
}

unsigned long long
testcase_vmscale_usemem_unit(const struct vmscale_case *vc,
    const struct vmscale_hw *hw, long ncpu, unsigned long long size,
    unsigned long long unit, unsigned long long *repeat)
{
	*repeat = 1;
	if (size == 0)
		return unit;
	/* LKP's run: size is spread over the nodes, in unit_size pieces */
	size *= hw->nr_node;
	/*
	 * its set_def_unit_size: shm_size / 2 for lru-shm*, shm_size *
	 * nr_cpu / 2 for the other shm- cases, mem / 2 for the others
	 */
	if (unit == 0 && (vc->flags & VMSCALE_SHM) &&
	    strstr(vc->name, "lru") != NULL)
		unit = hw->shm_size / 2;
	else if (unit == 0)
		unit = vc->flags & VMSCALE_SHM ? hw->shm_size *
		    (unsigned long)(ncpu > 0 ? ncpu : 1) / 2 : hw->mem / 2;
	if (unit > size)
		unit = size;
	*repeat = size / unit;
	return unit;
}

unsigned long long
testcase_vmscale_usemem_hugetlb_pages(const struct vmscale_hw *hw,
    unsigned long long unit, unsigned nr_task)
{
	if (unit == 0)
		unit = hw->mem / 2;
	return unit / VMSCALE_HUGE_PAGE + nr_task + 1;
}

/*
 * Before a hugetlb case: the 2 MiB pages LKP's setup_hugetlb allows it
 * (vm.nr_overcommit_hugepages, which the agent sets for the job and
 * restores) can be had: the default huge page size is the 2 MiB that
 * usemem -U maps, and the free pages of the pool and the surplus still
 * allowed are as many as the case's. Else the run fails saying so.
 */
static int
testcase_vmscale_usemem_hugetlb(const struct vmscale_case *vc,
    const struct vmscale_hw *hw, unsigned long long unit, unsigned nr_task)
{
	unsigned long long	need;
	long long		over, freep, rsvd, surp, room;

	if (hw->hugepagesize != VMSCALE_HUGE_PAGE) {
		fprintf(stderr, "vm-scalability: %s maps 2 MiB hugetlb pages "
		    "in the default size's pool (LKP's setup_hugetlb), and "
		    "this machine's Hugepagesize is %lu kB\n", vc->name,
		    hw->hugepagesize >> 10);
		return -1;
	}
	need = testcase_vmscale_usemem_hugetlb_pages(hw, unit, nr_task);
	over = testcase_vmscale_usemem_number(VMSCALE_HUGE_KNOB);
	freep = testcase_vmscale_usemem_meminfo("HugePages_Free");
	rsvd = testcase_vmscale_usemem_meminfo("HugePages_Rsvd");
	surp = testcase_vmscale_usemem_meminfo("HugePages_Surp");
	if (over < 0 || freep < 0 || rsvd < 0 || surp < 0) {
		fprintf(stderr, "vm-scalability: %s maps hugetlb pages and "
		    "this kernel has no %s or HugePages_ figures in "
		    "/proc/meminfo (CONFIG_HUGETLBFS)\n", vc->name,
		    VMSCALE_HUGE_KNOB);
		return -1;
	}
	/* the pool's free pages not reserved, and the surplus allowed */
	room = freep - rsvd + (over > surp ? over - surp : 0);
	printf("hugetlb: %llu pages of 2 MiB for a unit of %llu bytes and %u "
	    "tasks; vm.nr_overcommit_hugepages %lld, HugePages_Free %lld, "
	    "HugePages_Rsvd %lld, HugePages_Surp %lld\n", need,
	    unit > 0 ? unit : hw->mem / 2, nr_task, over, freep, rsvd, surp);
	fflush(stdout);
	if (room < 0 || (unsigned long long)room < need) {
		fprintf(stderr, "vm-scalability: %s needs %llu hugetlb pages "
		    "of 2 MiB (LKP's setup_hugetlb: unit_size / 2 MiB + "
		    "nr_task + 1) and %lld can be had "
		    "(vm.nr_overcommit_hugepages %lld, HugePages_Free %lld, "
		    "HugePages_Rsvd %lld, HugePages_Surp %lld): bisect-agent "
		    "sets vm.nr_overcommit_hugepages for the job\n", vc->name,
		    need, room, over, freep, rsvd, surp);
		return -1;
	}
	return 0;
}

#define VMSCALE_TMPFS	"vm-scalability-tmp"

/*
 * LKP's mount_tmpfs: a tmpfs of size=100% at ./vm-scalability-tmp, in a
 * mount namespace of the worker's own (it goes with the worker, however
 * that ends, and no one else sees it), shm_size its size from statfs.
 * -1 when it cannot be had (the agent must be root).
 */
static int
testcase_vmscale_usemem_tmpfs(const struct vmscale_case *vc,
    struct vmscale_hw *hw)
{
	struct statfs	 st;

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "vm-scalability: %s maps a file in a tmpfs of "
		    "its own (LKP's mount_tmpfs), in a mount namespace: %s "
		    "(the agent must run as root)\n", vc->name,
		    strerror(errno));
		return -1;
	}
	if ((mkdir(VMSCALE_TMPFS, 0700) != 0 && errno != EEXIST) ||
	    mount(VMSCALE_TMPFS, VMSCALE_TMPFS, "tmpfs", 0, "size=100%") != 0 ||
	    statfs(VMSCALE_TMPFS, &st) != 0) {
		fprintf(stderr, "vm-scalability: couldn't mount a tmpfs at "
		    "./%s: %s\n", VMSCALE_TMPFS, strerror(errno));
		return -1;
	}
	hw->shm_size = (unsigned long)st.f_blocks * (unsigned long)st.f_bsize;
	return 0;
}

/*
 * The shm- cases' create_sparse_file: sparse-CASE of shm_size in the
 * tmpfs, open for the tasks to map.
 */
static int
testcase_vmscale_usemem_shm(const struct vmscale_case *vc,
    struct vmscale_hw *hw, struct vmscale_run *run)
{
	char	path[256];

	snprintf(path, sizeof path, "%s/sparse-%s", VMSCALE_TMPFS, vc->name);
	run->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (run->fd < 0 || ftruncate(run->fd, (off_t)hw->shm_size) != 0) {
		fprintf(stderr, "vm-scalability: %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	printf("tmpfs ./%s, shm_size %lu, file %s\n", VMSCALE_TMPFS,
	    hw->shm_size, path);
	return 0;
}

/* The case script's rm, LKP's remove_sparse_root and remove_tmpfs. */
static void
testcase_vmscale_usemem_tmpfs_done(const struct vmscale_case *vc, int fd,
    int root)
{
	char	path[256];

	if (fd >= 0) {
		close(fd);
		snprintf(path, sizeof path, "%s/sparse-%s", VMSCALE_TMPFS,
		    vc->name);
		unlink(path);
	}
	if (root)
		testcase_vmscale_file_root_done(VMSCALE_TMPFS);
	if (umount2(VMSCALE_TMPFS, 0) != 0 || rmdir(VMSCALE_TMPFS) != 0)
		fprintf(stderr, "vm-scalability: couldn't remove the tmpfs at "
		    "./%s: %s\n", VMSCALE_TMPFS, strerror(errno));
}

/*
 * LKP's run and the case script: nr_task tasks, size (if given) spread
 * over the nodes in unit_size pieces, each piece a sample, until runtime
 * has passed; eatmem's memory held meanwhile.
 */
int
testcase_vmscale_usemem_run(const struct vmscale_case *vc,
    struct vmscale_run *run, const struct vmscale_opts *o)
{
	struct vmscale_hw	 hw;
	unsigned long long	 size = o->size, unit = o->unit, repeat = 1, i;
	pid_t			*eaters = NULL;
	time_t			 cur;
	int			 ret = 1, tmpfs = 0, root = 0;
	char			 dir[256];

	if (testcase_vmscale_usemem_hw(&hw) != 0)
		return 1;
	run->ncpu = sysconf(_SC_NPROCESSORS_CONF);
	run->nr_task = o->nr_task > 0 ? (unsigned)o->nr_task :
	    (unsigned)(run->ncpu > 0 ? run->ncpu : 1);
	run->flags = vc->flags;
	/* the msync cases: nr_cpu tasks */
	if (vc->flags & VMSCALE_NCPU)
		run->nr_task = (unsigned)(run->ncpu > 0 ? run->ncpu : 1);
	run->rw = (vc->flags & VMSCALE_MSYNC) != 0;
	snprintf(dir, sizeof dir, "%s", VMSCALE_TMPFS);
	if ((vc->flags & VMSCALE_FILE) && o->root != NULL) {
		/* LKP's pre_setup: 1: the job's file system is SPARSE_ROOT */
		snprintf(dir, sizeof dir, "%s", o->root);
		printf("sparse root %s: the job's file system (pre_setup: 1)\n",
		    dir);
	} else if (vc->flags & (VMSCALE_SHM | VMSCALE_FILE)) {
		if (testcase_vmscale_usemem_tmpfs(vc, &hw) != 0)
			goto out;
		tmpfs = 1;
	}
	if ((vc->flags & VMSCALE_FILE) && o->root == NULL) {
		if (testcase_vmscale_file_root(VMSCALE_TMPFS, &hw) != 0)
			goto out;
		root = 1;
		snprintf(dir, sizeof dir, "%s/vm-scalability", VMSCALE_TMPFS);
	}
	if ((vc->flags & VMSCALE_SHM) && !(vc->flags & VMSCALE_INST) &&
	    testcase_vmscale_usemem_shm(vc, &hw, run) != 0)
		goto out;
	unit = testcase_vmscale_usemem_unit(vc, &hw, run->ncpu, size, unit,
	    &repeat);
	if (size > 0)
		printf("repeat count: %llu\n", repeat);
	if ((vc->flags & VMSCALE_HUGETLB) &&
	    testcase_vmscale_usemem_hugetlb(vc, &hw, unit, run->nr_task) != 0)
		goto out;
	run->unit = vc->bytes == VMSCALE_SMALL ? 10 * hw.pagesize : 0;
	run->bytes = testcase_vmscale_usemem_bytes(vc->bytes, &hw, run->nr_task,
	    (unsigned long)unit, run->ncpu);
	if (run->bytes == 0) {
		fprintf(stderr, "vm-scalability: %s: the region of each task "
		    "is empty (nr_task %u)\n", vc->name, run->nr_task);
		goto out;
	}
	if (o->eat > 0) {
		eaters = xcalloc(hw.nr_node, sizeof *eaters);
		if (testcase_vmscale_eatmem_start(o->eat, hw.nr_node, eaters) != 0)
			goto out;
	}
	cur = time(NULL);
	for (i = 0; i < repeat; i++) {
		printf("./case-%s\n", vc->name);
		fflush(stdout);
		if ((vc->flags & (VMSCALE_FILE | VMSCALE_INST)) ?
		    testcase_vmscale_file_one(vc, &hw, run, dir) != 0 :
		    testcase_vmscale_usemem_one(run) != 0)
			goto out;
		if ((unsigned long)(time(NULL) - cur) > run->runtime) {
			if (i + 1 < repeat)
				printf("runtime exceeded, consider adjust size "
				    "configuration\n");
			break;
		}
	}
	ret = 0;
out:
	fflush(stdout);
	if (eaters != NULL)
		testcase_vmscale_eatmem_stop(eaters, hw.nr_node);
	free(eaters);
	if (tmpfs)
		testcase_vmscale_usemem_tmpfs_done(vc, run->fd, root);
	return ret;
}
