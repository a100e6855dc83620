/*
 * Unit tests for the text report's header and environment section
 * (bisectd/report.c): the testcase's own parameters without bisectd's
 * bookkeeping, the machine line, and an environment that shows the keys a
 * reader checks first and every key that differs, drift first, and sums
 * up the rest instead of dumping the kernel command line and every
 * sysctl.
 */
#include <stdlib.h>
#include <string.h>

#include "bisectd/bisection.h"
#include "bisectd/drift.h"
#include "bisectd/report.h"
#include "jobs/job.h"
#include "tests/unit/tap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_KEYS	32

/* The drift check compares command lines without their BOOT_IMAGE=. */
#define ARGS	"root=/dev/sda1 ro quiet mitigations=auto " \
	"console=ttyS0,115200 transparent_hugepage=madvise"
#define CMDLINE	"BOOT_IMAGE=/vmlinuz " ARGS

/* What an agent records, but for the keys each case sets itself. */
static const char *const common[][2] = {
	{ "model", "Ivytown Ivy Bridge-EP" }, { "nr_cpu", "48" },
	{ "nr_node", "2" }, { "memory", "64G 68719476736" },
	{ "node0.cpulist", "0-23" }, { "node1.cpulist", "24-47" },
	{ "kernel", "6.1.0" }, { "governor", "performance" }, { "smt", "on" },
	{ "numa_balancing", "1" }, { "zone_reclaim_mode", "0" },
	{ "cmdline", CMDLINE }, { "sysctl.vm.swappiness", "60" },
	{ "sysctl.vm.dirty_ratio", "20" },
	{ "sysctl.vm.dirty_background_ratio", "10" },
	{ "sysctl.kernel.sched_autogroup_enabled", "1" },
	{ "agent_version", "0.1.0" }, { "testcase", "dbench" },
	{ "monitors", "time proc-vmstat" }, { "hostname", "ivb44" },
	{ "thp_enabled", "madvise" }, { "thp_defrag", "madvise" },
};

/* One side's recorded environment, sorted by key as the store has it. */
struct side {
	char			*keys[MAX_KEYS];
	char			*values[MAX_KEYS];
	struct drift_run	 run;
};

/* Set key to value (NULL: remove it). */
static void
side_set(struct side *s, const char *key, const char *value)
{
	size_t	i = 0, n = s->run.nr;

	while (i < n && strcmp(s->keys[i], key) < 0)
		i++;
	if (i < n && strcmp(s->keys[i], key) == 0) {
		free(s->values[i]);
		if (value != NULL) {
			s->values[i] = xstrdup(value);
			return;
		}
		free(s->keys[i]);
		memmove(&s->keys[i], &s->keys[i + 1], (n - i - 1) *
		    sizeof *s->keys);
		memmove(&s->values[i], &s->values[i + 1], (n - i - 1) *
		    sizeof *s->values);
		s->run.nr--;
		return;
	}
	if (value == NULL || n == MAX_KEYS)
		return;
	memmove(&s->keys[i + 1], &s->keys[i], (n - i) * sizeof *s->keys);
	memmove(&s->values[i + 1], &s->values[i], (n - i) * sizeof *s->values);
	s->keys[i] = xstrdup(key);
	s->values[i] = xstrdup(value);
	s->run.nr++;
}

static void
side_init(struct side *s, const char *label)
{
	size_t	i;

	memset(s, 0, sizeof *s);
	s->run.label = label;
	s->run.commit = label;
	s->run.keys = s->keys;
	s->run.values = s->values;
	for (i = 0; i < sizeof common / sizeof common[0]; i++)
		side_set(s, common[i][0], common[i][1]);
}

static void
side_release(struct side *s)
{
	size_t	i;

	for (i = 0; i < s->run.nr; i++) {
		free(s->keys[i]);
		free(s->values[i]);
	}
	memset(s, 0, sizeof *s);
}

/* The section for parent against culprit, with their drift in d. */
static void
environment(struct strbuf *sb, struct drift *d, const struct side *p,
    const struct side *c, const char *listed_by)
{
	struct drift_run	runs[2];

	runs[0] = p->run;
	runs[1] = c->run;
	drift_compare(d, runs, 2);
	strbuf_reset(sb);
	report_environment(sb, d, &p->run, &c->run, listed_by);
}

/* How many lines of text start with prefix. */
static int
lines_starting(const char *text, const char *prefix)
{
	const char	*p = text;
	int		 n = 0;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return n;
}

