/*
 * The monitors' parsers on outputs captured from a real machine
 * (tests/fixtures/proc-capture: /proc and node0 files before and after a
 * short stress-ng run), each checked against an independent reading of
 * the same text with sscanf; then each monitor end to end through a root
 * made here from the captures: start on "before", stop on "after", and
 * the metrics must be the deltas and means of the two.
 */
#include <sys/stat.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/monitor.h"
#include "agents/result.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/xalloc.h"

static char *
capture(const char *name)
{
	const char	*src = getenv("BISECTD_SRC");
	char		*path, *buf = NULL, *cause = NULL;
	size_t		 len;

	path = xasprintf("%s/tests/fixtures/proc-capture/%s",
	    src != NULL ? src : ".", name);
	if (file_read(path, &buf, &len, &cause) != 0) {
		diag("%s", cause);
		free(cause);
		buf = xstrdup("");
	}
	free(path);
	return buf;
}

/* The value of "NAME<sep>NUMBER" at a line start in text, by sscanf. */
static double
scan(const char *text, const char *name, const char *sep)
{
	const char	*p = text;
	size_t		 len = strlen(name);
	double		 v = NAN;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, len) == 0 &&
		    strncmp(p + len, sep, strlen(sep)) == 0) {
			sscanf(p + len + strlen(sep), "%lf", &v);
			return v;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return v;
}

static size_t
count_lines(const char *text)
{
	size_t	n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}

static void
test_vmstat(void)
{
	struct monitor_snap		 s;
	const struct monitor_field	*f;
	char				*text = capture("before/vmstat");
	int				 n;

	memset(&s, 0, sizeof s);
	n = monitor_snap_parse_vmstat(&s, text);
	is_int(n, count_lines(text), "vmstat: every line is a field");
	f = monitor_snap_find(&s, "pgfault");
	ok(f != NULL && f->value == scan(text, "pgfault", " "),
	    "vmstat: pgfault as sscanf reads it");
	f = monitor_snap_find(&s, "nr_free_pages");
	ok(f != NULL && f->value == scan(text, "nr_free_pages", " ") &&
	    f->nr_cols == 0, "vmstat: nr_free_pages, no columns");
	monitor_snap_release(&s);
	is_int(monitor_snap_parse_vmstat(&s, "not a vmstat\nfile at all\n"), -1,
	    "vmstat: other text is refused");
	monitor_snap_release(&s);
	free(text);

	text = capture("before/node0-numastat");
	n = monitor_snap_parse_vmstat(&s, text);
	is_int(n, 6, "numastat: six counters");
	f = monitor_snap_find(&s, "local_node");
	ok(f != NULL && f->value == scan(text, "local_node", " "),
	    "numastat: local_node");
	monitor_snap_release(&s);
	free(text);
}

static void
test_meminfo(void)
{
	struct monitor_snap		 s;
	const struct monitor_field	*f;
	char				*text = capture("before/meminfo");
	int				 n;

	memset(&s, 0, sizeof s);
	n = monitor_snap_parse_meminfo(&s, text);
	is_int(n, count_lines(text), "meminfo: every line is a field");
	f = monitor_snap_find(&s, "MemFree");
	ok(f != NULL && f->value == scan(text, "MemFree", ":"),
	    "meminfo: MemFree in kB");
	f = monitor_snap_find(&s, "Active(anon)");
	ok(f != NULL && f->value == scan(text, "Active(anon)", ":"),
	    "meminfo: a name with parentheses");
	f = monitor_snap_find(&s, "HugePages_Total");
	ok(f != NULL && f->value == scan(text, "HugePages_Total", ":"),
	    "meminfo: a count without kB");
	f = monitor_snap_find(&s, "DirectMap2M");
	ok(f != NULL && f->value == scan(text, "DirectMap2M", ":"),
	    "meminfo: DirectMap2M (seed 004)");
	monitor_snap_release(&s);
	free(text);

	text = capture("before/node0-meminfo");
	n = monitor_snap_parse_meminfo(&s, text);
	is_int(n, count_lines(text), "node meminfo: every line is a field");
	f = monitor_snap_find(&s, "MemUsed");
	ok(f != NULL && f->value == scan(text, "Node 0 MemUsed", ":"),
	    "node meminfo: the 'Node 0' prefix is dropped");
	monitor_snap_release(&s);
	free(text);
}

