/*
 * LKP's disk, fs and mount_option (agents/disk.h): a job takes N of its
 * agent's declared disks of a kind, bisect-agent makes the file system on
 * each and mounts it under its disk directory, the benchmark runs in the
 * mount, and everything is undone after the run. Loop disks are sparse
 * files attached to free loop devices. Names carry the agent's process
 * id, so that the next run reaps what a killed agent left behind.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agents/child.h"
#include "agents/disk.h"
#include "agents/result.h"
#include "agents/testcase.h"
#include "jobs/config.h"
#include "jobs/job.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The file systems bisect-agent makes, with mkfs's options (as LKP's). */
static const struct {
	const char	*fs;
	const char	*mkfs[6];
} disk_mkfs[] = {
	/* no lazy init: ext4lazyinit would write during the benchmark */
	{ "ext4", { "mkfs.ext4", "-q", "-F", "-E",
	    "lazy_itable_init=0,lazy_journal_init=0", NULL } },
	{ "ext3", { "mkfs.ext3", "-q", "-F", NULL } },
	{ "ext2", { "mkfs.ext2", "-q", "-F", NULL } },
	{ "xfs", { "mkfs.xfs", "-q", "-f", NULL } },
	{ "btrfs", { "mkfs.btrfs", "-q", "-f", NULL } },
	{ "tmpfs", { NULL } },
};

#define DISK_NR_MKFS	(sizeof disk_mkfs / sizeof disk_mkfs[0])

int
disk_spec_parse(const char *v, unsigned *nr, char kind[4], char **cause)
{
	unsigned long	 n;
	const char	*p = v;
	char		*end;

	if (!isdigit((unsigned char)*p))
		goto bad;
	errno = 0;
	n = strtoul(p, &end, 10);
	if (errno != 0 || n == 0 || n > DISK_MAX)
		return error_set(cause, "'disk' is '%s': from 1 to %d disks",
		    v, DISK_MAX);
	if (strcasecmp(end, "HDD") == 0 || strcasecmp(end, "SSD") == 0) {
		kind[0] = (char)tolower((unsigned char)end[0]);
		kind[1] = 's';
		kind[2] = 'd';
		kind[3] = '\0';
		if (kind[0] == 'h')
			kind[1] = 'd';
		*nr = (unsigned)n;
		return 0;
	}
	if (strncasecmp(end, "BRD", 3) == 0)
		return error_set(cause, "'disk' is '%s': LKP's BRD disks are "
		    "ram disks of the brd module, which bisect-agent does not "
		    "load", v);
	if (strcasecmp(end, "pmem") == 0)
		return error_set(cause, "'disk' is '%s': persistent memory, "
		    "which bisect-agent does not set up", v);
bad:
	return error_set(cause, "'disk' must be like 1HDD or 2SSD (N disks "
	    "of the agent's hdd or ssd), not '%s'", v);
}

static int
disk_fs_known(const char *fs)
{
	size_t	i;

	for (i = 0; i < DISK_NR_MKFS; i++) {
		if (strcmp(disk_mkfs[i].fs, fs) == 0)
			return (int)i;
	}
	return -1;
}

