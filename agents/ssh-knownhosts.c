/*
 * known_hosts read the way OpenSSH reads it (patterns, globs, negations,
 * hashed names, [host]:port), a line it does not understand skipped: a
 * host's key matches, is unknown, or has CHANGED (docs/design.md, "File
 * notes").
 */
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/ssh-knownhosts.h"
#include "agents/ssh-session.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define KNOWNHOSTS_MAX_SIZE	(16u << 20)

/* Host key algorithms by known_hosts key type, best first. */
static const struct knownhosts_type {
	const char	*type;		/* as in known_hosts and the key blob */
	const char	*methods;	/* libssh2's host key method names */
	const char	*label;		/* as OpenSSH prints it */
} knownhosts_types[] = {
	{ "ssh-ed25519", "ssh-ed25519", "ED25519" },
	{ "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256", "ECDSA" },
	{ "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384", "ECDSA" },
	{ "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521", "ECDSA" },
	{ "ssh-rsa", "rsa-sha2-512,rsa-sha2-256,ssh-rsa", "RSA" },
};

char *
ssh_knownhosts_name(const char *host, int port)
{
	if (port == 22)
		return xstrdup(host);
	return xasprintf("[%s]:%d", host, port);
}

/* Standard base64 with or without padding; -1 on anything else. */
int
ssh_knownhosts_base64(const char *s, size_t len, unsigned char **out,
    size_t *outlen)
{
	unsigned char	*buf;
	char		*padded;
	size_t		 plen, pad = 0;
	int		 n;

	if (len == 0 || len > KNOWNHOSTS_MAX_SIZE)
		return -1;
	while (len > 0 && s[len - 1] == '=') {
		len--;
		pad++;
	}
	if (pad > 2)
		return -1;
	plen = (len + 3) / 4 * 4;
	padded = xmalloc(plen + 1);
	memcpy(padded, s, len);
	memset(padded + len, '=', plen - len);
	padded[plen] = '\0';
	buf = xmalloc(plen / 4 * 3 + 1);
	n = EVP_DecodeBlock(buf, (unsigned char *)padded, (int)plen);
	free(padded);
	if (n < 0 || (size_t)n < plen - len) {
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = (size_t)n - (plen - len);
	return 0;
}

static char *
ssh_knownhosts_base64_encode(const unsigned char *p, size_t len, int pad)
{
	char	*out = xmalloc((len + 2) / 3 * 4 + 1);
	int	 n = EVP_EncodeBlock((unsigned char *)out, p, (int)len);

	if (!pad)
		while (n > 0 && out[n - 1] == '=')
			n--;
	out[n] = '\0';
	return out;
}

/* |1|salt|hash: HMAC-SHA1 of the name under the salt. */
static int
ssh_knownhosts_hashed_match(const char *pattern, size_t len, const char *name)
{
	unsigned char	*salt = NULL, *hash = NULL, mac[EVP_MAX_MD_SIZE];
	const char	*bar;
	size_t		 saltlen, hashlen;
	unsigned int	 maclen = 0;
	int		 match = 0;

	if (len < 4 || strncmp(pattern, "|1|", 3) != 0)
		return 0;
	pattern += 3;
	len -= 3;
	if ((bar = memchr(pattern, '|', len)) == NULL)
		return 0;
	if (ssh_knownhosts_base64(pattern, (size_t)(bar - pattern), &salt,
	    &saltlen) != 0 || ssh_knownhosts_base64(bar + 1,
	    len - (size_t)(bar - pattern) - 1, &hash, &hashlen) != 0)
		goto out;
	if (HMAC(EVP_sha1(), salt, (int)saltlen, (const unsigned char *)name,
	    strlen(name), mac, &maclen) == NULL)
		goto out;
	match = hashlen == maclen && memcmp(hash, mac, maclen) == 0;
out:
	free(salt);
	free(hash);
	return match;
}

/* OpenSSH's patterns: '*' and '?' only (brackets are literal), no case. */
static int
ssh_knownhosts_glob(const char *p, size_t plen, const char *s)
{
	for (; plen > 0; p++, plen--) {
		if (*p == '*') {
			for (;; s++) {
				if (ssh_knownhosts_glob(p + 1, plen - 1, s))
					return 1;
				if (*s == '\0')
					return 0;
			}
		}
		if (*s == '\0')
			return 0;
		if (*p != '?' && tolower((unsigned char)*p) !=
		    tolower((unsigned char)*s))
			return 0;
		s++;
	}
	return *s == '\0';
}

/* Does a comma-separated pattern list name this host (and not negate it)? */
static int
ssh_knownhosts_names_match(const char *patterns, size_t len, const char *name)
{
	const char	*p = patterns, *end = patterns + len, *comma;
	int		 positive = 0, negated = 0, neg, m;
	size_t		 n;

	if (len >= 3 && strncmp(patterns, "|1|", 3) == 0)
		return ssh_knownhosts_hashed_match(patterns, len, name);
	while (p < end) {
		comma = memchr(p, ',', (size_t)(end - p));
		n = comma != NULL ? (size_t)(comma - p) : (size_t)(end - p);
		neg = n > 0 && *p == '!';
		m = ssh_knownhosts_glob(p + neg, n - neg, name);
		if (m && neg)
			negated = 1;
		else if (m)
			positive = 1;
		p += n + (comma != NULL);
	}
	return positive && !negated;
}

static const struct knownhosts_type *
ssh_knownhosts_type_find(const char *type, size_t len)
{
	size_t	i;

	for (i = 0; i < sizeof knownhosts_types / sizeof knownhosts_types[0];
	    i++) {
		if (strlen(knownhosts_types[i].type) == len &&
		    strncmp(knownhosts_types[i].type, type, len) == 0)
			return &knownhosts_types[i];
	}
	return NULL;
}

struct knownhosts_line {
	const char	*marker;	/* "@revoked", "@cert-authority" or "" */
	size_t		 marker_len;
	const char	*names;
	size_t		 names_len;
	const char	*type;
	size_t		 type_len;
	const char	*key;		/* base64 */
	size_t		 key_len;
};

static const char *
ssh_knownhosts_field(const char *p, const char *end, const char **start,
    size_t *len)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*start = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*len = (size_t)(p - *start);
	return p;
}

