#!/bin/sh
# bisect-agent run and info: an inline testcase's metrics and time.*, a
# failing and a hanging testcase, job values that must stay inert, and the
# inventory of a two-node, 48-CPU machine described by a fixture tree.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent

# A fixture tree: /proc and /sys of ivb44 (2 nodes, 48 CPUs, 64G).
make_fixture() {
	root=$1
	mkdir -p "$root/proc/sys/kernel" "$root/sys/devices/system/cpu" \
		"$root/sys/devices/system/node/node0" \
		"$root/sys/devices/system/node/node1" \
		"$root/sys/devices/system/cpu/cpu0/cpufreq" \
		"$root/sys/kernel/mm/transparent_hugepage" &&
	i=0 &&
	while [ $i -lt 48 ]; do
		printf 'processor\t: %d\nvendor_id\t: GenuineIntel\n' $i
		printf 'cpu family\t: 6\nmodel\t\t: 62\n'
		printf 'model name\t: Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz\n'
		printf 'cpu MHz\t\t: 2700.000\n\n'
		i=$((i + 1))
	done >"$root/proc/cpuinfo" &&
	printf 'MemTotal:       67108864 kB\nMemFree:        60000000 kB\n' \
		>"$root/proc/meminfo" &&
	echo 0-47 >"$root/sys/devices/system/cpu/online" &&
	echo 0-11,24-35 >"$root/sys/devices/system/node/node0/cpulist" &&
	echo 12-23,36-47 >"$root/sys/devices/system/node/node1/cpulist" &&
	printf 'Node 0 MemTotal:       33554432 kB\nNode 0 MemFree: 1 kB\n' \
		>"$root/sys/devices/system/node/node0/meminfo" &&
	printf 'Node 1 MemTotal:       33554432 kB\n' \
		>"$root/sys/devices/system/node/node1/meminfo" &&
	echo 'always [madvise] never' \
		>"$root/sys/kernel/mm/transparent_hugepage/enabled" &&
	echo '[always] defer defer+madvise madvise never' \
		>"$root/sys/kernel/mm/transparent_hugepage/defrag" &&
	echo 1 >"$root/proc/sys/kernel/numa_balancing" &&
	echo 3.16.0-rc1-00001-gf7b5d647946a \
		>"$root/proc/sys/kernel/osrelease" &&
	echo ivb44 >"$root/proc/sys/kernel/hostname" &&
	echo performance \
		>"$root/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor" &&
	echo 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 numa_balancing=enable' \
		>"$root/proc/cmdline"
}

# The value of "KEY VALUE" lines (info output, or env lines of a result).
value_of() {
	sed -n "s/^$1 //p" "$2"
}

test_expect_success 'version' '
	"$AGENT" --version >out &&
	grep "^bisect-agent [0-9]" out
'

test_expect_success 'usage errors exit 2' '
	test_expect_code() { want=$1; shift; "$@"; test $? = "$want"; } &&
	test_expect_code 2 "$AGENT" 2>err &&
	test_expect_code 2 "$AGENT" frobnicate 2>err &&
	grep "unknown command" err &&
	test_expect_code 2 "$AGENT" run onlyone 2>err &&
	test_expect_code 2 "$AGENT" run --workdir /nonexistent j r 2>err &&
	grep "workdir" err
'

