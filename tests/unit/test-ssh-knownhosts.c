/*
 * Unit tests for agents/ssh-knownhosts.c with keys made by ssh-keygen:
 * names with ports, plain, glob, negated and hashed host patterns,
 * brackets taken literally, a match, a changed key, an unknown one, a
 * revoked one, lines that are not understood and skipped, the host key
 * methods offered for a host, base64 with and without padding, and
 * fingerprints that agree with ssh-keygen -l.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/ssh-knownhosts.h"
#include "tests/unit/tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char	*tmp;

/* A fresh public key: "TYPE BASE64", and its blob. */
static char *
keygen(const char *type, const char *name, unsigned char **blob, size_t *len)
{
	char	*cmd, *path, *buf = NULL, *sp;

	path = path_join(tmp, name);
	cmd = xasprintf("ssh-keygen -q -t %s -N '' -C x -f '%s' </dev/null",
	    type, path);
	if (system(cmd) != 0)
		diag("ssh-keygen -t %s failed", type);
	free(cmd);
	cmd = xasprintf("%s.pub", path);
	file_read(cmd, &buf, NULL, NULL);
	free(cmd);
	free(path);
	if (buf == NULL)
		return xstrdup("none none");
	if ((sp = strchr(buf, ' ')) != NULL && (sp = strchr(sp + 1, ' ')) !=
	    NULL)
		*sp = '\0';
	sp = strchr(buf, ' ');
	if (ssh_knownhosts_base64(sp + 1, strlen(sp + 1), blob, len) != 0)
		diag("base64 of %s failed", name);
	return buf;
}

static char *
fingerprint(const char *name)
{
	char	 line[512], *cmd, *p, *fp = NULL;
	FILE	*f;

	cmd = xasprintf("ssh-keygen -l -f '%s/%s.pub'", tmp, name);
	if ((f = popen(cmd, "r")) != NULL) {
		if (fgets(line, sizeof line, f) != NULL &&
		    (p = strchr(line, ' ')) != NULL) {
			fp = xstrdup(p + 1);
			if ((p = strchr(fp, ' ')) != NULL)
				*p = '\0';
		}
		pclose(f);
	}
	free(cmd);
	return fp != NULL ? fp : xstrdup("?");
}

static int
lookup(const char *file, const char *host, int port, const unsigned char *blob,
    size_t len)
{
	enum ssh_knownhosts_status	 st;
	char				*cause = NULL;
	int				 missing;

	if (ssh_knownhosts_lookup(file, host, port, blob, len, &st, &missing,
	    &cause) != 0) {
		diag("lookup: %s", cause);
		free(cause);
		return -1;
	}
	return missing ? 100 + (int)st : (int)st;
}

static void
test_names(void)
{
	char	*n;

	n = ssh_knownhosts_name("10.0.0.1", 22);
	is_str(n, "10.0.0.1", "port 22: the bare name");
	free(n);
	n = ssh_knownhosts_name("10.0.0.1", 2222);
	is_str(n, "[10.0.0.1]:2222", "another port: [host]:port");
	free(n);
}

static void
test_base64(void)
{
	unsigned char	*out = NULL;
	size_t		 len = 0;

	ok(ssh_knownhosts_base64("YQ==", 4, &out, &len) == 0 && len == 1 &&
	    out[0] == 'a', "two padding characters");
	free(out);
	ok(ssh_knownhosts_base64("YWI=", 4, &out, &len) == 0 && len == 2 &&
	    memcmp(out, "ab", 2) == 0, "one padding character");
	free(out);
	ok(ssh_knownhosts_base64("YWI", 3, &out, &len) == 0 && len == 2 &&
	    memcmp(out, "ab", 2) == 0, "no padding");
	free(out);
	ok(ssh_knownhosts_base64("YWJj", 4, &out, &len) == 0 && len == 3,
	    "a whole quantum");
	free(out);
	ok(ssh_knownhosts_base64("Y!==", 4, &out, &len) != 0, "not base64");
	ok(ssh_knownhosts_base64("Y===", 4, &out, &len) != 0,
	    "too much padding");
}

