#!/bin/sh
# Transient faults are retried, and a crash of the scheduler is not the
# work's fault: a build killed by a signal is built again instead of
# making its commit untestable, and with max_attempts 2 a run survives
# one SIGKILL of the scheduler and then one kill of its own process.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_at_exit 'test ! -f "$TRASH/queue.pid" || kill -9 "$(cat "$TRASH/queue.pid")" 2>/dev/null'

test_expect_success 'setup' '
	setup_bench --commits 6 --culprit 4 --change -8 &&
	sed -i "s|command: test ! -e broken|command: \"if test ! -e $TRASH/killed; then touch $TRASH/killed; kill -9 \$\$; fi; test ! -e broken\"|" \
		bisectd.yaml &&
	grep -q "kill -9" bisectd.yaml &&
	printf "scheduler:\n  max_attempts: 2\n" >>bisectd.yaml
'

test_expect_success 'a build killed by a signal is built again, not untestable' '
	bisectctl queue job.yaml --commit master --wait >q1.out 2>q1.err &&
	test -e killed &&
	test "$(db_query "SELECT status, attempts FROM builds")" = "ok|2" &&
	test "$(sample_count "$(git -C repo rev-parse master)" microbench.score)" = 3 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = \"skipped\"")" = 0
'

cat >"$TRASH/gated.yaml" <<JOB
testcase: gated
run: "echo \$\$ >$TRASH/run.pid; touch $TRASH/started; while test ! -e $TRASH/gate; do sleep 0.05; done; sh bench.sh"
runs: 1
metric: gated.score
disturbed: keep
JOB

started() {
	test -s "$TRASH/run.pid" && test -e "$TRASH/started"
}

run_state() {
	db_query "SELECT status || \"|\" || attempts FROM runs WHERE job =
		(SELECT id FROM jobs WHERE testcase = \"gated\")"
}

test_expect_success 'the scheduler is killed mid-run: the attempt is given back' '
	{ bisectctl queue gated.yaml --commit master~1 --wait >q2.out 2>q2.err &
	  echo $! >queue.pid; } &&
	test_wait_for 600 started &&
	test "$(run_state)" = "running|1" &&
	kill -9 "$(cat queue.pid)" &&
	test_wait_for 100 eval "! kill -0 $(cat queue.pid) 2>/dev/null" &&
	rm -f queue.pid started run.pid &&
	{ bisectctl queue gated.yaml --commit master~1 --wait >q3.out 2>q3.err &
	  echo $! >queue.pid; } &&
	test_wait_for 600 started &&
	test "$(run_state)" = "running|1"
'

test_expect_success 'then its own process is killed: retried once more, and done' '
	kill -9 "$(cat run.pid)" &&
	touch gate &&
	test_wait_for 600 eval "! kill -0 $(cat queue.pid) 2>/dev/null" &&
	rm -f queue.pid &&
	test "$(run_state)" = "done|2" &&
	grep -q "gated.score" q3.out
'

test_done