static int
disk_option_ok(const char *v)
{
	return *v != '\0' && *v != ',' && strspn(v, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=,.:+-") == strlen(v);
}

/*
 * LKP's raw_disk (fio-setup-basic's), as its parse_bool reads it: the
 * benchmark takes the partition itself, nothing made or mounted on it.
 */
static int
disk_raw(const struct job *job)
{
	/* fio-setup-basic: {raw_disk: 1} too */
	const char	*v = testcase_job_value(job, "raw_disk");

	return v != NULL && *v != '\0' && *v != '0' && *v != 'n' &&
	    strncmp(v, "false", 5) != 0;
}

int
disk_job(const struct job *job, int adapter, struct disk_want *out,
    const char **key, char **cause)
{
	const char	*v, *fs, *disk_key = "disk";
	char		*end;
	unsigned long	 n;
	size_t		 i;

	memset(out, 0, sizeof *out);
	*key = NULL;
	for (i = 0; i < job->nr_params; i++) {
		const char	*k = job->params[i].key;

		if (strncmp(k, "disk.", 5) != 0)
			continue;
		*key = k;
		if (strcmp(k, "disk.nr_hdd") != 0 &&
		    strcmp(k, "disk.nr_ssd") != 0)
			return error_set(cause, "'%s' is not one bisect-agent "
			    "does: it takes the agent's hdd and ssd disks "
			    "('disk: 1HDD', or 'disk: {nr_hdd: 1}')", k);
		v = job->params[i].value;
		errno = 0;
		n = strtoul(v, &end, 10);
		if (!isdigit((unsigned char)*v) || *end != '\0' ||
		    errno != 0 || n > DISK_MAX)
			return error_set(cause, "'%s' must be a number of "
			    "disks from 0 to %d, not '%s'", k, DISK_MAX, v);
		if (n == 0)
			continue;
		if (out->nr > 0)
			return error_set(cause, "'%s': a job takes disks of "
			    "one kind (LKP's setup/disk takes the first it "
			    "is given)", k);
		memcpy(out->kind, k + 8, 3);
		out->kind[3] = '\0';
		out->nr = (unsigned)n;
		disk_key = k;
	}
	if ((v = job_param(job, "disk")) != NULL) {
		*key = "disk";
		if (out->nr > 0)
			return error_set(cause, "'disk' is given twice");
		if (disk_spec_parse(v, &out->nr, out->kind, cause) != 0)
			return -1;
	}
	if ((v = job_param(job, "fs2")) != NULL) {
		*key = "fs2";
		return error_set(cause, "'fs2' is '%s': LKP then exports the "
		    "job's file system over NFS or CIFS and runs the test on "
		    "the network mount; bisect-agent sets up no NFS or CIFS "
		    "server", v);
	}
	/* LKP's fs program map, fs: {fs: ext4}: its option is the fs */
	for (i = 0; i < job->nr_params; i++) {
		const char	*k = job->params[i].key;

		if (strncmp(k, "fs.", 3) != 0)
			continue;
		*key = k;
		if (strcmp(k, "fs.format") == 0 && (v = job->params[i].value,
		    *v == '\0' || *v == 'n' || *v == 'N' || *v == '0'))
			return error_set(cause, "'fs.format' is '%s': LKP then "
			    "mounts the file system already on the disk "
			    "without making one; bisect-agent makes the file "
			    "system on its test disks for every job (a loop "
			    "disk is new), so there is none to mount", v);
		if (strcmp(k, "fs.fs") != 0 && strcmp(k, "fs.format") != 0)
			return error_set(cause, "'%s' is an option of LKP's fs "
			    "program bisect-agent does not take (it takes "
			    "'fs' and 'format: y'; 'mount_option' is a key of "
			    "its own)", k);
	}
	if ((fs = job_param(job, "fs")) == NULL &&
	    (fs = job_param(job, "fs.fs")) != NULL) {
		*key = "fs.fs";
		if (disk_fs_known(fs) < 0)
			return error_set(cause, "'fs.fs' is '%s', not a file "
			    "system bisect-agent makes (ext2, ext3, ext4, xfs, "
			    "btrfs, tmpfs)", fs);
		out->fs = fs;
	} else if (fs != NULL) {
		*key = "fs";
		if (disk_fs_known(fs) < 0) {
			if (strncmp(fs, "nfs", 3) == 0 ||
			    strncmp(fs, "cifs", 4) == 0 ||
			    strncmp(fs, "smb", 3) == 0)
				return error_set(cause, "'fs' is '%s', a network "
				    "file system, which needs a server "
				    "bisect-agent does not set up", fs);
			return error_set(cause, "'fs' is '%s', not a file "
			    "system bisect-agent makes (ext2, ext3, ext4, xfs, "
			    "btrfs, tmpfs)", fs);
		}
		out->fs = fs;
	}
	if ((v = job_param(job, "mount_option")) != NULL) {
		*key = "mount_option";
		if (out->fs == NULL)
			return error_set(cause, "'mount_option' without 'fs': "
			    "nothing is mounted");
		if (!disk_option_ok(v))
			return error_set(cause, "'mount_option' must be mount "
			    "options like 'noatime,nobarrier' (letters, "
			    "digits, _ = , . : + -), not '%s'", v);
		out->mount_option = v;
	}
	if (out->fs != NULL && strcmp(out->fs, "tmpfs") == 0) {
		if (out->nr > 0) {
			*key = "fs";
			return error_set(cause, "'fs: tmpfs' is in memory: "
			    "with 'disk: %u%s' the disks would be unused",
			    out->nr, out->kind);
		}
		return 0;
	}
	if (out->fs != NULL && out->nr == 0) {
		*key = "fs";
		return error_set(cause, "'fs' is '%s' but the job asks for no "
		    "disk to make it on (give 'disk: 1HDD' or '1SSD')",
		    out->fs);
	}
	if (out->nr > 0 && out->fs == NULL && adapter && !disk_raw(job)) {
		*key = disk_key;
		return error_set(cause, "'disk' without 'fs': bisect-agent's "
		    "adapters run in a file system on the disk (LKP's "
		    "programs too, but for fio's raw_disk: 1, which writes "
		    "to the partition itself); give 'fs: ext4', 'xfs' or "
		    "'btrfs', or 'raw_disk: 1' to fio");
	}
	if (out->nr > 1 && adapter) {
		*key = disk_key;
		return error_set(cause, "'disk' is %u disks: the testcase's "
		    "adapter runs in one mount point, so %u of them would be "
		    "unused (an inline 'run:' gets them all in "
		    "$mount_points)", out->nr, out->nr - 1);
	}
	*key = NULL;
	return 0;
}

char *
disk_describe(const struct job *job)
{
	struct disk_want	 w;
	struct strbuf		 sb = STRBUF_INIT;
	const char		*key;
	char			*cause = NULL;
	size_t			 i;
	int			 k;

	if (disk_job(job, job->run == NULL, &w, &key, &cause) != 0) {
		free(cause);
		return NULL;
	}
	if (w.nr == 0 && w.fs == NULL)
		return NULL;
	if (w.nr > 0)
		strbuf_addf(&sb, "%u %s disk%s of the agent (its 'disks.%s')",
		    w.nr, w.kind, w.nr == 1 ? "" : "s", w.kind);
	else
		strbuf_addstr(&sb, "no disk");
	if (w.fs != NULL && (k = disk_fs_known(w.fs)) >= 0) {
		if (disk_mkfs[k].mkfs[0] != NULL) {
			strbuf_addstr(&sb, ", made with '");
			for (i = 0; disk_mkfs[k].mkfs[i] != NULL; i++)
				strbuf_addf(&sb, "%s%s", i ? " " : "",
				    disk_mkfs[k].mkfs[i]);
			strbuf_addstr(&sb, " DEVICE'");
		}
		strbuf_addf(&sb, ", mounted as %s", w.fs);
		if (strcmp(w.fs, "xfs") == 0 || w.mount_option != NULL)
			strbuf_addf(&sb, " with -o %s%s%s",
			    strcmp(w.fs, "xfs") == 0 ? "inode64" : "",
			    strcmp(w.fs, "xfs") == 0 && w.mount_option != NULL ?
			    "," : "", w.mount_option != NULL ?
			    w.mount_option : "");
		strbuf_addstr(&sb, job->run == NULL ? "; the benchmark runs "
		    "in the mount" : "; $mount_points names the mounts");
	} else
		strbuf_addstr(&sb, job->run == NULL ? ", no file system: the "
		    "benchmark writes the partition itself (LKP's raw_disk)" :
		    ", no file system ($partitions names them)");
	return strbuf_detach(&sb, NULL);
}

int
disk_agent_fits(const struct job *job, const struct config_agent *a,
    char **why)
{
	struct disk_want	 w;
	const char		*key;
	char			*cause = NULL;
	size_t			 i;
	unsigned		 have = 0;

	/* the adapter's own rules are testcase_validate's */
	if (disk_job(job, 0, &w, &key, &cause) != 0) {
		*why = cause;
		return 0;
	}
	if (w.nr == 0)
		return 1;
	for (i = 0; i < a->nr_disks; i++)
		have += strcmp(a->disks[i].kind, w.kind) == 0;
	if (have >= w.nr)
		return 1;
	*why = xasprintf("'disk' is %u%s, the agent has %u %s disk%s (its "
	    "'disks.%s' in the config)", w.nr, w.kind[0] == 'h' ? "HDD" :
	    "SSD", have, w.kind, have == 1 ? "" : "s", w.kind);
	return 0;
}

char **
disk_agent_args(const struct config_agent *a, size_t *nr)
{
	char	**v = xcalloc(a->nr_disks + 1, sizeof *v);
	size_t	  i;

	for (i = 0; i < a->nr_disks; i++) {
		if (a->disks[i].device != NULL)
			v[i] = xasprintf("%s=%s", a->disks[i].kind,
			    a->disks[i].device);
		else
			v[i] = xasprintf("%s=loop:%llu", a->disks[i].kind,
			    a->disks[i].loop_size);
	}
	*nr = a->nr_disks;
	return v;
}

int
disk_decl_parse(const char *arg, struct disk_decl *d, char **cause)
{
	const char		*eq = strchr(arg, '=');
	char			*end;
	unsigned long long	 n;

	memset(d, 0, sizeof *d);
	if (eq == NULL || eq - arg != 3 || (strncmp(arg, "hdd", 3) != 0 &&
	    strncmp(arg, "ssd", 3) != 0))
		return error_set(cause, "--disk '%s' must be hdd=DEVICE, "
		    "ssd=DEVICE or KIND=loop:BYTES", arg);
	memcpy(d->kind, arg, 3);
	if (strncmp(eq + 1, "loop:", 5) == 0) {
		errno = 0;
		n = strtoull(eq + 6, &end, 10);
		if (!isdigit((unsigned char)eq[6]) || *end != '\0' ||
		    errno != 0 || n < (256ULL << 20) || n > (16ULL << 40))
			return error_set(cause, "--disk '%s': a loop disk is "
			    "loop:BYTES, 256 MiB to 16 TiB", arg);
		d->loop_size = n;
		return 0;
	}
	if (strncmp(eq + 1, "/dev/", 5) != 0 || strstr(eq, "/../") != NULL)
		return error_set(cause, "--disk '%s': the device must be "
		    "under /dev/", arg);
	d->device = xstrdup(eq + 1);
	return 0;
}

void
disk_decl_release(struct disk_decl *d)
{
	if (d == NULL)
		return;
	free(d->device);
	d->device = NULL;
}

const char *
disk_dir(void)
{
	const char	*v = getenv("BISECT_AGENT_DISK_DIR");

	return v != NULL && v[0] == '/' ? v : "/var/tmp/bisect-agent-disks";
}

struct disk_mount {
	char	*device;	/* what is mounted */
	char	*loopfile;	/* a loop disk's file, or NULL */
	int	 loopfd;	/* -1 */
	char	*mnt;
	int	 mounted;
};

struct disk_run {
	char			 spec[16];	/* "1HDD" */
	char			*fs;
	char			*mount_option;
	char			*mkfs;		/* the command, for env */
	struct disk_mount	 m[DISK_MAX];
	size_t			 nr;
};

/* argv to completion, its output to logfd: 0, or -1 naming its status. */
static int
disk_cmd(char *const argv[], int logfd, char **cause)
{
	pid_t	pid;
	int	status;

	if (child_spawn(argv, logfd, logfd, SIGKILL, &pid, cause) != 0)
		return -1;
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR)
			return error_errno(cause, "couldn't wait for '%s'",
			    argv[0]);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return error_set(cause, "'%s' could not be run (is it "
		    "installed?)", argv[0]);
	if (WIFEXITED(status))
		return error_set(cause, "'%s' exited with status %d", argv[0],
		    WEXITSTATUS(status));
	return error_set(cause, "'%s' was killed by signal %d", argv[0],
	    WTERMSIG(status));
}

