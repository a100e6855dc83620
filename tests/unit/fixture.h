/*
 * What the unit tests that build git repositories share (test-repo.c,
 * test-build.c, test-build-kernel.c): a scratch directory under /tmp,
 * kept when a check failed, and shell scripts run in a directory of it
 * with the fixtures' helpers -- HOME inside the scratch directory, a
 * fixed identity, and dates that move one minute per commit (from
 * $TEST_T, 1700000000 by default), so that object ids do not change from
 * run to run:
 *
 *	tick		advance the author and committer date
 *	c NAME		add NAME.t, commit "NAME", tag it NAME
 *	m NAME REV	merge REV with --no-ff as "NAME", tag it NAME
 *	commit NAME	commit the whole tree as "NAME", tag it NAME
 *
 * Header-only, its functions static: each tests/unit/test-*.c is a
 * program of its own. Include it after tap.h.
 */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "util/file.h"
#include "util/xalloc.h"

/* The scratch directory, once fixture_start has made it. */
static char	*fixture_dir;

static const char fixture_preamble[] =
	"set -e\n"
	"export HOME=\"$TEST_TMP\" GIT_CONFIG_NOSYSTEM=1\n"
	"export GIT_AUTHOR_NAME='A U Thor'\n"
	"export GIT_AUTHOR_EMAIL=author@example.com\n"
	"export GIT_COMMITTER_NAME='C O Mitter'\n"
	"export GIT_COMMITTER_EMAIL=committer@example.com\n"
	"t=${TEST_T:-1700000000}\n"
	"tick() { t=$((t + 60)); export GIT_AUTHOR_DATE=\"$t +0000\" "
	"GIT_COMMITTER_DATE=\"$t +0000\"; }\n"
	"c() { tick; echo \"$1\" > \"$1.t\"; git add \"$1.t\"; "
	"git commit -q -m \"$1\"; git tag \"$1\"; }\n"
	"m() { tick; git merge -q --no-ff -m \"$1\" \"$2\"; git tag \"$1\"; }\n"
	"commit() { git add -A; tick; git commit -q -m \"$1\"; "
	"git tag \"$1\"; }\n";

/* Make /tmp/bisectd-test-NAME.XXXXXX; -1 (said on stderr) if it fails. */
static inline int
fixture_start(const char *name)
{
	char	*tmpl = xasprintf("/tmp/bisectd-test-%s.XXXXXX", name);

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		free(tmpl);
		return -1;
	}
	fixture_dir = tmpl;
	return 0;
}

/* Remove the scratch directory, or keep it for a look when a check failed. */
static inline void
fixture_finish(void)
{
	if (fixture_dir == NULL)
		return;
	if (tap_failed == 0)
		dir_remove_tree(fixture_dir, NULL);
	else
		diag("fixtures kept in %s", fixture_dir);
	free(fixture_dir);
	fixture_dir = NULL;
}

/* Run script in dir after the preamble; 0 when it succeeded. */
static inline int
fixture_sh(const char *dir, const char *script)
{
	char	*path = xasprintf("%s/script.sh", fixture_dir), *cmd;
	FILE	*f;
	int	 rv;

	if ((f = fopen(path, "w")) == NULL) {
		free(path);
		return -1;
	}
	fprintf(f, "%s\ncd '%s'\n%s\n", fixture_preamble, dir, script);
	fclose(f);
	cmd = xasprintf("TEST_TMP='%s' sh '%s'", fixture_dir, path);
	rv = system(cmd);
	free(cmd);
	free(path);
	return rv;
}

/* The contents of dir/name, or NULL. */
static inline char *
fixture_read(const char *dir, const char *name)
{
	char	*p = path_join(dir, name), *buf = NULL;
	size_t	 len;

	if (file_read(p, &buf, &len, NULL) != 0)
		buf = NULL;
	free(p);
	return buf;
}

/* Whether dir/name exists. */
static inline int
fixture_exists(const char *dir, const char *name)
{
	char	*p = path_join(dir, name);
	int	 rv = file_exists(p);

	free(p);
	return rv;
}

#endif
