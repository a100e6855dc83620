#!/bin/sh
# The agent's monitors end to end: on fixture trees of the two-node
# ivb44 and a four-node machine (tests/fixture-machine.sh), a testcase
# moves the counters by a known step and the run's metrics must be those
# deltas and means; the default set, a chosen set, none, an unknown
# name, a monitor this machine cannot have, a file that vanishes during
# the run; and the default monitors on this machine's real /proc.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh

metric() {
	sed -n "s/^metric $1 //p" "$2"
}
instances() {
	grep -c "^instance $1 " "$2"
}
env_of() {
	sed -n "s/^env $1 //p" "$2"
}
# between LOW VALUE HIGH (inclusive), as numbers
between() {
	awk -v l="$1" -v v="$2" -v h="$3" 'BEGIN { exit !(v >= l && v <= h) }'
}

test_expect_success 'setup: fixture machines and a job that steps them' '
	sh "$MACHINE" ivb44 ivb44 &&
	sh "$MACHINE" hsx4 hsx4 &&
	cat >step.yaml <<-EOF
	testcase: step
	run: "sh $MACHINE \$machine \$BISECT_AGENT_ROOT step 1 && echo done: 1"
	machine: ivb44
	EOF
'

test_expect_success 'the default monitors on ivb44: deltas and means' '
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run step.yaml res 2>err &&
	! grep "^error" res/result &&
	test "$(env_of monitors res/result)" = \
		"time interference proc-vmstat meminfo numastat numa-meminfo proc-stat interrupts softirqs cpufreq" &&
	test "$(metric proc-vmstat.pgfault res/result)" = 96000 &&
	test "$(metric proc-vmstat.numa_miss res/result)" = 500 &&
	test "$(metric numa-numastat.node0.numa_hit res/result)" = 50000 &&
	test "$(metric numa-numastat.node1.numa_hit res/result)" = 50000 &&
	test "$(metric numa-numastat.node1.local_node res/result)" = 49000 &&
	test "$(metric numa-numastat.node0.other_node res/result)" = 1000 &&
	test "$(metric numa-numastat.node1.numa_miss res/result)" = 250 &&
	test "$(metric "interrupts.LOC:Local_timer_interrupts" res/result)" = 49128 &&
	test "$(instances "interrupts.LOC:Local_timer_interrupts" res/result)" = 48 &&
	grep "^instance interrupts.LOC:Local_timer_interrupts 47 1047$" res/result &&
	test "$(metric "interrupts.35:IR-PCI-MSI.2097152-edge.eth0-TxRx-0" res/result)" = 144 &&
	test "$(metric softirqs.TIMER res/result)" = 24000 &&
	test "$(instances softirqs.TIMER res/result)" = 48 &&
	test "$(metric "proc-stat.cpu.user%" res/result)" = 80 &&
	test "$(metric "proc-stat.cpu.system%" res/result)" = 10 &&
	test "$(metric "proc-stat.cpu.idle%" res/result)" = 10 &&
	test "$(instances "proc-stat.cpu.user%" res/result)" = 48 &&
	test "$(metric proc-stat.ctxt res/result)" = 1234567 &&
	test "$(metric proc-stat.processes res/result)" = 480 &&
	between $((67108864 - 4194304 - 409600)) \
		"$(metric meminfo.MemFree res/result)" $((67108864 - 4194304)) &&
	between 1 "$(metric proc-stat.procs_running res/result)" 2 &&
	test "$(metric meminfo.DirectMap2M res/result)" = 6974259 &&
	between $((33554432 - 2097152 - 204800)) \
		"$(metric numa-meminfo.node1.MemFree res/result)" \
		$((33554432 - 2097152)) &&
	between 2700000 "$(metric cpufreq.scaling_cur_freq res/result)" 3000000 &&
	test "$(instances cpufreq.scaling_cur_freq res/result)" = 48 &&
	metric time.elapsed_time res/result | grep "^[0-9]"
'

test_expect_success 'a level that moves during the run is sampled, not averaged from its ends' '
	sh "$MACHINE" ivb44 ivb44 &&
	cat >slow.yaml <<-EOF &&
	testcase: slow
	run: "sh $MACHINE ivb44 \$BISECT_AGENT_ROOT step 1 && sleep 2.5 && sh $MACHINE ivb44 \$BISECT_AGENT_ROOT step 7"
	monitors: [meminfo]
	EOF
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run slow.yaml res-slow &&
	! grep "^error" res-slow/result &&
	free=$(metric meminfo.MemFree res-slow/result) &&
	step0=$((67108864 - 4194304)) && step7=$((step0 - 7 * 409600)) &&
	echo "MemFree: mean $free, start $step0, end $step7" &&
	awk -v v="$free" -v a="$step0" -v b="$step7" \
		"BEGIN { exit !(v < a && v > b && v != (a + b) / 2) }"
