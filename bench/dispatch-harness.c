/*
 * The timing half of bench/dispatch-ssh.sh (which makes the sshd, the keys
 * and the config, then runs this): the per-run cost of dispatching a
 * trivial job to an ssh agent, four ways, in the same run:
 *
 *   libssh2 over the agent's link   the daemon's path: a run child asks the
 *                                   link holding the connection (reused)
 *   libssh2, a connection per run   transport_open/run/close, no link
 *   OpenSSH ssh + scp               mkdir, upload the job, run, fetch the
 *                                   result: one connection each, as a
 *                                   script would do it
 *   OpenSSH with ControlMaster      the same commands over one master
 *
 * Each does the same steps (the agent binary and the artifacts are already
 * on the machine, as they are after the first run), and the agent's own
 * work is the same: bisect-agent run of the same job. Its time run
 * locally is subtracted to give the dispatch overhead. Prints the median
 * per run of each, and the ratio of the reused libssh2 overhead to the
 * OpenSSH one; exits 1 if that is above --max-ratio.
 *
 *   dispatch-harness CONFIG AGENT ARTIFACT_DIR WORKDIR [RUNS [MAX_RATIO]]
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/transport.h"
#include "jobs/config.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char	*job_text =
    "testcase: microbench\n"
    "run: sh bench.sh\n"
    "runs: 1\n"
    "metric: microbench.score\n";

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
sh(const char *cmd)
{
	int	st = system(cmd);

	if (st != 0)
		fprintf(stderr, "dispatch-harness: '%s' failed (%d)\n", cmd,
		    st);
	return st == 0 ? 0 : -1;
}

static char	*agent_path;

static int
one_run(const struct config_agent *a, const char *run_dir, const char *art,
    char **cause)
{
	struct transport	*t = NULL;
	struct transport_job	 job;
	int			 r;

	memset(&job, 0, sizeof job);
	job.run_dir = run_dir;
	job.job_text = job_text;
	job.artifact_dir = art;
	job.timeout = 60;
	if ((r = transport_open(a, agent_path, &t, cause)) == 0)
		r = transport_run(t, &job, cause);
	transport_close(t);
	return r;
}

/* n runs through the transport as it is set up now; seconds per run. */
static int
time_transport(const struct config_agent *a, const char *work,
    const char *art, double *v, int n)
{
	char	*dir, *cause = NULL;
	double	 t0;
	int	 i;

	dir = path_join(work, "run");
	if (one_run(a, dir, art, &cause) != 0)	/* warm: uploads */
		goto fail;
	for (i = 0; i < n; i++) {
		t0 = now();
		if (one_run(a, dir, art, &cause) != 0)
			goto fail;
		v[i] = now() - t0;
	}
	free(dir);
	return 0;
fail:
	fprintf(stderr, "dispatch-harness: %s\n", cause);
	free(cause);
	free(dir);
	return -1;
}

/* The same steps with ssh and scp; opts picks plain or ControlMaster. */
static int
time_openssh(const struct config_agent *a, const char *work, const char *art,
    const char *opts, double *v, int n)
{
	struct strbuf	 cmd = STRBUF_INIT;
	char		*ssh, *scp, *rdir, *jobfile, *local;
	double		 t0;
	int		 i, r = -1;

	ssh = xasprintf("ssh -q -i %s -o UserKnownHostsFile=%s "
	    "-o StrictHostKeyChecking=yes -o BatchMode=yes -p %d %s %s@%s",
	    a->identity, a->known_hosts, a->port, opts, a->user, a->host);
	scp = xasprintf("scp -q -i %s -o UserKnownHostsFile=%s "
	    "-o StrictHostKeyChecking=yes -o BatchMode=yes -P %d %s",
	    a->identity, a->known_hosts, a->port, opts);
	rdir = xasprintf("%s/openssh-run", a->remote_dir);
	jobfile = path_join(work, "job.yaml");
	local = path_join(work, "openssh-result");
	file_write_atomic(jobfile, job_text, strlen(job_text), NULL);
	/* the agent and the artifacts, once, as the transport keeps them */
	strbuf_addf(&cmd, "%s 'mkdir -p %s/bin %s/art' && %s %s %s@%s:%s/bin/"
	    "bisect-agent && %s -r %s/. %s@%s:%s/art/", ssh, rdir, rdir, scp,
	    agent_path, a->user, a->host, rdir, scp, art, a->user, a->host,
	    rdir);
	if (sh(cmd.buf) != 0)
		goto out;
	for (i = -1; i < n; i++) {
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "rm -rf %s && mkdir -p %s && "
		    "%s 'rm -rf %s/run && mkdir -p %s/run' && "
		    "%s %s %s@%s:%s/run/job.yaml && "
		    "%s 'mkdir -p %s/run/work && cp -pR %s/art/. %s/run/work/ && "
		    "exec %s/bin/bisect-agent run --workdir %s/run/work "
		    "%s/run/job.yaml %s/run/result' >/dev/null 2>&1 && "
		    "%s -r %s@%s:%s/run/result %s/",
		    local, local, ssh, rdir, rdir, scp, jobfile, a->user,
		    a->host, rdir, ssh, rdir, rdir, rdir, rdir, rdir, rdir,
		    rdir, scp, a->user, a->host, rdir, local);
		t0 = now();
		if (sh(cmd.buf) != 0)
			goto out;
		if (i >= 0)
			v[i] = now() - t0;
	}
	r = 0;
