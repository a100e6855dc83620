/*
 * vm-scalability's cases on sparse files, for the worker of
 * testcase-vmscale-usemem.c: LKP's SPARSE_ROOT (an ext4 on a loop image
 * in the worker's tmpfs), the case scripts' files, and what they run on
 * them: usemems (one per file or one on the file), dd readers, and the
 * truncates (docs/jobs.md, "vm-scalability").
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/testcase-vmscale.h"
#include "util/xalloc.h"

#define VMSCALE_FILE_ROOT	"vm-scalability"

/* argv run to its end, its output on stderr: 0, or -1 saying why. */
static int
testcase_vmscale_file_exec(char *const argv[])
{
	pid_t	pid;
	int	st;

	fflush(NULL);
	if ((pid = fork()) == -1) {
		perror("vm-scalability: fork");
		return -1;
	}
	if (pid == 0) {
		dup2(2, 1);
		execvp(argv[0], argv);
		dprintf(2, "vm-scalability: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "vm-scalability: %s failed (status %d)\n",
		    argv[0], st);
		return -1;
	}
	return 0;
}

/*
 * LKP's create_sparse_root: the image tmpfs/vm-scalability.img, sparse,
 * of mem bytes (the most a case writes is the msync cases' mem / 2), an
 * ext4 made on it (its inode tables and journal left unzeroed, so that
 * the image takes little of the tmpfs) and mounted with -o loop at
 * tmpfs/vm-scalability: mount(8)'s loop device clears itself when the
 * mount goes, as it goes with the worker's mount namespace.
 */
int
testcase_vmscale_file_root(const char *tmpfs, const struct vmscale_hw *hw)
{
	char	img[256], dir[256];
	char	*mkfs[] = { "mkfs.ext4", "-q", "-F", "-E",
		    "lazy_itable_init=1,lazy_journal_init=1", img, NULL };
	char	*mnt[] = { "mount", "-o", "loop,discard,noinit_itable", img,
		    dir, NULL };
	int	fd;

	snprintf(img, sizeof img, "%s/%s.img", tmpfs, VMSCALE_FILE_ROOT);
	snprintf(dir, sizeof dir, "%s/%s", tmpfs, VMSCALE_FILE_ROOT);
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)hw->mem) != 0) {
		fprintf(stderr, "vm-scalability: %s: %s\n", img,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (testcase_vmscale_file_exec(mkfs) != 0)
		return -1;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "vm-scalability: %s: %s\n", dir,
		    strerror(errno));
		return -1;
	}
	if (testcase_vmscale_file_exec(mnt) != 0) {
		fprintf(stderr, "vm-scalability: couldn't mount the sparse "
		    "root %s (an ext4 on a loop image: LKP's SPARSE_ROOT)\n",
		    dir);
		rmdir(dir);
		return -1;
	}
	printf("sparse root ./%s: ext4 on a loop image of %lu bytes in the "
	    "tmpfs\n", dir, hw->mem);
	fflush(stdout);
	return 0;
}

/* LKP's remove_sparse_root. */
void
testcase_vmscale_file_root_done(const char *tmpfs)
{
	char	img[256], dir[256];

	snprintf(img, sizeof img, "%s/%s.img", tmpfs, VMSCALE_FILE_ROOT);
	snprintf(dir, sizeof dir, "%s/%s", tmpfs, VMSCALE_FILE_ROOT);
	if (umount2(dir, 0) != 0 && errno != EINVAL)
		fprintf(stderr, "vm-scalability: couldn't unmount %s: %s\n",
		    dir, strerror(errno));
	rmdir(dir);
	unlink(img);
}

static void
testcase_vmscale_file_path(char *buf, size_t len, const char *dir,
    const struct vmscale_case *vc, unsigned i)
{
	if (i == 0)
		snprintf(buf, len, "%s/sparse-%s", dir, vc->name);
	else
		snprintf(buf, len, "%s/sparse-%s-%u", dir, vc->name, i);
}