static void
test_lookup(void)
{
	unsigned char	*ed = NULL, *ed2 = NULL, *rsa = NULL, *ec = NULL;
	size_t		 edlen = 0, ed2len = 0, rsalen = 0, eclen = 0;
	char		*k_ed, *k_ed2, *k_rsa, *k_ec, *file, *text, *hashed;
	char		*cmd, *m, *fp, *want;

	k_ed = keygen("ed25519", "ed", &ed, &edlen);
	k_ed2 = keygen("ed25519", "ed2", &ed2, &ed2len);
	k_rsa = keygen("rsa", "rsa", &rsa, &rsalen);
	k_ec = keygen("ecdsa", "ec", &ec, &eclen);
	file = path_join(tmp, "known_hosts");

	ok(lookup(file, "10.0.0.1", 22, ed, edlen) ==
	    100 + SSH_KNOWNHOSTS_UNKNOWN, "no file: unknown, and missing");

	/* a hashed line for hashed.example, made by ssh-keygen -H */
	hashed = path_join(tmp, "hashed");
	text = xasprintf("hashed.example %s\n", k_ec);
	file_write_atomic(hashed, text, strlen(text), NULL);
	free(text);
	cmd = xasprintf("ssh-keygen -q -H -f '%s' >/dev/null 2>&1", hashed);
	if (system(cmd) != 0)
		diag("ssh-keygen -H failed");
	free(cmd);
	text = NULL;
	file_read(hashed, &text, NULL, NULL);
	ok(text != NULL && strncmp(text, "|1|", 3) == 0, "a hashed line");

	m = xasprintf(
	    "# a comment\n"
	    "\n"
	    "10.0.0.1 %s\n"
	    "[10.0.0.1]:2222 %s\n"
	    "*.lab,!bad.lab %s\n"
	    "bad.lab %s\n"
	    "[10.0.0.?]:22 %s\n"
	    "this line is not understood\n"
	    "10.0.0.9 sk-ssh-ed25519@openssh.com AAAAnotakey\n"
	    "@cert-authority 10.0.0.1 %s\n"
	    "@revoked revoked.host %s\n"
	    "revoked.host %s\n"
	    "%s",
	    k_ed, k_rsa, k_ed, k_ed2, k_ed2, k_ed2, k_ed, k_ed,
	    text != NULL ? text : "");
	file_write_atomic(file, m, strlen(m), NULL);
	free(m);

	is_int(lookup(file, "10.0.0.1", 22, ed, edlen), SSH_KNOWNHOSTS_MATCH,
	    "the key on its line matches");
	is_int(lookup(file, "10.0.0.1", 22, ed2, ed2len),
	    SSH_KNOWNHOSTS_CHANGED, "another key of that type has changed");
	is_int(lookup(file, "10.0.0.1", 22, rsa, rsalen),
	    SSH_KNOWNHOSTS_UNKNOWN, "a key of another type is unknown");
	is_int(lookup(file, "10.0.0.1", 2222, rsa, rsalen),
	    SSH_KNOWNHOSTS_MATCH, "[host]:port names the other port");
	is_int(lookup(file, "10.0.0.1", 2222, ed, edlen),
	    SSH_KNOWNHOSTS_UNKNOWN, "the bare name is not for port 2222");
	is_int(lookup(file, "box.lab", 22, ed, edlen), SSH_KNOWNHOSTS_MATCH,
	    "a glob matches");
	is_int(lookup(file, "BOX.LAB", 22, ed, edlen), SSH_KNOWNHOSTS_MATCH,
	    "names are case-insensitive");
	is_int(lookup(file, "bad.lab", 22, ed, edlen), SSH_KNOWNHOSTS_CHANGED,
	    "a negated name is not matched by the glob");
	is_int(lookup(file, "bad.lab", 22, ed2, ed2len), SSH_KNOWNHOSTS_MATCH,
	    "its own line matches");
	is_int(lookup(file, "10.0.0.5", 22, ed2, ed2len),
	    SSH_KNOWNHOSTS_UNKNOWN, "brackets are literal, not a class");
	is_int(lookup(file, "revoked.host", 22, ed, edlen),
	    SSH_KNOWNHOSTS_REVOKED, "@revoked wins over a matching line");
	is_int(lookup(file, "hashed.example", 22, ec, eclen),
	    SSH_KNOWNHOSTS_MATCH, "a hashed name matches");
	is_int(lookup(file, "other.example", 22, ec, eclen),
	    SSH_KNOWNHOSTS_UNKNOWN, "a hashed name is only its host");

	m = ssh_knownhosts_methods(file, "10.0.0.1", 22);
	is_str(m, "ssh-ed25519", "methods: the types known for the host");
	free(m);
	m = ssh_knownhosts_methods(file, "10.0.0.1", 2222);
	is_str(m, "rsa-sha2-512,rsa-sha2-256,ssh-rsa", "methods for RSA");
	free(m);
	m = ssh_knownhosts_methods(file, "hashed.example", 22);
	is_str(m, "ecdsa-sha2-nistp256", "methods from a hashed line");
	free(m);
	m = ssh_knownhosts_methods(file, "nowhere", 22);
	ok(m == NULL, "no line: no preference");
	free(m);

	fp = ssh_knownhosts_fingerprint_blob(ed, edlen);
	m = fingerprint("ed");
	want = xasprintf("ED25519 key %s", m);
	is_str(fp, want, "the fingerprint is ssh-keygen's");
	free(fp);
	free(want);
	free(m);
	fp = ssh_knownhosts_fingerprint_blob(rsa, rsalen);
	m = fingerprint("rsa");
	want = xasprintf("RSA key %s", m);
	is_str(fp, want, "an RSA key's fingerprint");
	free(fp);
	free(want);
	free(m);

	free(k_ed);
	free(k_ed2);
	free(k_rsa);
	free(k_ec);
	free(ed);
	free(ed2);
	free(rsa);
	free(ec);
	free(file);
	free(hashed);
	free(text);
}

