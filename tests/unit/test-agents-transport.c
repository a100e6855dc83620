/*
 * Unit tests for agents/transport*.c with the real bisect-agent: the local
 * transport runs a job against a fresh copy of the artifacts, reports the
 * agent's failures with its log, enforces the run's timeout, and fetches
 * the inventory; an incomplete ssh agent and unknown transports are
 * refused by name (tests/unit/test-ssh-*.c test the ssh transport).
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/result.h"
#include "agents/transport.h"
#include "tests/unit/tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"

static char	*agent;
static char	*tmp;

static void
write_file(const char *dir, const char *name, const char *text, int mode)
{
	char	*path = path_join(dir, name);

	file_write_atomic(path, text, strlen(text), NULL);
	chmod(path, mode);
	free(path);
}

static int
file_has(const char *path, const char *needle)
{
	char	*buf = NULL;
	int	 r;

	if (file_read(path, &buf, NULL, NULL) != 0)
		return 0;
	r = strstr(buf, needle) != NULL;
	free(buf);
	return r;
}

static struct config_agent
agent_config(const char *name, const char *transport)
{
	struct config_agent	a;

	memset(&a, 0, sizeof a);
	a.name = (char *)name;
	a.transport = (char *)transport;
	a.boot = "none";
	a.slots = 1;
	return a;
}

static void
test_open(void)
{
	struct config_agent	 a;
	struct transport	*t = NULL;
	char			*cause = NULL;

	a = agent_config("ivb44", "ssh");
	ok(transport_open(&a, agent, &t, &cause) == -1 && t == NULL,
	    "an ssh agent without a host is refused");
	is_str(cause, "agent 'ivb44': an ssh agent needs 'host', 'user', "
	    "'identity' and 'known_hosts'", "the refusal names the agent");
	a = agent_config("x", "carrier-pigeon");
	ok(transport_open(&a, agent, &t, &cause) == -1, "unknown transport");
	is_str(cause, "agent 'x': unknown transport 'carrier-pigeon'",
	    "unknown transport named");
	free(cause);
	transport_close(NULL);
}

static void
test_timeouts(void)
{
	struct job	job;

	memset(&job, 0, sizeof job);
	is_int(transport_timeout_testcase(&job), 3600, "default: an hour");
	job.runtime = 60;
	is_int(transport_timeout_testcase(&job), 240, "3 * runtime + 60");
	job.timeout = 2;
	is_int(transport_timeout_testcase(&job), 2, "timeout: wins");
	ok(transport_timeout_run(&job) > transport_timeout_testcase(&job) + 5,
	    "the transport waits past the agent's timeout and kill grace");
}

static void
test_run(void)
{
	struct config_agent	 a = agent_config("local", "local");
	struct transport_job	 job;
	struct transport	*t = NULL;
	struct result		*res = NULL, *handed = NULL;
	const struct result_metric *m;
	char			*cache, *run_dir, *path, *cause = NULL;

	cache = path_join(tmp, "cache");
	run_dir = path_join(tmp, "run1");
	dir_create(cache, NULL);
	write_file(cache, "bench", "#!/bin/sh\n"
	    "test -e damage && { echo 'damage survived'; exit 9; }\n"
	    "echo ops_per_sec: 42\n"
	    "echo x >damage; rm -f bench\n", 0755);
	ok(transport_open(&a, agent, &t, &cause) == 0, "open local");

	memset(&job, 0, sizeof job);
	job.run_dir = run_dir;
	job.job_text = "testcase: microbench\nrun: ./bench\n";
	job.artifact_dir = cache;
	job.timeout = 60;
	ok(transport_run(t, &job, &handed, &cause) == 0, "run");
	ok(result_load(path = path_join(run_dir, "result"), &res,
	    &cause) == 0, "RUN_DIR/result holds the result");
	free(path);
	m = handed != NULL ? result_metric_find(handed,
	    "microbench.ops_per_sec") : NULL;
	ok(m != NULL && m->value == 42 && handed->exit_status == 0,
	    "transport_run hands over the result it read");
	result_free(handed);
	handed = NULL;
	m = res != NULL ? result_metric_find(res, "microbench.ops_per_sec") :
	    NULL;
	ok(m != NULL && m->value == 42, "the testcase's metric came back");
	ok(res != NULL && res->exit_status == 0, "exit status 0");
	result_free(res);
	res = NULL;
	path = path_join(cache, "bench");
	ok(file_exists(path), "the testcase deleted its copy, not the cache");
	free(path);
	path = path_join(run_dir, "job.yaml");
	ok(file_has(path, "run: ./bench"), "job.yaml is the job text");
	free(path);

	ok(transport_run(t, &job, NULL, &cause) == 0, "run again in the same dir");
	ok(result_load(path = path_join(run_dir, "result"), &res,
	    &cause) == 0 && res->exit_status == 0,
	    "a fresh work directory each run (the damage is gone)");
	free(path);
	result_free(res);
	res = NULL;

	job.job_text = "testcase: [broken\n";
	ok(transport_run(t, &job, NULL, &cause) == -1, "agent failure is -1");
	ok(cause != NULL && strstr(cause, "agent 'local': bisect-agent exited "
	    "with status 2 without a usable result") != NULL,
	    "cause says how the agent ended");
	ok(cause != NULL && strstr(cause, "agent.log: bisect-agent: ") !=
	    NULL, "cause carries the agent.log tail");
	path = path_join(run_dir, "result/result");
	ok(!file_exists(path), "no stale result survives a failed run");
	free(path);

	transport_close(t);
	t = NULL;
	ok(transport_open(&a, "/nonexistent/bisect-agent", &t, &cause) == 0,
	    "open does not look for the program");
	job.job_text = "testcase: t\nrun: 'true'\n";
	ok(transport_run(t, &job, NULL, &cause) == -1 && strstr(cause,
	    "couldn't run '/nonexistent/bisect-agent'") != NULL,
	    "a missing agent program is reported with the log");
	transport_close(t);
	free(cause);
	free(cache);
	free(run_dir);
}

static void
test_timeout(void)
{
	struct config_agent	 a = agent_config("local", "local");
	struct transport_job	 job;
	struct transport	*t = NULL;
	struct timespec		 t0, t1;
	char			*run_dir = path_join(tmp, "run2");
	char			*cause = NULL;
	double			 took;

	memset(&job, 0, sizeof job);
	job.run_dir = run_dir;
	job.job_text = "testcase: hang\nrun: 'echo started >&2; sleep 1000'\n";
	job.timeout = 1;
	transport_open(&a, agent, &t, &cause);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok(transport_run(t, &job, NULL, &cause) == -1, "a run past its timeout fails");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(took >= 1 && took < 8, "killed soon after 1s (took %.2fs)", took);
	ok(cause != NULL && strncmp(cause, "agent 'local': run timed out "
	    "after 1s", 37) == 0, "cause says so");
	if (cause != NULL)
		diag("%s", cause);
	transport_close(t);
	free(run_dir);
	free(cause);
}

static void
test_info(void)
{
	struct config_agent	 a = agent_config("local", "local");
	struct transport	*t = NULL;
	char			*out = NULL, *cause = NULL;

	transport_open(&a, agent, &t, &cause);
	ok(transport_info(t, &out, &cause) == 0, "info");
	ok(out != NULL && strstr(out, "\nnr_cpu ") != NULL &&
	    strstr(out, "\nagent_version ") != NULL, "inventory lines");
	transport_close(t);
	free(out);
	out = NULL;
	a = agent_config("local", "local");
	transport_open(&a, "/bin/false", &t, &cause);
	ok(transport_info(t, &out, &cause) == -1 && out == NULL &&
	    strstr(cause, "exited with status 1") != NULL,
	    "a failing info is an error");
	transport_close(t);
	free(cause);
}

int
main(int argc, char **argv)
{
	const char	*build = getenv("BISECTD_BUILD");
	char		 tmpl[] = "/tmp/bisectd-test-transport.XXXXXX";
	char		*dir;

	if (build != NULL)
		agent = xasprintf("%s/bin/bisect-agent", build);
	else {
		dir = path_dirname(argv[0]);
		agent = xasprintf("%s/../../bin/bisect-agent", dir);
		free(dir);
	}
	tmp = mkdtemp(tmpl);
	if (access(agent, X_OK) != 0) {
		printf("1..0 # SKIP no bisect-agent at %s\n", agent);
		return 0;
	}
	test_open();
	test_timeouts();
	test_run();
	test_timeout();
	test_info();
	dir_remove_tree(tmp, NULL);
	free(agent);
	return tap_done();
}
