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

#include "agents/ssh-session.h"
#include "agents/transport.h"
#include "util/strbuf.h"

struct ssh_remote;

/* remote_dir: absolute, or relative to the login directory. */
struct ssh_remote *ssh_remote_new(struct ssh_session *, const char *agent,
	    const char *remote_dir, const char *agent_path);
void	 ssh_remote_free(struct ssh_remote *);
struct ssh_session *ssh_remote_session(struct ssh_remote *);
/*
 * Run one job, as transport_run does (docs/agents.md). cancel_fd, if not
 * -1, is a socket whose end of file abandons the run. Thread-safe: runs
 * may share a remote.
 */
int	 ssh_remote_run(struct ssh_remote *, const struct transport_job *,
	     int cancel_fd, char **cause);
int	 ssh_remote_info(struct ssh_remote *, char **out, char **cause);

/* Append s to sb as one shell word: '...' with ' written as '\''. */
void	 ssh_remote_quote(struct strbuf *, const char *);

#endif
