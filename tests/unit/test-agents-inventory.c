/*
 * Unit tests for agents/inventory.c and the monitor table: cpulists, a
 * fixture root built here, and the time monitor's metrics from a rusage.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/inventory.h"
#include "agents/monitor.h"
#include "agents/result.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/xalloc.h"

static void
test_cpulist(void)
{
	is_int(inventory_cpulist_count("0"), 1, "one CPU");
	is_int(inventory_cpulist_count("0-47\n"), 48, "a range");
	is_int(inventory_cpulist_count("0-11,24-35"), 24, "two ranges");
	is_int(inventory_cpulist_count("0,2,4-5"), 4, "singles and a range");
	is_int(inventory_cpulist_count(""), 0, "empty: a memoryless node");
	is_int(inventory_cpulist_count("3-1"), -1, "backwards range");
	is_int(inventory_cpulist_count("0-"), -1, "open range");
	is_int(inventory_cpulist_count("a"), -1, "not a list");
	is_int(inventory_cpulist_count("0,,1"), -1, "empty element");
	is_int(inventory_cpulist_count("0-2000000"), -1, "absurd range");
}

static void
put(const char *root, const char *path, const char *text)
{
	char	*full = xasprintf("%s%s", root, path), *dir;

	dir = path_dirname(full);
	dir_create(dir, NULL);
	file_write_atomic(full, text, strlen(text), NULL);
	free(dir);
	free(full);
}

static void
test_fixture(void)
{
	char			 tmpl[] = "/tmp/bisectd-test-inventory.XXXXXX";
	char			*root = mkdtemp(tmpl), *text, *cause = NULL;
	struct inventory	*inv = NULL;

	put(root, "/proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU\n"
	    "processor\t: 1\nmodel name\t: Test CPU\n");
	put(root, "/proc/meminfo", "MemTotal:        3145728 kB\n");
	put(root, "/sys/devices/system/node/node0/cpulist", "0\n");
	put(root, "/sys/devices/system/node/node10/cpulist", "1\n");
	put(root, "/sys/devices/system/node/node2/cpulist", "\n");
	put(root, "/sys/devices/system/node/possible", "0-10\n");
	put(root, "/sys/kernel/mm/transparent_hugepage/enabled",
	    "[always] madvise never\n");
	put(root, "/proc/sys/kernel/osrelease", "6.1.0\x01x\n");
	ok(inventory_collect(root, &inv, &cause) == 0, "collect");
	is_str(inventory_get(inv, "model"), "Test CPU", "model");
	is_str(inventory_get(inv, "nr_cpu"), "2", "nr_cpu from cpuinfo");
	is_str(inventory_get(inv, "memory"), "3G 3221225472", "memory");
	is_str(inventory_get(inv, "nr_node"), "3", "nodes counted, not "
	    "'possible'");
	is_str(inventory_get(inv, "node2.cpulist"), "", "a CPU-less node");
	is_str(inventory_get(inv, "thp_enabled"), "always", "bracketed");
	is_str(inventory_get(inv, "kernel"), "6.1.0 x",
	    "control characters become spaces");
	ok(inventory_get(inv, "numa_balancing") == NULL, "absent key");
	text = inventory_format(inv);
	ok(strstr(text, "node0.cpulist 0\nnode0") == NULL &&
	    strstr(text, "node2.cpulist \nnode10.cpulist 1\n") != NULL,
	    "nodes in numeric order");
	free(text);
	inventory_free(inv);
	inventory_free(NULL);
	dir_remove_tree(root, NULL);

	setenv("BISECT_AGENT_ROOT", "/x", 1);
	is_str(inventory_root(NULL), "/x", "root from the environment");
	is_str(inventory_root("/y"), "/y", "explicit root first");
	unsetenv("BISECT_AGENT_ROOT");
	ok(inventory_root(NULL) == NULL, "no root: the running system");
}

static void
test_time_monitor(void)
{
	const struct monitor_ops	*m = monitor_find("time");
	struct monitor_exit		 e;
	struct result			*r = result_new();
	const struct result_metric	*x;

	ok(m != NULL && strcmp(m->name, "time") == 0, "time monitor exists");
	ok(monitor_find("nosuchmonitor") == NULL, "an unknown monitor is NULL");
	memset(&e, 0, sizeof e);
	e.elapsed.tv_sec = 2;
	e.elapsed.tv_nsec = 500000000;
	e.rusage.ru_utime.tv_sec = 1;
	e.rusage.ru_stime.tv_usec = 250000;
	e.rusage.ru_maxrss = 2048;
	e.rusage.ru_nivcsw = 7;
	ok(m != NULL && m->stop(NULL, &e, r, NULL) == 0, "stop");
	x = result_metric_find(r, "time.elapsed_time");
	ok(x != NULL && x->value == 2.5, "elapsed");
	x = result_metric_find(r, "time.percent_of_cpu_this_job_got");
	ok(x != NULL && x->value == 50, "percent of CPU");
	x = result_metric_find(r, "time.maximum_resident_set_size");
	ok(x != NULL && x->value == 2048, "max RSS in KB");
	x = result_metric_find(r, "time.involuntary_context_switches");
	ok(x != NULL && x->value == 7, "involuntary context switches");
	is_int(r->nr_metrics, 11, "eleven time.* metrics");
	result_free(r);
}

int
main(void)
{
	test_cpulist();
	test_fixture();
	test_time_monitor();
	return tap_done();
}