/* StrictModes: who may write the file or its directory decides the keys. */
static void
test_mode(void)
{
	char	 dir[] = "/tmp/test-knownhosts-mode.XXXXXX", *file, *cause = NULL;
	int	 fd;

	if (!ok(mkdtemp(dir) != NULL, "a directory"))
		return;
	chmod(dir, 0700);
	file = xasprintf("%s/known_hosts", dir);
	ok(ssh_knownhosts_check_mode(file, &cause) == 0,
	    "a file not yet there, in a private directory: fine");
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	close(fd);
	chmod(file, 0644);
	ok(ssh_knownhosts_check_mode(file, &cause) == 0, "mode 0644: fine");
	chmod(file, 0666);
	ok(ssh_knownhosts_check_mode(file, &cause) == -1 && cause != NULL &&
	    strstr(cause, "may be written by others (mode 0666)") != NULL,
	    "mode 0666: refused");
	free(cause);
	cause = NULL;
	chmod(file, 0620);
	ok(ssh_knownhosts_check_mode(file, &cause) == -1,
	    "group-writable: refused");
	free(cause);
	cause = NULL;
	chmod(file, 0644);
	chmod(dir, 0777);
	ok(ssh_knownhosts_check_mode(file, &cause) == -1 && cause != NULL &&
	    strstr(cause, "the directory") != NULL,
	    "a directory anyone may write: refused");
	free(cause);
	cause = NULL;
	chmod(dir, 01777);
	ok(ssh_knownhosts_check_mode(file, &cause) == 0,
	    "a sticky directory (like /tmp): fine");
	chmod(dir, 0700);
	unlink(file);
	rmdir(dir);
	free(file);
	free(cause);
}

int
main(void)
{
	char	 templ[] = "/tmp/test-ssh-knownhosts.XXXXXX";
	char	*cmd;

	if (system("ssh-keygen -? >/dev/null 2>&1; command -v ssh-keygen "
	    ">/dev/null") != 0) {
		printf("1..0 # skip no ssh-keygen\n");
		return 0;
	}
	tmp = mkdtemp(templ);
	test_names();
	test_base64();
	test_lookup();
	cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("couldn't remove %s", tmp);
	free(cmd);
	test_mode();
	return tap_done();
}
