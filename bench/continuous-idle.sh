#!/bin/sh
# The idle cost of continuous mode (issue 17): a daemon tracking BRANCHES
# branches of COMMITS tracked commits each (all tested, nothing new),
# reading every branch every INTERVAL seconds, measured over SECONDS s
# of its life by its CPU time (utime + stime in /proc/PID/stat), as a
# share of one core, after 2 x INTERVAL s of warm-up (the start looks at
# every series once; that is reported apart). The rows are written straight into the store of a
# daemon that made it, then a second daemon runs on it.
#
# With RUN_EVERY > 0, a run ends every RUN_EVERY s meanwhile, at a commit of
# an untracked branch (`bisectctl queue`): what one run's end costs when
# no tracked series changed.
#
#   bench/continuous-idle.sh [BRANCHES [COMMITS [SECONDS [INTERVAL [RUN_EVERY]]]]]
#                            (default 100 2000 60 10 0)
set -e
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
export PATH="$BISECTD_BUILD/bin:$PATH"
branches=${1:-100}
commits=${2:-2000}
seconds=${3:-60}
interval=${4:-10}
run_every=${5:-0}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-idle.XXXXXX")
pid=
trap 'test -n "$pid" && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
export HOME="$dir" GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"
git init -q repo
echo 1 >repo/f
git -C repo add f
git -C repo -c user.name=b -c user.email=b@b commit -q -m one
tip=$(git -C repo rev-parse HEAD)
if [ "$run_every" -gt 0 ]; then
	k=0
	git -C repo checkout -q -b side
	while [ "$k" -lt $((seconds / run_every + 1)) ]; do
		echo "$k" >repo/f
		git -C repo -c user.name=b -c user.email=b@b commit -q -a -m "side $k"
		k=$((k + 1))
	done
	git -C repo checkout -q master 2>/dev/null || git -C repo checkout -q "$tip"
fi
i=0
while [ "$i" -lt "$branches" ]; do
	echo "create refs/heads/b$i $tip"
	i=$((i + 1))
done | git -C repo update-ref --stdin
list=$(git -C repo for-each-ref --format='%(refname:short)' refs/heads/ | grep '^b' | paste -sd, -)
cat >job.yaml <<EOF
testcase: idle
run: sh idle.sh
runs: 1
metric: idle.score
direction: higher
EOF
printf 'echo "score: 1"\n' >idle.sh
cat >bisectd.yaml <<EOF
repos:
  - name: r
    path: repo
    track: [$list]
    build:
      command: "true"
continuous:
  jobs: [job.yaml]
  interval: $interval
EOF
ready() { grep -q "bisectd: ready" "$1"; }
wait_for() {
	n=0
	until "$@"; do
		n=$((n + 1))
		[ "$n" -lt 600 ] || { echo "continuous-idle: timed out" >&2; exit 1; }
		sleep 0.1
	done
}
# A first daemon makes the store and its schema; it is stopped at once.
bisectd --foreground 2>first.log &
pid=$!
wait_for ready first.log
kill "$pid"
wait "$pid" || true
pid=
sqlite3 state/bisectd.db <<EOF
DELETE FROM tracked; DELETE FROM tracked_branches; DELETE FROM requests;
WITH RECURSIVE b(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM b WHERE i + 1 < $branches),
	c(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM c WHERE j + 1 < $commits)
INSERT INTO tracked (repo, branch, seq, commit_oid, queued, seen)
	SELECT 'r', 'b' || i, j, CASE WHEN j = $commits - 1 THEN '$tip'
	ELSE printf('%040x', i * $commits + j) END, 1, 0 FROM b, c;
INSERT INTO tracked_branches (repo, branch, next_seq)
	SELECT repo, branch, max(seq) + 1 FROM tracked GROUP BY repo, branch;
EOF
bisectd --foreground 2>daemon.log &
pid=$!
wait_for ready daemon.log
hz=$(getconf CLK_TCK)
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
t_ready=$(ticks)
sleep $((2 * interval))	# past the start's detection and the first readings
t0=$(ticks)
if [ "$run_every" -gt 0 ]; then
	k=0
	while [ $((k * run_every)) -lt "$seconds" ]; do
		bisectctl queue job.yaml --commit "side~$k" >/dev/null
		sleep "$run_every"
		k=$((k + 1))
	done
	ended=$(sqlite3 state/bisectd.db "SELECT count(*) || ' (' || sum(status = 'done') || ' done, ' || sum(status = 'failed') || ' failed)' FROM runs WHERE status IN ('done', 'failed')")
else
	sleep "$seconds"	# the measurement itself: the daemon is left idle
fi
t1=$(ticks)
echo "continuous-idle: start: $((t0 - t_ready)) ticks of CPU in the $((2 * interval)) s after ready (a first look at every series)"
echo "continuous-idle: $branches branches x $commits tracked commits, interval $interval s:" \
	"$((t1 - t0)) ticks of CPU in $seconds s =" \
	"$(awk -v t=$((t1 - t0)) -v hz="$hz" -v s="$seconds" 'BEGIN { printf "%.3f%%", 100 * t / hz / s }') of a core${ended:+, with $ended runs ended on an untracked branch meanwhile}"
if grep -q "new commits\|rewritten\|error" daemon.log; then
	echo "continuous-idle: the daemon was not idle:" >&2
	cat daemon.log >&2
	exit 1
fi
