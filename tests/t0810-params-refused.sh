#!/bin/sh
# Every parameter is applied or refused (docs/jobs.md): misspelt keys,
# an LKP-style monitor: axis, a testcase without an adapter or run:, and
# a vm-scalability case the worker does not do are refused by queue,
# bisect and compare with FILE:LINE:COL and exit 2, nothing written; an
# inline run: sees its parameters in its environment; cpufreq_governor
# is applied on a fixture tree and fails the run where there is none.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh

metric() {
	awk -v k="metric $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}
env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}
# Nothing queued: no database yet, or no request and no job in it.
nothing_queued() {
	test ! -e state/bisectd.db || {
		test "$(db_query "SELECT count(*) FROM requests")" = 0 &&
		test "$(db_query "SELECT count(*) FROM jobs")" = 0
	}
}
# refused FILE MESSAGE: queue, bisect and compare exit 2 saying MESSAGE.
refused() {
	test_expect_code 2 bisectctl queue "$1" 2>err &&
	grep -F -x "error: $2" err &&
	test_expect_code 2 bisectctl bisect "$1" --good HEAD --bad HEAD \
		--metric x.y 2>err &&
	grep -F -x "error: $2" err &&
	test_expect_code 2 bisectctl compare HEAD HEAD "$1" 2>err &&
	grep -F -x "error: $2" err &&
	nothing_queued
}

test_expect_success 'setup' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	cat >bisectd.yaml <<-\EOF
	repos:
	  - name: r
	    path: repo
	EOF
'

test_expect_success 'timout: 10s is refused, did you mean timeout' '
	printf "testcase: dbench\nnr_threads: 2\ntimout: 10s\n" >timout.yaml &&
	refused timout.yaml "timout.yaml:3:1: unknown parameter '"'"'timout'"'"' for testcase '"'"'dbench'"'"': did you mean '"'"'timeout'"'"'?"
'

test_expect_success 'rnus: 5 is refused, did you mean runs' '
	printf "testcase: hackbench\n  # comment\nrnus: 5\n" >rnus.yaml &&
	refused rnus.yaml "rnus.yaml:3:1: unknown parameter '"'"'rnus'"'"' for testcase '"'"'hackbench'"'"': did you mean '"'"'runs'"'"'?"
'

test_expect_success 'monitor: [time] is no matrix axis' '
	printf "testcase: dbench\nmonitor: [time, meminfo]\n" >monitor.yaml &&
	refused monitor.yaml "monitor.yaml:2:1: unknown parameter '"'"'monitor'"'"' for testcase '"'"'dbench'"'"': did you mean '"'"'monitors'"'"'?"
'

test_expect_success 'will-it-scale has no adapter and no run: refused at queue' '
	printf "testcase: will-it-scale\nnr_task: 4\ntest: page_fault1\n" >wis.yaml &&
	test_expect_code 2 bisectctl queue wis.yaml 2>err &&
	grep -x "error: wis.yaml:1:1: testcase .will-it-scale. has no .run:. command and no adapter (known: .*dbench, .*hackbench, .*stress-ng, .*vm-scalability)" err &&
	test_expect_code 2 bisectctl compare HEAD HEAD wis.yaml 2>err &&
	grep "has no .run:. command and no adapter (known: " err && nothing_queued &&
	test_expect_code 2 bisectctl queue wis.yaml --wait 2>err &&
	nothing_queued
'

test_expect_success 'vm-scalability: a case it does not do is refused by name' '
	printf "testcase: vm-scalability\nnr_task: 1\ntest: [anon-r-rand, migrate]\n" >vm.yaml &&
	refused vm.yaml "vm.yaml:3:1: testcase '"'"'vm-scalability'"'"': test '"'"'migrate'"'"' is not one that bisect-agent'"'"'s built-in vm-scalability worker does: it moves a file'"'"'s pages between NUMA nodes with numactl'"'"'s migratepages, which the built-in worker does not do (it does anon-cow-rand, anon-cow-rand-hugetlb, anon-cow-rand-mt, anon-cow-seq, anon-cow-seq-hugetlb, anon-cow-seq-mt, anon-r-rand, anon-r-rand-mt, anon-r-seq, anon-r-seq-mt, anon-rx-rand-mt, anon-rx-seq-mt, anon-w-rand, anon-w-rand-hugetlb, anon-w-rand-mt, anon-w-seq, anon-w-seq-hugetlb, anon-w-seq-mt, anon-wx-rand-mt, anon-wx-seq-mt, lru-file-mmap-read, lru-file-mmap-read-rand, lru-file-readonce, lru-file-readtwice, lru-shm, lru-shm-rand, mmap-pread-rand, mmap-pread-rand-mt, mmap-pread-seq, mmap-pread-seq-mt, mmap-xread-rand-mt, mmap-xread-seq-mt, mremap-xread-rand-mt, msync, msync-mt, shm-pread-rand, shm-pread-rand-mt, shm-pread-seq, shm-pread-seq-mt, shm-xread-rand, shm-xread-rand-mt, shm-xread-seq, shm-xread-seq-mt, small-allocs, small-allocs-mt, truncate, truncate-seq)"
