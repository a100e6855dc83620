#!/bin/sh
# Histories with merges: the culprit on a merged side branch, and on the
# main line between merges. The driver walks the DAG as git bisect does.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'culprit on a side branch' '
	setup_bench --commits 120 --merge-every 6 --culprit 84 --change -6 \
		--side-culprit &&
	culprit=$(culprit_oid) &&
	git -C repo log --format=%s -1 "$culprit" | grep -q "^side 84.1" &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$culprit"
'

test_expect_success 'culprit on the main line of a merge-heavy history' '
	setup_bench --commits 150 --merge-every 5 --culprit 77 --change -6 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 2")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_done
