#!/bin/sh
# The cost of the perf-profile monitor on a CPU-bound benchmark
# (docs/monitors.md): a single-threaded loop that prints its rate
# ("score", iterations per second of wall clock, the headline; and per
# second of its own CPU time), run by bisect-agent with "monitors: []"
# and with "monitors: [perf-profile]" at the default frequency, REPEAT
# pairs, each pair's order drawn at random (SEED), so that both sides see
# the same machine and neither always goes first. Each pair gives one
# difference, so that a load that drifts over minutes cancels; printed:
# each side's mean and CV, the mean paired overhead with its 95% interval
# (t) and the Wilcoxon signed-rank p, and the load average before and
# after. Where the CPU has a PMU (perf stat counts "cycles"), the spin
# also runs under perf stat: its cycles (what the samples cost it, not
# moved by other load) and instructions (the same work on both sides, a
# check). Instruction counts alone cannot show the overhead: the samples
# are taken in the kernel's timer interrupt, not by the benchmark's
# instructions, so callgrind (which counts only those) sees none of it.
# Target: 3% of the headline.
#
#   bench/perf-profile-overhead.sh [ITERATIONS]   (default 1000000000;
#                                                  REPEAT=30, FREQ=, SEED=)
set -eu
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
iters=${1:-1000000000}
repeat=${REPEAT:-30}
seed=${SEED:-$(date +%s)}
agent=$BISECTD_BUILD/bin/bisect-agent
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perf-profile-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "perf-profile-overhead: no perf (Debian package linux-perf)" >&2; exit 1; }
cat >"$tmp/spin.c" <<-\EOF
	#include <stdio.h>
	#include <stdlib.h>
	#include <time.h>
	volatile unsigned long sink;
	static double
	seconds(clockid_t c)
	{
		struct timespec t;
		clock_gettime(c, &t);
		return t.tv_sec + t.tv_nsec / 1e9;
	}
	int
	main(int argc, char **argv)
	{
		unsigned long n = strtoul(argv[1], NULL, 10), i, s = 1;
		double w = seconds(CLOCK_MONOTONIC);
		double c = seconds(CLOCK_PROCESS_CPUTIME_ID);
		for (i = 0; i < n; i++)
			s = s * 6364136223846793005UL + i;
		sink = s;
		w = seconds(CLOCK_MONOTONIC) - w;
		c = seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
		printf("score: %.0f\ncpu_score: %.0f\n", n / w, n / c);
		return 0;
	}
EOF
cc -O1 -fno-omit-frame-pointer -o "$tmp/spin" "$tmp/spin.c"
# the PMU: cycles and instructions of the spin itself, where they count
pmu=
if perf stat -x, -e cycles,instructions -- true 2>&1 >/dev/null |
    grep -q "^[0-9][0-9]*,.*cycles"; then
	pmu=1
	runcmd="perf stat -x, -e cycles,instructions -o $tmp/stat -- $tmp/spin $iters"
else
	runcmd="$tmp/spin $iters"
fi
printf 'testcase: spin\nrun: "%s"\nmonitors: []\n' "$runcmd" >"$tmp/none.yaml"
printf 'testcase: spin\nrun: "%s"\nmonitors: [perf-profile]\n%s' "$runcmd" \
	"${FREQ:+perf-profile:
  freq: $FREQ
}" >"$tmp/profile.yaml"

# run JOB: "score cpu_score cycles instructions" of one run; 1 when the
# run failed (its error goes to the errors file, the pair is dropped).
run() {
	rm -rf "$tmp/res" "$tmp/stat" && mkdir "$tmp/res"
	"$agent" run -w "$tmp" "$1" "$tmp/res" 2>/dev/null
	if grep "^error" "$tmp/res/result" >>"$tmp/errors"; then return 1; fi
	grep -h "^env perf_profile_event" "$tmp/res/result" >>"$tmp/events" || true
	{
		awk '$1 == "metric" && $2 == "spin.score" { s = $3 }
			$1 == "metric" && $2 == "spin.cpu_score" { c = $3 }
			END { printf "%s %s", s, c }' "$tmp/res/result"
		if [ -n "$pmu" ]; then
			awk -F, '$3 == "cycles" { c = $1 } $3 == "instructions" { i = $1 }
				END { printf " %s %s\n", c, i }' "$tmp/stat"
		else
			echo " - -"
		fi
	}
}

echo "seed $seed, $repeat pairs of $iters iterations, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v s="$seed" -v n="$repeat" 'BEGIN { srand(s); for (i = 0; i < n; i++) print (rand() < 0.5) }' >"$tmp/order"
: >"$tmp/pairs"
: >"$tmp/events"
: >"$tmp/errors"
while read -r first; do
	if [ "$first" = 1 ]; then
		a=$(run "$tmp/none.yaml") && b=$(run "$tmp/profile.yaml") &&
			echo "$a $b" >>"$tmp/pairs" || true
	else
		b=$(run "$tmp/profile.yaml") && a=$(run "$tmp/none.yaml") &&
			echo "$a $b" >>"$tmp/pairs" || true
	fi
done <"$tmp/order"
if [ -s "$tmp/errors" ]; then
	echo "$(wc -l <"$tmp/errors") pairs dropped, a run failed:"
	sort "$tmp/errors" | uniq -c
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
sort -u "$tmp/events"
[ -n "$pmu" ] || echo "no PMU here (perf stat counts no cycles): cycles and instructions not counted"
/usr/bin/python3 - "$tmp/pairs" <<-\PY
	import math, statistics, sys
	from scipy import stats
	rows = [l.split() for l in open(sys.argv[1])]
	# columns: without score cpu cycles instr, with score cpu cycles instr
	for col, name, rate in ((0, "score (wall clock, headline)", True),
	                        (1, "cpu_score (own CPU time)", True),
	                        (2, "cycles of the spin (PMU)", False),
	                        (3, "instructions of the spin (PMU)", False)):
	    if any(r[col] == "-" or r[col + 4] == "-" for r in rows):
	        continue
	    a = [float(r[col]) for r in rows]
	    b = [float(r[col + 4]) for r in rows]
	    # overhead of each pair, in %: a rate falls, a count grows
	    d = [((x - y) / x if rate else (y - x) / x) * 100 for x, y in zip(a, b)]
	    n = len(d)
	    m = statistics.mean(d)
	    h = stats.t.ppf(0.975, n - 1) * statistics.stdev(d) / math.sqrt(n) if n > 1 else float("nan")
	    p = stats.wilcoxon(d).pvalue if n > 1 and any(d) else float("nan")
	    print("%-32s without %.4g (cv %.1f%%), with %.4g (cv %.1f%%), %d pairs: "
	          "overhead %.2f%% (95%% CI %.2f%% .. %.2f%%; Wilcoxon p %.3g)" % (name,
	          statistics.mean(a), 100 * statistics.stdev(a) / statistics.mean(a),
	          statistics.mean(b), 100 * statistics.stdev(b) / statistics.mean(b),
	          n, m, m - h, m + h, p))
	PY
