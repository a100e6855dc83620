#!/bin/sh
# Continuous mode's tail test (issue 17), through the daemon on a bare
# upstream: a regression in the newest commit of the series, which
# E-Divisive cannot place (one commit after the step), makes the tracker
# run that commit more (to SERIES_TAIL_RUNS = 12 runs), then record one
# regression row at it and bisect it to the culprit. Nothing else of the
# series is run more, and no other row appears.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"

regressed() {
	test "$(count "SELECT count(*) FROM regressions")" -ge 1
}

runs_at() {
	count "SELECT count(*) FROM runs WHERE commit_oid = '$1' AND status = 'done'"
}

test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'setup: 16 commits, the newest one the culprit' '
	setup_bench --commits 16 --culprit 16 --change -5 &&
	continuous_setup &&
	push master~15 master &&
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready
'

test_expect_success 'the newest commit is run more, then found and bisected' '
	push master master &&
	culprit=$(git -C source rev-parse master) &&
	test_wait_for 3000 regressed &&
	grep -q "the newest 1 commits look -[0-9.]*% microbench.score .*running them to 12 runs each" daemon.log &&
	test "$(runs_at "$culprit")" -ge 12 &&
	test "$(runs_at "$(git -C source rev-parse master~2)")" = 3 &&
	test "$(count "SELECT count(*) FROM regressions")" = 1 &&
	test "$(count "SELECT bad FROM regressions")" = "$culprit" &&
	test "$(count "SELECT good FROM regressions")" = "$(git -C source rev-parse master~1)" &&
	test "$(count "SELECT good || \" \" || bad FROM bisections")" = "$(git -C source rev-parse master~1) $culprit" || {
		# what prove shows without -v: the state the assertions read
		echo "# runs at master $(runs_at "$culprit"), master~1 $(runs_at "$(git -C source rev-parse master~1)"), master~2 $(runs_at "$(git -C source rev-parse master~2)")" >&2
		echo "# regressions: $(count "SELECT good || \" \" || bad FROM regressions")" >&2
		echo "# bisections: $(count "SELECT good || \" \" || bad || \" \" || status FROM bisections")" >&2
		tail -n 30 daemon.log | sed "s/^/# /" >&2
		false
	}
'

test_expect_success 'the daemon stops on SIGTERM' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped
'

test_done
