/*
 * The testcase's process (agents/agent-testcase.h). SIGCHLD and the
 * signals that stop the agent are blocked and taken with sigtimedwait,
 * which works on every kernel a bisection may boot (pidfd needs 5.3); at
 * the timeout the group gets SIGTERM, then SIGKILL after a grace.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent-testcase.h"
#include "agents/child.h"
#include "agents/result.h"
#include "util/error.h"

#define AGENT_TESTCASE_GRACE	5	/* seconds from SIGTERM to SIGKILL */

/*
 * The testcase's process (agents/child.c): in a process group of its
 * own, in its work directory, with its environment, no descriptor but
 * stdin (/dev/null) and the output, the standard signals at their
 * default dispositions and none blocked (a daemon up the chain may
 * ignore SIGPIPE or block signals, and a benchmark must not inherit
 * that), and SIGKILL when the agent dies.
 */
static int
agent_testcase_spawn(struct agent_testcase *tc, pid_t *pid, char **cause)
{
	char			*sh[] = { "sh", "-c", (char *)tc->command, NULL };
	struct child_opts	 o;

	memset(&o, 0, sizeof o);
	o.outfd = tc->outfd;
	o.errfd = tc->outfd;
	o.deathsig = SIGKILL;
	o.path = tc->argv != NULL ? tc->argv[0] : "/bin/sh";
	o.envp = tc->envp;
	o.dir = tc->workdir;
	o.pgroup = 1;
	o.close_fds = 1;
	o.name = "bisect-agent";
	return child_spawn_with(tc->argv != NULL ? tc->argv : sh, &o, pid,
	    cause);
}

static double
agent_testcase_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run the testcase in its own process group and wait for it, at most
 * tc->timeout seconds: then SIGTERM to the group, SIGKILL after a grace.
 * SIGCHLD and the signals that stop the agent are blocked and taken with
 * sigtimedwait, which works on every kernel a bisection may boot (pidfd
 * needs 5.3). Leftover processes of the group are killed at the end.
 */
int
agent_testcase_run(struct agent_testcase *tc, char **cause)
{
	struct timespec	 start, end, ts;
	sigset_t	 block, old;
	siginfo_t	 info;
	double		 deadline, left, late_at;
	pid_t		 pid, w;
	size_t		 i;
	int		 phase = 0, sig, r = -1;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	clock_gettime(CLOCK_REALTIME, &tc->start_wall);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (agent_testcase_spawn(tc, &pid, cause) != 0)
		goto out;
	for (i = 0; i < tc->nr_mons; i++) {
		if (tc->mons[i]->attach != NULL)
			tc->mons[i]->attach(tc->states[i], (int)pid);
	}

	deadline = agent_testcase_now() + tc->timeout;
	late_at = tc->late != NULL ? agent_testcase_now() + tc->late_delay : 0;
	for (;;) {
		w = wait4(pid, &tc->status, WNOHANG, &tc->exit.rusage);
		if (w == pid)
			break;
		if (w == -1 && errno != EINTR) {
			error_errno(cause, "couldn't wait for the testcase");
			killpg(pid, SIGKILL);
			goto out;
		}
		if (tc->late != NULL && phase == 0 &&
		    agent_testcase_now() >= late_at) {
			tc->late(tc->late_arg, (int)pid, agent_testcase_now() -
			    late_at + tc->late_delay);
			tc->late = NULL;
			continue;
		}
		left = deadline - agent_testcase_now();
		if (tc->late != NULL && phase == 0 && left > 0 &&
		    late_at - agent_testcase_now() < left)
			left = late_at - agent_testcase_now() > 0 ?
			    late_at - agent_testcase_now() : 0.001;
		if (left <= 0) {
			if (phase == 0) {
				tc->timed_out = 1;
				killpg(pid, SIGTERM);
				deadline = agent_testcase_now() +
				    AGENT_TESTCASE_GRACE;
			} else {
				killpg(pid, SIGKILL);
				deadline = agent_testcase_now() + 3600;
			}
			phase++;
			continue;
		}
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(&block, &info, &ts);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			tc->interrupted = sig;
			killpg(pid, SIGKILL);
			while (wait4(pid, &tc->status, 0, &tc->exit.rusage) ==
			    -1 && errno == EINTR)
				;
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	clock_gettime(CLOCK_REALTIME, &tc->end_wall);
	tc->start_mono = start;
	tc->end_mono = end;
	killpg(pid, SIGKILL);
	tc->exit.elapsed.tv_sec = end.tv_sec - start.tv_sec;
	tc->exit.elapsed.tv_nsec = end.tv_nsec - start.tv_nsec;
	if (tc->exit.elapsed.tv_nsec < 0) {
		tc->exit.elapsed.tv_sec--;
		tc->exit.elapsed.tv_nsec += 1000000000L;
	}
	r = 0;
out:
	if (tc->interrupted == 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

static double
agent_testcase_seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

void
agent_testcase_record(struct result *r, const struct agent_testcase *tc)
{
	int	sig;

	r->has_times = 1;
	r->start_wall = agent_testcase_seconds(&tc->start_wall);
	r->start_mono = agent_testcase_seconds(&tc->start_mono);
	r->end_wall = agent_testcase_seconds(&tc->end_wall);
	r->end_mono = agent_testcase_seconds(&tc->end_mono);

	if (tc->timed_out)
		result_set_error(r, "timed out after %us", tc->timeout);
	if (WIFEXITED(tc->status)) {
		r->exit_status = WEXITSTATUS(tc->status);
		if (r->exit_status != 0)
			result_set_error(r, "testcase exited with status %d",
			    r->exit_status);
	} else if (WIFSIGNALED(tc->status)) {
		sig = WTERMSIG(tc->status);
		r->exit_status = 128 + sig;
		result_set_error(r, "testcase killed by signal %d (%s)", sig,
		    strsignal(sig));
	}
}