/* Sum of the CPU columns of the row whose first token is key. */
static double
row_sum(const char *text, const char *key, int ncpu, int *cols)
{
	const char	*p = text;
	double		 sum = 0, v;
	int		 i, used;

	*cols = 0;
	while ((p = strstr(p, key)) != NULL) {
		if (p == text || p[-1] == ' ' || p[-1] == '\n')
			break;
		p++;
	}
	if (p == NULL)
		return NAN;
	p += strlen(key);
	for (i = 0; i < ncpu; i++) {
		if (sscanf(p, "%lf%n", &v, &used) != 1)
			break;
		sum += v;
		p += used;
		(*cols)++;
	}
	return sum;
}

static void
test_table(void)
{
	struct monitor_snap		 s;
	const struct monitor_field	*f;
	char				*text = capture("before/interrupts");
	double				 sum;
	int				 n, cols;

	memset(&s, 0, sizeof s);
	n = monitor_snap_parse_table(&s, text);
	is_int(n, count_lines(text) - 1, "interrupts: a field per row");
	f = monitor_snap_find(&s, "LOC:Local_timer_interrupts");
	sum = row_sum(text, "LOC:", 2, &cols);
	ok(f != NULL && f->value == sum && f->nr_cols == 2,
	    "interrupts: LOC, LKP's name, summed over 2 CPUs");
	ok(f != NULL && f->nr_cols == 2 && f->cols[0] + f->cols[1] == sum,
	    "interrupts: LOC's CPU columns");
	f = monitor_snap_find(&s, "24:IO-APIC.5-edge.ACPI:Ged");
	ok(f != NULL, "interrupts: a numbered IRQ as LKP names it");
	f = monitor_snap_find(&s,
	    "28:PCI-MSIX-0000:00:01.0.0-edge.virtio0-config");
	ok(f != NULL, "interrupts: an MSI-X vector");
	f = monitor_snap_find(&s, "ERR");
	ok(f != NULL && f->nr_cols == 0 && f->value == scan(text, "ERR", ":"),
	    "interrupts: ERR has one value and no columns");
	monitor_snap_release(&s);
	free(text);

	text = capture("before/softirqs");
	n = monitor_snap_parse_table(&s, text);
	is_int(n, 10, "softirqs: ten rows");
	f = monitor_snap_find(&s, "TIMER");
	sum = row_sum(text, "TIMER:", 2, &cols);
	ok(f != NULL && f->value == sum && f->nr_cols == 2,
	    "softirqs: TIMER summed over CPUs");
	monitor_snap_release(&s);
	free(text);

	is_int(monitor_snap_parse_table(&s, "LOC: 1 2\n"), -1,
	    "table: no CPU header is refused");
	monitor_snap_release(&s);
	is_int(monitor_snap_parse_table(&s,
	    "   CPU0   CPU2\n  0:  5  7  IO-APIC 2-edge timer\n"), 1,
	    "table: offline CPUs leave gaps in the header");
	f = monitor_snap_find(&s, "0:IO-APIC.2-edge.timer");
	ok(f != NULL && f->value == 12 && f->nr_cols == 2,
	    "table: columns follow the header");
	monitor_snap_release(&s);
}

static void
test_stat(void)
{
	struct monitor_snap		 s;
	const struct monitor_field	*f;
	char				*text = capture("before/stat");
	double				 user;

	memset(&s, 0, sizeof s);
	ok(monitor_snap_parse_stat(&s, text) > 0, "stat parses");
	sscanf(text, "cpu %lf", &user);
	f = monitor_snap_find(&s, "cpu.user");
	ok(f != NULL && f->value == user && f->nr_cols == 2,
	    "stat: cpu.user with a column per CPU");
	f = monitor_snap_find(&s, "cpu.guest_nice");
	ok(f != NULL, "stat: all ten states");
	f = monitor_snap_find(&s, "ctxt");
	ok(f != NULL && f->value == scan(text, "ctxt", " "), "stat: ctxt");
	f = monitor_snap_find(&s, "intr");
	ok(f != NULL && f->value == scan(text, "intr", " "),
	    "stat: intr is its total");
	f = monitor_snap_find(&s, "procs_running");
	ok(f != NULL && f->value == scan(text, "procs_running", " "),
	    "stat: procs_running");
	ok(monitor_snap_find(&s, "btime") == NULL, "stat: btime is left out");
	monitor_snap_release(&s);
	free(text);
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
put_capture(const char *root, const char *when)
{
	static const struct {
		const char	*file;
		const char	*path;
	} map[] = {
		{ "vmstat", "/proc/vmstat" },
		{ "meminfo", "/proc/meminfo" },
		{ "interrupts", "/proc/interrupts" },
		{ "softirqs", "/proc/softirqs" },
		{ "stat", "/proc/stat" },
		{ "node0-numastat", "/sys/devices/system/node/node0/numastat" },
		{ "node0-meminfo", "/sys/devices/system/node/node0/meminfo" },
	};
	char	*name, *text;
	size_t	 i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++) {
		name = xasprintf("%s/%s", when, map[i].file);
		text = capture(name);
		put(root, map[i].path, text);
		free(text);
		free(name);
	}
}

