#!/bin/sh
# make bench: run every benchmark. Each prints its own figures against a
# baseline measured in the same run. Compiled benchmarks are bench/*.c
# but bisect-sim's parts, bench/sim-*.c (built into $BISECTD_BUILD/bench/),
# scripted ones are bench/*.sh.
# BENCH_ONLY=name runs one of them.
#
#   bench/run.sh [-k K]     (make bench BENCH_DEMO_K=K)
#
# demo-disturbed runs K demos idle and K under bench/disturb.sh (default
# 3; -k or BENCH_DEMO_K; BENCH_DEMO_HOGS hogs, default 1). disturb.sh is
# the disturbance itself, not a benchmark.
set -e
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
export PATH="$BISECTD_BUILD/bin:$PATH"
while getopts k: o; do
	case $o in
	k) BENCH_DEMO_K=$OPTARG; export BENCH_DEMO_K ;;
	*) echo "usage: bench/run.sh [-k K]" >&2; exit 2 ;;
	esac
done
status=0
for b in "$BISECTD_BUILD"/bench/* "$BISECTD_SRC"/bench/*.sh; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	case "$b" in */run.sh|*/disturb.sh|*.o|*.d) continue ;; esac
	name=$(basename "$b" .sh)
	[ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = "$name" ] || continue
	echo "== bench: $name"
	"$b" || { echo "bench: $name failed" >&2; status=1; }
done
exit $status
