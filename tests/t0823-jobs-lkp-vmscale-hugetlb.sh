#!/bin/sh
# vm-scalability's hugetlb cases end to end (LKP's
# vm-scalability-hugetlb.yaml, with a unit of 64M): the agent lets the
# job have the 2 MiB pages LKP's setup_hugetlb allows it
# (vm.nr_overcommit_hugepages = unit_size / 2 MiB + nr_task + 1), reads
# it back and records it in the run's environment, the worker maps the
# regions with MAP_HUGETLB and says what it had, and the sysctl is back
# to its old value after each run, also after a run killed at its
# timeout. The metrics are LKP's names, their values computed again
# here from output.log as LKP's parse does; LKP's `size: 8T` is its
# repeat count, the case run again until runtime has passed, each run a
# sample. thp: madvise with a hugetlb case is refused. Needs root and a
# writable vm.nr_overcommit_hugepages with 2 MiB default huge pages.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

knob=/proc/sys/vm/nr_overcommit_hugepages
old_over=$(cat $knob 2>/dev/null)
old_nr=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)
if [ "$(id -u)" != 0 ]; then
	why="not root: the agent sets vm.nr_overcommit_hugepages"
elif [ -z "$old_over" ] || ! (echo "$old_over" >$knob) 2>/dev/null; then
	why="$knob is not writable here (no hugetlbfs, or a container)"
elif ! grep -q "^Hugepagesize: *2048 kB" /proc/meminfo; then
	why="the default huge page size is not 2 MiB (usemem -U maps 2 MiB pages)"
else
	why=
fi
if [ -n "$why" ]; then
	test_skip "vm-scalability's hugetlb cases" "$why"
	test_done
	exit 0
fi
# a test that fails half way must not leave the machine changed
test_at_exit "echo $old_over >$knob"

cases="anon-w-seq-hugetlb anon-w-rand-hugetlb anon-cow-seq-hugetlb anon-cow-rand-hugetlb"

test_expect_success 'setup: the four cases as LKP writes them, a unit of 64M' '
	lkp_setup &&
	cat >vm.yaml <<-\EOF &&
	suite: vm-scalability
	testcase: vm-scalability
	category: benchmark
	runtime: 1s
	runs: 1
	timeout: 10m
	disturbed: keep
	monitors: []
	nr_task: 2
	unit_size: 64M
	vm-scalability:
	  test:
	    - anon-cow-rand-hugetlb
	    - anon-w-rand-hugetlb
	    - anon-cow-seq-hugetlb
	    - anon-w-seq-hugetlb
	EOF
	bisectctl check vm.yaml >check.out &&
	test "$(grep -c "^  knobs: sysctl.vm.nr_overcommit_hugepages=35\$" check.out)" = 4
'

# run_of CASE: the id of its run.
run_of() {
	db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.canonical LIKE '%test: $1%'"
}

# metric RUN NAME
metric() {
	db_query "SELECT value FROM samples WHERE run = $1 AND
		metric = 'vm-scalability.$2'"
}

