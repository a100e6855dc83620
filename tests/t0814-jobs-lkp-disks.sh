#!/bin/sh
# LKP's disk and fs on loop-backed scratch disks: the agent declares
# disks: {hdd: [loop:1G], ssd: [loop:1G]}; LKP-style job files with
# disk: 1HDD / 1SSD and fs: [ext4, xfs, btrfs] run fio (fio-setup-basic:
# and the fio: marker), fs_mark and dbench end to end through queue
# --wait, in the mount: the metrics are the real tools' (fio's against
# its fio.json), the environment records the disk, mkfs and the mount as
# the kernel had it, and afterwards nothing is mounted, attached or left
# in the disk directory. A job the agent has no disks for, and fs2: nfs,
# are refused; a declared device is used and refused while mounted; an
# agent killed with its disk mounted leaves it to the next run, one
# without disks here, which reaps it. Needs root and loop devices, else
# skipped.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

BISECT_AGENT_DISK_DIR=$TRASH/disks
export BISECT_AGENT_DISK_DIR

why=$(lkp_loop_why fio fs_mark dbench)
if [ -n "$why" ]; then
	test_skip "LKP's disk and fs on loop devices" "$why"
	test_done
	exit 0
fi
fss=ext4
command -v mkfs.xfs >/dev/null && fss="$fss, xfs"
command -v mkfs.btrfs >/dev/null && fss="$fss, btrfs"

# Nothing of the test's is mounted, attached or left in the disk dir.
disks_gone() {
	lkp_disks_gone /proc/self/mounts "$BISECT_AGENT_DISK_DIR"
}

# A test runs in a subshell: what it attaches it names in ./cleanup,
# which runs at exit whatever became of the test (lkp_loop_agent).
test_expect_success 'setup: an agent with a loop hdd and a loop ssd' '
	lkp_setup &&
	lkp_loop_agent "hdd: [loop:1G]" "ssd: [loop:1G]"
'

test_expect_success 'fio-basic as LKP writes it: 1HDD, every fs, in the mount' '
	lkp_fio_disk_job "$fss" &&
	bisectctl check fio.yaml >check.out &&
	grep -q "disks: 1 hdd disk of the agent (its .disks.hdd.), made with .mkfs.ext4" check.out &&
	grep -q "the benchmark runs in the mount" check.out &&
	bisectctl queue fio.yaml --commit HEAD --wait >q.out 2>q.err &&
	nfs=$(echo "$fss" | tr , "\n" | wc -l) &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\''")" = "$nfs" &&
	for run in $(db_query "SELECT id FROM runs ORDER BY id"); do
		lkp_fio_disk_run $run "$BISECT_AGENT_DISK_DIR" || return 1
	done &&
	test "$(db_query "SELECT count(DISTINCT value) FROM run_env WHERE key = '\''fs'\''")" = "$nfs" &&
	disks_gone
'

test_expect_success 'fsmark on 1SSD (LKP style program map), files_per_sec' '
	cat >fsmark.yaml <<-\EOF &&
	suite: fsmark
	testcase: fsmark
	runs: 1
	monitors: []
	disk: 1SSD
	fs: ext4
	mount_option: noatime
	fsmark:
	  filesize: 4K
	  nr_threads: 2
	  nr_files: 200
	  sync_method: NoSync
	EOF
	lkp_run fsmark.yaml &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	test "$(lkp_run_env $run disk)" = 1SSD &&
	test "$(lkp_run_env $run mount_option)" = noatime &&
	lkp_run_env $run mounted | grep -q " ext4 rw,noatime" &&
	awk "\$1 ~ /^[0-9]+\$/ && NF == 5 { print \$4 }" "$lkp_run_dir/output.log" >fps &&
	test -s fps &&
	lkp_same "$(lkp_value fsmark files_per_sec)" "$(cat fps)" 1e-9 &&
	disks_gone
'

test_expect_success 'dbench on 1HDD ext4: throughput from dbench itself' '
	printf "testcase: dbench\nruns: 1\nmonitors: []\nruntime: 2s\nnr_threads: 2\ndisk: 1HDD\nfs: ext4\n" >dbench.yaml &&
	lkp_run dbench.yaml &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	test "$(lkp_run_env $run fs)" = ext4 &&
	lkp_run_env $run mounted | grep -q " ext4 " &&
	want=$(awk "/^Throughput/ { print \$2 }" "$lkp_run_dir/output.log") &&
	lkp_same "$(lkp_value dbench throughput-MB/sec)" "$want" 1e-9 &&
	disks_gone
'

test_expect_success 'an agent without the disks is not eligible: queue refuses' '
	printf "repos:\n  - name: r\n    path: repo\n" >nodisks.yaml &&
	test_expect_code 2 bisectctl -c nodisks.yaml queue dbench.yaml \
		--commit HEAD 2>err &&
	grep -q "no agent can run it: agent .local.: .disk. is 1HDD, the agent has 0 hdd disks" err &&
	printf "testcase: dbench\ndisk: 2HDD\nfs: ext4\nrun: true\n" >two.yaml &&
	test_expect_code 2 bisectctl queue two.yaml --commit HEAD 2>err &&
	grep -q "the agent has 1 hdd disk " err