/*
 * The mount table's line of a mount point, or of a device (by its real
 * path: /dev/disk/by-id/... is the /dev/sdb1 that is mounted):
 * "SOURCE DIR FSTYPE OPTIONS".
 */
static char *
disk_mounted(const char *mnt, const char *source)
{
	FILE	*f = fopen("/proc/self/mounts", "re");
	char	 line[4096], dev[1024], dir[1024], type[64], opts[1024];
	char	*r = NULL, *real = NULL, *rdev;

	if (f == NULL)
		return NULL;
	if (source != NULL && (real = realpath(source, NULL)) == NULL)
		real = xstrdup(source);
	while (r == NULL && fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "%1023s %1023s %63s %1023s", dev, dir, type,
		    opts) != 4)
			continue;
		if (mnt != NULL && strcmp(dir, mnt) == 0)
			r = xasprintf("%s %s %s %s", dev, dir, type, opts);
		if (r != NULL || real == NULL || dev[0] != '/')
			continue;
		if ((rdev = realpath(dev, NULL)) == NULL)
			rdev = xstrdup(dev);
		if (strcmp(rdev, real) == 0)
			r = xasprintf("%s %s %s %s", dev, dir, type, opts);
		free(rdev);
	}
	fclose(f);
	free(real);
	return r;
}

