#!/bin/sh
# vm-scalability's shm- cases end to end: an LKP-style job file (a
# program map with a list of cases) queued
# with --wait on the local agent. The built-in worker mounts a tmpfs of
# size=100% in a mount namespace of its own, as LKP's mount_tmpfs does,
# makes the sparse file of shm_size (the tmpfs's size: MemTotal) and
# its tasks map half of it, shared; the metrics are LKP's names, their
# values the sums of the worker's own usemem lines in output.log, and
# after the run nothing of the tmpfs is mounted or left. shm-lock-unlock
# (a SysV segment) is refused by name; lru-shm, a file per task, is done
# (t0820). Needs root (a mount namespace).
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	test_skip "vm-scalability's shm- cases" "not root: a mount namespace and a tmpfs need it"
	test_done
	exit 0
fi

test_expect_success 'setup: the LKP-style job, two shm- cases' '
	lkp_setup &&
	cat >vm.yaml <<-\EOF &&
	suite: vm-scalability
	testcase: vm-scalability
	category: benchmark
	runtime: 1s
	runs: 1
	monitors: []
	nr_task: 2
	size: 1G
	vm-scalability:
	  test: [shm-pread-rand, shm-xread-seq-mt]
	EOF
	bisectctl check vm.yaml >check.out &&
	test "$(grep -c "^    test: shm-" check.out)" = 2
'

# RUN CASE: the run is done, its output.log has the tmpfs line with
# shm_size = MemTotal and CASE's usemem lines, one per task, each task
# having mapped half of shm_size, and the stored metrics are LKP's
# names with the sums of those lines.
shm_run() {
	dir=state/runs/$1/result &&
	! grep "^error" $dir/result &&
	mem=$(($(awk "/^MemTotal:/ { print \$2 }" /proc/meminfo) * 1024)) &&
	grep -x "tmpfs ./vm-scalability-tmp, shm_size $mem, file vm-scalability-tmp/sparse-$2" $dir/output.log &&
	grep -x "./case-$2" $dir/output.log &&
	awk "/ bytes \\/ [0-9]+ usecs = [0-9]+ KB\\/s\$/ { n++; kb += \$7; b += \$1 }
		END { if (n != 2) exit 1; printf \"%d %.17g\\n\", kb, b / 1024 }" \
		$dir/output.log >want &&
	# each task credits an eighth of its half of shm_size for the map
	awk -v m="$mem" "/ bytes \\/ / { if (\$1 < m / 2 / 8) exit 1 }" $dir/output.log &&
	v=$(db_query "SELECT value FROM samples WHERE run = $1 AND
		metric = 'vm-scalability.throughput'") &&
	lkp_same "$v" "$(cut -d" " -f1 want)" &&
	w=$(db_query "SELECT value FROM samples WHERE run = $1 AND
		metric = 'vm-scalability.workload'") &&
	lkp_same "$w" "$(cut -d" " -f2 want)" &&
	db_query "SELECT metric FROM samples WHERE run = $1 ORDER BY metric" >names &&
	for n in throughput median stddev% median_stddev% workload; do
		grep -qxF "vm-scalability.$n" names || { cat names; return 1; }
	done
}

test_expect_success 'queue --wait: both cases run in their tmpfs, LKP metrics' '
	bisectctl queue vm.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	db_query "SELECT r.id, j.canonical FROM runs r JOIN jobs j ON r.job = j.id
		ORDER BY r.id" >runs &&
	r1=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.canonical LIKE '"'"'%test: shm-pread-rand%'"'"'") &&
	r2=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.canonical LIKE '"'"'%test: shm-xread-seq-mt%'"'"'") &&
	test -n "$r1" && test -n "$r2" &&
	shm_run $r1 shm-pread-rand &&
	shm_run $r2 shm-xread-seq-mt
'

test_expect_success 'nothing of the tmpfs is left: not mounted, no directory' '
	! grep -F vm-scalability-tmp /proc/self/mounts &&
	test -z "$(find state -name vm-scalability-tmp)"
'

test_expect_success 'shm-lock-unlock (a SysV segment) is refused by name' '
	printf "testcase: vm-scalability\ntest: shm-lock-unlock\n" >lock.yaml &&
	test_expect_code 2 bisectctl check lock.yaml 2>err &&
	grep "lock.yaml:2:1: .*test .shm-lock-unlock. is not one .*: it locks and unlocks a SysV shared memory segment" err
'

test_done
