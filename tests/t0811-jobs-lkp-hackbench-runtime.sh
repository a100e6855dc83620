#!/bin/sh
# hackbench's runtime, as LKP's programs/hackbench/run takes it: without
# iterations, hackbench runs again and again until more than runtime
# seconds have passed at the end of one (run_for_time); iterations, when
# given, wins; with neither it runs once. Program files say so with
# "repeat_for:", used when "repeat:" has no value. LKP's
# local-tests/hackbench-local-test.yaml form (runtime: 20s, perf-profile
# delay) passes the parameter check. (The fixture output has two "Time:"
# lines: two instances a run.)
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
OUT=$BISECTD_SRC/tests/fixtures/bench-output

test_expect_success 'setup: a hackbench that takes half a second' '
	mkdir fake work &&
	cat >fake/hackbench <<-EOF &&
	#!/bin/sh
	echo "\$@" >>"$TRASH/hackbench.args"
	sleep 0.5
	cat "$OUT/hackbench.log"
	EOF
	chmod +x fake/hackbench
'

test_expect_success 'runtime: 2s and no iterations: again until more than 2 s' '
	printf "testcase: hackbench\nnr_threads: 2\nloops: 200\nruntime: 2s\nmonitors: []\n" >rt.yaml &&
	bisectctl check rt.yaml >out &&
	grep "^    runtime: 2$" out &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work rt.yaml res-rt &&
	! grep "^error" res-rt/result &&
	n=$(wc -l <hackbench.args) &&
	test "$n" -ge 4 && test "$n" -le 10 &&
	test "$(sort -u hackbench.args)" = "-g 2 -f 20 -s 100 -l 200" &&
	e=$(awk "/^metric time.elapsed_time / { print \$3 }" res-rt/result) &&
	awk -v e="$e" "BEGIN { exit !(e >= 2) }" &&
	test "$(grep -c "^instance hackbench.throughput " res-rt/result)" = $((2 * n))
'

test_expect_success 'iterations wins over runtime; neither: once' '
	: >hackbench.args &&
	printf "testcase: hackbench\nnr_threads: 2\nloops: 200\nruntime: 600s\niterations: 2\nmonitors: []\n" >it.yaml &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work it.yaml res-it &&
	! grep "^error" res-it/result &&
	test "$(wc -l <hackbench.args)" = 2 &&
	: >hackbench.args &&
	printf "testcase: hackbench\nnr_threads: 2\nloops: 200\nmonitors: []\n" >one.yaml &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work one.yaml res-one &&
	! grep "^error" res-one/result &&
	test "$(wc -l <hackbench.args)" = 1
'

test_expect_success 'a runtime that is no duration is refused at check' '
	printf "testcase: hackbench\nruntime: long\n" >bad.yaml &&
	test_expect_code 2 bisectctl check bad.yaml 2>err &&
	grep "^error: bad.yaml:2:10: .runtime. must be a duration" err
'

test_expect_success 'LKP hackbench-local-test.yaml passes the parameter check' '
	cat >local.yaml <<-\EOF &&
	suite: hackbench
	testcase: hackbench
	category: benchmark

	perf-profile:
	  delay: 1

	runtime: 20s

	nr_threads:
	  - 50%

	hackbench:
	  mode:
	    - process
	    - threads
	  ipc:
	    - pipe
	EOF
	bisectctl check local.yaml >out &&
	tail -n 1 out | grep "^2 jobs, "
'

test_done
