/*
 * Unit tests for util/dir.c: the walker's order, skips, leaves and depth
 * limit, and the tree copy and removal built on it.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct seen {
	struct strbuf	 sb;
	const char	*skip;
};

static int
seen_visit(const struct dir_walk_entry *e, void *arg, char **cause)
{
	struct seen	*s = arg;

	strbuf_addf(&s->sb, "%s%s:%d ", e->rel, S_ISDIR(e->st->st_mode) ?
	    "/" : S_ISLNK(e->st->st_mode) ? "@" : "", e->depth);
	if (s->skip != NULL && strcmp(e->rel, s->skip) == 0)
		return DIR_WALK_SKIP;
	return 0;
}

static int
seen_leave(const struct dir_walk_entry *e, void *arg, char **cause)
{
	struct seen	*s = arg;

	strbuf_addf(&s->sb, "<%s ", e->name);
	return 0;
}

static int
refuse_visit(const struct dir_walk_entry *e, void *arg, char **cause)
{
	if (strcmp(e->name, "c") == 0)
		return error_set(cause, "no '%s'", e->rel);
	return 0;
}

static void
make_tree(const char *dir)
{
	char	*p;

	p = path_join(dir, "b/d");
	dir_create(p, NULL);
	free(p);
	p = path_join(dir, "b/c");
	file_write_atomic(p, "c", 1, NULL);
	free(p);
	p = path_join(dir, "a");
	file_write_atomic(p, "a", 1, NULL);
	chmod(p, 0751);
	free(p);
	p = path_join(dir, "l");
	symlink("a", p);
	free(p);
	p = path_join(dir, "b/d/e");
	file_write_atomic(p, "e", 1, NULL);
	free(p);
}

static void
test_walk(const char *dir)
{
	struct seen	 s = { STRBUF_INIT, NULL };
	struct dir_walk	 w = { seen_visit, NULL, &s, 0 };
	char		*cause = NULL;

	is_int(dir_walk(dir, &w, &cause), 0, "walk");
	is_str(s.sb.buf, "a:0 b/:0 b/c:1 b/d/:1 b/d/e:2 l@:0 ",
	    "entries in name order, directories before their contents");
	strbuf_reset(&s.sb);
	w.leave = seen_leave;
	s.skip = "b/d";
	is_int(dir_walk(dir, &w, &cause), 0, "walk with a skip");
	is_str(s.sb.buf, "a:0 b/:0 b/c:1 b/d/:1 <b l@:0 ",
	    "a skipped directory is not entered nor left");
	strbuf_reset(&s.sb);
	w.max_depth = 1;
	s.skip = NULL;
	ok(dir_walk(dir, &w, &cause) == -1 && cause != NULL &&
	    strstr(cause, "b/d' is nested too deep") != NULL,
	    "past max_depth: an error before the visit");
	is_str(s.sb.buf, "a:0 b/:0 b/c:1 ", "nothing visited past it");
	free(cause);
	cause = NULL;
	w.visit = refuse_visit;
	w.leave = NULL;
	w.max_depth = 0;
	ok(dir_walk(dir, &w, &cause) == -1 && cause != NULL &&
	    strcmp(cause, "no 'b/c'") == 0, "a visitor's error stops the walk");
	free(cause);
	cause = NULL;
	w.visit = seen_visit;
	ok(dir_walk("/nonexistent/dir", &w, &cause) == -1 && cause != NULL &&
	    strstr(cause, "couldn't read directory") != NULL,
	    "a missing root is an error");
	free(cause);
	strbuf_release(&s.sb);
}

static void
test_copy_remove(const char *dir)
{
	char		*from = path_join(dir, "from"), *to = path_join(dir, "to");
	char		*p, *buf = NULL, *cause = NULL, link[64];
	struct stat	 st;
	ssize_t		 n;

	dir_create(from, NULL);
	make_tree(from);
	is_int(dir_copy_tree(from, to, &cause), 0, "copy a tree");
	p = path_join(to, "b/d/e");
	ok(file_read(p, &buf, NULL, NULL) == 0 && strcmp(buf, "e") == 0,
	    "a nested file is copied");
	free(buf);
	free(p);
	p = path_join(to, "a");
	ok(stat(p, &st) == 0 && (st.st_mode & 0777) == 0751,
	    "with its mode");
	free(p);
	p = path_join(to, "l");
	n = readlink(p, link, sizeof link - 1);
	ok(n == 1 && link[0] == 'a', "a link is copied as a link");
	free(p);
	is_int(dir_remove_tree(to, &cause), 0, "remove the copy");
	ok(!file_exists(to), "it is gone");
	ok(file_exists(from), "the original is not");
	is_int(dir_remove_tree(to, &cause), 0, "a missing tree: no error");
	p = path_join(from, "a");
	is_int(dir_remove_tree(p, &cause), 0, "a file is removed too");
	ok(!file_exists(p), "the file is gone");
	free(p);
	free(cause);
	free(from);
	free(to);
}

int
main(void)
{
	char	 tmpl[] = "/tmp/bisectd-test-dir.XXXXXX";
	char	*dir = mkdtemp(tmpl), *tree;

	ok(dir != NULL, "mkdtemp");
	tree = path_join(dir, "tree");
	dir_create(tree, NULL);
	make_tree(tree);
	test_walk(tree);
	test_copy_remove(dir);
	is_int(dir_remove_tree(dir, NULL), 0, "clean up");
	free(tree);
	return tap_done();
}