'

test_expect_success 'the four-node machine: every node, 144 CPUs' '
	sed "s/machine: ivb44/machine: hsx4/" step.yaml >step4.yaml &&
	BISECT_AGENT_ROOT=$TRASH/hsx4 "$AGENT" run step4.yaml res4 2>err &&
	! grep "^error" res4/result &&
	for n in 0 1 2 3; do
		test "$(metric numa-numastat.node$n.numa_hit res4/result)" = 50000 &&
		test "$(metric numa-numastat.node$n.other_node res4/result)" = 1000 &&
		metric numa-meminfo.node$n.MemFree res4/result | grep "^[0-9]" ||
		return 1
	done &&
	test "$(metric proc-vmstat.pgfault res4/result)" = 192000 &&
	test "$(instances "interrupts.LOC:Local_timer_interrupts" res4/result)" = 144 &&
	test "$(env_of nr_node res4/result)" = 4 &&
	test "$(env_of nr_cpu res4/result)" = 144
'

test_expect_success 'a chosen set, none, and an unknown name' '
	sh "$MACHINE" ivb44 ivb44 &&
	cat >some.yaml <<-EOF &&
	testcase: some
	run: "sh $MACHINE ivb44 \$BISECT_AGENT_ROOT step 1"
	monitors: [numa-numastat, meminfo, frobstat]
	EOF
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run some.yaml res-some 2>err &&
	test "$(env_of monitors res-some/result)" = "time interference meminfo numastat" &&
	test "$(env_of monitors_skipped res-some/result)" = frobstat &&
	grep "monitor .frobstat. does not exist" err &&
	test "$(metric numa-numastat.node0.numa_hit res-some/result)" = 50000 &&
	! grep "^metric proc-vmstat" res-some/result &&
	! grep "^metric interrupts" res-some/result &&
	printf "testcase: none\nrun: \"true\"\nmonitors: []\n" >none.yaml &&
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run none.yaml res-none &&
	test "$(env_of monitors res-none/result)" = "time interference" &&
	test "$(grep "^metric" res-none/result |
		grep -v "^metric time\." | grep -vc "^metric interference\.")" = 0
'

test_expect_success 'a monitor this machine cannot have is left out, the run goes on' '
	sh "$MACHINE" ivb44 novm &&
	rm -r novm/sys/devices/system/cpu/cpu*/cpufreq &&
	BISECT_AGENT_ROOT=$TRASH/novm "$AGENT" run step.yaml res-nocf 2>err &&
	! grep "^error" res-nocf/result &&
	test "$(env_of monitors_unavailable res-nocf/result)" = cpufreq &&
	grep "monitor .cpufreq. is not available" err &&
	! grep "^metric cpufreq" res-nocf/result &&
	test "$(metric proc-vmstat.pgfault res-nocf/result)" = 96000
'

test_expect_success 'a monitored file that vanishes during the run fails the run' '
	sh "$MACHINE" ivb44 vanish &&
	cat >vanish.yaml <<-\EOF &&
	testcase: vanish
	run: rm $BISECT_AGENT_ROOT/proc/interrupts
	monitors: [interrupts]
	EOF
	BISECT_AGENT_ROOT=$TRASH/vanish "$AGENT" run vanish.yaml res-vanish &&
	grep "^error monitor .interrupts.: couldn.t open .*/proc/interrupts" \
		res-vanish/result
'

test_expect_success 'the default monitors on this machine' '
	cat >real.yaml <<-\EOF &&
	testcase: real
	run: "dd if=/dev/zero of=/dev/null bs=64k count=2000 2>/dev/null; sleep 1; echo ok: 1"
	EOF
	"$AGENT" run real.yaml res-real 2>err &&
	! grep "^error" res-real/result &&
	metric proc-vmstat.pgfault res-real/result | grep "^[0-9]" &&
	metric meminfo.MemTotal res-real/result | grep "^[1-9]" &&
	metric "proc-stat.cpu.idle%" res-real/result | grep "^[0-9]" &&
	metric "interrupts.LOC:Local_timer_interrupts" res-real/result |
		grep "^[0-9]" &&
	metric softirqs.TIMER res-real/result | grep "^[0-9]" &&
	if test -d /sys/devices/system/node/node0; then
		metric numa-numastat.node0.numa_hit res-real/result |
			grep "^[0-9]" &&
		metric numa-meminfo.node0.MemTotal res-real/result |
			grep "^[1-9]"
	fi &&
	grep "^env monitors time interference proc-vmstat meminfo" res-real/result
'

test_done
