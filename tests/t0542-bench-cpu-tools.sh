#!/bin/sh
# openssl speed, pigz, pbzip2, pixz and cyclictest through their program
# files, each end to end on the local agent with LKP's parameters and a
# short run: openssl's summary line and its processes' "+F" lines (the
# instances), the compressors' rounds (the instances of throughput),
# cyclictest's histogram summary; each checked against the real tool's
# output.log as awk reads it.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

test_expect_success 'setup' '
	lkp_needs openssl pigz pbzip2 pixz cyclictest && lkp_setup
'

test_expect_success 'openssl-speed sha256: LKP names, one instance per process' '
	cat >ossl.yaml <<-\EOF &&
	testcase: openssl-speed
	algorithm: sha256
	nr_threads: 2
	runtime: 1s
	runs: 1
	monitors: []
	EOF
	lkp_run ossl.yaml &&
	log=$lkp_run_dir/output.log &&
	set -- $(awk "/^sha256 / { for (i = 2; i <= 7; i++) { v = \$i; sub(/k\$/, \"\", v); print v } }" "$log") &&
	test $# = 6 &&
	for b in 16 64 256 1024 8192 16384; do
		lkp_same "$(lkp_value openssl-speed ${b}_size_block_Kbps)" "$1" || return 1
		shift
	done &&
	test "$(lkp_count_instances openssl-speed 16_size_block_Kbps)" = 2 &&
	lkp_same "$(lkp_sum_instances openssl-speed 1024_size_block_Kbps)" \
		"$(awk -F: "/^Got: \\+F:/ { s += \$8 / 1000 } END { printf \"%.6f\", s }" "$log")" 1e-6
'

# The compressors: five rounds, throughput = bytes / seconds over them.
check_rounds() {
	log=$lkp_run_dir/output.log &&
	test "$(grep -c "^round [0-4]: [0-9]* bytes in [0-9.]* seconds$" "$log")" = 5 &&
	lkp_same "$(lkp_value $1 throughput)" \
		"$(awk "/^round/ { b += \$3; s += \$6 } END { printf \"%.17g\", b / s }" "$log")" 1e-6 &&
	test "$(lkp_count_instances $1 throughput)" = 5
}

test_expect_success 'pigz: throughput over five rounds' '
	printf "testcase: pigz\nnr_threads: 2\nblocksize: 128K\nruntime: 1s\nruns: 1\nmonitors: []\n" >pigz.yaml &&
	lkp_run pigz.yaml && check_rounds pigz
'

test_expect_success 'pbzip2: throughput, blocksize in 100 KiB' '
	printf "testcase: pbzip2\nnr_threads: 2\nblocksize: 500K\niterations: 10\nruns: 1\nmonitors: []\n" >pbzip2.yaml &&
	lkp_run pbzip2.yaml && check_rounds pbzip2
'

test_expect_success 'pixz: throughput, five rounds of one MiB (iterations)' '
	printf "testcase: pixz\nnr_threads: 2\niterations: 5\nruns: 1\nmonitors: []\n" >pixz.yaml &&
	lkp_run pixz.yaml && check_rounds pixz
'

test_expect_success 'cyclictest: the histogram summary, LKP names' '
	cat >cyc.yaml <<-\EOF &&
	testcase: cyclictest
	priority: 90
	clock: 0
	interval: 1000
	histogram: 100
	loops: 300
	runs: 1
	monitors: []
	EOF
	lkp_run cyc.yaml &&
	log=$lkp_run_dir/output.log &&
	for m in "total Total" "min_latencies Min Latencies" \
	    "avg_latencies Avg Latencies" "max_latencies Max Latencies" \
	    "histogram_overflows Histogram Overflows"; do
		set -- $m && name=$1 && shift &&
		lkp_same "$(lkp_value cyclictest $name)" \
			"$(awk -v k="# $*:" "index(\$0, k) == 1 { print \$NF + 0 }" "$log")" || return 1
	done &&
	test "$(($(lkp_value cyclictest total | cut -d. -f1) + $(lkp_value cyclictest histogram_overflows | cut -d. -f1)))" = 300
'

test_done
