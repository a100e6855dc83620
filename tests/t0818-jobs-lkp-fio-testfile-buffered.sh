#!/bin/sh
# fio-setup-basic's testfile and buffered, as LKP's setup script writes
# them into fio's job: "testfile: y" makes the jobs share one file,
# fio_testfile, in the directory; "buffered" is always written, after
# "direct", as parse_bool of its value, so a job without it runs with
# buffered=0, which fio takes as O_DIRECT. An LKP-style fio-basic job
# (fio-setup-basic: and the fio: marker, buffered as an axis) runs end
# to end through queue --wait; fio's own report (fio.json) says what it
# was given, and the metrics are LKP's names with fio.json's values. A
# testfile other than y or n is refused with its position.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

test_expect_success 'setup: LKP-style fio-basic, testfile: y, buffered: [0, 1]' '
	lkp_needs fio && lkp_setup &&
	cat >fio.yaml <<-\EOF &&
	suite: fio-basic
	testcase: fio-basic
	category: benchmark
	runtime: 1s
	runs: 1
	monitors: []
	nr_task: 2
	fio-setup-basic:
	  rw: write
	  bs: 4k
	  ioengine: sync
	  test_size: 16M
	  time_based: tb
	  testfile: y
	  buffered: [0, 1]
	fio:
	EOF
	bisectctl check fio.yaml >check.out &&
	test "$(grep -c -- "--filename=fio_testfile" check.out)" = 2 &&
	grep -- "--direct=0 --buffered=0 " check.out &&
	grep -- "--direct=0 --buffered=1 " check.out
'

# RUN BUFFERED: fio.json of the run has 2 jobs, each given the shared
# file and buffered=BUFFERED; write_bw_MBps and workload are its sums.
fio_run() {
	dir=state/runs/$1/result &&
	! grep "^error" $dir/result &&
	"$PYTHON3" -c "import json, sys
d = json.load(open(sys.argv[1]))
jobs = d['jobs']
assert len(jobs) == 2, len(jobs)
for j in jobs:
    o = j['job options']
    assert o['filename'] == 'fio_testfile', o
    assert o['buffered'] == sys.argv[2], o
print('write_bw_MBps', repr(sum(j['write']['bw'] for j in jobs) / 1024))
print('write_iops', repr(sum(j['write']['iops'] for j in jobs)))
print('workload', sum(j['write']['total_ios'] for j in jobs))
" $dir/fio.json $2 >want &&
	while read -r name v; do
		got=$(db_query "SELECT value FROM samples WHERE run = $1 AND
			metric = 'fio-basic.$name'") &&
		lkp_same "$got" "$v" 1e-9 || return 1
	done <want
}

test_expect_success 'queue --wait: both run, one shared file, buffered as given' '
	bisectctl queue fio.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	r0=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.canonical LIKE '"'"'%buffered: 0%'"'"'") &&
	r1=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.canonical LIKE '"'"'%buffered: 1%'"'"'") &&
	test -n "$r0" && test -n "$r1" &&
	fio_run $r0 0 && fio_run $r1 1
'

test_expect_success 'without buffered: buffered=0 after direct, as LKP writes it' '
	printf "testcase: fio-basic\nrw: read\ntest_size: 4M\nruntime: 1s\nfio-setup-basic:\n  direct: 0\n" >nb.yaml &&
	bisectctl check nb.yaml >nb.out &&
	grep -- "--direct=0 --buffered=0 " nb.out &&
	! grep -- "--filename=" nb.out
'

test_expect_success 'testfile other than y or n is refused with its position' '
	printf "testcase: fio-basic\nfio-setup-basic:\n  testfile: yes\n" >tf.yaml &&
	test_expect_code 2 bisectctl check tf.yaml 2>err &&
	grep "tf.yaml:3:3: .*'"'"'testfile'"'"' must be one of y, n, not '"'"'yes'"'"'" err
'

test_done
