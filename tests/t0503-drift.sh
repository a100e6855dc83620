#!/bin/sh
# Drift (seed 000): runs at two commits whose machine had a different THP
# setting. `bisectctl compare` refuses to compare them and says where
# they differ; with --allow-drift it compares them with the difference at
# the very top; a job that sets the knob itself makes both sides agree;
# and a bisection between those two ends stops before it spends a run.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

MACHINE=$BISECTD_SRC/tests/fixture-machine.sh
THP=sys/kernel/mm/transparent_hugepage

abbrev() {
	echo "$1" | cut -c1-10
}

test_expect_success 'setup: a repository, ivb44, runs at good under THP madvise' '
	setup_bench --commits 12 --culprit 8 --change -10 --noise 0.5 &&
	sh "$MACHINE" ivb44 m &&
	good=$(commit_oid "commit 2") && bad=$(commit_oid "commit 11") &&
	echo "$good" >good && echo "$bad" >bad &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job.yaml --commit "$good" \
		--wait >q1.out 2>q1.err &&
	test "$(sample_count "$good" microbench.score)" = 3
'

test_expect_success 'the machine changes: runs at bad under THP never' '
	echo "always madvise [never]" >m/$THP/enabled &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job.yaml --commit "$(cat bad)" \
		--wait >q2.out 2>q2.err &&
	test "$(sample_count "$(cat bad)" microbench.score)" = 3 &&
	db_query "SELECT DISTINCT e.value FROM run_env e JOIN runs r ON e.run = r.id
		WHERE e.key = '"'"'thp_enabled'"'"' ORDER BY 1" >thp &&
	printf "madvise\nnever\n" >want &&
	test_cmp_lines thp want
'

test_expect_success 'compare refuses, naming the difference and where' '
	good=$(cat good) && bad=$(cat bad) &&
	runs=$(db_query "SELECT count(*) FROM runs") &&
	test_expect_code 1 bisectctl compare "$good" "$bad" job.yaml --wait \
		>cmp.out 2>cmp.err &&
	cat cmp.err &&
	test ! -s cmp.out &&
	grep "^error: refusing to compare: the runs did not run in the same environment" cmp.err &&
	grep "^    thp_enabled: madvise at $(abbrev $good) (3 runs) | never at $(abbrev $bad) (3 runs)$" cmp.err &&
	grep -- "--allow-drift" cmp.err &&
	test "$(db_query "SELECT count(*) FROM runs")" = "$runs"
'

test_expect_success 'compare --allow-drift flags it at the very top' '
	good=$(cat good) && bad=$(cat bad) &&
	bisectctl compare "$good" "$bad" job.yaml --wait --allow-drift \
		>cmp2.out 2>cmp2.err &&
	cat cmp2.out &&
	head -n 1 cmp2.out | grep "^WARNING: ENVIRONMENT DRIFT" &&
	sed -n 2,6p cmp2.out | grep "thp_enabled: madvise at $(abbrev $good) (3 runs) | never at $(abbrev $bad) (3 runs)" &&
	grep "microbench.score$" cmp2.out | grep -- "-[0-9.]*%"
'

test_expect_success 'a job that sets the knob itself: both sides agree' '
	good=$(cat good) && bad=$(cat bad) &&
	{ cat job.yaml && echo "thp_enabled: never"; } >job-thp.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl compare "$good" "$bad" \
		job-thp.yaml --wait >cmp3.out 2>cmp3.err &&
	! grep "DRIFT" cmp3.out &&
	grep "microbench.score$" cmp3.out &&
	test "$(db_query "SELECT count(DISTINCT e.value) FROM run_env e JOIN runs r
		ON e.run = r.id JOIN jobs j ON r.job = j.id WHERE e.key =
		'"'"'thp_enabled'"'"' AND j.canonical LIKE '"'"'%thp_enabled%'"'"'")" = 1
'

test_expect_success 'a noted difference (another host) does not stop a compare' '
	good=$(cat good) && bad=$(cat bad) &&
	{ cat job-thp.yaml && echo "variant: host"; } >job-host.yaml &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-host.yaml \
		--commit "$good" --wait >q3.out 2>q3.err &&
	echo ivb45 >m/proc/sys/kernel/hostname &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl compare "$good" "$bad" \
		job-host.yaml --wait >cmp4.out 2>cmp4.err &&
	cat cmp4.out &&
	head -n 1 cmp4.out | grep "^note: the runs differ in keys that do not change" &&
	grep "hostname: ivb44 at $(abbrev $good) (3 runs) | ivb45 at $(abbrev $bad) (3 runs) (noted only)" cmp4.out &&
	grep "microbench.score$" cmp4.out &&
	echo ivb44 >m/proc/sys/kernel/hostname
'

test_expect_success 'a bisection between ends that drifted says so before another run' '
	good=$(cat good) && bad=$(cat bad) &&
	runs=$(db_query "SELECT count(*) FROM runs") &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl bisect job.yaml --good "$good" \
		--bad "$bad" --wait --json >bisect.json 2>bisect.err
	cat bisect.json bisect.err &&
	test "$(json_get bisect.json "d[\"status\"]")" = failed &&
	json_get bisect.json "d[\"error\"]" >why &&
	grep "did not run in the same environment" why &&
	grep "thp_enabled: madvise at good $(abbrev $good) (3 runs) | never at bad $(abbrev $bad) (3 runs)" why &&
	test "$(db_query "SELECT count(*) FROM runs")" = "$runs"
'

test_done
