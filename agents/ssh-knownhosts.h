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
/*
 * Check the session's host key against the file. 0 when it matches (or it
 * was unknown, tofu is set, and it was appended to the file); -2
 * (SSH_SESSION_REFUSED) when it is unknown or changed, with a message
 * naming the agent, the host and the key's fingerprint; -1 on other errors.
 */
int	 ssh_knownhosts_verify(LIBSSH2_SESSION *, const char *agent,
	     const char *path, const char *host, int port, int tofu,
	     char **cause);

#endif
