#!/bin/sh
# sysbench (cpu, memory, mutex, threads, fileio) through the program files
# jobs/library/programs/sysbench-*.yaml, each run end to end on the local
# agent with a short runtime, with LKP's parameters and metric names;
# each stored value is checked against the real sysbench's output.log as
# awk reads it, and sysbench-memory's processes are its instances.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

# The number after "LABEL:" in a sysbench output (first one).
sb_field() {
	awk -v l="$1" '{ s = $0; sub(/^ */, "", s) }
		index(s, l ":") == 1 { v = substr(s, length(l) + 2); sub(/^ */, "", v);
		sub(/s$/, "", v); print v; exit }' "$2"
}

test_expect_success 'setup' '
	lkp_needs sysbench && lkp_setup
'

test_expect_success 'sysbench-cpu: LKP names, values from its output' '
	cat >cpu.yaml <<-\EOF &&
	suite: sysbench-cpu
	testcase: sysbench-cpu
	runtime: 1s
	nr_threads: 2
	cpu_max_prime: 2000
	runs: 1
	monitors: []
	EOF
	lkp_run cpu.yaml &&
	log=$lkp_run_dir/output.log &&
	lkp_names sysbench-cpu throughput_events/s workload latency_ms.min \
		latency_ms.avg latency_ms.max latency_ms.95th events/thread.avg \
		events/thread.stddev runtime/thread.avg runtime/thread.stddev &&
	lkp_same "$(lkp_value sysbench-cpu throughput_events/s)" \
		"$(sb_field "events per second" "$log")" &&
	lkp_same "$(lkp_value sysbench-cpu workload)" \
		"$(sb_field "total number of events" "$log")" &&
	lkp_same "$(lkp_value sysbench-cpu latency_ms.max)" "$(sb_field max "$log")" &&
	lkp_same "$(lkp_value sysbench-cpu latency_ms.95th)" \
		"$(sb_field "95th percentile" "$log")" &&
	grep "^Number of threads: 2$" "$log" &&
	grep "^Prime numbers limit: 2000$" "$log"
'

test_expect_success 'sysbench-memory: one instance per process, summed' '
	cat >mem.yaml <<-\EOF &&
	testcase: sysbench-memory
	runtime: 1s
	nr_processes: 2
	nr_threads: 1
	mem_total_size: 256M
	mem_operation: write
	runs: 1
	monitors: []
	EOF
	lkp_run mem.yaml &&
	log=$lkp_run_dir/output.log &&
	test "$(grep -c "^Total operations:" "$log")" = 2 &&
	test "$(lkp_count_instances sysbench-memory throughput_MB/s)" = 2 &&
	want=$(awk "/ MiB transferred / { sub(/.*\\(/, \"\"); s += \$1 } END { printf \"%.17g\", s }" "$log") &&
	lkp_same "$(lkp_value sysbench-memory throughput_MB/s)" "$want" 1e-6 &&
	lkp_same "$(lkp_sum_instances sysbench-memory throughput_MB/s)" "$want" 1e-6 &&
	ops=$(awk "/^Total operations:/ { sub(/.*\\(/, \"\"); s += \$1 } END { printf \"%.17g\", s }" "$log") &&
	lkp_same "$(lkp_value sysbench-memory throughput_ops/s)" "$ops" 1e-6
'

test_expect_success 'sysbench-mutex and sysbench-threads' '
	printf "testcase: sysbench-mutex\nruntime: 1s\nnr_threads: 2\nmutex_locks: 2000\nruns: 1\nmonitors: []\n" >mutex.yaml &&
	lkp_run mutex.yaml &&
	lkp_same "$(lkp_value sysbench-mutex workload)" \
		"$(sb_field "total number of events" "$lkp_run_dir/output.log")" &&
	lkp_same "$(lkp_value sysbench-mutex latency_ms.avg)" \
		"$(sb_field avg "$lkp_run_dir/output.log")" &&
	printf "testcase: sysbench-threads\nruntime: 1s\nnr_threads: 2\nthread_yields: 100\nruns: 1\nmonitors: []\n" >threads.yaml &&
	lkp_run threads.yaml &&
	lkp_same "$(lkp_value sysbench-threads workload)" \
		"$(sb_field "total number of events" "$lkp_run_dir/output.log")" &&
	lkp_same "$(lkp_value sysbench-threads events/thread.avg)" \
		"$(sb_field "events (avg/stddev)" "$lkp_run_dir/output.log" | cut -d/ -f1)"
'

test_expect_success 'sysbench-fileio: LKP names from sysbench 1.0 lines, files removed' '
	cat >fileio.yaml <<-\EOF &&
	testcase: sysbench-fileio
	period: 1s
	nr_threads: 2
	size: 16M
	filenum: 4f
	rwmode: rndrw
	runs: 1
	monitors: []
	EOF
	lkp_run fileio.yaml &&
	log=$lkp_run_dir/output.log &&
	lkp_same "$(lkp_value sysbench-fileio read_operations/s)" "$(sb_field reads/s "$log")" &&
	lkp_same "$(lkp_value sysbench-fileio write_operations/s)" "$(sb_field writes/s "$log")" &&
	lkp_same "$(lkp_value sysbench-fileio read_bytes_MiB/s)" "$(sb_field "read, MiB/s" "$log")" &&
	lkp_same "$(lkp_value sysbench-fileio read_bytes_MB/s)" \
		"$(awk -v m="$(sb_field "read, MiB/s" "$log")" "BEGIN { printf \"%.17g\", m * 1.048576 }")" 1e-6 &&
	lkp_names sysbench-fileio fsync_operations/s latency_max_ms latency_95th_ms &&
	! find state -name "test_file.*" | grep .
'

test_done
