#!/bin/sh
# Seed 002 end to end: "vm-scalability.throughput -61.3%" was 32 processes
# becoming fairer. A repository whose benchmark replays the per-process
# rates of that report (the parent's, then the commit's, with 1% noise)
# as instances; `bisectctl compare` must show both at a glance: the
# aggregate's drop in the table and, in the spread section, that the
# instances became much fairer, with Jain's index as computed here.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

# KB/s of the 32 processes, from the thread (parent, then ac5b2c1891).
PARENT="1819435 1732205 558694 454652 285596 214885 164273 163274 160658
147323 134857 132052 126428 125647 119965 119241 118317 117959 116847
117153 116361 116257 116145 115963 114118 114001 113992 113726 113439
113101 112714 111328"
COMMIT="117806 111025 93291 92465 91827 92251 92709 92338 90401 91700 89944
87872 87710 86906 87530 86353 84985 86259 84704 84445 84698 84328 86374
84275 83412 83378 83362 83232 83108 82866 82824 82538"

sum() {
	echo "$1" | tr ' ' '\n' | awk 'NF { s += $1 } END { print s }'
}

jain() {
	echo "$1" | tr ' ' '\n' | awk 'NF { s += $1; q += $1 * $1; n++ }
		END { printf "%.3f\n", s * s / (n * q) }'
}

test_expect_success 'setup: a repository whose commit makes 32 processes fairer' '
	git init -q repo &&
	cat >repo/bench.sh <<-\EOF &&
	#!/bin/sh
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d " ")
	tr " " "\n" <data | awk -v seed="$seed" "BEGIN { srand(seed) }
		NF { printf \"throughput.%d: %.0f\\n\", n++, \$1 * (1 + 0.01 * (rand() - 0.5)) }"
	EOF
	echo $PARENT >repo/data &&
	git -C repo add bench.sh data &&
	test_tick && git -C repo commit -q -m "parent" &&
	echo $COMMIT >repo/data &&
	git -C repo commit -q -a -m "mm: thp: relax __GFP_THISNODE" &&
	cat >bisectd.yaml <<-\EOF &&
	repos:
	  - name: mm
	    path: repo
	    build:
	      command: "true"
	      artifacts: [bench.sh, data]
	EOF
	cat >job.yaml <<-\EOF
	testcase: vm-scalability
	run: sh bench.sh
	runs: 3
	metric: vm-scalability.throughput
	monitors: []
	EOF
'

test_expect_success 'the runs keep every process as an instance' '
	bisectctl compare master~1 master job.yaml --wait >cmp.out 2>cmp.err &&
	cat cmp.out &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric =
		'"'"'vm-scalability.throughput'"'"' AND instances IS NOT NULL")" = 6 &&
	db_query "SELECT instances FROM samples WHERE metric =
		'"'"'vm-scalability.throughput'"'"' LIMIT 1" |
		"$PYTHON3" -c "import json, sys; assert len(json.load(sys.stdin)) == 32"
'

test_expect_success 'the table shows the aggregate dropping' '
	grep "vm-scalability.throughput$" cmp.out >row &&
	change=$(awk "{ for (i = 1; i <= NF; i++) if (\$i ~ /%\$/ && \$i ~ /^[-+]/) print \$i }" row) &&
	echo "change: $change" &&
	want=$(awk -v s="$(sum "$PARENT")" -v t="$(sum "$COMMIT")" \
		"BEGIN { printf \"%.1f\", 100 * (t - s) / s }") &&
	echo "want about: $want%" &&
	awk -v c="${change%\%}" -v w="$want" "BEGIN { exit !(c < 0 && c - w < 2 && w - c < 2) }"
'

test_expect_success 'and the spread section says the instances became much fairer' '
	sed -n "/^per-instance spread/,\$p" cmp.out >spread &&
	grep "^  vm-scalability.throughput: 32 instances per run, 3 runs -> 3 runs$" spread &&
	grep "=> aggregate -[0-9.]*% (regression), the instances became much fairer (Jain.s index" spread &&
	ja=$(jain "$PARENT") && jb=$(jain "$COMMIT") &&
	echo "Jain computed here: $ja -> $jb" &&
	got=$(sed -n "s/.*Jain.s index \([0-9.]*\) -> \([0-9.]*\).*/\1 \2/p" spread) &&
	echo "Jain reported: $got" &&
	set -- $got &&
	awk -v a="$1" -v b="$2" -v ea="$ja" -v eb="$jb" "BEGIN {
		exit !(a - ea < 0.01 && ea - a < 0.01 && b - eb < 0.01 && eb - b < 0.01) }" &&
	grep "^    $(git -C repo rev-parse --short=10 master~1) " spread &&
	! grep "^  interrupts\|^  proc-stat" spread
'

test_expect_success 'the bisection headline says the instances became fairer' '
	bisectctl bisect job.yaml --good master~1 --bad master --wait --json \
		>bisect.json 2>bisect.err &&
	test "$(json_get bisect.json "d[\"status\"]")" = found &&
	id=$(json_get bisect.json "d[\"id\"]") &&
	bisectctl report "$id" >report.txt &&
	head -n 1 report.txt >headline &&
	cat headline &&
	grep -q "^commit $(git -C repo rev-parse --short=10 master): -[0-9.]*% vm-scalability.throughput regression (instances fairer: Jain 0\.[0-9][0-9] → 0\.9[0-9])$" headline &&
	grep -q "likely a fairness improvement" report.txt &&
	test "$(json_get bisect.json "d[\"fairness\"][\"verdict\"]")" = fairer &&
	test "$(json_get bisect.json "d[\"fairness\"][\"instances\"]")" = 32 &&
	test "$(json_get bisect.json "d[\"fairness\"][\"likely_fairness_improvement\"]")" = True &&
	json_get bisect.json "1 if d[\"fairness\"][\"jain_culprit\"] > 0.9 > 0.4 > d[\"fairness\"][\"jain_parent\"] else 0" | grep -qx 1 &&
	json_get bisect.json "1 if d[\"fairness\"][\"p_value\"] < 0.05 else 0" | grep -qx 1
'

test_expect_success 'a change that leaves fairness alone says so' '
	sed -i "s/^monitors: \[\]$/monitors: []\nvariant: same/" job.yaml &&
	git -C repo checkout -q master~1 &&
	echo $PARENT | awk "{ for (i = 1; i <= NF; i++) printf \"%d \", \$i * 0.9 }" >repo/data &&
	git -C repo commit -q -a -m "everything 10% slower" &&
	git -C repo branch -q slower &&
	git -C repo checkout -q master &&
	bisectctl compare master~1 slower job.yaml --wait >cmp2.out 2>cmp2.err &&
	grep "=> aggregate -[0-9.]*% (regression), fairness unchanged (Jain.s index" cmp2.out
'

test_done
