/*
 * Kernel build rows: the columns migration 0005 adds to builds. Kept apart
 * from store-build.c so that the build rows of any project read as before.
 */
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

#include "schema/store-internal.h"
#include "schema/store-kernel.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char sql_kernel_set_kconfig[] =
    "UPDATE builds SET kconfig = ? WHERE id = ?";
static const char sql_kernel_finish[] =
    "UPDATE builds SET image_hash = ?, kernel_release = ? WHERE id = ?";
static const char sql_kernel_get[] =
    "SELECT kconfig, image_hash, kernel_release, artifacts_hash FROM builds "
    "WHERE id = ?";
static const char sql_kernel_same_image[] =
    "SELECT count(*) FROM builds a JOIN builds b ON a.repo = b.repo AND "
    "a.recipe = b.recipe AND a.image_hash = b.image_hash "
    "WHERE a.repo = ? AND a.recipe = ? AND a.commit_oid = ? AND "
    "b.commit_oid = ? AND a.status = 'ok' AND b.status = 'ok'";

static const char sql_kernel_images[] =
    "SELECT commit_oid, status, artifacts_hash FROM builds "
    "WHERE repo = ? AND recipe = ? ORDER BY commit_oid";
static const char sql_kernel_set_artifacts[] =
    "UPDATE builds SET artifacts_hash = ? WHERE id = ?";

static int
store_kernel_changed(struct store *st, int64_t build, char **cause)
{
	if (sqlite3_changes(st->db) != 1)
		return error_set(cause, "no build %lld", (long long)build);
	return 0;
}

int
store_kernel_set_kconfig(struct store *st, int64_t build,
    const char *fragment, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_kernel_set_kconfig, "ti",
	    fragment, build) != 0 || store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	return store_kernel_changed(st, build, cause);
}

int
store_kernel_finish(struct store *st, int64_t build, const char *image_hash,
    const char *kernel_release, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_kernel_finish, "tti", image_hash,
	    kernel_release, build) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	return store_kernel_changed(st, build, cause);
}

int
store_kernel_set_artifacts(struct store *st, int64_t build,
    const char *artifacts_hash, char **cause)
{
	sqlite3_stmt	*stmt;

	if (store_stmt(st, &stmt, cause, sql_kernel_set_artifacts, "ti",
	    artifacts_hash, build) != 0 ||
	    store_exec_stmt(st, stmt, cause) != 0)
		return -1;
	return store_kernel_changed(st, build, cause);
}

int
store_kernel_end(struct store *st, int64_t build,
    const struct store_kernel_end *e, char **cause)
{
	if (store_begin(st, cause) != 0)
		return -1;
	if (store_build_finish(st, build, e->ok ? STORE_BUILD_OK :
	    STORE_BUILD_FAILED, e->artifact_dir, e->log_path, e->log_tail,
	    e->seconds, e->ok ? NULL : "build failed", cause) != 0 ||
	    (e->ok && (store_kernel_finish(st, build, e->image_hash,
	    e->kernel_release, cause) != 0 ||
	    store_kernel_set_artifacts(st, build, e->artifacts_hash,
	    cause) != 0)) ||
	    (!e->ok && store_run_skip_build(st, e->repo, e->oid, e->recipe,
	    "untestable: the build failed", cause) != 0) ||
	    store_commit(st, cause) != 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

int
store_kernel_get(struct store *st, int64_t build,
    struct store_kernel_build *out, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r;

	memset(out, 0, sizeof *out);
	if (store_stmt(st, &stmt, cause, sql_kernel_get, "i", build) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1) {
		out->kconfig = store_column_text(stmt, 0);
		out->image_hash = store_column_text(stmt, 1);
		out->kernel_release = store_column_text(stmt, 2);
		out->artifacts_hash = store_column_text(stmt, 3);
	}
	sqlite3_reset(stmt);
	if (r == 0)
		return error_set(cause, "no build %lld", (long long)build);
	return r < 0 ? -1 : 0;
}

int
store_kernel_same_image(struct store *st, const char *repo,
    const char *recipe, const char *oid_a, const char *oid_b, char **cause)
{
	sqlite3_stmt	*stmt;
	int		 r, n = 0;

	if (store_stmt(st, &stmt, cause, sql_kernel_same_image, "tttt", repo,
	    recipe, oid_a, oid_b) != 0)
		return -1;
	if ((r = store_step(st, stmt, cause)) == 1)
		n = sqlite3_column_int(stmt, 0);
	sqlite3_reset(stmt);
	if (r < 0)
		return -1;
	return n > 0;
}

int
store_kernel_images(struct store *st, const char *repo, const char *recipe,
    struct store_kernel_image **out, size_t *nr, char **cause)
{
	sqlite3_stmt			*stmt;
	struct store_kernel_image	*v = NULL;
	size_t				 n = 0, alloc = 0;
	int				 r;

	*out = NULL;
	*nr = 0;
	if (store_stmt(st, &stmt, cause, sql_kernel_images, "tt", repo,
	    recipe) != 0)
		return -1;
	while ((r = store_step(st, stmt, cause)) == 1) {
		ALLOC_GROW(v, n, alloc);
		v[n].commit_oid = store_column_text(stmt, 0);
		v[n].status = store_column_enum(stmt, 1,
		    store_build_status_names,
		    STORE_NR(store_build_status_names), STORE_BUILD_PENDING);
		v[n++].image_hash = store_column_text(stmt, 2);
	}
	sqlite3_reset(stmt);
	if (r < 0) {
		store_kernel_images_free(v, n);
		return -1;
	}
	*out = v;
	*nr = n;
	return 0;
}

void
store_kernel_images_free(struct store_kernel_image *v, size_t nr)
{
	size_t	i;

	for (i = 0; i < nr; i++) {
		free(v[i].commit_oid);
		free(v[i].image_hash);
	}
	free(v);
}

void
store_kernel_build_release(struct store_kernel_build *b)
{
	if (b == NULL)
		return;
	free(b->kconfig);
	free(b->image_hash);
	free(b->kernel_release);
	free(b->artifacts_hash);
	memset(b, 0, sizeof *b);
}
