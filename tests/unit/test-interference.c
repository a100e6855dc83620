/*
 * Unit tests for the interference monitor's arithmetic
 * (agents/monitor-interference.c): the run queue beyond the run's own
 * tasks, other processes' CPU time from /proc/stat less the run's and the
 * agent's rusage, steal, the rule that calls a run disturbed with its
 * allowance for tick accounting; and the result lines that carry a run's
 * times, boot and disturbance (agents/result*.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/monitor-interference.h"
#include "agents/result.h"
#include "tests/unit/tap.h"

static void
input(struct interference_input *in, double busy_ticks, double job_cpu,
    double elapsed, unsigned nr_cpu)
{
	memset(in, 0, sizeof *in);
	in->hz = 100;
	in->nr_cpu = nr_cpu;
	in->before.user = 1000;
	in->before.nice = 50;
	in->before.system = 200;
	in->before.total = 10000;
	in->after = in->before;
	in->after.user += busy_ticks * 0.7;
	in->after.nice += busy_ticks * 0.1;
	in->after.system += busy_ticks * 0.2;
	in->after.total += elapsed * nr_cpu * in->hz;
	in->elapsed = elapsed;
	in->job_cpu = job_cpu;
}

static void
test_runqueue(void)
{
	is_close(monitor_interference_runqueue(5, 1, 1), 3, 1e-12,
	    "run queue: procs_running less the job's and the agent's");
	is_close(monitor_interference_runqueue(1, 2, 1), 0, 1e-12,
	    "run queue: never below zero");
}

static void
test_other_cpu(void)
{
	struct interference_input	in;
	struct interference		x;
	char				*why = NULL;

	/* 3.6 s busy over 4 s on 2 CPUs; the job took 1.5 s, the agent 0.1 */
	input(&in, 360, 1.5, 4, 2);
	in.agent_cpu = 0.1;
	in.runqueue_sum = 3;
	in.samples = 4;
	monitor_interference_compute(&in, &x);
	is_close(x.other_cpu_s, 2.0, 1e-12, "other CPU: busy less job and "
	    "agent");
	is_close(x.other_cpu_pct, 50, 1e-12, "other CPU: %% of one CPU");
	is_close(x.allowance_s, 0.04, 1e-12, "allowance: two ticks per CPU");
	is_close(x.runqueue, 0.75, 1e-12, "run queue: the mean of readings");
	is_close(x.steal_pct, 0, 1e-12, "no steal");
	ok(monitor_interference_disturbed(&x, &why) == 1, "half a CPU is disturbed");
	ok(why != NULL && strstr(why, "other processes took 50% of one CPU")
	    != NULL, "and says by what: %s", why != NULL ? why : "(null)");
	free(why);
	why = NULL;

	/* the job alone: busy equals its rusage */
	input(&in, 150, 1.5, 2, 2);
	monitor_interference_compute(&in, &x);
	is_close(x.other_cpu_s, 0, 1e-12, "the job alone: nothing else");
	ok(monitor_interference_disturbed(&x, &why) == 0, "the job alone: not "
	    "disturbed");

	/* rusage above the ticks (rounding): never negative */
	input(&in, 10, 0.2, 1, 2);
	monitor_interference_compute(&in, &x);
	is_close(x.other_cpu_s, 0, 1e-12, "other CPU never below zero");

	/* 24% of one CPU: under the limit */
	input(&in, 150 + 240, 1.5, 10, 2);
	monitor_interference_compute(&in, &x);
	is_close(x.other_cpu_pct, 24, 1e-9, "24%% of one CPU");
	ok(monitor_interference_disturbed(&x, &why) == 0, "24%%: not disturbed");

	/* 30% of one CPU over 10 s: over it */
	input(&in, 150 + 300, 1.5, 10, 2);
	monitor_interference_compute(&in, &x);
	ok(monitor_interference_disturbed(&x, &why) == 1, "30%%: disturbed");
	free(why);
	why = NULL;

	/* a short run: 50% of one CPU, but within the ticks' allowance */
	input(&in, 15 + 5, 0.15, 0.1, 2);
	monitor_interference_compute(&in, &x);
	is_close(x.other_cpu_pct, 50, 1e-9, "short run: 50%% of one CPU");
	ok(monitor_interference_disturbed(&x, &why) == 0, "short run: within the "
	    "allowance of 2 ticks per CPU, not disturbed");

	/* the same share over a long run on 48 CPUs */
	input(&in, 6000 + 3000, 60, 60, 48);
	monitor_interference_compute(&in, &x);
	is_close(x.allowance_s, 0.96, 1e-12, "48 CPUs: allowance 0.96 s");
	ok(monitor_interference_disturbed(&x, &why) == 1, "48 CPUs, 30 s of others "
	    "over 60 s: disturbed");
	free(why);
	why = NULL;
}

