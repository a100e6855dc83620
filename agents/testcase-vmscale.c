/*
 * vm-scalability's anonymous-memory cases, written for the agent (the
 * suite is not packaged): "bisect-agent vm-scalability --test=CASE ..."
 * does what LKP's run script and the suite's case script do with usemem,
 * prints usemem's line per task and refuses the other cases by name
 * (docs/design.md, "File notes").
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
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/testcase.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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

static const struct vmscale_case testcase_vmscale_cases[] = {
	{ "anon-cow-rand", VMSCALE_PREALLOC | VMSCALE_PREFAULT | VMSCALE_RAND,
	  VMSCALE_HALF_TASK1 },
	{ "anon-cow-rand-mt", VMSCALE_MT | VMSCALE_PREALLOC |
	  VMSCALE_PREFAULT | VMSCALE_RAND, VMSCALE_QUARTER },
	{ "anon-cow-seq", VMSCALE_PREALLOC | VMSCALE_PREFAULT,
	  VMSCALE_HALF_TASK1 },
	{ "anon-cow-seq-mt", VMSCALE_MT | VMSCALE_PREALLOC | VMSCALE_PREFAULT,
	  VMSCALE_QUARTER },
	{ "anon-r-rand", VMSCALE_READ | VMSCALE_RAND, VMSCALE_ROTATE_TASK },
	{ "anon-r-rand-mt", VMSCALE_MT | VMSCALE_READ | VMSCALE_RAND,
	  VMSCALE_ROTATE_TASK },
	{ "anon-r-seq", VMSCALE_READ, VMSCALE_PTE_TASK_AS },
	{ "anon-r-seq-mt", VMSCALE_MT | VMSCALE_READ, VMSCALE_PTE_AS_TASK },
	{ "anon-rx-rand-mt", VMSCALE_MT | VMSCALE_PREALLOC | VMSCALE_READ |
	  VMSCALE_RAND, VMSCALE_ROTATE_TASK },
	{ "anon-rx-seq-mt", VMSCALE_MT | VMSCALE_PREALLOC | VMSCALE_READ,
	  VMSCALE_ROTATE },
	{ "anon-w-rand", VMSCALE_RAND, VMSCALE_HALF_TASK },
	{ "anon-w-rand-mt", VMSCALE_MT | VMSCALE_RAND, VMSCALE_HALF_TASK },
	{ "anon-w-seq", 0, VMSCALE_HALF_TASK },
	{ "anon-w-seq-mt", VMSCALE_MT, VMSCALE_HALF_TASK },
	{ "anon-wx-rand-mt", VMSCALE_MT | VMSCALE_PREALLOC | VMSCALE_RAND,
	  VMSCALE_HALF_TASK },
	{ "anon-wx-seq-mt", VMSCALE_MT | VMSCALE_PREALLOC, VMSCALE_HALF },
	{ "shm-pread-rand", VMSCALE_SHM | VMSCALE_READ | VMSCALE_RAND,
	  VMSCALE_SHM_HALF },
	{ "shm-pread-rand-mt", VMSCALE_SHM | VMSCALE_MT | VMSCALE_READ |
	  VMSCALE_RAND, VMSCALE_SHM_HALF },
	{ "shm-pread-seq", VMSCALE_SHM | VMSCALE_READ, VMSCALE_SHM_HALF },
	{ "shm-pread-seq-mt", VMSCALE_SHM | VMSCALE_MT | VMSCALE_READ,
	  VMSCALE_SHM_HALF },
	{ "shm-xread-rand", VMSCALE_SHM | VMSCALE_PREALLOC | VMSCALE_READ |
	  VMSCALE_RAND, VMSCALE_SHM_HALF },
	{ "shm-xread-rand-mt", VMSCALE_SHM | VMSCALE_MT | VMSCALE_PREALLOC |
	  VMSCALE_READ | VMSCALE_RAND, VMSCALE_SHM_HALF },
	{ "shm-xread-seq", VMSCALE_SHM | VMSCALE_PREALLOC | VMSCALE_READ,
	  VMSCALE_SHM_HALF },
	{ "shm-xread-seq-mt", VMSCALE_SHM | VMSCALE_MT | VMSCALE_PREALLOC |
	  VMSCALE_READ, VMSCALE_SHM_HALF },
	{ "small-allocs", VMSCALE_READ | VMSCALE_UNIT, VMSCALE_SMALL },
	{ "small-allocs-mt", VMSCALE_MT | VMSCALE_READ | VMSCALE_UNIT,
	  VMSCALE_SMALL },
};
#define VMSCALE_NR_CASES \
	(sizeof testcase_vmscale_cases / sizeof testcase_vmscale_cases[0])

/* The suite's cases the worker does not do, and why (by name prefix). */
static const struct {
	const char	*prefix;
	const char	*why;
} testcase_vmscale_refused[] = {
	{ "lru-file-", "it reads sparse files in the file system LKP makes "
	  "on a loop image in a tmpfs (its SPARSE_ROOT), which the built-in "
	  "worker does not set up" },
	{ "mmap-", "it maps a sparse file in the file system LKP makes on a "
	  "loop image in a tmpfs (its SPARSE_ROOT), which the built-in "
	  "worker does not set up" },
	{ "mremap-", "it maps and mremaps a sparse file in LKP's SPARSE_ROOT "
	  "file system, which the built-in worker does not set up" },
	{ "msync", "it writes and msyncs a sparse file in LKP's SPARSE_ROOT "
	  "file system, which the built-in worker does not set up" },
	{ "truncate", "it creates and truncates sparse files in LKP's "
	  "SPARSE_ROOT file system, which the built-in worker does not set "
	  "up" },
	{ "shm-lock-unlock", "it locks and unlocks a SysV shared memory "
	  "segment (usemem -L), which the built-in worker does not do" },
	{ "lru-shm", "it runs nr_task usemems, each on a file of its own in "
	  "the run's tmpfs, which the built-in worker does not do (it does "
	  "the shm- cases: one file the tasks share)" },
	{ "anon-cow-rand-hugetlb", "it maps hugetlbfs pages, which need "
	  "vm.nr_hugepages reserved; the built-in worker reserves none" },
	{ "anon-cow-seq-hugetlb", "it maps hugetlbfs pages, which need "
	  "vm.nr_hugepages reserved; the built-in worker reserves none" },
	{ "anon-w-rand-hugetlb", "it maps hugetlbfs pages, which need "
	  "vm.nr_hugepages reserved; the built-in worker reserves none" },
	{ "anon-w-seq-hugetlb", "it maps hugetlbfs pages, which need "
	  "vm.nr_hugepages reserved; the built-in worker reserves none" },
	{ "hugetlb", "it maps hugetlbfs pages, which need vm.nr_hugepages "
	  "reserved; the built-in worker reserves none" },
	{ "migrate", "it moves a file's pages between NUMA nodes with "
	  "numactl's migratepages, which the built-in worker does not do" },
	{ "mbind", "it runs the suite's usemem_mbind (libnuma), which the "
	  "built-in worker does not have" },
	{ "swap", "it needs swap on the job's disks (LKP's swap), which "
	  "bisectd does not set up" },
	{ "ksm", "it runs the suite's usemem_ksm, which the built-in worker "
	  "does not have" },
	{ "fork", "it forks usemem under the suite's own scheme, which the "
	  "built-in worker does not do" },
	{ "mincore", "it runs the suite's usemem_mincore, which the built-in "
	  "worker does not have" },
	{ "mlock", "it mlocks with the suite's options, which the built-in "
	  "worker does not have" },
	{ "remap", "it runs the suite's usemem_remap, which the built-in "
	  "worker does not have" },
	{ "lru-memcg", "it runs usemem in a memory cgroup LKP makes, which "
	  "the built-in worker does not make" },
	{ "posix-fadvise", "it fadvises sparse files in LKP's SPARSE_ROOT "
	  "file system, which the built-in worker does not set up" },
	{ "direct-write", "it runs the suite's usemem_direct_write on LKP's "
	  "SPARSE_ROOT file system, which the built-in worker does not set "
	  "up" },
	{ "000-", "it is one of the suite's set-up steps, not a test" },
};
#define VMSCALE_NR_REFUSED \
	(sizeof testcase_vmscale_refused / sizeof testcase_vmscale_refused[0])

