#!/bin/sh
# fio-setup-basic's raw_disk: 1, as LKP's setup script takes it: fio's
# filename is the partition itself ($partitions), nothing is made or
# mounted on it. The agent declares a loop hdd; an LKP-style fio-basic
# job (disk: 1HDD, no fs, fio-setup-basic: {raw_disk: 1}) runs end to
# end through queue --wait: fio.json says fio wrote the loop device the
# run's environment names, the metrics are LKP's names with fio.json's
# values, and afterwards nothing is attached. raw_disk with fs, and
# without disk, are refused with their position. Needs root and loop
# devices, else skipped.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

BISECT_AGENT_DISK_DIR=$TRASH/disks
export BISECT_AGENT_DISK_DIR

why=$(lkp_loop_why fio)
if [ -n "$why" ]; then
	test_skip "fio's raw_disk on a loop device" "$why"
	test_done
	exit 0
fi

test_expect_success 'setup: an agent with a loop hdd, the raw_disk job' '
	lkp_setup &&
	lkp_loop_agent "hdd: [loop:256M]" &&
	cat >raw.yaml <<-\EOF &&
	suite: fio-basic
	testcase: fio-basic
	category: benchmark
	runtime: 1s
	runs: 1
	monitors: []
	disk: 1HDD
	nr_task: 2
	fio-setup-basic:
	  rw: randwrite
	  bs: 4k
	  ioengine: sync
	  test_size: 64M
	  time_based: tb
	  raw_disk: 1
	fio:
	EOF
	bisectctl check raw.yaml >check.out &&
	grep -- "--filename=PARTITION " check.out &&
	! grep -- "--directory=" check.out &&
	grep "no file system: the benchmark writes the partition itself" check.out
'

test_expect_success 'queue --wait: fio writes the loop device itself' '
	bisectctl queue raw.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	r=$(db_query "SELECT max(id) FROM runs") &&
	dir=state/runs/$r/result &&
	! grep "^error" $dir/result &&
	part=$(lkp_run_env $r partitions) &&
	case "$part" in /dev/loop[0-9]*) ;; *) echo "partitions: $part"; false ;; esac &&
	test -z "$(lkp_run_env $r mount_points)" &&
	"$PYTHON3" -c "import json, sys
d = json.load(open(sys.argv[1]))
jobs = d[\"jobs\"]
assert len(jobs) == 2, len(jobs)
for j in jobs:
    assert j[\"job options\"][\"filename\"] == sys.argv[2], j[\"job options\"]
    assert \"directory\" not in j[\"job options\"], j[\"job options\"]
print(\"write_bw_MBps\", repr(sum(j[\"write\"][\"bw\"] for j in jobs) / 1024))
print(\"write_iops\", repr(sum(j[\"write\"][\"iops\"] for j in jobs)))
print(\"workload\", sum(j[\"write\"][\"total_ios\"] for j in jobs))
" $dir/fio.json "$part" >want &&
	while read -r name v; do
		lkp_same "$(lkp_value fio-basic "$name")" "$v" 1e-9 || return 1
	done <want &&
	! losetup -a | grep -F "$BISECT_AGENT_DISK_DIR/"
'

test_expect_success 'raw_disk with fs, or without disk, is refused' '
	printf "testcase: fio-basic\ndisk: 1HDD\nfs: ext4\nfio-setup-basic:\n  raw_disk: 1\n" >fs.yaml &&
	test_expect_code 2 bisectctl check fs.yaml 2>err &&
	grep "fs.yaml:5:3: .*'"'"'raw_disk'"'"' with '"'"'fs'"'"'" err &&
	printf "testcase: fio-basic\nraw_disk: 1\n" >nd.yaml &&
	test_expect_code 2 bisectctl check nd.yaml 2>err &&
	grep "nd.yaml:2:1: .*'"'"'raw_disk'"'"' without '"'"'disk'"'"'" err
'

test_done
