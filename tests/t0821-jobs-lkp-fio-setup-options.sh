#!/bin/sh
# fio-setup-basic's options of fio's own (lkp-tests'
# fio-basic-1ssd-read.yaml gives them): norandommap, allrandrepeat,
# random_generator, cpus_allowed_policy, cpus_allowed, exitall,
# group_reporting, ramp_time and stonewall reach fio as LKP's setup
# writes them (the bare flags as "=1", which fio takes the same). An
# LKP-style job runs end to end through queue --wait: fio's own report
# (fio.json) names each option with its value, group_reporting makes its
# two jobs one, and the metrics are LKP's names with that job's values.
# What fio or LKP's setup would refuse is refused with its position: a
# random_generator fio lacks, cpus_allowed without the split policy,
# split without cpus_allowed, a ramp_time that is no duration.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

test_expect_success 'setup: LKP-style fio-basic with the nine options' '
	lkp_needs fio && lkp_setup &&
	cat >fio.yaml <<-\EOF &&
	suite: fio-basic
	testcase: fio-basic
	category: benchmark
	runtime: 1s
	runs: 1
	disturbed: keep
	monitors: []
	nr_task: 2
	fio-setup-basic:
	  rw: randread
	  bs: 4k
	  ioengine: sync
	  test_size: 16M
	  time_based: 1
	  norandommap: 1
	  allrandrepeat: 0
	  random_generator: lfsr
	  cpus_allowed_policy: split
	  cpus_allowed: 0
	  exitall: 1
	  group_reporting: 1
	  ramp_time: 1
	  stonewall: 1
	fio:
	EOF
	bisectctl check fio.yaml >check.out &&
	grep -- "--time_based --norandommap=1 --random_generator=lfsr --allrandrepeat=0 --group_reporting=1 --exitall=1 --ramp_time=1 --stonewall=1 --cpus_allowed_policy=split --cpus_allowed=0 " check.out
'

test_expect_success 'queue --wait: fio is given each option, one grouped job' '
	bisectctl queue fio.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	r=$(db_query "SELECT max(id) FROM runs") &&
	dir=state/runs/$r/result &&
	! grep "^error" $dir/result &&
	"$PYTHON3" -c "import json, sys
d = json.load(open(sys.argv[1]))
jobs = d[\"jobs\"]
assert len(jobs) == 1, len(jobs)
o = jobs[0][\"job options\"]
want = {\"norandommap\": \"1\", \"allrandrepeat\": \"0\",
    \"random_generator\": \"lfsr\", \"cpus_allowed_policy\": \"split\",
    \"cpus_allowed\": \"0\", \"exitall\": \"1\", \"group_reporting\": \"1\",
    \"ramp_time\": \"1\", \"stonewall\": \"1\", \"numjobs\": \"2\"}
for k, v in want.items():
    assert o.get(k) == v, (k, o.get(k))
print(\"read_bw_MBps\", repr(jobs[0][\"read\"][\"bw\"] / 1024))
print(\"read_iops\", repr(jobs[0][\"read\"][\"iops\"]))
" $dir/fio.json >want &&
	while read -r name v; do
		got=$(db_query "SELECT value FROM samples WHERE run = $r AND
			metric = '"'"'fio-basic.$name'"'"'") &&
		lkp_same "$got" "$v" 1e-9 || return 1
	done <want
'

# refused CHANGE WANT: fio.yaml with the sed CHANGE is refused by check
# with exit 2 and an error matching WANT.
refused() {
	sed "$1" fio.yaml >bad.yaml &&
	test_expect_code 2 bisectctl check bad.yaml 2>err &&
	grep "$2" err
}

test_expect_success 'what fio or LKP would refuse is refused, with its position' '
	refused "s/random_generator: lfsr/random_generator: mt19937/" \
		"bad.yaml:17:3: .*.random_generator. must be one of tausworthe, lfsr, tausworthe64, not .mt19937." &&
	refused "/cpus_allowed_policy/d" \
		"bad.yaml:18:3: .*.cpus_allowed. without .cpus_allowed_policy: split." &&
	refused "/cpus_allowed: 0/d" \
		"bad.yaml:18:3: .*.cpus_allowed_policy. is split and .cpus_allowed. is not given" &&
	refused "s/cpus_allowed: 0/cpus_allowed: 0-x/" \
		"bad.yaml:19:3: .*.cpus_allowed. must be CPU numbers and ranges" &&
	refused "s/ramp_time: 1/ramp_time: soon/" \
		"bad.yaml:22:3: .*.ramp_time. must be a duration"
'

test_done
