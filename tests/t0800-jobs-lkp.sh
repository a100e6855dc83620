#!/bin/sh
# LKP job files through bisectctl check: documents, includes (the job's
# folder, then -I, $BISECTD_JOB_INCLUDE and the config's job_include),
# program maps and markers, what the agent will run, --json, the refusals
# with FILE:LINE:COL and exit 2, and the parameter check queue does
# (skipped with --format-only). No database is needed.
. "$(dirname "$0")/test-lib.sh"

json() {
	python3 -c "import json, sys; a = json.load(open(sys.argv[1])); $2" "$1"
}

test_expect_success 'setup LKP-style files' '
	mkdir -p jobs/sub inc &&
	cat >jobs/dbench.yaml <<-\EOF &&
	suite: dbench
	testcase: dbench
	category: benchmark

	nr_threads: 100%

	dbench:
	monitor_delay: 10

	---
	disk: 1HDD

	fs:
	  - btrfs
	  - ext4
	  - xfs

	fs2:
	  - cifs
	  - nfs
	EOF
	cat >jobs/hackbench.yaml <<-\EOF &&
	suite: hackbench
	testcase: hackbench
	category: benchmark
	nr_threads:
	  - 100%
	  - 1600%
	iterations: 8
	hackbench:
	  mode:
	    - process
	    - threads
	  ipc:
	    - pipe
	    - socket
	perf-profile:
	  delay: 20
	EOF
	cat >inc/cgroup2.yaml <<-\EOF &&
	cgroup2:
	  cpu.weight: 100
	EOF
	cat >jobs/sub/hackbench-cgroup2.yaml <<-\EOF &&
	<< : cgroup2.yaml
	<< : {file: ../hackbench.yaml, iterations: 2, ignore: [perf-profile]}
	EOF
	cat >jobs/inline.yaml <<-\EOF
	testcase: microbench
	run: ./bench --iterations 1000
	metric: microbench.ops_per_sec
	direction: higher
	thp_enabled: always
	EOF
'

test_expect_success 'documents expand as LKP splits them: dbench gives 7 jobs' '
	bisectctl check --format-only jobs/dbench.yaml >out &&
	test "$(grep -c "^job [0-9a-f]\{16\} " out)" = 7 &&
	grep -q "^job [0-9a-f]* dbench$" out &&
	grep -q "^job [0-9a-f]* dbench/fs=xfs/fs2=nfs$" out &&
	grep -q "^  programs: dbench$" out &&
	grep -q "^  runs: [^ ]*dbench " out &&
	tail -n 1 out | grep -q "^7 jobs, "
'

test_expect_success 'without --format-only every parameter is checked as queue does' '
	test_expect_code 2 bisectctl check jobs/dbench.yaml >out 2>err &&
	grep -q "^error: jobs/dbench.yaml:[0-9]*:1: testcase .dbench.: .fs2. is .cifs.: LKP then exports" err &&
	bisectctl check jobs/hackbench.yaml >out &&
	tail -n 1 out | grep -q "^8 jobs, " &&
	sed "s/^  delay:/  latency:/" jobs/hackbench.yaml >hb.yaml &&
	test_expect_code 2 bisectctl check hb.yaml 2>err &&
	grep -q "^error: hb.yaml:16:3: monitor .perf-profile. has no option .latency. (it has freq, delay)" err &&
	printf "testcase: hackbench\nturbostat:\n" >marker.yaml &&
	bisectctl check marker.yaml >out &&
	grep -q "^  programs: turbostat$" out
'

test_expect_success 'a program map: hackbench gives 8 jobs, argv built by the adapter' '
	bisectctl check --format-only --json jobs/hackbench.yaml >out.json &&
	json out.json "assert len(a) == 8, len(a)" &&
	json out.json "assert a[0][\"params\"][\"mode\"] == \"process\"" &&
	json out.json "assert a[0][\"params\"][\"perf-profile.delay\"] == \"20\"" &&
	json out.json "assert a[0][\"programs\"] == [\"hackbench\", \"perf-profile\"]" &&
	json out.json "assert a[0][\"runs\"][\"kind\"] == \"adapter\"" &&
	json out.json "assert any(x.endswith(\"/hackbench\") for x in a[0][\"runs\"][\"argv\"])" &&
	json out.json "assert \"-p\" in a[0][\"runs\"][\"argv\"]" &&
	json out.json "assert \"-T\" in a[-1][\"runs\"][\"argv\"]" &&
	json out.json "assert len(set(j[\"id\"] for j in a)) == 8"
'

