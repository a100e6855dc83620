#!/bin/sh
# The cost of the agent's default monitors (docs/monitors.md): the same
# testcase -- "sleep", so that nearly all CPU time counted is the agent's
# own -- run with "monitors: []" (time only) and with the default set,
# and the difference of the agent's CPU time (user + system, from
# wait4, its threads included) set against the run's length: as a share
# of one CPU and of the whole machine. On this machine's /proc and on the
# fixture trees of ivb44 (48 CPUs, 2 nodes) and a 144-CPU, 4-node
# machine, whose per-CPU files make the parsing cost grow. Target: 1%.
# "time only" includes the interference monitor, which always runs; with
# BASELINE_AGENT set to an agent built without it (an older build), its
# own cost is shown too: the difference of the two agents' "time only".
#
#   bench/monitor-overhead.sh [SECONDS]      (default 10; REPEAT=1;
#                                             BASELINE_AGENT=)
set -eu
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
secs=${1:-10}
repeat=${REPEAT:-1}
agent=$BISECTD_BUILD/bin/bisect-agent
baseline=${BASELINE_AGENT:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/monitor-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sh "$BISECTD_SRC/tests/fixture-machine.sh" ivb44 "$tmp/ivb44"
sh "$BISECTD_SRC/tests/fixture-machine.sh" hsx4 "$tmp/hsx4"
printf 'testcase: idle\nrun: "sleep %s"\nmonitors: []\n' "$secs" >"$tmp/none.yaml"
printf 'testcase: idle\nrun: "sleep %s"\n' "$secs" >"$tmp/default.yaml"

# cpu ROOT JOB [AGENT]: the agent's user+system seconds for one run.
cpu() {
	/usr/bin/python3 - "${3:-$agent}" "$2" "$tmp/res" "$1" <<-\PY
	import os, sys
	agent, job, res, root = sys.argv[1:5]
	env = dict(os.environ)
	if root != "/":
	    env["BISECT_AGENT_ROOT"] = root
	else:
	    env.pop("BISECT_AGENT_ROOT", None)
	pid = os.fork()
	if pid == 0:
	    fd = os.open(os.devnull, os.O_WRONLY)
	    os.dup2(fd, 2)
	    os.execve(agent, [agent, "run", job, res], env)
	_, status, ru = os.wait4(pid, 0)
	assert os.waitstatus_to_exitcode(status) == 0
	print("%.6f" % (ru.ru_utime + ru.ru_stime))
	PY
}

printf '%-10s %5s %12s %12s %12s %10s %12s%s\n' machine cpus "none (s)" \
	"default (s)" "monitors (s)" "% of 1 CPU" "% of machine" \
	"${baseline:+ $(printf '%14s %16s' "baseline (s)" "interference %")}"
for m in / "$tmp/ivb44" "$tmp/hsx4"; do
	case $m in
	/) name=this ncpu=$(nproc) ;;
	*) name=$(basename "$m") ncpu=$(cat "$m/sys/devices/system/cpu/online" | sed 's/.*-//'); ncpu=$((ncpu + 1)) ;;
	esac
	n=0 a=0 b=0 c=0
	while [ $n -lt "$repeat" ]; do
		a=$(echo "$a $(cpu "$m" "$tmp/none.yaml")" | awk '{ print $1 + $2 }')
		b=$(echo "$b $(cpu "$m" "$tmp/default.yaml")" | awk '{ print $1 + $2 }')
		if [ -n "$baseline" ]; then
			c=$(echo "$c $(cpu "$m" "$tmp/none.yaml" "$baseline")" |
			    awk '{ print $1 + $2 }')
		fi
		n=$((n + 1))
	done
	awk -v name="$name" -v ncpu="$ncpu" -v a="$a" -v b="$b" -v c="$c" \
	    -v base="$baseline" -v r="$repeat" -v s="$secs" 'BEGIN {
		a /= r; b /= r; c /= r; d = b - a
		printf "%-10s %5d %12.4f %12.4f %12.4f %9.3f%% %11.4f%%",
		    name, ncpu, a, b, d, 100 * d / s, 100 * d / (s * ncpu)
		if (base != "")
			printf " %14.4f %15.3f%%", c, 100 * (a - c) / s
		printf "\n"
	}'
done
