#!/bin/sh
# LKP's monitor_delay is applied: the monitors (all but time and
# interference, which cover the whole testcase) start that many seconds
# after the testcase, as LKP's lib/job.sh wakes them; env
# monitors_delayed_started says when. A testcase that ends first leaves
# them unstarted, named in env monitors_not_started. A value that is no
# duration is refused at check and queue time with FILE:LINE:COL.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}

test_expect_success 'setup' '
	sh "$MACHINE" ivb44 m &&
	cat >bump.sh <<-\EOF
	sed -i "s/^pgfault .*/pgfault 200000000/" "$BISECT_AGENT_ROOT/proc/vmstat"
	EOF
'

# The testcase moves a counter at once (a rename, so no reader sees half a
# file), then sleeps: a monitor started with it sees the move, one
# started 2 s in does not.
test_expect_success 'without monitor_delay, proc-vmstat sees the whole testcase' '
	cat >now.yaml <<-\EOF &&
	testcase: t
	run: "sh $BUMP; sleep 3; echo v: 1"
	monitors: [proc-vmstat]
	EOF
	BUMP=$TRASH/bump.sh BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run now.yaml res-now &&
	! grep "^error" res-now/result &&
	grep "^metric proc-vmstat.pgfault 76543211$" res-now/result &&
	test -z "$(env_of monitors_delayed_started res-now/result)"
'

test_expect_success 'monitor_delay: 2s starts proc-vmstat 2 s in, after the move' '
	sh "$MACHINE" ivb44 m &&
	sed "s/^monitors:/monitor_delay: 2s\nmonitors:/" now.yaml >late.yaml &&
	bisectctl check late.yaml >check.out &&
	grep "^    monitor_delay: 2$" check.out &&
	BUMP=$TRASH/bump.sh BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run late.yaml res-late &&
	! grep "^error" res-late/result &&
	grep "^metric proc-vmstat.pgfault 0$" res-late/result &&
	test "$(env_of monitors res-late/result)" = "time interference proc-vmstat" &&
	test "$(env_of monitor_delay res-late/result)" = 2 &&
	at=$(env_of monitors_delayed_started res-late/result) &&
	awk -v a="$at" "BEGIN { exit !(a >= 2 && a < 3) }" &&
	grep "^metric time.elapsed_time 3\." res-late/result
'

test_expect_success 'a testcase that ends before the delay leaves them unstarted' '
	printf "testcase: t\nrun: \"echo v: 1\"\nmonitor_delay: 60\nmonitors: [meminfo, proc-vmstat]\n" >short.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run short.yaml res-short &&
	! grep "^error" res-short/result &&
	test "$(env_of monitors res-short/result)" = "time interference" &&
	test "$(env_of monitors_not_started res-short/result)" = "meminfo proc-vmstat" &&
	test "$(env_of monitors_not_started_why res-short/result)" = "the testcase ended before monitor_delay (60s)" &&
	! grep "^metric proc-vmstat\." res-short/result &&
	grep "^metric t.v 1$" res-short/result
'

test_expect_success 'LKP dbench.yaml hash_0 form: monitor_delay beside a marker is accepted' '
	printf "suite: dbench\ntestcase: dbench\nnr_threads: 100%%\ndbench:\nmonitor_delay: 10\n" >db.yaml &&
	bisectctl check db.yaml >check.out &&
	grep "^    monitor_delay: 10$" check.out
'

test_expect_success 'a monitor_delay that is no duration is refused, at check and queue' '
	printf "testcase: t\nrun: \"echo v: 1\"\nmonitor_delay: soon\n" >bad.yaml &&
	test_expect_code 2 bisectctl check bad.yaml 2>err &&
	grep -x "error: bad.yaml:3:16: .monitor_delay. must be a duration like 60s, 5m, 1h or 1d (at most 30 days), not .soon." err &&
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	printf "repos:\n  - name: r\n    path: repo\n" >bisectd.yaml &&
	test_expect_code 2 bisectctl queue bad.yaml --commit HEAD 2>err &&
	grep "^error: bad.yaml:3:16: .monitor_delay. must be a duration" err &&
	! test -d state/runs/1
'

test_done
