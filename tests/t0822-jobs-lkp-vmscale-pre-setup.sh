#!/bin/sh
# vm-scalability's pre_setup: 1 (LKP's "setup by disk/fs"): the cases on
# sparse files make their files in the job's file system, LKP's
# SPARSE_ROOT being the job's first mount point, and the worker mounts
# no tmpfs and makes no root of its own. A job with disk: 1HDD (a loop
# disk of the agent) and fs: ext4 runs two such cases end to end; its
# output says where the files were, the metrics are LKP's names with
# the values of the lines, and afterwards nothing is mounted, attached
# or left. pre_setup: 1 without fs, or with a case that needs LKP's
# tmpfs, is refused with its position, and so is a value other than 0
# or 1.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

BISECT_AGENT_DISK_DIR=$TRASH/disks
export BISECT_AGENT_DISK_DIR

why=$(lkp_loop_why)
if [ -n "$why" ]; then
	test_skip "vm-scalability's pre_setup on a loop disk" "$why"
	test_done
	exit 0
fi

test_expect_success 'setup: an agent with a loop hdd, the job with pre_setup: 1' '
	lkp_setup &&
	lkp_loop_agent "hdd: [loop:1G]" &&
	cat >vm.yaml <<-\EOF &&
	suite: vm-scalability
	testcase: vm-scalability
	runtime: 1s
	runs: 1
	timeout: 10m
	disturbed: keep
	monitors: []
	disk: 1HDD
	fs: ext4
	nr_task: 2
	vm-scalability:
	  pre_setup: 1
	  test: [lru-file-readonce, mmap-pread-seq-mt]
	EOF
	bisectctl check vm.yaml >check.out &&
	test "$(grep -c -- "--sparse-root=" check.out)" = 2
'

test_expect_success 'queue --wait: both cases run on files in the job file system' '
	bisectctl queue vm.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	for c in lru-file-readonce mmap-pread-seq-mt; do
		r=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
			WHERE j.canonical LIKE '"'"'%test: $c%'"'"'") &&
		dir=state/runs/$r/result &&
		! grep "^error" $dir/result &&
		grep -x "sparse root $BISECT_AGENT_DISK_DIR/[^ ]*: the job'"'"'s file system (pre_setup: 1)" $dir/output.log &&
		! grep "vm-scalability-tmp" $dir/output.log &&
		awk "/ bytes \\/ [0-9]+ usecs = [0-9]+ KB\\/s\$/ { n++; kb += \$7 }
			/ bytes \\(.*\\) copied, [0-9.]+ s, / { n++; s = \$0;
				sub(/.*copied, /, \"\", s); sub(/ s,.*/, \"\", s);
				kb += int(\$1 / 1024) / s }
			END { if (n != 2) exit 1; printf \"%.17g\\n\", kb }" \
			$dir/output.log >want || { cat $dir/output.log; return 1; }
		v=$(db_query "SELECT value FROM samples WHERE run = $r AND
			metric = '"'"'vm-scalability.throughput'"'"'") &&
		lkp_same "$v" "$(cat want)" 1e-6 || return 1
	done
'

test_expect_success 'nothing is left: not mounted, not attached, no file' '
	lkp_disks_gone /proc/self/mounts "$BISECT_AGENT_DISK_DIR" &&
	test -z "$(find state -name "sparse-*")"
'

test_expect_success 'pre_setup: 1 without fs, with an shm- case, or 2: refused' '
	printf "testcase: vm-scalability\npre_setup: 1\ntest: lru-file-readonce\n" >a.yaml &&
	test_expect_code 2 bisectctl check a.yaml 2>err &&
	grep "a.yaml:2:1: .*.pre_setup. is 1 (the sparse files in the job.s file system) and the job gives no .fs." err &&
	printf "testcase: vm-scalability\ndisk: 1HDD\nfs: ext4\npre_setup: 1\ntest: shm-pread-rand\n" >b.yaml &&
	test_expect_code 2 bisectctl check b.yaml 2>err &&
	grep "b.yaml:4:1: .*test .shm-pread-rand. is not a case on sparse files (it needs LKP.s tmpfs" err &&
	printf "testcase: vm-scalability\npre_setup: 2\n" >c.yaml &&
	test_expect_code 2 bisectctl check c.yaml 2>err &&
	grep "c.yaml:2:1: .*.pre_setup. must be one of 0, 1, not .2." err
'

test_done
