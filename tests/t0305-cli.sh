#!/bin/sh
# The command line: malformed job files and bad revisions are refused with
# exit status 2, a FILE:LINE:COL message, and nothing queued; queue,
# compare, status, show and log do their jobs.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

requests() {
	db_query "SELECT count(*) FROM requests" 2>/dev/null || echo 0
}

test_expect_success 'setup' '
	setup_bench --commits 20 --culprit 12 --change -8
'

test_expect_success 'a malformed job file is refused with its position' '
	printf "testcase: microbench\nruns: many\n" >bad.yaml &&
	test_expect_code 2 bisectctl bisect bad.yaml --good master~5 \
		--bad master --wait 2>err &&
	grep -q "^error: bad.yaml:2:7: .*runs" err &&
	test "$(requests)" = 0
'

test_expect_success 'an unknown revision is refused' '
	test_expect_code 2 bisectctl bisect job.yaml --good nosuchrev \
		--bad master 2>err &&
	grep -q "nosuchrev" err &&
	test "$(requests)" = 0
'

test_expect_success 'missing arguments print the usage' '
	test_expect_code 2 bisectctl bisect job.yaml --good master 2>err &&
	grep -q "^usage: bisectctl" err &&
	test_expect_code 2 bisectctl frobnicate 2>err &&
	grep -q "unknown command" err
'

test_expect_success 'a config error names the file, line and key' '
	printf "repos:\n  - name: x\n    paht: y\n" >broken.yaml &&
	test_expect_code 2 bisectctl -c broken.yaml status 2>err &&
	grep -q "broken.yaml:3:5: .*paht" err
'

test_expect_success 'the mail keys and a tree URL are checked at load' '
	printf "repos:\n  - name: x\n    path: repo\n    url: ftp://x\n" >u.yaml &&
	test_expect_code 2 bisectctl -c u.yaml status 2>err &&
	grep -q "u.yaml:4:10: .url. must be an http:// or https:// URL" err &&
	printf "repos:\n  - name: x\n    path: repo\n    tree: \"a b\"\n" >t.yaml &&
	test_expect_code 2 bisectctl -c t.yaml status 2>err &&
	grep -q "t.yaml:4:11: .tree. must be made of" err &&
	printf "mail:\n  smtp: smtp://127.0.0.1:25\n  from: a@b\n  to: c@d\n  closes: \"https://x/ y\"\n" >m.yaml &&
	test_expect_code 2 bisectctl -c m.yaml status 2>err &&
	grep -q "m.yaml:5:11: .closes. must not hold spaces" err
'

test_expect_success 'compare --all prints the table for every metric' '
	bisectctl compare master~10 master job.yaml --wait --all >cmp.out &&
	grep -q "microbench.score$" cmp.out &&
	grep -q "microbench.other$" cmp.out &&
	grep -q "time.user_time" cmp.out &&
	grep "microbench.score$" cmp.out | grep -q -- "-[0-9.]*%" &&
	head -n 4 cmp.out | grep -q "^---------------- ---------------------------$"
'

test_expect_success 'compare has LKP sub-header and columns that hold their place' '
	grep -A2 "^---------------- ---------------------------$" cmp.out | sed 1d >sub &&
	printf "%s\n" "         %stddev     %change         %stddev" \
		"             \\          |                \\" >want &&
	test_cmp_lines sub want &&
	awk "/±/ { a = index(\$0, \"±\"); r = substr(\$0, a + 1);
		print a, a + index(r, \"±\") }" cmp.out | sort -u >cols &&
	test "$(wc -l <cols)" = 1 &&
	grep -q "±  ?%\|±[ 0-9][ 0-9][0-9]%" cmp.out
'

test_expect_success 'compare without --all shows the headline and the significant rows only' '
	bisectctl compare master~10 master job.yaml --wait >sig.out &&
	grep -q "microbench.score$" sig.out &&
	test "$(grep -c "±" sig.out)" -lt "$(grep -c "±" cmp.out)" &&
	grep -q "Benjamini-Hochberg at 5% false$" sig.out &&
	grep -q "the rest are left out, see --all" sig.out &&
	! grep -q "(+[0-9.]*%)\|(-[0-9.]*%)" sig.out
'

test_expect_success 'queue expands a matrix and queues each job' '
	cat >matrix.yaml <<-\EOF &&
	testcase: microbench
	run: sh bench.sh
	runs: 1
	nr_threads: [1, 2]
	EOF
	bisectctl queue matrix.yaml --commit master >q.out &&
	test "$(grep -c "^job " q.out)" = 2 &&
	bisectctl status >status.out &&
	grep -q "^requests: 1 active" status.out
'

test_expect_success 'show and status read the database' '
	id=$(sed -n "s/^request //p" q.out) &&
	bisectctl show "$id" >show.out &&
	grep -q "request $id: queue, pending" show.out &&
	test_expect_code 2 bisectctl show 9999 2>err &&
	grep -q "no request 9999" err
'

test_done
