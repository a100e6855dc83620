/*
 * vm-scalability's adapter (the suite is not packaged): the cases the
 * agent's worker does ("bisect-agent vm-scalability --test=CASE ...",
 * testcase-vmscale-usemem.c, testcase-vmscale-file.c), those it refuses
 * by name and why, and LKP's parse of their lines (docs/design.md,
 * "File notes").
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/inventory.h"
#include "agents/testcase.h"
#include "agents/testcase-vmscale.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct vmscale_case testcase_vmscale_cases[] = {
	{ "anon-cow-rand", VMSCALE_PREALLOC | VMSCALE_PREFAULT | VMSCALE_RAND,
	  VMSCALE_HALF_TASK1 },
	{ "anon-cow-rand-hugetlb", VMSCALE_HUGETLB | VMSCALE_PREALLOC |
	  VMSCALE_PREFAULT | VMSCALE_RAND, VMSCALE_HALF_TASK1 },
	{ "anon-cow-rand-mt", VMSCALE_MT | VMSCALE_PREALLOC |
	  VMSCALE_PREFAULT | VMSCALE_RAND, VMSCALE_QUARTER },
	{ "anon-cow-seq", VMSCALE_PREALLOC | VMSCALE_PREFAULT,
	  VMSCALE_HALF_TASK1 },
	{ "anon-cow-seq-hugetlb", VMSCALE_HUGETLB | VMSCALE_PREALLOC |
	  VMSCALE_PREFAULT, VMSCALE_HALF_TASK1 },
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
	{ "anon-w-rand-hugetlb", VMSCALE_HUGETLB | VMSCALE_RAND,
	  VMSCALE_HALF_TASK },
	{ "anon-w-rand-mt", VMSCALE_MT | VMSCALE_RAND, VMSCALE_HALF_TASK },
	{ "anon-w-seq", 0, VMSCALE_HALF_TASK },
	{ "anon-w-seq-hugetlb", VMSCALE_HUGETLB, VMSCALE_HALF_TASK },
	{ "anon-w-seq-mt", VMSCALE_MT, VMSCALE_HALF_TASK },
	{ "anon-wx-rand-mt", VMSCALE_MT | VMSCALE_PREALLOC | VMSCALE_RAND,
	  VMSCALE_HALF_TASK },
	{ "anon-wx-seq-mt", VMSCALE_MT | VMSCALE_PREALLOC, VMSCALE_HALF },
	{ "lru-file-mmap-read", VMSCALE_FILE | VMSCALE_INST | VMSCALE_READ,
	  VMSCALE_ROTATE_TASK, VMSCALE_ROTATE_TASK },
	{ "lru-file-mmap-read-rand", VMSCALE_FILE | VMSCALE_INST |
	  VMSCALE_READ | VMSCALE_RAND, VMSCALE_ROTATE_TASK,
	  VMSCALE_ROTATE_TASK },
	{ "lru-file-readonce", VMSCALE_FILE | VMSCALE_DD, VMSCALE_ROTATE_TASK,
	  VMSCALE_ROTATE_TASK },
	{ "lru-file-readtwice", VMSCALE_FILE | VMSCALE_DD | VMSCALE_DD2,
	  VMSCALE_ROTATE_TASK, VMSCALE_ROTATE_TASK },
	{ "lru-shm", VMSCALE_SHM | VMSCALE_INST | VMSCALE_READ,
	  VMSCALE_SHM_TASK_HALF, VMSCALE_SHM_SIZE },
	{ "lru-shm-rand", VMSCALE_SHM | VMSCALE_INST | VMSCALE_READ |
	  VMSCALE_RAND, VMSCALE_SHM_TASK_HALF, VMSCALE_SHM_SIZE },
	{ "mmap-pread-rand", VMSCALE_FILE | VMSCALE_READ | VMSCALE_RAND,
	  VMSCALE_ROTATE_TASK, VMSCALE_ROTATE_TASK },
	{ "mmap-pread-rand-mt", VMSCALE_FILE | VMSCALE_MT | VMSCALE_READ |
	  VMSCALE_RAND, VMSCALE_ROTATE_TASK, VMSCALE_ROTATE_TASK },
	{ "mmap-pread-seq", VMSCALE_FILE | VMSCALE_READ, VMSCALE_ROTATE,
	  VMSCALE_ROTATE },
	{ "mmap-pread-seq-mt", VMSCALE_FILE | VMSCALE_MT | VMSCALE_READ,
	  VMSCALE_ROTATE_8, VMSCALE_ROTATE },
	{ "mmap-xread-rand-mt", VMSCALE_FILE | VMSCALE_MT | VMSCALE_PREALLOC |
	  VMSCALE_READ | VMSCALE_RAND, VMSCALE_ROTATE_TASK,
	  VMSCALE_ROTATE_TASK },
	{ "mmap-xread-seq-mt", VMSCALE_FILE | VMSCALE_MT | VMSCALE_PREALLOC |
	  VMSCALE_READ, VMSCALE_ROTATE_8, VMSCALE_ROTATE },
	{ "mremap-xread-rand-mt", VMSCALE_FILE | VMSCALE_INST | VMSCALE_MT |
	  VMSCALE_REMAP | VMSCALE_PREALLOC | VMSCALE_READ | VMSCALE_RAND,
	  VMSCALE_ROTATE_TASK, VMSCALE_ROTATE_TASK },
	{ "msync", VMSCALE_FILE | VMSCALE_INST | VMSCALE_NCPU | VMSCALE_MSYNC |
	  VMSCALE_PREALLOC, VMSCALE_MSYNC_SIZE, VMSCALE_MEM },
	{ "msync-mt", VMSCALE_FILE | VMSCALE_MT | VMSCALE_NCPU |
	  VMSCALE_MSYNC | VMSCALE_PREALLOC, VMSCALE_MSYNC_SIZE, VMSCALE_MEM },
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
	{ "truncate", VMSCALE_FILE | VMSCALE_TRUNC, VMSCALE_MEM_TASK,
	  VMSCALE_MEM_TASK },
	{ "truncate-seq", VMSCALE_FILE | VMSCALE_TRUNC | VMSCALE_SEQ,
	  VMSCALE_MEM_TASK, VMSCALE_MEM_TASK },
};
#define VMSCALE_NR_CASES \
	(sizeof testcase_vmscale_cases / sizeof testcase_vmscale_cases[0])

/* The suite's cases the worker does not do, and why (by name prefix). */
static const struct {
	const char	*prefix;
	const char	*why;
} testcase_vmscale_refused[] = {
	{ "shm-lock-unlock", "it locks and unlocks a SysV shared memory "
	  "segment (usemem -L), which the built-in worker does not do" },
	{ "hugetlb", "it writes vm.nr_hugepages (a third of memory) and 0 "
	  "back, and prints none of the lines LKP's parse reads" },
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
	{ "posix-fadvise", "it runs usemem -D (posix_fadvise WILLNEED, then "
	  "DONTNEED, on a file), which the built-in worker does not do" },
	{ "direct-write", "it runs the suite's usemem_direct_write, which the "
	  "built-in worker does not have" },
	{ "000-", "it is one of the suite's set-up steps, not a test" },
};
#define VMSCALE_NR_REFUSED \
	(sizeof testcase_vmscale_refused / sizeof testcase_vmscale_refused[0])