static void
test_steal(void)
{
	struct interference_input	in;
	struct interference		x;
	char				*why = NULL;

	input(&in, 100, 1, 5, 2);
	in.after.steal = in.before.steal + 60;
	monitor_interference_compute(&in, &x);
	is_close(x.steal_pct, 6, 1e-12, "steal: share of all CPU time");
	ok(monitor_interference_disturbed(&x, &why) == 1, "6%% steal: disturbed");
	ok(why != NULL && strstr(why, "stole 6.0%") != NULL, "and says so: "
	    "%s", why != NULL ? why : "(null)");
	free(why);
	why = NULL;
	in.after.steal = in.before.steal + 40;
	monitor_interference_compute(&in, &x);
	ok(monitor_interference_disturbed(&x, &why) == 0, "4%% steal: not disturbed");
}

static int
parse(const char *text, struct result **out, char **cause)
{
	return result_parse("result", text, strlen(text), out, cause);
}

static void
test_result_lines(void)
{
	struct result	*r = result_new(), *back = NULL;
	char		*text = NULL, *cause = NULL;
	size_t		 len;

	r->exit_status = 0;
	r->has_times = 1;
	r->start_wall = 1764650000.25;
	r->start_mono = 1001.5;
	r->end_wall = 1764650002.75;
	r->end_mono = 1004;
	r->boot_id = strdup("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
	result_set_disturbed(r, "other processes took %d%% of one CPU", 97);
	result_metric(r, "interference.other_cpu%")->value = 97;
	ok(result_format(r, &text, &len, &cause) == 0, "times, boot and "
	    "disturbed format");
	ok(text != NULL && strstr(text, "\nstart 1764650000.25 1001.5\nend "
	    "1764650002.75 1004\nboot_id 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
	    "\n") != NULL, "as start, end and boot_id lines");
	ok(result_parse("result", text, len, &back, &cause) == 0,
	    "and read back");
	if (back != NULL) {
		ok(back->has_times && back->start_wall == r->start_wall &&
		    back->start_mono == r->start_mono &&
		    back->end_wall == r->end_wall &&
		    back->end_mono == r->end_mono, "the times, exactly");
		is_str(back->boot_id, r->boot_id, "the boot");
		is_str(back->disturbed, "other processes took 97% of one CPU",
		    "the disturbance");
	}
	result_free(back);
	back = NULL;
	free(cause);
	cause = NULL;
	ok(parse("bisect-agent-result 1\nexit_status 0\n"
	    "start 1 2\n", &back, &cause) == -1 && cause != NULL &&
	    strstr(cause, "'start' and 'end' come together") != NULL,
	    "start without end is refused: %s", cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	ok(parse("bisect-agent-result 1\nexit_status 0\n"
	    "start 1\nend 2 3\n", &back, &cause) == -1 && cause != NULL &&
	    strstr(cause, "expected 'start WALL MONO'") != NULL,
	    "start with one number is refused: %s", cause != NULL ? cause :
	    "");
	free(cause);
	cause = NULL;
	ok(parse("bisect-agent-result 1\nexit_status 0\n"
	    "boot_id a\nboot_id b\n", &back, &cause) == -1,
	    "boot_id twice is refused");
	free(cause);
	cause = NULL;
	ok(parse("bisect-agent-result 1\nexit_status 0\n", &back, &cause) == 0 && back != NULL && !back->has_times &&
	    back->boot_id == NULL && back->disturbed == NULL,
	    "a result without them still reads");
	result_free(back);
	result_free(r);
	free(text);
	free(cause);
}

int
main(void)
{
	test_runqueue();
	test_other_cpu();
	test_steal();
	test_result_lines();
	return tap_done();
}