static const char *const testcase_vmscale_thp[] = { "none", "madvise", NULL };
static const char *const testcase_vmscale_pin[] = { "0", "1", NULL };

static const struct vmscale_case *
testcase_vmscale_find(const char *name)
{
	size_t	i;

	for (i = 0; i < VMSCALE_NR_CASES; i++)
		if (strcmp(testcase_vmscale_cases[i].name, name) == 0)
			return &testcase_vmscale_cases[i];
	return NULL;
}

static int
testcase_vmscale_command(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    char **cause)
{
	unsigned long long	 size, unit, eat;
	const char		*t, *p, *test;
	unsigned		 n;

	if ((test = testcase_job_value(ctx->job, "test")) == NULL)
		test = "anon-w-seq";
	if (testcase_vmscale_find(test) == NULL)
		return error_set(cause, "'test' is '%s', not a case the "
		    "built-in vm-scalability worker does", test);
	if (testcase_count(ctx, "nr_task", "100%", &n, cause) != 0 ||
	    testcase_size(ctx, "size", 0, &size, cause) != 0 ||
	    testcase_size(ctx, "unit_size", 0, &unit, cause) != 0 ||
	    testcase_size(ctx, "eatmem_size", 0, &eat, cause) != 0 ||
	    testcase_word(ctx, "thp", testcase_vmscale_thp, "none", &t,
	    cause) != 0 ||
	    testcase_word(ctx, "pin", testcase_vmscale_pin, "0", &p,
	    cause) != 0)
		return -1;
	if (n > VMSCALE_MAX_TASKS)
		return error_set(cause, "'nr_task' is at most %u",
		    VMSCALE_MAX_TASKS);
	testcase_argv_add(argv, "%s", ctx->self);
	testcase_argv_add(argv, "vm-scalability");
	testcase_argv_add(argv, "--test=%s", test);
	testcase_argv_add(argv, "--nr-task=%u", n);
	if (size > 0)
		testcase_argv_add(argv, "--size=%llu", size);
	if (unit > 0)
		testcase_argv_add(argv, "--unit-size=%llu", unit);
	if (eat > 0)
		testcase_argv_add(argv, "--eatmem=%llu", eat);
	testcase_argv_add(argv, "--runtime=%u", ctx->job->runtime > 0 ?
	    ctx->job->runtime : VMSCALE_DEFAULT_RUNTIME);
	if (strcmp(t, "madvise") == 0)
		testcase_argv_add(argv, "--madvise-hugepage");
	if (strcmp(p, "1") == 0)
		testcase_argv_add(argv, "--pin");
	return 0;
}

