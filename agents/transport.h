/*
 * Reaching an agent from the daemon: "local" runs bisect-agent as a child
 * process on this machine; "ssh" (libssh2) uploads the job and artifacts to
 * a test machine, runs it there and fetches the results. A transport_run
 * call blocks; the scheduler calls it from a child process of its own.
 */
#ifndef AGENTS_TRANSPORT_H
#define AGENTS_TRANSPORT_H

#include "jobs/config.h"
#include "jobs/job.h"

struct result;
struct transport;

struct transport_job {
	const char	*run_dir;	/* local: job.yaml, log, result/ */
	const char	*job_text;	/* the job's canonical text */
	const char	*artifact_dir;	/* the build's artifacts, or NULL */
	unsigned	 timeout;	/* seconds for the whole run; 0: none */
};

/*
 * A permanent failure of transport_open, transport_run or transport_info:
 * the agent is refused (its host key is unknown or changed, its key is
 * refused or unusable). Retrying cannot help until the configuration or
 * the machine changes. Any other failure returns -1.
 */
#define TRANSPORT_REFUSED	(-2)

/* agent_path: the bisect-agent binary to run (or upload). */
int	transport_open(const struct config_agent *, const char *agent_path,
	    struct transport **out, char **cause);
/*
 * Run one job. On 0, RUN_DIR/result/ holds the agent's results (which may
 * themselves record a failed testcase) and *out, when out is not NULL, the
 * result as read from there: the caller's to free, not to be read again.
 * -1 means the run could not be carried out (the agent or the connection
 * failed); *cause says why.
 */
int	transport_run(struct transport *, const struct transport_job *,
	    struct result **out, char **cause);
/*
 * RUN_DIR made ready for an attempt: created, the job file written in it
 * as job.yaml, and no result left from an earlier attempt.
 */
int	transport_run_dir_prepare(const struct transport_job *, char **cause);
/*
 * Timeouts, in seconds: the one rule, in agents/transport-timeout.c. The
 * agent stops a testcase after transport_timeout_testcase: the job's
 * timeout:, else 3 * runtime + 60, else (or for no job: NULL) an hour.
 * transport_timeout_run adds a margin for copying the artifacts and the
 * agent's own kill grace, so that a hanging testcase is recorded by the
 * agent as timed out instead of the run failing in the transport.
 */
unsigned transport_timeout_testcase(const struct job *);
unsigned transport_timeout_run(const struct job *);
/*
 * What booting adds to a run of this agent (NULL: none): for boot: qemu
 * the job's boot_timeout (the guest's boot); for boot: kexec the
 * boot_timeout, the wait for the machine's default kernel after a boot
 * that failed (TRANSPORT_KEXEC_FALLBACK) and the kexec steps; 0 for
 * agents that do not boot, or no job. transport_timeout_agent_run is the
 * whole run's limit for this agent, the transport_job's timeout: the
 * testcase's, the agent's run_margin (when set, else the fixed margin of
 * transport_timeout_run) and the boot's.
 */
#define TRANSPORT_KEXEC_FALLBACK	300	/* seconds */
unsigned transport_timeout_boot(const struct config_agent *,
	    const struct job *);
unsigned transport_timeout_agent_run(const struct config_agent *,
	    const struct job *);
/* The agent's inventory ("bisect-agent info"), as key value lines. */
int	transport_info(struct transport *, char **out, char **cause);
void	transport_close(struct transport *);

/*
 * Connection reuse. A scheduler calls transport_link_setup once, then for
 * each agent that transport_link_wanted says needs one, creates a
 * listening socket (transport_link_listen) and forks a child that calls
 * transport_link_serve on it: that child holds the agent's connection.
 * Transports opened afterwards in this process or its children send their
 * work to the links; elsewhere each transport connects by itself.
 */
int	transport_link_setup(char **cause);
/* Back to connecting by itself (the scheduler is done). */
void	transport_link_clear(void);
int	transport_link_wanted(const struct config_agent *);
int	transport_link_listen(const struct config_agent *, int *fd,
	    char **cause);
/* Serve until killed; returns only on a setup error. */
int	transport_link_serve(int fd, const struct config_agent *,
	    const char *agent_path, char **cause);

#endif
