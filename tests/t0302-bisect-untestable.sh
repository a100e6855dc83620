#!/bin/sh
# Commits that do not build are untestable, never good or bad. With the
# commit after the culprit broken the culprit is still found; with the
# commit before it broken, the first bad commit is one of two: ambiguous.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'broken neighbours after the culprit' '
	setup_bench --commits 160 --culprit 101 --change -5 --broken 102,103 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_expect_success 'a broken parent makes the culprit ambiguous' '
	setup_bench --commits 160 --culprit 101 --change -5 --broken 99,100 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = ambiguous &&
	json_get out.json "\" \".join(sorted(d[\"candidates\"]))" >got &&
	for n in 99 100; do commit_oid "commit $n"; done >want &&
	culprit_oid >>want &&
	sort want | tr "\n" " " | sed "s/ $//" >want.line &&
	echo >>want.line &&
	test_cmp_lines got want.line &&
	json_get out.json "len(d[\"skipped\"])" | grep -qx 2
'

test_expect_success 'an ambiguous bisection still exits 0 and says so' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait >text.out 2>/dev/null &&
	grep -q "^ambiguous: " text.out
'

test_done