static const char *const testcase_vmscale_thp[] = { "none", "madvise", NULL };
static const char *const testcase_vmscale_pin[] = { "0", "1", NULL };

/*
 * LKP's pre_setup: 1 ("setup by disk/fs"): the cases' sparse files in
 * the job's mount point (its SPARSE_ROOT), no tmpfs or root made; so
 * the job has a file system and the case is one on files. 0 when not.
 */
static int
testcase_vmscale_pre_setup(const struct testcase_ctx *ctx, const char **pre,
    char **cause)
{
	const struct vmscale_case	*vc;
	const char			*test;

	if (testcase_word(ctx, "pre_setup", testcase_vmscale_pin, "0", pre,
	    cause) != 0)
		return -1;
	if (strcmp(*pre, "1") != 0)
		return 0;
	if (job_param(ctx->job, "fs") == NULL &&
	    job_param(ctx->job, "fs.fs") == NULL)
		return error_set(cause, "'pre_setup' is 1 (the sparse files "
		    "in the job's file system) and the job gives no 'fs' "
		    "(and 'disk')");
	if ((test = testcase_job_value(ctx->job, "test")) == NULL)
		test = "anon-w-seq";
	if ((vc = testcase_vmscale_find(test)) != NULL &&
	    !(vc->flags & VMSCALE_FILE))
		return error_set(cause, "'pre_setup' is 1 and test '%s' is "
		    "not a case on sparse files (%s)", test,
		    vc->flags & VMSCALE_SHM ? "it needs LKP's tmpfs, which "
		    "pre_setup: 1 leaves unmounted" : "it uses no file");
	return 0;
}

