#!/bin/sh
# An LKP-style job file through queue and queue --wait: documents and an
# include found through the config's job_include expand to the jobs check
# lists (same ids), each run on the local agent with its parameters.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'setup' '
	setup_bench --commits 4 --culprit 3 --change -8 &&
	printf "job_include: [lkp-inc]\n" >>bisectd.yaml &&
	mkdir -p lkp-inc jobs &&
	cat >lkp-inc/common.yaml <<-\EOF &&
	run: sh bench.sh
	runs: 1
	metric: microbench.score
	EOF
	cat >jobs/lkp.yaml <<-\EOF
	suite: microbench
	testcase: microbench
	<< : {file: common.yaml, runs: 2}
	nr_threads: 1
	---
	nr_threads: [2, 4]
	EOF
'

test_expect_success 'queue takes the LKP file: hash_0 and hash_0 + hash_1, 3 jobs' '
	bisectctl check jobs/lkp.yaml >check.out &&
	grep "^job " check.out | cut -d" " -f2 | sort >check.ids &&
	test "$(wc -l <check.ids)" = 3 &&
	bisectctl queue jobs/lkp.yaml --commit master --wait >q.out &&
	grep "^job " q.out | cut -d" " -f2 | sort >queue.ids &&
	test_cmp_lines queue.ids check.ids &&
	grep -q "microbench.score" q.out
'

test_expect_success 'an include the config does not list is not found' '
	printf "job_include: []\n" >other.yaml &&
	grep -v job_include bisectd.yaml >>other.yaml &&
	test_expect_code 2 bisectctl -c other.yaml queue jobs/lkp.yaml \
		--commit master 2>err &&
	grep -q "^error: jobs/lkp.yaml:3:13: included file .common.yaml. not found" err
'

test_done
