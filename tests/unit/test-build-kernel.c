/*
 * Unit tests for the kernel side of bisectd/build.c, on a fake kernel tree
 * whose Makefile plays kbuild's part in a few lines: `make tinyconfig`
 * writes a base .config into O=, olddefconfig refuses one symbol, bzImage
 * is made from the sources and the .config, modules_install writes into
 * INSTALL_MOD_PATH. Checked: the base target and the job's fragment in the
 * .config, the fragment in the recipe, a refused value reported, the
 * reproducible-build environment, the image hash and the kernel release in
 * the entry, an image identical to its parent's noted, modules of an older
 * build gone, a recipe mismatch refused, a failing target a failed build.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisectd/build-kernel.h"
#include "bisectd/build.h"
#include "jobs/job.h"
#include "tests/unit/tap.h"
#include "tests/unit/fixture.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"

static char	*src;
static char	*workdir;

static const char test_makefile[] =
	"O ?= .\n"
	"tinyconfig:\n"
	"\tmkdir -p $(O)\n"
	"\tprintf 'CONFIG_64BIT=y\\n# CONFIG_PRINTK is not set\\n"
	"CONFIG_BASE=y\\n' > $(O)/.config\n"
	"brokenconfig:\n"
	"\techo 'no such target' >&2; false\n"
	"olddefconfig:\n"
	"\tgrep -v '^CONFIG_REFUSED=' $(O)/.config > $(O)/.config.new\n"
	"\tmv $(O)/.config.new $(O)/.config\n"
	"bzImage:\n"
	"\tmkdir -p $(O)/arch/x86/boot $(O)/include/config\n"
	"\techo 6.1.0-fake > $(O)/include/config/kernel.release\n"
	"\t(cat kernel/*.c; grep '^CONFIG' $(O)/.config; "
	"echo \"$$KBUILD_BUILD_TIMESTAMP $$KBUILD_BUILD_USER\") "
	"> $(O)/arch/x86/boot/bzImage\n"
	"\tenv > $(O)/build.env\n"
	"modules_install:\n"
	"\tmkdir -p $(INSTALL_MOD_PATH)/lib/modules/6.1.0-fake\n"
	"\ttouch $(INSTALL_MOD_PATH)/lib/modules/6.1.0-fake/mod-$$(cat "
	"kernel/name)\n";

static int
has_line(const char *text, const char *line)
{
	size_t		 n = strlen(line);
	const char	*p = text;

	while (p != NULL && (p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') &&
		    (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static void
fixture(void)
{
	char	*mk;

	src = path_join(fixture_dir, "linux");
	workdir = path_join(fixture_dir, "state");
	dir_create(src, NULL);
	mk = path_join(src, "Makefile");
	file_write_atomic(mk, test_makefile, strlen(test_makefile), NULL);
	free(mk);
	is_int(fixture_sh(src, "git init -q -b master\n"
	    "mkdir -p kernel Documentation\n"
	    "echo 'int sys_getppid(void) { return 1; }' > kernel/sys.c\n"
	    "echo a > kernel/name; echo docs > Documentation/README\n"
	    "commit A\n"
	    "echo 'more docs' >> Documentation/README; commit DOCS\n"
	    "echo 'int sys_getppid(void) { slow(); return 1; }' "
	    "> kernel/sys.c\n"
	    "echo b > kernel/name; commit B\n"), 0, "fixture kernel tree");
}

static int
build(struct repo *r, struct config_repo *cr, const char *rev,
    const char *fragment, const char *recipe, struct build_output *out,
    char **cause)
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
	return build_run_kconfig(&req, fragment, recipe, r, out, cause);
}

/* One job parsed from text, kept in *list until the next call. */
static const struct job *
one_job(struct job ***list, const char *text)
{
	size_t	nr = 0;

	job_list_free(*list, *list != NULL ? 1 : 0);
	*list = NULL;
	if (job_parse("job", text, strlen(text), list, &nr, NULL) != 0 ||
	    nr != 1)
		return NULL;
	return (*list)[0];
}

