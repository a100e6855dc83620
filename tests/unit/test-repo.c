/*
 * Unit tests for bisectd/repo.c: resolving revisions, reading commits,
 * loading ranges (checked against git rev-list on linear and merge-heavy
 * histories) and the persistent worktree checkout (checked against git
 * archive). Fixtures are made with the git CLI in a temporary directory,
 * with fixed dates.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisectd/repo.h"
#include "tests/unit/tap.h"
#include "tests/unit/fixture.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The stdout of a shell command run in dir. */
static char *
sh_out(const char *dir, const char *cmd)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*full, buf[4096];
	FILE		*p;
	size_t		 n;

	full = xasprintf("cd '%s' && HOME='%s' %s", dir, fixture_dir, cmd);
	p = popen(full, "r");
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&sb, buf, n);
	pclose(p);
	free(full);
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

static struct repo *
open_repo(const char *name, const char *path)
{
	struct config_repo	 cr;
	struct repo		*r = NULL;
	char			*cause = NULL;

	memset(&cr, 0, sizeof cr);
	cr.name = (char *)name;
	cr.path = (char *)path;
	if (repo_open(&cr, &r, &cause) != 0) {
		diag("repo_open: %s", cause);
		free(cause);
	}
	return r;
}

static void
test_resolve(void)
{
	struct repo_commit	 c;
	struct repo		*r;
	char			*dir = path_join(fixture_dir, "linear"), *want;
	char			*cause = NULL;
	char			 oid[REPO_OID_HEX + 1], *cmd;

	dir_create(dir, NULL);
	is_int(fixture_sh(dir, "git init -q -b main\n"
	    "for x in A B C D E F G H I J; do c $x; done\n"
	    "git tag -a -m 'release' v1.0 E\n"
	    "tick; echo x > x.t; git add x.t\n"
	    "git commit -q -m 'mm: a subject' -m 'the body, which is long'\n"
	    "git tag K\n"), 0, "linear fixture");
	ok((r = open_repo("lin", dir)) != NULL, "open");
	if (r == NULL)
		return;

	want = sh_out(dir, "git rev-parse main");
	ok(repo_resolve(r, "main", oid, &cause) == 0, "resolve branch");
	is_str(oid, want, "branch -> its commit");
	free(want);

	want = sh_out(dir, "git rev-parse 'v1.0^{commit}'");
	ok(repo_resolve(r, "v1.0", oid, &cause) == 0, "resolve annotated tag");
	is_str(oid, want, "annotated tag peeled to its commit");
	cmd = xasprintf("git rev-parse --short=9 %s", want);
	free(want);
	want = sh_out(dir, cmd);
	free(cmd);
	ok(repo_resolve(r, want, oid, &cause) == 0, "resolve short sha %s",
	    want);
	ok(strncmp(oid, want, strlen(want)) == 0 && strlen(oid) == 40,
	    "short sha expands");
	free(want);

	want = sh_out(dir, "git rev-parse HEAD~2");
	ok(repo_resolve(r, "HEAD~2", oid, &cause) == 0, "resolve HEAD~2");
	is_str(oid, want, "HEAD~2");
	free(want);

	ok(repo_resolve(r, "no-such-branch", oid, &cause) == -1,
	    "bad rev fails");
	is_str(cause, "couldn't resolve 'no-such-branch' in repository 'lin'",
	    "bad rev message");
	free(cause);
	cause = NULL;

	want = sh_out(dir, "git rev-parse K");
	ok(repo_commit_read(r, want, &c, &cause) == 0, "commit_read");
	is_str(c.oid, want, "commit oid");
	is_str(c.subject, "mm: a subject", "subject is the first line");
	is_str(c.author, "A U Thor <author@example.com>", "author");
	is_int(c.time, 1700000000 + 11 * 60, "author time");
	is_int(c.nr_parents, 1, "one parent");
	repo_commit_release(&c);
	free(want);
	ok(repo_commit_read(r, "A", &c, &cause) == 0, "commit_read by rev");
	is_str(c.subject, "A", "root subject");
	is_int(c.nr_parents, 0, "root has no parents");
	repo_commit_release(&c);

	repo_free(r);
	free(dir);
}

/*
 * Check repo_range_load against `git rev-list --parents BAD ^GOOD...`:
 * same commits in the same order, and the same parent edges among the
 * candidates and the good ends.
 */
