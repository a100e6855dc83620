#!/bin/sh
# Continuous mode and a culprit rewritten by a rebase (issue 17), through
# the daemon on a bare upstream with a real SMTP server: the regression
# (commit 12) is bisected and mailed; then the branch is rebased onto a
# new base, which gives every commit after it a new id and a new tree, so
# the new line is tested again, the step is found on it and bisected to
# the rebased culprit. That culprit has the patch-id of the one reported,
# so it is not mailed again, and the log says why.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"
. "$(dirname "$0")/lib-report.sh"

test_at_exit 'test -f "$TRASH/sink.pid" && kill "$(cat "$TRASH/sink.pid")"'
test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'setup: a history with one culprit, an empty upstream' '
	start_sink &&
	setup_bench --commits 24 --culprit 12 --change -5 &&
	continuous_setup &&
	mkdir -p mails &&
	continuous_mail "$(cat port)" &&
	push master~20 master &&
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready
'

test_expect_success 'the regression is bisected and mailed once' '
	push master~6 master &&
	test_wait_for 3000 found 1 &&
	test_wait_for 1200 sent 1 &&
	test "$(mails)" = 1
'

test_expect_success 'rebased onto a new base: found again, not mailed again' '
	git -C source read-tree "master~20^{tree}" &&
	echo base >source/newbase &&
	blob=$(git -C source hash-object -w newbase) &&
	git -C source update-index --add --cacheinfo 100644 "$blob" newbase &&
	base=$(git -C source commit-tree "$(git -C source write-tree)" -p master~20 -m newbase) &&
	tip=$(git -C source rev-list --reverse master~20..master~6 | {
		prev=$base
		while read c; do
			git -C source read-tree "$prev^{tree}" &&
			git -C source diff-tree -p "$c^" "$c" |
				git -C source apply --cached &&
			prev=$(git -C source commit-tree "$(git -C source write-tree)" \
				-p "$prev" -m "$(git -C source log -1 --format=%s "$c") (rebased)")
		done
		echo "$prev"
	}) &&
	push "$tip" master &&
	test_wait_for 300 grep -q "was rewritten: 14 commits leave its series, 15 come in" daemon.log &&
	test_wait_for 3000 found 2 &&
	rebased=$(git -C source log --grep="^commit 12 (culprit) (rebased)" --format=%H "$tip") &&
	test "$(count "SELECT count(*) FROM bisections WHERE status = \"found\" AND json_extract(result, \"\$.culprit\") = \"$rebased\"")" = 1 &&
	test_wait_for 300 grep -q "its culprit $(echo "$rebased" | cut -c1-12) is the same patch as $(git -C source rev-parse master~12 | cut -c1-12) (patch-id [0-9a-f]*), the culprit reported by bisection [0-9]*: not reported again" daemon.log &&
	test "$(count "SELECT count(*) FROM outbox")" = 1 &&
	test "$(mails)" = 1
'

test_expect_success 'the daemon stops on SIGTERM' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped
'

test_done
