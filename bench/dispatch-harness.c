/*
 * The timing half of bench/dispatch-ssh.sh: the per-run cost of
 * dispatching a trivial job to an ssh agent four ways, interleaved in the
 * same run, and the ratio of the link's overhead to OpenSSH's
 * (docs/design.md, "File notes", has the usage).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "agents/transport.h"
#include "jobs/config.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/*
 * The key exchange libssh2 1.10 uses: OpenSSH 9's default (sntrup761,
 * post-quantum) costs several times more, which would flatter the ratio.
 */
#define OPENSSH_KEX	"-o KexAlgorithms=curve25519-sha256"

static const char	*job_text =
    "testcase: microbench\n"
    "run: sh bench.sh\n"
    "runs: 1\n"
    "metric: microbench.score\n";

struct bench {
	const struct config_agent	*a;
	const char			*art;
	const char			*work;
	char				*agent_path;
	char				*jobfile;
	char				*rdir;		/* OpenSSH's, remote */
};

static int
dispatch_harness_sh(const char *cmd)
{
	int	st = system(cmd);

	if (st != 0)
		fprintf(stderr, "dispatch-harness: '%s' failed (%d)\n", cmd,
		    st);
	return st == 0 ? 0 : -1;
}

/* One run through the transport as it is set up now; seconds or -1. */
static double
dispatch_harness_transport(struct bench *b)
{
	struct transport	*t = NULL;
	struct transport_job	 job;
	char			*dir = path_join(b->work, "run"), *cause = NULL;
	double			 t0 = bench_now();
	int			 r;

	memset(&job, 0, sizeof job);
	job.run_dir = dir;
	job.job_text = job_text;
	job.artifact_dir = b->art;
	job.timeout = 60;
	if ((r = transport_open(b->a, b->agent_path, &t, &cause)) == 0)
		r = transport_run(t, &job, NULL, &cause);
	transport_close(t);
	if (r != 0)
		fprintf(stderr, "dispatch-harness: %s\n", cause);
	free(cause);
	free(dir);
	return r == 0 ? bench_now() - t0 : -1;
}

static char *
dispatch_harness_ssh(struct bench *b, const char *opts, int scp)
{
	if (scp)
		return xasprintf("scp -q -i %s -o UserKnownHostsFile=%s "
		    "-o StrictHostKeyChecking=yes -o BatchMode=yes %s -P %d %s",
		    b->a->identity, b->a->known_hosts, OPENSSH_KEX, b->a->port,
		    opts);
	return xasprintf("ssh -q -i %s -o UserKnownHostsFile=%s "
	    "-o StrictHostKeyChecking=yes -o BatchMode=yes %s -p %d %s %s@%s",
	    b->a->identity, b->a->known_hosts, OPENSSH_KEX, b->a->port, opts,
	    b->a->user, b->a->host);
}

/* The agent and the artifacts, once, as the transport keeps them. */
static int
dispatch_harness_openssh_prepare(struct bench *b)
{
	char	*ssh = dispatch_harness_ssh(b, "", 0), *scp = dispatch_harness_ssh(b, "", 1), *cmd;
	int	 r;

	cmd = xasprintf("%s 'mkdir -p %s/bin %s/art' && %s %s %s@%s:%s/bin/"
	    "bisect-agent && %s -r %s/. %s@%s:%s/art/", ssh, b->rdir, b->rdir,
	    scp, b->agent_path, b->a->user, b->a->host, b->rdir, scp, b->art,
	    b->a->user, b->a->host, b->rdir);
	r = dispatch_harness_sh(cmd);
	free(cmd);
	free(ssh);
	free(scp);
	return r;
}