/* 1 when the device is in use as swap (/proc/swaps). */
static int
disk_swap(const char *device)
{
	FILE	*f = fopen("/proc/swaps", "re");
	char	 line[4096], dev[1024], *real, *rdev;
	int	 r = 0;

	if (f == NULL)
		return 0;
	if ((real = realpath(device, NULL)) == NULL)
		real = xstrdup(device);
	while (!r && fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "%1023s", dev) != 1 || dev[0] != '/')
			continue;
		if ((rdev = realpath(dev, NULL)) == NULL)
			rdev = xstrdup(dev);
		r = strcmp(rdev, real) == 0;
		free(rdev);
	}
	fclose(f);
	free(real);
	return r;
}

/* A free loop device for file: its path, the loop's fd kept open. */
static int
disk_loop_attach(const char *file, char **dev, int *loopfd, char **cause)
{
	struct loop_info64	 info;
	char			 path[64];
	int			 ctl = -1, fd = -1, lfd = -1, n, tries, r = -1;

	if ((fd = open(file, O_RDWR | O_CLOEXEC)) == -1)
		return error_errno(cause, "couldn't open '%s'", file);
	if ((ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC)) == -1) {
		error_errno(cause, "couldn't open '/dev/loop-control' (loop "
		    "disks need the loop module and root)");
		goto out;
	}
	/* another process may take the device between the two ioctls */
	for (tries = 0; tries < 16; tries++) {
		if ((n = ioctl(ctl, LOOP_CTL_GET_FREE)) < 0) {
			error_errno(cause, "no free loop device");
			goto out;
		}
		snprintf(path, sizeof path, "/dev/loop%d", n);
		if ((lfd = open(path, O_RDWR | O_CLOEXEC)) == -1) {
			error_errno(cause, "couldn't open '%s'", path);
			goto out;
		}
		if (ioctl(lfd, LOOP_SET_FD, fd) == 0)
			break;
		if (errno != EBUSY) {
			error_errno(cause, "couldn't attach '%s' to '%s'",
			    file, path);
			goto out;
		}
		close(lfd);
		lfd = -1;
	}
	if (lfd == -1) {
		error_set(cause, "no loop device stayed free for '%s'", file);
		goto out;
	}
	memset(&info, 0, sizeof info);
	snprintf((char *)info.lo_file_name, sizeof info.lo_file_name, "%s",
	    file);
	if (ioctl(lfd, LOOP_SET_STATUS64, &info) == -1) {
		error_errno(cause, "couldn't set up '%s'", path);
		ioctl(lfd, LOOP_CLR_FD, 0);
		goto out;
	}
	*dev = xstrdup(path);
	*loopfd = lfd;
	lfd = -1;
	r = 0;