/* Split one line; 0 for a comment, a blank or a malformed line. */
static int
ssh_knownhosts_line_parse(const char *line, size_t len,
    struct knownhosts_line *l)
{
	const char	*p = line, *end = line + len, *f;
	size_t		 n;

	memset(l, 0, sizeof *l);
	l->marker = "";
	p = ssh_knownhosts_field(p, end, &f, &n);
	if (n == 0 || *f == '#')
		return 0;
	if (*f == '@') {
		l->marker = f;
		l->marker_len = n;
		p = ssh_knownhosts_field(p, end, &f, &n);
	}
	l->names = f;
	l->names_len = n;
	p = ssh_knownhosts_field(p, end, &l->type, &l->type_len);
	ssh_knownhosts_field(p, end, &l->key, &l->key_len);
	return l->names_len > 0 && l->type_len > 0 && l->key_len > 0;
}

/* Call fn for every line of the file that names the host. */
static int
ssh_knownhosts_scan(const char *path, const char *name,
    int (*fn)(const struct knownhosts_line *, void *), void *payload,
    int *missing, char **cause)
{
	struct knownhosts_line	 l;
	struct stat		 st;
	char			*buf = NULL, *p, *nl;
	size_t			 len;
	int			 r = -1;

	*missing = 0;
	if (stat(path, &st) != 0 && errno == ENOENT) {
		*missing = 1;
		return 0;
	}
	if (file_read(path, &buf, &len, cause) != 0)
		return -1;
	if (len > KNOWNHOSTS_MAX_SIZE) {
		error_set(cause, "'%s' is larger than %u bytes", path,
		    KNOWNHOSTS_MAX_SIZE);
		goto out;
	}
	for (p = buf; p < buf + len; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(buf + len - p))) == NULL)
			nl = buf + len;
		if (!ssh_knownhosts_line_parse(p, (size_t)(nl - p), &l))
			continue;
		if (!ssh_knownhosts_names_match(l.names, l.names_len, name))
			continue;
		if (fn(&l, payload) != 0)
			break;
	}
	r = 0;
out:
	free(buf);
	return r;
}

struct knownhosts_methods {
	int	have[sizeof knownhosts_types / sizeof knownhosts_types[0]];
};

static int
ssh_knownhosts_methods_line(const struct knownhosts_line *l, void *payload)
{
	struct knownhosts_methods	*m = payload;
	const struct knownhosts_type	*t;

	if (l->marker_len > 0)
		return 0;
	if ((t = ssh_knownhosts_type_find(l->type, l->type_len)) != NULL)
		m->have[t - knownhosts_types] = 1;
	return 0;
}

