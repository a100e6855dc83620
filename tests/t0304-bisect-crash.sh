#!/bin/sh
# Crash safety: the process running a bisection is killed with SIGKILL at
# random moments, five times in a row, and the same command is rerun each
# time. It ends with the right culprit; every sample recorded before a
# kill is still there at the end, none is counted twice, and no run is
# left running.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

done_runs() {
	db_query "SELECT count(*) FROM runs WHERE status = 'done'" 2>/dev/null ||
		echo 0
}

reached() {
	test "$(done_runs)" -ge "$1" || ! kill -0 "$2" 2>/dev/null
}

test_expect_success 'setup' '
	setup_bench --commits 200 --culprit 120 --change -5 &&
	good=$(commit_oid "commit 1") &&
	echo "$good" >good
'

test_expect_success 'five kills at random moments' '
	good=$(cat good) &&
	for i in 1 2 3 4 5; do
		before=$(done_runs) &&
		step=$(od -An -N1 -tu1 /dev/urandom | tr -d " ") &&
		target=$((before + 1 + step % 6)) || return 1
		bisectctl bisect job.yaml --good "$good" --bad master --wait \
			--json >out.$i 2>err.$i &
		pid=$! &&
		test_wait_for 1200 reached "$target" "$pid" &&
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		db_query "SELECT run || \" \" || metric || \" \" || value FROM samples ORDER BY 1" >samples.$i &&
		echo "kill $i at $(done_runs) done runs (target $target)" || return 1
	done
'

test_expect_success 'the rerun concludes with the right culprit' '
	bisectctl bisect job.yaml --good "$(cat good)" --bad master --wait \
		--json >out.json 2>err.final &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_expect_success 'nothing recorded before a kill was lost' '
	db_query "SELECT run || \" \" || metric || \" \" || value FROM samples ORDER BY 1" >samples.final &&
	for i in 1 2 3 4 5; do
		test -z "$(comm -23 samples.$i samples.final)" || return 1
	done
'

test_expect_success 'nothing was counted twice and nothing is left running' '
	test "$(db_query "SELECT count(*) FROM (SELECT run, metric FROM samples GROUP BY run, metric HAVING count(*) > 1)")" = 0 &&
	test "$(db_query "SELECT count(*) FROM samples WHERE run NOT IN (SELECT id FROM runs WHERE status = \"done\")")" = 0 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = \"running\"")" = 0 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = \"done\" AND id NOT IN (SELECT run FROM samples WHERE metric = \"microbench.score\")")" = 0 &&
	test "$(json_get out.json "d[\"runs\"]")" = "$(done_runs)"
'

test_expect_success 'each rerun resumed the unfinished bisection' '
	grep -q "queued bisection 1" err.1 &&
	for i in 2 3 4 5; do
		grep -q "resuming bisection 1" err.$i ||
		test -s out.$((i - 1)) || return 1
	done &&
	bisectctl show 1 | grep -q "^bisection: found"
'

test_done
