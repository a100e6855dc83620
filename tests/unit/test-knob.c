/*
 * Unit tests for agents/knob.c against fixture trees made here: THP files
 * in the kernel's "always [madvise] never" format, /proc/sys files, a
 * multi-value sysctl; applying, checking after the run, restoring; and
 * the failures: a missing file, a write that does not stick, a value
 * changed during the run, a restore that cannot write, bad names; and
 * cpufreq_governor on every CPU, a governor the machine does not offer,
 * a machine without cpufreq; LKP's names (sc_NAME, sysctl: {sc_NAME},
 * transparent_hugepage: {...}); vm-scalability's hugetlb cases'
 * vm.nr_overcommit_hugepages; the journal of old values a killed run
 * leaves and the next run puts back, and the locks taken in path order.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/inventory.h"
#include "agents/knob.h"
#include "agents/knob-journal.h"
#include "jobs/job.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/xalloc.h"

static char *root;

static void
put(const char *path, const char *text)
{
	char	*full = xasprintf("%s%s", root, path), *dir;

	dir = path_dirname(full);
	dir_create(dir, NULL);
	unlink(full);
	file_write_atomic(full, text, strlen(text), NULL);
	free(dir);
	free(full);
}

static char *
get(const char *path)
{
	char	*full = xasprintf("%s%s", root, path), *buf = NULL;
	size_t	 len;

	if (file_read(full, &buf, &len, NULL) != 0)
		buf = xstrdup("(unreadable)");
	free(full);
	return buf;
}

static void
fixture(void)
{
	put("/sys/kernel/mm/transparent_hugepage/enabled",
	    "always [madvise] never\n");
	put("/sys/kernel/mm/transparent_hugepage/defrag",
	    "always defer defer+madvise [madvise] never\n");
	put("/proc/sys/kernel/numa_balancing", "1\n");
	put("/proc/sys/vm/swappiness", "60\n");
	put("/proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
}

static struct job *
job(const char *yaml)
{
	struct job	**jobs = NULL;
	struct job	 *j = NULL;
	char		 *cause = NULL;
	size_t		  nr = 0;

	if (job_parse("job.yaml", yaml, strlen(yaml), &jobs, &nr, &cause) !=
	    0 || nr != 1) {
		diag("job: %s", cause ? cause : "not one job");
		free(cause);
		job_list_free(jobs, nr);
		return NULL;
	}
	j = jobs[0];
	free(jobs);
	return j;
}

static void
test_apply_restore(void)
{
	struct job	*j;
	struct knob_set	*ks = NULL;
	char		*cause = NULL, *v;

	fixture();
	j = job("testcase: t\nrun: 'true'\nthp_enabled: always\n"
	    "thp_defrag: never\nnuma_balancing: 0\n"
	    "sysctl: {vm.swappiness: 10, net/ipv4/tcp_rmem: '4096 87380 "
	    "6291456'}\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == 0, "knobs of the job");
	is_int(ks->nr, 5, "five knobs");
	ok(knob_apply(ks, &cause) == 0, "applied: %s", cause ? cause : "");
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "always", "thp_enabled is always");
	free(v);
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "10\n", "vm.swappiness written");
	free(v);
	v = get("/proc/sys/net/ipv4/tcp_rmem");
	is_str(v, "4096 87380 6291456\n", "a sysctl with a slash and three "
	    "values");
	free(v);
	is_str(ks->knobs[0].orig, "madvise", "THP's old choice kept");
	ok(knob_check(ks, &cause) == 0, "still set after the run");

	put("/proc/sys/net/ipv4/tcp_rmem", "4096\t87380\t6291456\n");
	ok(knob_check(ks, &cause) == 0, "tabs and spaces are the same value");

	ok(knob_restore(ks, &cause) == 0, "restored");
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "madvise", "thp_enabled back to madvise");
	free(v);
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "defrag");
	is_str(v, "madvise", "thp_defrag back to madvise");
	free(v);
	v = get("/proc/sys/kernel/numa_balancing");
	is_str(v, "1\n", "numa_balancing back to 1");
	free(v);
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "60\n", "vm.swappiness back to 60");
	free(v);
	v = get("/proc/sys/net/ipv4/tcp_rmem");
	is_str(v, "4096 131072 6291456\n", "tcp_rmem back");
	free(v);
	knob_set_free(ks);
	job_free(j);
	free(cause);
}

static void
test_failures(void)
{
	struct job	*j;
	struct knob_set	*ks = NULL;
	char		*cause = NULL, *v, *full;
	int		 r;

	fixture();
	j = job("testcase: t\nrun: 'true'\nthp_enabled: never\n"
	    "sysctl: {vm.no_such_knob: 1}\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == 0, "knobs of the job");
	r = knob_apply(ks, &cause);
	ok(r == -1 && cause != NULL &&
	    strstr(cause, "knob 'sysctl.vm.no_such_knob'") != NULL &&
	    strstr(cause, "cannot be read") != NULL,
	    "a missing file is named: %s", cause ? cause : "");
	ok(ks->knobs[0].applied, "the knob before it was applied");
	ok(knob_restore(ks, &cause) == 0, "and is restored");
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "madvise", "thp_enabled as it was");
	free(v);
	knob_set_free(ks);
	job_free(j);

	fixture();
	full = xasprintf("%s/proc/sys/vm/swappiness", root);
	unlink(full);
	ok(symlink("/dev/null", full) == 0, "swappiness is /dev/null");
	free(full);
	j = job("testcase: t\nrun: 'true'\nsysctl: {vm.swappiness: 10}\n");
	knob_set_from_job(j, root, &ks, &cause);
	r = knob_apply(ks, &cause);
	ok(r == -1 && cause != NULL && strstr(cause, "wrote '10'") != NULL &&
	    strstr(cause, "reads ''") != NULL,
	    "a write that does not stick: %s", cause ? cause : "");
	knob_set_free(ks);
	job_free(j);

	fixture();
	j = job("testcase: t\nrun: 'true'\nthp_enabled: always\n");
	knob_set_from_job(j, root, &ks, &cause);
	ok(knob_apply(ks, &cause) == 0, "applied");
	put("/sys/kernel/mm/transparent_hugepage/enabled",
	    "always madvise [never]\n");
	r = knob_check(ks, &cause);
	ok(r == -1 && strcmp(cause, "knob 'thp_enabled' "
	    "did not stick: it was set to 'always' but reads 'never' after "
	    "the run") == 0, "changed during the run: %s", cause);
	full = xasprintf("%s/sys/kernel/mm/transparent_hugepage/enabled",
	    root);
	unlink(full);
	mkdir(full, 0755);
	free(full);
	r = knob_restore(ks, &cause);
	ok(r == -1 && strstr(cause, "couldn't "
	    "restore every knob") != NULL, "a restore that fails says so: %s",
	    cause);
	knob_set_free(ks);
	job_free(j);

	j = job("testcase: t\nrun: 'true'\nnuma_balancing: 1\n"
	    "sysctl: {kernel.numa_balancing: 0}\n");
	r = knob_set_from_job(j, root, &ks, &cause);
	ok(r == -1 && strstr(cause, "both set") != NULL, "two knobs, one file: %s",
	    cause);
	job_free(j);

	j = job("testcase: t\nrun: 'true'\nsysctl: {vm/../../etc/x: 1}\n");
	r = j != NULL ? knob_set_from_job(j, root, &ks, &cause) : 0;
	ok(r == -1 && strstr(cause, "is not a sysctl name") != NULL,
	    "'..' cannot leave /proc/sys: %s", cause);
	job_free(j);
	free(cause);
}

static void
test_cpufreq(void)
{
	struct job	*j;
	struct knob_set	*ks = NULL;
	char		*cause = NULL, *v, *full;
	int		 r;
	unsigned	 cpu;

	fixture();
	for (cpu = 0; cpu < 3; cpu++) {
		full = xasprintf("/sys/devices/system/cpu/cpu%u/cpufreq/"
		    "scaling_governor", cpu);
		put(full, "powersave\n");
		free(full);
		full = xasprintf("/sys/devices/system/cpu/cpu%u/cpufreq/"
		    "scaling_available_governors", cpu);
		put(full, "performance powersave\n");
		free(full);
	}
	put("/sys/devices/system/cpu/online", "0-2\n");
	j = job("testcase: t\nrun: 'true'\ncpufreq_governor: performance\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == 0, "cpufreq knobs: %s",
	    cause ? cause : "");
	is_int(ks != NULL ? ks->nr : 0, 3, "one per CPU");
	ok(ks != NULL && knob_apply(ks, &cause) == 0, "applied: %s",
	    cause ? cause : "");
	v = get("/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor");
	is_str(v, "performance\n", "cpu2's governor written");
	free(v);
	ok(knob_check(ks, &cause) == 0, "and still set after the run");
	ok(knob_restore(ks, &cause) == 0, "restored");
	v = get("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	is_str(v, "powersave\n", "cpu0 back to powersave");
	free(v);
	knob_set_free(ks);
	ks = NULL;
	job_free(j);

	j = job("testcase: t\nrun: 'true'\ncpufreq_governor: ondemand\n");
	r = knob_set_from_job(j, root, &ks, &cause);
	ok(r == -1 && cause != NULL && strcmp(cause, "knob "
	    "'cpufreq_governor': this machine offers the governors "
	    "'performance powersave', not 'ondemand'") == 0,
	    "a governor not offered: %s", cause ? cause : "");
	job_free(j);

	full = xasprintf("%s/sys/devices/system/cpu", root);
	dir_remove_tree(full, NULL);
	free(full);
	put("/sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
	j = job("testcase: t\nrun: 'true'\ncpufreq_governor: performance\n");
	r = knob_set_from_job(j, root, &ks, &cause);
	ok(r == -1 && cause != NULL && strstr(cause, "no cpufreq "
	    "interface") != NULL && strstr(cause, "'performance' cannot be "
	    "set") != NULL, "no cpufreq: %s", cause ? cause : "");
	job_free(j);
	free(cause);
}

static void
test_sysctl_path(void)
{
	char	*p;

	p = inventory_sysctl_path("vm.swappiness");
	is_str(p, "/proc/sys/vm/swappiness", "dots become slashes");
	free(p);
	p = inventory_sysctl_path("net/ipv4/conf/eth0.100/forwarding");
	is_str(p, "/proc/sys/net/ipv4/conf/eth0.100/forwarding",
	    "with a slash, dots stay");
	free(p);
	ok(inventory_sysctl_path("vm..swappiness") == NULL, "empty part");
	ok(inventory_sysctl_path("vm/./x") == NULL, "'.' part");
	ok(inventory_sysctl_path("vm/") == NULL, "trailing slash");
	ok(inventory_sysctl_path("") == NULL, "empty name");
	ok(inventory_sysctl_path("vm.swap piness") == NULL, "a blank");
}

/* LKP's names: sc_NAME found in its directories, '-' for '_'; THP maps. */
static void
test_lkp_names(void)
{
	struct job	*j;
	struct knob_set	*ks = NULL;
	char		*cause = NULL, *path = NULL;
	int		 br = -1;
	char		*full;

	/* an earlier test left THP's enabled a directory */
	full = xasprintf("%s/sys/kernel/mm/transparent_hugepage/enabled", root);
	rmdir(full);
	free(full);
	fixture();
	put("/proc/sys/vm/overcommit_memory", "0\n");
	put("/proc/sys/kernel/ctrl-alt-del", "0\n");
	put("/proc/sys/net/core/somaxconn", "4096\n");
	put("/proc/sys/fs/file-max", "100\n");
	ok(knob_lkp_path(root, "sc_overcommit_memory", &path, &br, &cause) == 1 &&
	    strcmp(path, "/proc/sys/vm/overcommit_memory") == 0 && br == 0,
	    "sc_overcommit_memory is vm/overcommit_memory: %s",
	    path ? path : cause);
	free(path);
	path = NULL;
	ok(knob_lkp_path(root, "sc_ctrl_alt_del", &path, &br, &cause) == 1 &&
	    strcmp(path, "/proc/sys/kernel/ctrl-alt-del") == 0,
	    "'_' read as '-': kernel/ctrl-alt-del");
	free(path);
	path = NULL;
	ok(knob_lkp_path(root, "sysctl.sc_somaxconn", &path, &br, &cause) == 1 &&
	    strcmp(path, "/proc/sys/net/core/somaxconn") == 0,
	    "sysctl: {sc_somaxconn} is net/core/somaxconn");
	free(path);
	path = NULL;
	put("/proc/sys/kernel/file-max", "1\n");
	ok(knob_lkp_path(root, "sc_file_max", &path, &br, &cause) == 1 &&
	    strcmp(path, "/proc/sys/kernel/file-max") == 0,
	    "kernel before fs, as LKP's list has them");
	free(path);
	path = NULL;
	ok(knob_lkp_path(root, "transparent_hugepage.thp_defrag", &path, &br,
	    &cause) == 1 && strcmp(path,
	    "/sys/kernel/mm/transparent_hugepage/defrag") == 0 && br == 1,
	    "transparent_hugepage.thp_defrag is THP's defrag, bracketed");
	free(path);
	path = NULL;
	ok(knob_lkp_path(root, "nr_threads", &path, &br, &cause) == 0 &&
	    path == NULL, "nr_threads is no knob");
	ok(knob_lkp_path(root, "sc_no_such", &path, &br, &cause) == -1 &&
	    strstr(cause, "this machine has no sysctl 'no_such'") != NULL,
	    "a name that is no file: %s", cause ? cause : "");
	free(cause);
	cause = NULL;
	ok(knob_lkp_path(root, "sc_../etc", &path, &br, &cause) == -1 &&
	    strstr(cause, "is not a sysctl short name") != NULL,
	    "no path in a short name");
	free(cause);
	cause = NULL;
	ok(knob_lkp_path(root, "transparent_hugepage.thp", &path, &br,
	    &cause) == -1, "an unknown THP setting");
	free(cause);
	cause = NULL;

	j = job("testcase: t\nrun: 'true'\nsc_overcommit_memory: 1\n"
	    "transparent_hugepage: {thp_enabled: never}\n");
	ok(j != NULL && knob_set_from_job(j, root, &ks, &cause) == 0 &&
	    ks->nr == 2, "two knobs from LKP's names");
	br = ks != NULL ? knob_apply(ks, &cause) : -1;
	ok(br == 0, "applied: %s", cause ? cause : "");
	path = get("/proc/sys/vm/overcommit_memory");
	ok(strcmp(path, "1\n") == 0 || strcmp(path, "1") == 0,
	    "overcommit_memory written");
	free(path);
	ok(ks != NULL && knob_restore(ks, &cause) == 0, "restored");
	path = get("/proc/sys/vm/overcommit_memory");
	ok(strncmp(path, "0", 1) == 0, "overcommit_memory restored");
	free(path);
	knob_set_free(ks);
	job_free(j);
}

