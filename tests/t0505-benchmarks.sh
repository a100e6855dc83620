#!/bin/sh
# The testcase adapters: first on outputs captured from the real programs
# (tests/fixtures/bench-output), through stand-ins in PATH that print
# them and record their arguments; then dbench, stress-ng, hackbench and
# the vm-scalability-style test for real on the local agent, through
# bisectctl, with their metrics stored. Runs are a few seconds each.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
OUT=$BISECTD_SRC/tests/fixtures/bench-output

metric() {
	awk -v k="metric $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}
# An awk expression over two numbers is true.
check() {
	awk -v a="$1" -v b="$2" "BEGIN { exit !($3) }"
}
# The value of "KEY: VALUE" for a stressor in stress-ng's YAML.
yaml_field() {
	awk -v s="$2" -v k="$3" '$1 == "-" && $2 == "stressor:" { cur = $3 }
		cur == s && $1 == k ":" { print $2 }' "$1"
}

test_expect_success 'setup: stand-ins that print captured outputs' '
	mkdir fake &&
	cat >fake/dbench <<-EOF &&
	#!/bin/sh
	echo "\$@" >"$TRASH/dbench.args"
	cat "$OUT/dbench.log"
	EOF
	cat >fake/stress-ng <<-EOF &&
	#!/bin/sh
	echo "\$@" >"$TRASH/stress-ng.args"
	while [ \$# -gt 0 ]; do
		if [ "\$1" = --yaml ] && [ -z "\${NO_YAML:-}" ]; then
			cp "$OUT/stress-ng.yaml" "\$2"
		fi
		shift
	done
	cat "$OUT/stress-ng.log"
	EOF
	cat >fake/hackbench <<-EOF &&
	#!/bin/sh
	echo "\$@" >>"$TRASH/hackbench.args"
	cat "$OUT/hackbench.log"
	EOF
	chmod +x fake/* &&
	mkdir work
'

test_expect_success 'dbench: its arguments and its summary line' '
	printf "testcase: dbench\nnr_threads: 2\nruntime: 5s\nmonitors: []\n" >d.yaml &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work d.yaml res-d &&
	! grep "^error" res-d/result &&
	case "$(cat dbench.args)" in
	"-t 5 -D $TRASH/work/dbench -c /usr/share/dbench/client.txt 2"|\
	"-t 5 -D $TRASH/work/dbench 2") ;;
	*) echo "args: $(cat dbench.args)"; false ;;
	esac &&
	want=$(sed -n "s/^Throughput \([0-9.]*\) MB.sec.*/\1/p" "$OUT/dbench.log") &&
	test "$(metric dbench.throughput-MB/sec res-d/result)" = "$want" &&
	lat=$(sed -n "s/.*max_latency=\([0-9.]*\) ms.*/\1/p" "$OUT/dbench.log") &&
	test "$(metric dbench.max_latency res-d/result)" = "$lat" &&
	grep "^throughput-MB/sec: " res-d/stats.log &&
	! grep "^metric dbench.Time\|^metric dbench.NTCreateX" res-d/result
'

test_expect_success 'stress-ng: its YAML metrics, else its table' '
	printf "testcase: stress-ng\ntest: cpu\nnr_threads: 1\nruntime: 2s\nmonitors: []\n" >s.yaml &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work s.yaml res-s &&
	! grep "^error" res-s/result &&
	grep -- "^--cpu 1 --timeout 2s --temp-path $TRASH/work --metrics-brief --yaml $TRASH/res-s/stress-ng.yaml$" stress-ng.args &&
	for s in cpu vm; do
		check "$(metric stress-ng.$s.ops_per_sec res-s/result)" \
			"$(yaml_field "$OUT/stress-ng.yaml" $s bogo-ops-per-second-real-time)" \
			"a == b" &&
		check "$(metric stress-ng.$s.ops res-s/result)" \
			"$(yaml_field "$OUT/stress-ng.yaml" $s bogo-ops)" "a == b" ||
		return 1
	done &&
	NO_YAML=1 PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work s.yaml res-s2 &&
	! grep "^error" res-s2/result &&
	rate=$(awk "/ cpu / && /metrc:/ { print \$(NF - 1) }" "$OUT/stress-ng.log") &&
	check "$(metric stress-ng.cpu.ops_per_sec res-s2/result)" "$rate" "a == b"
'

test_expect_success 'hackbench: LKP arguments and throughput at the best iteration' '
	printf "testcase: hackbench\nnr_threads: 2\nloops: 200\nmode: threads\nipc: pipe\niterations: 2\nmonitors: []\n" >h.yaml &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work h.yaml res-h &&
	! grep "^error" res-h/result &&
	test "$(sort -u hackbench.args)" = "-g 2 -f 20 -s 100 -l 200 -T -p" &&
	test "$(wc -l <hackbench.args)" = 2 &&
	want=$(awk "/tasks\\)/ { t = \$(NF - 1); sub(/\\(/, \"\", t) }
		/Each sender/ { m = \$5; b = \$8 }
		/^Time:/ { kb = t * m * b / 1024; if (!best || \$2 < best) best = \$2 }
		END { printf \"%.6f\", kb / best }" "$OUT/hackbench.log") &&
	check "$(metric hackbench.throughput res-h/result)" "$want" \
		"a - b < 1e-3 && b - a < 1e-3" &&
	grep -q "^metric hackbench.throughput_avg " res-h/result &&
	grep -q "^metric hackbench.throughput_worst " res-h/result
'

test_expect_success 'hackbench: without loops, 30000 * nr_cpu / nr_threads, as LKP' '
	: >hackbench.args &&
	printf "testcase: hackbench\nnr_threads: 4\nmonitors: []\n" >h2.yaml &&
	PATH=$TRASH/fake:$PATH "$AGENT" run --workdir work h2.yaml res-h2 &&
	test "$(cat hackbench.args)" = "-g 4 -f 20 -s 100 -l $((30000 * $(nproc) / 4))"
'

test_expect_success 'bad parameters and a missing program are errors of the run' '
	printf "testcase: dbench\nnr_threads: lots\n" >bad.yaml &&
	"$AGENT" run bad.yaml res-bad &&
	grep "^error testcase .dbench.: .nr_threads. must be a count or a percentage" res-bad/result &&
	printf "testcase: stress-ng\ntest: \"--help\"\n" >bad2.yaml &&
	"$AGENT" run bad2.yaml res-bad2 &&
	grep "^error testcase .stress-ng.: .test. must be a stress-ng stressor name" res-bad2/result &&
	printf "testcase: hackbench\nmode: turbo\n" >bad3.yaml &&
	"$AGENT" run bad3.yaml res-bad3 &&
	grep "^error testcase .hackbench.: .mode. must be one of process, threads, thread, not .turbo.$" res-bad3/result &&
	printf "testcase: dbench\nruntime: 1s\n" >d1.yaml &&
	PATH=/nonexistent "$AGENT" run d1.yaml res-nodb &&
	grep "^error testcase .dbench. needs .dbench., which is not installed (Debian package dbench)$" res-nodb/result &&
	grep "^exit_status -1$" res-nodb/result
'

test_expect_success 'setup: a repository and the real programs' '
	for p in dbench stress-ng hackbench; do
		command -v $p || { echo "missing $p: sh tools/install-deps check"; return 1; }
	done &&
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	cat >bisectd.yaml <<-\EOF
	repos:
	  - name: r
	    path: repo
	EOF
'

stored() {
	db_query "SELECT s.value FROM samples s JOIN runs r ON s.run = r.id
		JOIN jobs j ON r.job = j.id WHERE j.testcase = '$1' AND
		s.metric = '$2'"
}

test_expect_success 'dbench on the local agent: stored' '
	printf "testcase: dbench\nnr_threads: 2\nruntime: 2s\nruns: 1\n" >real-d.yaml &&
	bisectctl queue real-d.yaml --wait >q.out 2>q.err &&
	v=$(stored dbench dbench.throughput-MB/sec) && echo "dbench: $v MB/sec" &&
	check "$v" 0 "a > 0" &&
	check "$(stored dbench dbench.max_latency)" 0 "a > 0" &&
	check "$(stored dbench proc-vmstat.pgfault)" 0 "a >= 0" &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '"'"'done'"'"'")" = 1
'

test_expect_success 'stress-ng on the local agent: stored' '
	printf "testcase: stress-ng\ntest: cpu\nnr_threads: 1\nruntime: 2s\nruns: 1\n" >real-s.yaml &&
	bisectctl queue real-s.yaml --wait >q.out 2>q.err &&
	v=$(stored stress-ng stress-ng.cpu.ops_per_sec) &&
	echo "stress-ng cpu: $v bogo ops/s" &&
	check "$v" 0 "a > 0" &&
	check "$(stored stress-ng stress-ng.cpu.ops)" 0 "a > 0"
'

test_expect_success 'hackbench on the local agent: stored' '
	printf "testcase: hackbench\nnr_threads: 1\nloops: 200\nruns: 1\n" >real-h.yaml &&
	bisectctl queue real-h.yaml --wait >q.out 2>q.err &&
	v=$(stored hackbench hackbench.throughput) &&
	echo "hackbench: $v KiB/s" && check "$v" 0 "a > 0" &&
	w=$(stored hackbench hackbench.throughput_worst) &&
	check "$v" "$w" "a >= b && b > 0"
'

test_expect_success 'the vm-scalability-style test: one instance per process' '
	printf "testcase: vm-scalability\nnr_task: 2\nsize: 8M\nruntime: 1s\nruns: 1\n" >real-v.yaml &&
	bisectctl queue real-v.yaml --wait >q.out 2>q.err &&
	v=$(stored vm-scalability vm-scalability.throughput) &&
	echo "vm-scalability: $v KB/s" && check "$v" 0 "a > 0" &&
	db_query "SELECT instances FROM samples WHERE metric =
		'"'"'vm-scalability.throughput'"'"'" >inst &&
	"$PYTHON3" -c "import json, sys; v = json.load(open(\"inst\"));
assert len(v) == 2 and all(x > 0 for x in v), v
assert abs(sum(v) - $v) < 1e-6 * $v, (sum(v), $v)" &&
	grep "bytes / [0-9]* usecs = [0-9]* KB/s" state/runs/*/result/output.log 2>/dev/null ||
	grep -r "bytes / [0-9]* usecs = [0-9]* KB/s" state
'

# Queued without --wait: nothing runs them (the test ends here).
test_expect_success 'the library job files parse and expand' '
	for f in "$BISECTD_SRC"/jobs/library/*.yaml; do
		if ! bisectctl queue "$f" >ids 2>err; then
			# parsed, and refused for a requires: this machine misses
			grep -q "no agent can run it: agent .local.: .requires\." err ||
				{ cat err; return 1; }
			continue
		fi
		test -s ids || return 1
	done &&
	bisectctl queue "$BISECTD_SRC/jobs/library/hackbench.yaml" >ids &&
	test "$(grep -c "^job " ids)" = 8 &&
	bisectctl queue "$BISECTD_SRC/jobs/library/stress-ng.yaml" >ids &&
	test "$(grep -c "^job [0-9a-f]* stress-ng/test=" ids)" = 5
'

test_done
