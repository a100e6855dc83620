/*
 * A link: the process that holds an agent's one SSH connection and lends
 * it to the scheduler's short-lived children. The scheduler forks one per
 * ssh agent; a run or probe child asks it, over a Unix socket in the
 * abstract namespace (only the same user may connect), to run a job or to
 * take the inventory. It serves each request in a thread over the shared
 * session, connects when it has no live session, and keeps an idle one
 * alive with pings. A request whose child goes away is abandoned: its
 * channel is closed, which hangs up the remote run.
 */
#ifndef AGENTS_SSH_LINK_H
#define AGENTS_SSH_LINK_H

#include "agents/boot.h"
#include "agents/ssh-session.h"
#include "agents/transport.h"

/* The socket name of an agent's link under a prefix; allocated. */
char	*ssh_link_address(const char *prefix, const char *agent);
int	 ssh_link_listen(const char *address, int *fd, char **cause);
/* Serve until killed; returns only on a setup error. */
int	 ssh_link_serve(int fd, const struct ssh_session_opts *,
	     const char *remote_dir, const char *agent_path, enum boot_method,
	     char *const *disks, size_t nr_disks, char **cause);

/* The client side: 0, -1 or SSH_SESSION_REFUSED, like the transport. */
int	 ssh_link_run(const char *address, const struct transport_job *,
	     char **cause);
int	 ssh_link_info(const char *address, unsigned timeout, char **out,
	     char **cause);

#endif
