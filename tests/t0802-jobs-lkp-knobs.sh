#!/bin/sh
# LKP's names for knobs, as its job files write them: sysctl short names
# (sc_NAME or sysctl: {sc_NAME}, under /proc/sys/kernel, vm, fs,
# net/core..., '-' for '_')
# and transparent_hugepage: {thp_enabled, thp_defrag, ...} maps. On a
# fixture tree they are applied before the testcase (which sees them),
# recorded under the job's key, read back and restored; a name that is
# no file is refused at check time with FILE:LINE:COL, and is an error of
# the run on an agent that lacks it.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh
THP=sys/kernel/mm/transparent_hugepage

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}
choice() {
	sed -e "s/.*\[\(.*\)\].*/\1/" "$1"
}

test_expect_success 'setup: a fixture machine with the files LKP names' '
	sh "$MACHINE" ivb44 m &&
	mkdir -p m/proc/sys/net/core &&
	echo 0 >m/proc/sys/vm/overcommit_memory &&
	echo 4096 >m/proc/sys/net/core/somaxconn &&
	echo 0 >m/proc/sys/kernel/ctrl-alt-del &&
	echo "always within_size advise [never] deny force" >m/$THP/shmem_enabled &&
	cat >lkp.yaml <<-\EOF
	suite: knobs
	testcase: knobs
	run: "cat $BISECT_AGENT_ROOT/proc/sys/vm/overcommit_memory $BISECT_AGENT_ROOT/proc/sys/net/core/somaxconn $BISECT_AGENT_ROOT/proc/sys/kernel/ctrl-alt-del $BISECT_AGENT_ROOT/sys/kernel/mm/transparent_hugepage/enabled $BISECT_AGENT_ROOT/sys/kernel/mm/transparent_hugepage/shmem_enabled"
	sysctl:
	  sc_overcommit_memory: 1
	sc_somaxconn: 65535
	sc_ctrl_alt_del: 1
	transparent_hugepage:
	  thp_enabled: never
	  shmem_enabled: advise
	monitors: []
	EOF
'

test_expect_success 'check lists them as knobs, not parameters' '
	bisectctl check lkp.yaml >check.out &&
	grep "^  knobs:" check.out &&
	grep "sc_overcommit_memory" check.out
'

test_expect_success 'applied, seen by the testcase, recorded under the job key' '
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run lkp.yaml res &&
	! grep "^error" res/result &&
	printf "1\n65535\n1\nnever\nadvise\n" >want &&
	test_cmp_lines res/output.log want &&
	test "$(env_of sysctl.sc_overcommit_memory res/result)" = 1 &&
	test "$(env_of sc_somaxconn res/result)" = 65535 &&
	test "$(env_of sc_ctrl_alt_del res/result)" = 1 &&
	test "$(env_of transparent_hugepage.thp_enabled res/result)" = never &&
	test "$(env_of transparent_hugepage.shmem_enabled res/result)" = advise &&
	env_of knobs res/result | tr " " "\n" | sort >knobs &&
	printf "%s\n" sc_ctrl_alt_del sc_somaxconn sysctl.sc_overcommit_memory \
		transparent_hugepage.shmem_enabled transparent_hugepage.thp_enabled >want &&
	test_cmp_lines knobs want
'

test_expect_success 'and restored afterwards' '
	test "$(cat m/proc/sys/vm/overcommit_memory)" = 0 &&
	test "$(cat m/proc/sys/net/core/somaxconn)" = 4096 &&
	test "$(cat m/proc/sys/kernel/ctrl-alt-del)" = 0 &&
	test "$(choice m/$THP/enabled)" = madvise &&
	test "$(choice m/$THP/shmem_enabled)" = never
'

test_expect_success 'the same file under two names is refused at the run' '
	printf "testcase: t\nrun: \"true\"\nthp_enabled: always\ntransparent_hugepage:\n  thp_enabled: never\nmonitors: []\n" >two.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run two.yaml res-two &&
	grep "^error .thp_enabled. and .transparent_hugepage.thp_enabled. both set" res-two/result
'

test_expect_success 'a short name that is no sysctl: refused at check, FILE:LINE:COL' '
	printf "testcase: t\nrun: \"true\"\nsc_no_such_knob: 1\n" >bad.yaml &&
	test_expect_code 2 bisectctl check bad.yaml 2>err &&
	grep "^error: bad.yaml:3:1: .sc_no_such_knob.: this machine has no sysctl .no_such_knob." err &&
	printf "testcase: t\nrun: \"true\"\ntransparent_hugepage:\n  thp_enable: never\n" >thp.yaml &&
	test_expect_code 2 bisectctl check thp.yaml 2>err &&
	grep "^error: thp.yaml:4:3: .transparent_hugepage.thp_enable. is not a setting of LKP.s transparent_hugepage" err
'

test_expect_success 'an agent without the file: an error of the run naming it' '
	rm m/proc/sys/net/core/somaxconn &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run lkp.yaml res-gone &&
	grep "^error .sc_somaxconn.: this machine has no sysctl .somaxconn." res-gone/result &&
	test "$(cat m/proc/sys/vm/overcommit_memory)" = 0
'

test_done
