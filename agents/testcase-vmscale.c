/*
 * A vm-scalability-style anonymous memory test: nr_task processes map,
 * touch and unmap "size" bytes each, as the named case says, and each
 * reports its own rate as usemem does, one instance per process
 * (docs/design.md, "File notes").
 */
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
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

#define VMSCALE_DEFAULT_SIZE	(64ULL << 20)
#define VMSCALE_MAX_TASKS	65536

static const char *const testcase_vmscale_tests[] = {
	"anon-r-rand", "anon-r-seq", "anon-w-rand", "anon-w-seq", NULL
};
static const char *const testcase_vmscale_thp[] = { "none", "madvise", NULL };
static const char *const testcase_vmscale_pin[] = { "0", "1", NULL };

static int
testcase_vmscale_command(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, struct testcase_argv *argv,
    char **cause)
{
	unsigned long long	 size;
	const char		*t, *p, *test;
	unsigned		 n;

	if (testcase_word(ctx, "test", testcase_vmscale_tests, "anon-w-seq",
	    &test, cause) != 0 ||
	    testcase_count(ctx, "nr_task", "100%", &n, cause) != 0 ||
	    testcase_size(ctx, "size", VMSCALE_DEFAULT_SIZE, &size,
	    cause) != 0 ||
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
	testcase_argv_add(argv, "--size=%llu", size);
	testcase_argv_add(argv, "--runtime=%u", ctx->job->runtime);
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

static int
testcase_vmscale_parse(const struct testcase_adapter *ad,
    const struct testcase_ctx *ctx, const char *out, size_t len,
    struct strbuf *metrics, char **cause)
{
	char			*copy = xstrndup(out, len), *save = NULL, *l;
	unsigned long long	 bytes, usecs, kbs;
	double			*v = NULL, sum = 0, bsum = 0, median, sd = 0;
	size_t			 n = 0, alloc = 0, i;

	(void)ctx;
	for (l = strtok_r(copy, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "%llu bytes / %llu usecs = %llu KB/s", &bytes,
		    &usecs, &kbs) != 3)
			continue;
		ALLOC_GROW(v, n, alloc);
		v[n++] = (double)kbs;
		strbuf_addf(metrics, "throughput.%zu: %llu\n", n - 1, kbs);
		sum += (double)kbs;
		bsum += (double)bytes;
	}
	free(copy);
	if (n == 0) {
		free(v);
		return error_set(cause, "vm-scalability printed no 'bytes / "
		    "usecs' line");
	}
	qsort(v, n, sizeof *v, testcase_vmscale_cmp);
	median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (i = 0; n > 1 && i < n; i++)
		sd += (v[i] - sum / (double)n) * (v[i] - sum / (double)n);
	sd = n > 1 ? sqrt(sd / (double)(n - 1)) : 0;
	strbuf_addf(metrics, "median: %.17g\n", median);
	strbuf_addf(metrics, "stddev: %.17g\n", sum > 0 ?
	    100 * sd / (sum / (double)n) : 0);
	strbuf_addf(metrics, "workload: %.17g\n", bsum);
	free(v);
	return 0;
}

static int
testcase_vmscale_word(const struct job *job, const char *key,
    const char *const *words, const char *what, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	const char	*v = job_param(job, key);
	size_t		 i;

	if (v == NULL)
		return 0;
	for (i = 0; words[i] != NULL; i++) {
		if (strcmp(words[i], v) == 0) {
			strbuf_release(&sb);
			return 0;
		}
		strbuf_addf(&sb, "%s%s", i ? ", " : "", words[i]);
	}
	error_set(cause, "%s '%s' is not one %s (it does %s)",
	    key, v, what, sb.buf);
	strbuf_release(&sb);
	return -1;
}

static int
testcase_vmscale_check(const struct job *job, const char **key,
    char **cause)
{
	unsigned long long	 size;
	struct testcase_ctx	 ctx;

	memset(&ctx, 0, sizeof ctx);
	ctx.job = job;
	*key = "test";
	if (testcase_vmscale_word(job, "test", testcase_vmscale_tests,
	    "that bisect-agent's built-in vm-scalability worker does",
	    cause) != 0)
		return -1;
	*key = "thp";
	if (testcase_vmscale_word(job, "thp", testcase_vmscale_thp,
	    "of the worker's", cause) != 0)
		return -1;
	*key = "pin";
	if (testcase_vmscale_word(job, "pin", testcase_vmscale_pin,
	    "of the worker's", cause) != 0)
		return -1;
	*key = "size";
	if (testcase_size(&ctx, "size", VMSCALE_DEFAULT_SIZE, &size,
	    cause) != 0)
		return -1;
	*key = "nr_task";
	return testcase_check_count(job, "nr_task", cause);
}

static const char *const testcase_vmscale_params[] = {
	"test", "nr_task", "size", "runtime", "thp", "pin", NULL
};

static const char *const testcase_vmscale_metrics[] = {
	"vm-scalability.throughput", "vm-scalability.median",
	"vm-scalability.stddev", "vm-scalability.workload", NULL
};

const struct testcase_adapter testcase_vmscale = {
	.name = "vm-scalability",
	.package = NULL,
	.params = testcase_vmscale_params,
	.metrics = testcase_vmscale_metrics,
	.check = testcase_vmscale_check,
	.command = testcase_vmscale_command,
	.parse = testcase_vmscale_parse,
};

static double
testcase_vmscale_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum testcase_vmscale_case {
	VMSCALE_W_SEQ,
	VMSCALE_W_RAND,
	VMSCALE_R_SEQ,
	VMSCALE_R_RAND,
};

/*
 * Page i of n in a random order without a table: a full-period LCG
 * modulo the power of two above n (c odd, a = 1 mod 4), skipping the
 * values from n up.
 */
static size_t
testcase_vmscale_next(size_t *x, size_t n, size_t mask)
{
	do
		*x = (*x * 1103515245u + 12345u) & mask;
	while (*x >= n);
	return *x;
}

/* Touch every page of m once, in the case's order; returns a checksum. */
static unsigned long
testcase_vmscale_touch(char *m, unsigned long long size, long page,
    enum testcase_vmscale_case tc, unsigned idx)
{
	size_t			 npages = (size_t)((size + (unsigned long long)page -
				     1) / (unsigned long long)page);
	size_t			 mask = 1, i, p, x = idx, off, len, w;
	volatile unsigned long	 sum = 0;
	const unsigned long	*words;

	while (mask < npages)
		mask <<= 1;
	mask--;
	for (i = 0; i < npages; i++) {
		p = tc == VMSCALE_W_RAND || tc == VMSCALE_R_RAND ?
		    testcase_vmscale_next(&x, npages, mask) : i;
		off = p * (size_t)page;
		len = (size_t)page < size - off ? (size_t)page : size - off;
		if (tc == VMSCALE_W_SEQ || tc == VMSCALE_W_RAND) {
			memset(m + off, (int)(idx + 1), len);
			continue;
		}
		words = (const unsigned long *)(m + off);
		for (w = 0; w < len / sizeof *words; w++)
			sum += words[w];
	}
	return sum;
}

/* One process: wait for the barrier, then map, touch, unmap. */
static int
testcase_vmscale_task(int barrier, unsigned idx, unsigned long long size,
    unsigned runtime, int madv, int pin, enum testcase_vmscale_case tc)
{
	unsigned long long	 bytes = 0, usecs;
	long			 page = sysconf(_SC_PAGESIZE);
	double			 start, now;
	cpu_set_t		 set;
	char			 c, line[128], *m;
	int			 len;
	long			 ncpu;

	if (pin && (ncpu = sysconf(_SC_NPROCESSORS_ONLN)) > 0) {
		CPU_ZERO(&set);
		CPU_SET(idx % (unsigned long)ncpu, &set);
		sched_setaffinity(0, sizeof set, &set);
	}
	while (read(barrier, &c, 1) == -1 && errno == EINTR)
		;
	start = testcase_vmscale_now();
	do {
		m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED) {
			dprintf(2, "vm-scalability: task %u: couldn't map "
			    "%llu bytes: %s\n", idx, size, strerror(errno));
			return 1;
		}
		if (madv)
			madvise(m, size, MADV_HUGEPAGE);
		if (testcase_vmscale_touch(m, size, page, tc, idx) != 0) {
			dprintf(2, "vm-scalability: task %u: memory never "
			    "written does not read as zeroes\n", idx);
			return 1;
		}
		munmap(m, size);
		bytes += size;
		now = testcase_vmscale_now();
	} while (runtime > 0 && now - start < runtime);
	usecs = (unsigned long long)((now - start) * 1e6);
	if (usecs == 0)
		usecs = 1;
	len = snprintf(line, sizeof line, "%llu bytes / %llu usecs = %llu "
	    "KB/s\n", bytes, usecs, (unsigned long long)((double)bytes /
	    (double)usecs * 1e6 / 1024));
	return write(1, line, (size_t)len) == len ? 0 : 1;
}