const struct vmscale_case *
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
	const char		*t, *p, *test, *pre;
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
	if (testcase_vmscale_pre_setup(ctx, &pre, cause) != 0)
		return -1;
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
	/* the run's workdir: the job's mount point, where it has one */
	if (strcmp(pre, "1") == 0)
		testcase_argv_add(argv, "--sparse-root=%s", ctx->workdir);
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
 * throughput, stddev%, median, median_stddev% (suffix "" or "_fault")
 * of the samples, as LKP's parse computes them: throughput the mean of
 * the samples' sums (the tasks' KB/s as instances when there is one
 * sample, and throughput only), median the mean of their medians,
 * stddev% and median_stddev% their relative deviations (with one
 * sample, LKP's stddev% is the tasks' deviation times their count over
 * their mean).
 */
static void
testcase_vmscale_stats(const struct vmscale_samples *s, const char *suffix,
    struct strbuf *metrics)
{
	double	sd, m;
	size_t	i;

	strbuf_addf(metrics, "throughput%s: %.17g\n", suffix,
	    testcase_vmscale_mean(s->sums, s->nr));
	if (s->nr == 1) {
		if (*suffix == '\0')
			for (i = 0; i < s->nr_kbps; i++)
				strbuf_addf(metrics, "throughput.%zu: %.17g\n",
				    i, s->kbps[i]);
		m = testcase_vmscale_mean(s->kbps, s->nr_kbps);
		sd = m > 0 ? testcase_vmscale_sd(s->kbps, s->nr_kbps) *
		    (double)s->nr_kbps / m : 0;
	} else {
		m = testcase_vmscale_mean(s->sums, s->nr);
		sd = m > 0 ? testcase_vmscale_sd(s->sums, s->nr) / m : 0;
	}
	strbuf_addf(metrics, "stddev%s%%: %.17g\n", suffix, 100 * sd);
	m = testcase_vmscale_mean(s->medians, s->nr);
	strbuf_addf(metrics, "median%s: %.17g\n", suffix, m);
	strbuf_addf(metrics, "median%s_stddev%%: %.17g\n", suffix,
	    s->nr > 1 && m > 0 ?
	    100 * testcase_vmscale_sd(s->medians, s->nr) / m : 0);
}

static void
testcase_vmscale_add(struct vmscale_samples *s, double kbps)
{
	ALLOC_GROW(s->kbps, s->nr_kbps, s->alloc_kbps);
	s->kbps[s->nr_kbps++] = kbps;
}

static void
testcase_vmscale_samples_release(struct vmscale_samples *s)
{
	free(s->kbps);
	free(s->sums);
	free(s->medians);
}

/*
 * LKP's programs/vm-scalability/parse over the worker's lines, each
 * line "./case-..." closing a sample (one run of the case): usemem's
 * "B bytes / U usecs = K KB/s" (K), dd's "B bytes (...) copied, S s,
 * ..." ((B >> 10) / S), the truncate cases' "B bytes truncated in T1-T0
 * seconds" ((B >> 10) / (T1 - T0)) and truncate-seq's "B bytes faulted
 * in T1-T0 seconds" (the _fault metrics), each B added to workload (in
 * KiB), but the faulted ones.
 */
