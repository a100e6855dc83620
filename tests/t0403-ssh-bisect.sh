#!/bin/sh
# A bisection spread over three ssh agents (two slots each): it finds the
# culprit; every tested commit was measured on the same machines in the
# same shares (run k of every commit on the same agent), so no two commits
# are compared across machines unevenly; each agent kept one connection.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
for n in 1 2 3; do
	ssh_agent_start $n ed25519 || exit 1
done

test_expect_success 'setup' '
	setup_bench --commits 40 --culprit 23 --change -5 &&
	ssh_known_hosts 1 2 3 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519 "slots: 2" &&
		ssh_agent_config 2 id_ed25519 "slots: 2" &&
		ssh_agent_config 3 id_ed25519 "slots: 2"
	} >>bisectd.yaml
'

test_expect_success 'the bisection finds the culprit over three machines' '
	good=$(commit_oid "commit 1") &&
	bisectctl bisect job.yaml --good "$good" --bad master --wait --json \
		>out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_expect_success 'every agent took part, with one connection each' '
	for n in 1 2 3; do
		test "$(db_query "SELECT count(*) > 0 FROM runs
			WHERE agent = '\''a$n'\'' AND status = '\''done'\''")" = 1 &&
		test "$(ssh_logins $n)" = 1 || return 1
	done
'

test_expect_success 'run k of every commit ran on the same machine' '
	test "$(db_query "SELECT count(*) FROM (SELECT seq FROM runs
		WHERE status = '\''done'\'' GROUP BY seq
		HAVING count(DISTINCT agent) > 1)")" = 0
'

test_expect_success 'commits with the same number of samples have the same shares' '
	per_commit="SELECT commit_oid, count(*) AS n, group_concat(agent) AS
		agents FROM (SELECT commit_oid, agent FROM runs WHERE
		status = '\''done'\'' ORDER BY commit_oid, agent)
		GROUP BY commit_oid" &&
	db_query "$per_commit" >shares &&
	cat shares &&
	test "$(db_query "SELECT count(*) FROM (SELECT n FROM ($per_commit)
		GROUP BY n HAVING count(DISTINCT agents) > 1)")" = 0 &&
	test "$(db_query "SELECT count(*) FROM ($per_commit) WHERE n >= 3 AND
		NOT (agents LIKE '\''%a1%'\'' AND agents LIKE '\''%a2%'\''
		AND agents LIKE '\''%a3%'\'')")" = 0 &&
	test "$(db_query "SELECT count(*) FROM ($per_commit)")" -ge 2
'

test_expect_success 'every run recorded its machine'\''s boot and its times' '
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\''
		AND (boot_id IS NULL OR started_wall IS NULL OR
		ended_wall < started_wall)")" = 0 &&
	test "$(db_query "SELECT count(DISTINCT boot_id) FROM runs
		WHERE status = '\''done'\''")" = 3 &&
	test "$(db_query "SELECT count(*) FROM (SELECT agent FROM runs
		WHERE status = '\''done'\'' GROUP BY agent
		HAVING count(DISTINCT boot_id) = 1)")" = 3
'

test_expect_success 'the ends ran interleaved, each pair on one machine' '
	good=$(commit_oid "commit 1") &&
	bad=$(git -C repo rev-parse master) &&
	first="SELECT * FROM runs WHERE dispatch_key >> 20 =
		(SELECT min(dispatch_key >> 20) FROM runs)" &&
	ends="SELECT agent, commit_oid, (row_number() OVER (PARTITION BY agent
		ORDER BY dispatch_key) - 1) / 2 AS pair FROM ($first)
		WHERE commit_oid IN ('\''$good'\'', '\''$bad'\'')" &&
	test "$(db_query "SELECT count(DISTINCT commit_oid) FROM ($ends)")" = 2 &&
	test "$(db_query "SELECT count(*) FROM ($ends)")" -ge 6 &&
	test "$(db_query "SELECT count(*) FROM (SELECT pair FROM ($ends)
		GROUP BY agent, pair HAVING count(DISTINCT commit_oid) != 2)")" = 0
'

test_expect_success 'the culprit is compared with its parent within each machine' '
	culprit=$(culprit_runs_oid out.json) &&
	parent=$(json_get out.json "d.get(\"parent_sampled_at\", \"\")") &&
	if test -z "$parent"; then
		parent=$(git -C repo rev-parse "$(culprit_oid)^")
	fi &&
	both=$(db_query "SELECT count(*) FROM (SELECT agent FROM runs
		WHERE status = '\''done'\'' AND commit_oid IN ('\''$culprit'\'',
		'\''$parent'\'') GROUP BY agent
		HAVING count(DISTINCT commit_oid) = 2)") &&
	test "$both" -ge 2 &&
	test "$(json_get out.json "d[\"machines\"]")" = "$both" &&
	id=$(json_get out.json "d[\"id\"]") &&
	bisectctl report "$id" >report.txt &&
	grep -qx "(the runs were spread over $both test machines: changes and tests are within each machine)" report.txt &&
	change=$(json_get out.json "\"%+.1f%%\" % d[\"change_pct\"]") &&
	head -n 1 report.txt | grep -qF ": $change microbench.score" &&
	grep -E "^ +[0-9.]+ ± +[0-9]+% +[-+][0-9.]+% .* microbench.score$" report.txt |
		grep -qF " $change "
'

test_done
