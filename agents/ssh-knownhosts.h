/*
 * Host keys: which key types known_hosts holds for a host (so that the
 * handshake asks for one of those, as OpenSSH does), the verification of
 * the key a server presented, trust on first use, and the SHA256
 * fingerprint in OpenSSH's notation for messages.
 */
#ifndef AGENTS_SSH_KNOWNHOSTS_H
#define AGENTS_SSH_KNOWNHOSTS_H

#include <libssh2.h>

/* "host" for port 22, "[host]:port" otherwise, as known_hosts names it. */
char	*ssh_knownhosts_name(const char *host, int port);
/*
 * The host key algorithms to offer for a host, best first, limited to the
 * types known_hosts has for it ("ssh-ed25519,rsa-sha2-512,..."), or NULL
 * when it has none (or the file does not exist).
 */
char	*ssh_knownhosts_methods(const char *path, const char *host, int port);
/* "ED25519 key SHA256:base64", the session's host key. */
char	*ssh_knownhosts_fingerprint(LIBSSH2_SESSION *);
/* The same for a key blob (the SSH wire format of a public key). */
char	*ssh_knownhosts_fingerprint_blob(const unsigned char *, size_t);

enum ssh_knownhosts_status {
	SSH_KNOWNHOSTS_MATCH,
	SSH_KNOWNHOSTS_UNKNOWN,		/* no line of the key's type */
	SSH_KNOWNHOSTS_CHANGED,		/* lines of its type, none equal */
	SSH_KNOWNHOSTS_REVOKED,		/* an @revoked line has it */
};

/* Look a key blob up; *missing is set when the file does not exist. */
int	 ssh_knownhosts_lookup(const char *path, const char *host, int port,
	     const unsigned char *blob, size_t len,
	     enum ssh_knownhosts_status *out, int *missing, char **cause);
/* Decode base64 (padded or not); -1 if it is not base64. */
int	 ssh_knownhosts_base64(const char *, size_t, unsigned char **out,
	     size_t *outlen);
/*
 * Check the session's host key against the file. 0 when it matches (or it
 * was unknown, tofu is set, and it was appended to the file); -2
 * (SSH_SESSION_REFUSED) when it is unknown or changed, with a message
 * naming the agent, the host and the key's fingerprint; -1 on other errors.
 */
/*
 * OpenSSH's StrictModes for the file of trusted keys: it (when it exists)
 * and its directory may not be written by group or others (a sticky
 * directory excepted), and it belongs to us or root. -1 with *cause.
 */
int	 ssh_knownhosts_check_mode(const char *path, char **cause);
int	 ssh_knownhosts_verify(LIBSSH2_SESSION *, const char *agent,
	     const char *path, const char *host, int port, int tofu,
	     char **cause);

#endif
