/*
 * Unit tests for bisectd/build.c: a tiny repository whose build compiles a
 * C benchmark with cc; the cache (hits do not run the command again, a half
 * entry is rebuilt), failures with their log tail, missing artifacts, the
 * kconfig copy, the environment the command sees, builds with no command,
 * and the recipe id. The command counts its runs in a file outside the tree.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/build.h"
#include "tests/unit/tap.h"
#include "tests/unit/fixture.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char	*src;
static char	*workdir;
static char	*counter;

static int
runs(void)
{
	char	*buf = fixture_read(counter, "count");
	int	 n = 0;
	char	*p;

	for (p = buf; p != NULL && *p != '\0'; p++)
		n += *p == '\n';
	free(buf);
	return n;
}

/* Is the process whose pid is in text gone (or a zombie)? Takes text. */
static int
gone(char *text)
{
	char		*path, *stat = NULL, *p;
	size_t		 len;
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	int		 i, rv = 0;

	if (text == NULL)
		return 0;
	text[strcspn(text, "\n")] = '\0';
	path = xasprintf("/proc/%s/stat", text);
	for (i = 0; i < 500 && !rv; i++) {
		if (file_read(path, &stat, &len, NULL) != 0)
			rv = 1;
		else {
			p = strrchr(stat, ')');
			rv = p != NULL && p[1] == ' ' && p[2] == 'Z';
			free(stat);
			if (!rv)
				nanosleep(&ts, NULL);
		}
	}
	free(path);
	free(text);
	return rv;
}

static void
fixture(void)
{
	src = path_join(fixture_dir, "src");
	workdir = path_join(fixture_dir, "state");
	counter = path_join(fixture_dir, "counter");
	dir_create(src, NULL);
	dir_create(counter, NULL);
	is_int(fixture_sh(src, "git init -q -b main\n"
	    "cat > bench.c <<EOF\n"
	    "#include <stdio.h>\n"
	    "int main(void) { printf(\"ops: %d\\\\n\", VALUE); return 0; }\n"
	    "EOF\n"
	    "echo '#define VALUE 100' > value.h\n"
	    "sed -i '1i #include \"value.h\"' bench.c\n"
	    "mkdir -p data; echo one > data/one; echo two > data/two\n"
	    "cat > build.sh <<'EOF'\n"
	    "echo run >> \"$COUNTER/count\"\n"
	    "echo \"compiling in $(pwd)\"\n"
	    "printf 'BUILD_DIR=%s\\nSRC_DIR=%s\\nNPROC=%s\\nPWD=%s\\n' "
	    "\"$BUILD_DIR\" \"$SRC_DIR\" \"$NPROC\" \"$(pwd)\" > "
	    "\"$BUILD_DIR/env.txt\"\n"
	    "cp \"$BUILD_DIR/.config\" \"$BUILD_DIR/config.seen\" || true\n"
	    "cc -O2 -o \"$BUILD_DIR/bench\" bench.c\n"
	    "EOF\n"
	    "commit A\n"
	    "echo '#define VALUE 90' > value.h; commit B\n"
	    "echo 'echo \"error: boom on line $((6 * 7))\"; exit 3' > "
	    "build.sh.new; cat build.sh >> build.sh.new; "
	    "mv build.sh.new build.sh; commit BROKEN\n"
	    "git checkout -q A -- build.sh; echo '#define VALUE 80' > value.h\n"
	    "commit C\n"), 0, "fixture repository");
}

static struct repo *
open_repo(struct config_repo *cr)
{
	struct repo	*r = NULL;
	char		*cause = NULL;

	if (repo_open(cr, &r, &cause) != 0) {
		diag("repo_open: %s", cause);
		free(cause);
	}
	return r;
}

static int
build(struct repo *r, struct config_repo *cr, const char *rev,
    struct build_output *out, char **cause)
{
	struct build_request	req;
	char			oid[REPO_OID_HEX + 1];

	if (repo_resolve(r, rev, oid, cause) != 0)
		return -2;
	memset(&req, 0, sizeof req);
	req.repo = cr;
	req.oid = oid;
	req.workdir = workdir;
	req.slots = 1;
	return build_run(&req, r, out, cause);
}

