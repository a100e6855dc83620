#!/bin/sh
# Job knobs on a fixture tree of ivb44: thp_enabled, thp_defrag,
# numa_balancing and sysctls are applied before the testcase (which sees
# them), recorded as the run's environment, checked after the run and
# restored; a knob that does not stick, or cannot be set, fails the run.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh
THP=sys/kernel/mm/transparent_hugepage

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}
# The [bracketed] choice of a THP file (restoring writes the choice alone).
choice() {
	sed -e "s/.*\[\(.*\)\].*/\1/" "$1"
}

test_expect_success 'setup' '
	sh "$MACHINE" ivb44 m &&
	cat >knobs.yaml <<-\EOF
	testcase: knobs
	run: "cat $BISECT_AGENT_ROOT/sys/kernel/mm/transparent_hugepage/enabled $BISECT_AGENT_ROOT/sys/kernel/mm/transparent_hugepage/defrag $BISECT_AGENT_ROOT/proc/sys/kernel/numa_balancing $BISECT_AGENT_ROOT/proc/sys/vm/swappiness"
	thp_enabled: always
	thp_defrag: never
	numa_balancing: 0
	sysctl:
	  vm.swappiness: 10
	  vm/dirty_ratio: 5
	monitors: []
	EOF
'

test_expect_success 'knobs are applied, seen by the testcase, recorded' '
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run knobs.yaml res &&
	! grep "^error" res/result &&
	printf "always\nnever\n0\n10\n" >want &&
	test_cmp_lines res/output.log want &&
	test "$(env_of thp_enabled res/result)" = always &&
	test "$(env_of thp_defrag res/result)" = never &&
	test "$(env_of numa_balancing res/result)" = 0 &&
	test "$(env_of sysctl.vm.swappiness res/result)" = 10 &&
	test "$(env_of sysctl.vm/dirty_ratio res/result)" = 5 &&
	test "$(env_of knobs res/result)" = \
		"thp_enabled thp_defrag numa_balancing sysctl.vm.swappiness sysctl.vm/dirty_ratio"
'

test_expect_success 'and restored afterwards' '
	test "$(choice m/$THP/enabled)" = madvise &&
	test "$(choice m/$THP/defrag)" = madvise &&
	test "$(cat m/proc/sys/kernel/numa_balancing)" = 1 &&
	test "$(cat m/proc/sys/vm/swappiness)" = 60 &&
	test "$(cat m/proc/sys/vm/dirty_ratio)" = 20 &&
	! grep "^env knobs_not_restored" res/result
'

test_expect_success 'a knob changed during the run fails the run, and is restored' '
	sh "$MACHINE" ivb44 m &&
	cat >flip.yaml <<-\EOF &&
	testcase: flip
	run: "echo never >$BISECT_AGENT_ROOT/sys/kernel/mm/transparent_hugepage/enabled; echo ran: 1"
	thp_enabled: always
	monitors: []
	EOF
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run flip.yaml res-flip &&
	grep "^exit_status 0$" res-flip/result &&
	grep "^error knob .thp_enabled. did not stick: it was set to .always. but reads .never. after the run$" \
		res-flip/result &&
	grep "^metric flip.ran 1$" res-flip/result &&
	test "$(choice m/$THP/enabled)" = madvise
'

test_expect_success 'a knob that cannot be set: no run, an error naming it' '
	sh "$MACHINE" ivb44 m &&
	cat >missing.yaml <<-\EOF &&
	testcase: missing
	run: "echo ran: 1"
	thp_defrag: always
	sysctl: { vm.no_such_thing: 1 }
	monitors: []
	EOF
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run missing.yaml res-missing &&
	grep "^exit_status -1$" res-missing/result &&
	grep "^error knob .sysctl.vm.no_such_thing.: .*/proc/sys/vm/no_such_thing. cannot be read on this machine$" \
		res-missing/result &&
	! grep "ran" res-missing/output.log &&
	test "$(choice m/$THP/defrag)" = madvise &&
	test "$(env_of thp_defrag res-missing/result)" = always
'

test_expect_success 'a machine without THP cannot run a THP job' '
	sh "$MACHINE" ivb44 nothp &&
	rm -r nothp/sys/kernel/mm/transparent_hugepage &&
	printf "testcase: t\nrun: \"true\"\nthp_enabled: never\n" >t.yaml &&
	BISECT_AGENT_ROOT=$TRASH/nothp "$AGENT" run t.yaml res-nothp &&
	grep "^error knob .thp_enabled.: .*transparent_hugepage/enabled. cannot be read" \
		res-nothp/result
'

test_expect_success 'a sysctl name that would leave /proc/sys is refused' '
	printf "testcase: t\nrun: \"true\"\nsysctl: { \"kernel/../../../etc/passwd\": 1 }\n" >evil.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run evil.yaml res-evil &&
	grep "^error .sysctl.kernel/../../../etc/passwd. is not a sysctl name" \
		res-evil/result &&
	! test -e etc/passwd
'

test_done