out:
	strbuf_release(&cmd);
	free(ssh);
	free(scp);
	free(rdir);
	free(jobfile);
	free(local);
	return r;
}

/* The agent's own work, run here: what every path above also pays. */
static int
time_local(const char *work, const char *art, double *v, int n)
{
	struct strbuf	 cmd = STRBUF_INIT;
	char		*jobfile = path_join(work, "job.yaml");
	double		 t0;
	int		 i, r = -1;

	file_write_atomic(jobfile, job_text, strlen(job_text), NULL);
	for (i = -1; i < n; i++) {
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "rm -rf %s/local && mkdir -p %s/local/work && "
		    "cp -pR %s/. %s/local/work/ && %s run --workdir "
		    "%s/local/work %s %s/local/result >/dev/null 2>&1", work,
		    work, art, work, agent_path, work, jobfile, work);
		t0 = now();
		if (sh(cmd.buf) != 0)
			goto out;
		if (i >= 0)
			v[i] = now() - t0;
	}
	r = 0;
out:
	strbuf_release(&cmd);
	free(jobfile);
	return r;
}

int
main(int argc, char **argv)
{
	struct config			*cfg = NULL;
	const struct config_agent	*a;
	double				*v = NULL, local, link, direct;
	double				 plain, master;
	double				 max_ratio, ratio;
	char				*cause = NULL, *ctl, *opts;
	pid_t				 pid;
	int				 n, fd, status, r = 1;

	if (argc < 5) {
		printf("dispatch-harness: driven by bench/dispatch-ssh.sh\n");
		return 0;
	}
	n = argc > 5 ? atoi(argv[5]) : 30;
	max_ratio = argc > 6 ? atof(argv[6]) : 0.3;
	if (n < 3)
		n = 3;
	agent_path = getenv("BISECT_AGENT") != NULL ?
	    xstrdup(getenv("BISECT_AGENT")) : xstrdup("bisect-agent");
	if (config_load(argv[1], &cfg, &cause) != 0 ||
	    (a = config_agent_find(cfg, argv[2])) == NULL) {
		fprintf(stderr, "dispatch-harness: %s\n", cause != NULL ?
		    cause : "no such agent");
		goto out;
	}
	v = xcalloc((size_t)n, sizeof *v);
	if (time_local(argv[4], argv[3], v, n) != 0)
		goto out;
	local = median(v, n);
	if (time_transport(a, argv[4], argv[3], v, n) != 0)
		goto out;
	direct = median(v, n);
	if (time_openssh(a, argv[4], argv[3], "", v, n) != 0)
		goto out;
	plain = median(v, n);
	ctl = path_join(argv[4], "cm");
	opts = xasprintf("-o ControlMaster=auto -o ControlPath=%s "
	    "-o ControlPersist=60", ctl);
	if (time_openssh(a, argv[4], argv[3], opts, v, n) != 0)
		goto out;
	master = median(v, n);
	free(opts);
	opts = xasprintf("ssh -q -o ControlPath=%s -O exit x 2>/dev/null",
	    ctl);
	if (system(opts) != 0) {
		/* the master may be gone already */
	}
	free(opts);
	free(ctl);

	/* the daemon's path: a link holds the connection */
	if (transport_link_setup(&cause) != 0 ||
	    transport_link_listen(a, &fd, &cause) != 0) {
		fprintf(stderr, "dispatch-harness: %s\n", cause);
		goto out;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		transport_link_serve(fd, a, agent_path, &cause);
		_exit(1);
	}
	close(fd);
	r = time_transport(a, argv[4], argv[3], v, n);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (r != 0) {
		r = 1;
		goto out;
	}
	link = median(v, n);
	ratio = (link - local) / (plain - local);
	printf("dispatch-ssh: median of %d runs of a trivial job; the agent's "
	    "own work, run locally: %.1f ms\n", n, local * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms\n",
	    "libssh2, connection reused (link):", link * 1e3,
	    (link - local) * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms\n",
	    "libssh2, a new connection per run:", direct * 1e3,
	    (direct - local) * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms\n",
	    "OpenSSH ssh+scp, new connections:", plain * 1e3,
	    (plain - local) * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms\n",
	    "OpenSSH ssh+scp over a ControlMaster:", master * 1e3,
	    (master - local) * 1e3);
	printf("dispatch-ssh: overhead ratio, reused libssh2 / OpenSSH "
	    "ssh+scp: %.3f (target <= %.2f): %s\n", ratio, max_ratio,
	    ratio <= max_ratio ? "ok" : "MISSED");
	r = ratio <= max_ratio ? 0 : 1;
out:
	free(v);
	config_free(cfg);
	free(cause);
	free(agent_path);
	return r;
}
