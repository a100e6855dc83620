#!/bin/sh
# perf bench (linux-perf) through the program files perf-bench-*.yaml:
# sched-pipe, sched-messaging, futex, mem, numa-mem and syscall, each end
# to end on the local agent with LKP's parameters (loops with LKP's "ops"
# suffix, nr_threads "2t") and a short run; each stored value is checked
# against what awk reads in the real perf's output.log, and futex hash's
# threads are its instances.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

test_expect_success 'setup' '
	lkp_needs perf && perf bench sched pipe -l 1 >/dev/null && lkp_setup
'

test_expect_success 'sched-pipe: ops_per_sec, usecs_per_op' '
	printf "testcase: perf-bench-sched-pipe\nloops: 20000ops\nmode: threads\nruns: 1\nmonitors: []\n" >pipe.yaml &&
	lkp_run pipe.yaml &&
	log=$lkp_run_dir/output.log &&
	grep "^# Executed 20000 pipe operations between two threads" "$log" &&
	lkp_same "$(lkp_value perf-bench-sched-pipe ops_per_sec)" \
		"$(awk "/ ops\\/sec\$/ { print \$1 }" "$log")" &&
	lkp_same "$(lkp_value perf-bench-sched-pipe usecs_per_op)" \
		"$(awk "/ usecs\\/op\$/ { print \$1 }" "$log")"
'

test_expect_success 'sched-messaging: total_time_sec' '
	printf "testcase: perf-bench-sched-messaging\nloops: 20\ngroups: 1\nipc: pipe\nmode: thread\nruns: 1\nmonitors: []\n" >msg.yaml &&
	lkp_run msg.yaml &&
	log=$lkp_run_dir/output.log &&
	grep "^# 20 sender and receiver threads per group" "$log" &&
	lkp_same "$(lkp_value perf-bench-sched-messaging total_time_sec)" \
		"$(awk "/Total time:/ { print \$3 }" "$log")"
'

test_expect_success 'futex hash: ops/s and one instance per thread' '
	printf "testcase: perf-bench-futex\ntest: hash\nnr_task: 2\nruntime: 1s\nruns: 1\nmonitors: []\n" >hash.yaml &&
	lkp_run hash.yaml &&
	log=$lkp_run_dir/output.log &&
	lkp_same "$(lkp_value perf-bench-futex ops/s)" \
		"$(awk "/^Averaged/ { print \$2 }" "$log")" &&
	lkp_same "$(lkp_value perf-bench-futex stddev%)" \
		"$(awk "/^Averaged/ { s = \$5; sub(/%\\)/, \"\", s); print s }" "$log")" &&
	test "$(lkp_count_instances perf-bench-futex ops/s)" = 2 &&
	lkp_same "$(lkp_sum_instances perf-bench-futex ops/s)" \
		"$(awk "/^\\[thread/ { s += \$(NF - 2) } END { printf \"%.17g\", s }" "$log")"
'

test_expect_success 'futex wake: wokeup_time_ms' '
	printf "testcase: perf-bench-futex\ntest: wake\nnr_task: 2\nruns: 1\nmonitors: []\n" >wake.yaml &&
	lkp_run wake.yaml &&
	lkp_same "$(lkp_value perf-bench-futex wokeup_time_ms)" \
		"$(awk "/^Wokeup/ { print \$7 }" "$lkp_run_dir/output.log")"
'

test_expect_success 'mem: one metric per function, as LKP names them' '
	printf "testcase: perf-bench-mem\nop: memset\nfunction: all\nsize: 1MB\nruns: 1\nmonitors: []\n" >mem.yaml &&
	lkp_run mem.yaml &&
	awk "/^# function / { f = \$3; gsub(/\\047/, \"\", f) }
		/\\/sec\$/ { u = \$2; sub(/\\/sec/, \"\", u); print \"memset.\" f \".\" u \"_per_sec\", \$1 }" \
		"$lkp_run_dir/perf-bench-mem.log" >want &&
	test -s want &&
	while read -r name v; do
		lkp_same "$(lkp_value perf-bench-mem "$name")" "$v" || return 1
	done <want
'

test_expect_success 'numa-mem: the summary lines, nr_threads 2t' '
	printf "testcase: perf-bench-numa-mem\nnr_processes: 1\nnr_threads: 2t\nmem_proc: 16M\nruntime: 1s\nextra_params: \"--no-data_rand_walk\"\nruns: 1\nmonitors: []\n" >numa.yaml &&
	lkp_run numa.yaml &&
	log=$lkp_run_dir/output.log &&
	grep "perf bench numa numa-mem -t 2 -p 1 -m -0 -P 16 --thp -1 -s 1 --no-data_rand_walk" "$log" &&
	for m in "secs_latency NUMA-convergence-latency" "GB_total data-total" \
	    "GB_sec_total total-speed" "secs_avg runtime-avg/thread"; do
		set -- $m &&
		lkp_same "$(lkp_value perf-bench-numa-mem $1)" \
			"$(awk -F, -v k="$2" "\$4 ~ k { print \$2 + 0 }" "$log")" || return 1
	done
'

test_expect_success 'syscall basic: the call named as perf names it' '
	printf "testcase: perf-bench-syscall\nop: basic\nloop: 200000\nruns: 1\nmonitors: []\n" >sys.yaml &&
	lkp_run sys.yaml &&
	log=$lkp_run_dir/perf-bench-syscall.log &&
	grep "^# Executed 200000 getppid() calls" "$log" &&
	lkp_same "$(lkp_value perf-bench-syscall getppid.ops_per_sec)" \
		"$(awk "/ ops\\/sec\$/ { print \$1 }" "$log")" &&
	lkp_same "$(lkp_value perf-bench-syscall getppid.usecs_per_op)" \
		"$(awk "/ usecs\\/op\$/ { print \$1 }" "$log")"
'

test_done