char *
ssh_knownhosts_methods(const char *path, const char *host, int port)
{
	struct knownhosts_methods	 m;
	struct strbuf			 sb = STRBUF_INIT;
	char				*name = ssh_knownhosts_name(host, port);
	char				*cause = NULL;
	size_t				 i;
	int				 missing;

	memset(&m, 0, sizeof m);
	if (ssh_knownhosts_scan(path, name, ssh_knownhosts_methods_line, &m,
	    &missing, &cause) != 0)
		free(cause);
	for (i = 0; i < sizeof knownhosts_types / sizeof knownhosts_types[0];
	    i++) {
		if (m.have[i])
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "",
			    knownhosts_types[i].methods);
	}
	free(name);
	if (sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The type name a key blob starts with: uint32 length, then the name. */
static int
ssh_knownhosts_blob_type(const unsigned char *blob, size_t len,
    const char **type, size_t *type_len)
{
	size_t	n;

	if (len < 4)
		return -1;
	n = (size_t)blob[0] << 24 | (size_t)blob[1] << 16 |
	    (size_t)blob[2] << 8 | blob[3];
	if (n == 0 || n > len - 4)
		return -1;
	*type = (const char *)blob + 4;
	*type_len = n;
	return 0;
}

char *
ssh_knownhosts_fingerprint_blob(const unsigned char *blob, size_t len)
{
	const struct knownhosts_type	*t = NULL;
	unsigned char			 md[EVP_MAX_MD_SIZE];
	unsigned int			 mdlen = 0;
	const char			*type;
	size_t				 type_len;
	char				*b64, *s;

	if (ssh_knownhosts_blob_type(blob, len, &type, &type_len) == 0)
		t = ssh_knownhosts_type_find(type, type_len);
	EVP_Digest(blob, len, md, &mdlen, EVP_sha256(), NULL);
	b64 = ssh_knownhosts_base64_encode(md, mdlen, 0);
	s = xasprintf("%s key SHA256:%s", t != NULL ? t->label : "unknown",
	    b64);
	free(b64);
	return s;
}

char *
ssh_knownhosts_fingerprint(LIBSSH2_SESSION *ssh)
{
	const char	*key;
	size_t		 len = 0;
	int		 type;

	if ((key = libssh2_session_hostkey(ssh, &len, &type)) == NULL ||
	    len == 0)
		return xstrdup("no host key");
	return ssh_knownhosts_fingerprint_blob((const unsigned char *)key, len);
}

struct knownhosts_check {
	const unsigned char	*blob;
	size_t			 len;
	const char		*type;
	size_t			 type_len;
	int			 same_type;	/* lines of the key's type */
	int			 match;
	int			 revoked;
};

static int
ssh_knownhosts_check_line(const struct knownhosts_line *l, void *payload)
{
	struct knownhosts_check	*c = payload;
	unsigned char		*key = NULL;
	size_t			 len;
	int			 equal;

	if (ssh_knownhosts_base64(l->key, l->key_len, &key, &len) != 0)
		return 0;
	equal = len == c->len && memcmp(key, c->blob, len) == 0;
	free(key);
	if (l->marker_len == 8 && strncmp(l->marker, "@revoked", 8) == 0) {
		c->revoked |= equal;
		return 0;
	}
	if (l->marker_len > 0)
		return 0;
	if (l->type_len != c->type_len ||
	    strncmp(l->type, c->type, c->type_len) != 0)
		return 0;
	c->same_type = 1;
	c->match |= equal;
	return 0;
}

/* Append "NAME TYPE BASE64" to the file, creating it (0600) if needed. */
static int
ssh_knownhosts_append(const char *path, const char *name,
    const struct knownhosts_check *c, char **cause)
{
	char	*b64 = ssh_knownhosts_base64_encode(c->blob, c->len, 1);
	char	*line = xasprintf("%s %.*s %s\n", name, (int)c->type_len,
		    c->type, b64);
	size_t	 len = strlen(line);
	ssize_t	 n;
	int	 fd, r = -1;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1) {
		error_errno(cause, "couldn't open '%s'", path);
		goto out;
	}
	n = write(fd, line, len);
	if (n != (ssize_t)len || fsync(fd) != 0) {
		error_errno(cause, "couldn't append to '%s'", path);
		close(fd);
		goto out;
	}
	if (close(fd) != 0) {
		error_errno(cause, "couldn't write '%s'", path);
		goto out;
	}
	r = 0;
out:
	free(b64);
	free(line);
	return r;
}

int
ssh_knownhosts_lookup(const char *path, const char *host, int port,
    const unsigned char *blob, size_t len, enum ssh_knownhosts_status *out,
    int *missing, char **cause)
{
	struct knownhosts_check	 c;
	char			*name = ssh_knownhosts_name(host, port);
	int			 r = -1;

	memset(&c, 0, sizeof c);
	c.blob = blob;
	c.len = len;
	if (ssh_knownhosts_blob_type(blob, len, &c.type, &c.type_len) != 0) {
		error_set(cause, "'%s' presented a malformed host key", name);
		goto out;
	}
	if (ssh_knownhosts_scan(path, name, ssh_knownhosts_check_line, &c,
	    missing, cause) != 0)
		goto out;
	if (c.revoked)
		*out = SSH_KNOWNHOSTS_REVOKED;
	else if (c.match)
		*out = SSH_KNOWNHOSTS_MATCH;
	else if (c.same_type)
		*out = SSH_KNOWNHOSTS_CHANGED;
	else
		*out = SSH_KNOWNHOSTS_UNKNOWN;
	r = 0;
out:
	free(name);
	return r;
}

