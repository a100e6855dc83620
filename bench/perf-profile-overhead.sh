#!/bin/sh
# The cost of the perf-profile monitor on a CPU-bound benchmark
# (docs/monitors.md): a single-threaded loop that prints its rate
# ("score", iterations per second of wall clock, the headline; and per
# second of its own CPU time), run by bisect-agent with "monitors: []"
# and with "monitors: [perf-profile]" at the default frequency,
# alternately, REPEAT pairs, so that both see the same machine. Prints
# each side's mean and the overhead with its 95% interval (Welch).
# Target: 3% of the headline.
#
#   bench/perf-profile-overhead.sh [ITERATIONS]   (default 2000000000;
#                                                  REPEAT=10, FREQ=)
set -eu
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
iters=${1:-2000000000}
repeat=${REPEAT:-10}
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
printf 'testcase: spin\nrun: "%s/spin %s"\nmonitors: []\n' "$tmp" "$iters" >"$tmp/none.yaml"
printf 'testcase: spin\nrun: "%s/spin %s"\nmonitors: [perf-profile]\n%s' "$tmp" "$iters" \
	"${FREQ:+perf-profile:
  freq: $FREQ
}" >"$tmp/profile.yaml"

# run JOB: "score cpu_score" of one run (its result file).
run() {
	rm -rf "$tmp/res" && mkdir "$tmp/res"
	"$agent" run -w "$tmp" "$1" "$tmp/res" 2>/dev/null
	if grep "^error" "$tmp/res/result" >&2; then exit 1; fi
	awk '$1 == "metric" && $2 == "spin.score" { s = $3 }
		$1 == "metric" && $2 == "spin.cpu_score" { c = $3 }
		END { print s, c }' "$tmp/res/result"
}

n=0
: >"$tmp/pairs"
while [ "$n" -lt "$repeat" ]; do
	echo "none $(run "$tmp/none.yaml")" >>"$tmp/pairs"
	echo "profile $(run "$tmp/profile.yaml")" >>"$tmp/pairs"
	n=$((n + 1))
done
grep -h "env perf_profile_event" "$tmp/res/result" || true
/usr/bin/python3 - "$tmp/pairs" <<-\PY
	import math, statistics, sys
	from scipy import stats
	rows = [l.split() for l in open(sys.argv[1])]
	for col, name in ((1, "score (wall clock, headline)"), (2, "cpu_score (own CPU time)")):
	    a = [float(r[col]) for r in rows if r[0] == "none"]
	    b = [float(r[col]) for r in rows if r[0] == "profile"]
	    ma, mb = statistics.mean(a), statistics.mean(b)
	    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
	    se = math.sqrt(va + vb)
	    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if se > 0 else 1
	    t = stats.t.ppf(0.975, df)
	    d = (ma - mb) / ma * 100
	    h = t * se / ma * 100
	    print("%-30s without %.4g (cv %.1f%%), with %.4g (cv %.1f%%), n=%d+%d: "
	          "overhead %.2f%% (95%% CI %.2f%% .. %.2f%%)" % (name, ma,
	          100 * statistics.stdev(a) / ma, mb, 100 * statistics.stdev(b) / mb,
	          len(a), len(b), d, d - h, d + h))
	PY
