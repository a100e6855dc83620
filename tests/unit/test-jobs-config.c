/*
 * Unit tests for bisectd.yaml: the DESIGN §3.1 example read field by
 * field, the defaults (workdir, db, the implicit local agent, ports,
 * slots, max_attempts), relative paths made absolute against the config
 * directory, lookups, config_find's order, and errors with their exact
 * "FILE:LINE:COL: " prefix and the key they name.
 */
#include <limits.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/config.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct config *
parse(const char *dir, const char *text)
{
	struct config	*cfg = NULL;
	char		*cause = NULL;

	if (config_parse("c.yaml", dir, text, strlen(text), &cfg,
	    &cause) != 0) {
		diag("unexpected error: %s", cause);
		free(cause);
	}
	return cfg;
}

static void
test_design_example(void)
{
	const char	*text =
	    "db: state/bisectd.db          # SQLite, WAL mode\n"
	    "workdir: state\n"
	    "repos:\n"
	    "  - name: linux\n"
	    "    path: /srv/git/linux\n"
	    "    fetch: origin\n"
	    "    track: [master]\n"
	    "    build:\n"
	    "      command: make -j$NPROC O=$BUILD_DIR olddefconfig bzImage\n"
	    "      kconfig: configs/x86_64-defconfig\n"
	    "      artifacts: [arch/x86/boot/bzImage]\n"
	    "agents:\n"
	    "  - name: ivb44\n"
	    "    transport: ssh\n"
	    "    host: 192.0.2.44\n"
	    "    port: 22\n"
	    "    user: lkp\n"
	    "    identity: keys/id_ed25519\n"
	    "    known_hosts: keys/known_hosts\n"
	    "    boot: kexec\n"
	    "    slots: 1\n"
	    "mail:\n"
	    "  smtp: smtp://127.0.0.1:25\n"
	    "  from: \"bisectd <bisectd@example.org>\"\n"
	    "  to: [perf-reports@example.org]\n";
	struct config			*cfg;
	const struct config_repo	*repo;
	const struct config_agent	*agent;

	if ((cfg = parse("/srv/bisectd", text)) == NULL) {
		ok(0, "DESIGN example parses");
		return;
	}
	ok(cfg->path == NULL, "parsed text has no path");
	is_str(cfg->dir, "/srv/bisectd", "dir");
	is_str(cfg->db, "/srv/bisectd/state/bisectd.db",
	    "relative db against the config dir");
	is_str(cfg->workdir, "/srv/bisectd/state", "relative workdir");
	is_int(cfg->nr_repos, 1, "one repo");
	repo = config_repo_find(cfg, NULL);
	ok(repo == &cfg->repos[0], "the only repo found without a name");
	ok(config_repo_find(cfg, "linux") == repo, "found by name");
	ok(config_repo_find(cfg, "nope") == NULL, "unknown repo is NULL");
	if (repo != NULL) {
		is_str(repo->name, "linux", "repo name");
		is_str(repo->path, "/srv/git/linux", "absolute path kept");
		is_str(repo->fetch, "origin", "fetch");
		is_int(repo->nr_track, 1, "one tracked branch");
		if (repo->nr_track == 1)
			is_str(repo->track[0], "master", "tracked branch");
		is_str(repo->build_command,
		    "make -j$NPROC O=$BUILD_DIR olddefconfig bzImage",
		    "build command");
		is_str(repo->kconfig,
		    "/srv/bisectd/configs/x86_64-defconfig",
		    "relative kconfig against the config dir");
		is_int(repo->nr_artifacts, 1, "one artifact");
		if (repo->nr_artifacts == 1)
			is_str(repo->artifacts[0], "arch/x86/boot/bzImage",
			    "artifacts stay relative to the build dir");
	}
	is_int(cfg->nr_agents, 1, "one agent, no implicit local one");
	agent = config_agent_find(cfg, "ivb44");
	ok(agent == &cfg->agents[0], "agent found by name");
	ok(config_agent_find(cfg, "local") == NULL,
	    "no implicit local agent next to explicit ones");
	if (agent != NULL) {
		is_str(agent->transport, "ssh", "transport");
		is_str(agent->host, "192.0.2.44", "host");
		is_int(agent->port, 22, "port");
		is_str(agent->user, "lkp", "user");
		is_str(agent->identity, "/srv/bisectd/keys/id_ed25519",
		    "relative identity");
		is_str(agent->known_hosts, "/srv/bisectd/keys/known_hosts",
		    "relative known_hosts");
		is_str(agent->boot, "kexec", "boot");
		is_int(agent->slots, 1, "slots");
		is_int(agent->tofu, 0, "trust_on_first_use defaults off");
	}
	is_str(cfg->mail.smtp, "smtp://127.0.0.1:25", "smtp");
	is_str(cfg->mail.from, "bisectd <bisectd@example.org>", "from");
	is_int(cfg->mail.nr_to, 1, "one recipient");
	if (cfg->mail.nr_to == 1)
		is_str(cfg->mail.to[0], "perf-reports@example.org",
		    "recipient");
	is_int(cfg->max_attempts, 3, "max_attempts defaults to 3");
	config_free(cfg);
}

