#!/bin/sh
# Knobs across a killed agent and across two runs on one machine, on a
# fixture tree of ivb44 (BISECT_AGENT_ROOT): a bisect-agent SIGKILLed
# mid-run leaves THP and a sysctl set and their journal; the next run, of
# any job, puts them back, reads them back and records it (knobs_reaped);
# one that cannot be put back is that run's error. Two runs that want
# different THP values do not overlap: the second waits for the first.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh
THP=sys/kernel/mm/transparent_hugepage
JOURNALS=m/var/tmp/bisect-agent-knobs
unset BISECT_AGENT_KNOB_DIR

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}
# The [bracketed] choice of a THP file (restoring writes the choice alone).
choice() {
	sed -e "s/.*\[\(.*\)\].*/\1/" "$1"
}
nr_journals() {
	ls "$JOURNALS" 2>/dev/null | grep -c '^knob-'
}
# kill_agent N: start the agent on kill.yaml into res-kill-N, wait for its
# testcase's marker, SIGKILL the agent (and the testcase it left), by pid.
kill_agent() {
	rm -f marker &&
	{ BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run kill.yaml "res-kill-$1" \
	    2>"kill-$1.err" & } &&
	agent=$! &&
	echo "$agent" >"agent-$1.pid" &&
	test_at_exit "kill -9 $agent" &&
	test_wait_for 1200 test -s marker &&
	test_at_exit "kill -9 $(cat marker)" &&
	test "$(choice m/$THP/enabled)" = never &&
	test "$(cat m/proc/sys/vm/swappiness)" = 10 &&
	test "$(nr_journals)" = 2 &&
	kill -KILL "$agent" &&
	{ wait "$agent"; test $? = 137; } &&
	kill -KILL "$(cat marker)"
}

test_expect_success 'setup' '
	sh "$MACHINE" ivb44 m &&
	cat >kill.yaml <<-EOF &&
	testcase: killed
	run: "echo \$\$ >$TRASH/marker.tmp && mv $TRASH/marker.tmp $TRASH/marker && exec sleep 600"
	thp_enabled: never
	sysctl:
	  vm.swappiness: 10
	monitors: []
	EOF
	cat >next.yaml <<-\EOF
	testcase: next
	run: "cat $BISECT_AGENT_ROOT/sys/kernel/mm/transparent_hugepage/enabled $BISECT_AGENT_ROOT/proc/sys/vm/swappiness"
	monitors: []
	EOF
'

test_expect_success 'an agent killed mid-run leaves its knobs set, and their journal' '
	kill_agent 1 &&
	test "$(choice m/$THP/enabled)" = never &&
	test "$(cat m/proc/sys/vm/swappiness)" = 10 &&
	grep "^old madvise$" $JOURNALS/knob-* &&
	grep "^pid $(cat agent-1.pid)$" $JOURNALS/knob-*
'

test_expect_success 'the next run, of a job without knobs, puts them back and records it' '
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run next.yaml res-next 2>next.err &&
	! grep "^error" res-next/result &&
	printf "madvise\n60\n" >want &&
	test_cmp_lines res-next/output.log want &&
	test "$(choice m/$THP/enabled)" = madvise &&
	test "$(cat m/proc/sys/vm/swappiness)" = 60 &&
	reaped=$(env_of knobs_reaped res-next/result) &&
	case "$reaped" in
	*"thp_enabled '\''$TRASH/m/$THP/enabled'\'' never -> madvise (left by pid $(cat agent-1.pid))"*) ;;
	*) echo "knobs_reaped: $reaped"; false ;;
	esac &&
	case "$reaped" in
	*"sysctl.vm.swappiness '\''$TRASH/m/proc/sys/vm/swappiness'\'' 10 -> 60"*) ;;
	*) echo "knobs_reaped: $reaped"; false ;;
	esac &&
	grep "^bisect-agent: knob of a killed run put back: thp_enabled .* never -> madvise" next.err &&
	test "$(nr_journals)" = 0
'

test_expect_success 'and the run after it finds nothing to put back' '
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run next.yaml res-next2 &&
	! grep "^env knobs_reaped" res-next2/result &&
	! grep "^error" res-next2/result
'

test_expect_success 'a killed run knob that cannot be put back is the next run error' '
	kill_agent 2 &&
	rm m/$THP/enabled &&
	mkdir m/$THP/enabled &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run next.yaml res-bad &&
	grep "^error couldn.t put back the knobs of a killed run: .*thp_enabled" \
		res-bad/result &&
	! test -s res-bad/output.log &&
	test "$(nr_journals)" = 1 &&
	rmdir m/$THP/enabled &&
	echo "always madvise [never]" >m/$THP/enabled &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run next.yaml res-fixed &&
	! grep "^error" res-fixed/result &&
	env_of knobs_reaped res-fixed/result | grep "never -> madvise" &&
	test "$(choice m/$THP/enabled)" = madvise &&
	test "$(nr_journals)" = 0
'

test_expect_success 'two runs wanting different THP values: the second waits' '
	cat >first.yaml <<-EOF &&
	testcase: first
	run: "choice() { sed -e \"s/.*\\\\[\\\\(.*\\\\)\\\\].*/\\\\1/\" \"\$1\"; }; choice \$BISECT_AGENT_ROOT/$THP/enabled >$TRASH/first-start && while ! test -e $TRASH/release; do sleep 0.1; done; choice \$BISECT_AGENT_ROOT/$THP/enabled >$TRASH/first-end"
	thp_enabled: never
	monitors: []
	EOF
	cat >second.yaml <<-EOF &&
	testcase: second
	run: "cat \$BISECT_AGENT_ROOT/$THP/enabled"
	thp_enabled: always
	monitors: []
	EOF
	{ BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run first.yaml res-first & } &&
	first=$! &&
	test_at_exit "kill -9 $first" &&
	test_wait_for 1200 test -s first-start &&
	{ BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run second.yaml res-second \
	    2>second.err & } &&
	second=$! &&
	test_at_exit "kill -9 $second" &&
	test_wait_for 1200 grep "knob .thp_enabled.: another run on this machine holds .*$THP/enabled., waiting" second.err &&
	test "$(choice m/$THP/enabled)" = never &&
	! test -e res-second/output.log &&
	>release &&
	wait "$first" &&
	wait "$second" &&
	test "$(cat first-start)" = never &&
	test "$(cat first-end)" = never &&
	! grep "^error" res-first/result &&
	! grep "^error" res-second/result &&
	test "$(env_of thp_enabled res-second/result)" = always &&
	echo "always" >want &&
	test_cmp_lines res-second/output.log want &&
	test "$(choice m/$THP/enabled)" = madvise
'

test_done