static void
check_range(struct repo *r, const char *dir, const char *bad,
    const char *const *good, size_t nr_good)
{
	struct repo_range	 rr;
	struct strbuf		 cmd = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf		 got = STRBUF_INIT;
	char			*out, *line, *save, *tok, *save2, *cause = NULL;
	char			*goods_hex;
	size_t			 i, j, n = 0, idx;
	int			 same_order = 1, missing = 0;

	memset(&rr, 0, sizeof rr);
	strbuf_addf(&cmd, "git rev-list --parents %s", bad);
	for (i = 0; i < nr_good; i++)
		strbuf_addf(&cmd, " ^%s", good[i]);
	if (!ok(repo_range_load(r, good, nr_good, bad, &rr, &cause) == 0,
	    "range %s", cmd.buf)) {
		diag("%s", cause);
		free(cause);
		strbuf_release(&cmd);
		return;
	}
	strbuf_reset(&want);
	strbuf_addstr(&want, "git rev-parse");
	for (i = 0; i < nr_good; i++) {
		for (j = 0; j < i; j++) {
			if (strcmp(good[i], good[j]) == 0)
				break;
		}
		if (j == i)
			strbuf_addf(&want, " %s", good[i]);
	}
	goods_hex = sh_out(dir, want.buf);
	strbuf_reset(&want);

	/* Edges as text, "commit: parent parent", only parents in the set. */
	out = sh_out(dir, cmd.buf);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " ", &save2);
		idx = repo_range_find(&rr, tok);
		if (idx == (size_t)-1)
			missing++;
		if (n >= rr.nr_commits || strcmp(rr.oids[n], tok) != 0)
			same_order = 0;
		n++;
		strbuf_addf(&want, "%s:", tok);
		while ((tok = strtok_r(NULL, " ", &save2)) != NULL) {
			if (repo_range_find(&rr, tok) != (size_t)-1)
				strbuf_addf(&want, " %s", tok);
		}
		strbuf_addch(&want, '\n');
	}
	free(out);
	for (i = 0; i < rr.nr_commits - rr.nr_good; i++) {
		strbuf_addf(&got, "%s:", rr.commits[i].name);
		for (j = 0; j < rr.commits[i].nr_parents; j++)
			strbuf_addf(&got, " %s",
			    rr.commits[rr.commits[i].parents[j]].name);
		strbuf_addch(&got, '\n');
	}
	is_int(rr.nr_commits - rr.nr_good, n, "same number of candidates");
	is_int(missing, 0, "every rev-list commit is in the range");
	ok(same_order, "same order as rev-list");
	ok(strcmp(want.buf, got.buf) == 0, "same parent edges");
	if (strcmp(want.buf, got.buf) != 0)
		diag("want:\n%s\ngot:\n%s", want.buf, got.buf);
	is_int(rr.bad, 0, "bad comes first");
	strbuf_reset(&got);
	for (i = 0; i < rr.nr_good; i++) {
		strbuf_addf(&got, "%s%s", i ? "\n" : "",
		    rr.commits[rr.good[i]].name);
		ok(rr.commits[rr.good[i]].nr_parents == 0 &&
		    rr.good[i] >= rr.nr_commits - rr.nr_good,
		    "good end %zu follows the candidates", i);
	}
	is_str(got.buf, goods_hex, "good ends in the order given");
	for (i = 0; i < rr.nr_commits; i++) {
		if (rr.commits[i].build != BISECT_BUILD_UNKNOWN ||
		    rr.commits[i].samples != NULL)
			break;
	}
	is_int(i, rr.nr_commits, "builds unknown, no samples");
	free(goods_hex);
	repo_range_release(&rr);
	strbuf_release(&cmd);
	strbuf_release(&want);
	strbuf_release(&got);
}

