#!/bin/sh
# The state directory on a full filesystem (a small tmpfs, filled up
# while a run is going on, so that neither its result nor its requeue
# can be written): the fault is said once, nothing recorded before is
# lost and the database stays sound; once there is room the same wait
# goes on by itself, runs the run again and records it once.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

if [ "$(id -u)" != 0 ]; then
	test_skip "$TEST_NAME" "needs root to mount a tmpfs"
	test_done
	exit 0
fi
test_at_exit 'umount "$TRASH/state" 2>/dev/null'
test_at_exit 'test ! -f "$TRASH/wait.pid" || kill -9 "$(cat "$TRASH/wait.pid")" 2>/dev/null'

# figure TEXT: what was survived and checked, printed with the TAP output
figure() {
	echo "$*" >>"$TRASH/figures"
}

samples() {
	db_query "SELECT count(*) FROM samples"
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

test_expect_success 'setup: the state on a 24 MiB tmpfs, some samples in it' '
	setup_bench --commits 3 &&
	echo "disturbed: keep" >>job.yaml &&
	mkfifo gate &&
	mkdir state &&
	mount -t tmpfs -o size=24m tmpfs state &&
	bisectctl queue job.yaml --commit master~2 --wait >q1.out 2>q1.err &&
	test "$(samples)" -gt 0 &&
	samples >before
'

test_expect_success 'the filesystem fills up mid-run: said, nothing lost; room again: the wait goes on' '
	( bisectctl queue gated.yaml --commit master --wait >q2.out 2>q2.err & echo $! >wait.pid; wait $!; echo $? >q2.rc ) &
	test_wait_for 100 test -s wait.pid &&
	test_wait_for 300 started &&
	{ dd if=/dev/zero of=state/filler bs=16k 2>dd.err || :; } &&
	grep -q "No space left" dd.err &&
	echo go >gate &&
	test_wait_for 600 grep -q "database or disk is full; trying again" q2.err &&
	test ! -s q2.rc &&
	test "$(samples)" = "$(cat before)" &&
	full=$(samples) &&
	rm state/filler &&
	rm -f started &&
	test_wait_for 600 started &&
	echo go >gate &&
	test_wait_for 600 test -s q2.rc &&
	rm -f wait.pid &&
	test "$(cat q2.rc)" = 0 &&
	grep -q "gated.score" q2.out &&
	test "$(db_query "SELECT count(*) FROM samples s JOIN runs r ON s.run = r.id
		JOIN jobs j ON r.job = j.id WHERE j.testcase <> \"gated\"")" = "$(cat before)" &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = \"gated.score\"")" = 1 &&
	test "$(db_query "SELECT count(*) - count(DISTINCT s.metric) FROM samples s JOIN runs r ON s.run = r.id
		JOIN jobs j ON r.job = j.id WHERE j.testcase = \"gated\"")" = 0 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status IN (\"pending\", \"running\")")" = 0 &&
	test "$(db_query "PRAGMA integrity_check")" = ok &&
	figure "$(cat before) samples before the filesystem filled, $full while it was full, $(samples) after (gated.score once); run: $(db_query "SELECT status || \" attempts \" || attempts FROM runs WHERE job = (SELECT id FROM jobs WHERE testcase = \"gated\")"); $(grep -c "trying again" q2.err) requeue failure(s) said"
'

[ ! -f "$TRASH/figures" ] || sed "s/^/# figure: /" "$TRASH/figures"
test_done
