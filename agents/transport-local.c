/*
 * The "local" transport: bisect-agent runs as a child process on this
 * machine, in RUN_DIR with a fresh copy of the artifacts (a testcase can
 * damage its copy, never the cache), and dies with its caller and with the
 * run's timeout; boot: qemu runs each job in a VM (docs/agents.md, "local").
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/boot.h"
#include "agents/disk.h"
#include "agents/child.h"
#include "agents/result.h"
#include "agents/transport-ops.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define LOCAL_INFO_TIMEOUT	60	/* seconds for "bisect-agent info" */
#define LOCAL_KILL_GRACE	10	/* seconds from SIGTERM to SIGKILL */
#define LOCAL_LOG_TAIL		2000	/* bytes of agent.log in a cause */
#define LOCAL_MAX_INFO		(1u << 20)

static double
transport_local_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Wait for pid until deadline (0: none); past it, SIGTERM, then SIGKILL
 * after a grace. A pidfd makes the wait a poll(2); kernels older than 5.3
 * have none, and there the wait polls waitpid every 50ms.
 */
static int
transport_local_wait(pid_t pid, double deadline, int *status, int *timed_out,
    char **cause)
{
	struct pollfd	pfd;
	double		left;
	pid_t		w;
	int		pidfd = -1, phase = 0, ms, r = -1;

#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	*timed_out = 0;
	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			break;
		if (w == -1 && errno != EINTR) {
			error_errno(cause, "couldn't wait for process %ld",
			    (long)pid);
			goto out;
		}
		ms = pidfd != -1 ? -1 : 50;
		if (deadline > 0) {
			left = deadline - transport_local_now();
			if (left <= 0) {
				*timed_out = 1;
				kill(pid, phase == 0 ? SIGTERM : SIGKILL);
				deadline = phase == 0 ? transport_local_now() +
				    LOCAL_KILL_GRACE : 0;
				phase++;
				continue;
			}
			if (ms == -1 || left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		if (pidfd != -1) {
			pfd.fd = pidfd;
			pfd.events = POLLIN;
			poll(&pfd, 1, ms);
		} else
			poll(NULL, 0, ms);
	}
	r = 0;
out:
	if (pidfd != -1)
		close(pidfd);
	return r;
}

static char *
transport_local_describe_status(int status)
{
	if (WIFEXITED(status))
		return xasprintf("exited with status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return xasprintf("was killed by signal %d",
		    WTERMSIG(status));
	return xstrdup("stopped");
}

/* What the local transport keeps: the boot method, the test disks. */
struct transport_local {
	enum boot_method	  boot;
	char			**disks;	/* --disk arguments */
	size_t			  nr_disks;
};

/* kexec would reboot the daemon's machine. */
static int
transport_local_open(struct transport *t, const struct config_agent *agent,
    char **cause)
{
	struct transport_local	*tl;
	enum boot_method	 boot = BOOT_NONE;

	if (agent->boot != NULL && boot_method_parse(agent->boot, &boot) != 0)
		return error_set(cause, "agent '%s': unknown boot method '%s'",
		    agent->name, agent->boot);
	if (boot == BOOT_KEXEC)
		return error_set(cause, "agent '%s': boot method 'kexec' "
		    "reboots the machine it runs on: it needs the ssh "
		    "transport", agent->name);
	tl = xcalloc(1, sizeof *tl);
	tl->boot = boot;
	tl->disks = disk_agent_args(agent, &tl->nr_disks);
	t->data = tl;
	return 0;
}

static void
transport_local_close(struct transport *t)
{
	struct transport_local	*tl = t->data;
	size_t			 i;

	if (tl != NULL) {
		for (i = 0; i < tl->nr_disks; i++)
			free(tl->disks[i]);
		free(tl->disks);
	}
	free(t->data);
	t->data = NULL;
}

static int
transport_local_prepare(const struct transport_job *job, char **cause)
{
	char	*path = NULL;
	int	 r = -1;

	if (transport_run_dir_prepare(job, cause) != 0)
		goto out;
	path = path_join(job->run_dir, "work");
	if (dir_remove_tree(path, cause) != 0)
		goto out;
	if (job->artifact_dir != NULL) {
		if (dir_copy_tree(job->artifact_dir, path, cause) != 0) {
			error_prefix(cause, "couldn't copy the artifacts");
			goto out;
		}
	} else if (dir_create(path, cause) != 0)
		goto out;
	r = 0;
out:
	free(path);
	return r;
}

static int
transport_local_run(struct transport *t, const struct transport_job *job,
    struct result **out, char **cause)
{
	struct strbuf	 sb = STRBUF_INIT;
	struct result	*res = NULL;
	char		*jobpath = NULL, *work = NULL, *resdir = NULL;
	char		*logpath = NULL, *how = NULL, *rcause = NULL;
	char		**argv = NULL;
	const struct transport_local *tl = t->data;
	enum boot_method boot = tl != NULL ? tl->boot : BOOT_NONE;
	double		 deadline;
	pid_t		 pid;
	size_t		 i, k;
	int		 logfd = -1, status, timed_out, r = -1;

	if (transport_local_prepare(job, cause) != 0) {
		error_prefix(cause, "agent '%s': run directory '%s'", t->name,
		    job->run_dir);
		goto out;
	}
	jobpath = path_join(job->run_dir, "job.yaml");
	work = path_join(job->run_dir, "work");
	resdir = path_join(job->run_dir, "result");
	logpath = path_join(job->run_dir, "agent.log");
	logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd == -1) {
		error_errno(cause, "agent '%s': couldn't create '%s'", t->name,
		    logpath);
		goto out;
	}
	argv = xcalloc(9 + 2 * (tl != NULL ? tl->nr_disks : 0), sizeof *argv);
	argv[0] = t->agent_path;
	argv[1] = "run";
	argv[2] = "--workdir";
	argv[3] = work;
	i = 4;
	if (boot != BOOT_NONE) {
		argv[i++] = "--boot";
		argv[i++] = (char *)boot_method_name(boot);
	}
	for (k = 0; tl != NULL && k < tl->nr_disks; k++) {
		argv[i++] = "--disk";
		argv[i++] = tl->disks[k];
	}
	argv[i++] = jobpath;
	argv[i++] = resdir;
	argv[i] = NULL;
	deadline = job->timeout > 0 ? transport_local_now() + job->timeout : 0;
	if (child_spawn(argv, logfd, logfd, SIGTERM, &pid, cause) != 0 ||
	    transport_local_wait(pid, deadline, &status, &timed_out,
	    cause) != 0) {
		error_prefix(cause, "agent '%s'", t->name);
		goto out;
	}
	if (timed_out) {
		strbuf_addf(&sb, "agent '%s': run timed out after %us",
		    t->name, job->timeout);
		file_tail_append(&sb, logpath, LOCAL_LOG_TAIL);
		error_set(cause, "%s", sb.buf);
		goto out;
	}
	if (result_load(resdir, &res, &rcause) != 0) {
		how = transport_local_describe_status(status);
		strbuf_addf(&sb, "agent '%s': bisect-agent %s without a usable "
		    "result (%s)", t->name, how, rcause);
		file_tail_append(&sb, logpath, LOCAL_LOG_TAIL);
		error_set(cause, "%s", sb.buf);
		goto out;
	}
	*out = res;
	res = NULL;
	r = 0;
out:
	if (logfd != -1)
		close(logfd);
	result_free(res);
	strbuf_release(&sb);
	free(argv);
	free(jobpath);
	free(work);
	free(resdir);
	free(logpath);
	free(how);
	free(rcause);
	return r;
}