static void
test_range(void)
{
	struct repo_range	 rr;
	struct repo		*r;
	char			*dir = path_join(fixture_dir, "merges");
	char			*cause = NULL;
	const char		*g1[] = { "A" }, *g2[] = { "D" }, *g3[] = { "F" };
	const char		*g4[] = { "D", "X1" }, *g5[] = { "B", "C", "B" };
	const char		*g6[] = { "J" }, *g7[] = { "X2" };
	const char		*g8[] = { "M1" }, *g9[] = { "Y2", "C" };
	const struct {
		const char	**good;
		size_t		  nr_good;
		const char	 *bad;
		const char	 *what;
		const char	 *cause;
	} bad[] = {
		{ g6, 1, "D", "good after bad",
		    "good 'J' is not an ancestor of bad 'D'" },
		{ g7, 1, "H", "good on an unmerged branch",
		    "good 'X2' is not an ancestor of bad 'H'" },
		{ g9, 2, "J", "one good end out of two off the history",
		    "good 'Y2' is not an ancestor of bad 'J'" },
		{ g2, 1, "nope", "unknown bad",
		    "couldn't resolve 'nope' in repository 'm'" },
	};
	size_t			 i;

	/*
	 * A-B-C-D---M1-H---M2-J     main
	 *    \     /      /
	 *     E-F-G      /          side (forked before the good end D)
	 *        \      /
	 *         X1-X2             x (forked from F), merged later
	 *   Y1-Y2                   y (from A, never merged)
	 */
	dir_create(dir, NULL);
	is_int(fixture_sh(dir, "git init -q -b main\n"
	    "c A; c B; git branch side; c C; c D\n"
	    "git checkout -q side; c E; c F; git branch x; c G\n"
	    "git checkout -q main; m M1 side; c H\n"
	    "git checkout -q x; c X1; c X2\n"
	    "git checkout -q main; m M2 x; c J\n"
	    "git checkout -q -b y A; c Y1; c Y2\n"
	    "git checkout -q main\n"), 0, "merge fixture");
	if ((r = open_repo("m", dir)) == NULL)
		return;

	check_range(r, dir, "J", g1, 1);
	check_range(r, dir, "J", g2, 1);
	check_range(r, dir, "J", g3, 1);
	check_range(r, dir, "J", g4, 2);
	check_range(r, dir, "M2", g5, 3);
	check_range(r, dir, "H", g2, 1);
	check_range(r, dir, "X2", g1, 1);
	check_range(r, dir, "J", g8, 1);
	check_range(r, dir, "Y2", g1, 1);

	memset(&rr, 0, sizeof rr);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ok(repo_range_load(r, bad[i].good, bad[i].nr_good, bad[i].bad,
		    &rr, &cause) == -1, "%s fails", bad[i].what);
		is_str(cause, bad[i].cause, "%s: the message", bad[i].what);
		free(cause);
		cause = NULL;
	}
	ok(rr.commits == NULL && rr.map == NULL, "nothing handed over");
	repo_free(r);
	free(dir);
}

/* A bigger history with many merges between three branches. */
static void
test_range_random(void)
{
	struct repo	*r;
	char		*dir = path_join(fixture_dir, "random");
	const char	*g1[] = { "c5" }, *g2[] = { "c10", "c23" };
	const char	*g3[] = { "c3", "c4", "c7" }, *g4[] = { "m14" };

	dir_create(dir, NULL);
	is_int(fixture_sh(dir, "git init -q -b b0\n"
	    "c c0; git branch b1; git branch b2\n"
	    "i=1; while [ $i -le 60 ]; do\n"
	    "  b=$((i % 3)); git checkout -q b$b; c c$i\n"
	    "  if [ $((i % 7)) = 0 ]; then m m$i b$(((i + 1) % 3)); fi\n"
	    "  i=$((i + 1))\n"
	    "done\n"
	    "git checkout -q b0; m top b1; m top2 b2\n"), 0,
	    "random fixture");
	if ((r = open_repo("rnd", dir)) == NULL)
		return;
	check_range(r, dir, "top2", g1, 1);
	check_range(r, dir, "top2", g2, 2);
	check_range(r, dir, "top", g3, 3);
	check_range(r, dir, "top2", g4, 1);
	repo_free(r);
	free(dir);
}

/* The listing of a tree to compare: type, exec bit, symlink target. */
static const char list_fn[] =
	"list() { (cd \"$1\" && find . -mindepth 1 ! -name '.bisectd-*' "
	"! -name '*.o' \\( -type l -printf 'l %p -> %l\\n' -o "
	"-type f -perm -u+x -printf 'x %p\\n' -o -type f -printf 'f %p\\n' "
	"-o -type d -printf 'd %p\\n' \\) | sort); }\n";