static int
testcase_vmscale_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* LKP's statistics: the mean, and the deviation with 1/n. */
static double
testcase_vmscale_mean(const double *v, size_t n)
{
	double	s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n > 0 ? s / (double)n : 0;
}

static double
testcase_vmscale_sd(const double *v, size_t n)
{
	double	m = testcase_vmscale_mean(v, n), s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n > 0 ? sqrt(s / (double)n) : 0;
}

struct vmscale_samples {
	double	*kbps;		/* the current sample's tasks */
	size_t	 nr_kbps, alloc_kbps;
	double	*sums;		/* per sample: the sum of its tasks */
	double	*medians;	/* per sample: LKP's median */
	size_t	 nr, alloc_sums, alloc_medians;
};

/* LKP's add_one_sample: the sum and the upper median of one case run. */
static void
testcase_vmscale_sample(struct vmscale_samples *s, int keep)
{
	double	*v, sum = 0;
	size_t	 i;

	if (s->nr_kbps == 0)
		return;
	v = xcalloc(s->nr_kbps, sizeof *v);
	memcpy(v, s->kbps, s->nr_kbps * sizeof *v);
	for (i = 0; i < s->nr_kbps; i++)
		sum += v[i];
	qsort(v, s->nr_kbps, sizeof *v, testcase_vmscale_cmp);
	ALLOC_GROW(s->sums, s->nr, s->alloc_sums);
	ALLOC_GROW(s->medians, s->nr, s->alloc_medians);
	s->sums[s->nr] = sum;
	s->medians[s->nr] = v[s->nr_kbps / 2];
	s->nr++;
	free(v);
	if (!keep)
		s->nr_kbps = 0;
}

