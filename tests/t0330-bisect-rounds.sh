#!/bin/sh
# A bisection with one local agent of 3 slots (issue 13): it names the
# culprit, its steps test 3 commits at once, their runs overlap in time,
# it takes fewer steps than the same bisection with one slot, and it
# builds commits ahead of the runs that want them (speculative builds).
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

# config_slots N: bisectd.yaml with the local agent of N slots. The build
# lists the commit's files into its image, so that every commit's image
# is its own and the driver must run them to tell them apart.
config_slots() {
	cat >bisectd.yaml <<-EOF
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: test ! -e broken && ls changes >tree
	      artifacts: [bench.sh, speed, noise, tree]
	agents:
	  - name: local
	    transport: local
	    slots: $1
	EOF
}

# Each run lasts a quarter of a second (the benchmark's own duration),
# so that runs dispatched together are seen running together.
test_expect_success 'setup' '
	setup_bench --commits 200 --culprit 137 --change -5 &&
	config_slots 3 &&
	sed -i "s/^run: .*/run: sleep 0.25 \\&\\& sh bench.sh/" job.yaml &&
	grep -q "^run: sleep 0.25 && sh bench.sh" job.yaml
'

test_expect_success 'three slots: the culprit is found' '
	good=$(commit_oid "commit 1") &&
	bisectctl bisect job.yaml --good "$good" --bad master --wait --json \
		>out3.json 2>progress3 &&
	test "$(json_get out3.json "d[\"status\"]")" = found &&
	test "$(json_get out3.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_expect_success 'a step tests three commits at once' '
	grep -E "testing [0-9a-f]{7} \([0-9]+ runs\), [0-9a-f]{7} \([0-9]+ runs\), [0-9a-f]{7} \([0-9]+ runs\)" \
		progress3
'

test_expect_success 'runs of different commits overlapped in time' '
	n=$(db_query "SELECT count(*) FROM runs a JOIN runs b
		ON a.id < b.id AND a.commit_oid != b.commit_oid
		WHERE a.status = '\''done'\'' AND b.status = '\''done'\''
		AND a.started_wall < b.ended_wall
		AND b.started_wall < a.ended_wall") &&
	echo "# $n pairs of runs of different commits overlapped" &&
	test "$n" -gt 0
'

test_expect_success 'commits were built ahead of their runs' '
	db_query "SELECT count(*) FROM builds" >builds3 &&
	db_query "SELECT count(DISTINCT commit_oid) FROM runs" >ran3 &&
	test "$(cat builds3)" -gt "$(cat ran3)"
'

test_expect_success 'one slot: more steps for the same culprit' '
	rm -rf state && config_slots 1 &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out1.json 2>progress1 &&
	test "$(json_get out1.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	s1=$(grep -c "^bisect: " progress1) &&
	s3=$(grep -c "^bisect: " progress3) &&
	echo "# steps: $s1 with 1 slot, $s3 with 3" &&
	test "$s3" -lt "$s1"
'

test_done