int
testcase_vmscale_main(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "nr-task", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "runtime", required_argument, NULL, 't' },
		{ "madvise-hugepage", no_argument, NULL, 'h' },
		{ "pin", no_argument, NULL, 'p' },
		{ "test", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	enum testcase_vmscale_case tc = VMSCALE_W_SEQ;
	unsigned long long	 size = VMSCALE_DEFAULT_SIZE;
	unsigned long		 n = 1, runtime = 0, i, started = 0;
	pid_t			*pids;
	char			*end;
	int			 c, fds[2], st, madv = 0, pin = 0, bad = 0;

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
		case 't':
			runtime = strtoul(optarg, &end, 10);
			bad |= *end != '\0' || runtime > 30 * 86400;
			break;
		case 'h':
			madv = 1;
			break;
		case 'p':
			pin = 1;
			break;
		case 'c':
			if (strcmp(optarg, "anon-w-seq") == 0)
				tc = VMSCALE_W_SEQ;
			else if (strcmp(optarg, "anon-w-rand") == 0)
				tc = VMSCALE_W_RAND;
			else if (strcmp(optarg, "anon-r-seq") == 0)
				tc = VMSCALE_R_SEQ;
			else if (strcmp(optarg, "anon-r-rand") == 0)
				tc = VMSCALE_R_RAND;
			else
				bad = 1;
			break;
		default:
			bad = 1;
		}
	}
	if (bad || optind != argc) {
		fprintf(stderr, "usage: bisect-agent vm-scalability "
		    "[--test=anon-w-seq|anon-w-rand|anon-r-seq|anon-r-rand] "
		    "--nr-task=N --size=BYTES [--runtime=S] "
		    "[--madvise-hugepage] [--pin]\n");
		return 2;
	}
	if (pipe(fds) == -1) {
		perror("vm-scalability: pipe");
		return 1;
	}
	pids = xcalloc(n, sizeof *pids);
	for (i = 0; i < n; i++) {
		if ((pids[i] = fork()) == -1) {
			perror("vm-scalability: fork");
			break;
		}
		if (pids[i] == 0) {
			close(fds[1]);
			_exit(testcase_vmscale_task(fds[0], (unsigned)i, size,
			    (unsigned)runtime, madv, pin, tc));
		}
		started++;
	}
	close(fds[0]);
	close(fds[1]);
	for (i = 0; i < started; i++) {
		while (waitpid(pids[i], &st, 0) == -1 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	free(pids);
	return bad || started < n ? 1 : 0;
}