/*
 * LKP's programs/vm-scalability/parse over usemem's lines, each line
 * "./case-..." closing a sample (one run of the case): throughput is the
 * mean of the samples' sums (the tasks' KB/s as instances when there is
 * one sample), median the mean of their medians, stddev% and
 * median_stddev% their relative deviations (with one sample, LKP's
 * stddev% is the tasks' deviation times their count over their mean),
 * workload every task's bytes in KiB.
 */
static int
testcase_vmscale_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	struct vmscale_samples	 s;
	char			*copy = xstrndup(out, len), *save = NULL, *l;
	unsigned long long	 bytes, usecs, kbs;
	double			 bsum = 0, sd, m;
	size_t			 i;

	(void)ctx;
	memset(&s, 0, sizeof s);
	for (l = strtok_r(copy, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "./case-", 7) == 0) {
			testcase_vmscale_sample(&s, 0);
			continue;
		}
		while (*l == '.')
			l++;
		if (sscanf(l, "%llu bytes / %llu usecs = %llu KB/s", &bytes,
		    &usecs, &kbs) != 3)
			continue;
		ALLOC_GROW(s.kbps, s.nr_kbps, s.alloc_kbps);
		s.kbps[s.nr_kbps++] = (double)kbs;
		bsum += (double)bytes;
	}
	free(copy);
	testcase_vmscale_sample(&s, 1);
	if (s.nr == 0) {
		free(s.kbps);
		return error_set(cause, "vm-scalability printed no 'bytes / "
		    "usecs' line");
	}
	strbuf_addf(metrics, "throughput: %.17g\n",
	    testcase_vmscale_mean(s.sums, s.nr));
	if (s.nr == 1) {
		for (i = 0; i < s.nr_kbps; i++)
			strbuf_addf(metrics, "throughput.%zu: %.17g\n", i,
			    s.kbps[i]);
		m = testcase_vmscale_mean(s.kbps, s.nr_kbps);
		sd = m > 0 ? testcase_vmscale_sd(s.kbps, s.nr_kbps) *
		    (double)s.nr_kbps / m : 0;
	} else {
		m = testcase_vmscale_mean(s.sums, s.nr);
		sd = m > 0 ? testcase_vmscale_sd(s.sums, s.nr) / m : 0;
	}
	strbuf_addf(metrics, "stddev%%: %.17g\n", 100 * sd);
	strbuf_addf(metrics, "median: %.17g\n",
	    testcase_vmscale_mean(s.medians, s.nr));
	m = testcase_vmscale_mean(s.medians, s.nr);
	strbuf_addf(metrics, "median_stddev%%: %.17g\n", s.nr > 1 && m > 0 ?
	    100 * testcase_vmscale_sd(s.medians, s.nr) / m : 0);
	strbuf_addf(metrics, "workload: %.17g\n", bsum / 1024);
	free(s.kbps);
	free(s.sums);
	free(s.medians);
	return 0;
}

