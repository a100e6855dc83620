#!/bin/sh
# Continuous mode on branches that are rewritten (issue 17), through the
# daemon on a bare upstream: a branch's series is its current first-parent
# line. A same-tree rewrite costs no build and no run; a reset back with
# new commits pushed drops what it abandoned and tests only the new ones;
# a rebase onto a new base keeps the commits before the fork; a reset to a
# tracked commit is said once, not at every fetch; a deleted branch is said
# once and marked gone in status and on the web page. The one regression
# (commit 12) is reported once through all of it; no false one appears.
# (The series starts at commit 4: with fewer than a dozen commits the
# permutation test cannot reach p < 0.01.)
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"

# settled N: the series of master has N commits, all tested.
settled() {
	test "$(count "SELECT count(*) FROM tracked WHERE branch = 'master'")" = "$1" &&
	test "$(count "SELECT count(*) FROM tracked WHERE queued = 0")" = 0 &&
	test "$(count "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')")" = 0 &&
	test "$(count "SELECT count(*) FROM builds WHERE status IN ('pending', 'running')")" = 0
}

# logged N PATTERN: the daemon's log has N lines matching PATTERN.
logged() {
	test "$(grep -c -- "$2" daemon.log)" = "$1"
}

rows() {
	count "SELECT count(*) FROM tracked WHERE branch = '$1'"
}

series_oids() {
	db_query "SELECT commit_oid FROM tracked WHERE branch = 'master' ORDER BY seq"
}

# The series of master, oldest first, as subjects.
series() {
	for oid in $(series_oids); do
		git -C source log -1 --format=%s "$oid"
	done
}

# reword OID...: the commits again, one on the other, same trees, new
# messages, on top of the first one's parent; prints the new tip.
reword() {
	prev=$(git -C source rev-parse "$1^")
	for c in "$@"; do
		prev=$(git -C source commit-tree "$c^{tree}" -p "$prev" \
			-m "$(git -C source log -1 --format=%s "$c") (reworded)")
	done
	echo "$prev"
}

# commit_on PARENT FILE: a new commit on PARENT that adds FILE; its oid.
commit_on() {
	git -C source read-tree "$1^{tree}" &&
	echo "$2" >"source/$2" &&
	blob=$(git -C source hash-object -w "$2") &&
	git -C source update-index --add --cacheinfo 100644 "$blob" "$2" &&
	tree=$(git -C source write-tree) &&
	git -C source commit-tree "$tree" -p "$1" -m "$2"
}

test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'setup: a history with one culprit, an empty upstream' '
	setup_bench --commits 24 --culprit 12 --change -5 &&
	continuous_setup "master, other" &&
	mkdir web &&
	echo "web: web" >>bisectd.yaml &&
	push master~20 master &&
	push master~20 other
'

test_expect_success 'the daemon tests the first tip once for both branches' '
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready &&
	test_wait_for 600 settled 1 &&
	test "$(rows other)" = 1 &&
	test "$(count "SELECT count(*) FROM builds")" = 1
'

test_expect_success 'pushed commits are tested, the regression bisected' '
	push master~8 master &&
	test_wait_for 3000 found 1 &&
	test_wait_for 600 settled 13 &&
	logged 1 "12 new commits on .master." &&
	test "$(count "SELECT count(*) FROM regressions")" = 1 &&
	count "SELECT count(*) FROM builds" >builds.before &&
	count "SELECT count(*) FROM runs" >runs.before
'

test_expect_success 'a same-tree rewrite: no build, no run, no new report' '
	tip=$(reword $(git -C source rev-list --reverse master~11..master~8)) &&
	push "$tip" master &&
	test_wait_for 300 logged 1 "branch .master. was rewritten: 3 commits leave its series, 3 come in" &&
	test_wait_for 300 logged 1 "3 commits of a tree tested already" &&
	test_wait_for 600 settled 13 &&
	test "$(count "SELECT count(*) FROM builds")" = "$(cat builds.before)" &&
	test "$(count "SELECT count(*) FROM runs")" = "$(cat runs.before)" &&
	series >series.out &&
	test "$(tail -n 1 series.out)" = "commit 16 (reworded)" &&
	test "$(count "SELECT count(*) FROM regressions")" = 1 &&
	echo "$tip" >tip
'

test_expect_success 'reset back two and push one: only the new one is tested' '
	tip=$(commit_on "$(cat tip)~2" extra) &&
	push "$tip" master &&
	test_wait_for 300 logged 1 "was rewritten: 2 commits leave its series, 1 come in" &&
	test_wait_for 600 settled 12 &&
	series >series.out &&
	test "$(sed -n 11p series.out)" = "commit 14 (reworded)" &&
	test "$(tail -n 1 series.out)" = extra &&
	test "$(count "SELECT count(*) FROM builds")" = "$(($(cat builds.before) + 1))" &&
	echo "$tip" >tip
'

test_expect_success 'a rebase onto a new base keeps the commits before it' '
	base=$(commit_on "$(cat tip)~2" newbase) &&
	tip=$(git -C source rev-list --reverse "$(cat tip)~2..$(cat tip)" | {
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
	test_wait_for 300 logged 1 "was rewritten: 2 commits leave its series, 3 come in" &&
	test_wait_for 600 settled 13 &&
	series >series.out &&
	test "$(sed -n 10,13p series.out | tr "\n" ,)" = "commit 13,newbase,commit 14 (reworded) (rebased),extra (rebased)," &&
	test "$(count "SELECT count(*) FROM regressions")" = 1
'

test_expect_success 'a reset to a tracked commit is said once' '
	c13=$(series_oids | sed -n 10p) &&
	echo "$c13" >c13 &&
	push "$c13" master &&
	test_wait_for 300 logged 1 "was rewritten: 3 commits leave its series, 0 come in" &&
	test_wait_for 600 settled 10 &&
	other=$(commit_on "$(git -C source rev-parse master~20)" other1) &&
	push "$other" other &&
	test_wait_for 300 logged 1 "1 new commits on .other." &&
	other=$(commit_on "$other" other2) &&
	push "$other" other &&
	test_wait_for 300 logged 2 "1 new commits on .other." &&
	logged 1 "3 commits leave its series, 0 come in" &&
	logged 4 "was rewritten" &&
	logged 1 "new commits on .master." &&
	bisectctl status >status.out &&
	grep -qx "  bench master: 10 commits seen, 10 queued, newest $(echo "$c13" | cut -c1-10)" status.out
'

test_expect_success 'a deleted branch is said once, marked gone' '
	git -C source push -q ../upstream.git :refs/heads/other &&
	test_wait_for 300 logged 1 "branch .other. is gone upstream" &&
	tip=$(commit_on "$(cat c13)" after) &&
	push "$tip" master &&
	test_wait_for 300 logged 1 "1 new commits on .master." &&
	test_wait_for 600 settled 11 &&
	logged 1 "is gone upstream" &&
	bisectctl status >status.out &&
	grep -q "^  bench other: .*, gone upstream$" status.out &&
	test_wait_for 600 grep -q "This branch is gone upstream" web/index.html &&
	test "$(count "SELECT count(*) FROM regressions")" = 1 &&
	test "$(count "SELECT count(*) FROM requests WHERE kind = \"bisect\"")" = 1
'

test_expect_success 'the daemon stops on SIGTERM' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped
'

test_done
