#!/bin/sh
# The wall clock stepped back an hour mid-bisection. A time namespace
# (unshare --time) shifts only CLOCK_MONOTONIC and CLOCK_BOOTTIME, so the
# step is made with libfaketime (Debian's faketime), preloaded into the
# whole process tree (scheduler, workers, agent, testcase) with its
# offset read from a file at each call and the monotonic clock left
# alone: the wall clock jumps back while the monotonic one goes on, as
# on a machine whose NTP steps. The step comes while the ends are still
# being told apart (4 runs done): before the series read a run's start on
# a step-free clock (schema/store-series.c), the runs before the step stayed
# the newest and the ends test never ended (348 runs a side, killed). The
# bisection goes on and names the planted commit; every run is recorded
# once, none is left behind.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
if [ ! -f "$FAKETIME_LIB" ]; then
	test_skip "$TEST_NAME" "no $FAKETIME_LIB (Debian's faketime)"
	test_done
	exit 0
fi
test_at_exit 'test ! -f "$TRASH/wait.pid" || kill -9 "$(cat "$TRASH/wait.pid")" 2>/dev/null'

figure() {
	echo "$*" >>"$TRASH/figures"
}

runs_done() {
	test "$(db_query "SELECT count(*) FROM runs WHERE status = 'done'")" -ge "$1"
}

test_expect_success 'setup' '
	setup_bench --commits 24 --culprit 15 --change -8 &&
	echo "disturbed: keep" >>job.yaml &&
	echo "+0" >faketime
'

test_expect_success 'the wall clock steps back an hour mid-bisection: it goes on, and finds' '
	# ASan wants its runtime first; libfaketime comes first here
	( ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	  LD_PRELOAD=$FAKETIME_LIB FAKETIME_TIMESTAMP_FILE=$TRASH/faketime \
	  FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1 \
	  bisectctl bisect job.yaml --good master~23 --bad master --wait --json \
		>b.json 2>b.err & echo $! >wait.pid; wait $!; echo $? >b.rc ) &
	test_wait_for 100 test -s wait.pid &&
	test_wait_for 1200 runs_done 4 &&
	before=$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\''") &&
	last=$(db_query "SELECT max(started_wall) FROM runs") &&
	echo "-1h" >faketime &&
	test_wait_for 3000 test -s b.rc &&
	rm -f wait.pid &&
	cat b.err | tail -3 &&
	test "$(cat b.rc)" = 0 &&
	test "$(json_get b.json "d[\"status\"]")" = found &&
	test "$(json_get b.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	after=$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\'' AND started_wall < $last - 3000") &&
	test "$after" -gt 0 &&
	step=$(db_query "SELECT printf(\"%.0f\", $last - min(started_wall)) FROM runs WHERE started_wall < $last - 3000") &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status IN (\"pending\", \"running\")")" = 0 &&
	done=$(db_query "SELECT count(*) FROM runs WHERE status = \"done\"") &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = \"microbench.score\"")" = "$done" &&
	test "$(db_query "SELECT count(*) FROM run_failures")" = 0 &&
	figure "wall clock stepped back (libfaketime, monotonic untouched) after $before runs; the first run after the step started ${step} s of wall clock before the last one before it; $after runs after the step; bisection found the planted commit; $done runs done = $done samples of microbench.score, 0 failures, none pending"
'

[ ! -f "$TRASH/figures" ] || sed "s/^/# figure: /" "$TRASH/figures"
test_done