/* One run with ssh and scp: mkdir, upload the job, run, fetch. */
static double
dispatch_harness_openssh(struct bench *b, const char *opts)
{
	char	*ssh = dispatch_harness_ssh(b, opts, 0), *scp = dispatch_harness_ssh(b, opts, 1);
	char	*local = path_join(b->work, "openssh-result"), *cmd;
	double	 t0;
	int	 r;

	cmd = xasprintf("rm -rf %s && mkdir -p %s && "
	    "%s 'rm -rf %s/run && mkdir -p %s/run' && "
	    "%s %s %s@%s:%s/run/job.yaml && "
	    "%s 'mkdir -p %s/run/work && cp -pR %s/art/. %s/run/work/ && "
	    "exec %s/bin/bisect-agent run --workdir %s/run/work "
	    "%s/run/job.yaml %s/run/result' >/dev/null 2>&1 && "
	    "%s -r %s@%s:%s/run/result %s/",
	    local, local, ssh, b->rdir, b->rdir, scp, b->jobfile, b->a->user,
	    b->a->host, b->rdir, ssh, b->rdir, b->rdir, b->rdir, b->rdir,
	    b->rdir, b->rdir, b->rdir, scp, b->a->user, b->a->host, b->rdir,
	    local);
	t0 = bench_now();
	r = dispatch_harness_sh(cmd);
	t0 = bench_now() - t0;
	free(cmd);
	free(ssh);
	free(scp);
	free(local);
	return r == 0 ? t0 : -1;
}

/* The agent's own work, run here: what every path above also pays. */
static double
dispatch_harness_local(struct bench *b)
{
	char	*cmd;
	double	 t0;
	int	 r;

	cmd = xasprintf("rm -rf %s/local && mkdir -p %s/local/work && "
	    "cp -pR %s/. %s/local/work/ && %s run --workdir %s/local/work %s "
	    "%s/local/result >/dev/null 2>&1", b->work, b->work, b->art,
	    b->work, b->agent_path, b->work, b->jobfile, b->work);
	t0 = bench_now();
	r = dispatch_harness_sh(cmd);
	t0 = bench_now() - t0;
	free(cmd);
	return r == 0 ? t0 : -1;
}

/* n runs of one method (after one to warm up): its median, or -1. */
static double
dispatch_harness_block(struct bench *b, const char *opts, int openssh, int n)
{
	double	*v = xcalloc((size_t)n, sizeof *v), x, m = -1;
	int	 i;

	for (i = -1; i < n; i++) {
		x = openssh ? dispatch_harness_openssh(b, opts) : dispatch_harness_transport(b);
		if (x < 0)
			goto out;
		if (i >= 0)
			v[i] = x;
	}
	m = bench_median(v, (size_t)n);
out:
	free(v);
	return m;
}

/*
 * n rounds of a run locally, over the link and over OpenSSH, in turn;
 * their medians and overheads printed beside the reference figures
 * (direct: libssh2 without reuse, master: OpenSSH's ControlMaster). 0
 * when the link's overhead is at most max_ratio of OpenSSH's, else 1.
 */
static int
dispatch_harness_compare(struct bench *b, int n, double direct,
    double master, double max_ratio)
{
	double	*loc, *lnk, *ssh, *d_lnk, *d_ssh;
	double	 x[3], o_lnk, o_ssh, ratio;
	size_t	 nn = (size_t)n;
	int	 i, k, m, r = 1;

	loc = xcalloc((size_t)n, sizeof *loc);
	lnk = xcalloc((size_t)n, sizeof *lnk);
	ssh = xcalloc((size_t)n, sizeof *ssh);
	d_lnk = xcalloc((size_t)n, sizeof *d_lnk);
	d_ssh = xcalloc((size_t)n, sizeof *d_ssh);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 3; k++) {
			m = (i + k) % 3;
			x[m] = m == 0 ? dispatch_harness_local(b) : m == 1 ?
			    dispatch_harness_transport(b) : dispatch_harness_openssh(b, "");
			if (x[m] < 0)
				goto out;
		}
		loc[i] = x[0];
		lnk[i] = x[1];
		ssh[i] = x[2];
		d_lnk[i] = x[1] - x[0];
		d_ssh[i] = x[2] - x[0];
	}
	o_lnk = bench_median(d_lnk, nn);
	o_ssh = bench_median(d_ssh, nn);
	ratio = o_lnk / o_ssh;
	printf("dispatch-ssh: median of %d runs of a trivial job; the agent's "
	    "own work, run locally: %.1f ms\n", n, bench_median(loc, nn) * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms\n",
	    "libssh2, connection reused (link):", bench_median(lnk, nn) * 1e3,
	    o_lnk * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms\n",
	    "OpenSSH ssh+scp, new connections:", bench_median(ssh, nn) * 1e3,
	    o_ssh * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms "
	    "(measured apart)\n", "libssh2, a new connection per run:",
	    direct * 1e3, (direct - bench_median(loc, nn)) * 1e3);
	printf("  %-42s %7.1f ms/run, dispatch overhead %6.1f ms "
	    "(measured apart)\n", "OpenSSH ssh+scp over a ControlMaster:",
	    master * 1e3, (master - bench_median(loc, nn)) * 1e3);
	printf("dispatch-ssh: overhead ratio, reused libssh2 / OpenSSH "
	    "ssh+scp: %.3f (target <= %.2f): %s\n", ratio, max_ratio,
	    ratio <= max_ratio ? "ok" : "MISSED");
	r = ratio <= max_ratio ? 0 : 1;
