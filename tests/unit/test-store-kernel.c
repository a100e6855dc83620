/*
 * Unit tests for schema/store-kernel.c: a build's kconfig fragment set and
 * read back, the image hash and release recorded, and the same-image
 * question between two commits (both ok with one hash; a failed build, a
 * missing one, another recipe or another hash say no).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/store-kernel.h"
#include "tests/unit/tap.h"
#include "util/file.h"
#include "util/xalloc.h"

static int64_t
built(struct store *st, const char *oid, const char *recipe,
    enum store_build_status status, const char *hash)
{
	int64_t	id = 0;

	if (store_build_ensure(st, "linux", oid, recipe, &id, NULL) != 0 ||
	    store_build_start(st, id, NULL) != 0 ||
	    store_build_finish(st, id, status, "/cache", "/log", "", 1.0,
	    NULL, NULL) != 0 ||
	    (hash != NULL && store_kernel_finish(st, id, hash, "6.1.0",
	    NULL) != 0))
		diag("couldn't make build %s", oid);
	return id;
}

int
main(void)
{
	char				 tmpl[] = "/tmp/bisectd-test-sk.XXXXXX";
	char				*dir = mkdtemp(tmpl), *db, *cause = NULL;
	struct store			*st = NULL;
	struct store_kernel_build	 kb;
	int64_t				 id;

	db = path_join(dir, "bisectd.db");
	if (!ok(store_open(db, &st, &cause) == 0, "open"))
		return tap_done();

	ok(store_build_ensure(st, "linux", "aaaa", "r1", &id, &cause) == 0,
	    "a build");
	ok(store_kernel_get(st, id, &kb, &cause) == 0 && kb.kconfig == NULL &&
	    kb.image_hash == NULL && kb.kernel_release == NULL,
	    "new: all NULL");
	store_kernel_build_release(&kb);
	ok(store_kernel_set_kconfig(st, id, "CONFIG_SMP=y\n", &cause) == 0,
	    "set the fragment");
	ok(store_kernel_finish(st, id, "abcd", "6.1.192", &cause) == 0,
	    "record the image");
	ok(store_kernel_get(st, id, &kb, &cause) == 0, "get");
	is_str(kb.kconfig, "CONFIG_SMP=y\n", "fragment back");
	is_str(kb.image_hash, "abcd", "hash back");
	is_str(kb.kernel_release, "6.1.192", "release back");
	store_kernel_build_release(&kb);
	ok(store_kernel_get(st, 999, &kb, &cause) == -1 && cause != NULL &&
	    strcmp(cause, "no build 999") == 0, "no such build");
	free(cause);
	cause = NULL;
	ok(store_kernel_finish(st, 999, "x", NULL, &cause) == -1,
	    "finish of no build fails");
	free(cause);
	cause = NULL;

	built(st, "p1", "r2", STORE_BUILD_OK, "h1");
	built(st, "c1", "r2", STORE_BUILD_OK, "h1");
	built(st, "c2", "r2", STORE_BUILD_OK, "h2");
	built(st, "c3", "r2", STORE_BUILD_FAILED, "h1");
	built(st, "c1", "r3", STORE_BUILD_OK, "h9");
	is_int(store_kernel_same_image(st, "linux", "r2", "c1", "p1", &cause),
	    1, "same image as the parent");
	is_int(store_kernel_same_image(st, "linux", "r2", "c2", "p1", &cause),
	    0, "another image");
	is_int(store_kernel_same_image(st, "linux", "r2", "c3", "p1", &cause),
	    0, "a failed build is no image");
	is_int(store_kernel_same_image(st, "linux", "r2", "c9", "p1", &cause),
	    0, "a missing build is no image");
	is_int(store_kernel_same_image(st, "linux", "r3", "c1", "p1", &cause),
	    0, "another recipe");

	store_close(st);
	unlink(db);
	free(db);
	db = xasprintf("rm -rf '%s'", dir);
	if (system(db) != 0)
		diag("couldn't remove %s", dir);
	free(db);
	return tap_done();
}