'

test_expect_success 'a value of the wrong type, an unknown monitor' '
	printf "testcase: hackbench\nmode: [process, turbo]\n" >mode.yaml &&
	refused mode.yaml "mode.yaml:2:1: testcase '"'"'hackbench'"'"': '"'"'mode'"'"' must be one of process, threads, thread, not '"'"'turbo'"'"'" &&
	printf "testcase: dbench\nmonitors: [tme]\n" >mon.yaml &&
	refused mon.yaml "mon.yaml:2:11: '"'"'monitors'"'"' lists '"'"'tme'"'"', which bisect-agent does not have: did you mean '"'"'time'"'"'?"
'

test_expect_success 'the vm-scalability cases it does run as themselves' '
	# LKP size semantics: unit_size 4M, so each task of anon-w-seq
	# writes 4M / nr_task, usemem counting a mapping as an eighth of
	# its bytes; anon-cow-seq preallocates 4M / (nr_task + 1) in the
	# parent; workload is in KiB
	for t in anon-w-seq:4608 anon-w-rand-mt:4608 anon-cow-seq:3071.98828125 anon-wx-seq-mt:9216; do
		w=${t#*:} t=${t%:*} &&
		printf "testcase: vm-scalability\ntest: $t\nnr_task: 2\nunit_size: 4M\nruntime: 1s\nmonitors: []\n" >v-$t.yaml &&
		"$AGENT" run v-$t.yaml res-$t &&
		! grep "^error" res-$t/result &&
		grep -qx "./case-$t" res-$t/output.log &&
		test "$(grep -c "bytes / [0-9]* usecs" res-$t/output.log)" = 2 &&
		test "$(metric vm-scalability.workload res-$t/result)" = "$w" &&
		for m in throughput median stddev% median_stddev% workload; do
			grep -q "^metric vm-scalability.$m [0-9]" res-$t/result ||
				return 1
		done || return 1
	done &&
	# a read-only case over the huge region of the suite stops at runtime
	printf "testcase: vm-scalability\ntest: anon-r-seq-mt\nnr_task: 2\nruntime: 1s\nmonitors: []\n" >v-r.yaml &&
	"$AGENT" run v-r.yaml res-r &&
	! grep "^error" res-r/result &&
	awk "/ bytes \/ / { if (\$4 < 1000000) bad = 1; n++ } END { exit bad || n != 2 }" res-r/output.log &&
	# size: repeats the case size * nr_node / unit_size times
	printf "testcase: vm-scalability\ntest: anon-w-seq\nnr_task: 1\nsize: 8M\nunit_size: 4M\nruntime: 60s\nmonitors: []\n" >v-s.yaml &&
	"$AGENT" run v-s.yaml res-s &&
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l) &&
	grep -qx "repeat count: $((2 * nodes))" res-s/output.log &&
	test "$(grep -c "^./case-anon-w-seq$" res-s/output.log)" = $((2 * nodes))
'

