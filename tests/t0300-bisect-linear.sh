#!/bin/sh
# A linear history of 200 commits where commit 137 slows the benchmark by
# 5% under 1% noise: bisect --wait --json names it, exits 0, prints
# git-bisect style progress, and its log replays in git bisect.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'setup' '
	setup_bench --commits 200 --culprit 137 --change -5
'

test_expect_success 'bisect finds the culprit' '
	good=$(commit_oid "commit 1") &&
	bisectctl bisect job.yaml --good "$good" --bad master --wait --json \
		>out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	test "$(json_get out.json "d[\"subject\"]")" = "commit 137 (culprit)" &&
	test "$(json_get out.json "d[\"culprits\"] == [\"$(culprit_oid)\"]")" = True
'

test_expect_success 'the result has the contract fields' '
	json_has out.json id status culprit subject metric direction good bad \
		change_pct ci_pct p_value parent culprit_stats explained_pct \
		culprits builds runs skipped &&
	json_get out.json "d[\"metric\"]" | grep -qx microbench.score &&
	json_get out.json "d[\"direction\"]" | grep -qx higher &&
	json_get out.json "1 if -7 < d[\"change_pct\"] < -3 else 0" | grep -qx 1 &&
	json_get out.json "1 if d[\"ci_pct\"][0] <= d[\"change_pct\"] <= d[\"ci_pct\"][1] else 0" | grep -qx 1 &&
	json_get out.json "1 if d[\"p_value\"] < 0.05 else 0" | grep -qx 1 &&
	json_get out.json "1 if d[\"builds\"] <= 40 and d[\"runs\"] >= 6 else 0" | grep -qx 1
'

test_expect_success 'reverting the culprit on top of bad restores the metric' '
	test "$(json_get out.json "d[\"revert\"][\"clean\"]")" = True &&
	test "$(json_get out.json "d[\"revert\"][\"built\"]")" = True &&
	json_get out.json "1 if d[\"revert\"][\"restored_pct\"] > 50 else 0" | grep -qx 1 &&
	rev=$(json_get out.json "d[\"revert\"][\"commit\"]") &&
	git -C repo log -1 --format=%s "$rev" | grep -q "^Revert \"commit 137 (culprit)\"" &&
	test "$(git -C repo rev-parse "$rev^")" = "$(git -C repo rev-parse master)" &&
	git -C repo diff --quiet "$rev" "$(culprit_oid)^" -- speed
'

test_expect_success 'progress is printed on stderr' '
	grep -q "^bisect: " progress &&
	grep -q "commits left (about [0-9]* steps)" progress
'

test_expect_success 'samples in the database match the result' '
	id=$(json_get out.json "d[\"id\"]") &&
	n=$(json_get out.json "d[\"culprit_stats\"][\"n\"]") &&
	c=$(culprit_runs_oid out.json) &&
	test "$(sample_count "$c" microbench.score)" = "$n" &&
	test "$(runs_with_status done)" = \
		"$(json_get out.json "d[\"runs\"]")"
'

test_expect_success 'the log replays in git bisect to the same commit' '
	id=$(json_get out.json "d[\"id\"]") &&
	bisectctl log "$id" >bisect.log &&
	grep -q "^git bisect start" bisect.log &&
	(cd repo && git bisect replay ../bisect.log >../replay.out 2>&1;
	 git bisect reset -q >/dev/null 2>&1; true) &&
	grep -q "$(culprit_oid) is the first bad commit" replay.out
'

test_expect_success 'show and report describe the bisection' '
	id=$(json_get out.json "d[\"id\"]") &&
	bisectctl show "$id" >show.out &&
	grep -q "bisection: found" show.out &&
	bisectctl report "$id" >report.out &&
	head -n 1 report.out | grep -q "^commit $(culprit_oid | cut -c1-10): -[0-9.]*% microbench.score regression$" &&
	grep -q "microbench.score" report.out
'

test_expect_success 'an identical request reuses the samples' '
	before=$(db_query "SELECT count(*) FROM runs") &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" --bad master \
		--wait --json >again.json 2>/dev/null &&
	test "$(json_get again.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	test "$(db_query "SELECT count(*) FROM runs")" = "$before"
'

test_done
