/*
 * Unit tests for the pieces of the ssh transport that need no sshd: shell
 * quoting (every word survives a round trip through /bin/sh, whatever it
 * holds), the names a download accepts, the agent config keys and their
 * errors, the inventory fields the scheduler matches requires: against,
 * and a link process (agents/ssh-link.c) serving its clients when the
 * agent cannot be reached: a refused key comes back as TRANSPORT_REFUSED,
 * an unreachable host as a plain failure, with the reason.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/ssh-link.h"
#include "agents/ssh-remote.h"
#include "agents/ssh-sftp.h"
#include "agents/transport.h"
#include "bisectd/worker.h"
#include "jobs/config.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* What /bin/sh makes of the quoted word: it must be the word itself. */
static char *
shell_echo(const char *word)
{
	struct strbuf	 cmd = STRBUF_INIT, out = STRBUF_INIT;
	char		 buf[256];
	size_t		 n;
	FILE		*f;

	strbuf_addstr(&cmd, "printf '%s|' ");
	ssh_remote_quote(&cmd, word);
	if ((f = popen(cmd.buf, "r")) != NULL) {
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			strbuf_add(&out, buf, n);
		pclose(f);
	}
	strbuf_release(&cmd);
	if (out.len > 0 && out.buf[out.len - 1] == '|')
		out.buf[--out.len] = '\0';
	return strbuf_detach(&out, NULL);
}

static void
test_quote(void)
{
	static const char	*words[] = {
		"plain", "", "it's", "'", "''", "$(touch /tmp/pwned)",
		"; rm -rf ~", "`id`", "a\nb", "back\\slash", "\"dq\"",
		"$HOME", "*", "~", "a b  c", "-n", "'$(x)'\\'",
	};
	struct strbuf		 sb = STRBUF_INIT;
	char			*got;
	size_t			 i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		got = shell_echo(words[i]);
		is_str(got, words[i], "quoted word %zu survives /bin/sh", i);
		free(got);
	}
	ssh_remote_quote(&sb, "it's");
	is_str(sb.buf, "'it'\\''s'", "the quoting itself");
	strbuf_release(&sb);
}

static void
test_names(void)
{
	ok(ssh_sftp_name_ok("result", 6), "a plain name");
	ok(ssh_sftp_name_ok("-rf", 3), "a name starting with a dash");
	ok(ssh_sftp_name_ok("...", 3), "three dots is a name");
	ok(!ssh_sftp_name_ok(".", 1), "not '.'");
	ok(!ssh_sftp_name_ok("..", 2), "not '..'");
	ok(!ssh_sftp_name_ok("a/b", 3), "not with a slash");
	ok(!ssh_sftp_name_ok("a\0b", 3), "not with a NUL");
	ok(!ssh_sftp_name_ok("", 0), "not empty");
}

static void
test_config(void)
{
	static const char	*ok_text =
	    "agents:\n"
	    "  - name: a\n"
	    "    transport: ssh\n"
	    "    host: h\n"
	    "    user: u\n"
	    "    identity: id\n"
	    "    known_hosts: kh\n"
	    "    connect_timeout: 5\n"
	    "    keepalive: 2\n"
	    "    silence_timeout: 7\n"
	    "    remote_dir: /scratch/bisectd\n"
	    "    probe_interval: 30\n"
	    "    run_margin: 600\n"
	    "  - name: b\n"
	    "    transport: ssh\n"
	    "    host: h\n"
	    "    user: u\n"
	    "    identity: id\n"
	    "    known_hosts: kh\n";
	static const char	*bad_text =
	    "agents:\n"
	    "  - name: a\n"
	    "    transport: ssh\n"
	    "    host: h\n"
	    "    user: u\n"
	    "    identity: id\n"
	    "    known_hosts: kh\n"
	    "    keepalive: 10\n"
	    "    silence_timeout: 10\n";
	static const char	*local_text =
	    "agents:\n"
	    "  - name: l\n"
	    "    keepalive: 10\n";
	struct config		*cfg = NULL;
	char			*cause = NULL;

	ok(config_parse("c.yaml", "/d", ok_text, strlen(ok_text), &cfg,
	    &cause) == 0, "the ssh keys parse");
	if (cfg != NULL) {
		is_int(cfg->agents[0].connect_timeout, 5, "connect_timeout");
		is_int(cfg->agents[0].keepalive, 2, "keepalive");
		is_int(cfg->agents[0].silence_timeout, 7, "silence_timeout");
		is_str(cfg->agents[0].remote_dir, "/scratch/bisectd",
		    "remote_dir stays as written (it is on the agent)");
		is_int(cfg->agents[0].probe_interval, 30, "probe_interval");
		is_int(cfg->agents[0].run_margin, 600, "run_margin");
		is_int(cfg->agents[1].connect_timeout, 10, "default connect");
		is_int(cfg->agents[1].keepalive, 10, "default keepalive");
		is_int(cfg->agents[1].silence_timeout, 30, "default silence");
		is_str(cfg->agents[1].remote_dir, ".bisectd", "default dir");
		is_int(cfg->agents[1].probe_interval, 60, "default probes");
		is_int(cfg->agents[1].run_margin, 120, "default margin");
	}
	config_free(cfg);
	cfg = NULL;
	ok(config_parse("c.yaml", "/d", bad_text, strlen(bad_text), &cfg,
	    &cause) != 0, "a silence no longer than the keepalive is refused");
	is_str(cause, "c.yaml:9:22: 'silence_timeout' (10s) must be longer "
	    "than 'keepalive' (10s) on agent 'a'", "and the error says why");
	free(cause);
	cause = NULL;
	ok(config_parse("c.yaml", "/d", local_text, strlen(local_text), &cfg,
	    &cause) != 0, "keepalive only applies to ssh");
	is_str(cause, "c.yaml:3:5: 'keepalive' only applies to transport "
	    "'ssh' (agent 'l' is local)", "named");
	free(cause);
}

