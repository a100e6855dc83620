/*
 * A run's disks (agents/disk.h): the declared disks the job takes, loop
 * devices attached, file systems made and mounted under the agent's disk
 * directory, all undone after the run; and the reaping of what a gone
 * agent's run left there (docs/jobs.md, "Disks and file systems").
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
#include "jobs/job.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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
disk_run_cmd(char *const argv[], int logfd, char **cause)
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
disk_run_mounted(const char *mnt, const char *source)
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
disk_run_swap(const char *device)
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
disk_run_loop_attach(const char *file, char **dev, int *loopfd, char **cause)
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
disk_run_umount(const char *mnt, char **cause)
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
disk_run_note(struct strbuf *sb, char *msg)
{
	if (msg == NULL)
		return;
	strbuf_addf(sb, "%s%s", sb->len ? "; " : "", msg);
	free(msg);
}

int
disk_run_teardown(struct disk_run *dr, char **cause)
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
		if (m->mounted && disk_run_umount(m->mnt, &one) != 0)
			disk_run_note(&sb, one);
		else if (one != NULL)
			disk_run_note(&sb, one);
		if (m->mnt != NULL && rmdir(m->mnt) == -1 && errno != ENOENT)
			disk_run_note(&sb, xasprintf("couldn't remove '%s': %s",
			    m->mnt, strerror(errno)));
		if (m->loopfile != NULL && m->device != NULL) {
			fd = m->loopfd;
			if (fd == -1)
				fd = open(m->device, O_RDWR | O_CLOEXEC);
			if (fd == -1 || ioctl(fd, LOOP_CLR_FD, 0) == -1)
				disk_run_note(&sb, xasprintf("couldn't detach "
				    "'%s': %s", m->device, strerror(errno)));
			if (fd != -1)
				close(fd);
			m->loopfd = -1;
		}
		if (m->loopfile != NULL && unlink(m->loopfile) == -1 &&
		    errno != ENOENT)
			disk_run_note(&sb, xasprintf("couldn't remove '%s': %s",
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
disk_run_setup_one(struct disk_run *dr, struct disk_mount *m,
    const struct disk_decl *d, const char *dir, size_t idx, int logfd,
    char **cause)
{
	const char	*argv[16];
	const char *const *mk;
	struct stat	 st;
	char		*opts = NULL, *had;
	size_t		 n = 0, i;
	int		 fd, r = -1;

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
		if (disk_run_loop_attach(m->loopfile, &m->device, &m->loopfd,
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
		if ((had = disk_run_mounted(NULL, d->device)) != NULL) {
			error_set(cause, "disk '%s' is mounted (%s): bisect-agent "
			    "makes file systems only on unused disks", d->device,
			    had);
			free(had);
			goto out;
		}
		if (disk_run_swap(d->device)) {
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
	mk = disk_mkfs_argv(dr->fs);
	if (d != NULL && mk != NULL && mk[0] != NULL) {
		for (i = 0; mk[i] != NULL; i++)
			argv[n++] = mk[i];
		argv[n++] = m->device;
		argv[n] = NULL;
		if (disk_run_cmd((char *const *)argv, logfd, cause) != 0) {
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
	if (disk_run_cmd((char *const *)argv, logfd, cause) != 0) {
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
disk_run_setup(const struct job *job, const struct disk_decl *decls,
    size_t nr, const char *dir, int logfd, struct disk_run **out, char **cause)
{
	struct disk_want	 w;
	struct disk_run		*dr = NULL;
	struct strbuf		 sb = STRBUF_INIT;
	const char		*key;
	const char *const	*mk;
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
		mk = disk_mkfs_argv(w.fs);
		for (i = 0; mk != NULL && mk[i] != NULL; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "", mk[i]);
		if (sb.len > 0)
			dr->mkfs = strbuf_detach(&sb, NULL);
	}
	if (w.mount_option != NULL)
		dr->mount_option = xstrdup(w.mount_option);
	if (w.nr == 0) {
		/* fs: tmpfs */
		dr->nr = 1;
		if (disk_run_setup_one(dr, &dr->m[0], NULL, dir, 0, logfd,
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
			if (disk_run_loop_attach(dr->m[dr->nr - 1].loopfile,
			    &dr->m[dr->nr - 1].device,
			    &dr->m[dr->nr - 1].loopfd, cause) != 0)
				goto fail;
			continue;
		}
		if (disk_run_setup_one(dr, &dr->m[dr->nr - 1], &decls[i], dir,
		    dr->nr - 1, logfd, cause) != 0)
			goto fail;
	}
	*out = dr;
	return 0;
fail:
	if (disk_run_teardown(dr, &undo) != 0) {
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
			if ((line = disk_run_mounted(m->mnt, NULL)) != NULL) {
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

/* The loop device whose backing file is path: "/dev/loopN", or NULL. */
static char *
disk_run_loop_of(const char *path)
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
disk_run_link_under(const char *path, const char *mnt)
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
disk_run_pid_uses(long pid, const char *mnt)
{
	char		 path[320], *buf = NULL, *cause = NULL, *line, *sp;
	size_t		 len, mlen = strlen(mnt);
	DIR		*d;
	struct dirent	*e;
	int		 uses = 0;

	snprintf(path, sizeof path, "/proc/%ld/cwd", pid);
	uses = disk_run_link_under(path, mnt);
	snprintf(path, sizeof path, "/proc/%ld/root", pid);
	uses = uses || disk_run_link_under(path, mnt);
	snprintf(path, sizeof path, "/proc/%ld/fd", pid);
	if (!uses && (d = opendir(path)) != NULL) {
		while (!uses && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "/proc/%ld/fd/%s", pid,
			    e->d_name);
			uses = disk_run_link_under(path, mnt);
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
disk_run_reap_mount(const char *mnt, char **cause)
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
			if (disk_run_pid_uses(atol(e->d_name), mnt))
				kill((pid_t)atol(e->d_name), SIGKILL);
		}
		closedir(d);
		nanosleep(&ts, NULL);
	}
	return disk_run_umount(mnt, cause);
}

int
disk_run_reap(const char *dir, int logfd, char **cause)
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
			if (*end != '-' || child_agent_alive(pid))
				continue;
			path = path_join(dir, e->d_name);
			one = NULL;
			if (pass == 0) {
				if ((line = disk_run_mounted(path, NULL)) != NULL &&
				    disk_run_reap_mount(path, &one) != 0)
					disk_run_note(&sb, one);
				else
					free(one);
				free(line);
				if (rmdir(path) == -1 && errno != ENOENT)
					disk_run_note(&sb, xasprintf("couldn't "
					    "remove '%s': %s", path,
					    strerror(errno)));
			} else {
				if ((dev = disk_run_loop_of(path)) != NULL) {
					if ((line = disk_run_mounted(NULL, dev)) !=
					    NULL)
						disk_run_note(&sb, xasprintf("'%s' "
						    "is still mounted (%s)",
						    dev, line));
					else if ((fd = open(dev, O_RDWR |
					    O_CLOEXEC)) == -1)
						disk_run_note(&sb, xasprintf(
						    "couldn't open '%s': %s",
						    dev, strerror(errno)));
					else {
						if (ioctl(fd, LOOP_CLR_FD, 0)
						    == -1)
							disk_run_note(&sb, xasprintf(
							    "couldn't detach "
							    "'%s': %s", dev,
							    strerror(errno)));
						close(fd);
					}
					free(line);
					free(dev);
				}
				if (unlink(path) == -1 && errno != ENOENT)
					disk_run_note(&sb, xasprintf("couldn't "
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
