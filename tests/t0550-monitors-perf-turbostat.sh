#!/bin/sh
# The perf-stat and turbostat monitors end to end through bisectctl queue
# --wait around a small inline testcase. What this machine cannot count
# must be said in the run's environment: hardware events perf reports
# "<not supported>" (most VMs) in perf_stat_unsupported, turbostat without
# /dev/cpu/0/msr in monitors_unavailable and monitor_unavailable.turbostat.
# Where they work, their metrics must be there with LKP's names. Which
# case holds is probed here with the real tools, not assumed.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

# The value of "env KEY VALUE" in a result file.
env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}

test_expect_success 'setup' '
	lkp_needs perf turbostat && lkp_setup &&
	cat >mon.yaml <<-\EOF
	testcase: spin
	run: "i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; echo \"loops: $i\""
	runs: 1
	monitors: [perf-stat, turbostat]
	EOF
'

test_expect_success 'perf-stat: software events per second, one instance per CPU' '
	lkp_run mon.yaml &&
	r=$lkp_run_dir/result &&
	env_of monitors "$r" | grep -w perf-stat &&
	for e in task-clock cpu-clock context-switches page-faults cpu-migrations; do
		grep -q "^metric perf-stat.ps.$e " "$r" || { echo "no perf-stat.ps.$e"; return 1; }
	done &&
	grep "^metric perf-stat.ps.task-clock " "$r" &&
	ncpu=$(grep -c "^instance perf-stat.ps.task-clock " "$r") &&
	test "$ncpu" = "$(nproc)" || test "$(nproc)" = 1
'

test_expect_success 'perf-stat: hardware events counted, or named as unsupported' '
	r=$(lkp_last_run)/result &&
	if perf stat -x, -e instructions,cpu-cycles -- true 2>&1 | grep -q "<not supported>"; then
		env_of perf_stat_unsupported "$r" >unsup &&
		grep -w instructions unsup && grep -w cpu-cycles unsup &&
		! grep "^metric perf-stat.ps.instructions " "$r" &&
		! grep "^metric perf-stat.overall.ipc " "$r"
	else
		grep "^metric perf-stat.ps.instructions " "$r" &&
		grep "^metric perf-stat.overall.ipc " "$r" &&
		grep "^metric perf-stat.total.instructions " "$r"
	fi
'

test_expect_success 'turbostat: its metrics, or unavailable and why' '
	r=$(lkp_last_run)/result &&
	if test -c /dev/cpu/0/msr; then
		grep "^metric turbostat.Avg_MHz " "$r" &&
		grep "^metric turbostat.Busy% " "$r"
	else
		env_of monitors_unavailable "$r" | grep -w turbostat &&
		env_of monitor_unavailable.turbostat "$r" |
			grep "^no ./dev/cpu/0/msr.: turbostat reads the CPUs. MSRs" &&
		! grep "^metric turbostat\\." "$r"
	fi
'

test_expect_success 'bisectctl show names what the machine lacks' '
	bisectctl show --run "$(db_query "SELECT max(id) FROM runs")" >show &&
	grep "perf-stat" show &&
	if ! test -c /dev/cpu/0/msr; then grep "monitor_unavailable.turbostat" show; fi
'

test_expect_success 'without perf in PATH: perf-stat unavailable, the run still done' '
	mkdir bin && for t in sh awk cat; do ln -s "$(command -v $t)" bin/$t; done &&
	printf "testcase: spin\nrun: \"echo loops: 1\"\nruns: 1\nmonitors: [perf-stat]\n" >noperf.yaml &&
	PATH=$BISECTD_BUILD/bin:$TRASH/bin bisectctl queue noperf.yaml --commit HEAD --wait >out 2>err || { cat out err; false; } &&
	r=$(lkp_last_run)/result &&
	env_of monitor_unavailable.perf-stat "$r" | grep "not installed (Debian package linux-perf)" &&
	grep "^metric spin.loops 1$" "$r"
'

test_expect_success 'a perf that refuses (perf_event_paranoid): unavailable, saying why' '
	mkdir refuse &&
	printf "#!/bin/sh\necho \"Error: Access to performance monitoring and observability operations is limited.\" >&2\nexit 255\n" >refuse/perf &&
	chmod +x refuse/perf &&
	printf "testcase: spin\nrun: \"echo loops: 2\"\nruns: 1\nmonitors: [perf-stat]\n" >refused.yaml &&
	PATH=$TRASH/refuse:$PATH bisectctl queue refused.yaml --commit HEAD --wait >out 2>err || { cat out err; false; } &&
	r=$(lkp_last_run)/result &&
	! grep "^error" "$r" && grep "^metric spin.loops 2$" "$r" &&
	env_of monitor_unavailable.perf-stat "$r" |
		grep "^.perf. failed here: Error: Access to performance monitoring" &&
	env_of monitors_unavailable "$r" | grep -w perf-stat
'

test_done