static void
test_inventory(void)
{
	unsigned long long	memory;
	unsigned		nr_node, nr_cpu;

	worker_inventory_parse("hostname ivb44\nmodel Intel Xeon\n"
	    "nr_cpu 48\nmemory 64G 68719476736\nnr_node 2\n"
	    "node0.memory 32G 34359738368\n", &nr_node, &nr_cpu, &memory);
	is_int(nr_node, 2, "nr_node");
	is_int(nr_cpu, 48, "nr_cpu");
	ok(memory == 68719476736ULL, "memory in bytes, the second field");
	worker_inventory_parse("kernel 6.1\n", &nr_node, &nr_cpu, &memory);
	ok(nr_node == 0 && nr_cpu == 0 && memory == 0, "missing keys are 0");
}

/* A link for an agent nobody answers for: its errors reach the client. */
static void
test_link(const char *tmp)
{
	struct ssh_session_opts	 o;
	struct transport_job	 job;
	char			*address, *key, *kh, *cause = NULL, *out = NULL;
	pid_t			 pid;
	int			 fd = -1, status, r;

	key = path_join(tmp, "id");
	kh = path_join(tmp, "known_hosts");
	file_write_atomic(key, "not a key\n", 10, NULL);
	chmod(key, 0644);
	memset(&o, 0, sizeof o);
	o.name = "ghost";
	o.host = "127.0.0.1";
	o.port = 1;
	o.user = "nobody";
	o.identity = key;
	o.known_hosts = kh;
	o.connect_timeout = 2;
	o.keepalive = 1;
	o.silence_timeout = 3;
	address = xasprintf("bisectd-test.%ld/ghost", (long)getpid());
	ok(ssh_link_listen(address, &fd, &cause) == 0, "a link listens");
	fflush(NULL);
	if ((pid = fork()) == 0) {
		ssh_link_serve(fd, &o, ".bisectd", "/bin/true", BOOT_NONE,
		    NULL, 0, &cause);
		_exit(1);
	}
	close(fd);
	r = ssh_link_info(address, 5, &out, &cause);
	is_int(r, TRANSPORT_REFUSED, "a loose private key: refused for good");
	ok(cause != NULL && strstr(cause, "is accessible by others (mode "
	    "0644)") != NULL, "with the reason: %s", cause);
	chmod(key, 0600);
	memset(&job, 0, sizeof job);
	job.run_dir = tmp;
	job.job_text = "testcase: x\n";
	job.timeout = 5;
	r = ssh_link_run(address, &job, &cause);
	is_int(r, -1, "nobody listening: a plain failure, tried again later");
	ok(cause != NULL && strstr(cause, "agent 'ghost': couldn't connect to "
	    "'127.0.0.1' port 1: Connection refused") != NULL,
	    "with the reason: %s", cause);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	free(cause);
	cause = NULL;
	r = ssh_link_info(address, 1, &out, &cause);
	ok(r == -1 && cause != NULL && strstr(cause, "is not answering") !=
	    NULL, "a link that is gone: %s", cause);
	free(cause);
	free(out);
	free(address);
	free(key);
	free(kh);
}

int
main(void)
{
	char	 templ[] = "/tmp/test-ssh-remote.XXXXXX";
	char	*tmp = mkdtemp(templ), *cmd;

	test_quote();
	test_names();
	test_config();
	test_inventory();
	test_link(tmp);
	cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("couldn't remove %s", tmp);
	free(cmd);
	return tap_done();
}
