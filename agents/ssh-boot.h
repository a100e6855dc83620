/*
 * boot: kexec over ssh: the daemon's side of the kexec boot method
 * (agents/boot-kexec.c does the sequence) on a test machine reached with
 * the ssh transport, then the job's run there. The connection is the
 * caller's (a transport of its own, or an agent's link): this asks it for
 * the current one and to connect again after the reboot.
 */
#ifndef AGENTS_SSH_BOOT_H
#define AGENTS_SSH_BOOT_H

#include "agents/ssh-remote.h"
#include "agents/transport.h"

struct ssh_boot_conn {
	/* The live connection's remote, or NULL when there is none. */
	struct ssh_remote	*(*remote)(void *arg);
	/*
	 * Drop the current connection and connect once, within limit
	 * seconds: 0, -1 (not now) or SSH_SESSION_REFUSED, with *cause.
	 */
	int			 (*reconnect)(void *arg, unsigned limit,
				     char **cause);
	void			*arg;
};

/*
 * Boot the kernel among the job's artifacts on the machine with kexec,
 * wait for it to come back (reconnecting with a backoff, the host key
 * checked again, within the job's boot_timeout), check that it runs the
 * build's kernel, then run the job as ssh_remote_run does. Like
 * transport_run: 0 when RUN_DIR/result/ holds a result (also in *out when
 * out is not NULL) -- which may say
 * that the kernel did not boot (untestable: the machine came back on its
 * default kernel) or that the run failed (kexec -l refused, the machine
 * runs another kernel than the build's) -- else -1 (the machine is lost)
 * or SSH_SESSION_REFUSED (its host key changed), with *cause.
 */
int	ssh_boot_kexec_run(const struct ssh_boot_conn *, const char *agent,
	    const char *user, const struct transport_job *, int cancel_fd,
	    struct result **out, char **cause);

#endif