static void
test_testcase(void)
{
	struct strbuf		 sb = STRBUF_INIT;
	struct side		 c;
	const char		*canonical =
	    "cpufreq_governor: performance\n"
	    "direction: higher\n"
	    "metric: dbench.throughput-MB/sec\n"
	    "monitors: [time]\n"
	    "nr_threads: \"100%\"\n"
	    "requires:\n  nr_node: \">=2\"\n"
	    "run: ./dbench\n"
	    "runs: 3\n"
	    "runtime: 60\n"
	    "testcase: dbench\n"
	    "thp_enabled: always\n";
	const char		*micro = "metric: m.score\nrun: sh bench.sh\n"
	    "runs: 3\ntestcase: microbench\n";
	struct job		**jobs = NULL;
	size_t			 nr = 0;

	side_init(&c, "culprit");
	ok(job_parse("job", canonical, strlen(canonical), &jobs, &nr,
	    NULL) == 0 && nr == 1, "the job parses");
	report_testcase(&sb, "dbench", "dbench/nr_threads=100%", jobs[0],
	    &c.run);
	ok(strncmp(sb.buf, "in testcase: dbench (dbench/nr_threads=100%)\n",
	    45) == 0, "the testcase and its description first");
	ok(strstr(sb.buf, "\non test machine: 48 threads Ivytown Ivy "
	    "Bridge-EP with 64G memory, 2 nodes\n") != NULL,
	    "the machine in one line, the memory without its byte count");
	ok(strstr(sb.buf, "with following parameters:\n\n") != NULL,
	    "the robot's words for the parameters");
	ok(strstr(sb.buf, "\tnr_threads: 100%\n") != NULL &&
	    strstr(sb.buf, "\tcpufreq_governor: performance\n") != NULL &&
	    strstr(sb.buf, "\truntime: 60\n") != NULL &&
	    strstr(sb.buf, "\tthp_enabled: always\n") != NULL,
	    "the testcase's own parameters are listed");
	is_int(lines_starting(sb.buf, "\t"), 4, "and nothing else: %s",
	    "no run, metric, direction, runs, monitors or requires");
	ok(strstr(sb.buf, "metric") == NULL && strstr(sb.buf, "./dbench") ==
	    NULL && strstr(sb.buf, "requires") == NULL,
	    "bookkeeping keys are left out");

	strbuf_reset(&sb);
	job_list_free(jobs, nr);
	jobs = NULL;
	ok(job_parse("job", micro, strlen(micro), &jobs, &nr, NULL) == 0 &&
	    nr == 1, "the other job parses");
	report_testcase(&sb, "microbench", "microbench", jobs[0], NULL);
	is_str(sb.buf, "in testcase: microbench\n\n",
	    "no parameters and no machine: no empty sections");
	job_list_free(jobs, nr);
	strbuf_release(&sb);
	side_release(&c);
}

static void
test_environment_same(void)
{
	struct strbuf	sb = STRBUF_INIT;
	struct drift	d;
	struct side	p, c;
	char		want[128];
	size_t		shown, machine = 4;

	side_init(&p, "parent");
	side_init(&c, "culprit");
	environment(&sb, &d, &p, &c, "`bisectctl report 7 --html DIR`");
	is_int(d.nr, 0, "the same environment: no drift");
	ok(strstr(sb.buf, "differ") == NULL, "no drift block");
	ok(strncmp(sb.buf, "environment of the culprit's runs:\n", 35) == 0,
	    "the culprit's environment");
	ok(strstr(sb.buf, "\tkernel: 6.1.0\n") != NULL &&
	    strstr(sb.buf, "\tgovernor: performance\n") != NULL &&
	    strstr(sb.buf, "\tthp_enabled: madvise\n") != NULL &&
	    strstr(sb.buf, "\tthp_defrag: madvise\n") != NULL &&
	    strstr(sb.buf, "\tnuma_balancing: 1\n") != NULL,
	    "the keys that matter most are shown");
	ok(strstr(sb.buf, "cmdline") == NULL &&
	    strstr(sb.buf, "mitigations=auto") == NULL,
	    "the kernel command line is not dumped");
	ok(strstr(sb.buf, "sysctl.") == NULL && strstr(sb.buf, "cpulist") ==
	    NULL, "nor every sysctl and node");
	ok(strstr(sb.buf, "model") == NULL && strstr(sb.buf, "nr_cpu") ==
	    NULL, "the machine is left to the header");
	shown = (size_t)lines_starting(sb.buf, "\t") - 1;
	snprintf(want, sizeof want, "\tand %zu more identical settings; "
	    "`bisectctl report 7 --html DIR` lists them\n",
	    c.run.nr - shown - machine);
	ok(strstr(sb.buf, want) != NULL, "the rest as a count: %.*s",
	    (int)strlen(want) - 1, want + 1);
	drift_release(&d);
	strbuf_release(&sb);
	side_release(&p);
	side_release(&c);
}

