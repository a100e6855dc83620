/*
 * The kernel test's benchmark: the cost of one getppid(2) system call, a
 * path with almost nothing in it, so that a change to the syscall path
 * shows at once. Built static with the host's cc and run inside the
 * initramfs under qemu's TCG. Two things make TCG timing hard, and each
 * has its answer here:
 *
 * - the guest's clock: a tinyconfig kernel under TCG cannot calibrate the
 *   TSC and falls back to jiffies (4 ms). RDTSC itself still works in user
 *   space and counts the host's TSC cycles, so batches are timed with it;
 * - the host's load: a busy host slows every guest instruction alike, so
 *   each batch of calls is paired with a batch of a reference loop (the
 *   kernel's barrier() loop, in user space) and the headline figure is
 *   their ratio, the cost of a call in loop iterations, which the load
 *   leaves alone.
 *
 * PAIRS pairs, interleaved; the medians are printed:
 *
 *   relative_cost: 127.40    a getppid costs 127.4 loop iterations
 *   cycles_per_call: 700.1   the median batch, in TSC cycles per call
 */
#include <sys/syscall.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PAIRS	15

static uint64_t
tsc(void)
{
	uint32_t	lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return ((uint64_t)hi << 32) | lo;
}

static int
cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	double		call[PAIRS], loop[PAIRS], ratio[PAIRS];
	uint64_t	t0;
	long		calls = argc > 1 ? atol(argv[1]) : 50000, iters, i;
	int		p;

	if (calls <= 0) {
		fprintf(stderr, "usage: syscall-bench [CALLS]\n");
		return 2;
	}
	iters = calls * 1000;
	for (p = 0; p < PAIRS; p++) {
		t0 = tsc();
		for (i = 0; i < calls; i++)
			syscall(SYS_getppid);
		call[p] = (double)(tsc() - t0) / (double)calls;
		t0 = tsc();
		for (i = 0; i < iters; i++)
			__asm__ __volatile__("" : : : "memory");
		loop[p] = (double)(tsc() - t0) / (double)iters;
		ratio[p] = call[p] / loop[p];
	}
	qsort(call, PAIRS, sizeof call[0], cmp);
	qsort(loop, PAIRS, sizeof loop[0], cmp);
	qsort(ratio, PAIRS, sizeof ratio[0], cmp);
	printf("calls: %ld\n", calls * PAIRS);
	printf("relative_cost: %.2f\n", ratio[PAIRS / 2]);
	printf("cycles_per_call: %.1f\n", call[PAIRS / 2]);
	printf("cycles_per_loop: %.3f\n", loop[PAIRS / 2]);
	return 0;
}
