/*
 * The parsers of the perf-stat and turbostat monitors. perf stat's output
 * is made here by the real perf (software events, which every machine
 * counts; hardware ones where it can) and read again with sscanf to check
 * the per-second values and per-CPU instances. The hardware-event lines
 * and the turbostat rows with power columns are constructed in the tools'
 * formats, because this machine has neither counters nor MSRs; turbostat
 * is also fed its own man page's example output, extracted at run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor-tool.h"
#include "agents/result.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static double
metric(const struct result *r, const char *name)
{
	const struct result_metric	*m = result_metric_find(r, name);

	return m != NULL ? m->value : NAN;
}

static size_t
instances(const struct result *r, const char *name)
{
	const struct result_metric	*m = result_metric_find(r, name);

	return m != NULL ? m->nr_instances : 0;
}

/* The whole output of a shell command, or NULL. */
static char *
run(const char *cmd, size_t *len)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		 buf[4096];
	size_t		 n;
	FILE		*f;

	if ((f = popen(cmd, "r")) == NULL)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&sb, buf, n);
	if (pclose(f) != 0 || sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, len);
}

static void
test_perf_real(void)
{
	struct strbuf	 unsup = STRBUF_INIT;
	struct result	*r = result_new();
	char		*out, *line, *save = NULL, *copy, *cause = NULL, ev[64];
	double		 v, task = 0, cs = 0;
	size_t		 len, cpus = 0;
	int		 n;

	out = run("command -v perf >/dev/null && perf stat -a -A -x, "
	    "--log-fd 1 -e task-clock,context-switches,cpu-cycles,"
	    "instructions -- sleep 0.05 2>/dev/null", &len);
	if (out == NULL) {
		ok(1, "# SKIP perf stat does not run here");
		result_free(r);
		return;
	}
	n = monitor_perfstat_parse(r, out, len, 2.0, &unsup, &cause);
	ok(n >= 2, "real perf stat: %d events counted (%s)", n,
	    cause ? cause : "");
	copy = xstrdup(out);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "CPU%*u,%lf,%*[^,],%63[^,]", &v, ev) == 2) {
			if (strcmp(ev, "task-clock") == 0) {
				task += v;
				cpus++;
			} else if (strcmp(ev, "context-switches") == 0)
				cs += v;
		} else if (sscanf(line, "CPU%*u,%lf,,%63[^,]", &v, ev) == 2 &&
		    strcmp(ev, "context-switches") == 0)
			cs += v;
	}
	is_close(metric(r, "perf-stat.ps.task-clock"), task / 2.0, 1e-12,
	    "task-clock per second is the sum over CPUs / seconds");
	is_close(metric(r, "perf-stat.ps.context-switches"), cs / 2.0, 1e-12,
	    "context-switches per second");
	if (cpus > 1)
		is_int((int)instances(r, "perf-stat.ps.task-clock"), (int)cpus,
		    "one instance per CPU");
	else
		ok(1, "one CPU: no instances");
	if (strstr(out, "<not supported>") != NULL) {
		ok(strstr(unsup.buf, "cpu-cycles") != NULL &&
		    strstr(unsup.buf, "instructions") != NULL,
		    "unsupported events named: '%s'", unsup.buf);
		ok(result_metric_find(r, "perf-stat.overall.ipc") == NULL,
		    "no IPC without the counters");
	} else {
		ok(unsup.len == 0, "every event counted");
		ok(metric(r, "perf-stat.overall.ipc") > 0, "IPC");
	}
	free(copy);
	free(out);
	free(cause);
	strbuf_release(&unsup);
	result_free(r);
}

/* Constructed: the -x, -A line format with hardware counts, two CPUs. */
static const char perf_hw[] =
    "# started on Wed Dec  2 05:53:00 2026\n\n"
    "CPU0,3000000,,cpu-cycles,1000,100.00,,\n"
    "CPU1,1000000,,cpu-cycles,1000,100.00,,\n"
    "CPU0,6000000,,instructions,1000,100.00,2.00,insn per cycle\n"
    "CPU1,2000000,,instructions,1000,100.00,2.00,insn per cycle\n"
    "CPU0,800,,cache-references,1000,100.00,,\n"
    "CPU1,200,,cache-references,1000,100.00,,\n"
    "CPU0,80,,cache-misses,1000,100.00,8.00,of all cache refs\n"
    "CPU1,20,,cache-misses,1000,100.00,10.00,of all cache refs\n"
    "CPU0,5000,,branch-instructions,1000,100.00,,\n"
    "CPU1,5000,,branch-instructions,1000,100.00,,\n"
    "CPU0,<not counted>,,branch-misses,0,0.00,,\n"
    "CPU1,<not counted>,,branch-misses,0,0.00,,\n"
    "CPU0,10,,cpu_atom/cpu-migrations/,1000,100.00,,\n";