static void
test_defaults(void)
{
	struct config	*cfg;
	char		 cwd[PATH_MAX], *want;

	if ((cfg = parse("/etc/x", "")) == NULL) {
		ok(0, "empty config parses");
		return;
	}
	is_str(cfg->workdir, "/etc/x/state", "workdir defaults to DIR/state");
	is_str(cfg->db, "/etc/x/state/bisectd.db",
	    "db defaults to WORKDIR/bisectd.db");
	is_int(cfg->nr_repos, 0, "no repos");
	ok(config_repo_find(cfg, NULL) == NULL, "no only repo");
	is_int(cfg->nr_agents, 1, "one implicit agent");
	is_str(cfg->agents[0].name, "local", "implicit agent is 'local'");
	is_str(cfg->agents[0].transport, "local", "transport local");
	is_str(cfg->agents[0].boot, "none", "boot none");
	is_int(cfg->agents[0].slots, 1, "one slot");
	ok(cfg->agents[0].host == NULL, "no host");
	ok(config_agent_find(cfg, "local") == &cfg->agents[0],
	    "implicit agent found by name");
	ok(cfg->mail.smtp == NULL && cfg->mail.nr_to == 0, "no mail");
	is_int(cfg->max_attempts, 3, "max_attempts 3");
	is_int(cfg->build_slots, 1, "build_slots defaults to 1");
	config_free(cfg);

	cfg = parse("/etc/x", "workdir: work\nagents: []\n"
	    "scheduler: {max_attempts: 5, build_slots: 4}\n");
	if (cfg != NULL) {
		is_str(cfg->db, "/etc/x/work/bisectd.db",
		    "db default follows a given workdir");
		is_int(cfg->nr_agents, 1, "an empty agents list is implicit "
		    "local too");
		is_int(cfg->max_attempts, 5, "max_attempts read");
		is_int(cfg->build_slots, 4, "build_slots read");
	}
	config_free(cfg);

	cfg = parse("/etc/x", "db: /var/lib/b.db\nworkdir: ./w\n");
	if (cfg != NULL) {
		is_str(cfg->db, "/var/lib/b.db", "absolute db kept");
		is_str(cfg->workdir, "/etc/x/w", "./ dropped from a relative "
		    "path");
	}
	config_free(cfg);

	ok(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
	cfg = parse(".", "workdir: w\n");
	want = xasprintf("%s/w", cwd);
	if (cfg != NULL) {
		is_str(cfg->dir, cwd, "dir '.' is the current directory");
		is_str(cfg->workdir, want, "so paths are absolute");
	}
	free(want);
	config_free(cfg);
	cfg = parse(NULL, "");
	if (cfg != NULL)
		is_str(cfg->dir, cwd, "NULL dir is the current directory");
	config_free(cfg);
}

static void
test_agents_repos(void)
{
	const char	*text =
	    "repos:\n"
	    "  - {name: linux, path: linux.git, track: master}\n"
	    "  - {name: tools, path: /srv/tools}\n"
	    "agents:\n"
	    "  - name: here\n"
	    "    slots: 4\n"
	    "    disks:\n"
	    "      hdd: [/dev/sdb1, loop:2G]\n"
	    "      ssd: loop:512M\n"
	    "  - name: far\n"
	    "    transport: ssh\n"
	    "    host: far.example.org\n"
	    "    port: 2222\n"
	    "    user: lkp\n"
	    "    identity: /k/id\n"
	    "    known_hosts: kh\n"
	    "    trust_on_first_use: true\n"
	    "    boot: qemu\n"
	    "  - name: disky\n"
	    "    transport: ssh\n"
	    "    host: disky.example.org\n"
	    "    user: lkp\n"
	    "    identity: /k/id\n"
	    "    known_hosts: kh\n"
	    "    disks: {hdd: [/dev/nvme9n1p1], ssd: [loop:1G]}\n";
	struct config	*cfg;

	if ((cfg = parse("/c", text)) == NULL) {
		ok(0, "two repos, two agents parse");
		return;
	}
	is_int(cfg->nr_repos, 2, "two repos");
	is_int((int)cfg->agents[0].nr_disks, 3, "three disks");
	if (cfg->agents[0].nr_disks == 3) {
		is_str(cfg->agents[0].disks[0].kind, "hdd", "a hdd");
		is_str(cfg->agents[0].disks[0].device, "/dev/sdb1", "a device");
		ok(cfg->agents[0].disks[1].device == NULL &&
		    cfg->agents[0].disks[1].loop_size == 2ULL << 30,
		    "a 2G loop disk");
		is_str(cfg->agents[0].disks[2].kind, "ssd", "an ssd");
		ok(cfg->agents[0].disks[2].loop_size == 512ULL << 20,
		    "a 512M loop disk");
	}
	is_int((int)cfg->agents[1].nr_disks, 0, "no disks");
	is_int((int)cfg->agents[2].nr_disks, 2, "an ssh agent's disks");
	if (cfg->agents[2].nr_disks == 2) {
		is_str(cfg->agents[2].disks[0].device, "/dev/nvme9n1p1",
		    "a device of the machine over there, not checked here");
		ok(cfg->agents[2].disks[1].loop_size == 1ULL << 30,
		    "a 1G loop disk over there");
	}
	ok(config_repo_find(cfg, NULL) == NULL, "no only repo among two");
	ok(config_repo_find(cfg, "tools") == &cfg->repos[1], "by name");
	is_str(cfg->repos[0].path, "/c/linux.git", "relative repo path");
	is_int(cfg->repos[0].nr_track, 1, "a single branch is a list of one");
	ok(cfg->repos[1].build_command == NULL, "no build command");
	is_int(cfg->nr_agents, 3, "three agents");
	is_str(cfg->agents[0].transport, "local", "transport defaults local");
	is_int(cfg->agents[0].slots, 4, "slots");
	is_int(cfg->agents[1].port, 2222, "port");
	is_int(cfg->agents[1].tofu, 1, "trust_on_first_use");
	is_str(cfg->agents[1].known_hosts, "/c/kh", "relative known_hosts");
	is_str(cfg->agents[1].boot, "qemu", "boot qemu");
	config_free(cfg);
}

struct bad {
	const char	*what;
	const char	*text;
	const char	*prefix;
	const char	*needle;
};

#define SSH	"agents:\n  - name: a\n    transport: ssh\n"

static const struct bad bad[] = {
	{ "top level a list", "- db\n",
	  "c.yaml:1:1: ", "a config file is a map" },
	{ "unknown top-level key", "db: x\ndatabase: y\n",
	  "c.yaml:2:1: ", "unknown key 'database'" },
	{ "duplicate key", "db: x\ndb: y\n",
	  "c.yaml:2:1: ", "duplicate key 'db'" },
	{ "db empty", "db:\n",
	  "c.yaml:1:4: ", "'db'" },
	{ "workdir a list", "workdir: [a]\n",
	  "c.yaml:1:10: ", "'workdir'" },
	{ "repos a map", "repos: {name: linux}\n",
	  "c.yaml:1:8: ", "'repos'" },
	{ "repo not a map", "repos: [linux]\n",
	  "c.yaml:1:9: ", "'repos[0]'" },
	{ "repo without name", "repos:\n  - path: /x\n",
	  "c.yaml:2:5: ", "'name'" },
	{ "repo without path", "repos:\n  - name: linux\n",
	  "c.yaml:2:5: ", "'path'" },
	{ "repo unknown key", "repos:\n  - name: linux\n    pth: /x\n",
	  "c.yaml:3:5: ", "unknown key 'pth' in 'repos[0]'" },
	{ "duplicate repo name",
	  "repos:\n  - {name: l, path: /a}\n  - {name: l, path: /b}\n",
	  "c.yaml:3:12: ", "duplicate repository name 'l'" },
	{ "bad repo name", "repos:\n  - {name: a b, path: /a}\n",
	  "c.yaml:2:12: ", "'a b'" },
	{ "track a map", "repos:\n  - {name: l, path: /a, track: {a: b}}\n",
	  "c.yaml:2:32: ", "'track'" },
	{ "build unknown key",
	  "repos:\n  - name: l\n    path: /a\n    build:\n      cmd: make\n",
	  "c.yaml:5:7: ", "unknown key 'cmd' in 'repos[0].build'" },
	{ "artifacts list of lists",
	  "repos:\n  - name: l\n    path: /a\n    build:\n"
	  "      artifacts: [[x]]\n",
	  "c.yaml:5:19: ", "'artifacts'" },
	{ "agent typo", "agents:\n  - name: a\n    sltos: 2\n",
	  "c.yaml:3:5: ", "unknown key 'sltos' in 'agents[0]'" },
	{ "builder typo", "builders:\n  - name: b\n    sltos: 2\n",
	  "c.yaml:3:5: ", "unknown key 'sltos' in 'builders[0]'" },
	{ "builder boots", "builders:\n  - name: b\n    boot: qemu\n",
	  "c.yaml:3:5: ", "'boot' does not apply to a builder" },
	{ "builder transport", "builders:\n  - name: b\n    transport: ssh\n",
	  "c.yaml:3:5: ", "'transport' does not apply to a builder" },
	{ "builder without host", "builders:\n  - name: b\n    user: u\n",
	  "c.yaml:2:5: ", "ssh builder 'b' has no 'host'" },
	{ "builder named local", "builders:\n  - name: local\n",
	  "c.yaml:2:11: ", "builder name 'local' is taken" },
	{ "duplicate builder", "builders:\n  - {name: b, host: h, user: u, "
	  "identity: /i, known_hosts: /k}\n  - {name: b}\n",
	  "c.yaml:3:12: ", "duplicate builder name 'b'" },
	{ "disks: unknown kind",
	  "agents:\n  - name: a\n    disks: {nvme: [loop:1G]}\n",
	  "c.yaml:3:13: ", "unknown disk kind 'nvme' in 'disks' (known: hdd, "
	  "ssd" },
	{ "disks: loop too small",
	  "agents:\n  - name: a\n    disks: {hdd: [loop:100M]}\n",
	  "c.yaml:3:19: ", "'disks.hdd': 'loop:100M' must be loop:SIZE with "
	  "SIZE from 256M to 16T" },
	{ "disks: not a device",
	  "agents:\n  - name: a\n    disks: {hdd: [sdb1]}\n",
	  "c.yaml:3:19: ", "'disks.hdd': 'sdb1' is neither a device under "
	  "/dev/ nor loop:SIZE" },
	{ "disks: twice",
	  "agents:\n  - name: a\n    disks: {hdd: [/dev/sdb1], ssd: "
	  "[/dev/sdb1]}\n",
	  "c.yaml:3:37: ", "'disks' lists '/dev/sdb1' twice" },
	{ "disks: on an ssh agent that boots with kexec",
	  "agents:\n  - {name: a, transport: ssh, host: h, user: u, "
	  "identity: /i, known_hosts: /k, boot: kexec, disks: {hdd: "
	  "[loop:1G]}}\n",
	  "c.yaml:2:100: ", "agent 'a' boots its kernel (kexec)" },
	{ "disks: with a boot",
	  "agents:\n  - {name: a, boot: qemu, disks: {hdd: [loop:1G]}}\n",
	  "c.yaml:2:34: ", "agent 'a' boots its kernel (qemu)" },
	{ "disks on a builder", "builders:\n  - name: b\n    disks: {}\n",
	  "c.yaml:3:5: ", "unknown key 'disks' in 'builders[0]' (known: name, "
	  "transport, host, port, user, identity, known_hosts, "
	  "trust_on_first_use, boot, slots, connect_timeout, keepalive, "
	  "silence_timeout, remote_dir, probe_interval, run_margin)" },
	{ "agent without name", "agents:\n  - slots: 2\n",
	  "c.yaml:2:5: ", "'name'" },
	{ "duplicate agent", "agents:\n  - name: a\n  - name: a\n",
	  "c.yaml:3:11: ", "duplicate agent name 'a'" },
	{ "bad transport", "agents:\n  - name: a\n    transport: rsh\n",
	  "c.yaml:3:16: ", "'transport'" },
	{ "bad boot", "agents:\n  - name: a\n    boot: pxe\n",
	  "c.yaml:3:11: ", "'boot'" },
	{ "kexec with two slots",
	  "agents:\n  - name: a\n    boot: kexec\n    slots: 2\n",
	  "c.yaml:4:12: ", "agent 'a' boots with kexec, which reboots the "
	  "machine for every run: it has one slot, not 2" },
	{ "slots 0", "agents:\n  - name: a\n    slots: 0\n",
	  "c.yaml:3:12: ", "'slots'" },
	{ "slots not a number", "agents:\n  - name: a\n    slots: many\n",
	  "c.yaml:3:12: ", "'slots'" },
	{ "port too big", SSH "    port: 65536\n",
	  "c.yaml:4:11: ", "'port'" },
	{ "tofu not a bool", SSH "    trust_on_first_use: maybe\n",
	  "c.yaml:4:25: ", "'trust_on_first_use'" },
	{ "ssh key on a local agent", "agents:\n  - name: a\n    host: h\n",
	  "c.yaml:3:5: ", "'host' only applies to transport 'ssh'" },
	{ "ssh without host", SSH "    user: u\n",
	  "c.yaml:2:5: ", "'host'" },
	{ "ssh without known_hosts",
	  SSH "    host: h\n    user: u\n    identity: i\n",
	  "c.yaml:2:5: ", "'known_hosts'" },
	{ "mail without smtp", "mail:\n  from: a\n  to: [b]\n",
	  "c.yaml:2:3: ", "'smtp'" },
	{ "mail unknown key", "mail:\n  smtp: smtp://h\n  bcc: x\n",
	  "c.yaml:3:3: ", "unknown key 'bcc' in 'mail'" },
	{ "mail a list", "mail: [a]\n",
	  "c.yaml:1:7: ", "'mail'" },
	{ "scheduler unknown key", "scheduler:\n  attempts: 2\n",
	  "c.yaml:2:3: ", "unknown key 'attempts' in 'scheduler'" },
	{ "max_attempts bad", "scheduler:\n  max_attempts: x\n",
	  "c.yaml:2:17: ", "'max_attempts'" },
	{ "build_slots zero", "scheduler:\n  build_slots: 0\n",
	  "c.yaml:2:16: ", "'build_slots' must be an integer from 1 to 64" },
	{ "build_slots not a number", "scheduler:\n  build_slots: many\n",
	  "c.yaml:2:16: ", "'build_slots'" },
	{ "libyaml error", "db: [a\n",
	  "c.yaml:2:1: ", "while parsing a flow sequence" },
	{ "tab", "repos:\n\t- name: x\n",
	  "c.yaml:2:1: ", "cannot start any token" },
};

static void
test_bad(void)
{
	struct config	*cfg;
	char		*cause;
	size_t		 i;
	int		 r;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cfg = (struct config *)&cfg;
		cause = NULL;
		r = config_parse("c.yaml", "/d", bad[i].text,
		    strlen(bad[i].text), &cfg, &cause);
		ok(r == -1 && cfg == NULL, "%s: fails with nothing out",
		    bad[i].what);
		if (cause == NULL) {
			ok(0, "%s: has a cause", bad[i].what);
			continue;
		}
		if (!ok(strncmp(cause, bad[i].prefix,
		    strlen(bad[i].prefix)) == 0, "%s: at %s", bad[i].what,
		    bad[i].prefix) || !ok(strstr(cause, bad[i].needle) != NULL,
		    "%s: names %s", bad[i].what, bad[i].needle))
			diag("got: %s", cause);
		if (r == 0)
			config_free(cfg);
		free(cause);
	}
}