out:
	if (lfd != -1)
		close(lfd);
	if (ctl != -1)
		close(ctl);
	close(fd);
	return r;
}

/* Unmount (a busy mount is detached lazily, and that is said). */
static int
disk_umount(const char *mnt, char **cause)
{
	if (umount2(mnt, 0) == 0)
		return 0;
	if (errno == EINVAL || errno == ENOENT)
		return 0;
	if (errno == EBUSY && umount2(mnt, MNT_DETACH) == 0)
		return error_set(cause, "'%s' was busy: detached lazily", mnt);
	return error_errno(cause, "couldn't unmount '%s'", mnt);
}

static void
disk_note(struct strbuf *sb, char *msg)
{
	if (msg == NULL)
		return;
	strbuf_addf(sb, "%s%s", sb->len ? "; " : "", msg);
	free(msg);
}

int
disk_teardown(struct disk_run *dr, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*one;
	size_t		 i;
	int		 r = 0, fd;

	if (dr == NULL)
		return 0;
	for (i = dr->nr; i-- > 0;) {
		struct disk_mount	*m = &dr->m[i];

		one = NULL;
		if (m->mounted && disk_umount(m->mnt, &one) != 0)
			disk_note(&sb, one);
		else if (one != NULL)
			disk_note(&sb, one);
		if (m->mnt != NULL && rmdir(m->mnt) == -1 && errno != ENOENT)
			disk_note(&sb, xasprintf("couldn't remove '%s': %s",
			    m->mnt, strerror(errno)));
		if (m->loopfile != NULL && m->device != NULL) {
			fd = m->loopfd;
			if (fd == -1)
				fd = open(m->device, O_RDWR | O_CLOEXEC);
			if (fd == -1 || ioctl(fd, LOOP_CLR_FD, 0) == -1)
				disk_note(&sb, xasprintf("couldn't detach "
				    "'%s': %s", m->device, strerror(errno)));
			if (fd != -1)
				close(fd);
			m->loopfd = -1;
		}
		if (m->loopfile != NULL && unlink(m->loopfile) == -1 &&
		    errno != ENOENT)
			disk_note(&sb, xasprintf("couldn't remove '%s': %s",
			    m->loopfile, strerror(errno)));
		free(m->device);
		free(m->loopfile);
		free(m->mnt);
	}
	if (sb.len > 0)
		r = error_set(cause, "disks: %s", sb.buf);
	strbuf_release(&sb);
	free(dr->fs);
	free(dr->mount_option);
	free(dr->mkfs);
	free(dr);
	return r;
}