static void
test_perf_derived(void)
{
	struct strbuf	 unsup = STRBUF_INIT;
	struct result	*r = result_new();
	char		*cause = NULL;
	int		 n;

	n = monitor_perfstat_parse(r, perf_hw, sizeof perf_hw - 1, 4.0,
	    &unsup, &cause);
	is_int(n, 6, "six events counted");
	is_str(unsup.buf, "branch-misses", "<not counted> is unsupported");
	is_close(metric(r, "perf-stat.ps.cpu-cycles"), 1e6, 1e-12,
	    "cycles per second");
	is_int((int)instances(r, "perf-stat.ps.cpu-cycles"), 2,
	    "per-CPU instances");
	is_close(metric(r, "perf-stat.total.instructions"), 8e6, 1e-12,
	    "total.instructions");
	is_close(metric(r, "perf-stat.overall.ipc"), 2.0, 1e-12, "ipc");
	is_close(metric(r, "perf-stat.overall.cpi"), 0.5, 1e-12, "cpi");
	is_close(metric(r, "perf-stat.overall.cache-miss-rate%"), 10.0, 1e-12,
	    "cache-miss-rate%% against cache-references");
	is_close(metric(r, "perf-stat.overall.MPKI"), 100.0 / 8e6 * 1000,
	    1e-12, "MPKI");
	is_close(metric(r, "perf-stat.overall.cycles-between-cache-misses"),
	    4e6 / 100, 1e-12, "cycles between cache misses");
	is_close(metric(r, "perf-stat.ps.cpu-migrations"), 2.5, 1e-12,
	    "a PMU's event name (cpu_atom/cpu-migrations/)");
	ok(result_metric_find(r, "perf-stat.overall.branch-miss-rate%") ==
	    NULL, "no rate of an event not counted");
	free(cause);
	strbuf_release(&unsup);
	result_free(r);
	r = result_new();
	strbuf_init(&unsup);
	ok(monitor_perfstat_parse(r, "perf: permission denied\n", 24, 1,
	    &unsup, &cause) == -1 && cause != NULL, "no counts: an error");
	free(cause);
	strbuf_release(&unsup);
	result_free(r);
}

static void
test_turbostat_man(void)
{
	struct result	*r = result_new();
	char		*out, *cause = NULL;
	size_t		 len;
	int		 n;

	/* The PERIODIC INTERVAL EXAMPLE of turbostat(8), as printed there. */
	out = run("zcat /usr/share/man/man8/turbostat.8.gz 2>/dev/null | "
	    "sed -n '/^sudo turbostat --quiet --show CPU,frequency/,/^\\.fi/p'"
	    " | sed '1d;$d'", &len);
	if (out == NULL) {
		ok(1, "# SKIP no turbostat(8) here");
		result_free(r);
		return;
	}
	n = monitor_turbostat_parse(r, out, len, &cause);
	is_int(n, 2, "two intervals in the man page's example");
	is_close(metric(r, "turbostat.Avg_MHz"), (524 + 525) / 2.0, 1e-12,
	    "Avg_MHz: the summary rows' mean");
	is_close(metric(r, "turbostat.Busy%"), (12.48 + 12.52) / 2, 1e-12,
	    "Busy%%");
	is_close(metric(r, "turbostat.UncMhz"), 3800, 1e-12, "UncMhz");
	ok(result_metric_find(r, "turbostat.CPU") == NULL,
	    "the '-' of the summary row is no value");
	free(out);
	free(cause);
	result_free(r);
}

/* Constructed: a --quiet --Summary header and rows with power columns. */
static const char turbo_power[] =
    "Avg_MHz\tBusy%\tBzy_MHz\tTSC_MHz\tIRQ\tPkgTmp\tPkgWatt\tRAMWatt\n"
    "48\t2.04\t2349\t2394\t3075\t45\t25.17\t3.22\n"
    "Avg_MHz\tBusy%\tBzy_MHz\tTSC_MHz\tIRQ\tPkgTmp\tPkgWatt\tRAMWatt\n"
    "52\t2.10\t2351\t2394\t3100\t*\t27.17\t3.42\n";

static void
test_turbostat_power(void)
{
	struct result	*r = result_new();
	char		*cause = NULL;

	is_int(monitor_turbostat_parse(r, turbo_power, sizeof turbo_power - 1,
	    &cause), 2, "two summary rows");
	is_close(metric(r, "turbostat.PkgWatt"), 26.17, 1e-12, "PkgWatt");
	is_close(metric(r, "turbostat.RAMWatt"), 3.32, 1e-12, "RAMWatt");
	is_close(metric(r, "turbostat.PkgTmp"), 45, 1e-12,
	    "a '*' value is left out of the mean");
	result_free(r);
	r = result_new();
	ok(monitor_turbostat_parse(r, "turbostat: no MSR\n", 18, &cause) ==
	    -1 && cause != NULL, "no summary row: an error");
	free(cause);
	result_free(r);
}

int
main(void)
{
	test_perf_real();
	test_perf_derived();
	test_turbostat_man();
	test_turbostat_power();
	return tap_done();
}
