#!/bin/sh
# Parallel builds: five commits of one repository queued at once build
# three at a time (scheduler.build_slots: 3), each in its own slot; a
# freed slot takes the next build. The process is killed with SIGKILL
# while three builds are in flight: the artifact cache then holds only the
# entry that was complete, and no half entry. What the killed workers had
# started goes with them (each build's guard kills its process group when
# its worker dies), so no orphan writes into a slot the rerun will use; the
# locks go with the command too, so a retry could not start while one
# lived. Then the rerun builds the rest, never two builds of one entry at
# once, and not the complete entry again.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

started() {
	grep -c "^start" builds.log 2>/dev/null || echo 0
}

nr_started() {
	test "$(started)" -ge "$1"
}

started_oid() {
	grep "^start $1 " builds.log 2>/dev/null | wc -l
}

oid_done() {
	grep -q "^done $1 " builds.log
}

# The builds started and never done: "OID PID" lines.
unfinished() {
	awk '$1 == "start" { s[$2 " " $3] = 1 }
	    $1 == "done" || $1 == "killed" { delete s[$2 " " $3] }
	    END { for (k in s) print k }' builds.log
}

# A process that runs (this container's PID 1 does not reap orphans, so a
# killed one may stay a zombie: that is gone too).
running() {
	test -r /proc/$1/stat &&
	test "$(sed 's/.*) //' /proc/$1/stat | cut -c1)" != Z
}

killed_builds_gone() {
	unfinished | while read oid pid; do
		! running $pid || return 1
	done
}

db_builds() {
	db_query "SELECT count(*) FROM builds WHERE status = '$1'"
}

# Each build says when it starts (with its pid and its tree) and ends, and
# waits for its commit's gate file: the test decides when a build ends.
test_at_exit 'kill $(cat "$TRASH/pid") 2>/dev/null'
test_expect_success 'setup' '
	cat >build.sh <<-\EOF &&
	oid=$(cut -c1-40 .bisectd-checkout)
	echo "start $oid $$ $PWD" >>"$TRASH/builds.log"
	while [ -d "$TRASH" ] && [ ! -e "$TRASH/gate.$oid" ] &&
	    [ ! -e "$TRASH/gate.all" ]; do
		sleep 0.05
	done
	echo "done $oid $$" >>"$TRASH/builds.log"
	EOF
	setup_bench --commits 6 --culprit 4 --change -5 &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: sh $TRASH/build.sh
	      artifacts: [bench.sh, speed, noise]
	scheduler:
	  build_slots: 3
	EOF
	git -C repo log --format=%H -n 5 master >oids &&
	test $(wc -l <oids) = 5 &&
	set -- $(cat oids) &&
	printf -- "--commit %s " "$@" >commit-args
'

test_expect_success 'three builds at once, each in its own slot' '
	bisectctl queue job.yaml $(cat commit-args) --wait --json \
		>out.1 2>err.1 &
	echo $! >pid &&
	test_wait_for 600 nr_started 3 &&
	test_wait_for 600 test "$(db_builds running)" = 3 &&
	test "$(started)" = 3 &&
	test "$(db_builds pending)" = 2 &&
	awk "/^start/ { print \$4 }" builds.log | sort -u >trees &&
	test $(wc -l <trees) = 3 &&
	for k in 0 1 2; do
		grep -qx "$TRASH/state/slots/bench/$k/tree" trees || return 1
	done
'

test_expect_success 'a freed slot takes the next build' '
	first=$(awk "/^start/ { print \$2; exit }" builds.log) &&
	tree=$(awk "/^start/ { print \$4; exit }" builds.log) &&
	echo "$first" >first &&
	: >gate.$first &&
	test_wait_for 600 oid_done "$first" &&
	test_wait_for 600 nr_started 4 &&
	test "$(awk "/^start/ { n++; if (n == 4) print \$4 }" builds.log)" = "$tree"
'

test_expect_success 'killed with three builds in flight: no half entry' '
	first=$(cat first) &&
	test_wait_for 600 test "$(db_builds ok)" = 1 &&
	test_wait_for 600 test "$(db_builds running)" = 3 &&
	kill -9 $(cat pid) &&
	{ wait $(cat pid) 2>/dev/null; true; } &&
	cache=$(echo state/cache/bench/*) &&
	test -d "$cache" &&
	ls -A "$cache" | grep -v "\.lock\$" >entries &&
	echo "$first" >want &&
	test_cmp_lines entries want &&
	test -e "$cache/$first/.complete" &&
	test -e "$cache/$first/bench.sh"
'

test_expect_success 'the killed builds went with their worker; the rerun builds the rest once each, the complete entry not again' '
	test "$(unfinished | wc -l)" = 3 &&
	test_wait_for 600 killed_builds_gone &&
	unfinished | sed "s/^/killed /" >>builds.log &&
	bisectctl queue job.yaml $(cat commit-args) --wait --json \
		>out.2 2>err.2 &
	echo $! >pid &&
	first=$(cat first) &&
	: >gate.all &&
	wait $(cat pid) &&
	test "$(started_oid "$first")" = 1 &&
	test "$(db_builds ok)" = 5 &&
	cache=$(echo state/cache/bench/*) &&
	for oid in $(cat oids); do
		test -e "$cache/$oid/.complete" || return 1
	done &&
	test "$(ls -A "$cache" | grep -v "\.lock\$" | wc -l)" = 5 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = \"done\"")" = \
		"$(db_query "SELECT count(*) FROM runs")"
'

test_expect_success 'never two builds of one entry at once' '
	for oid in $(cat oids); do
		grep " $oid " builds.log | awk "
			\$1 == \"start\" { if (open) exit 1; open = 1 }
			\$1 == \"done\" || \$1 == \"killed\" { open = 0 }" || return 1
	done
'

test_done
