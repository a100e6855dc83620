#!/bin/sh
# Another process holds SQLite's write lock for 10 s (BEGIN IMMEDIATE,
# from python3) while a run is recording its result and the scheduler
# wants to write: both wait for it (the store's busy timeout is 30 s),
# nothing fails, and every sample is recorded once.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_at_exit 'test ! -f "$TRASH/wait.pid" || kill -9 "$(cat "$TRASH/wait.pid")" 2>/dev/null'
test_at_exit 'test ! -f "$TRASH/holder.pid" || kill -9 "$(cat "$TRASH/holder.pid")" 2>/dev/null'

figure() {
	echo "$*" >>"$TRASH/figures"
}

started() {
	test -e "$TRASH/started"
}

cat >"$TRASH/gated.yaml" <<JOB
testcase: gated
run: "touch $TRASH/started; read x <$TRASH/gate; sh bench.sh"
runs: 1
metric: gated.score
disturbed: keep
JOB

test_expect_success 'setup' '
	setup_bench --commits 3 &&
	mkfifo gate &&
	bisectctl queue job.yaml --commit master~1 --wait >q0.out 2>q0.err
'

test_expect_success 'the write lock held for 10 s while the run records: it waits, then records once' '
	( bisectctl queue gated.yaml --commit master --wait >q1.out 2>q1.err & echo $! >wait.pid; wait $!; echo $? >q1.rc ) &
	test_wait_for 100 test -s wait.pid &&
	test_wait_for 300 started &&
	{ "$PYTHON3" -c "
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
c.execute(\"BEGIN IMMEDIATE\")
t0 = time.monotonic()
open(sys.argv[2], \"w\").close()
time.sleep(10)
c.execute(\"COMMIT\")
print(\"%.2f\" % (time.monotonic() - t0))
" state/bisectd.db locked >held.out 2>held.err & echo $! >holder.pid; } &&
	test_wait_for 100 test -e locked &&
	t0=$(date +%s.%N) &&
	echo go >gate &&
	test_wait_for 600 test -s q1.rc &&
	t1=$(date +%s.%N) &&
	rm -f wait.pid &&
	test_wait_for 100 test -s held.out &&
	rm -f holder.pid &&
	test "$(cat q1.rc)" = 0 &&
	! grep -i "locked\|busy" q1.err &&
	grep -q "gated.score" q1.out &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = '\''gated.score'\''")" = 1 &&
	test "$(db_query "SELECT count(*) FROM run_failures")" = 0 &&
	test "$(db_query "SELECT count(*) - count(DISTINCT s.run || s.metric) FROM samples s")" = 0 &&
	test "$(db_query "SELECT status || '\'' attempts '\'' || attempts FROM runs ORDER BY id DESC LIMIT 1")" = "done attempts 1" &&
	figure "write lock held $(cat held.out) s by another process; the wait ended $(echo "$t1 - $t0" | bc) s after the gate opened, exit 0; run done at its 1st attempt, 0 failures, gated.score once, no sample twice"
'

[ ! -f "$TRASH/figures" ] || sed "s/^/# figure: /" "$TRASH/figures"
test_done
