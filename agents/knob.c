/*
 * A job's environment knobs applied, checked and restored: THP, NUMA
 * balancing, sysctls and the cpufreq governor, each a file whose value must
 * read back as written; a refused or changed value is an error of the run,
 * never a silent difference (docs/design.md, "File notes"). Each file is
 * locked while a run has it and its old value journaled until restored;
 * a killed run's journals are put back by the next run (docs/agents.md).
 */
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/inventory.h"
#include "agents/knob.h"
#include "agents/knob-journal.h"
#include "agents/testcase-vmscale.h"
#include "jobs/job.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define KNOB_THP	"/sys/kernel/mm/transparent_hugepage/"
#define KNOB_CPU	"/sys/devices/system/cpu"
#define KNOB_MAX	65536

static char *knob_read_text(const struct knob_set *, const char *path);

static void
knob_add(struct knob_set *ks, const char *name, const char *path,
    const char *want, int bracketed)
{
	struct knob	*k;

	ks->knobs = xreallocarray(ks->knobs, ks->nr + 1, sizeof *ks->knobs);
	k = &ks->knobs[ks->nr++];
	memset(k, 0, sizeof *k);
	k->name = xstrdup(name);
	k->path = xstrdup(path);
	k->want = xstrdup(want);
	k->bracketed = bracketed;
	k->lockfd = -1;
}

void
knob_set_free(struct knob_set *ks)
{
	size_t	i;

	if (ks == NULL)
		return;
	for (i = 0; i < ks->nr; i++) {
		if (ks->knobs[i].lockfd != -1)
			close(ks->knobs[i].lockfd);
		free(ks->knobs[i].journal);
		free(ks->knobs[i].name);
		free(ks->knobs[i].path);
		free(ks->knobs[i].want);
		free(ks->knobs[i].orig);
	}
	free(ks->knobs);
	free(ks->root);
	free(ks->dir);
	free(ks->reaped);
	free(ks);
}

static int
knob_cpu_cmp(const void *a, const void *b)
{
	unsigned long	x = *(const unsigned long *)a;
	unsigned long	y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* One knob per CPU that has cpufreq; -1 naming what the machine lacks. */
static int
knob_cpufreq(struct knob_set *ks, const char *want, char **cause)
{
	struct dirent	 *de;
	DIR		 *d;
	unsigned long	 *cpus = NULL, n;
	char		 *full, *path, *avail = NULL, *tok, *save, *end;
	size_t		  nr = 0, alloc = 0, i;
	int		  r = -1, found = 0;

	full = inventory_path(ks->root, KNOB_CPU);
	if ((d = opendir(full)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strncmp(de->d_name, "cpu", 3) != 0 ||
			    de->d_name[3] < '0' || de->d_name[3] > '9')
				continue;
			n = strtoul(de->d_name + 3, &end, 10);
			if (*end != '\0')
				continue;
			ALLOC_GROW(cpus, nr, alloc);
			cpus[nr++] = n;
		}
		closedir(d);
	}
	qsort(cpus, nr, sizeof *cpus, knob_cpu_cmp);
	for (i = 0; i < nr; i++) {
		path = xasprintf(KNOB_CPU "/cpu%lu/cpufreq/scaling_governor",
		    cpus[i]);
		if ((avail = knob_read_text(ks, path)) == NULL) {
			free(path);
			continue;
		}
		free(avail);
		avail = NULL;
		knob_add(ks, "cpufreq_governor", path, want, 0);
		free(path);
		if (found++ > 0)
			continue;
		path = xasprintf(KNOB_CPU "/cpu%lu/cpufreq/"
		    "scaling_available_governors", cpus[i]);
		avail = knob_read_text(ks, path);
		free(path);
		if (avail == NULL)
			continue;
		for (tok = strtok_r(avail, " \t\n", &save); tok != NULL;
		    tok = strtok_r(NULL, " \t\n", &save)) {
			if (strcmp(tok, want) == 0)
				break;
		}
		if (tok == NULL) {
			free(avail);
			path = xasprintf(KNOB_CPU "/cpu%lu/cpufreq/"
			    "scaling_available_governors", cpus[i]);
			avail = knob_read_text(ks, path);
			free(path);
			if (avail != NULL)
				knob_normalize(avail);
			error_set(cause, "knob 'cpufreq_governor': this machine "
			    "offers the governors '%s', not '%s'",
			    avail != NULL ? avail : "", want);
			goto out;
		}
		free(avail);
		avail = NULL;
	}
	if (found == 0) {
		error_set(cause, "knob 'cpufreq_governor': this machine has "
		    "no cpufreq interface ('%s/cpu0/cpufreq/scaling_governor' "
		    "does not exist), so the governor '%s' cannot be set",
		    full, want);
		goto out;
	}
	r = 0;
out:
	free(avail);
	free(cpus);
	free(full);
	return r;
}

