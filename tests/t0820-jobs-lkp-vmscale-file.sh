#!/bin/sh
# vm-scalability's cases on sparse files end to end: an LKP-style job
# file (a program map with a list of cases) queued with --wait on the
# local agent. The built-in worker makes LKP's SPARSE_ROOT (an ext4 on a
# loop image in its tmpfs, in a mount namespace of its own) and runs
# each case script's files and tasks there: a usemem per file
# (lru-file-mmap-read, mremap-xread-rand-mt with its nr_task threads
# each), two dd readers per file (lru-file-readtwice), one file shared
# (msync-mt, nr_cpu threads), a tmpfs file per task (lru-shm), and
# truncate-seq's reads and removes. The metrics are LKP's names, their
# values computed again here from the lines in output.log as LKP's
# parse does; afterwards nothing is mounted or left and no loop device
# is attached to the image. Needs root (mounts, loop devices).
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null ||
    ! command -v mkfs.ext4 >/dev/null || ! test -e /dev/loop-control; then
	test_skip "vm-scalability's file cases" "not root, or no mkfs.ext4 or loop devices"
	test_done
	exit 0
fi

cases="lru-file-mmap-read lru-file-readtwice mremap-xread-rand-mt msync-mt lru-shm truncate-seq"

test_expect_success 'setup: the LKP-style job, six cases on files' '
	lkp_setup &&
	cat >vm.yaml <<-\EOF &&
	suite: vm-scalability
	testcase: vm-scalability
	category: benchmark
	runtime: 1s
	runs: 1
	timeout: 15m
	disturbed: keep
	monitors: []
	nr_task: 2
	vm-scalability:
	  test: [lru-file-mmap-read, lru-file-readtwice, mremap-xread-rand-mt, msync-mt, lru-shm, truncate-seq]
	EOF
	bisectctl check vm.yaml >check.out &&
	test "$(grep -c "^    test: " check.out)" = 6
'

# run_of CASE: the id of its run.
run_of() {
	db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.canonical LIKE '%test: $1%'"
}

# check_run CASE LINES: the run of CASE is done, output.log has CASE's
# LINES lines of a rate, and the stored throughput and workload are
# LKP's parse of them: the sum of the rates (usemem's KB/s; (bytes >>
# 10) / seconds for dd and the truncate lines) and the bytes in KiB.
check_run() {
	r=$(run_of $1) && test -n "$r" &&
	dir=state/runs/$r/result &&
	! grep "^error" $dir/result &&
	grep -x "./case-$1" $dir/output.log &&
	awk -v want="$2" "
		/ bytes \\/ [0-9]+ usecs = [0-9]+ KB\\/s\$/ { n++; kb += \$7; b += \$1 }
		/ bytes \\(.*\\) copied, [0-9.]+ s, / { n++; s = \$0;
			sub(/.*copied, /, \"\", s); sub(/ s,.*/, \"\", s);
			kb += int(\$1 / 1024) / s; b += \$1 }
		/ bytes truncated in [0-9.]+-[0-9.]+ seconds\$/ { n++;
			split(\$5, t, \"-\"); kb += int(\$1 / 1024) / (t[1] - t[2]); b += \$1 }
		END { if (n != want) { print \"lines: \" n; exit 1 }
			printf \"%.17g %.17g\\n\", kb, b / 1024 }" \
		$dir/output.log >want || { cat $dir/output.log; return 1; }
	v=$(db_query "SELECT value FROM samples WHERE run = $r AND
		metric = 'vm-scalability.throughput'") &&
	lkp_same "$v" "$(cut -d" " -f1 want)" 1e-6 &&
	w=$(db_query "SELECT value FROM samples WHERE run = $r AND
		metric = 'vm-scalability.workload'") &&
	lkp_same "$w" "$(cut -d" " -f2 want)" 1e-9 &&
	db_query "SELECT metric FROM samples WHERE run = $r ORDER BY metric" >names &&
	for n in throughput median stddev% median_stddev% workload; do
		grep -qxF "vm-scalability.$n" names || { cat names; return 1; }
	done
}

test_expect_success 'queue --wait: the six cases run, each on its files' '
	bisectctl queue vm.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '"'"'done'"'"'")" = 6
'

test_expect_success 'lru-file-mmap-read: a usemem per file, in the sparse root' '
	check_run lru-file-mmap-read 2 &&
	grep -x "sparse root ./vm-scalability-tmp/vm-scalability: ext4 on a loop image of [0-9]* bytes in the tmpfs" \
		state/runs/$(run_of lru-file-mmap-read)/result/output.log
'

test_expect_success 'lru-file-readtwice: two dd readers per file' '
	check_run lru-file-readtwice 4
'

test_expect_success 'mremap-xread-rand-mt: nr_task usemems of nr_task threads' '
	check_run mremap-xread-rand-mt 4
'

test_expect_success 'msync-mt: nr_cpu threads on one file' '
	check_run msync-mt "$(getconf _NPROCESSORS_CONF)"
'

test_expect_success 'lru-shm: a usemem per tmpfs file' '
	check_run lru-shm 2
'

test_expect_success 'truncate-seq: the truncate line, and the fault metrics' '
	check_run truncate-seq 1 &&
	dir=state/runs/$(run_of truncate-seq)/result &&
	awk "/ bytes faulted in [0-9.]+-[0-9.]+ seconds\$/ { n++;
		split(\$5, t, \"-\"); kb = int(\$1 / 1024) / (t[1] - t[2]) }
		END { if (n != 1) exit 1; printf \"%.17g\\n\", kb }" \
		$dir/output.log >fault &&
	v=$(db_query "SELECT value FROM samples WHERE run = $(run_of truncate-seq)
		AND metric = '"'"'vm-scalability.throughput_fault'"'"'") &&
	lkp_same "$v" "$(cat fault)" 1e-6 &&
	grep -qxF vm-scalability.median_fault names
'

test_expect_success 'nothing is left: no mount, no directory, no loop on the image' '
	! grep -F vm-scalability-tmp /proc/self/mounts &&
	test -z "$(find state -name "vm-scalability*")" &&
	! losetup -a | grep -F vm-scalability.img
'

test_done