static void
test_environment_differs(void)
{
	struct strbuf	 sb = STRBUF_INIT;
	struct drift	 d;
	struct side	 p, c;
	const char	*drift_at, *list_at, *line;

	side_init(&p, "parent 1a2b3c");
	side_init(&c, "culprit 4d5e6f");
	side_set(&p, "monitors_unavailable", "cpufreq");
	side_set(&c, "hostname", "ivb45");
	side_set(&c, "thp_enabled", "never");
	side_set(&c, "knobs", "thp_enabled");
	environment(&sb, &d, &p, &c, "X");
	is_int(d.nr, 2, "THP and the host's name drifted");
	drift_at = strstr(sb.buf, "the compared runs differ in their "
	    "environment:\n");
	list_at = strstr(sb.buf, "environment of the culprit's runs:\n");
	ok(drift_at == sb.buf && list_at != NULL,
	    "the drift comes first, then the culprit's environment");
	line = strstr(sb.buf, "\tthp_enabled: madvise at parent 1a2b3c "
	    "(1 run) | never at culprit 4d5e6f (1 run)\n");
	ok(line != NULL && line < list_at, "a key that matters, both values");
	line = strstr(sb.buf, "\thostname: ivb44 at parent 1a2b3c (1 run) | "
	    "ivb45 at culprit 4d5e6f (1 run) (noted only)\n");
	ok(line != NULL && line < list_at, "a noted key, both values");
	ok(strstr(list_at, "\tthp_enabled") == NULL &&
	    strstr(list_at, "\thostname") == NULL,
	    "a drifted key is not said twice");
	ok(strstr(list_at, "\tknobs: thp_enabled (parent: (unset))\n") != NULL,
	    "a key the drift check ignores but that differs is shown");
	ok(strstr(list_at, "\tmonitors_unavailable: (unset) (parent: "
	    "cpufreq)\n") != NULL, "so is a key only the parent has");
	ok(strstr(sb.buf, "cmdline") == NULL,
	    "the identical command line is still not dumped");
	ok(strstr(list_at, "more identical settings; X lists them\n") != NULL,
	    "the rest as a count");
	drift_release(&d);

	side_set(&c, "hostname", "ivb44");
	side_set(&c, "thp_enabled", "madvise");
	side_set(&c, "knobs", NULL);
	side_set(&p, "monitors_unavailable", NULL);
	side_set(&c, "cmdline", CMDLINE " numa_balancing=disable");
	environment(&sb, &d, &p, &c, "X");
	is_int(d.nr, 1, "only the command line drifted");
	ok(strstr(sb.buf, "\tcmdline: " ARGS " at parent 1a2b3c (1 run) | "
	    ARGS " numa_balancing=disable at culprit 4d5e6f (1 run)\n") !=
	    NULL, "a command line that differs is shown whole, both sides");
	is_int(lines_starting(sb.buf, "\tcmdline"), 1, "once");
	drift_release(&d);

	strbuf_reset(&sb);
	report_environment(&sb, NULL, NULL, &c.run, NULL);
	ok(strstr(sb.buf, "more settings\n") != NULL &&
	    strstr(sb.buf, "identical") == NULL,
	    "without the parent's runs nothing is called identical");
	strbuf_release(&sb);
	side_release(&p);
	side_release(&c);
}

/* Issue 11: an unconfirmed culprit's headline says so. */
static void
test_headline(void)
{
	char	*h;

	h = report_headline("c2eefb1ed3c708c4", -3.04, "demo.ops_per_sec",
	    "higher", STORE_BISECTION_FOUND);
	is_str(h, "commit c2eefb1ed3: -3.0% demo.ops_per_sec regression",
	    "a found culprit's headline");
	free(h);
	h = report_headline("c2eefb1ed3c708c4", -3.04, "demo.ops_per_sec",
	    "higher", STORE_BISECTION_UNCONFIRMED);
	is_str(h, "commit c2eefb1ed3: unconfirmed -3.0% demo.ops_per_sec "
	    "regression", "an unconfirmed one's");
	free(h);
}

/* The progress count goes up only with its reason. */
static void
test_progress_count(void)
{
	struct strbuf	sb = STRBUF_INIT;

	bisection_progress_count(&sb, 42, 6, "bisect: 17 commits left (about "
	    "5 steps), testing 1a2b3c4 (3 runs)");
	is_str(sb.buf, "bisect: 42 commits left (about 6 steps), up from 17: "
	    "new samples moved the likeliest culprit's range", "up: why");
	strbuf_reset(&sb);
	bisection_progress_count(&sb, 9, 4, "bisect: 17 commits left (about "
	    "5 steps)");
	is_str(sb.buf, "bisect: 9 commits left (about 4 steps)", "down: plain");
	strbuf_reset(&sb);
	bisection_progress_count(&sb, 1, 1, "bisect: checking that good and "
	    "bad differ");
	is_str(sb.buf, "bisect: 1 commit left (about 1 step)", "after the "
	    "ends: plain");
	strbuf_release(&sb);
}

int
main(void)
{
	test_headline();
	test_testcase();
	test_environment_same();
	test_environment_differs();
	test_progress_count();
	return tap_done();
}