static const struct result_metric *
run_monitor(const char *name, const char *root, struct result *r)
{
	const struct monitor_ops	*m = monitor_find(name);
	struct monitor_exit		 e;
	void				*state = NULL;
	char				*cause = NULL;

	memset(&e, 0, sizeof e);
	put_capture(root, "before");
	if (m == NULL || m->start(&state, root, &cause) != 0) {
		diag("%s: %s", name, cause ? cause : "no such monitor");
		free(cause);
		return NULL;
	}
	put_capture(root, "after");
	if (m->stop(state, &e, r, &cause) != 0) {
		diag("%s: %s", name, cause);
		free(cause);
	}
	m->free(state);
	return NULL;
}

static double
delta(const char *file, const char *name, const char *sep)
{
	char	*b = xasprintf("before/%s", file), *a = xasprintf("after/%s",
		    file);
	char	*tb = capture(b), *ta = capture(a);
	double	 d = scan(ta, name, sep) - scan(tb, name, sep);

	free(b);
	free(a);
	free(tb);
	free(ta);
	return d;
}

static double
mean2(const char *file, const char *name, const char *sep)
{
	char	*b = xasprintf("before/%s", file), *a = xasprintf("after/%s",
		    file);
	char	*tb = capture(b), *ta = capture(a);
	double	 m = (scan(ta, name, sep) + scan(tb, name, sep)) / 2;

	free(b);
	free(a);
	free(tb);
	free(ta);
	return m;
}

static double
metric(const struct result *r, const char *name)
{
	const struct result_metric	*m = result_metric_find(r, name);

	return m != NULL ? m->value : NAN;
}