/* 1 when no one holds path's flock (it is taken and let go here). */
static int
locked_free(const char *path)
{
	char	*full = xasprintf("%s%s", root, path);
	int	 fd = open(full, O_RDONLY), r;

	free(full);
	if (fd == -1)
		return 0;
	r = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return r;
}

/*
 * vm-scalability's hugetlb cases: vm.nr_overcommit_hugepages as LKP's
 * setup_hugetlb sizes it (unit_size / 2 MiB + nr_task + 1) for the
 * machine at root (MemTotal 8 GiB, 4 CPUs, 1 node), applied and
 * restored; none for another case; a machine without 2 MiB default
 * pages, and a job that sets the sysctl too, refused.
 */
static void
test_hugetlb(void)
{
	struct knob_set	*ks = NULL;
	struct job	*j;
	char		*cause = NULL, *v;
	size_t		 i;
	static const struct {
		const char	*params;
		const char	*want;
	} cases[] = {
		/* unit_size 64M: 32 pages, and 2 + 1 */
		{ "test: anon-w-seq-hugetlb\nnr_task: 2\nunit_size: 64M\n",
		  "35" },
		/* mem / 2 = 4 GiB: 2048, and 4 tasks (100% of 4) + 1 */
		{ "test: anon-cow-rand-hugetlb\n", "2053" },
		/* size 100M: the unit at most size x nr_node */
		{ "test: anon-w-rand-hugetlb\nnr_task: 50%\nsize: 100M\n",
		  "53" },
		/* size 8T: the unit is mem / 2 (LKP repeats it) */
		{ "test: anon-cow-seq-hugetlb\nnr_task: 1\nsize: 8T\n",
		  "2050" },
	};

	put("/proc/meminfo", "MemTotal:        8388608 kB\n"
	    "MemAvailable:    8000000 kB\nHugepagesize:       2048 kB\n");
	put("/sys/devices/system/cpu/online", "0-3\n");
	put("/sys/devices/system/node/node0/cpulist", "0-3\n");
	put("/proc/sys/vm/nr_overcommit_hugepages", "7\n");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		v = xasprintf("testcase: vm-scalability\n%s", cases[i].params);
		j = job(v);
		free(v);
		ok(knob_set_from_job(j, root, &ks, &cause) == 0,
		    "hugetlb %zu: knobs: %s", i, cause ? cause : "");
		ok(ks != NULL && ks->nr == 1 && strcmp(ks->knobs[0].name,
		    "sysctl.vm.nr_overcommit_hugepages") == 0 &&
		    strcmp(ks->knobs[0].path,
		    "/proc/sys/vm/nr_overcommit_hugepages") == 0,
		    "hugetlb %zu: the overcommit sysctl", i);
		is_str(ks != NULL && ks->nr == 1 ? ks->knobs[0].want : "",
		    cases[i].want, "hugetlb %zu: LKP's count", i);
		knob_set_free(ks);
		ks = NULL;
		job_free(j);
	}

	j = job("testcase: vm-scalability\ntest: anon-w-seq-hugetlb\n"
	    "nr_task: 2\nunit_size: 64M\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == 0 &&
	    knob_apply(ks, &cause) == 0, "hugetlb: applied");
	v = get("/proc/sys/vm/nr_overcommit_hugepages");
	is_str(v, "35\n", "hugetlb: 35 pages allowed");
	free(v);
	ok(!locked_free("/proc/sys/vm/nr_overcommit_hugepages"),
	    "hugetlb: the sysctl is locked while the run has it");
	ok(knob_restore(ks, &cause) == 0, "hugetlb: restored");
	v = get("/proc/sys/vm/nr_overcommit_hugepages");
	is_str(v, "7\n", "hugetlb: back to 7");
	free(v);
	ok(locked_free("/proc/sys/vm/nr_overcommit_hugepages"),
	    "hugetlb: and let go once restored");
	knob_set_free(ks);
	ks = NULL;
	job_free(j);

	j = job("testcase: vm-scalability\ntest: anon-w-seq\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == 0 && ks->nr == 0,
	    "anon-w-seq: no knob");
	knob_set_free(ks);
	ks = NULL;
	job_free(j);

	j = job("testcase: vm-scalability\ntest: anon-w-seq-hugetlb\n"
	    "sysctl: {vm.nr_overcommit_hugepages: 9}\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == -1 && cause != NULL &&
	    strstr(cause, "'sysctl.vm.nr_overcommit_hugepages' sets") != NULL,
	    "the job's own overcommit sysctl refused: %s", cause ? cause : "");
	free(cause);
	cause = NULL;
	job_free(j);

	put("/proc/meminfo", "MemTotal:        8388608 kB\n"
	    "Hugepagesize:    1048576 kB\n");
	j = job("testcase: vm-scalability\ntest: anon-w-seq-hugetlb\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == -1 && cause != NULL &&
	    strstr(cause, "not 2048 kB") != NULL,
	    "1 GiB default huge pages refused: %s", cause ? cause : "");
	free(cause);
	cause = NULL;
	job_free(j);
}

