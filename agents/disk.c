/*
 * LKP's disk, fs and mount_option as a job says them (agents/disk.h):
 * which of its agent's declared disks a job takes, the file system and
 * its mkfs, what is refused and why, which agents fit, and the agents'
 * disk declarations; disk-run.c sets them up around a run.
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

const char *const *
disk_mkfs_argv(const char *fs)
{
	int	k = disk_fs_known(fs);

	return k >= 0 ? disk_mkfs[k].mkfs : NULL;
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

/* How many disks of which kind: disk.nr_hdd, disk.nr_ssd or disk. */
static int
disk_job_count(const struct job *job, struct disk_want *out,
    const char **disk_key, const char **key, char **cause)
{
	const char	*v;
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
		*disk_key = k;
	}
	if ((v = job_param(job, "disk")) != NULL) {
		*key = "disk";
		if (out->nr > 0)
			return error_set(cause, "'disk' is given twice");
		if (disk_spec_parse(v, &out->nr, out->kind, cause) != 0)
			return -1;
	}
	return 0;
}

/* LKP's fs program map, fs: {fs: ext4}: its option is the fs. */
static int
disk_job_fs_map(const struct job *job, const char **key, char **cause)
{
	const char	*v;
	size_t		 i;

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
	return 0;
}

int
disk_job(const struct job *job, int adapter, struct disk_want *out,
    const char **key, char **cause)
{
	const char	*v, *fs, *disk_key = "disk";

	if (disk_job_count(job, out, &disk_key, key, cause) != 0)
		return -1;
	if ((v = job_param(job, "fs2")) != NULL) {
		*key = "fs2";
		return error_set(cause, "'fs2' is '%s': LKP then exports the "
		    "job's file system over NFS or CIFS and runs the test on "
		    "the network mount; bisect-agent sets up no NFS or CIFS "
		    "server", v);
	}
	if (disk_job_fs_map(job, key, cause) != 0)
		return -1;
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

	/* the adapter's own rules are testcase_check's */
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
