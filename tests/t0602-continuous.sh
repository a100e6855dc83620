#!/bin/sh
# Continuous mode: a bare repository receives pushes; the daemon fetches
# the tracked branch, tests every new commit, finds the step in the series
# with the change-point test, bisects it by itself and names the culprit.
# A regression is reported once, however many commits arrive after it.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"

tracked() {
	db_query "SELECT count(*) FROM tracked" 2>/dev/null || echo 0
}

settled() {
	test "$(tracked)" = "$1" &&
	test "$(db_query "SELECT count(*) FROM tracked WHERE queued = 0")" = 0 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')")" = 0
}

test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'setup: a source history and an empty upstream' '
	setup_bench --commits 40 --culprit 20 --change -5 &&
	continuous_setup &&
	git -C source push -q ../upstream.git "$(git -C source rev-parse master~28):refs/heads/master"
'

test_expect_success 'the daemon starts and tests the first tip' '
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready &&
	test_wait_for 600 settled 1
'

test_expect_success 'pushed commits are tested and the regression bisected' '
	git -C source push -q ../upstream.git "$(git -C source rev-parse master~10):refs/heads/master" &&
	test_wait_for 3000 found 1 &&
	test "$(db_query "SELECT count(*) FROM regressions")" = 1 &&
	culprit=$(db_query "SELECT json_extract(result, \"$.culprit\") FROM bisections WHERE status = \"found\"") &&
	test "$culprit" = "$(git -C source log --grep="(culprit)" --format=%H)"
'

test_expect_success 'later commits do not report the regression again' '
	git -C source push -q ../upstream.git master:refs/heads/master &&
	test_wait_for 3000 settled 29 &&
	test "$(db_query "SELECT count(*) FROM regressions")" = 1 &&
	test "$(db_query "SELECT count(*) FROM requests WHERE kind = \"bisect\"")" = 1 &&
	culprit=$(git -C source log --grep="(culprit)" --format=%H | cut -c1-10) &&
	bisectctl status >status.out &&
	grep -qx "  bench master: 29 commits seen, 29 queued, newest $(git -C source rev-parse --short=10 master)" status.out &&
	grep -Eq "^    -[0-9.]+% microbench.score between [0-9a-f]{10} and [0-9a-f]{10}: bisection [0-9]+ found, culprit $culprit$" status.out
'

test_expect_success 'the daemon stops on SIGTERM' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped
'

test_done