test_expect_success 'includes: the folder, overrides and ignores, then the include path' '
	test_expect_code 2 bisectctl check --format-only jobs/sub/hackbench-cgroup2.yaml 2>err &&
	grep -q "^error: jobs/sub/hackbench-cgroup2.yaml:1:6: included file .cgroup2.yaml. not found" err &&
	bisectctl check --format-only -I inc --json jobs/sub/hackbench-cgroup2.yaml >out.json &&
	json out.json "assert len(a) == 8" &&
	json out.json "assert a[0][\"params\"][\"iterations\"] == \"2\"" &&
	json out.json "assert \"perf-profile.delay\" not in a[0][\"params\"]" &&
	json out.json "assert a[0][\"params\"][\"cgroup2.cpu.weight\"] == \"100\"" &&
	BISECTD_JOB_INCLUDE=$PWD/inc bisectctl check --format-only jobs/sub/hackbench-cgroup2.yaml >out &&
	tail -n 1 out | grep -q "^8 jobs" &&
	printf "job_include: [inc]\n" >bisectd.yaml &&
	bisectctl check --format-only jobs/sub/hackbench-cgroup2.yaml >out &&
	tail -n 1 out | grep -q "^8 jobs" &&
	rm bisectd.yaml
'

test_expect_success 'an inline run: says its command, knobs and metric' '
	bisectctl check --json jobs/inline.yaml >out.json &&
	json out.json "assert a[0][\"runs\"] == {\"kind\": \"inline\", \"command\": \"./bench --iterations 1000\", \"runnable\": True}" &&
	json out.json "assert a[0][\"knobs\"] == {\"thp_enabled\": \"always\"}" &&
	json out.json "assert a[0][\"metric\"] == \"microbench.ops_per_sec\"" &&
	json out.json "assert a[0][\"direction\"] == \"higher\"" &&
	bisectctl check jobs/inline.yaml >out &&
	grep -q "^  runs: sh -c ./bench --iterations 1000$" out &&
	grep -q "^  knobs: thp_enabled=always$" out &&
	grep -q "^  metric: microbench.ops_per_sec (higher is better)$" out
'

test_expect_success 'a testcase without adapter or run: is refused; its format is not' '
	printf "testcase: will-it-scale\nwill-it-scale:\n  test: mmap1\n" >wis.yaml &&
	test_expect_code 2 bisectctl check wis.yaml 2>err &&
	grep -q "^error: wis.yaml:1:1[0-9]*: testcase .will-it-scale. has no .run:. command and no adapter" err &&
	bisectctl check --format-only wis.yaml >out &&
	grep -q "^  not runnable here: testcase .will-it-scale. has no .run:." out &&
	tail -n 1 out | grep -q "^1 jobs, 1 not runnable here" &&
	bisectctl check --format-only --json wis.yaml >out.json &&
	json out.json "assert a[0][\"runs\"][\"runnable\"] is False" &&
	test_expect_code 2 bisectctl check --format-only --runnable wis.yaml 2>err &&
	grep -q "^error: wis.yaml: job [0-9a-f]*: testcase .will-it-scale." err
'

test_expect_success 'refused constructs exit 2 with FILE:LINE:COL and their name' '
	printf "testcase: a\nx: <%%= 1 %%>\n" >erb.yaml &&
	test_expect_code 2 bisectctl check erb.yaml 2>err &&
	grep -q "^error: erb.yaml:2:4: ERB template" err &&
	printf "testcase: a\nx: {{ fs }}\n" >expr.yaml &&
	test_expect_code 2 bisectctl check expr.yaml 2>err &&
	grep -q "^error: expr.yaml:2:4: ruby expression" err &&
	printf "testcase: a\nif role server:\n  netserver:\n" >role.yaml &&
	test_expect_code 2 bisectctl check role.yaml 2>err &&
	grep -q "^error: role.yaml:2:1: multi-host section .if role server." err
'

test_expect_success 'the first error stops check: later files are not listed' '
	test_expect_code 2 bisectctl check --format-only --json jobs/inline.yaml \
		erb.yaml jobs/dbench.yaml >out 2>err &&
	test ! -s out &&
	test "$(grep -c "^error: " err)" = 1
'

test_expect_success 'several files: one list, in order' '
	bisectctl check --format-only --json jobs/inline.yaml jobs/dbench.yaml >out.json &&
	json out.json "assert len(a) == 8 and a[0][\"testcase\"] == \"microbench\""
'

test_expect_success 'usage' '
	test_expect_code 2 bisectctl check 2>err &&
	grep -q "^usage: bisectctl .*check" err
'

test_done