static int
testcase_vmscale_check(const struct job *job, const char **key,
    char **cause)
{
	struct strbuf		 sb = STRBUF_INIT;
	unsigned long long	 size;
	struct testcase_ctx	 ctx;
	const char		*v, *t;
	size_t			 i;

	memset(&ctx, 0, sizeof ctx);
	ctx.job = job;
	*key = "test";
	if ((v = testcase_job_value(job, "test")) != NULL &&
	    testcase_vmscale_find(v) == NULL) {
		for (i = 0; i < VMSCALE_NR_CASES; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "",
			    testcase_vmscale_cases[i].name);
		for (i = 0; i < VMSCALE_NR_REFUSED; i++)
			if (strncmp(v, testcase_vmscale_refused[i].prefix,
			    strlen(testcase_vmscale_refused[i].prefix)) == 0)
				break;
		error_set(cause, "test '%s' is not one that bisect-agent's "
		    "built-in vm-scalability worker does: %s (it does %s)", v,
		    i < VMSCALE_NR_REFUSED ? testcase_vmscale_refused[i].why :
		    "it is not a case of the suite", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	*key = "thp";
	if (testcase_word(&ctx, "thp", testcase_vmscale_thp, "none", &t,
	    cause) != 0)
		return -1;
	*key = "pin";
	if (testcase_word(&ctx, "pin", testcase_vmscale_pin, "0", &t,
	    cause) != 0)
		return -1;
	*key = "size";
	if (testcase_size(&ctx, "size", 0, &size, cause) != 0)
		return -1;
	*key = "unit_size";
	if (testcase_size(&ctx, "unit_size", 0, &size, cause) != 0)
		return -1;
	*key = "eatmem_size";
	if (testcase_size(&ctx, "eatmem_size", 0, &size, cause) != 0)
		return -1;
	*key = "nr_task";
	return testcase_check_count(job, "nr_task", cause);
}

static const char *const testcase_vmscale_params[] = {
	"test", "nr_task", "size", "unit_size", "runtime", "thp", "pin",
	"eatmem_size", NULL
};

/* LKP's eatmem: memory held locked while the case runs (its options) */
static const char *const testcase_vmscale_programs[] = { "eatmem", NULL };

static const char *const testcase_vmscale_metrics[] = {
	"vm-scalability.throughput", "vm-scalability.median",
	"vm-scalability.stddev%", "vm-scalability.median_stddev%",
	"vm-scalability.workload", NULL
};

const struct testcase_adapter testcase_vmscale = {
	.name = "vm-scalability",
	.package = NULL,
	.params = testcase_vmscale_params,
	.programs = testcase_vmscale_programs,
	.metrics = testcase_vmscale_metrics,
	.check = testcase_vmscale_check,
	.command = testcase_vmscale_command,
	.parse = testcase_vmscale_parse,
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

struct vmscale_thread {
	struct vmscale_run	*run;
	unsigned		 idx;
	int			 status;
};

/* usemem's check: whole seconds since the start, more than runtime. */
static int
testcase_vmscale_exceeded(const struct vmscale_run *run)
{
	struct timeval	now;

	if (run->runtime == 0)
		return 0;
	gettimeofday(&now, NULL);
	return (unsigned long)(now.tv_sec - run->start.tv_sec) > run->runtime;
}

static unsigned long *
testcase_vmscale_map(const struct vmscale_run *run, unsigned long bytes,
    int populate)
{
	int	prot = PROT_READ, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void	*p;

	/* usemem -f: the file, shared (read-only: opened so) */
	if (run->fd >= 0)
		flags = MAP_SHARED;
	if (!(run->flags & VMSCALE_READ)) {
		prot |= PROT_WRITE;
		/* LKP's run sets vm.overcommit_memory=1; this asks per map */
		flags |= MAP_NORESERVE;
	}
	if (populate)
		flags |= MAP_POPULATE;
	p = mmap(NULL, bytes, prot, flags, run->fd, 0);
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
testcase_vmscale_pass(const struct vmscale_run *run, unsigned long *p,
    unsigned long bytes, unsigned long long *rnd)
{
	volatile unsigned long	*vp = p;
	unsigned long		 m = bytes / sizeof *p, i, idx, done = 0;
	unsigned long		 sink = 0;
	/* a word of a tmpfs file may be a page to allocate: look oftener */
	unsigned long		 mask = run->fd >= 0 ? 0xfff : 0xffff;

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
		if (!(i & mask) && testcase_vmscale_exceeded(run))
			break;
	}
	(void)sink;
	return done;
}

/* One task: ready, wait for the others, its units, its line. */
static int
testcase_vmscale_task(struct vmscale_run *run, unsigned idx)
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
			if ((p = testcase_vmscale_map(run, size, 0)) == NULL)
				goto out;
			ALLOC_GROW(maps, nr_maps, alloc_maps);
			ALLOC_GROW(lens, nr_maps, alloc_lens);
			maps[nr_maps] = p;
			lens[nr_maps++] = size;
			total += size / 8;
		}
		total += testcase_vmscale_pass(run, p, size, &rnd);
		left -= size;
	} while (left > 0 && !testcase_vmscale_exceeded(run));
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
		munmap(maps[i], lens[i]);
	free(maps);
	free(lens);
	return ret;
}

