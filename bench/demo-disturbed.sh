#!/bin/sh
# `make demo` under a disturbance and on an idle machine (issue 11, "Figures
# to reach"): K demos (tools/demo.sh, as `make demo` runs it: 300 commits,
# the planted commit "bench: validate the accumulator on every round")
# with no load of ours, then K under bench/disturb.sh (CPU hogs that come
# and go). Per run it prints the verdict, whether it named the planted
# commit, runs, builds, the wall time of the bisection (as the demo times
# `bisect --wait`) and of the whole demo, and the load average at its
# start; per side a summary: found right, wrong found, unconfirmed,
# other, and the median runs and bisection wall time.
#
#   bench/demo-disturbed.sh [-k K] [-n HOGS] [-m idle|disturbed|both]
#                           [-o DIR]
#
# K defaults to $BENCH_DEMO_K or 3 (the figure is K=20: about
# 20 min a side here), HOGS to $BENCH_DEMO_HOGS or 1. Each demo keeps its
# state in DIR/MODE-N/demo (default $BISECTD_BUILD/demo-disturbed).
# "Idle" is the machine as it is: other users' load is not ours to stop,
# and the load average at the start of each run is printed beside it.
set -eu
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"

k=${BENCH_DEMO_K:-3} hogs=${BENCH_DEMO_HOGS:-1} mode=both
out=$BISECTD_BUILD/demo-disturbed
while getopts k:n:m:o: o; do
	case $o in
	k) k=$OPTARG ;;
	n) hogs=$OPTARG ;;
	m) mode=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: demo-disturbed.sh [-k K] [-n HOGS] [-m idle|disturbed|both] [-o DIR]" >&2
	   exit 2 ;;
	esac
done
case $k in ''|*[!0-9]*|0) echo "demo-disturbed: K '$k' is not a positive number" >&2; exit 2 ;; esac
case $mode in
idle) modes=idle ;;
disturbed) modes=disturbed ;;
both) modes="idle disturbed" ;;
*) echo "demo-disturbed: mode '$mode' is not idle, disturbed or both" >&2; exit 2 ;;
esac
command -v sqlite3 >/dev/null || { echo "demo-disturbed: sqlite3 is needed" >&2; exit 2; }

PLANTED="bench: validate the accumulator on every round"
disturb=
cleanup() {
	[ -z "$disturb" ] || kill "$disturb" 2>/dev/null || true
	[ -z "$disturb" ] || wait "$disturb" 2>/dev/null || true
	disturb=
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# The bisection's result as one line: status culprit runs builds.
result_of() {
	sqlite3 -cmd ".timeout 30000" "$1/state/bisectd.db" \
		"SELECT result FROM bisections ORDER BY id DESC LIMIT 1" |
	python3 -c 'import json, sys
t = sys.stdin.read().strip()
d = json.loads(t) if t else {}
print(d.get("status", "none"), d.get("culprit") or d.get("candidate") or "-",
      d.get("runs", "-"), d.get("builds", "-"))'
}

median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

mkdir -p "$out"
table=$out/runs
: >"$table"
printf '%-9s %3s  %-12s %-7s %5s %6s %6s %6s  %s\n' side run verdict planted \
	runs builds wall demo load
for m in $modes; do
	i=1
	while [ "$i" -le "$k" ]; do
		dir=$out/$m-$i
		rm -rf "$dir"
		mkdir -p "$dir"
		ln -s "$BISECTD_BUILD/bin" "$dir/bin"
		load=$(cut -d' ' -f1 /proc/loadavg)
		if [ "$m" = disturbed ]; then
			rm -f "$dir/disturb.ready"
			sh "$BISECTD_SRC/bench/disturb.sh" -n "$hogs" -d 3600 \
				-l "$dir/disturb.log" -r "$dir/disturb.ready" &
			disturb=$!
			while [ ! -s "$dir/disturb.ready" ]; do
				kill -0 "$disturb" 2>/dev/null || { echo "demo-disturbed: the disturbance did not start" >&2; exit 1; }
				sleep 0.1
			done
		fi
		t0=$(date +%s)
		rc=0
		BISECTD_BUILD=$dir sh "$BISECTD_SRC/tools/demo.sh" >"$dir/demo.log" 2>&1 || rc=$?
		total=$(($(date +%s) - t0))
		cleanup
		wall=$(sed -n 's/^demo: done in \([0-9]*\) s.*/\1/p' "$dir/demo.log")
		[ -n "$wall" ] || wall=$total
		planted=$(git -C "$dir/demo/linux-ish" log --format=%H --grep="$PLANTED" master)
		set -- $(result_of "$dir/demo")
		status=$1 culprit=$2 runs=$3 builds=$4
		[ "$rc" = 0 ] || status="$status(exit$rc)"
		named=no
		[ "$culprit" != "$planted" ] || named=yes
		case $status in
		found) [ $named = yes ] && class=right || class=wrong ;;
		unconfirmed) class=unconfirmed ;;
		*) class=other ;;
		esac
		printf '%-9s %3d  %-12s %-7s %5s %6s %5ss %5ss  %s\n' "$m" "$i" \
			"$status" "$named" "$runs" "$builds" "$wall" "$total" "$load"
		echo "$m $i $status $named $class $runs $builds $wall" >>"$table"
		i=$((i + 1))
	done
done

echo
printf '%-9s %5s %6s %6s %12s %6s  %12s %12s\n' side demos right wrong \
	unconfirmed other "median runs" "median wall"
for m in $modes; do
	n=$(awk -v m="$m" '$1 == m' "$table" | wc -l)
	count() {
		awk -v m="$m" -v c="$1" '$1 == m && $5 == c' "$table" | wc -l
	}
	mr=$(awk -v m="$m" '$1 == m && $6 ~ /^[0-9]+$/ { print $6 }' "$table" | median)
	mw=$(awk -v m="$m" '$1 == m { print $8 }' "$table" | median)
	printf '%-9s %5d %6d %6d %12d %6d  %12s %11ss\n' "$m" "$n" \
		"$(count right)" "$(count wrong)" "$(count unconfirmed)" \
		"$(count other)" "$mr" "$mw"
done
echo "demo-disturbed: K=$k, $hogs hog(s) on 2-10 s, off 1-6 s; runs in $out"