/* Read both pipes to their end, at most max bytes each, by deadline. */
static int
transport_local_collect(int outfd, int errfd, double deadline,
    struct strbuf *out, struct strbuf *err)
{
	struct pollfd	 pfd[2];
	struct strbuf	*sb[2] = { out, err };
	char		 buf[8192];
	ssize_t		 n;
	double		 left;
	int		 nr_open = 2, i;

	pfd[0].fd = outfd;
	pfd[1].fd = errfd;
	pfd[0].events = pfd[1].events = POLLIN;
	while (nr_open > 0) {
		if ((left = deadline - transport_local_now()) <= 0)
			return -1;
		if (poll(pfd, 2, (int)(left * 1000) + 1) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			n = fd_read(pfd[i].fd, buf, sizeof buf);
			if (n <= 0) {
				pfd[i].fd = -1;
				nr_open--;
				continue;
			}
			if (sb[i]->len < LOCAL_MAX_INFO)
				strbuf_add(sb[i], buf, (size_t)n);
		}
	}
	return 0;
}

static int
transport_local_info(struct transport *t, char **out, char **cause)
{
	struct strbuf	 o = STRBUF_INIT, e = STRBUF_INIT;
	char		*argv[3], *how = NULL;
	double		 deadline;
	pid_t		 pid = -1;
	int		 po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	int		 status, timed_out, r = -1;

	deadline = transport_local_now() + LOCAL_INFO_TIMEOUT;
	if (pipe2(po, O_CLOEXEC) == -1 || pipe2(pe, O_CLOEXEC) == -1) {
		error_errno(cause, "agent '%s': couldn't make a pipe", t->name);
		goto out;
	}
	argv[0] = t->agent_path;
	argv[1] = "info";
	argv[2] = NULL;
	if (child_spawn(argv, po[1], pe[1], SIGTERM, &pid, cause) != 0) {
		error_prefix(cause, "agent '%s'", t->name);
		goto out;
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (transport_local_collect(po[0], pe[0], deadline, &o, &e) != 0)
		kill(pid, SIGKILL);
	if (transport_local_wait(pid, deadline, &status, &timed_out,
	    cause) != 0) {
		error_prefix(cause, "agent '%s'", t->name);
		goto out;
	}
	/*
	 * 126, 127: the program could not be run at all (missing, not
	 * executable, a library it needs missing). No retry changes that:
	 * the agent is refused until its configuration changes.
	 */
	if (!timed_out && WIFEXITED(status) && (WEXITSTATUS(status) == 126 ||
	    WEXITSTATUS(status) == 127)) {
		strbuf_rtrim(&e);
		error_set(cause, "agent '%s': the agent program '%s' cannot be "
		    "run (exit %d%s%s): install it beside bisectd, or name it "
		    "with BISECT_AGENT", t->name, t->agent_path,
		    WEXITSTATUS(status), e.len ? ": " : "", e.buf);
		r = TRANSPORT_REFUSED;
		goto out;
	}
	if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (timed_out)
			how = xasprintf("timed out after %ds",
			    LOCAL_INFO_TIMEOUT);
		else
			how = transport_local_describe_status(status);
		strbuf_rtrim(&e);
		error_set(cause, "agent '%s': bisect-agent info %s%s%s",
		    t->name, how, e.len ? ": " : "", e.buf);
		goto out;
	}
	*out = strbuf_detach(&o, NULL);
	r = 0;
out:
	if (po[0] != -1)
		close(po[0]);
	if (po[1] != -1)
		close(po[1]);
	if (pe[0] != -1)
		close(pe[0]);
	if (pe[1] != -1)
		close(pe[1]);
	strbuf_release(&o);
	strbuf_release(&e);
	free(how);
	return r;
}

const struct transport_ops transport_local_ops = {
	.name = "local",
	.open = transport_local_open,
	.run = transport_local_run,
	.info = transport_local_info,
	.close = transport_local_close,
};
