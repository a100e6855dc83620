/*
 * Build hosts (builders: in the config, docs/config.md): machines that
 * build commits for the scheduler over the ssh transport of agents, each
 * with a bare clone per repository, a checkout per slot and its own ccache;
 * the artifacts come back over SFTP checked against the builder's SHA-256.
 * The remote layout is in docs/design.md, "File notes".
 */
#ifndef BISECTD_BUILDER_H
#define BISECTD_BUILDER_H

#include "bisectd/builder-slot.h"
#include "bisectd/builder-state.h"
#include "bisectd/repo.h"
#include "jobs/config.h"

/* One build on a builder (bisectd/build.c fills it). */
struct builder_job {
	const struct builder_slot	*slot;
	const struct config_repo	*repo;
	struct repo			*git;
	const char			*oid;
	const char			*recipe;
	const char			*fragment;	/* job's kconfig, NULL */
	int				 kernel;
	const char			*tmp;		/* the local directory
							   the artifacts land
							   in (must not exist) */
	int				 logfd;
};

struct builder_result {
	int	 exit_status;		/* the command's, when it ran */
	int	 signal;		/* killed by this signal: 0 */
	char	*failure;		/* a failed build: why, else NULL */
	char	*missing;		/* the artifact not found, or NULL */
	char	*kernel_release;	/* include/config/kernel.release */
	char	*host_key;
};

/*
 * Build on the builder: push the commit, check it out, configure a
 * kernel, run the command, collect and download the artifacts into
 * job->tmp with their digests checked. Returns 0 when the build ran to an
 * outcome (res->failure NULL: the artifacts are in tmp), -1 with *cause
 * when the attempt failed (connection, digest, remote error: try again
 * elsewhere), SSH_SESSION_REFUSED when the builder refused us (host key,
 * login). *connected tells whether the session was opened.
 */
int	 builder_build(const struct builder_job *, struct builder_result *,
	     int *connected, char **cause);
void	 builder_result_release(struct builder_result *);

#endif