static int
testcase_vmscale_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	struct vmscale_samples	 s, f;
	char			*copy = xstrndup(out, len), *save = NULL, *l;
	char			*p;
	unsigned long long	 bytes, usecs, kbs;
	double			 bsum = 0, t1, t0;
	int			 n;

	(void)ctx;
	memset(&s, 0, sizeof s);
	memset(&f, 0, sizeof f);
	for (l = strtok_r(copy, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "./case-", 7) == 0) {
			testcase_vmscale_sample(&s, 0);
			testcase_vmscale_sample(&f, 0);
			continue;
		}
		while (*l == '.')
			l++;
		if (sscanf(l, "%llu bytes / %llu usecs = %llu KB/s", &bytes,
		    &usecs, &kbs) == 3) {
			testcase_vmscale_add(&s, (double)kbs);
			bsum += (double)bytes;
		} else if ((n = 0, sscanf(l, "%llu bytes (%n", &bytes,
		    &n)) == 1 &&
		    n > 0 && (p = strstr(l, ") copied, ")) != NULL &&
		    sscanf(p, ") copied, %lf s,", &t1) == 1 && t1 > 0) {
			testcase_vmscale_add(&s, (double)(bytes >> 10) / t1);
			bsum += (double)bytes;
		} else if (sscanf(l, "%llu bytes truncated in %lf-%lf seconds",
		    &bytes, &t1, &t0) == 3 && t1 > t0) {
			testcase_vmscale_add(&s, (double)(bytes >> 10) /
			    (t1 - t0));
			bsum += (double)bytes;
		} else if (sscanf(l, "%llu bytes faulted in %lf-%lf seconds",
		    &bytes, &t1, &t0) == 3 && t1 > t0) {
			testcase_vmscale_add(&f, (double)(bytes >> 10) /
			    (t1 - t0));
		}
	}
	free(copy);
	testcase_vmscale_sample(&s, 1);
	testcase_vmscale_sample(&f, 1);
	if (s.nr == 0) {
		testcase_vmscale_samples_release(&s);
		testcase_vmscale_samples_release(&f);
		return error_set(cause, "vm-scalability printed no 'bytes / "
		    "usecs', dd or 'bytes truncated' line");
	}
	testcase_vmscale_stats(&s, "", metrics);
	strbuf_addf(metrics, "workload: %.17g\n", bsum / 1024);
	if (f.nr > 0)
		testcase_vmscale_stats(&f, "_fault", metrics);
	testcase_vmscale_samples_release(&s);
	testcase_vmscale_samples_release(&f);
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
	if (strcmp(t, "madvise") == 0 && v != NULL &&
	    (testcase_vmscale_find(v)->flags & VMSCALE_HUGETLB))
		return error_set(cause, "'thp: madvise' asks for transparent "
		    "huge pages, and test '%s' maps hugetlb pages", v);
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
	*key = "pre_setup";
	if (testcase_vmscale_pre_setup(&ctx, &t, cause) != 0)
		return -1;
	*key = "nr_task";
	return testcase_check_count(job, "nr_task", cause);
}

/* The machine's Hugepagesize (bytes) in ROOT/proc/meminfo, or 0. */
static unsigned long
testcase_vmscale_hugepagesize(const char *root)
{
	unsigned long	 kb = 0;
	char		*text = inventory_read(root, "/proc/meminfo"), *p;

	if (text != NULL && (p = strstr(text, "\nHugepagesize:")) != NULL &&
	    sscanf(p + 1, "Hugepagesize: %lu kB", &kb) != 1)
		kb = 0;
	free(text);
	return kb << 10;
}

