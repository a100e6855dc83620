/*
 * Build hosts (builders: in the config, docs/config.md): machines that
 * build commits for the scheduler over the ssh transport of agents
 * (agents/ssh-session.c: known_hosts verified, public key, SFTP). Each
 * keeps, under its remote_dir, a bare clone per repository that the
 * scheduler pushes the commits to (a pack made with libgit2, uploaded
 * over SFTP), a checkout per slot (plain, no .git: git read-tree with the
 * slot's own index), a build directory per recipe, and its own ccache:
 *
 *   REMOTE/git/REPO.git			the clone (refs/bisectd/OID)
 *   REMOTE/slots/REPO/K/{tree,index,build-RECIPE,build.sh,pgid}
 *   REMOTE/out/REPO/RECIPE-OID.PID	the artifacts before download
 *   REMOTE/ccache				CCACHE_DIR
 *
 * The artifacts come back over SFTP with the SHA-256 of every file as the
 * builder computed it; a file whose digest differs, or one missing or
 * extra, fails the attempt (it is retried, like a lost connection).
 *
 * The scheduler's view of each builder is a small state file under
 * WORKDIR/builders (NAME.state): up, down (until retry_at: a lost
 * connection, skipped for probe_interval seconds) or refused (the host key
 * or the login was refused), with counts of builds, failed builds and
 * attempts that ended in an error. "local" counts the scheduler's own
 * builds. A slot of a builder is WORKDIR/builders/NAME/K.lock (flock).
 */
#ifndef BISECTD_BUILDER_H
#define BISECTD_BUILDER_H

#include <stdint.h>

#include "bisectd/repo.h"
#include "jobs/config.h"

#define BUILDER_LOCAL	"local"

/* What became of one attempt, for the counts. */
enum builder_count {
	BUILDER_COUNT_NONE = 0,
	BUILDER_COUNT_OK,		/* built */
	BUILDER_COUNT_FAILED,		/* the command failed */
	BUILDER_COUNT_ERROR,		/* an error of the attempt */
};

struct builder_state {
	char	*state;			/* "unknown", "up", "down", "refused" */
	int64_t	 since;
	int64_t	 retry_at;		/* down, refused: skipped until then */
	long	 builds, failed, errors;
	char	*host_key;		/* the key last verified */
	char	*error;			/* why down or refused */
};

/* The state of builder name (or BUILDER_LOCAL); "unknown" with no file. */
int	 builder_state_read(const char *workdir, const char *name,
	     struct builder_state *, char **cause);
void	 builder_state_release(struct builder_state *);
/*
 * Record an attempt's end: state NULL keeps the state (local builds),
 * else it becomes state ("down" and "refused" are retried after
 * retry_after seconds) with error (NULL for none) and host_key (NULL:
 * kept). Best effort: a state that cannot be written is logged.
 */
void	 builder_note(const char *workdir, const char *name,
	     const char *state, const char *error, const char *host_key,
	     int retry_after, enum builder_count);

/* A slot taken on a builder. */
struct builder_slot {
	const struct config_agent	*builder;
	int				 slot;
	int				 lockfd;
};

/*
 * Take a free slot of a builder in service (not down or refused before
 * its retry time), without waiting, skipping the builders in skip
 * (nr_builders flags, or NULL). 0 with *out filled, 1 when none is free.
 */
int	 builder_take(const char *workdir, const struct config_agent *,
	     size_t nr_builders, const char *skip, struct builder_slot *out,
	     char **cause);
void	 builder_slot_release(struct builder_slot *);

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

/* Builds of a repository the scheduler may run at once: local + remote. */
int	 builder_capacity(const struct config *);

#endif
