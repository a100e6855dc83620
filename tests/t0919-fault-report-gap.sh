#!/bin/sh
# A process killed after a bisection concluded and before its report was
# written (two transactions) leaves a found bisection without a report,
# and so without a mail or a page. The state such a kill leaves is made
# here by removing the report row; the next scheduler to start writes the
# report once, and the one after that adds nothing.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

reports() {
	db_query "SELECT count(*) FROM reports"
}

test_expect_success 'setup: a bisection that found its culprit' '
	setup_bench --commits 24 --culprit 15 --change -8 &&
	good=$(commit_oid "commit 1") &&
	bisectctl bisect job.yaml --good "$good" --bad master --wait --json \
		>out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	id=$(json_get out.json "d[\"id\"]") &&
	echo "$id" >id &&
	test "$(reports)" = 1 &&
	db_query "SELECT headline FROM reports" >headline.before
'

test_expect_success 'the kill between the two writes: no report left' '
	db_query "DELETE FROM reports" &&
	test "$(reports)" = 0 &&
	test "$(db_query "SELECT status FROM bisections WHERE id = $(cat id)")" = found
'

test_expect_success 'the next scheduler writes it, once' '
	bisectctl queue job.yaml --commit master --wait >q.out 2>q.err &&
	grep -q "bisection $(cat id): found without its report" q.err &&
	test "$(reports)" = 1 &&
	db_query "SELECT headline FROM reports" >headline.after &&
	test_cmp_lines headline.before headline.after &&
	bisectctl queue job.yaml --commit master~1 --wait >q.out 2>q.err &&
	! grep -q "without its report" q.err &&
	test "$(reports)" = 1
'

test_done
