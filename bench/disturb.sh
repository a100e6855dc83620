#!/bin/sh
# A disturbance that comes and goes, for the benchmarks and tests that
# measure bisections on a loaded machine (issue 11): N CPU hogs, each a
# busy loop that is on for a random 2-10 s and off for a random 1-6 s,
# independently, until DURATION seconds have passed. It stops by itself,
# and kills every hog it started when it ends or is killed (TERM, INT,
# HUP). It is not a benchmark of its own: bench/run.sh skips it.
#
#   bench/disturb.sh [-n HOGS] [-d DURATION] [-u ON_MIN-ON_MAX]
#                    [-f OFF_MIN-OFF_MAX] [-l LOG] [-r READY]
#
#   -n  hogs (default 1)        -d  seconds in all (default 600)
#   -u  on, in whole seconds (default 2-10)
#   -f  off (default 1-6)
#   -l  append "TIME hog N on SECONDS pid PID" and "TIME hog N off
#       SECONDS" lines to LOG
#   -r  write the script's pid to READY once every hog runs
#
# The random durations come from /dev/urandom; a hog that would outlive
# DURATION is cut at it.
set -eu

hogs=1 duration=600 on=2-10 off=1-6 log=/dev/null ready=
while getopts n:d:u:f:l:r: o; do
	case $o in
	n) hogs=$OPTARG ;;
	d) duration=$OPTARG ;;
	u) on=$OPTARG ;;
	f) off=$OPTARG ;;
	l) log=$OPTARG ;;
	r) ready=$OPTARG ;;
	*) echo "usage: disturb.sh [-n HOGS] [-d DURATION] [-u MIN-MAX] [-f MIN-MAX] [-l LOG] [-r READY]" >&2
	   exit 2 ;;
	esac
done

range_ok() {
	case $1 in
	*[!0-9-]*|-*|*-|*-*-*|'') return 1 ;;
	*-*) [ "${1%-*}" -le "${1#*-}" ] ;;
	*) return 1 ;;
	esac
}
for v in "$hogs" "$duration"; do
	case $v in
	''|*[!0-9]*) echo "disturb.sh: '$v' is not a whole number" >&2; exit 2 ;;
	esac
done
for v in "$on" "$off"; do
	range_ok "$v" || { echo "disturb.sh: '$v' is not a range MIN-MAX" >&2; exit 2; }
done
[ "$hogs" -ge 1 ] || { echo "disturb.sh: no hogs" >&2; exit 2; }

end=$(($(date +%s) + duration))

# A whole number in MIN-MAX, uniformly.
pick() {
	lo=${1%-*} hi=${1#*-}
	r=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	echo $((lo + r % (hi - lo + 1)))
}

# One hog: on, off, on... until the end; its busy loop dies with it. The
# sleeps run in the background so that a signal is handled at once.
hog() {
	busy= nap=
	trap 'kill $busy $nap 2>/dev/null; wait; exit 0' TERM INT HUP
	state=on
	while :; do
		now=$(date +%s)
		left=$((end - now))
		[ "$left" -gt 0 ] || break
		if [ $state = on ]; then t=$(pick "$on"); else t=$(pick "$off"); fi
		[ "$t" -le "$left" ] || t=$left
		if [ $state = on ]; then
			sh -c 'while :; do :; done' &
			busy=$!
			echo "$now hog $1 on $t pid $busy" >>"$log"
		else
			echo "$now hog $1 off $t" >>"$log"
		fi
		sleep "$t" &
		nap=$!
		wait "$nap" || true
		nap=
		if [ -n "$busy" ]; then
			kill "$busy" 2>/dev/null || true
			wait "$busy" 2>/dev/null || true
			busy=
		fi
		if [ $state = on ]; then state=off; else state=on; fi
	done
}

pids=
stop() {
	trap - EXIT TERM INT HUP
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || true
	done
}
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

i=1
while [ "$i" -le "$hogs" ]; do
	hog "$i" &
	pids="$pids $!"
	i=$((i + 1))
done
[ -z "$ready" ] || echo $$ >"$ready"
for p in $pids; do
	wait "$p" || true
done
