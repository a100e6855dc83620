#!/bin/sh
# Two culprits in one range, each -6%: the first one found explains only
# part of the good->bad change, so the bisection goes on into the rest of
# the range and reports both (JSON "culprits"), the main one in "culprit".
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'setup' '
	setup_bench --commits 200 --culprit 60 --change -6 \
		--culprit2 140 --change2 -6
'

test_expect_success 'both culprits are reported' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	json_get out.json "\" \".join(sorted(d[\"culprits\"]))" >got &&
	git -C repo log master --grep="(culprit)" --format=%H | sort |
		tr "\n" " " | sed "s/ $//" >want &&
	echo >>want &&
	test_cmp_lines got want &&
	json_get out.json "d[\"culprit\"] in d[\"culprits\"]" | grep -qx True &&
	json_get out.json "1 if d[\"explained_pct\"] < 80 else 0" | grep -qx 1
'

test_expect_success 'the report names both' '
	id=$(json_get out.json "d[\"id\"]") &&
	bisectctl report "$id" >report.out &&
	grep -q "one of 2 culprits" report.out
'

test_done