/* create_sparse_file: path truncated to bytes. */
static int
testcase_vmscale_file_create(const char *path, unsigned long bytes)
{
	int	fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
		fprintf(stderr, "vm-scalability: %s: %s\n", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
testcase_vmscale_file_wait(pid_t *pids, unsigned n)
{
	unsigned	i;
	int		st, bad = 0;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0) {
			bad = 1;
			continue;
		}
		while (waitpid(pids[i], &st, 0) == -1 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	return bad;
}

static double
testcase_vmscale_file_since(const struct timeval *t0)
{
	struct timeval	now;

	gettimeofday(&now, NULL);
	return (double)(now.tv_sec - t0->tv_sec) +
	    (double)(now.tv_usec - t0->tv_usec) / 1e6;
}

/*
 * One "timeout -s INT runtime dd bs=4k if=path of=/dev/null": 4 KiB
 * reads to the end or until runtime has passed, then dd's line, which
 * LKP's parse takes (bytes, seconds).
 */
static int
testcase_vmscale_file_dd(const char *path, unsigned long runtime)
{
	struct timeval		 t0;
	unsigned long long	 bytes = 0, n = 0;
	ssize_t			 r;
	double			 secs;
	char			 buf[4096], line[256];
	int			 fd, len;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		dprintf(2, "vm-scalability: dd: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	gettimeofday(&t0, NULL);
	for (;;) {
		r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			dprintf(2, "vm-scalability: dd: %s: %s\n", path,
			    strerror(errno));
			close(fd);
			return 1;
		}
		if (r == 0)
			break;
		bytes += (unsigned long long)r;
		if ((++n & 0xff) == 0 && runtime > 0 &&
		    testcase_vmscale_file_since(&t0) >= (double)runtime)
			break;
	}
	close(fd);
	secs = testcase_vmscale_file_since(&t0);
	if (secs <= 0)
		secs = 1e-6;
	len = snprintf(line, sizeof line, "%llu bytes (%.1f MB, %.1f MiB) "
	    "copied, %.6f s, %.1f MB/s\n", bytes, (double)bytes / 1e6,
	    (double)bytes / 1048576.0, secs, (double)bytes / 1e6 / secs);
	return write(1, line, (size_t)len) == len ? 0 : 1;
}

/* cat path >/dev/null */
static int
testcase_vmscale_file_cat(const char *path)
{
	ssize_t	 r;
	char	*buf = xmalloc(128 << 10);
	int	 fd, ret = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "vm-scalability: %s: %s\n", path,
		    strerror(errno));
		free(buf);
		return -1;
	}
	while ((r = read(fd, buf, 128 << 10)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "vm-scalability: %s: %s\n", path,
			    strerror(errno));
			ret = -1;
			break;
		}
	}
	close(fd);
	free(buf);
	return ret;
}

static void
testcase_vmscale_file_now(char *buf, size_t len)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(buf, len, "%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
}

/*
 * case-truncate and case-truncate-seq: nr_task files of mem / nr_task,
 * each read in (cat), then removed, all at once (truncate) or one by
 * one (truncate-seq, which times the reads too); their lines as the
 * scripts echo them, with mem as the bytes.
 */
static int
testcase_vmscale_file_truncate(const struct vmscale_case *vc,
    const struct vmscale_hw *hw, unsigned nt, unsigned long fsize,
    const char *dir)
{
	pid_t		*pids;
	unsigned	 i;
	char		 path[512], t0[64], t1[64];
	int		 bad = 0;

	testcase_vmscale_file_now(t0, sizeof t0);
	for (i = 1; i <= nt; i++) {
		testcase_vmscale_file_path(path, sizeof path, dir, vc, i);
		if (testcase_vmscale_file_create(path, fsize) != 0 ||
		    testcase_vmscale_file_cat(path) != 0)
			return 1;
	}
	testcase_vmscale_file_now(t1, sizeof t1);
	if (vc->flags & VMSCALE_SEQ)
		printf("%lu bytes faulted in %s-%s seconds\n", hw->mem, t1, t0);
	fflush(stdout);
	pids = xcalloc(nt, sizeof *pids);
	testcase_vmscale_file_now(t0, sizeof t0);
	for (i = 1; i <= nt; i++) {
		testcase_vmscale_file_path(path, sizeof path, dir, vc, i);
		if (vc->flags & VMSCALE_SEQ) {
			bad |= unlink(path) != 0;
			continue;
		}
		if ((pids[i - 1] = fork()) == 0)
			_exit(unlink(path) != 0);
		if (pids[i - 1] < 0) {
			bad = 1;
			unlink(path);
		}
	}
	if (!(vc->flags & VMSCALE_SEQ))
		bad |= testcase_vmscale_file_wait(pids, nt);
	testcase_vmscale_file_now(t1, sizeof t1);
	free(pids);
	if (bad) {
		fprintf(stderr, "vm-scalability: %s: couldn't remove the "
		    "files\n", vc->name);
		return 1;
	}
	printf("%lu bytes truncated in %s-%s seconds\n", hw->mem, t1, t0);
	fflush(stdout);
	return 0;
}