# check_run CASE: its run is done with LKP's metrics, as its lines say
# (one sample: throughput the sum of the tasks' KB/s, median the upper
# of the two, workload the bytes in KiB), and it had its pages.
check_run() {
	r=$(run_of $1) && test -n "$r" &&
	dir=state/runs/$r/result &&
	! grep "^error" $dir/result &&
	grep -x "./case-$1" $dir/output.log &&
	grep -x "hugetlb: 35 pages of 2 MiB for a unit of 67108864 bytes and 2 tasks; vm.nr_overcommit_hugepages 35, .*" \
		$dir/output.log &&
	test "$(lkp_run_env $r sysctl.vm.nr_overcommit_hugepages)" = 35 &&
	lkp_run_env $r knobs | grep -qw sysctl.vm.nr_overcommit_hugepages &&
	awk "/ bytes \\/ [0-9]+ usecs = [0-9]+ KB\\/s\$/ { n++; kb += \$7;
			b += \$1; if (\$7 > hi) hi = \$7 }
		END { if (n != 2) { print \"lines: \" n; exit 1 }
			printf \"%.17g %.17g %.17g\\n\", kb, b / 1024, hi }" \
		$dir/output.log >want || { cat $dir/output.log; return 1; }
	lkp_same "$(metric $r throughput)" "$(cut -d" " -f1 want)" 1e-9 &&
	lkp_same "$(metric $r workload)" "$(cut -d" " -f2 want)" 1e-9 &&
	lkp_same "$(metric $r median)" "$(cut -d" " -f3 want)" 1e-9 &&
	db_query "SELECT metric FROM samples WHERE run = $r ORDER BY metric" >names &&
	for n in throughput median stddev% median_stddev% workload; do
		grep -qxF "vm-scalability.$n" names || { cat names; return 1; }
	done
}

test_expect_success 'queue --wait: the four cases run on hugetlb pages' '
	bisectctl queue vm.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '"'"'done'"'"'")" = 4
'

for c in $cases; do
	test_expect_success "$c: LKP's metrics from its lines, its pages recorded" "
		check_run $c
	"
done

test_expect_success 'the sysctls are back to their old values' '
	test "$(cat $knob)" = "$old_over" &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$old_nr"
'

test_expect_success 'size: 8T is the repeat count: runs until runtime, each a sample' '
	cat >big.yaml <<-\EOF &&
	suite: vm-scalability
	testcase: vm-scalability
	runtime: 1s
	runs: 1
	timeout: 10m
	disturbed: keep
	monitors: []
	nr_task: 2
	unit_size: 32M
	size: 8T
	vm-scalability:
	  test: anon-w-seq-hugetlb
	EOF
	bisectctl queue big.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	r=$(db_query "SELECT max(id) FROM runs") &&
	dir=state/runs/$r/result &&
	! grep "^error" $dir/result &&
	grep -x "repeat count: 262144" $dir/output.log &&
	grep -x "runtime exceeded, consider adjust size configuration" $dir/output.log &&
	test "$(lkp_run_env $r sysctl.vm.nr_overcommit_hugepages)" = 19 &&
	awk "/^\\.\\/case-/ { if (n) { s[k++] = sum }; n = 1; sum = 0 }
		/ bytes \\/ [0-9]+ usecs = [0-9]+ KB\\/s\$/ { sum += \$7 }
		END { s[k++] = sum; if (k < 2) { print \"samples: \" k; exit 1 }
			for (i = 0; i < k; i++) t += s[i]; printf \"%.17g\\n\", t / k }" \
		$dir/output.log >want || { cat $dir/output.log; return 1; } &&
	lkp_same "$(metric $r throughput)" "$(cat want)" 1e-9 &&
	test "$(cat $knob)" = "$old_over"
'

test_expect_success 'a run killed at its timeout: the sysctl is restored too' '
	sed -e "s/^runtime: 1s/runtime: 600s/" -e "s/^timeout: 10m/timeout: 3s/" \
		big.yaml >killed.yaml &&
	bisectctl queue killed.yaml --commit HEAD --wait >q.out 2>q.err;
	r=$(db_query "SELECT max(id) FROM runs") &&
	test "$(db_query "SELECT status FROM runs WHERE id = $r")" = failed &&
	grep "^error timed out after 3s" state/runs/$r/result/result &&
	grep -x "env sysctl.vm.nr_overcommit_hugepages 19" state/runs/$r/result/result &&
	grep -x "hugetlb: 19 pages of 2 MiB .*" state/runs/$r/result/output.log &&
	test "$(cat $knob)" = "$old_over" &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$old_nr"
'

test_expect_success 'thp: madvise with a hugetlb case: refused with its position' '
	printf "testcase: vm-scalability\nthp: madvise\ntest: anon-w-seq-hugetlb\n" >t.yaml &&
	test_expect_code 2 bisectctl check t.yaml 2>err &&
	grep "t.yaml:2:1: .*.thp: madvise. asks for transparent huge pages, and test .anon-w-seq-hugetlb. maps hugetlb pages" err
'

test_done