out:
	free(loc);
	free(lnk);
	free(ssh);
	free(d_lnk);
	free(d_ssh);
	return r;
}

int
main(int argc, char **argv)
{
	struct config		*cfg = NULL;
	struct bench		 b;
	double			 direct, master, max_ratio;
	char			*cause = NULL, *ctl = NULL, *opts = NULL;
	pid_t			 pid = -1;
	int			 n, fd, status, r = 1;

	if (argc < 5) {
		printf("dispatch-harness: driven by bench/dispatch-ssh.sh\n");
		return 0;
	}
	memset(&b, 0, sizeof b);
	n = argc > 5 ? atoi(argv[5]) : 20;
	max_ratio = argc > 6 ? atof(argv[6]) : 0.3;
	if (n < 3)
		n = 3;
	b.agent_path = xstrdup(getenv("BISECT_AGENT") != NULL ?
	    getenv("BISECT_AGENT") : "bisect-agent");
	b.art = argv[3];
	b.work = argv[4];
	if (config_load(argv[1], &cfg, &cause) != 0 ||
	    (b.a = config_agent_find(cfg, argv[2])) == NULL) {
		fprintf(stderr, "dispatch-harness: %s\n", cause != NULL ?
		    cause : "no such agent");
		goto out;
	}
	b.jobfile = path_join(b.work, "job.yaml");
	b.rdir = xasprintf("%s/openssh-run", b.a->remote_dir);
	file_write_atomic(b.jobfile, job_text, strlen(job_text), NULL);
	if (dispatch_harness_openssh_prepare(&b) != 0)
		goto out;

	/* for reference: no reuse with libssh2, reuse with OpenSSH */
	if ((direct = dispatch_harness_block(&b, NULL, 0, n)) < 0)
		goto out;
	ctl = path_join(b.work, "cm");
	opts = xasprintf("-o ControlMaster=auto -o ControlPath=%s "
	    "-o ControlPersist=60", ctl);
	master = dispatch_harness_block(&b, opts, 1, n);
	free(opts);
	opts = xasprintf("ssh -q -o ControlPath=%s -O exit x 2>/dev/null",
	    ctl);
	if (system(opts) != 0) {
		/* the master may be gone already */
	}
	if (master < 0)
		goto out;

	/* the daemon's path: a link holds the connection */
	if (transport_link_setup(&cause) != 0 ||
	    transport_link_listen(b.a, &fd, &cause) != 0) {
		fprintf(stderr, "dispatch-harness: %s\n", cause);
		goto out;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		transport_link_serve(fd, b.a, b.agent_path, &cause);
		_exit(1);
	}
	close(fd);
	if (dispatch_harness_transport(&b) < 0)		/* warm: connect, uploads */
		goto out;
	r = dispatch_harness_compare(&b, n, direct, master, max_ratio);
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	free(ctl);
	free(opts);
	free(b.agent_path);
	free(b.jobfile);
	free(b.rdir);
	config_free(cfg);
	free(cause);
	return r;
}