test_expect_success 'vm-scalability: LKP eatmem holds its memory locked while the case runs' '
	printf "testcase: vm-scalability\nvm-scalability:\n  test: anon-w-seq\n  nr_task: 1\n  unit_size: 4M\neatmem:\n  eatmem_size: 4M\nruntime: 1s\nmonitors: []\n" >v-e.yaml &&
	bisectctl check v-e.yaml >out &&
	grep -q "bisect-agent vm-scalability --test=anon-w-seq --nr-task=1 --unit-size=4194304 --eatmem=4194304 --runtime=1" out &&
	"$AGENT" run v-e.yaml res-e &&
	! grep "^error" res-e/result &&
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l) &&
	test "$(grep -c "^eatmem: $((4194304 / nodes)) bytes locked (node [0-9]*)$" res-e/output.log)" = "$nodes" &&
	printf "testcase: vm-scalability\neatmem:\n  eatmem_size: 4M\n  eatmem_duration: 10\n" >v-e2.yaml &&
	test_expect_code 2 bisectctl check v-e2.yaml 2>err &&
	grep -q "^error: v-e2.yaml:4:3: .*eatmem.eatmem_duration" err
'

test_expect_success 'inline: a misspelt key, a name no environment can carry' '
	printf "testcase: t\nrun: \"true\"\ntimout: 10s\n" >it.yaml &&
	test_expect_code 2 bisectctl queue it.yaml 2>err &&
	grep -F "it.yaml:3:1: unknown parameter '"'"'timout'"'"' for testcase '"'"'t'"'"': did you mean '"'"'timeout'"'"'?" err &&
	printf "testcase: t\nrun: \"true\"\nnr-threads: 2\n" >in.yaml &&
	test_expect_code 2 bisectctl queue in.yaml 2>err &&
	grep -F "in.yaml:3:1: parameter '"'"'nr-threads'"'"' of inline testcase '"'"'t'"'"' cannot reach its '"'"'run:'"'"' command" err &&
	nothing_queued
'

test_expect_success 'cpufreq_governor: applied on every CPU, recorded, restored' '
	sh "$MACHINE" ivb44 m &&
	for f in m/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do
		echo powersave >$f &&
		echo "performance powersave" >${f%/*}/scaling_available_governors ||
		return 1
	done &&
	printf "testcase: g\nrun: cat \$BISECT_AGENT_ROOT/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor\ncpufreq_governor: performance\nmonitors: []\n" >gov.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run gov.yaml res-gov &&
	! grep "^error" res-gov/result &&
	test "$(cat res-gov/output.log)" = performance &&
	test "$(env_of governor res-gov/result)" = performance &&
	test "$(env_of knobs res-gov/result)" = cpufreq_governor &&
	test "$(cat m/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor)" = powersave
'

test_expect_success 'cpufreq_governor without cpufreq fails the run, saying why' '
	rm -rf m/sys/devices/system/cpu/cpu*/cpufreq &&
	BISECT_AGENT_ROOT=$TRASH/m "$AGENT" run gov.yaml res-nogov &&
	grep "^error knob .cpufreq_governor.: this machine has no cpufreq interface" res-nogov/result &&
	printf "testcase: g\nrun: \"true\"\ncpufreq_governor: ondemand\nmonitors: []\n" >od.yaml &&
	sh "$MACHINE" ivb44 m2 &&
	for f in m2/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do
		echo "performance powersave" >${f%/*}/scaling_available_governors || return 1
	done &&
	BISECT_AGENT_ROOT=$TRASH/m2 "$AGENT" run od.yaml res-od &&
	grep "^error knob .cpufreq_governor.: this machine offers the governors .performance powersave., not .ondemand.$" res-od/result
'

test_expect_success 'an inline run: gets every parameter in its environment' '
	cat >inline.yaml <<-\EOF &&
	testcase: envcheck
	run: |
	  echo "threads: $nr_threads"
	  echo "rt: $runtime"
	  test "$flavour" = xfs && echo "flavour_is_xfs: 1"
	  echo "size: $size_mb"
	nr_threads: 8
	runtime: 5m
	flavour: xfs
	size_mb: 64
	monitors: []
	EOF
	"$AGENT" run inline.yaml res-env &&
	! grep "^error" res-env/result &&
	test "$(metric envcheck.threads res-env/result)" = 8 &&
	test "$(metric envcheck.rt res-env/result)" = 300 &&
	test "$(metric envcheck.flavour_is_xfs res-env/result)" = 1 &&
	test "$(metric envcheck.size res-env/result)" = 64 &&
	sed "s/^nr_threads: 8/nr_threads: [2, 8]/" inline.yaml >matrix.yaml &&
	bisectctl queue matrix.yaml >q.out &&
	test "$(grep -c "^job " q.out)" = 2
'

test_done
