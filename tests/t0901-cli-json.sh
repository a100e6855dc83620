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

test_expect_success 'a bad use of --json is still a usage error' '
	test_expect_code 2 bisectctl log --json 2>err &&
	grep -q "^usage: bisectctl" err
'

test_done
