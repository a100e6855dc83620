#!/bin/sh
# Every command that reads answers --json: status, agents and log print
# one JSON document that says what their text says; status shows a
# concluded bisection's verdict and culprit, not only 'done'.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'setup: a bisection that concludes' '
	setup_bench --commits 24 --culprit 15 --change -10 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >bisect.json 2>progress &&
	id=$(json_get bisect.json "d[\"id\"]") &&
	status=$(json_get bisect.json "d[\"status\"]") &&
	echo "$id $status" >result
'

test_expect_success 'status --json carries the counts, the agents and the verdict' '
	read id status <result &&
	bisectctl status --json >status.json &&
	json_has status.json database scheduler_running requests_active \
		builds runs samples agents requests tracked &&
	test "$(json_get status.json "d[\"agents\"][0][\"name\"]")" = local &&
	test "$(json_get status.json "[r[\"id\"] for r in d[\"requests\"]] == [$id]")" = True &&
	test "$(json_get status.json "d[\"requests\"][0][\"bisection\"][\"status\"]")" = "$status" &&
	test "$(json_get status.json "d[\"requests\"][0][\"bisection\"][\"culprit\"]")" = \
		"$(json_get bisect.json "d.get(\"culprit\")")" &&
	test "$(json_get status.json "d[\"samples\"] > 0")" = True
'

test_expect_success 'status text names the verdict and the culprit of a concluded bisection' '
	read id status <result &&
	bisectctl status >status.out &&
	culprit=$(json_get bisect.json "d.get(\"culprit\") or \"\"") &&
	if test -n "$culprit"; then
		grep -q "^        $status, culprit $(echo "$culprit" | cut -c1-10)$" status.out
	else
		grep -q "^        $status$" status.out
	fi
'

test_expect_success 'log --json has the steps the text log replays' '
	read id status <result &&
	bisectctl log "$id" >log.out &&
	bisectctl log "$id" --json >log.json &&
	bisectctl log --json "$id" >log2.json &&
	cmp log.json log2.json &&
	grep "^git bisect \(good\|bad\|skip\) " log.out | cut -d" " -f3,4 >text.steps &&
	json_get log.json "\"\\n\".join(s[\"verdict\"] + \" \" + s[\"commit\"] for s in d[\"steps\"])" >json.steps &&
	test -s text.steps &&
	test_cmp_lines json.steps text.steps &&
	test "$(json_get log.json "d[\"first_bad\"]")" = \
		"$(json_get bisect.json "d.get(\"culprit\")")"
'

test_expect_success 'agents --json lists each agent with its state' '
	bisectctl agents --json >agents.json &&
	test "$(json_get agents.json "[a[\"name\"] for a in d] == [\"local\"]")" = True &&
	test "$(json_get agents.json "d[0][\"transport\"]")" = local &&
	test "$(json_get agents.json "d[0][\"state\"]")" = up
'

test_expect_success 'show --json carries the request and the bisection result' '
	read id status <result &&
	bisectctl show "$id" --json >show.json &&
	test "$(json_get show.json "d[\"kind\"]")" = bisect &&
	test "$(json_get show.json "d[\"bisection\"][\"result\"] == json.load(open(\"bisect.json\"))")" = True
'

test_expect_success 'show --run --json: the run, its environment and samples' '
	run=$(db_query "SELECT max(id) FROM runs WHERE status = \"done\"") &&
	bisectctl show --run "$run" --json >run.json &&
	json_has run.json id status job repo commit seq agent attempts \
		environment samples boot_id &&
	test "$(json_get run.json "d[\"status\"]")" = done &&
	test "$(json_get run.json "\"microbench.score\" in d[\"samples\"]")" = True &&
	test "$(json_get run.json "d[\"environment\"][\"testcase\"]")" = microbench
'

test_expect_success 'report --json: the headline and the text report' '
	read id status <result &&
	bisectctl report "$id" >report.txt &&
	bisectctl report "$id" --json >report.json &&
	test "$(json_get report.json "d[\"headline\"]")" = "$(head -n 1 report.txt)" &&
	test "$(json_get report.json "d[\"text\"] == open(\"report.txt\").read()")" = True
'

test_expect_success 'compare --wait --json: the rows of the table, with their tests' '
	bisectctl compare master~20 master job.yaml --wait >cmp.txt &&
	bisectctl compare master~20 master job.yaml --wait --json >cmp.json &&
	json_has cmp.json request drift comparisons &&
	t="d[\"comparisons\"][0][\"table\"]" &&
	test "$(json_get cmp.json "$t[\"rows\"][0][\"metric\"]")" = microbench.score &&
	test "$(json_get cmp.json "$t[\"rows\"][0][\"headline\"]")" = True &&
	json_get cmp.json "1 if $t[\"rows\"][0][\"change_pct\"] < -5 else 0" | grep -qx 1 &&
	test "$(json_get cmp.json "len($t[\"rows\"])")" = "$(grep -c "±" cmp.txt)" &&
	json_get cmp.json "1 if $t[\"tested\"] > 10 and $t[\"fdr\"] == 0.05 else 0" | grep -qx 1 &&
	bisectctl compare master~20 master job.yaml --wait --json --all >all.json &&
	shown=$(json_get cmp.json "len($t[\"rows\"])") &&
	json_get all.json "1 if len($t[\"rows\"]) > $shown else 0" | grep -qx 1 &&
	json_get all.json "1 if all(\"q_value\" in r for r in d[\"comparisons\"][0][\"table\"][\"rows\"]) else 0" | grep -qx 1
'

test_expect_success 'queue --json, with and without --wait' '
	bisectctl queue job.yaml --commit master~2 --json >q.json &&
	json_has q.json request jobs &&
	test "$(json_get q.json "len(d[\"jobs\"])")" = 1 &&
	bisectctl queue job.yaml --commit master~2 --wait --json >qw.json &&
	json_has qw.json request drift comparisons
'

test_expect_success 'a bad use of --json is still a usage error' '
	test_expect_code 2 bisectctl log --json 2>err &&
	grep -q "^usage: bisectctl" err &&
	test_expect_code 2 bisectctl report 1 --json --email 2>err
'

test_done