/* The number of journals under root's journal directory. */
static int
journals(void)
{
	char	*dir = knob_journal_dir(root), *cmd;
	FILE	*f;
	int	 n = -1;

	cmd = xasprintf("ls '%s' 2>/dev/null | grep -c '^knob-'", dir);
	if ((f = popen(cmd, "r")) != NULL) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	free(cmd);
	free(dir);
	return n;
}

/* A run killed after applying: a child applies and exits without restore. */
static pid_t
killed_run(const char *yaml)
{
	struct knob_set	*ks = NULL;
	struct job	*j = job(yaml);
	char		*cause = NULL;
	pid_t		 pid;
	int		 status;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (j == NULL || knob_set_from_job(j, root, &ks, &cause) != 0 ||
		    knob_apply(ks, &cause) != 0)
			_exit(1);
		_exit(0);	/* as if SIGKILLed: no knob_restore */
	}
	job_free(j);
	if (pid == -1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return pid;
}

/*
 * The journal: written before a knob is, with the old value; a killed
 * run's put back by knob_journal_reap (and recorded), not while a live run holds
 * the knob, not across a reboot; a knob that cannot be put back is an
 * error and its journal stays.
 */
static void
test_journal(void)
{
	struct knob_set	*ks = NULL;
	struct job	*j;
	char		*cause = NULL, *done = NULL, *v, *want, *full, *dir;
	pid_t		 pid;
	int		 r;

	dir = knob_journal_dir(root);
	dir_remove_tree(dir, NULL);
	fixture();
	put("/proc/sys/kernel/random/boot_id", "boot-a\n");
	is_int(journals(), 0, "journal: none before a run");

	j = job("testcase: t\nrun: 'true'\nthp_enabled: never\n"
	    "sysctl: {vm.swappiness: 10}\n");
	ok(knob_set_from_job(j, root, &ks, &cause) == 0 &&
	    knob_apply(ks, &cause) == 0, "journal: applied");
	is_int(journals(), 2, "journal: one per knob while the run has them");
	v = ks->knobs[0].journal != NULL ? get(ks->knobs[0].journal +
	    strlen(root)) : xstrdup("");
	want = xasprintf("pid %ld\nboot_id boot-a\nname thp_enabled\n"
	    "path %s/sys/kernel/mm/transparent_hugepage/enabled\nbracketed 1\n"
	    "old madvise\nnew never\n", (long)getpid(), root);
	ok(strstr(v, want) != NULL, "journal: pid, boot, path, old and new "
	    "value");
	if (strstr(v, want) == NULL)
		diag("journal: %s", v);
	free(want);
	free(v);
	ok(knob_journal_reap(root, &done, &cause) == 0 && done == NULL,
	    "journal: a live run's knobs are not put back");
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "10\n", "journal: the live run's value stays");
	free(v);
	ok(knob_restore(ks, &cause) == 0, "journal: restored");
	is_int(journals(), 0, "journal: removed once restored");
	knob_set_free(ks);
	ks = NULL;
	job_free(j);

	pid = killed_run("testcase: t\nrun: 'true'\nthp_enabled: never\n"
	    "sysctl: {vm.swappiness: 10}\n");
	ok(pid > 0, "journal: a run killed after applying");
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "never", "journal: the killed run's THP stays never");
	free(v);
	is_int(journals(), 2, "journal: and its journals stay");
	r = knob_journal_reap(root, &done, &cause);
	ok(r == 0, "journal: reaped: %s", r == 0 ? "" : cause);
	want = xasprintf("thp_enabled '%s/sys/kernel/mm/transparent_hugepage/"
	    "enabled' never -> madvise (left by pid %ld)", root, (long)pid);
	ok(done != NULL && strstr(done, want) != NULL, "journal: what was put "
	    "back is said: %s", done ? done : "(nothing)");
	free(want);
	ok(done != NULL && strstr(done, "sysctl.vm.swappiness") != NULL &&
	    strstr(done, "10 -> 60") != NULL, "journal: the sysctl too");
	free(done);
	done = NULL;
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "madvise", "journal: THP back to madvise");
	free(v);
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "60\n", "journal: swappiness back to 60");
	free(v);
	is_int(journals(), 0, "journal: removed once put back");
	ok(knob_journal_reap(root, &done, &cause) == 0 && done == NULL,
	    "journal: a second reap has nothing to do");

	/* knob_apply puts back a journal of its own knob too */
	pid = killed_run("testcase: t\nrun: 'true'\nthp_enabled: never\n");
	j = job("testcase: t\nrun: 'true'\nthp_enabled: always\n");
	ok(pid > 0 && knob_set_from_job(j, root, &ks, &cause) == 0 &&
	    knob_apply(ks, &cause) == 0, "journal: applied over a killed run");
	ok(ks->reaped != NULL && strstr(ks->reaped, "never -> madvise") !=
	    NULL, "journal: its knob put back first: %s",
	    ks->reaped ? ks->reaped : "(nothing)");
	is_str(ks->knobs[0].orig, "madvise", "journal: so the old value is "
	    "the one before the killed run");
	ok(knob_restore(ks, &cause) == 0, "journal: restored");
	knob_set_free(ks);
	ks = NULL;
	job_free(j);

	/* a reboot reset the knob: the journal is not written back */
	pid = killed_run("testcase: t\nrun: 'true'\nthp_enabled: never\n");
	put("/proc/sys/kernel/random/boot_id", "boot-b\n");
	put("/sys/kernel/mm/transparent_hugepage/enabled",
	    "[always] madvise never\n");
	ok(pid > 0 && knob_journal_reap(root, &done, &cause) == 0 && done != NULL &&
	    strstr(done, "earlier boot") != NULL, "journal: one of an "
	    "earlier boot is dropped: %s", done ? done : "(nothing)");
	free(done);
	done = NULL;
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "always", "journal: and the knob left as the boot set it");
	free(v);
	is_int(journals(), 0, "journal: removed");

	/* a knob that cannot be put back: an error, and the journal stays */
	pid = killed_run("testcase: t\nrun: 'true'\nthp_enabled: never\n");
	full = xasprintf("%s/sys/kernel/mm/transparent_hugepage/enabled",
	    root);
	unlink(full);
	mkdir(full, 0755);
	r = knob_journal_reap(root, &done, &cause);
	ok(pid > 0 && r == -1 && strstr(cause, "couldn't put back the knobs "
	    "of a killed run") != NULL && strstr(cause, "thp_enabled") != NULL,
	    "journal: one that cannot be put back is an error: %s",
	    r ? cause : "");
	is_int(journals(), 1, "journal: and stays for the next run");
	rmdir(full);
	free(full);
	fixture();
	ok(knob_journal_reap(root, &done, &cause) == 0 && done != NULL,
	    "journal: put back once it can be");
	free(done);
	done = NULL;
	v = inventory_bracketed(root, "/sys/kernel/mm/transparent_hugepage/"
	    "enabled");
	is_str(v, "always", "journal: THP back to always, as the killed run "
	    "found it");
	free(v);
	free(dir);
	free(cause);
}