static void
test_kernel(void)
{
	struct config_repo	 cr;
	struct build_output	 out;
	struct repo		*r = NULL;
	char			*artifacts[] = { "arch/x86/boot/bzImage",
				    "install" };
	const char		*fragment = "CONFIG_PRINTK=y\n"
				    "CONFIG_REFUSED=y\n";
	char			*cause = NULL, *s, *t, *recipe, *hash_a = NULL;
	struct job		**jl = NULL;
	char			*env, oid_a[REPO_OID_HEX + 1], hex[65];
	size_t			 len;

	memset(&cr, 0, sizeof cr);
	cr.name = "linux";
	cr.path = src;
	cr.build_command = "make O=$BUILD_DIR olddefconfig bzImage && "
	    "make O=$BUILD_DIR modules_install";
	cr.kconfig = path_join(fixture_dir, "tinyconfig");
	cr.artifacts = artifacts;
	cr.nr_artifacts = 2;
	if (repo_open(&cr, &r, &cause) != 0) {
		diag("repo_open: %s", cause);
		return;
	}
	repo_resolve(r, "A", oid_a, NULL);

	recipe = build_recipe(&cr, fragment);
	s = build_recipe_id(&cr);
	ok(strcmp(recipe, s) != 0, "the fragment is part of the recipe");
	free(s);
	s = build_recipe(&cr, "");
	t = build_recipe_id(&cr);
	is_str(s, t, "an empty fragment is no fragment");
	free(s);
	free(t);
	s = build_job_recipe(&cr, one_job(&jl, "testcase: t\nrun: true\n"
	    "kconfig:\n  CONFIG_REFUSED: y\n  CONFIG_PRINTK: y\n"), &t);
	is_str(s, recipe, "a job's recipe: its kconfig: map is the fragment");
	is_str(t, fragment, "and the fragment comes back, sorted");
	free(s);
	free(t);
	s = build_job_recipe(&cr, one_job(&jl, "testcase: t\nrun: true\n"),
	    &t);
	env = build_recipe_id(&cr);
	ok(t == NULL && strcmp(s, env) == 0, "a job without kconfig: the "
	    "repository's recipe");
	free(s);
	free(env);

	setenv("KBUILD_BUILD_USER", "someone", 1);
	setenv("GIT_DIR", "/elsewhere/.git", 1);
	setenv("GIT_WORK_TREE", "/elsewhere", 1);
	ok(build(r, &cr, "A", fragment, recipe, &out, &cause) == 0 &&
	    out.outcome == BUILD_OK, "build A: tinyconfig + fragment");
	if (cause != NULL)
		diag("%s", cause);
	s = fixture_read(out.artifact_dir, ".config");
	ok(s != NULL && has_line(s, "CONFIG_64BIT=y") &&
	    has_line(s, "CONFIG_BASE=y") && has_line(s, "CONFIG_PRINTK=y") &&
	    !has_line(s, "# CONFIG_PRINTK is not set") &&
	    !has_line(s, "CONFIG_REFUSED=y"), "the entry's .config: base, "
	    "fragment over it, olddefconfig's refusal");
	free(s);
	ok(out.kconfig_warnings != NULL && strstr(out.kconfig_warnings,
	    "CONFIG_REFUSED=y requested, is not in the final .config") !=
	    NULL, "the refused value is reported");
	is_str(out.kernel_release, "6.1.0-fake", "kernel release");
	s = path_join(out.artifact_dir, "arch/x86/boot/bzImage");
	t = NULL;
	if (file_read(s, &t, &len, NULL) == 0)
		hash_sha256_hex(t, len, hex);
	else
		hex[0] = '\0';
	is_str(out.image_hash, hex, "image hash is the bzImage's sha256");
	ok(t != NULL && strstr(t, "Thu Jan  1 00:00:00 UTC 1970 someone") !=
	    NULL, "fixed build timestamp; the user's KBUILD_BUILD_USER wins");
	free(t);
	free(s);
	ok(out.same_as == NULL, "A's parent is not built");
	hash_a = out.image_hash != NULL ? xstrdup(out.image_hash) : NULL;
	s = fixture_read(out.artifact_dir, BUILD_KERNEL_META);
	t = xasprintf("image_hash %s\nkernel_release 6.1.0-fake\n"
	    "artifacts_hash %s\n", hex, out.artifacts_hash != NULL ?
	    out.artifacts_hash : "");
	is_str(s, t, "metadata file in the entry");
	ok(out.artifacts_hash != NULL && strcmp(out.artifacts_hash, hex) != 0,
	    "the artifacts' digest covers more than the image");
	free(s);
	free(t);
	ok(file_exists(s = path_join(out.artifact_dir,
	    "install/lib/modules/6.1.0-fake/mod-a")), "modules installed");
	free(s);
	build_output_release(&out);

	s = xasprintf("%s/slots/linux/0/build-%s", workdir, recipe);
	env = fixture_read(s, "build.env");
	free(s);
	s = xasprintf("INSTALL_MOD_PATH=%s/slots/linux/0/build-%s/install",
	    workdir, recipe);
	ok(env != NULL && has_line(env, s) &&
	    has_line(env, "KBUILD_BUILD_HOST=bisectd") &&
	    has_line(env, "KBUILD_BUILD_VERSION=1"), "kbuild's environment");
	free(s);
	s = xasprintf("GIT_CEILING_DIRECTORIES=%s/slots", workdir);
	ok(env != NULL && has_line(env, "LOCALVERSION=") && has_line(env, s) &&
	    strstr(env, "GIT_DIR=") == NULL &&
	    strstr(env, "GIT_WORK_TREE=") == NULL, "no local version from "
	    "git: LOCALVERSION empty, GIT_DIR and GIT_WORK_TREE removed, no "
	    "repository above the worktree");
	free(s);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	if (access("/usr/lib/ccache/gcc", X_OK) == 0) {
		s = xasprintf("CCACHE_DIR=%s/ccache", workdir);
		ok(env != NULL && strstr(env, "\nPATH=/usr/lib/ccache:") !=
		    NULL && has_line(env, s), "ccache first in PATH");
		free(s);
	} else
		ok(1, "# skip ccache is not installed");
	free(env);

	ok(build(r, &cr, "A", fragment, recipe, &out, &cause) == 0 &&
	    out.outcome == BUILD_OK, "A again: from the cache");
	is_str(out.image_hash, hash_a, "the cache hit carries the hash");
	is_str(out.kernel_release, "6.1.0-fake", "and the release");
	build_output_release(&out);

	ok(build(r, &cr, "DOCS", fragment, recipe, &out, &cause) == 0 &&
	    out.outcome == BUILD_OK, "build DOCS");
	is_str(out.same_as, oid_a, "a documentation change: the parent's "
	    "image");
	is_str(out.image_hash, hash_a, "same hash");
	s = fixture_read(workdir, out.log_path);
	ok(s != NULL && strstr(s, "identical to the build of the parent") !=
	    NULL, "said in the build log");
	free(s);
	build_output_release(&out);

	ok(build(r, &cr, "B", fragment, recipe, &out, &cause) == 0 &&
	    out.outcome == BUILD_OK, "build B");
	ok(out.same_as == NULL && out.image_hash != NULL && hash_a != NULL &&
	    strcmp(out.image_hash, hash_a) != 0, "a code change: another "
	    "image");
	s = path_join(out.artifact_dir, "install/lib/modules/6.1.0-fake");
	t = path_join(s, "mod-a");
	ok(!file_exists(t), "an earlier build's modules are gone");
	free(t);
	t = path_join(s, "mod-b");
	ok(file_exists(t), "this build's are there");
	free(t);
	free(s);
	build_output_release(&out);

	ok(build(r, &cr, "B", NULL, recipe, &out, &cause) == -1 &&
	    cause != NULL && strstr(cause, "recipe") != NULL,
	    "a build row's recipe that the config no longer makes: %s",
	    cause != NULL ? cause : "");
	free(cause);
	cause = NULL;

	free(cr.kconfig);
	cr.kconfig = path_join(fixture_dir, "brokenconfig");
	ok(build(r, &cr, "A", NULL, NULL, &out, &cause) == 0 &&
	    out.outcome == BUILD_FAILED, "a failing base target fails the "
	    "build");
	ok(out.log_tail != NULL && strstr(out.log_tail, "no such target") !=
	    NULL, "with make's message in the tail");
	build_output_release(&out);

	free(cr.kconfig);
	cr.kconfig = path_join(fixture_dir, "base.config");
	file_write_atomic(cr.kconfig, "CONFIG_FILEBASE=y\n", 18, NULL);
	ok(build(r, &cr, "A", "# CONFIG_FILEBASE is not set\n", NULL, &out,
	    &cause) == 0 && out.outcome == BUILD_OK, "a file base");
	s = out.artifact_dir != NULL ?
	    fixture_read(out.artifact_dir, ".config") : NULL;
	ok(s != NULL && has_line(s, "# CONFIG_FILEBASE is not set") &&
	    !has_line(s, "CONFIG_FILEBASE=y"), "the fragment wins over it");
	ok(out.kconfig_warnings == NULL, "no warning");
	free(s);
	build_output_release(&out);

	free(cr.kconfig);
	free(recipe);
	free(hash_a);
	job_list_free(jl, jl != NULL ? 1 : 0);
	repo_free(r);
}

int
main(void)
{
	if (fixture_start("build-kernel") != 0)
		return 1;
	unsetenv("KBUILD_BUILD_TIMESTAMP");
	unsetenv("KBUILD_BUILD_HOST");
	unsetenv("KBUILD_BUILD_VERSION");
	fixture();
	test_kernel();
	fixture_finish();
	free(src);
	free(workdir);
	return tap_done();
}
