#!/bin/sh
# LKP's program markers: a marker that names a monitor the agent has
# (by its name, so any registered monitor: proc-vmstat:, LKP's
# numa-numastat:) runs that monitor beside the testcase, added to the
# default set or to "monitors:"; a marker of a program an adapter file
# covers (programs: [tbench-server]) is that adapter's, and the options
# of such a program (pgbench-setup: {scale_factor: 3}) are the adapter's
# parameters; oom-killer: {ignored: 1} is accepted.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}

test_expect_success 'setup' '
	sh "$MACHINE" ivb44 m
'

test_expect_success 'a monitor marker runs the monitor, beside monitors:' '
	cat >v.yaml <<-\EOF &&
	suite: t
	testcase: t
	run: "sh $BISECTD_SRC/tests/fixture-machine.sh ivb44 $BISECT_AGENT_ROOT step 1; echo v: 1"
	monitors: []
	proc-vmstat:
	numa-numastat:
	EOF
	bisectctl check v.yaml >check.out &&
	grep "^  programs: numa-numastat proc-vmstat$" check.out &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run v.yaml res &&
	! grep "^error" res/result &&
	test "$(env_of monitors res/result)" = "time interference numastat proc-vmstat" &&
	grep "^metric proc-vmstat.pgfault 96000$" res/result &&
	grep "^metric numa-numastat.node0.numa_hit 50000$" res/result
'

test_expect_success 'without monitors:, a marker adds to the default set' '
	printf "testcase: t\nrun: \"echo v: 1\"\nperf-stat:\n" >d.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run d.yaml res-d &&
	env_of monitors res-d/result >mons &&
	grep -w meminfo mons && grep -w proc-stat mons &&
	{ grep -w perf-stat mons ||
	  env_of monitors_unavailable res-d/result | grep -w perf-stat; }
'

test_expect_success 'the covered programs of an adapter file, and their options' '
	printf "testcase: tbench\ncluster: cs-localhost\nif role server:\n  tbench-server:\nif role client:\n  tbench:\n" >tb.yaml &&
	bisectctl check tb.yaml >check.out &&
	grep "^  programs: tbench tbench-server$" check.out &&
	printf "testcase: pgbench\npgbench-setup:\n  scale_factor: 3\npgbench:\n" >pg.yaml &&
	bisectctl check --json pg.yaml >pg.json &&
	"$PYTHON3" -c "import json, sys
a = json.load(open(sys.argv[1]))[0][\"runs\"][\"argv\"]
assert a[-11] == \"3\", a" pg.json &&
	printf "testcase: pgbench\npgbench-setup:\n  scale_factor: lots\n" >pgbad.yaml &&
	test_expect_code 2 bisectctl check pgbad.yaml 2>err &&
	grep "^error: pgbad.yaml:3:3: testcase .pgbench.: " err &&
	printf "testcase: pgbench\npgbench-setup:\n  no_such: 1\n" >pgno.yaml &&
	test_expect_code 2 bisectctl check pgno.yaml 2>err &&
	grep "^error: pgno.yaml:3:3: unknown parameter .pgbench-setup.no_such. for testcase .pgbench. (it takes scale_factor, " err
'

test_expect_success 'oom-killer: {ignored: 1} is accepted' '
	printf "testcase: t\nrun: \"echo v: 1\"\noom-killer:\n  ignored: 1\nmonitors: []\n" >o.yaml &&
	bisectctl check o.yaml >/dev/null &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run o.yaml res-o &&
	grep "^metric t.v 1$" res-o/result
'

test_done
