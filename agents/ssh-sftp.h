/*
 * File transfer over a session's SFTP channel: directories, uploads, renames
 * and downloads of a tree, each under the session's SFTP lock for its whole
 * operation and by an absolute deadline (0: none). What comes back from the
 * agent is untrusted: a download keeps only plain names of regular files and
 * directories, within limits, under a fresh local directory (docs/agents.md).
 */
#ifndef AGENTS_SSH_SFTP_H
#define AGENTS_SSH_SFTP_H

#include <stddef.h>

#include "agents/ssh-session.h"

#define SSH_SFTP_MAX_BYTES	(256ull << 20)	/* per download */
#define SSH_SFTP_MAX_FILES	10000
#define SSH_SFTP_MAX_DEPTH	8

/* mkdir; an existing directory is fine. */
int	ssh_sftp_mkdir(struct ssh_session *, const char *path, int mode,
	    double deadline, char **cause);
/* mkdir -p. */
int	ssh_sftp_mkdir_p(struct ssh_session *, const char *path, int mode,
	    double deadline, char **cause);
/* *exists = 0 when the path does not exist; else its size and mode. */
int	ssh_sftp_stat(struct ssh_session *, const char *path, int *exists,
	    unsigned long long *size, unsigned long *mode, double deadline,
	    char **cause);
int	ssh_sftp_realpath(struct ssh_session *, const char *path, char **out,
	    double deadline, char **cause);
int	ssh_sftp_put_buffer(struct ssh_session *, const void *, size_t,
	    const char *remote, int mode, double deadline, char **cause);
int	ssh_sftp_put_file(struct ssh_session *, const char *local,
	    const char *remote, int mode, double deadline, char **cause);
/*
 * Upload the regular files and directories under local into remote (which
 * must not exist). A symbolic link or any other kind of file is refused.
 */
int	ssh_sftp_put_tree(struct ssh_session *, const char *local,
	    const char *remote, double deadline, char **cause);
/* Rename; *exists is set (and 0 returned) when to exists already. */
int	ssh_sftp_rename(struct ssh_session *, const char *from, const char *to,
	    int *exists, double deadline, char **cause);
/*
 * Download the tree remote into local (created; it must not exist). Other
 * kinds of file than regular files and directories are skipped; *skipped
 * counts them.
 */
int	ssh_sftp_get_tree(struct ssh_session *, const char *remote,
	    const char *local, int *skipped, double deadline, char **cause);
/* Is this a name a download accepts? */
int	ssh_sftp_name_ok(const char *, size_t);

#endif