/* Where LKP's sysctl setup finds an "sc_NAME" file, in its order. */
static const char *const knob_sc_dirs[] = {
	"kernel", "vm", "fs", "net/core", "net/ipv4", "abi", "debug", NULL
};

/* transparent_hugepage: {KEY: value}, as LKP's THP setup writes them. */
static const struct {
	const char	*key;
	const char	*file;
} knob_thp_files[] = {
	{ "thp_enabled", "enabled" },
	{ "thp_defrag", "defrag" },
	{ "shmem_enabled", "shmem_enabled" },
	{ "enabled_64kB", "hugepages-64kB/enabled" },
	{ "enabled_32kB", "hugepages-32kB/enabled" },
	{ "enabled_16kB", "hugepages-16kB/enabled" },
};

static int
knob_exists(const char *root, const char *path)
{
	struct stat	 st;
	char		*full = inventory_path(root, path);
	int		 r = stat(full, &st) == 0 && S_ISREG(st.st_mode);

	free(full);
	return r;
}

int
knob_is_lkp(const char *key)
{
	return strncmp(key, "sc_", 3) == 0 ||
	    strncmp(key, "sysctl.sc_", 10) == 0 ||
	    strncmp(key, "transparent_hugepage.", 21) == 0;
}

int
knob_lkp_path(const char *root, const char *key, char **path,
    int *bracketed, char **cause)
{
	const char	*name, *p;
	char		*dashed, *try;
	size_t		 i, d;

	*path = NULL;
	*bracketed = 0;
	if (strncmp(key, "transparent_hugepage.", 21) == 0) {
		name = key + 21;
		for (i = 0; i < sizeof knob_thp_files / sizeof knob_thp_files[0];
		    i++) {
			if (strcmp(knob_thp_files[i].key, name) == 0) {
				*path = xasprintf(KNOB_THP "%s",
				    knob_thp_files[i].file);
				*bracketed = 1;
				return 1;
			}
		}
		return error_set(cause, "'%s' is not a setting of LKP's "
		    "transparent_hugepage (thp_enabled, thp_defrag, "
		    "shmem_enabled, enabled_64kB, enabled_32kB, enabled_16kB)",
		    key);
	}
	/* LKP's sysctl program takes them as its options too */
	if (strncmp(key, "sysctl.sc_", 10) == 0)
		key += 7;
	if (strncmp(key, "sc_", 3) != 0)
		return 0;
	name = key + 3;
	for (p = name; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '_'))
			break;
	}
	if (*name == '\0' || *p != '\0')
		return error_set(cause, "'%s' is not a sysctl short name "
		    "(sc_ and the file's name under /proc/sys, '-' written "
		    "'_')", key);
	dashed = xstrdup(name);
	for (i = 0; dashed[i] != '\0'; i++) {
		if (dashed[i] == '_')
			dashed[i] = '-';
	}
	for (d = 0; knob_sc_dirs[d] != NULL && *path == NULL; d++) {
		try = xasprintf("/proc/sys/%s/%s", knob_sc_dirs[d], name);
		if (!knob_exists(root, try)) {
			free(try);
			try = xasprintf("/proc/sys/%s/%s", knob_sc_dirs[d],
			    dashed);
			if (!knob_exists(root, try)) {
				free(try);
				continue;
			}
		}
		*path = try;
	}
	free(dashed);
	if (*path == NULL)
		return error_set(cause, "'%s': this machine has no sysctl "
		    "'%s' (looked in /proc/sys/kernel, vm, fs, net/core, "
		    "net/ipv4, abi and debug, with '_' and '-')", key, name);
	return 1;
}

