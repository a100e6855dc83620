/*
 * Unit tests for util/: strings, errors, files, hashing.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void
test_strbuf(void)
{
	struct strbuf	 sb = STRBUF_INIT;
	char		*s;
	size_t		 len;
	int		 i;

	is_str(sb.buf, "", "empty strbuf reads as empty string");
	for (i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	ok(sb.len == strlen(sb.buf), "length tracks contents");
	ok(strncmp(sb.buf, "0,1,2,", 6) == 0, "formatted appends");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "abc  \n");
	strbuf_rtrim(&sb);
	is_str(sb.buf, "abc", "rtrim drops trailing white space");
	s = strbuf_detach(&sb, &len);
	is_int(len, 3, "detach returns length");
	is_str(s, "abc", "detach returns contents");
	is_str(sb.buf, "", "detached strbuf is empty again");
	free(s);
	strbuf_release(&sb);
}

static void
test_error(void)
{
	char	*cause = NULL;

	is_int(error_set(&cause, "couldn't open '%s'", "x"), -1,
	    "error_set returns -1");
	is_str(cause, "couldn't open 'x'", "message formatted");
	error_prefix(&cause, "loading '%s'", "y");
	is_str(cause, "loading 'y': couldn't open 'x'", "prefix prepends");
	free(cause);
	is_int(error_set(NULL, "ignored"), -1, "NULL cause is allowed");
}

static void
test_file(void)
{
	char		 tmpl[] = "/tmp/bisectd-test-util.XXXXXX";
	char		*dir = mkdtemp(tmpl), *p, *q, *buf = NULL;
	char		*cause = NULL;
	struct strbuf	 sb = STRBUF_INIT;
	size_t		 len;

	ok(dir != NULL, "mkdtemp");
	p = path_join(dir, "a/b/c");
	is_int(dir_create(p, &cause), 0, "dir_create makes parents");
	q = path_join(p, "f");
	is_int(file_write_atomic(q, "hello", 5, &cause), 0, "atomic write");
	is_int(file_read(q, &buf, &len, &cause), 0, "read back");
	ok(len == 5 && memcmp(buf, "hello", 5) == 0, "same contents");
	free(buf);
	is_int(file_read("/nonexistent/x", &buf, &len, &cause), -1,
	    "missing file fails");
	ok(cause != NULL && strstr(cause, "'/nonexistent/x'") != NULL,
	    "message names the file: %s", cause);
	free(cause);
	cause = NULL;
	free(q);
	q = path_join(p, "log");
	file_write_atomic(q, "one\ntwo\nthree\n", 14, NULL);
	is_int(file_read_tail(q, 100, &buf, &len, &cause), 0, "tail, short");
	ok(len == 14 && strcmp(buf, "one\ntwo\nthree\n") == 0,
	    "a short file whole");
	free(buf);
	is_int(file_read_tail(q, 8, &buf, &len, &cause), 0, "tail, cut");
	is_str(buf, "three\n", "the last 8 bytes, from a line start");
	free(buf);
	strbuf_reset(&sb);
	file_tail_append(&sb, q, 8);
	ok(strstr(sb.buf, ": three") != NULL &&
	    sb.buf[sb.len - 1] == 'e', "appended for a cause: %s", sb.buf);
	strbuf_release(&sb);
	free(q);
	q = path_dirname("/a/b/c");
	is_str(q, "/a/b", "dirname");
	free(q);
	q = path_absolute("x/y", "/base");
	is_str(q, "/base/x/y", "absolute against base");
	free(q);
	is_int(dir_remove_tree(dir, &cause), 0, "remove tree");
	ok(!file_exists(dir), "tree is gone");
	free(p);
}

static void
test_hash(void)
{
	char		 tmpl[] = "/tmp/bisectd-test-hash.XXXXXX";
	char		*dir = mkdtemp(tmpl), *f, *l, *cause = NULL;
	char		 hex[HASH_HEX_LEN + 1], fed[HASH_HEX_LEN + 1];
	struct hash	*h;

	hash_sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad", "sha256 of abc");
	h = hash_new();
	hash_update(h, "a", 1);
	hash_update(h, "bc", 2);
	hash_finish(h, fed);
	is_str(fed, hex, "fed in pieces, the same digest");

	ok(dir != NULL, "mkdtemp");
	f = path_join(dir, "f");
	l = path_join(dir, "l");
	file_write_atomic(f, "abc", 3, NULL);
	ok(symlink("f", l) == 0, "a link to it");
	h = hash_new();
	is_int(hash_file(h, f, 1, &cause), 0, "hash a file");
	hash_finish(h, fed);
	is_str(fed, hex, "a file's digest is its contents'");
	h = hash_new();
	is_int(hash_file(h, l, 0, &cause), 0, "a link, followed");
	hash_finish(h, fed);
	is_str(fed, hex, "the file it names");
	h = hash_new();
	is_int(hash_file(h, l, 1, &cause), -1, "nofollow: a link is refused");
	ok(cause != NULL && strstr(cause, "couldn't open") != NULL,
	    "said: %s", cause);
	hash_free(h);
	free(cause);
	dir_remove_tree(dir, NULL);
	free(f);
	free(l);
}

int
main(void)
{
	test_strbuf();
	test_error();
	test_file();
	test_hash();
	return tap_done();
}