test_expect_success 'an inline testcase: its metrics, time.* and env' '
	mkdir work &&
	cat >job.yaml <<-\EOF &&
	testcase: microbench
	run: ./bench.sh
	nr_threads: 100%
	runtime: 10s
	metric: microbench.ops_per_sec
	EOF
	cat >work/bench.sh <<-\EOF &&
	#!/bin/sh
	echo "Starting"
	echo "ops_per_sec: 1500.5"
	echo "throughput.1: 20"
	echo "throughput.0: 10"
	echo "elapsed: 3 s"
	echo "threads=$nr_threads runtime=$runtime"
	echo "dir=$BISECT_AGENT_RESULT_DIR tc=$BISECT_AGENT_TESTCASE"
	pwd
	EOF
	chmod +x work/bench.sh &&
	"$AGENT" run --workdir work job.yaml res 2>err &&
	test -f res/result && test -f res/output.log && test -f res/job.yaml &&
	head -1 res/result >head && echo "bisect-agent-result 1" >want &&
	cmp head want &&
	grep "^exit_status 0$" res/result &&
	! grep "^error" res/result &&
	grep "^metric microbench.ops_per_sec 1500.5$" res/result &&
	grep "^metric microbench.throughput 30$" res/result &&
	grep "^instance microbench.throughput 0 10$" res/result &&
	grep "^instance microbench.throughput 1 20$" res/result &&
	! grep "microbench.elapsed" res/result &&
	for m in elapsed_time user_time system_time \
		percent_of_cpu_this_job_got maximum_resident_set_size \
		minor_page_faults major_page_faults \
		voluntary_context_switches involuntary_context_switches \
		file_system_inputs file_system_outputs; do
		grep "^metric time.$m [0-9]" res/result || return 1
	done &&
	test "$(value_of "env kernel" res/result)" = "$(uname -r)" &&
	value_of "env nr_cpu" res/result | grep "^[1-9]" &&
	test "$(value_of "env hostname" res/result)" = "$(uname -n)" &&
	value_of "env agent_version" res/result | grep "^[0-9]" &&
	grep "^threads=100% runtime=10$" res/output.log &&
	grep "^dir=$TRASH/res tc=microbench$" res/output.log &&
	grep "^$TRASH/work$" res/output.log
'

test_expect_success 'a failing testcase: exit status recorded, agent exits 0' '
	cat >fail.yaml <<-\EOF &&
	testcase: failing
	run: "echo partial: 1; exit 3"
	EOF
	"$AGENT" run fail.yaml res-fail &&
	grep "^exit_status 3$" res-fail/result &&
	grep "^error testcase exited with status 3$" res-fail/result &&
	grep "^metric failing.partial 1$" res-fail/result
'

test_expect_success 'a testcase killed by a signal' '
	cat >sig.yaml <<-\EOF &&
	testcase: sig
	run: "kill -9 $$"
	EOF
	"$AGENT" run sig.yaml res-sig &&
	grep "^exit_status 137$" res-sig/result &&
	grep "^error testcase killed by signal 9" res-sig/result
'

test_expect_success 'a hanging testcase is killed at its timeout, group and all' '
	cat >hang.yaml <<-\EOF &&
	testcase: hang
	timeout: 2s
	run: "sleep 1001 & echo $! >bg.pid; echo started: 1; sleep 1002"
	EOF
	mkdir hangwork &&
	start=$(date +%s) &&
	"$AGENT" run --workdir hangwork hang.yaml res-hang &&
	end=$(date +%s) &&
	test $((end - start)) -ge 2 && test $((end - start)) -le 9 &&
	grep "^error timed out after 2s$" res-hang/result &&
	grep "^exit_status 143$" res-hang/result &&
	grep "^metric hang.started 1$" res-hang/result &&
	elapsed=$(value_of "metric time.elapsed_time" res-hang/result) &&
	echo "$elapsed" | grep "^[2-8]\." &&
	bg=$(cat hangwork/bg.pid) &&
	test_wait_for 50 sh -c "! kill -0 $bg"
'

test_expect_success 'the testcase starts with no standard signal ignored or blocked' '
	cat >sigs.yaml <<-\EOF &&
	testcase: sigs
	run: "grep -E \"^Sig(Ign|Blk)\" /proc/self/status"
	EOF
	sh -c "trap \"\" PIPE HUP; exec \"\$0\" run sigs.yaml res-sigs" \
		"$AGENT" &&
	ign=$(sed -n "s/^SigIgn:[[:space:]]*//p" res-sigs/output.log) &&
	blk=$(sed -n "s/^SigBlk:[[:space:]]*//p" res-sigs/output.log) &&
	test $((0x$ign & 0x7fffffff)) = 0 && test $((0x$blk & 0x7fffffff)) = 0
'

test_expect_success 'job values stay inert: never evaluated by a shell' '
	cat >evil.yaml <<-EOF &&
	testcase: evil
	cmd: "\$(touch $TRASH/pwned1)"
	tick: "\`touch $TRASH/pwned2\`"
	semi: "x; touch $TRASH/pwned3"
	run: "echo \"cmd=\$cmd\"; echo \$tick; echo \$semi"
	EOF
	"$AGENT" run evil.yaml res-evil &&
	grep "^exit_status 0$" res-evil/result &&
	! test -e pwned1 && ! test -e pwned2 && ! test -e pwned3 &&
	grep -F "cmd=\$(touch $TRASH/pwned1)" res-evil/output.log &&
	grep -F "\`touch $TRASH/pwned2\`" res-evil/output.log &&
	grep -F "x; touch $TRASH/pwned3" res-evil/output.log