static void
test_limits(void)
{
	struct strbuf	 sb = STRBUF_INIT;
	struct config	*cfg = NULL;
	const char	*want;
	char		*cause = NULL;
	int		 i, r;

	strbuf_addstr(&sb, "agents:\n");
	for (i = 0; i < 1025; i++)
		strbuf_addf(&sb, "  - name: a%d\n", i);
	want = "c.yaml:2:3: 'agents' has more than 1024 entries";
	r = config_parse("c.yaml", "/d", sb.buf, sb.len, &cfg, &cause);
	if (!ok(r == -1 && cause != NULL &&
	    strncmp(cause, want, strlen(want)) == 0,
	    "1025 agents are refused") && cause != NULL)
		diag("%s", cause);
	free(cause);
	strbuf_release(&sb);
}

static void
test_load_find(void)
{
	char		 dir[] = "/tmp/test-jobs-config.XXXXXX", cwd[PATH_MAX];
	char		*path = NULL, *found = NULL, *cause = NULL, *want;
	const char	*text =
	    "workdir: w\nrepos:\n  - {name: l, path: src}\n";
	struct config	*cfg = NULL;

	if (!ok(mkdtemp(dir) != NULL && getcwd(cwd, sizeof cwd) != NULL,
	    "temporary directory"))
		return;
	path = xasprintf("%s/bisectd.yaml", dir);
	ok(file_write_atomic(path, text, strlen(text), &cause) == 0,
	    "write a config");
	want = xasprintf("%s/src", dir);
	ok(config_load(path, &cfg, &cause) == -1 && cause != NULL &&
	    strstr(cause, "bisectd.yaml:3:21: 'path' names") != NULL &&
	    strstr(cause, "does not exist") != NULL,
	    "config_load refuses a repository path that is not there: %s",
	    cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	ok(mkdir(want, 0755) == 0, "make it");
	free(want);
	ok(config_load(path, &cfg, &cause) == 0, "config_load");
	if (cfg != NULL) {
		is_str(cfg->path, path, "path recorded");
		is_str(cfg->dir, dir, "dir is the file's directory");
		want = xasprintf("%s/src", dir);
		is_str(cfg->repos[0].path, want, "repo path relative to it");
		free(want);
		want = xasprintf("%s/w/bisectd.db", dir);
		is_str(cfg->db, want, "db under the workdir");
		free(want);
	}
	config_free(cfg);

	unsetenv("BISECTD_CONFIG");
	ok(config_find(path, &found, &cause) == 0 && found != NULL &&
	    strcmp(found, path) == 0, "explicit path found");
	free(found);
	found = NULL;
	ok(config_find("/nonexistent/b.yaml", &found, &cause) == -1 &&
	    found == NULL, "explicit missing path fails");
	ok(cause != NULL && strstr(cause, "'/nonexistent/b.yaml'") != NULL,
	    "the error names it");
	free(cause);
	cause = NULL;

	setenv("BISECTD_CONFIG", path, 1);
	ok(config_find(NULL, &found, &cause) == 0 && found != NULL &&
	    strcmp(found, path) == 0, "$BISECTD_CONFIG found");
	free(found);
	found = NULL;
	ok(config_find("/nonexistent/b.yaml", &found, &cause) == -1,
	    "explicit wins over $BISECTD_CONFIG");
	free(cause);
	cause = NULL;
	setenv("BISECTD_CONFIG", "/nonexistent/env.yaml", 1);
	ok(config_find(NULL, &found, &cause) == -1 && cause != NULL &&
	    strstr(cause, "BISECTD_CONFIG") != NULL,
	    "missing $BISECTD_CONFIG fails naming it");
	free(cause);
	cause = NULL;
	unsetenv("BISECTD_CONFIG");

	ok(chdir(dir) == 0, "cd to the config directory");
	ok(config_find(NULL, &found, &cause) == 0 && found != NULL &&
	    strcmp(found, "./bisectd.yaml") == 0, "./bisectd.yaml found");
	free(found);
	found = NULL;
	unlink(path);
	if (!file_exists("/etc/bisectd/bisectd.yaml")) {
		ok(config_find(NULL, &found, &cause) == -1 && cause != NULL &&
		    strstr(cause, "'./bisectd.yaml'") != NULL &&
		    strstr(cause, "'/etc/bisectd/bisectd.yaml'") != NULL,
		    "nothing found: the error lists what was tried");
		free(cause);
		cause = NULL;
	}
	ok(config_load(path, &cfg, &cause) == -1 && cfg == NULL,
	    "config_load of a missing file fails");
	free(cause);
	ok(chdir(cwd) == 0, "cd back");
	rmdir(dir);
	free(path);
}

int
main(void)
{
	test_design_example();
	test_defaults();
	test_agents_repos();
	test_bad();
	test_limits();
	test_load_find();
	return tap_done();
}
