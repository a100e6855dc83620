/*
 * Unit tests for schema/: migrations, requests, jobs, builds, runs with
 * their ownership tokens, crash recovery, samples and bisections.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/migration.h"
#include "schema/store.h"
#include "tests/unit/tap.h"
#include "util/file.h"

static char *
tmpdir(void)
{
	static char	tmpl[] = "/tmp/bisectd-test-store.XXXXXX";

	return mkdtemp(tmpl);
}

/*
 * A wall clock stepped back an hour between runs of one boot: the series'
 * starts are the boot's first wall reading plus the monotonic time since,
 * so the run after the step is still the newest; a run with no boot keeps
 * its wall clock.
 */
static void
test_store_clock(struct store *st, int64_t job)
{
	static const double	 wall[] = { 5000, 5010, 1420, 1430 };
	static const double	 mono[] = { 100, 110, 120, 0 };
	struct store_run_times	 t;
	struct store_series	 s;
	struct store_sample	 sample = { "t.x", 1, NULL, 0 };
	int64_t			*ids = NULL, token;
	size_t			 nr = 0, i;
	char			*cause = NULL;

	memset(&t, 0, sizeof t);
	for (i = 0; i < 4; i++)
		store_run_add(st, job, "linux", "c3", (int)i, "r1", &cause);
	store_run_pending(st, &ids, &nr, &cause);
	is_int(nr, 4, "clock: four runs pending");
	for (i = 0; i < nr && i < 4; i++) {
		store_run_start(st, ids[i], "local", "/runs/c3", &token,
		    &cause);
		t.has_times = 1;
		t.started_wall = wall[i];
		t.started_mono = i < 3 ? mono[i] : NAN;
		t.ended_wall = wall[i] + 1;
		t.ended_mono = mono[i] + 1;
		t.boot_id = i < 3 ? "boot-1" : NULL;
		store_run_finish_at(st, ids[i], token, 0, &sample, 1, NULL, 0,
		    &t, &cause);
	}
	is_int(store_series_get(st, job, "linux", "c3", "t.x", &s, &cause), 0,
	    "clock: series read");
	ok(s.nr == 4 && s.starts[0] == 5000 && s.starts[1] == 5010 &&
	    s.starts[2] == 5020, "clock: a wall clock step back does not "
	    "reorder the runs of one boot (%g %g %g)", s.nr > 2 ? s.starts[0] :
	    0, s.nr > 2 ? s.starts[1] : 0, s.nr > 2 ? s.starts[2] : 0);
	ok(s.nr == 4 && s.starts[3] == 1430, "clock: a run with no boot keeps "
	    "its wall clock");
	store_series_release(&s);
	free(ids);
	free(cause);
}