/*
 * Every knob is locked, in the order of their paths whatever the job's
 * order: a second run that wants the same knobs waits for the first,
 * and says so when the wait is over, having written nothing.
 */
static void
test_lock_order(void)
{
	struct knob_set	*a = NULL, *b = NULL;
	struct job	*ja, *jb;
	char		*cause = NULL, *v, *want;
	size_t		 i;
	int		 r, held;

	fixture();
	ja = job("testcase: t\nrun: 'true'\nthp_enabled: never\n"
	    "sysctl: {vm.swappiness: 10, kernel.numa_balancing: 0}\n");
	jb = job("testcase: t\nrun: 'true'\nthp_enabled: always\n"
	    "sysctl: {vm.swappiness: 20}\n");
	ok(knob_set_from_job(ja, root, &a, &cause) == 0 &&
	    knob_apply(a, &cause) == 0, "lock: the first run applied");
	ok(!locked_free("/sys/kernel/mm/transparent_hugepage/enabled") &&
	    !locked_free("/proc/sys/vm/swappiness") &&
	    !locked_free("/proc/sys/kernel/numa_balancing"),
	    "lock: every knob it set is locked");
	ok(knob_set_from_job(jb, root, &b, &cause) == 0, "lock: the second");
	is_str(b->knobs[0].name, "thp_enabled", "lock: whose first knob is "
	    "THP (/sys)");
	b->lock_wait = 1;
	r = knob_apply(b, &cause);
	want = xasprintf("knob 'sysctl.vm.swappiness': another run on "
	    "this machine has held '%s/proc/sys/vm/swappiness' for 1 s", root);
	ok(r == -1 && strcmp(cause, want) == 0, "lock: waits for the first "
	    "path in order (/proc before /sys), then an error: %s", cause);
	free(want);
	for (held = 0, i = 0; i < b->nr; i++)
		held += b->knobs[i].lockfd != -1 || b->knobs[i].applied;
	is_int(held, 0, "lock: the second holds and wrote nothing");
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "10\n", "lock: the first run's value stays");
	free(v);
	ok(knob_restore(b, &cause) == 0 && knob_restore(a, &cause) == 0,
	    "lock: both restored");
	ok(locked_free("/proc/sys/vm/swappiness"), "lock: let go");
	knob_set_free(b);
	b = NULL;
	ok(knob_set_from_job(jb, root, &b, &cause) == 0 &&
	    knob_apply(b, &cause) == 0, "lock: the second runs once the first "
	    "is done");
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "20\n", "lock: with its value");
	free(v);
	ok(knob_restore(b, &cause) == 0, "lock: restored");
	v = get("/proc/sys/vm/swappiness");
	is_str(v, "60\n", "lock: back to the value before both");
	free(v);
	knob_set_free(a);
	knob_set_free(b);
	job_free(ja);
	job_free(jb);
	free(cause);
}

int
main(void)
{
	char	tmpl[] = "/tmp/test-knob-XXXXXX";

	unsetenv(KNOB_JOURNAL_ENV);
	root = mkdtemp(tmpl);
	test_apply_restore();
	test_failures();
	test_cpufreq();
	test_sysctl_path();
	test_lkp_names();
	test_hugetlb();
	test_journal();
	test_lock_order();
	dir_remove_tree(root, NULL);
	return tap_done();
}