/* Run the cached benchmark; its output. */
static char *
run_bench(const char *dir)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*cmd = xasprintf("'%s/bench'", dir), buf[256];
	FILE		*p = popen(cmd, "r");
	size_t		 n;

	while (p != NULL && (n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&sb, buf, n);
	if (p != NULL)
		pclose(p);
	free(cmd);
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

static void
test_build(void)
{
	struct config_repo	 cr;
	struct build_output	 out;
	struct repo		*r;
	char			*artifacts[] = { "bench", "env.txt", "config.seen" };
	char			*kconfig = path_join(fixture_dir, "kconfig");
	char			*cause = NULL, *s, *want, *dir, *recipe, *t;
	char			 oid[REPO_OID_HEX + 1];
	struct stat		 st;

	file_write_atomic(kconfig, "CONFIG_FOO=y\n", 13, NULL);
	memset(&cr, 0, sizeof cr);
	cr.name = "tiny";
	cr.path = src;
	cr.build_command = "sh build.sh";
	cr.kconfig = kconfig;
	cr.artifacts = artifacts;
	cr.nr_artifacts = 3;
	if ((r = open_repo(&cr)) == NULL)
		return;
	recipe = build_recipe_id(&cr);
	is_int(strlen(recipe), 16, "recipe id is 16 hex");

	ok(build(r, &cr, "A", &out, &cause) == 0, "build A");
	is_int(out.outcome, BUILD_OK, "A builds");
	repo_resolve(r, "A", oid, NULL);
	want = xasprintf("%s/cache/tiny/%s/%s", workdir, recipe, oid);
	is_str(out.artifact_dir, want, "artifacts in the cache dir");
	s = build_cache_dir(&cr, workdir, oid);
	is_str(s, want, "build_cache_dir agrees");
	free(s);
	free(want);
	ok(fixture_exists(out.artifact_dir, ".complete"), "marker written");
	ok(stat(out.artifact_dir, &st) == 0 &&
	    fixture_exists(out.artifact_dir, "bench"), "artifact there");
	s = run_bench(out.artifact_dir);
	is_str(s, "ops: 100", "the artifact runs");
	free(s);
	is_int(runs(), 1, "command ran once");
	want = xasprintf("%s/logs/build-%s-%s.log", workdir, recipe, oid);
	is_str(out.log_path, want, "log path");
	free(want);
	ok(out.seconds > 0, "wall time %.3f s", out.seconds);

	/* What the command saw. */
	s = fixture_read(out.artifact_dir, "env.txt");
	want = xasprintf("BUILD_DIR=%s/slots/tiny/0/build-%s\n"
	    "SRC_DIR=%s/slots/tiny/0/tree\nNPROC=%ld\n"
	    "PWD=%s/slots/tiny/0/tree\n",
	    workdir, recipe, workdir, sysconf(_SC_NPROCESSORS_ONLN), workdir);
	is_str(s, want, "BUILD_DIR, SRC_DIR, NPROC and the cwd");
	free(s);
	free(want);
	s = fixture_read(out.artifact_dir, "config.seen");
	is_str(s, "CONFIG_FOO=y\n", "kconfig copied to BUILD_DIR/.config first");
	free(s);
	dir = xasprintf("%s/slots/tiny/0/tree", workdir);
	ok(fixture_exists(dir, "bench.c") && !fixture_exists(dir, ".git"),
	    "worktree holds the tree");
	free(dir);
	build_output_release(&out);

	ok(build(r, &cr, "A", &out, &cause) == 0, "build A again");
	is_int(out.outcome, BUILD_OK, "cache hit is OK");
	is_int(runs(), 1, "cache hit: the command did not run");
	build_output_release(&out);

	ok(build(r, &cr, "B", &out, &cause) == 0, "build B");
	is_int(out.outcome, BUILD_OK, "B builds");
	s = run_bench(out.artifact_dir);
	is_str(s, "ops: 90", "B's artifact is B's");
	free(s);
	is_int(runs(), 2, "command ran for B");
	build_output_release(&out);

	ok(build(r, &cr, "BROKEN", &out, &cause) == 0,
	    "a failing build is a result");
	is_int(out.outcome, BUILD_FAILED, "BROKEN fails");
	ok(out.artifact_dir == NULL, "no artifact dir");
	ok(out.log_tail != NULL &&
	    strstr(out.log_tail, "error: boom on line 42") != NULL &&
	    strstr(out.log_tail, "status 3") != NULL,
	    "log tail has the error and the status");
	repo_resolve(r, "BROKEN", oid, NULL);
	s = build_cache_dir(&cr, workdir, oid);
	ok(!file_exists(s), "nothing cached for a failure");
	free(s);
	s = fixture_read(workdir, out.log_path);
	ok(s != NULL && strstr(s, "boom") != NULL, "whole log kept");
	free(s);
	build_output_release(&out);

	/* A half entry (no marker) is not taken for a complete one. */
	repo_resolve(r, "C", oid, NULL);
	s = build_cache_dir(&cr, workdir, oid);
	dir_create(s, NULL);
	t = path_join(s, "bench");
	file_write_atomic(t, "junk", 4, NULL);
	free(t);
	ok(build(r, &cr, "C", &out, &cause) == 0 && out.outcome == BUILD_OK,
	    "build C over a half entry");
	is_int(runs(), 3, "C was built");
	t = run_bench(s);
	is_str(t, "ops: 80", "C's artifact replaced the half entry");
	free(t);
	free(s);
	build_output_release(&out);

	/* A signal: the machine's doing, an error of the attempt (retried). */
	cr.build_command = "kill -9 $$";
	free(cause);
	cause = NULL;
	ok(build(r, &cr, "A", &out, &cause) == -1,
	    "a killed build is an error of its attempt, not a failed build");
	ok(cause != NULL && strstr(cause, "signal 9") != NULL,
	    "says the signal");
	build_output_release(&out);

	/* What the build leaves running is killed when its shell exits. */
	cr.build_command = "sh build.sh; sleep 300 & echo $! > \"$COUNTER/bg\"";
	ok(build(r, &cr, "A", &out, &cause) == 0 &&
	    out.outcome == BUILD_OK, "a build that leaves a process behind");
	ok(gone(fixture_read(counter, "bg")), "the process is killed");
	build_output_release(&out);

	/* A missing artifact. */
	cr.build_command = "sh build.sh";
	artifacts[2] = "nothere";
	s = build_recipe_id(&cr);
	ok(strcmp(s, recipe) != 0, "artifacts are part of the recipe");
	free(s);
	ok(build(r, &cr, "A", &out, &cause) == 0, "missing artifact");
	is_int(out.outcome, BUILD_FAILED, "is a failed build");
	is_str(out.log_tail, "artifact 'nothere' not found", "naming it");
	build_output_release(&out);

	/* An artifact outside the tree is refused. */
	artifacts[2] = "../escape";
	ok(build(r, &cr, "A", &out, &cause) == -1, "'..' refused");
	ok(cause != NULL && strstr(cause, "'../escape'") != NULL,
	    "message: %s", cause);
	free(cause);
	cause = NULL;

	/* The kconfig's contents, not its path, make the recipe. */
	artifacts[2] = "config.seen";
	s = build_recipe_id(&cr);
	is_str(s, recipe, "same recipe again");
	free(s);
	file_write_atomic(kconfig, "CONFIG_FOO=n\n", 13, NULL);
	s = build_recipe_id(&cr);
	ok(strcmp(s, recipe) != 0, "new kconfig contents, new recipe");
	free(s);
	cr.build_command = "sh  build.sh";
	s = build_recipe_id(&cr);
	ok(strcmp(s, recipe) != 0, "another command, another recipe");
	free(s);

	free(recipe);
	free(kconfig);
	repo_free(r);
}

static void
test_no_command(void)
{
	struct config_repo	 cr;
	struct build_output	 out;
	struct repo		*r;
	char			*artifacts[] = { "bench.c", "data" };
	char			*cause = NULL, *s;

	memset(&cr, 0, sizeof cr);
	cr.name = "plain";
	cr.path = src;
	cr.artifacts = artifacts;
	cr.nr_artifacts = 2;
	if ((r = open_repo(&cr)) == NULL)
		return;
	ok(build(r, &cr, "B", &out, &cause) == 0 && out.outcome == BUILD_OK,
	    "no command: artifacts from the tree");
	ok(fixture_exists(out.artifact_dir, "bench.c") &&
	    !fixture_exists(out.artifact_dir, "build.sh"), "only the artifacts");
	s = fixture_read(out.artifact_dir, "data/two");
	is_str(s, "two\n", "directory artifact copied recursively");
	free(s);
	build_output_release(&out);

	cr.nr_artifacts = 0;
	ok(build(r, &cr, "B", &out, &cause) == 0 && out.outcome == BUILD_OK,
	    "no command, no artifacts");
	ok(fixture_exists(out.artifact_dir, "bench.c") &&
	    fixture_exists(out.artifact_dir, "build.sh") &&
	    fixture_exists(out.artifact_dir, "data/one"), "the whole tree");
	ok(!fixture_exists(out.artifact_dir, ".bisectd-checkout") &&
	    !fixture_exists(out.artifact_dir, ".bisectd-index"),
	    "without the worktree's own files");
	s = fixture_read(out.artifact_dir, "value.h");
	is_str(s, "#define VALUE 90\n", "B's tree");
	free(s);
	build_output_release(&out);
	repo_free(r);
}

int
main(void)
{
	if (fixture_start("build") != 0)
		return 1;
	fixture();
	setenv("COUNTER", counter, 1);
	test_build();
	test_no_command();
	fixture_finish();
	free(src);
	free(workdir);
	free(counter);
	return tap_done();
}