/* One disk of the job: attached (a loop disk), made, mounted. */
static int
disk_setup_one(struct disk_run *dr, struct disk_mount *m,
    const struct disk_decl *d, const char *dir, size_t idx, int logfd,
    char **cause)
{
	const char	*argv[16];
	struct stat	 st;
	char		*opts = NULL, *had;
	size_t		 n = 0, i;
	int		 k, fd, r = -1;

	m->loopfd = -1;
	m->mnt = xasprintf("%s/fs-%ld-%zu", dir, (long)getpid(), idx);
	if (d != NULL && d->device == NULL) {
		m->loopfile = xasprintf("%s/loop-%ld-%zu.img", dir,
		    (long)getpid(), idx);
		fd = open(m->loopfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
		if (fd == -1 || ftruncate(fd, (off_t)d->loop_size) == -1) {
			error_errno(cause, "couldn't make the loop disk '%s'",
			    m->loopfile);
			if (fd != -1)
				close(fd);
			goto out;
		}
		close(fd);
		if (disk_loop_attach(m->loopfile, &m->device, &m->loopfd,
		    cause) != 0)
			goto out;
	} else if (d != NULL) {
		m->device = xstrdup(d->device);
		/* an ssh agent's devices are first checked here */
		if (stat(d->device, &st) == -1 || !S_ISBLK(st.st_mode)) {
			error_set(cause, "disk '%s' is not a block device on "
			    "this machine", d->device);
			goto out;
		}
		/* never a file system over one that is in use */
		if ((had = disk_mounted(NULL, d->device)) != NULL) {
			error_set(cause, "disk '%s' is mounted (%s): bisect-agent "
			    "makes file systems only on unused disks", d->device,
			    had);
			free(had);
			goto out;
		}
		if (disk_swap(d->device)) {
			error_set(cause, "disk '%s' is in use as swap "
			    "(/proc/swaps): bisect-agent makes file systems only "
			    "on unused disks", d->device);
			goto out;
		}
	}
	if (mkdir(m->mnt, 0755) == -1) {
		error_errno(cause, "couldn't create '%s'", m->mnt);
		free(m->mnt);
		m->mnt = NULL;
		goto out;
	}
	k = disk_fs_known(dr->fs);
	if (d != NULL && disk_mkfs[k].mkfs[0] != NULL) {
		for (i = 0; disk_mkfs[k].mkfs[i] != NULL; i++)
			argv[n++] = disk_mkfs[k].mkfs[i];
		argv[n++] = m->device;
		argv[n] = NULL;
		if (disk_cmd((char *const *)argv, logfd, cause) != 0) {
			error_prefix(cause, "couldn't make %s on '%s'", dr->fs,
			    m->device);
			goto out;
		}
	}
	n = 0;
	argv[n++] = "mount";
	argv[n++] = "-t";
	argv[n++] = dr->fs;
	/* LKP's default for xfs; then the job's */
	if (strcmp(dr->fs, "xfs") == 0)
		opts = xasprintf("inode64%s%s", dr->mount_option != NULL ?
		    "," : "", dr->mount_option != NULL ? dr->mount_option : "");
	else if (dr->mount_option != NULL)
		opts = xstrdup(dr->mount_option);
	if (opts != NULL) {
		argv[n++] = "-o";
		argv[n++] = opts;
	}
	argv[n++] = m->device != NULL ? m->device : "tmpfs";
	argv[n++] = m->mnt;
	argv[n] = NULL;
	if (disk_cmd((char *const *)argv, logfd, cause) != 0) {
		error_prefix(cause, "couldn't mount %s on '%s'", dr->fs,
		    m->mnt);
		goto out;
	}
	m->mounted = 1;
	r = 0;
out:
	free(opts);
	return r;
}

int
disk_setup(const struct job *job, const struct disk_decl *decls, size_t nr,
    const char *dir, int logfd, struct disk_run **out, char **cause)
{
	struct disk_want	 w;
	struct disk_run		*dr = NULL;
	struct strbuf		 sb = STRBUF_INIT;
	const char		*key;
	char			*undo = NULL, *one;
	size_t			 i, have = 0;
	int			 k;

	*out = NULL;
	if (disk_job(job, job->run == NULL, &w, &key, cause) != 0)
		return -1;
	if (w.nr == 0 && w.fs == NULL)
		return 0;
	for (i = 0; i < nr; i++)
		have += strcmp(decls[i].kind, w.kind) == 0;
	if (have < w.nr)
		return error_set(cause, "the job asks for %u %s disk%s, the "
		    "agent was given %zu (--disk)", w.nr, w.kind,
		    w.nr == 1 ? "" : "s", have);
	if (dir_create(dir, cause) != 0)
		return -1;
	dr = xcalloc(1, sizeof *dr);
	snprintf(dr->spec, sizeof dr->spec, "%u%s", w.nr, w.kind[0] == 'h' ?
	    "HDD" : w.kind[0] == 's' ? "SSD" : "");
	if (w.fs != NULL) {
		dr->fs = xstrdup(w.fs);
		k = disk_fs_known(w.fs);
		for (i = 0; disk_mkfs[k].mkfs[i] != NULL; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "",
			    disk_mkfs[k].mkfs[i]);
		if (sb.len > 0)
			dr->mkfs = strbuf_detach(&sb, NULL);
	}
	if (w.mount_option != NULL)
		dr->mount_option = xstrdup(w.mount_option);
	if (w.nr == 0) {
		/* fs: tmpfs */
		dr->nr = 1;
		if (disk_setup_one(dr, &dr->m[0], NULL, dir, 0, logfd,
		    cause) != 0)
			goto fail;
	}
	for (i = 0; i < nr && dr->nr < w.nr; i++) {
		if (strcmp(decls[i].kind, w.kind) != 0)
			continue;
		dr->nr++;
		if (w.fs == NULL) {
			/* an inline run: the partitions, nothing made */
			dr->m[dr->nr - 1].loopfd = -1;
			if (decls[i].device != NULL) {
				dr->m[dr->nr - 1].device =
				    xstrdup(decls[i].device);
				continue;
			}
			dr->m[dr->nr - 1].loopfile = xasprintf(
			    "%s/loop-%ld-%zu.img", dir, (long)getpid(),
			    dr->nr - 1);
			k = open(dr->m[dr->nr - 1].loopfile, O_WRONLY |
			    O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (k == -1 || ftruncate(k, (off_t)decls[i].loop_size)
			    == -1) {
				error_errno(cause, "couldn't make the loop "
				    "disk '%s'", dr->m[dr->nr - 1].loopfile);
				if (k != -1)
					close(k);
				goto fail;
			}
			close(k);
			if (disk_loop_attach(dr->m[dr->nr - 1].loopfile,
			    &dr->m[dr->nr - 1].device,
			    &dr->m[dr->nr - 1].loopfd, cause) != 0)
				goto fail;
			continue;
		}
		if (disk_setup_one(dr, &dr->m[dr->nr - 1], &decls[i], dir,
		    dr->nr - 1, logfd, cause) != 0)
			goto fail;
	}
	*out = dr;
	return 0;
fail:
	if (disk_teardown(dr, &undo) != 0) {
		one = *cause;
		*cause = xasprintf("%s (and undoing it: %s)", one, undo);
		free(one);
		free(undo);
	}
	return -1;
}

const char *
disk_run_mount(const struct disk_run *dr)
{
	if (dr == NULL || dr->nr == 0 || !dr->m[0].mounted)
		return NULL;
	return dr->m[0].mnt;
}

const char *
disk_run_partition(const struct disk_run *dr)
{
	if (dr == NULL || dr->nr == 0 || dr->m[0].mounted || dr->fs != NULL)
		return NULL;
	return dr->m[0].device;
}

void
disk_run_env(const struct disk_run *dr, struct result *r)
{
	struct strbuf	 parts = STRBUF_INIT, mnts = STRBUF_INIT;
	struct strbuf	 got = STRBUF_INIT, back = STRBUF_INIT;
	char		*line;
	size_t		 i;

	if (dr == NULL)
		return;
	for (i = 0; i < dr->nr; i++) {
		const struct disk_mount	*m = &dr->m[i];

		if (m->device != NULL)
			strbuf_addf(&parts, "%s%s", parts.len ? " " : "",
			    m->device);
		if (m->loopfile != NULL)
			strbuf_addf(&back, "%s%s=%s", back.len ? " " : "",
			    m->device != NULL ? m->device : "?", m->loopfile);
		if (m->mounted) {
			strbuf_addf(&mnts, "%s%s", mnts.len ? " " : "",
			    m->mnt);
			/* read back: what the kernel mounted, with options */
			if ((line = disk_mounted(m->mnt, NULL)) != NULL) {
				strbuf_addf(&got, "%s%s", got.len ? "; " : "",
				    line);
				free(line);
			}
		}
	}
	if (dr->spec[0] != '\0' && parts.len > 0)
		result_env_set(r, "disk", dr->spec);
	if (parts.len > 0)
		result_env_set(r, "partitions", parts.buf);
	if (back.len > 0)
		result_env_set(r, "partitions_loop", back.buf);
	if (dr->fs != NULL)
		result_env_set(r, "fs", dr->fs);
	if (dr->mkfs != NULL)
		result_env_set(r, "mkfs", dr->mkfs);
	if (dr->mount_option != NULL)
		result_env_set(r, "mount_option", dr->mount_option);
	if (mnts.len > 0)
		result_env_set(r, "mount_points", mnts.buf);
	if (got.len > 0)
		result_env_set(r, "mounted", got.buf);
	strbuf_release(&parts);
	strbuf_release(&mnts);
	strbuf_release(&got);
	strbuf_release(&back);
}

/* A bisect-agent of that id still runs (its comm says so). */
static int
disk_pid_alive(long pid)
{
	char	 path[64], *buf = NULL, *cause = NULL;
	size_t	 len;
	int	 alive;

	if (pid <= 0 || (kill((pid_t)pid, 0) == -1 && errno == ESRCH))
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/comm", pid);
	if (file_read(path, &buf, &len, &cause) != 0) {
		free(cause);
		return 0;
	}
	alive = strncmp(buf, "bisect-agent", 12) == 0;
	free(buf);
	return alive;
}

/* The loop device whose backing file is path: "/dev/loopN", or NULL. */
static char *
disk_loop_of(const char *path)
{
	DIR		*d = opendir("/sys/block");
	struct dirent	*e;
	char		*f, *buf = NULL, *cause = NULL, *r = NULL;
	size_t		 len;

	if (d == NULL)
		return NULL;
	while (r == NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		f = xasprintf("/sys/block/%s/loop/backing_file", e->d_name);
		if (file_read(f, &buf, &len, &cause) == 0) {
			while (len > 0 && buf[len - 1] == '\n')
				buf[--len] = '\0';
			if (strcmp(buf, path) == 0 || (strncmp(buf, path,
			    strlen(path)) == 0 && strcmp(buf + strlen(path),
			    " (deleted)") == 0))
				r = xasprintf("/dev/%s", e->d_name);
		}
		free(cause);
		cause = NULL;
		free(buf);
		buf = NULL;
		free(f);
	}
	closedir(d);
	return r;
}

/* Whether the link at path (a /proc entry) points into mnt. */
static int
disk_link_under(const char *path, const char *mnt)
{
	char	buf[4096];
	ssize_t	n;
	size_t	len = strlen(mnt);

	if ((n = readlink(path, buf, sizeof buf - 1)) == -1)
		return 0;
	buf[n] = '\0';
	return strncmp(buf, mnt, len) == 0 && (buf[len] == '\0' ||
	    buf[len] == '/');
}

/* Whether process pid has its cwd, root, an open file or a mapping in mnt. */
static int
disk_pid_uses(long pid, const char *mnt)
{
	char		 path[320], *buf = NULL, *cause = NULL, *line, *sp;
	size_t		 len, mlen = strlen(mnt);
	DIR		*d;
	struct dirent	*e;
	int		 uses = 0;

	snprintf(path, sizeof path, "/proc/%ld/cwd", pid);
	uses = disk_link_under(path, mnt);
	snprintf(path, sizeof path, "/proc/%ld/root", pid);
	uses = uses || disk_link_under(path, mnt);
	snprintf(path, sizeof path, "/proc/%ld/fd", pid);
	if (!uses && (d = opendir(path)) != NULL) {
		while (!uses && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "/proc/%ld/fd/%s", pid,
			    e->d_name);
			uses = disk_link_under(path, mnt);
		}
		closedir(d);
	}
	snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	if (!uses && file_read(path, &buf, &len, &cause) == 0) {
		for (line = buf; !uses && line != NULL; line = sp) {
			if ((sp = strchr(line, '\n')) != NULL)
				*sp++ = '\0';
			line = strchr(line, '/');
			uses = line != NULL && strncmp(line, mnt, mlen) == 0 &&
			    (line[mlen] == '\0' || line[mlen] == '/');
		}
	}
	free(buf);
	free(cause);
	return uses;
}

/*
 * Kill what a gone agent's run left using its mount (a benchmark's own
 * children outlive the runner that the agent's death kills: fio's jobs),
 * then unmount it, waiting at most 10 s for the killed to let it go.
 * Left running, they would hold the mount and load the next run.
 */
static int
disk_reap_mount(const char *mnt, char **cause)
{
	DIR		*d;
	struct dirent	*e;
	struct timespec	 ts = { 0, 50 * 1000 * 1000 };
	int		 tries;
	pid_t		 self = getpid();

	for (tries = 0; tries < 200; tries++) {
		if (umount2(mnt, 0) == 0 || errno == EINVAL || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return error_errno(cause, "couldn't unmount '%s'", mnt);
		if ((d = opendir("/proc")) == NULL)
			break;
		while ((e = readdir(d)) != NULL) {
			if (!isdigit((unsigned char)e->d_name[0]) ||
			    atol(e->d_name) == (long)self)
				continue;
			if (disk_pid_uses(atol(e->d_name), mnt))
				kill((pid_t)atol(e->d_name), SIGKILL);
		}
		closedir(d);
		nanosleep(&ts, NULL);
	}
	return disk_umount(mnt, cause);
}

int
disk_reap(const char *dir, int logfd, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	DIR		*d;
	struct dirent	*e;
	char		*path, *dev, *line, *one, *end;
	long		 pid;
	int		 pass, fd, r = 0;

	(void)logfd;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : error_errno(cause, "couldn't "
		    "open '%s'", dir);
	/* mount points first, then the loop disks under them */
	for (pass = 0; pass < 2; pass++) {
		rewinddir(d);
		while ((e = readdir(d)) != NULL) {
			const char	*pre = pass == 0 ? "fs-" : "loop-";

			if (strncmp(e->d_name, pre, strlen(pre)) != 0)
				continue;
			pid = strtol(e->d_name + strlen(pre), &end, 10);
			if (*end != '-' || disk_pid_alive(pid))
				continue;
			path = path_join(dir, e->d_name);
			one = NULL;
			if (pass == 0) {
				if ((line = disk_mounted(path, NULL)) != NULL &&
				    disk_reap_mount(path, &one) != 0)
					disk_note(&sb, one);
				else
					free(one);
				free(line);
				if (rmdir(path) == -1 && errno != ENOENT)
					disk_note(&sb, xasprintf("couldn't "
					    "remove '%s': %s", path,
					    strerror(errno)));
			} else {
				if ((dev = disk_loop_of(path)) != NULL) {
					if ((line = disk_mounted(NULL, dev)) !=
					    NULL)
						disk_note(&sb, xasprintf("'%s' "
						    "is still mounted (%s)",
						    dev, line));
					else if ((fd = open(dev, O_RDWR |
					    O_CLOEXEC)) == -1)
						disk_note(&sb, xasprintf(
						    "couldn't open '%s': %s",
						    dev, strerror(errno)));
					else {
						if (ioctl(fd, LOOP_CLR_FD, 0)
						    == -1)
							disk_note(&sb, xasprintf(
							    "couldn't detach "
							    "'%s': %s", dev,
							    strerror(errno)));
						close(fd);
					}
					free(line);
					free(dev);
				}
				if (unlink(path) == -1 && errno != ENOENT)
					disk_note(&sb, xasprintf("couldn't "
					    "remove '%s': %s", path,
					    strerror(errno)));
			}
			free(path);
		}
	}
	closedir(d);
	if (sb.len > 0)
		r = error_set(cause, "left by a gone agent under '%s': %s", dir,
		    sb.buf);
	strbuf_release(&sb);
	return r;
}
