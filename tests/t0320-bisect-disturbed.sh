#!/bin/sh
# A bisection under a disturbance, through the CLI (issue 11): CPU hogs
# that come and go (bench/disturb.sh: one per CPU, each on for 2-10 s and
# off for 1-6 s) run beside a bisection of 24 commits whose benchmark is
# timed on this machine (tests/fixture-repo.py --timed: operations per
# CPU-second, as `make demo` measures), where commit 17 makes it 8%
# slower. The answer must be the planted commit as `found`, or
# `unconfirmed`: never another commit as `found`. The bisection is
# bounded (BISECTD_DISTURBED_TIMEOUT seconds, default 300; it takes well
# under 60 s here when the machine is otherwise idle).
#
# This test can fail before issue 11's driver and timing work (identical
# images as one test point, interleaved runs, runs set aside when
# disturbed, `unconfirmed`) is in: a `found` for another commit is the
# very failure the issue reports, not a fault of the test.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

TIMEOUT=${BISECTD_DISTURBED_TIMEOUT:-300}
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

test_expect_success 'setup: 24 commits, commit 17 8% slower, a timed benchmark' '
	setup_bench_timed --commits 24 --culprit 17 --change -8 &&
	( cd repo && cc -O2 -o spin spin.c && sh bench.sh >../one.out ) &&
	grep "^score: [0-9.]*$" one.out &&
	rm -f repo/spin
'

test_expect_success 'the disturbance starts, and stops by itself' '
	sh "$BISECTD_SRC/bench/disturb.sh" -n 1 -d 2 -u 1-1 -f 1-1 -l probe.log \
		-r probe.ready &
	pid=$! &&
	test_wait_for 100 test -s probe.ready &&
	wait $pid &&
	grep -q "hog 1 on 1 pid " probe.log
'

test_expect_success 'under CPU hogs that come and go: the culprit or unconfirmed' '
	good=$(commit_oid "commit 1") && test -n "$good" || return 1
	sh "$BISECTD_SRC/bench/disturb.sh" -n "$NCPU" -d "$TIMEOUT" \
		-l disturb.log -r disturb.ready &
	hogs=$! &&
	test_at_exit "kill $hogs" &&
	test_wait_for 100 test -s disturb.ready &&
	start=$(date +%s) &&
	rc=0 &&
	timeout "$TIMEOUT" bisectctl bisect job.yaml --good "$good" --bad master \
		--wait --json >out.json 2>progress || rc=$?
	kill $hogs 2>/dev/null
	wait $hogs
	echo "bisection: exit $rc in $(($(date +%s) - start)) s, hogs on $(grep -c " on " disturb.log) times" >figures &&
	cat out.json &&
	test "$rc" = 0 &&
	status=$(json_get out.json "d[\"status\"]") &&
	echo "status $status, culprit $(json_get out.json "d.get(\"culprit\")"), planted $(culprit_oid), runs $(json_get out.json "d.get(\"runs\")"), builds $(json_get out.json "d.get(\"builds\")")" >>figures &&
	case $status in
	found)
		test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" ;;
	unconfirmed)
		true ;;
	*)
		echo "status $status is neither found nor unconfirmed"; false ;;
	esac
'

[ ! -f "$TRASH/figures" ] || sed 's/^/# /' "$TRASH/figures"

test_expect_success 'the disturbance and every busy loop it started are gone' '
	! kill -0 "$(cat disturb.ready)" 2>/dev/null &&
	grep -c " on .* pid " disturb.log &&
	for p in $(sed -n "s/.* on .* pid //p" disturb.log); do
		! ps -o stat= -p "$p" | grep -qv "^Z" ||
			{ echo "busy loop $p still runs"; return 1; }
	done
'

test_done