/* Does dir match `git archive rev`, build outputs (*.o) aside? */
static int
matches_archive(const char *repo, const char *rev, const char *dir)
{
	char	*script;
	int	 rv;

	script = xasprintf("%s"
	    "rm -rf \"$TEST_TMP/ref\"; mkdir \"$TEST_TMP/ref\"\n"
	    "git archive %s | tar -x -C \"$TEST_TMP/ref\"\n"
	    "list \"$TEST_TMP/ref\" > \"$TEST_TMP/want\"\n"
	    "list '%s' > \"$TEST_TMP/got\"\n"
	    "diff -u \"$TEST_TMP/want\" \"$TEST_TMP/got\" >&2\n"
	    "diff -r --no-dereference -x '.bisectd-*' -x '*.o' "
	    "\"$TEST_TMP/ref\" '%s' >&2\n", list_fn, rev, dir, dir);
	rv = fixture_sh(repo, script);
	free(script);
	return rv == 0;
}

static int
mtime_of(const char *dir, const char *name, struct timespec *ts)
{
	struct stat	 st;
	char		*p = path_join(dir, name);
	int		 rv = stat(p, &st);

	free(p);
	if (rv == 0)
		*ts = st.st_mtim;
	return rv;
}

static void
set_old_mtime(const char *dir, const char *name)
{
	struct timespec	 ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char		*p = path_join(dir, name);

	utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW);
	free(p);
}

static void
test_checkout_fixture(void)
{
	char	*src = path_join(fixture_dir, "co");

	dir_create(src, NULL);
	is_int(fixture_sh(src, "git init -q -b main\n"
	    "mkdir -p sub/dir gone\n"
	    "echo keep > keep.txt; echo old > mod.txt; echo del > del.txt\n"
	    "printf '#!/bin/sh\\necho hi\\n' > exe.sh\n"
	    "echo nested > sub/dir/nested.txt; echo only > gone/only.txt\n"
	    "echo still > sub/still.txt; ln -s keep.txt link\n"
	    "git add -A; tick; git commit -q -m A; git tag A\n"
	    "echo new > mod.txt; git rm -q del.txt; echo add > add.txt\n"
	    "chmod +x exe.sh; git rm -q -r gone; mkdir newdir\n"
	    "echo deep > newdir/deep.txt; rm link; ln -s mod.txt link\n"
	    "git add -A; tick; git commit -q -m B; git tag B\n"
	    "echo c > c.txt; git add c.txt; tick; git commit -q -m C\n"
	    "git tag C\n"
	    "git clone -q --bare . \"$TEST_TMP/co.git\"\n"
	    "echo dirty > keep.txt; echo dirty > sub/still.txt\n"), 0,
	    "checkout fixture (and a bare clone; the source is left dirty)");
	free(src);
}

/*
 * Checkouts from repository path (bare or not) into a fresh worktree,
 * compared with git archive in the source repository.
 */
