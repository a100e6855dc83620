#!/bin/sh
# Good and bad do not differ beyond noise: the bisection concludes
# no_change after sampling only the two ends, and exits 0.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'no change between good and bad' '
	setup_bench --commits 100 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = no_change &&
	test "$(json_get out.json "d[\"culprits\"]")" = "[]" &&
	json_get out.json "d[\"builds\"]" | grep -qx 2
'

test_expect_success 'the text output says no change' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait >text.out 2>/dev/null &&
	grep -q "^no change: " text.out
'

test_done