int
main(void)
{
	struct store		*st = NULL, *st2 = NULL;
	struct store_request	 rq;
	struct store_build	 b;
	struct store_run	 run;
	struct store_series	 s, *all = NULL;
	struct store_bisection	 bi;
	struct store_step	 steps[2] = {
		{ "aaaa", "good", 3, 1.0 }, { "bbbb", "bad", 3, 2.0 } };
	struct store_step	*got = NULL;
	struct store_sample	 samples[2];
	struct store_env	 env[1] = { { "thp_enabled", "always" } };
	double			 inst[3] = { 1, 2, 3 };
	char			*dir = tmpdir(), *db, *cause = NULL;
	int64_t			 id, id2, job, bid, token, token2, *ids = NULL;
	size_t			 nr, nall;
	int			 live, next, done, failed, busy, nr_runs,
				 nr_builds;

	db = path_join(dir, "sub/bisectd.db");
	is_int(store_open(db, &st, &cause), 0, "open creates the database");
	is_int(store_schema_version(st),
	    migrations[nr_migrations - 1].version,
	    "schema at the newest migration");
	store_close(st);
	is_int(store_open(db, &st, &cause), 0, "reopen is idempotent");

	is_int(store_request_add(st, "bisect", "linux", "job.yaml", "key1",
	    "{}", &id, &cause), 0, "request added");
	is_int(store_request_get(st, id, &rq, &cause), 0, "request read");
	is_str(rq.kind, "bisect", "kind");
	is_str(store_request_status_name(rq.status), "pending", "new request is pending");
	store_request_release(&rq);
	is_int(store_request_find_active(st, "key1", &id2, &cause), 0,
	    "find active");
	is_int(id2, id, "identical unfinished request is found");
	store_request_set_status(st, id, STORE_REQUEST_DONE, NULL, &cause);
	store_request_find_active(st, "key1", &id2, &cause);
	is_int(id2, 0, "finished request is not active");
	ok(store_request_get(st, 9999, &rq, &cause) == -1 &&
	    strstr(cause, "no request 9999") != NULL, "missing request: %s",
	    cause);
	free(cause);
	cause = NULL;

	is_int(store_job_add(st, "0123456789abcdef", "t", "t/a=1", "testcase: t\n",
	    "t.x", "higher", &job, &cause), 0, "job added");
	store_job_add(st, "0123456789abcdef", "t", "t/a=1", "testcase: t\n",
	    "t.x", "higher", &id2, &cause);
	is_int(id2, job, "same job id gives the same row");

	is_int(store_build_ensure(st, "linux", "c1", "r1", &bid, &cause), 0,
	    "build ensured");
	store_build_ensure(st, "linux", "c1", "r1", &id2, &cause);
	is_int(id2, bid, "ensure is idempotent");
	is_int(store_build_start(st, bid, &cause), 0, "build started");
	ok(store_build_start(st, bid, &cause) == -1, "cannot start twice");
	free(cause);
	cause = NULL;
	store_build_retry(st, bid, "child died", 2, &cause);
	store_build_get(st, bid, &b, &cause);
	is_str(store_build_status_name(b.status), "pending", "first failure is retried");
	store_build_release(&b);
	store_build_start(st, bid, &cause);
	store_build_retry(st, bid, "child died", 2, &cause);
	store_build_get(st, bid, &b, &cause);
	is_str(store_build_status_name(b.status), "failed",
	    "second failure hits the cap of 2");
	store_build_release(&b);
	store_build_ensure(st, "linux", "c2", "r1", &bid, &cause);
	store_build_start(st, bid, &cause);
	store_build_finish(st, bid, STORE_BUILD_OK, "/cache/c2", "/log", "tail", 1.5,
	    NULL, &cause);
	is_int(store_build_find(st, "linux", "c2", "r1", &b, &cause), 1,
	    "build found");
	is_str(b.artifact_dir, "/cache/c2", "artifact dir recorded");
	store_build_release(&b);
	is_int(store_build_find(st, "linux", "nope", "r1", &b, &cause), 0,
	    "unknown build not found");

	store_run_add(st, job, "linux", "c2", 0, "r1", &cause);
	store_run_add(st, job, "linux", "c2", 1, "r1", &cause);
	ok(store_run_add(st, job, "linux", "c2", 1, "r1", &cause) == -1,
	    "duplicate (job, commit, seq) refused");
	free(cause);
	cause = NULL;
	store_run_count(st, job, "linux", "c2", &live, &next, &cause);
	is_int(live, 2, "two live runs");
	is_int(next, 2, "next seq");
	store_run_pending(st, &ids, &nr, &cause);
	is_int(nr, 2, "two pending runs");
	is_int(store_run_start(st, ids[0], "local", "/runs/1", &token,
	    &cause), 0, "run started");
	samples[0].metric = "t.x";
	samples[0].value = 10;
	samples[0].instances = inst;
	samples[0].nr_instances = 3;
	samples[1].metric = "time.user_time";
	samples[1].value = 0.5;
	samples[1].instances = NULL;
	samples[1].nr_instances = 0;
	is_int(store_run_finish(st, ids[0], token + 1, 0, samples, 2, env, 1,
	    &cause), 1, "a stale token records nothing");
	is_int(store_run_finish(st, ids[0], token, 0, samples, 2, env, 1,
	    &cause), 0, "the owner records");
	is_int(store_run_finish(st, ids[0], token, 0, samples, 2, env, 1,
	    &cause), 1, "recording twice is refused");
	store_series_get(st, job, "linux", "c2", "t.x", &s, &cause);
	is_int(s.nr, 1, "one sample, not two");
	is_int(s.nr_instances, 3, "instances kept");
	ok(s.nr_instances == 3 && s.instances[2] == 3, "instance values");
	store_series_release(&s);
	store_series_all(st, job, "linux", "c2", &all, &nall, &cause);
	is_int(nall, 2, "two metrics");
	store_series_list_free(all, nall);

	/* a crash while the second run is running */
	store_run_start(st, ids[1], "local", "/runs/2", &token2, &cause);
	store_run_busy(st, job, "linux", &busy, &cause);
	is_int(busy, 1, "busy while a run is live");
	is_int(store_open(db, &st2, &cause), 0, "second connection");
	is_int(store_recover(st2, &nr_runs, &nr_builds, &cause), 0, "recover");
	is_int(nr_runs, 1, "the running run is requeued");
	is_int(store_run_finish(st, ids[1], token2, 0, samples, 1, NULL, 0,
	    &cause), 1, "the lost attempt cannot record after recovery");
	store_run_get(st2, ids[1], &run, &cause);
	is_str(store_run_status_name(run.status), "pending", "requeued run is pending");
	is_int(run.attempts, 0, "the attempt a crash interrupted is given "
	    "back: a requeue is not a failed attempt");
	store_run_release(&run);
	store_close(st2);
	store_run_start(st, ids[1], "local", "/runs/2", &token2, &cause);
	store_run_retry(st, ids[1], token2, "agent died", 2, &cause);
	store_run_start(st, ids[1], "local", "/runs/2", &token2, &cause);
	store_run_retry(st, ids[1], token2, "agent died", 2, &cause);
	store_run_totals(st, job, "linux", "c2", &done, &failed, &cause);
	is_int(done, 1, "one done");
	is_int(failed, 1, "one failed at the cap");
	free(ids);

	store_request_add(st, "bisect", "linux", "job.yaml", "key2", "{}",
	    &id, &cause);
	is_int(store_bisection_add(st, id, job, "linux", "aaaa", "bbbb", "t.x",
	    "higher", &cause), 0, "bisection added");
	store_bisection_progress(st, id, "bisect: 3 commits left", &cause);
	is_int(store_bisection_finish(st, id, STORE_BISECTION_FOUND, "{\"x\":1}", steps, 2,
	    &cause), 0, "bisection finished");
	store_bisection_get(st, id, &bi, &cause);
	is_str(store_bisection_status_name(bi.status), "found", "status");
	is_str(bi.result, "{\"x\":1}", "result");
	store_bisection_release(&bi);
	store_bisection_steps(st, id, &got, &nr, &cause);
	is_int(nr, 2, "steps");
	is_str(got[1].verdict, "bad", "step verdict");
	store_bisection_steps_free(got, nr);
	store_request_get(st, id, &rq, &cause);
	is_str(store_request_status_name(rq.status), "done",
	    "request done with its bisection");
	store_request_release(&rq);

	test_store_clock(st, job);

	store_close(st);
	dir_remove_tree(dir, NULL);
	free(db);
	free(cause);
	return tap_done();
}