int
testcase_vmscale_knob(const struct job *job, const char *root, char **value,
    char **cause)
{
	const struct vmscale_case	*vc;
	struct inventory		*inv = NULL;
	struct testcase_ctx		 ctx;
	struct vmscale_hw		 hw;
	unsigned long long		 size, unit, repeat;
	const char			*test, *v;
	unsigned			 n;
	int				 r = -1;

	*value = NULL;
	if (strcmp(job->testcase, testcase_vmscale.name) != 0 ||
	    (test = testcase_job_value(job, "test")) == NULL ||
	    (vc = testcase_vmscale_find(test)) == NULL ||
	    !(vc->flags & VMSCALE_HUGETLB))
		return 0;
	/* the run's figures: the adapter's nr_cpu, the worker's mem */
	if (inventory_collect(root, &inv, cause) != 0)
		return -1;
	memset(&ctx, 0, sizeof ctx);
	memset(&hw, 0, sizeof hw);
	ctx.job = job;
	ctx.nr_cpu = (v = inventory_get(inv, "nr_cpu")) != NULL ?
	    (unsigned)strtoul(v, NULL, 10) : 1;
	hw.nr_node = (v = inventory_get(inv, "nr_node")) != NULL ?
	    (unsigned)strtoul(v, NULL, 10) : 1;
	if ((v = inventory_get(inv, "memory")) != NULL &&
	    (v = strchr(v, ' ')) != NULL)
		hw.mem = strtoul(v + 1, NULL, 10);
	hw.hugepagesize = testcase_vmscale_hugepagesize(root);
	if (hw.mem == 0 || hw.nr_node == 0) {
		error_set(cause, "test '%s': this machine's memory is not "
		    "known (no MemTotal in /proc/meminfo)", test);
		goto out;
	}
	if (hw.hugepagesize != VMSCALE_HUGE_PAGE) {
		error_set(cause, "test '%s' maps 2 MiB hugetlb pages in the "
		    "default size's pool (LKP's setup_hugetlb), and this "
		    "machine's Hugepagesize is %s", test, hw.hugepagesize ?
		    "not 2048 kB" : "unknown (no hugetlbfs)");
		goto out;
	}
	if (testcase_count(&ctx, "nr_task", "100%", &n, cause) != 0 ||
	    testcase_size(&ctx, "size", 0, &size, cause) != 0 ||
	    testcase_size(&ctx, "unit_size", 0, &unit, cause) != 0)
		goto out;
	unit = testcase_vmscale_usemem_unit(vc, &hw, (long)ctx.nr_cpu, size,
	    unit, &repeat);
	*value = xasprintf("%llu", testcase_vmscale_usemem_hugetlb_pages(&hw, unit,
	    n));
	r = 1;
out:
	inventory_free(inv);
	return r;
}

static const char *const testcase_vmscale_params[] = {
	"test", "nr_task", "size", "unit_size", "runtime", "thp", "pin",
	"eatmem_size", "pre_setup", NULL
};

/* LKP's eatmem: memory held locked while the case runs (its options) */
static const char *const testcase_vmscale_programs[] = { "eatmem", NULL };

static const char *const testcase_vmscale_metrics[] = {
	"vm-scalability.throughput", "vm-scalability.median",
	"vm-scalability.stddev%", "vm-scalability.median_stddev%",
	"vm-scalability.workload", "vm-scalability.throughput_fault",
	"vm-scalability.stddev_fault%", "vm-scalability.median_fault",
	"vm-scalability.median_fault_stddev%", NULL
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
		{ "sparse-root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const struct vmscale_case *vc = testcase_vmscale_find("anon-w-seq");
	struct vmscale_run	 run;
	struct vmscale_opts	 o;
	char			*end;
	int			 c, bad = 0;

	memset(&run, 0, sizeof run);
	memset(&o, 0, sizeof o);
	run.runtime = VMSCALE_DEFAULT_RUNTIME;
	run.fd = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.nr_task = strtoul(optarg, &end, 10);
			bad |= *end != '\0' || o.nr_task == 0 ||
			    o.nr_task > VMSCALE_MAX_TASKS;
			break;
		case 's':
			o.size = strtoull(optarg, &end, 10);
			bad |= *end != '\0' || o.size == 0;
			break;
		case 'u':
			o.unit = strtoull(optarg, &end, 10);
			bad |= *end != '\0' || o.unit == 0;
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
		case 'r':
			o.root = optarg;
			bad |= *optarg == '\0';
			break;
		case 'e':
			o.eat = strtoull(optarg, &end, 10);
			bad |= *end != '\0' || o.eat == 0;
			break;
		default:
			bad = 1;
		}
	}
	if (bad || optind != argc) {
		fprintf(stderr, "usage: bisect-agent vm-scalability "
		    "[--test=CASE] [--nr-task=N] [--size=BYTES] "
		    "[--unit-size=BYTES] [--runtime=S] [--madvise-hugepage] "
		    "[--pin] [--eatmem=BYTES] [--sparse-root=DIR]\n");
		return 2;
	}
	return testcase_vmscale_usemem_run(vc, &run, &o);
}
