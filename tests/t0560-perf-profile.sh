#!/bin/sh
# The perf-profile monitor end to end on the local agent: a bisection
# over a small C benchmark where one commit adds a hot function
# (checksum_slowly) to its loop; the score is per second of its own CPU
# time, so that other load on the machine moves it little. The culprit's report must name that
# function among the perf-profile rows that moved, under their own
# heading; the run keeps its perf.data, which show --run names and perf
# can read; the environment says which event sampled; the job's options
# are checked before the job is queued.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-report.sh"

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}

# bench_commit N [hot]: commit N of the benchmark, with the hot function
# called in its loop when "hot".
bench_commit() {
	cat >repo/bench.c <<-EOF
	#include <stdio.h>
	#include <time.h>
	volatile unsigned long sink;
	__attribute__((noinline)) unsigned long
	mix_words(unsigned long n)
	{
		unsigned long i, s = 1;
		for (i = 0; i < n; i++)
			s = s * 6364136223846793005UL + i;
		return s;
	}
	__attribute__((noinline)) unsigned long
	checksum_slowly(unsigned long n)
	{
		unsigned long i, s = 0;
		for (i = 0; i < n; i++)
			s += (s >> 7) ^ (i * 31);
		return s;
	}
	int
	main(void)
	{
		struct timespec a, b;
		int k;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		for (k = 0; k < 40; k++) {
			sink += mix_words(25000000);
			$(test "${2:-}" = hot && echo 'sink += checksum_slowly(25000000);')
		}
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		printf("score: %.0f\\n", 40 / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9));
		return 0;
	}
	EOF
	echo "$1" >repo/version &&
	git -C repo add bench.c version && test_tick &&
	git -C repo commit -q -m "commit $1${2:+ (culprit)}"
}

test_expect_success 'setup' '
	command -v perf >/dev/null || { echo "no perf: sh tools/install-deps check"; false; } &&
	git init -q repo &&
	bench_commit 1 && bench_commit 2 && bench_commit 3 &&
	bench_commit 4 hot &&
	echo 5 >repo/version && git -C repo commit -qam "commit 5" &&
	echo 6 >repo/version && git -C repo commit -qam "commit 6" &&
	cat >bisectd.yaml <<-\EOF &&
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: cc -O1 -fno-omit-frame-pointer -o bench bench.c
	      artifacts: [bench]
	EOF
	cat >job.yaml <<-\EOF
	testcase: hotbench
	run: ./bench
	runs: 3
	disturbed: keep
	metric: hotbench.score
	direction: higher
	monitors: [perf-profile]
	perf-profile:
	  freq: 400
	EOF
'

test_expect_success 'options: a value out of range and an unknown option are refused' '
	sed "s/freq: 400/freq: 0/" job.yaml >badfreq.yaml &&
	! bisectctl check badfreq.yaml >out 2>err && cat err &&
	grep "perf-profile.freq. must be a whole number from 1 to 100000, not .0." err &&
	sed "s/freq: 400/frequency: 400/" job.yaml >badopt.yaml &&
	! bisectctl check badopt.yaml >out 2>err && cat err &&
	grep "monitor .perf-profile. has no option .frequency. (it has freq, delay)" err &&
	bisectctl check job.yaml
'

test_expect_success 'bisect names the commit that added the hot function' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" --bad master \
		--wait --json >out.json 2>progress || { cat out.json progress; false; } &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"subject\"]")" = "commit 4 (culprit)"
'

test_expect_success 'the report names it among the perf-profile rows that moved' '
	bisectctl report "$(json_get out.json "d[\"id\"]")" >report.txt &&
	report_section report.txt "perf-profile (the rows that moved most, in points of the samples):" >profile &&
	cat profile &&
	grep -E "^ +[0-9.]+ +[+][0-9.]+ +[0-9.]+ ±[ 0-9]+%  perf-profile.self.cycles-pp.checksum_slowly$" profile &&
	grep -E " [+][0-9.]+ .* perf-profile.children.cycles-pp.checksum_slowly$" profile &&
	grep -E " [+][0-9.]+ .* perf-profile.calltrace.cycles-pp.checksum_slowly[.]" profile &&
	grep "perf-profile rows compared" profile &&
	awk "/perf-profile \\(the rows/ { p = NR } /^bisection log/ { b = NR }
		END { exit !(p && b && p < b) }" report.txt
'

test_expect_success 'the compare table has the rows too, their change in points' '
	grep -E " [+][0-9.]+ +[0-9.]+ ±[ 0-9?]+%  perf-profile.self.cycles-pp.checksum_slowly$" report.txt |
		grep -v "%  *[0-9.]* ±" | head -1 | grep -v "+[0-9.]*%"
'

test_expect_success 'the run keeps perf.data; show --run names it and perf reads it' '
	run=$(db_query "SELECT max(id) FROM runs WHERE status = '\''done'\''") &&
	bisectctl show --run "$run" >show &&
	path=$(sed -n "s/^perf profile: \\([^ ]*\\) (perf report -i .*)$/\\1/p" show) &&
	test -s "$path" &&
	bisectctl show --run "$run" --json >show.json &&
	test "$(json_get show.json "d[\"perf_profile\"]")" = "$path" &&
	perf report -i "$path" --stdio --sort symbol 2>/dev/null | grep -q "# Samples"
'

test_expect_success 'the environment says which event sampled' '
	r=$(dirname "$(sed -n "s/^perf profile: \\([^ ]*\\) .*/\\1/p" show)")/result &&
	env_of monitors "$r" | grep -w perf-profile &&
	if perf stat -x, -e cycles -- true 2>&1 | grep -q "<not"; then
		test "$(env_of perf_profile_event "$r")" = cpu-clock
	else
		test "$(env_of perf_profile_event "$r")" = cycles
	fi
'

# A testcase that ends before perf-profile's delay: perf record is told
# nothing and may still be starting when the run stops; it is asked to
# answer first (a SIGINT before its handler is set left no perf.data:
# "perf report failed: failed to open ...perf-profile.data", 10 of 10
# runs under a load of 6 to 9), and the run records that no profile was
# taken rather than failing.
test_expect_success 'a testcase shorter than the delay: no profile, said, no error' '
	printf "testcase: t\nrun: \"echo t: 1\"\nmonitors: []\nperf-profile:\n  delay: 1\n" >short.yaml &&
	for i in 1 2 3; do
		rm -rf w res && mkdir w &&
		bisect-agent run --workdir w short.yaml res &&
		! grep "^error" res/result &&
		test "$(env_of perf_profile_not_started res/result)" = "the testcase ended before its delay (1s)" || return 1
	done
'

test_done
