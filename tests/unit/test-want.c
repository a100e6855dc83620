/*
 * Unit tests for bisectd/want.c: a want's build is queued once, its runs
 * up to the number wanted; a failed run does not count and is replaced
 * once a run is done there, until as many have failed as were wanted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bisectd/want.h"
#include "schema/store.h"
#include "tests/unit/tap.h"
#include "util/file.h"

static int
pending_ids(struct store *st, int64_t **ids, size_t *nr)
{
	char	*cause = NULL;
	int	 r = store_run_pending(st, ids, nr, &cause);

	free(cause);
	return r;
}

/* Fail every pending run; how many. */
static int
fail_pending(struct store *st)
{
	int64_t	*ids = NULL;
	size_t	 nr = 0, i;
	char	*cause = NULL;

	if (pending_ids(st, &ids, &nr) != 0)
		return -1;
	for (i = 0; i < nr; i++)
		store_run_fail(st, ids[i], "boom", &cause);
	free(ids);
	free(cause);
	return (int)nr;
}

int
main(void)
{
	static char	 tmpl[] = "/tmp/bisectd-test-want.XXXXXX";
	struct store	*st = NULL;
	struct store_build b;
	struct want	 w;
	char		*dir = mkdtemp(tmpl), *db, *cause = NULL;
	struct store_sample sample = { "m", 1.0, NULL, 0 };
	int64_t		 job, token, *ids = NULL;
	size_t		 nr = 0;
	int		 added, exhausted, live, next;

	db = path_join(dir, "bisectd.db");
	if (store_open(db, &st, &cause) != 0) {
		diag("store_open: %s", cause);
		return 1;
	}
	store_job_add(st, "j1", "microbench", "d", "{}", "m", "higher", &job,
	    &cause);
	memset(&w, 0, sizeof w);
	w.repo = "r";
	w.job = job;
	w.oid = "1111111111111111111111111111111111111111";
	w.recipe = "rcp";
	w.samples = 0;

	added = 0;
	is_int(want_queue(st, &w, &added, &exhausted, &cause), 0,
	    "a want of the build alone");
	is_int(added, 0, "no run for a want of 0 samples");
	memset(&b, 0, sizeof b);
	is_int(store_build_find(st, "r", w.oid, "rcp", &b, &cause), 1,
	    "its build is queued");
	store_build_release(&b);

	w.samples = 3;
	added = 0;
	is_int(want_queue(st, &w, &added, &exhausted, &cause), 0,
	    "a want of 3");
	is_int(added, 3, "3 runs queued");
	is_int(exhausted, 0, "not exhausted");
	added = 0;
	want_queue(st, &w, &added, &exhausted, &cause);
	is_int(added, 0, "asked again: pending runs count, nothing more");

	is_int(fail_pending(st), 3, "the 3 runs fail");
	added = 0;
	want_queue(st, &w, &added, &exhausted, &cause);
	is_int(added, 0, "3 failed of 3 wanted: nothing more");
	is_int(exhausted, 1, "exhausted");

	w.oid = "2222222222222222222222222222222222222222";
	added = 0;
	want_queue(st, &w, &added, &exhausted, &cause);
	is_int(added, 3, "another commit: 3 runs");
	pending_ids(st, &ids, &nr);
	ok(nr == 3 && store_run_fail(st, ids[0], "boom", &cause) == 0,
	    "one of them fails");
	added = 0;
	want_queue(st, &w, &added, &exhausted, &cause);
	is_int(added, 0, "no run done yet: the failure is the commit's, "
	    "not replaced");
	is_int(exhausted, 1, "exhausted");
	ok(store_run_start(st, ids[1], "local", "/runs/x", &token,
	    &cause) == 0 && store_run_finish(st, ids[1], token, 0, &sample, 1,
	    NULL, 0, &cause) == 0, "another is done");
	free(ids);
	added = 0;
	want_queue(st, &w, &added, &exhausted, &cause);
	is_int(added, 1, "with a run done, the failed run is replaced");
	is_int(exhausted, 0, "1 failed of 3: not exhausted");
	store_run_count(st, job, "r", w.oid, &live, &next, &cause);
	is_int(live, 3, "3 live runs");
	is_int(next, 4, "the replacement has the next seq");

	w.samples = 5;
	added = 0;
	want_queue(st, &w, &added, &exhausted, &cause);
	is_int(added, 2, "a want raised to 5 adds 2");

	free(cause);
	store_close(st);
	dir_remove_tree(dir, NULL);
	free(db);
	return tap_done();
}
