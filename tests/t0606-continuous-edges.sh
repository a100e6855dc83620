#!/bin/sh
# Continuous mode's edges, said once (issue 17): a remote that is not
# there is logged with its real cause ("no such repository", "connection
# refused"), once however often it fails, tried again later and later,
# and its recovery logged; the max_new cap logs how many commits it
# skipped.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"

logged() {
	test "$(grep -c -- "$2" daemon.log)" = "$1"
}

inode() {
	stat -c %i "state/fetch-$1.error" 2>/dev/null || echo none
}

# changed FILE OLD: the failure note was written again (a new failure).
changed() {
	test "$(inode "$1")" != "$2" && test "$(inode "$1")" != none
}

tracked() {
	test "$(db_query "SELECT count(*) FROM tracked WHERE repo = '$1'" 2>/dev/null)" = "$2"
}

test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'setup: a missing remote, a refusing one, a capped one' '
	setup_bench --commits 20 --culprit 0 &&
	mv repo source &&
	git init -q repo &&
	git init -q late &&
	git init -q refused &&
	git init -q --bare upstream.git &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    fetch: $TRASH/upstream.git
	    track: [master]
	    build:
	      command: test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	  - name: late
	    path: late
	    fetch: $TRASH/late.git
	    track: [master]
	    build:
	      command: "true"
	  - name: refused
	    path: refused
	    fetch: git://127.0.0.1:1/linux.git
	    track: [master]
	    build:
	      command: "true"
	continuous:
	  jobs: [job.yaml]
	  interval: 1
	  max_new: 5
	EOF
	git -C source push -q ../upstream.git master~15:refs/heads/master
'

test_expect_success 'a missing remote: its cause, once, while it fails' '
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready &&
	test_wait_for 300 logged 1 "no such repository .$TRASH/late.git." &&
	test_wait_for 300 grep -q "refused.*Connection refused\|refused.*connection refused" daemon.log &&
	old=$(inode late) &&
	test_wait_for 300 changed late "$old" &&
	old=$(inode late) &&
	test_wait_for 300 changed late "$old" &&
	logged 1 "no such repository" &&
	test "$(grep -c "repository .refused.*onnection refused" daemon.log)" = 1 &&
	grep -q "trying again in 1 s, then less often (up to every 3600 s)" daemon.log
'

test_expect_success 'it comes: its recovery is logged, its branch tracked' '
	git init -q --bare late.git &&
	git -C source push -q ../late.git master:refs/heads/master &&
	test_wait_for 600 logged 1 "repository .late.: fetch works again, after [0-9]* failed" &&
	test_wait_for 300 tracked late 1
'

test_expect_success 'the max_new cap says what it skipped' '
	test_wait_for 600 tracked bench 1 &&
	git -C source push -q ../upstream.git master:refs/heads/master &&
	test_wait_for 300 logged 1 "branch .master.: 10 older new commits skipped (continuous: max_new is 5): the newest 5 are tested" &&
	test_wait_for 300 tracked bench 6 &&
	logged 1 "15 new commits on .master."
'

test_expect_success 'the daemon stops on SIGTERM' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped
'

test_done