static void
test_checkout(const char *path, const char *wtname)
{
	struct repo	*r;
	struct timespec	 ts, before;
	char		*src = path_join(fixture_dir, "co");
	char		*wt = path_join(fixture_dir, wtname);
	char		*cause = NULL, *p, *buf = NULL;
	char		 a[REPO_OID_HEX + 1], b[REPO_OID_HEX + 1];
	char		 c[REPO_OID_HEX + 1];
	size_t		 len;

	diag("checkouts from %s", path);
	p = path_join(fixture_dir, path);
	r = open_repo("co", p);
	free(p);
	if (r == NULL)
		return;
	repo_resolve(r, "A", a, NULL);
	repo_resolve(r, "B", b, NULL);
	repo_resolve(r, "C", c, NULL);

	ok(repo_checkout(r, a, wt, &cause) == 0, "first checkout into a "
	    "missing directory");
	ok(matches_archive(src, "A", wt), "worktree is exactly A");
	p = path_join(wt, ".bisectd-checkout");
	ok(file_read(p, &buf, &len, NULL) == 0 && len == 41 &&
	    strncmp(buf, a, 40) == 0, "marker names A");
	free(buf);
	free(p);
	ok(!fixture_exists(wt, ".git"), "the worktree is no repository");

	/* Build outputs, and old dates on files A and B share. */
	is_int(fixture_sh(wt, "echo out > out.o; echo out > sub/out.o\n"), 0,
	    "build outputs");
	set_old_mtime(wt, "keep.txt");
	set_old_mtime(wt, "sub/dir/nested.txt");
	mtime_of(wt, "sub/still.txt", &before);

	ok(repo_checkout(r, b, wt, &cause) == 0, "checkout B over A");
	ok(matches_archive(src, "B", wt), "worktree is exactly B");
	ok(fixture_exists(wt, "out.o") &&
	    fixture_exists(wt, "sub/out.o"), "build outputs stay");
	ok(!fixture_exists(wt, "gone"), "emptied directory removed");
	ok(mtime_of(wt, "keep.txt", &ts) == 0 && ts.tv_sec == 1000000000,
	    "unchanged file keeps its mtime");
	ok(mtime_of(wt, "sub/dir/nested.txt", &ts) == 0 &&
	    ts.tv_sec == 1000000000, "unchanged nested file keeps its mtime");
	ok(mtime_of(wt, "sub/still.txt", &ts) == 0 &&
	    ts.tv_sec == before.tv_sec && ts.tv_nsec == before.tv_nsec,
	    "unchanged file (stat cache) keeps its mtime");

	set_old_mtime(wt, "mod.txt");
	ok(repo_checkout(r, b, wt, &cause) == 0, "checkout B again");
	ok(mtime_of(wt, "mod.txt", &ts) == 0 && ts.tv_sec == 1000000000,
	    "nothing rewritten");

	/* A file changed behind our back (an in-tree build) is restored. */
	is_int(fixture_sh(wt, "echo scribble > keep.txt\n"), 0, "scribble");
	ok(repo_checkout(r, c, wt, &cause) == 0, "checkout C");
	ok(matches_archive(src, "C", wt), "worktree is exactly C");

	p = path_join(wt, ".bisectd-checkout");
	unlink(p);
	ok(repo_checkout(r, a, wt, &cause) == 0, "checkout without a marker");
	ok(matches_archive(src, "A", wt), "full checkout gives exactly A");

	file_write_atomic(p, "garbage\n", 8, NULL);
	ok(repo_checkout(r, b, wt, &cause) == 0, "checkout with a bad marker");
	ok(matches_archive(src, "B", wt), "gives exactly B");

	/* As if a checkout from A to C had died half way. */
	is_int(fixture_sh(wt, "echo c > c.txt; echo old > mod.txt\n"), 0,
	    "half-way files");
	buf = xasprintf("%s %s\n", a, c);
	file_write_atomic(p, buf, strlen(buf), NULL);
	free(buf);
	ok(repo_checkout(r, b, wt, &cause) == 0, "checkout after a crash");
	ok(matches_archive(src, "B", wt), "gives exactly B");
	free(p);

	ok(repo_checkout(r, "no-such", wt, &cause) == -1, "bad rev fails");
	ok(cause != NULL && strstr(cause, "'no-such'") != NULL,
	    "message names it: %s", cause);
	free(cause);
	repo_free(r);
	free(src);
	free(wt);
}

/* The branches containing a commit: local and tracked, sorted, once. */
static void
test_branches(void)
{
	struct repo	*r;
	char		*dir = path_join(fixture_dir, "branches"), *cause = NULL;
	char		**v = NULL;
	size_t		 nr = 0, i;

	dir_create(dir, NULL);
	is_int(fixture_sh(dir, "git init -q -b main\n"
	    "c A; c B; git branch side; c C; git checkout -q side; c D\n"
	    "git checkout -q main\n"
	    "git update-ref refs/bisectd/track/linux-next C\n"
	    "git update-ref refs/bisectd/track/main C\n"), 0,
	    "branches fixture");
	if ((r = open_repo("br", dir)) == NULL) {
		ok(0, "open");
		free(dir);
		return;
	}
	ok(repo_branches_containing(r, "B", &v, &nr, &cause) == 0,
	    "branches containing B");
	is_int(nr, 3, "three branches have B");
	if (nr == 3) {
		is_str(v[0], "linux-next", "the tracked one");
		is_str(v[1], "main", "main, once though tracked too");
		is_str(v[2], "side", "and the side branch");
	}
	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
	ok(repo_branches_containing(r, "D", &v, &nr, &cause) == 0 &&
	    nr == 1 && strcmp(v[0], "side") == 0, "D is on side only");
	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
	ok(repo_branches_containing(r, "no-such", &v, &nr, &cause) == -1,
	    "an unknown commit is an error");
	free(cause);
	repo_free(r);
	free(dir);
}

int
main(void)
{
	if (fixture_start("repo") != 0)
		return 1;
	test_resolve();
	test_branches();
	test_range();
	test_range_random();
	test_checkout_fixture();
	test_checkout("co", "wt");
	test_checkout("co.git", "wt-bare");
	fixture_finish();
	return tap_done();
}