/*
 * What the job's testcase sets for itself: vm-scalability's hugetlb
 * cases, the huge pages LKP's setup_hugetlb allows them (a sysctl the
 * job may not set too). 0, or -1 with *cause.
 */
static int
knob_testcase(const struct job *job, const char *root, struct knob_set *ks,
    char **cause)
{
	char	*value = NULL;
	size_t	 i;
	int	 r;

	if ((r = testcase_vmscale_knob(job, root, &value, cause)) <= 0)
		return r;
	for (i = 0; i < ks->nr; i++) {
		if (strcmp(ks->knobs[i].path, VMSCALE_HUGE_KNOB) == 0) {
			error_set(cause, "'%s' sets '%s', which "
			    "vm-scalability's hugetlb case sets to %s pages "
			    "(LKP's setup_hugetlb)", ks->knobs[i].name,
			    VMSCALE_HUGE_KNOB, value);
			free(value);
			return -1;
		}
	}
	knob_add(ks, "sysctl.vm.nr_overcommit_hugepages", VMSCALE_HUGE_KNOB,
	    value, 0);
	ks->knobs[ks->nr - 1].exclusive = 1;
	free(value);
	return 0;
}

int
knob_set_from_job(const struct job *job, const char *root,
    struct knob_set **out, char **cause)
{
	struct knob_set	*ks = xcalloc(1, sizeof *ks);
	const char	*v, *key;
	char		*path;
	size_t		 i, j;
	int		 lkp, bracketed;

	ks->root = root != NULL ? xstrdup(root) : NULL;
	ks->dir = knob_journal_dir(root);
	ks->lock_wait = KNOB_LOCK_WAIT;
	if ((v = job_param(job, "thp_enabled")) != NULL)
		knob_add(ks, "thp_enabled", KNOB_THP "enabled", v, 1);
	if ((v = job_param(job, "thp_defrag")) != NULL)
		knob_add(ks, "thp_defrag", KNOB_THP "defrag", v, 1);
	if ((v = job_param(job, "numa_balancing")) != NULL)
		knob_add(ks, "numa_balancing", "/proc/sys/kernel/numa_balancing",
		    v, 0);
	if ((v = job_param(job, "cpufreq_governor")) != NULL &&
	    knob_cpufreq(ks, v, cause) != 0) {
		knob_set_free(ks);
		return -1;
	}
	for (i = 0; i < job->nr_params; i++) {
		key = job->params[i].key;
		bracketed = 0;
		if ((lkp = knob_lkp_path(root, key, &path, &bracketed,
		    cause)) < 0) {
			knob_set_free(ks);
			return -1;
		}
		if (lkp == 0 && strncmp(key, "sysctl.", 7) != 0)
			continue;
		if (lkp == 0 &&
		    (path = inventory_sysctl_path(key + 7)) == NULL) {
			error_set(cause, "'%s' is not a sysctl name that "
			    "bisect-agent can set", key);
			knob_set_free(ks);
			return -1;
		}
		for (j = 0; j < ks->nr; j++) {
			if (strcmp(ks->knobs[j].path, path) == 0) {
				error_set(cause, "'%s' and '%s' both set '%s'",
				    ks->knobs[j].name, key, path);
				free(path);
				knob_set_free(ks);
				return -1;
			}
		}
		knob_add(ks, key, path, job->params[i].value, bracketed);
		free(path);
	}
	if (knob_testcase(job, root, ks, cause) != 0) {
		knob_set_free(ks);
		return -1;
	}
	*out = ks;
	return 0;
}

void
knob_normalize(char *s)
{
	char	*p, *q;

	for (p = q = s; *p != '\0'; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			if (q > s && q[-1] != ' ')
				*q++ = ' ';
		} else
			*q++ = *p;
	}
	while (q > s && q[-1] == ' ')
		q--;
	*q = '\0';
}

/*
 * The text of a knob file: a regular file, or a character device (a
 * kernel interface that ignores writes reads back as /dev/null does).
 */