int
ssh_knownhosts_check_mode(const char *path, char **cause)
{
	struct stat	 st;
	char		*dir = NULL, *slash;
	int		 r = -1;

	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return error_set(cause, "'%s' is not a regular file",
			    path);
		if (st.st_uid != geteuid() && st.st_uid != 0)
			return error_set(cause, "'%s' belongs to uid %u, not to "
			    "us or root: refusing to trust its host keys",
			    path, (unsigned)st.st_uid);
		if ((st.st_mode & 022) != 0)
			return error_set(cause, "'%s' may be written by others "
			    "(mode %04o): refusing to trust its host keys; "
			    "chmod go-w it", path,
			    (unsigned)(st.st_mode & 07777));
	} else if (errno != ENOENT)
		return error_errno(cause, "'%s'", path);
	/* whoever may write the directory may replace the file */
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) != 0) {
		error_errno(cause, "the directory of '%s'", path);
		goto out;
	}
	if ((st.st_mode & 022) != 0 && !(st.st_mode & S_ISVTX)) {
		error_set(cause, "the directory '%s' of '%s' may be written by "
		    "others (mode %04o): refusing to trust its host keys",
		    dir, path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	r = 0;
out:
	free(dir);
	return r;
}

int
ssh_knownhosts_verify(LIBSSH2_SESSION *ssh, const char *agent,
    const char *path, const char *host, int port, int tofu, char **cause)
{
	enum ssh_knownhosts_status	 st;
	struct knownhosts_check		 c;
	const char			*key;
	char				*name = ssh_knownhosts_name(host, port);
	char				*fp = NULL;
	size_t				 len = 0;
	int				 type, missing = 0, r = -1;

	memset(&c, 0, sizeof c);
	key = libssh2_session_hostkey(ssh, &len, &type);
	if (key == NULL || len == 0) {
		error_set(cause, "agent '%s': '%s' presented no host key",
		    agent, name);
		goto out;
	}
	c.blob = (const unsigned char *)key;
	c.len = len;
	if (ssh_knownhosts_check_mode(path, cause) != 0) {
		error_prefix(cause, "agent '%s': known_hosts", agent);
		r = SSH_SESSION_REFUSED;
		goto out;
	}
	if (ssh_knownhosts_lookup(path, host, port, c.blob, c.len, &st,
	    &missing, cause) != 0) {
		error_prefix(cause, "agent '%s': known_hosts", agent);
		goto out;
	}
	ssh_knownhosts_blob_type(c.blob, c.len, &c.type, &c.type_len);
	fp = ssh_knownhosts_fingerprint_blob(c.blob, c.len);
	switch (st) {
	case SSH_KNOWNHOSTS_MATCH:
		r = 0;
		break;
	case SSH_KNOWNHOSTS_REVOKED:
		error_set(cause, "agent '%s': the host key of '%s' (%s) is "
		    "marked @revoked in '%s': refusing to connect", agent,
		    name, fp, path);
		r = SSH_SESSION_REFUSED;
		break;
	case SSH_KNOWNHOSTS_CHANGED:
		error_set(cause, "agent '%s': the host key of '%s' has CHANGED "
		    "(%s is not the one in '%s'): refusing to connect, this "
		    "may be a man-in-the-middle attack; if the machine was "
		    "reinstalled, replace its line in '%s'", agent, name, fp,
		    path, path);
		r = SSH_SESSION_REFUSED;
		break;
	case SSH_KNOWNHOSTS_UNKNOWN:
		if (!tofu) {
			error_set(cause, "agent '%s': the host key of '%s' (%s) "
			    "is not in '%s'%s: refusing to connect; add the "
			    "host's key there (ssh-keyscan, checked out of "
			    "band), or set trust_on_first_use: true", agent,
			    name, fp, path, missing ? ", which does not exist" :
			    "");
			r = SSH_SESSION_REFUSED;
			break;
		}
		if (ssh_knownhosts_append(path, name, &c, cause) != 0) {
			error_prefix(cause, "agent '%s': trusting '%s' on first "
			    "use", agent, name);
			break;
		}
		r = 0;
		break;
	}
out:
	free(name);
	free(fp);
	return r;
}