/* One usemem of an instance on its file (or the case's one file). */
static int
testcase_vmscale_file_usemem(struct vmscale_run *run, const char *path)
{
	int	ret;

	run->fd = open(path, ((run->flags & VMSCALE_READ) && !run->rw ?
	    O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (run->fd < 0) {
		fprintf(stderr, "vm-scalability: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	ret = testcase_vmscale_usemem_one(run);
	close(run->fd);
	run->fd = -1;
	return ret;
}

/*
 * One run of a case script on files: its files made in dir (one, or one
 * per task: nr_task, or nr_cpu for msync), what it runs on them, the
 * files removed.
 */
int
testcase_vmscale_file_one(const struct vmscale_case *vc,
    const struct vmscale_hw *hw, struct vmscale_run *run, const char *dir)
{
	struct vmscale_run	 r;
	unsigned long		 fsize;
	unsigned		 nt = run->nr_task, nfiles, nr, i, j;
	pid_t			*pids;
	char			 path[512];
	int			 bad = 0;

	fsize = testcase_vmscale_usemem_bytes(vc->file, hw, nt, 0, run->ncpu);
	nfiles = vc->flags & (VMSCALE_INST | VMSCALE_DD | VMSCALE_TRUNC) ?
	    nt : 1;
	if (vc->flags & VMSCALE_TRUNC) {
		/* what a failed truncate left is removed below */
		bad = testcase_vmscale_file_truncate(vc, hw, nt, fsize, dir);
		goto out;
	}
	for (i = 1; i <= nfiles; i++) {
		testcase_vmscale_file_path(path, sizeof path, dir, vc,
		    nfiles > 1 || (vc->flags & (VMSCALE_INST | VMSCALE_DD)) ?
		    i : 0);
		if (testcase_vmscale_file_create(path, fsize) != 0) {
			bad = 1;
			goto out;
		}
	}
	if (!(vc->flags & (VMSCALE_INST | VMSCALE_DD))) {
		testcase_vmscale_file_path(path, sizeof path, dir, vc, 0);
		bad = testcase_vmscale_file_usemem(run, path);
		goto out;
	}
	/* a usemem (or one or two dds) per file, all at once */
	nr = vc->flags & VMSCALE_DD2 ? 2 : 1;
	pids = xcalloc((size_t)nfiles * nr, sizeof *pids);
	for (i = 1; i <= nfiles; i++) {
		testcase_vmscale_file_path(path, sizeof path, dir, vc, i);
		for (j = 0; j < nr; j++) {
			fflush(NULL);
			if ((pids[(i - 1) * nr + j] = fork()) != 0)
				continue;
			if (vc->flags & VMSCALE_DD)
				_exit(testcase_vmscale_file_dd(path,
				    run->runtime));
			r = *run;
			r.nr_task = vc->flags & VMSCALE_MT ? nt : 1;
			_exit(testcase_vmscale_file_usemem(&r, path));
		}
	}
	bad = testcase_vmscale_file_wait(pids, nfiles * nr);
	free(pids);
out:
	for (i = 0; i <= nfiles; i++) {
		testcase_vmscale_file_path(path, sizeof path, dir, vc, i);
		unlink(path);
	}
	return bad;
}
