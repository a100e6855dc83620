/*
 * What the ssh transport does on a test machine, over one session: lay
 * out its directory, keep the agent binary and the artifact sets there
 * (uploaded once each, named by their SHA-256), run a job and fetch its
 * results, or ask for the inventory. The only commands it executes are
 * built here from fixed words and paths it chose itself, each quoted for
 * the shell; the job's values travel in the uploaded job file.
 */
#ifndef AGENTS_SSH_REMOTE_H
#define AGENTS_SSH_REMOTE_H

#include "agents/boot.h"
#include "agents/ssh-session.h"
#include "agents/transport.h"
#include "util/strbuf.h"

struct ssh_remote;

/* remote_dir: absolute, or relative to the login directory. */
struct ssh_remote *ssh_remote_new(struct ssh_session *, const char *agent,
	    const char *remote_dir, const char *agent_path);
void	 ssh_remote_free(struct ssh_remote *);
/*
 * How runs boot: BOOT_QEMU runs the agent with --boot qemu (it boots the
 * artifacts' kernel in a VM over there). BOOT_KEXEC is the caller's to
 * drive (agents/ssh-boot.c): ssh_remote_run then runs the job as is.
 */
void	 ssh_remote_set_boot(struct ssh_remote *, enum boot_method);
/*
 * The agent's test disks (config 'disks:'), as bisect-agent's --disk
 * arguments (disk_agent_args): every run over there is given them, and
 * bisect-agent makes, mounts and reaps them there as it does locally.
 */
void	 ssh_remote_set_disks(struct ssh_remote *, char *const *disks,
	     size_t nr);
struct ssh_session *ssh_remote_session(struct ssh_remote *);
/*
 * Run one job, as transport_run does (docs/agents.md), the result read
 * from RUN_DIR/result/ in *out when out is not NULL. cancel_fd, if not
 * -1, is a socket whose end of file abandons the run. Thread-safe: runs
 * may share a remote.
 */
int	 ssh_remote_run(struct ssh_remote *, const struct transport_job *,
	     int cancel_fd, struct result **out, char **cause);
/*
 * Both return 0, -1, or SSH_SESSION_REFUSED when the agent program
 * cannot be run over there (exit 126 or 127: not executable, or it or
 * what it needs to start is missing).
 */
int	 ssh_remote_info(struct ssh_remote *, char **out, char **cause);
/*
 * Run argv over there (each word quoted; no terminal), by the deadline;
 * its stdout in *out when out is not NULL. A non-zero exit is an error
 * that carries its stderr.
 */
int	 ssh_remote_exec(struct ssh_remote *, const char *const argv[],
	     char **out, double deadline, char **cause);
/*
 * The artifact set of the local directory dir over there, uploaded first
 * if it is not there yet (by its hash): its remote directory in *out.
 */
int	 ssh_remote_artifacts(struct ssh_remote *, const char *dir,
	     char **out, double deadline, char **cause);

/* Append s to sb as one shell word: '...' with ' written as '\''. */
void	 ssh_remote_quote(struct strbuf *, const char *);

#endif