static void
test_monitors(void)
{
	char			 tmpl[] = "/tmp/test-monitor-XXXXXX";
	char			*root = mkdtemp(tmpl);
	struct result		*r = result_new();
	const struct result_metric *m;
	double			 sum;
	size_t			 i;

	run_monitor("proc-vmstat", root, r);
	is_close(metric(r, "proc-vmstat.pgfault"),
	    delta("vmstat", "pgfault", " "), 0, "proc-vmstat: pgfault delta");
	ok(metric(r, "proc-vmstat.pgfault") > 0, "the stress run faulted");
	is_close(metric(r, "proc-vmstat.numa_hit"),
	    delta("vmstat", "numa_hit", " "), 0, "proc-vmstat: numa_hit delta");
	is_close(metric(r, "proc-vmstat.nr_free_pages"),
	    mean2("vmstat", "nr_free_pages", " "), 1e-12,
	    "proc-vmstat: nr_free_pages is a level: the mean");

	run_monitor("meminfo", root, r);
	is_close(metric(r, "meminfo.MemFree"), mean2("meminfo", "MemFree",
	    ":"), 1e-12, "meminfo: MemFree mean");
	is_close(metric(r, "meminfo.DirectMap2M"), mean2("meminfo",
	    "DirectMap2M", ":"), 1e-12, "meminfo: DirectMap2M mean");

	run_monitor("numastat", root, r);
	is_close(metric(r, "numa-numastat.node0.numa_hit"),
	    delta("node0-numastat", "numa_hit", " "), 0,
	    "numastat: node0.numa_hit delta");
	is_close(metric(r, "numa-numastat.node0.other_node"),
	    delta("node0-numastat", "other_node", " "), 0,
	    "numastat: node0.other_node delta");
	ok(monitor_find("numa-numastat") == monitor_find("numastat"),
	    "numa-numastat is numastat");

	run_monitor("numa-meminfo", root, r);
	is_close(metric(r, "numa-meminfo.node0.MemFree"),
	    mean2("node0-meminfo", "Node 0 MemFree", ":"), 1e-12,
	    "numa-meminfo: node0.MemFree mean");

	run_monitor("interrupts", root, r);
	m = result_metric_find(r, "interrupts.LOC:Local_timer_interrupts");
	ok(m != NULL && m->value > 0 && m->nr_instances == 2,
	    "interrupts: LOC delta with an instance per CPU");
	for (sum = 0, i = 0; m != NULL && i < m->nr_instances; i++)
		sum += m->instances[i];
	ok(m != NULL && sum == m->value, "interrupts: instances add up");

	run_monitor("softirqs", root, r);
	m = result_metric_find(r, "softirqs.TIMER");
	ok(m != NULL && m->value > 0 && m->nr_instances == 2,
	    "softirqs: TIMER delta per CPU");

	run_monitor("proc-stat", root, r);
	sum = 0;
	for (i = 0; i < 8; i++) {
		static const char *const st[] = { "user", "nice", "system",
		    "idle", "iowait", "irq", "softirq", "steal" };
		char	*n = xasprintf("proc-stat.cpu.%s%%", st[i]);

		sum += metric(r, n);
		free(n);
	}
	is_close(sum, 100, 1e-9, "proc-stat: the eight states make 100%%");
	m = result_metric_find(r, "proc-stat.cpu.user%");
	ok(m != NULL && m->nr_instances == 2, "proc-stat: user%% per CPU");
	is_close(metric(r, "proc-stat.ctxt"), delta("stat", "ctxt", " "), 0,
	    "proc-stat: ctxt delta");
	is_close(metric(r, "proc-stat.procs_blocked"),
	    mean2("stat", "procs_blocked", " "), 1e-12,
	    "proc-stat: procs_blocked mean");

	{
		const struct monitor_ops	*cf = monitor_find("cpufreq");
		void				*state = NULL;
		char				*cause = NULL;

		ok(cf->start(&state, root, &cause) == -1 && cause != NULL,
		    "cpufreq: unavailable without cpufreq files");
		free(cause);
		cause = NULL;
		put(root, "/sys/devices/system/cpu/cpu0/cpufreq/"
		    "scaling_cur_freq", "1200000\n");
		put(root, "/sys/devices/system/cpu/cpu1/cpufreq/"
		    "scaling_cur_freq", "2400000\n");
		ok(cf->start(&state, root, &cause) == 0, "cpufreq: starts");
		put(root, "/sys/devices/system/cpu/cpu0/cpufreq/"
		    "scaling_cur_freq", "2400000\n");
		cf->sample(state);
		ok(cf->stop(state, NULL, r, &cause) == 0, "cpufreq: stops");
		m = result_metric_find(r, "cpufreq.scaling_cur_freq");
		ok(m != NULL && m->nr_instances == 2 &&
		    fabs(m->instances[0] - 2000000) < 1e-6 &&
		    fabs(m->instances[1] - 2400000) < 1e-6 &&
		    fabs(m->value - 2200000) < 1e-6,
		    "cpufreq: means of three readings per CPU");
		cf->free(state);
		free(cause);
	}

	for (i = 0; i < r->nr_metrics; i++) {
		if (!result_name_valid(r->metrics[i].name))
			break;
	}
	ok(i == r->nr_metrics, "every metric name can be written");
	result_free(r);
	dir_remove_tree(root, NULL);
}

static void
test_sampler(void)
{
	char			 tmpl[] = "/tmp/test-sampler-XXXXXX";
	char			*root = mkdtemp(tmpl);
	const struct monitor_ops *ops[1];
	void			*states[1];
	struct monitor_sampler	*ms = NULL;
	struct monitor_exit	 e;
	struct result		*r = result_new();
	char			*cause = NULL;
	unsigned		 rounds;

	memset(&e, 0, sizeof e);
	put(root, "/proc/meminfo", "MemFree: 1000 kB\n");
	ops[0] = monitor_find("meminfo");
	ok(ops[0]->start(&states[0], root, &cause) == 0, "meminfo starts");
	put(root, "/proc/meminfo", "MemFree: 4000 kB\n");
	ok(monitor_sampler_start(&ms, ops, states, 1, 10, &cause) == 0,
	    "the sampler starts");
	for (rounds = 0; rounds < 1000 && monitor_sampler_rounds(ms) < 2;
	    rounds++)
		usleep(10000);
	rounds = monitor_sampler_stop(ms);
	ok(rounds >= 2, "the sampler took readings (%u)", rounds);
	ok(ops[0]->stop(states[0], &e, r, &cause) == 0, "meminfo stops");
	is_close(metric(r, "meminfo.MemFree"),
	    (1000 + 4000.0 * (rounds + 1)) / (rounds + 2), 1e-12,
	    "the mean weighs every reading");
	ops[0]->free(states[0]);
	result_free(r);
	free(cause);
	dir_remove_tree(root, NULL);
}

int
main(void)
{
	test_vmstat();
	test_meminfo();
	test_table();
	test_stat();
	test_monitors();
	test_sampler();
	return tap_done();
}