static void
testcase_vmscale_bind(const struct vmscale_run *run, unsigned idx,
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
testcase_vmscale_thread(void *arg)
{
	struct vmscale_thread	*th = arg;

	th->status = testcase_vmscale_task(th->run, th->idx);
	return NULL;
}

/* usemem -t: nr_task threads of this process. */
static int
testcase_vmscale_threads(struct vmscale_run *run)
{
	struct vmscale_thread	*th = xcalloc(run->nr_task, sizeof *th);
	pthread_t		*t = xcalloc(run->nr_task, sizeof *t);
	unsigned		 i, started = 0;
	int			 bad = 0;

	for (i = 0; i < run->nr_task; i++) {
		th[i].run = run;
		th[i].idx = i;
		if (pthread_create(&t[i], NULL, testcase_vmscale_thread,
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
		testcase_vmscale_bind(run, i, &t[i]);
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
static int
testcase_vmscale_usemem(struct vmscale_run *run)
{
	pid_t		*pids = NULL, pid;
	unsigned	 i, nr, started = 0;
	ssize_t		 n;
	int		 ready[2], wake[2], st, bad = 0;
	char		 c;

	gettimeofday(&run->start, NULL);
	if (run->flags & VMSCALE_PREALLOC) {
		run->prealloc = testcase_vmscale_map(run, run->bytes,
		    (run->flags & VMSCALE_PREFAULT) != 0);
		if (run->prealloc == NULL)
			return 1;
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
				_exit(testcase_vmscale_threads(run));
			testcase_vmscale_bind(run, i, NULL);
			_exit(testcase_vmscale_task(run, i));
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
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	free(pids);
	if (run->prealloc != NULL)
		munmap(run->prealloc, run->bytes);
	run->prealloc = NULL;
	return bad;
}

/* The suite's hw_vars, from this machine. */
struct vmscale_hw {
	unsigned long	mem, mem_avail, rotate, pte_limit, as_limit;
	unsigned long	shm_size;	/* the shm- cases' tmpfs */
	unsigned long	pagesize;
	unsigned	nr_node;
};

static int
testcase_vmscale_hw(struct vmscale_hw *hw)
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
testcase_vmscale_small(const struct vmscale_hw *hw, unsigned long unit)
{
	unsigned long	size = hw->rotate;
	unsigned long	vma_max = 21 * (hw->mem / 3) / 4096;

	while (size / unit > vma_max)
		size >>= 1;
	return size;
}

/* The case script's usemem arguments: bytes per task and the unit. */
static void
testcase_vmscale_size(const struct vmscale_case *vc,
    const struct vmscale_hw *hw, unsigned nr_task, unsigned long unit_size,
    struct vmscale_run *run)
{
	unsigned long	half = unit_size > 0 ? unit_size : hw->mem / 2;
	unsigned long	quarter = unit_size > 0 ? unit_size : hw->mem / 4;
	unsigned long	pte = hw->pte_limit;

	run->unit = 0;
	switch (vc->bytes) {
	case VMSCALE_ROTATE_TASK:
		run->bytes = hw->rotate / nr_task;
		break;
	case VMSCALE_ROTATE:
		run->bytes = hw->rotate;
		break;
	case VMSCALE_PTE_TASK_AS:
		run->bytes = pte / nr_task;
		if (run->bytes > hw->as_limit)
			run->bytes = hw->as_limit;
		break;
	case VMSCALE_PTE_AS_TASK:
		run->bytes = (pte > hw->as_limit ? hw->as_limit : pte) /
		    nr_task;
		break;
	case VMSCALE_HALF_TASK:
		run->bytes = half / nr_task;
		break;
	case VMSCALE_HALF:
		run->bytes = half;
		break;
	case VMSCALE_HALF_TASK1:
		run->bytes = half / (nr_task + 1);
		break;
	case VMSCALE_QUARTER:
		run->bytes = quarter;
		break;
	case VMSCALE_SMALL:
		run->unit = 10 * hw->pagesize;
		run->bytes = testcase_vmscale_small(hw, run->unit) / nr_task;
		break;
	case VMSCALE_SHM_HALF:
		run->bytes = hw->shm_size / 2;
		break;
	}
	/* usemem rounds nothing; a region is whole words */
	run->bytes -= run->bytes % sizeof(unsigned long);
}

#define VMSCALE_TMPFS	"vm-scalability-tmp"

/*
 * LKP's mount_tmpfs and create_sparse_file, for the shm- cases: a tmpfs
 * of size=100% at ./vm-scalability-tmp, in a mount namespace of the
 * worker's own (it goes with the worker, however that ends, and no one
 * else sees it), shm_size its size from statfs, and the sparse file
 * sparse-CASE of that size in it, open for the tasks to map. -1 when
 * it cannot be had (the agent must be root).
 */
static int
testcase_vmscale_shm(const struct vmscale_case *vc, struct vmscale_hw *hw,
    struct vmscale_run *run)
{
	struct statfs	 st;
	char		 path[256];

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

/* The case script's rm and LKP's remove_tmpfs. */
static void
testcase_vmscale_shm_done(const struct vmscale_case *vc, int fd)
{
	char	path[256];

	if (fd < 0)
		return;
	close(fd);
	snprintf(path, sizeof path, "%s/sparse-%s", VMSCALE_TMPFS, vc->name);
	unlink(path);
	if (umount2(VMSCALE_TMPFS, 0) != 0 || rmdir(VMSCALE_TMPFS) != 0)
		fprintf(stderr, "vm-scalability: couldn't remove the tmpfs at "
		    "./%s: %s\n", VMSCALE_TMPFS, strerror(errno));
}

/*
 * LKP's eatmem: per node, eatmem_size / nr_node bytes mapped, populated
 * and locked (bound to the node where there are several), held by a
 * child until the case is done. The pids in pids[] (nr_node of them,
 * 0 where none started); -1 when one could not hold its share.
 */
static int
testcase_vmscale_eatmem(unsigned long long bytes, unsigned nr_node,
    pid_t *pids)
{
	unsigned long	 mask[16];
	unsigned	 i;
	size_t		 share = (size_t)(bytes / nr_node);
	int		 fds[2], bad = 0;
	char		 c;
	void		*p;

	if (pipe(fds) == -1) {
		perror("vm-scalability: eatmem: pipe");
		return -1;
	}
	for (i = 0; i < nr_node; i++) {
		fflush(NULL);
		if ((pids[i] = fork()) == -1) {
			pids[i] = 0;
			bad = 1;
			break;
		}
		if (pids[i] != 0)
			continue;
		close(fds[0]);
		memset(mask, 0, sizeof mask);
		if (nr_node > 1 && i < 16 * 8 * sizeof mask[0]) {
			mask[i / (8 * sizeof mask[0])] = 1UL << (i % (8 *
			    sizeof mask[0]));
			/* MPOL_BIND is 2 */
			if (syscall(SYS_set_mempolicy, 2, mask,
			    (unsigned long)(16 * 8 * sizeof mask[0])) != 0) {
				dprintf(2, "vm-scalability: eatmem: couldn't "
				    "bind to node %u: %s\n", i, strerror(errno));
				_exit(1);
			}
		}
		p = mmap(NULL, share, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED || mlock(p, share) != 0) {
			dprintf(2, "vm-scalability: eatmem: couldn't hold %zu "
			    "bytes locked: %s\n", share, strerror(errno));
			_exit(1);
		}
		memset(p, 1, share);
		printf("eatmem: %zu bytes locked (node %u)\n", share, i);
		fflush(stdout);
		if (write(fds[1], "*", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	/* each holder says it holds its share, or exits (EOF) */
	for (i = 0; !bad && i < nr_node; i++)
		if (read(fds[0], &c, 1) != 1)
			bad = 1;
	close(fds[0]);
	return bad ? -1 : 0;
}

static void
testcase_vmscale_eatmem_stop(pid_t *pids, unsigned nr_node)
{
	unsigned	i;
	int		st;

	for (i = 0; i < nr_node; i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		while (waitpid(pids[i], &st, 0) == -1 && errno == EINTR)
			;
	}
}

int
testcase_vmscale_main(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "nr-task", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "unit-size", required_argument, NULL, 'u' },
		{ "runtime", required_argument, NULL, 't' },
		{ "madvise-hugepage", no_argument, NULL, 'h' },
		{ "pin", no_argument, NULL, 'p' },
		{ "test", required_argument, NULL, 'c' },
		{ "eatmem", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 }
	};
	const struct vmscale_case *vc = testcase_vmscale_find("anon-w-seq");
	struct vmscale_run	 run;
	struct vmscale_hw	 hw;
	unsigned long long	 size = 0, unit = 0, eat = 0, repeat = 1, i;
	unsigned long		 n = 0;
	pid_t			*eaters = NULL;
	time_t			 cur;
	char			*end;
	int			 c, bad = 0, ret = 1;

	memset(&run, 0, sizeof run);
	run.runtime = VMSCALE_DEFAULT_RUNTIME;
	run.fd = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, &end, 10);
			bad |= *end != '\0' || n == 0 || n > VMSCALE_MAX_TASKS;
			break;
		case 's':
			size = strtoull(optarg, &end, 10);
			bad |= *end != '\0' || size == 0;
			break;
		case 'u':
			unit = strtoull(optarg, &end, 10);
			bad |= *end != '\0' || unit == 0;
			break;
		case 't':
			run.runtime = strtoul(optarg, &end, 10);
			bad |= *end != '\0' || run.runtime > 30 * 86400;
			break;
		case 'h':
			run.madv = 1;
			break;
		case 'p':
			run.pin = 1;
			break;
		case 'c':
			bad |= (vc = testcase_vmscale_find(optarg)) == NULL;
			break;
		case 'e':
			eat = strtoull(optarg, &end, 10);
			bad |= *end != '\0' || eat == 0;
			break;
		default:
			bad = 1;
		}
	}
	if (bad || optind != argc) {
		fprintf(stderr, "usage: bisect-agent vm-scalability "
		    "[--test=CASE] [--nr-task=N] [--size=BYTES] "
		    "[--unit-size=BYTES] [--runtime=S] [--madvise-hugepage] "
		    "[--pin] [--eatmem=BYTES]\n");
		return 2;
	}
	if (testcase_vmscale_hw(&hw) != 0)
		return 1;
	run.ncpu = sysconf(_SC_NPROCESSORS_CONF);
	run.nr_task = n > 0 ? (unsigned)n : (unsigned)(run.ncpu > 0 ?
	    run.ncpu : 1);
	run.flags = vc->flags;
	if ((vc->flags & VMSCALE_SHM) && testcase_vmscale_shm(vc, &hw,
	    &run) != 0)
		goto out;
	/* LKP's run: size is spread over the nodes, in unit_size pieces */
	if (size > 0) {
		size *= hw.nr_node;
		/* its set_def_unit_size: shm_size * nr_cpu / 2 for shm- */
		if (unit == 0)
			unit = vc->flags & VMSCALE_SHM ? hw.shm_size *
			    (unsigned long)(run.ncpu > 0 ? run.ncpu : 1) / 2 :
			    hw.mem / 2;
		if (unit > size)
			unit = size;
		repeat = size / unit;
		printf("repeat count: %llu\n", repeat);
	}
	testcase_vmscale_size(vc, &hw, run.nr_task, (unsigned long)unit,
	    &run);
	if (run.bytes == 0) {
		fprintf(stderr, "vm-scalability: %s: the region of each task "
		    "is empty (nr_task %u)\n", vc->name, run.nr_task);
		goto out;
	}
	if (eat > 0) {
		eaters = xcalloc(hw.nr_node, sizeof *eaters);
		if (testcase_vmscale_eatmem(eat, hw.nr_node, eaters) != 0)
			goto out;
	}
	cur = time(NULL);
	for (i = 0; i < repeat; i++) {
		printf("./case-%s\n", vc->name);
		fflush(stdout);
		if (testcase_vmscale_usemem(&run) != 0)
			goto out;
		if ((unsigned long)(time(NULL) - cur) > run.runtime) {
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
	testcase_vmscale_shm_done(vc, run.fd);
	return ret;
}
