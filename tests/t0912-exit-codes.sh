#!/bin/sh
# The exit codes of docs/cli.md's one table, for every --wait command:
# 0 when the request produced what it asked, 1 when it could not (every
# run or build at a commit failed, a bisection that failed) or the wait
# was interrupted (the request stays and resumes), 2 for bad input with
# nothing recorded. Each checks the code, the message, and the rows.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_at_exit 'test ! -f "$TRASH/wait.pid" || kill -9 "$(cat "$TRASH/wait.pid")" 2>/dev/null'

requests() {
	db_query "SELECT count(*) FROM requests"
}

test_expect_success 'setup: master~2 does not build' '
	setup_bench --commits 4 --broken 2 &&
	echo "disturbed: keep" >>job.yaml &&
	test -n "$(git -C repo ls-tree master~2 broken)" &&
	bisectctl queue job.yaml --commit master --wait >ok.out 2>ok.err &&
	test "$(requests)" = 1
'

test_expect_success 'queue --wait: 0 when every commit has samples' '
	bisectctl queue job.yaml --commit master~1 --wait >q0.out 2>q0.err &&
	grep -q "microbench.score" q0.out
'

test_expect_success 'queue --wait: 1 when a commit has none (its build failed)' '
	test_expect_code 1 bisectctl queue job.yaml --commit master~2 --wait >q1.out 2>q1.err &&
	grep "^error: request [0-9]* has no samples at 1 of its commits" q1.err
'

test_expect_success 'compare --wait: 1 when one side has no samples' '
	test_expect_code 1 bisectctl compare master~2 master job.yaml --wait >c1.out 2>c1.err &&
	grep "^error: compare [0-9]* has no samples at 1 of its commits" c1.err &&
	bisectctl compare master~1 master job.yaml --wait >c0.out 2>c0.err
'

test_expect_success 'bisect --wait: 2 for bad input, nothing recorded' '
	n=$(requests) &&
	test_expect_code 2 bisectctl bisect job.yaml --good master --bad master~2 --wait >b2.out 2>b2.err &&
	grep "^error: .*the ends are swapped" b2.err &&
	test "$(requests)" = "$n"
'

cat >"$TRASH/gated.yaml" <<JOB
testcase: gated
run: "touch $TRASH/started; read x <$TRASH/gate; sh bench.sh"
runs: 1
metric: gated.score
disturbed: keep
JOB

started() {
	test -e "$TRASH/started"
}

test_expect_success 'queue --wait interrupted: 1, "interrupted"; the same command resumes it: 0' '
	mkfifo gate &&
	{ bisectctl queue gated.yaml --commit master --wait >i1.out 2>i1.err &
	  echo $! >wait.pid; } &&
	test_wait_for 300 started &&
	kill -INT "$(cat wait.pid)" &&
	test_wait_for 100 eval "! kill -0 $(cat wait.pid) 2>/dev/null" &&
	grep "^error: interrupted" i1.err &&
	test "$(db_query "SELECT status FROM runs WHERE job = (SELECT id FROM jobs
		WHERE testcase = \"gated\")")" = pending &&
	rm -f started wait.pid &&
	{ bisectctl queue gated.yaml --commit master --wait >i2.out 2>i2.err &
	  echo $! >wait.pid; } &&
	test_wait_for 300 started &&
	echo go >gate &&
	test_wait_for 300 eval "! kill -0 $(cat wait.pid) 2>/dev/null" &&
	grep -q "gated.score" i2.out &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = \"gated.score\"")" = 1
'

test_done