'

test_expect_success 'fs2 (nfs), raid, BRD, a disk without fs and format: n are refused by name; fs: {fs: ext4} is fs: ext4' '
	printf "testcase: dbench\ndisk: 1HDD\nfs: ext4\nfs2: nfsv4\n" >nfs.yaml &&
	test_expect_code 2 bisectctl check nfs.yaml 2>err &&
	grep -q "^error: nfs.yaml:4:1: testcase .dbench.: .fs2. is .nfsv4.: LKP then exports" err &&
	printf "testcase: dbench\ndisk: 1HDD\nfs: ext4\nmd: md0\n" >md.yaml &&
	test_expect_code 2 bisectctl check md.yaml 2>err &&
	grep -q "^error: md.yaml:4:1: .md. cannot be honoured here: LKP.s .md. builds a RAID" err &&
	printf "testcase: fsmark\ndisk: 1BRD_32G\nfs: ext4\n" >brd.yaml &&
	test_expect_code 2 bisectctl check brd.yaml 2>err &&
	grep -q "^error: brd.yaml:2:1: .*ram disks of the brd module" err &&
	printf "testcase: fio-basic\ndisk: 1HDD\n" >raw.yaml &&
	test_expect_code 2 bisectctl check raw.yaml 2>err &&
	grep -q "^error: raw.yaml:2:1: .*.disk. without .fs.: bisect-agent.s adapters run in a file system on the disk (LKP.s programs too, but for fio.s raw_disk: 1" err &&
	printf "testcase: fio-basic\ndisk: 1SSD\nfs:\n  fs: ext4\n  format: n\n" >fmt.yaml &&
	test_expect_code 2 bisectctl check fmt.yaml 2>err &&
	grep -q "^error: fmt.yaml:5:3: .*.fs.format. is .n.: LKP then mounts the file system already on the disk" err &&
	printf "testcase: fio-basic\ndisk: 1SSD\nfs:\n  fs: ext4\n  format: y\n" >fmty.yaml &&
	bisectctl check fmty.yaml >out &&
	grep -q "disks: 1 ssd disk of the agent (its .disks.ssd.), made with .mkfs.ext4" out &&
	printf "testcase: fio-basic\nfs: nfsv4\n" >fsnfs.yaml &&
	test_expect_code 2 bisectctl check fsnfs.yaml 2>err &&
	grep -q "^error: fsnfs.yaml:2:1: .*a network file system" err
'

test_expect_success 'a declared device: used, left attached; refused while mounted' '
	truncate -s 512M dev.img &&
	dev=$(losetup -f --show dev.img) &&
	echo "umount $TRASH/m; losetup -j $TRASH/dev.img | cut -d: -f1 | xargs -r losetup -d" >>cleanup &&
	printf "repos:\n  - name: r\n    path: repo\nagents:\n  - name: local\n    disks: {hdd: [$dev]}\n" >devs.yaml &&
	printf "testcase: dbench\nruns: 1\nmonitors: []\nruntime: 1s\nnr_threads: 1\ndisk: 1HDD\nfs: ext4\n" >d1.yaml &&
	bisectctl -c devs.yaml queue d1.yaml --commit HEAD --wait >out &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	! grep "^error" state/runs/$run/result/result &&
	test "$(lkp_run_env $run partitions)" = "$dev" &&
	test -z "$(lkp_run_env $run partitions_loop)" &&
	losetup "$dev" &&
	disks_gone &&
	mkdir m && mount "$dev" m &&
	printf "testcase: dbench\nruns: 1\nmonitors: []\nruntime: 2s\nnr_threads: 1\ndisk: 1HDD\nfs: ext4\n" >d2.yaml &&
	bisectctl -c devs.yaml queue d2.yaml --commit HEAD --wait >out 2>&1 ;
	run=$(db_query "SELECT max(id) FROM runs") &&
	grep "^error disks: disk .$dev. is mounted ($dev $TRASH/m ext4 " state/runs/$run/result/result &&
	umount m &&
	losetup -d "$dev" &&
	disks_gone
'

test_expect_success 'a killed agent leaves its mount to the next run (any), which reaps it' '
	printf "testcase: fio-basic\ndisk: 1HDD\nfs: ext4\nruntime: 60s\ntime_based: 1\ntest_size: 64M\nmonitors: []\n" >long.yaml &&
	mkdir -p w &&
	bisect-agent run --workdir w --disk hdd=loop:1073741824 long.yaml res >agent.out 2>&1 &
	agent=$! &&
	test_wait_for 300 grep -qF " $BISECT_AGENT_DISK_DIR/fs-$agent-0 " /proc/self/mounts &&
	kill -9 $agent && wait $agent
	test "$(ls "$BISECT_AGENT_DISK_DIR" | wc -l)" = 2 &&
	grep -F " $BISECT_AGENT_DISK_DIR/fs-$agent-0 " /proc/self/mounts &&
	printf "testcase: t\nrun: \"echo t: 1\"\nmonitors: []\n" >short.yaml &&
	bisect-agent run --workdir w short.yaml res2 &&
	! grep "^error" res2/result &&
	! grep "disks_reap_error" res2/result &&
	disks_gone
'

test_done