'

test_expect_success 'a named testcase without run: or adapter is a recorded error' '
	cat >dbench.yaml <<-\EOF &&
	testcase: unixbench
	nr_threads: 100%
	EOF
	"$AGENT" run dbench.yaml res-dbench &&
	grep "^exit_status -1$" res-dbench/result &&
	grep "^error testcase .unixbench. has no .run:. command" res-dbench/result
'

test_expect_success 'a job file that is not one expanded job is refused' '
	cat >matrix.yaml <<-\EOF &&
	testcase: m
	run: "true"
	nr_threads: [1, 2]
	EOF
	test_must_fail_2() { "$@"; test $? = 2; } &&
	test_must_fail_2 "$AGENT" run matrix.yaml res-matrix 2>err &&
	grep "expands to 2 jobs" err &&
	! test -e res-matrix/result &&
	printf "testcase: [\n" >broken.yaml &&
	test_must_fail_2 "$AGENT" run broken.yaml res-broken 2>err &&
	grep "broken.yaml" err
'

test_expect_success 'a stale result is removed before the run' '
	mkdir -p res-stale &&
	cp res/result res-stale/result &&
	"$AGENT" run dbench.yaml res-stale &&
	grep "^exit_status -1$" res-stale/result
'

test_expect_success 'info against a fixture tree of a 2-node, 48-CPU machine' '
	make_fixture ivb44 &&
	"$AGENT" info --root ivb44 >info &&
	test "$(value_of nr_node info)" = 2 &&
	test "$(value_of nr_cpu info)" = 48 &&
	test "$(value_of memory info)" = "64G 68719476736" &&
	test "$(value_of model info)" = \
		"Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz" &&
	test "$(value_of node0.cpulist info)" = 0-11,24-35 &&
	test "$(value_of node1.cpulist info)" = 12-23,36-47 &&
	test "$(value_of node0.memory info)" = "32G 34359738368" &&
	test "$(value_of node1.memory info)" = "32G 34359738368" &&
	test "$(value_of kernel info)" = 3.16.0-rc1-00001-gf7b5d647946a &&
	test "$(value_of hostname info)" = ivb44 &&
	test "$(value_of thp_enabled info)" = madvise &&
	test "$(value_of thp_defrag info)" = always &&
	test "$(value_of numa_balancing info)" = 1 &&
	test "$(value_of governor info)" = performance &&
	grep "^cmdline BOOT_IMAGE=/vmlinuz root=/dev/sda1 numa_balancing=enable$" info
'

test_expect_success 'info reads $BISECT_AGENT_ROOT; cpuinfo counts without online' '
	rm ivb44/sys/devices/system/cpu/online &&
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" info >info2 &&
	test "$(value_of nr_cpu info2)" = 48 &&
	test "$(value_of nr_node info2)" = 2
'

test_expect_success 'info leaves out what a kernel does not have' '
	mkdir -p bare/proc &&
	printf "MemTotal: 1000 kB\n" >bare/proc/meminfo &&
	"$AGENT" info --root bare >info3 &&
	test "$(value_of nr_node info3)" = 1 &&
	test "$(value_of memory info3)" = "1M 1024000" &&
	! grep "^thp_enabled" info3 && ! grep "^numa_balancing" info3 &&
	! "$AGENT" info --root nonexistent 2>err &&
	grep "not a directory" err
'

test_expect_success 'a run records the machine it ran on (through the root)' '
	echo 0-47 >ivb44/sys/devices/system/cpu/online &&
	cat >env.yaml <<-\EOF &&
	testcase: env
	run: "echo cpus: $nr_cpu; echo nodes: $nr_node"
	EOF
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run env.yaml res-env &&
	grep "^metric env.cpus 48$" res-env/result &&
	grep "^metric env.nodes 2$" res-env/result &&
	grep "^env thp_enabled madvise$" res-env/result &&
	grep "^env kernel 3.16.0-rc1-00001-gf7b5d647946a$" res-env/result
'

test_done