char *
knob_text(const char *full)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd;

	fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !(S_ISREG(st.st_mode) ||
	    S_ISCHR(st.st_mode))) {
		close(fd);
		return NULL;
	}
	buf = xmalloc(KNOB_MAX + 1);
	while (len < KNOB_MAX &&
	    (n = fd_read(fd, buf + len, KNOB_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *
knob_read_text(const struct knob_set *ks, const char *path)
{
	char	*full = inventory_path(ks->root, path), *v;

	v = knob_text(full);
	free(full);
	return v;
}

/* A knob file's value as compared: the [choice], blanks normalized. */
char *
knob_value(const char *full, int bracketed)
{
	char	*v, *open, *close;

	if ((v = knob_text(full)) == NULL)
		return NULL;
	if (bracketed && (open = strchr(v, '[')) != NULL &&
	    (close = strchr(open, ']')) != NULL) {
		memmove(v, open + 1, (size_t)(close - open - 1));
		v[close - open - 1] = '\0';
	}
	knob_normalize(v);
	return v;
}

char *
knob_read(const struct knob_set *ks, const struct knob *k)
{
	char	*full = inventory_path(ks->root, k->path), *v;

	v = knob_value(full, k->bracketed);
	free(full);
	return v;
}

int
knob_write_full(const char *full, const char *value, char **cause)
{
	char	*text = xasprintf("%s\n", value);
	int	 fd, r = -1;

	if ((fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1) {
		error_errno(cause, "couldn't open '%s'", full);
		goto out;
	}
	if (fd_write_all(fd, text, strlen(text)) == -1) {
		error_errno(cause, "couldn't write '%s' to '%s'", value, full);
		goto out;
	}
	if (close(fd) == -1) {
		fd = -1;
		error_errno(cause, "couldn't write '%s' to '%s'", value, full);
		goto out;
	}
	fd = -1;
	r = 0;
out:
	if (fd != -1)
		close(fd);
	free(text);
	return r;
}

static int
knob_write(const struct knob_set *ks, const struct knob *k,
    const char *value, char **cause)
{
	char	*full = inventory_path(ks->root, k->path);
	int	 r;

	r = knob_write_full(full, value, cause);
	free(full);
	return r;
}

/* The value to compare a knob's reading with: the job's, normalized. */
char *
knob_wanted(const struct knob *k)
{
	char	*w = xstrdup(k->want);

	knob_normalize(w);
	return w;
}

/*
 * The file full locked with flock (the kernel's files take it too): 0
 * when held (*fd, or -1 for a file that is missing or not a regular one,
 * which is not locked), 1 when another holds it, -1 with *cause.
 */
int
knob_lock_file(const char *full, int *fd, char **cause)
{
	struct stat	st;

	*fd = -1;
	if ((*fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(*fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK || errno == EINTR) {
		close(*fd);
		*fd = -1;
		return 1;
	}
	error_errno(cause, "couldn't lock '%s'", full);
	close(*fd);
	*fd = -1;
	return -1;
}

/* Every knob's file locked in the order of their paths, waiting. */
static int
knob_lock_all(struct knob_set *ks, char **cause)
{
	struct knob	*k;
	size_t		*order, i, j;
	time_t		 deadline = time(NULL) + ks->lock_wait;
	char		*full;
	int		 got, said, r = -1;

	order = xcalloc(ks->nr + 1, sizeof *order);
	for (i = 0; i < ks->nr; i++) {
		for (j = i; j > 0 && strcmp(ks->knobs[order[j - 1]].path,
		    ks->knobs[i].path) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < ks->nr; i++) {
		k = &ks->knobs[order[i]];
		full = inventory_path(ks->root, k->path);
		said = 0;
		while ((got = knob_lock_file(full, &k->lockfd, cause)) == 1 &&
		    time(NULL) < deadline) {
			if (!said++)
				fprintf(stderr, "bisect-agent: knob '%s': "
				    "another run on this machine holds '%s', "
				    "waiting (at most %d s)\n", k->name, full,
				    ks->lock_wait);
			sleep(1);
		}
		if (got != 0) {
			if (got > 0)
				error_set(cause, "another run on this machine "
				    "has held '%s' for %d s", full,
				    ks->lock_wait);
			error_prefix(cause, "knob '%s'", k->name);
			free(full);
			goto out;
		}
		free(full);
	}
	r = 0;
out:
	free(order);
	return r;
}

int
knob_apply(struct knob_set *ks, char **cause)
{
	struct strbuf	 done = STRBUF_INIT;
	struct knob	*k;
	char		*now = NULL, *want = NULL, *full = NULL;
	size_t		 i;
	int		 r = -1;

	if (knob_lock_all(ks, cause) != 0)
		goto out;
	for (i = 0; i < ks->nr; i++) {
		k = &ks->knobs[i];
		free(full);
		full = inventory_path(ks->root, k->path);
		free(k->journal);
		k->journal = knob_journal_path(ks->dir, full);
		/* held by no run: a journal is a killed run's */
		if (knob_journal_replay(ks->root, k->journal, &done,
		    cause) != 0) {
			error_prefix(cause, "knob '%s': couldn't put back a "
			    "killed run's value", k->name);
			free(k->journal);
			k->journal = NULL;
			goto out;
		}
		if ((k->orig = knob_read(ks, k)) == NULL) {
			error_set(cause, "knob '%s': '%s' cannot be read on "
			    "this machine", k->name, full);
			free(k->journal);
			k->journal = NULL;
			goto out;
		}
		if (knob_journal_write(ks, k, full, cause) != 0) {
			error_prefix(cause, "knob '%s': couldn't journal its "
			    "old value", k->name);
			goto out;
		}
		if (knob_write(ks, k, k->want, cause) != 0) {
			error_prefix(cause, "knob '%s'", k->name);
			goto out;
		}
		k->applied = 1;
		free(now);
		free(want);
		now = knob_read(ks, k);
		want = knob_wanted(k);
		if (now == NULL || strcmp(now, want) != 0) {
			error_set(cause, "knob '%s': wrote '%s' to '%s' but it "
			    "reads '%s'", k->name, want, k->path,
			    now != NULL ? now : "(unreadable)");
			goto out;
		}
	}
	r = 0;
out:
	if (done.len > 0) {
		free(ks->reaped);
		ks->reaped = strbuf_detach(&done, NULL);
	}
	strbuf_release(&done);
	free(full);
	free(now);
	free(want);
	return r;
}

int
knob_check(const struct knob_set *ks, char **cause)
{
	const struct knob	*k;
	char			*now, *want;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < ks->nr && r == 0; i++) {
		k = &ks->knobs[i];
		if (!k->applied)
			continue;
		now = knob_read(ks, k);
		want = knob_wanted(k);
		if (now == NULL || strcmp(now, want) != 0)
			r = error_set(cause, "knob '%s' did not stick: it was "
			    "set to '%s' but reads '%s' after the run",
			    k->name, want, now != NULL ? now : "(unreadable)");
		free(now);
		free(want);
	}
	return r;
}

int
knob_restore(struct knob_set *ks, char **cause)
{
	struct strbuf	 failed = STRBUF_INIT;
	struct knob	*k;
	char		*why = NULL, *back;
	size_t		 i;
	int		 r = 0;

	for (i = ks->nr; i-- > 0;) {
		k = &ks->knobs[i];
		if (k->applied) {
			if (knob_write(ks, k, k->orig, &why) != 0) {
				strbuf_addf(&failed, "%s%s", failed.len ?
				    "; " : "", why);
				free(why);
				why = NULL;
				continue;
			}
			back = knob_read(ks, k);
			if (back == NULL || strcmp(back, k->orig) != 0) {
				strbuf_addf(&failed, "%sknob '%s': wrote '%s' "
				    "back to '%s' but it reads '%s'",
				    failed.len ? "; " : "", k->name, k->orig,
				    k->path, back != NULL ? back :
				    "(unreadable)");
				free(back);
				continue;
			}
			free(back);
			k->applied = 0;
		}
		/* restored (or never written): its journal goes */
		if (k->journal != NULL &&
		    knob_journal_remove(k->journal, &why) != 0) {
			strbuf_addf(&failed, "%s%s", failed.len ? "; " : "",
			    why);
			free(why);
			why = NULL;
			continue;
		}
		free(k->journal);
		k->journal = NULL;
	}
	/* the locks go once every knob is back (or cannot be) */
	for (i = 0; i < ks->nr; i++) {
		if (ks->knobs[i].lockfd != -1) {
			close(ks->knobs[i].lockfd);
			ks->knobs[i].lockfd = -1;
		}
	}
	if (failed.len > 0)
		r = error_set(cause, "couldn't restore every knob: %s",
		    failed.buf);
	strbuf_release(&failed);
	return r;
}
