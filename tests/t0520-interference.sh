#!/bin/sh
# Interference and the time of runs (issue 11): a run during which a busy
# loop takes a CPU is flagged by the agent, set aside by the scheduler and
# repeated, at most three times, then counted with its flag; a job that
# says "disturbed: keep" counts it at once; a misspelt value is refused; a
# bisection under a busy loop says in its report how many runs it set
# aside and why. Every run records its start and end (wall clock and
# monotonic) and its boot, read through the agent's root (a fixture here,
# so its boot_id is a fake one), in the result, the store and show --run.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh
FAKE_BOOT=0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0

# A busy loop on one CPU, bounded, stopped by hog_stop or at exit.
hog_start() {
	timeout 300 sh -c 'while :; do :; done' &
	echo $! >"$TRASH/hog.pid"
}
hog_stop() {
	if test -s "$TRASH/hog.pid"; then
		kill "$(cat "$TRASH/hog.pid")" 2>/dev/null
		wait "$(cat "$TRASH/hog.pid")" 2>/dev/null
		rm -f "$TRASH/hog.pid"
	fi
	return 0
}
test_at_exit hog_stop

metric() {
	sed -n "s/^metric $1 //p" "$2"
}
# Attempts of the bisection's job set aside so far; at least N of them.
set_aside_count() {
	db_query "SELECT count(*) FROM run_set_aside a JOIN runs r
		ON a.run = r.id JOIN jobs j ON r.job = j.id
		WHERE j.testcase = 'microbench'"
}
set_aside_at_least() {
	test "$(set_aside_count)" -ge "$1"
}
# above LOW VALUE, as numbers
above() {
	awk -v l="$1" -v v="$2" 'BEGIN { exit !(v > l) }'
}

test_expect_success 'setup' '
	setup_bench --commits 8 --culprit 5 --change -20 &&
	sh "$MACHINE" ivb44 ivb44 &&
	mkdir -p ivb44/proc/sys/kernel/random &&
	echo "$FAKE_BOOT" >ivb44/proc/sys/kernel/random/boot_id &&
	cat >sleep.yaml <<-\EOF &&
	testcase: idle
	run: "sleep 1; echo idled: 1"
	monitors: []
	EOF
	cat >slow.yaml <<-\EOF &&
	testcase: slow
	run: "sleep 0.5; echo done: 1"
	runs: 1
	metric: slow.done
	direction: higher
	EOF
	cat >keep.yaml <<-\EOF &&
	testcase: kept
	run: "sleep 0.5; echo done: 1"
	runs: 1
	disturbed: keep
	EOF
	cat >quick.yaml <<-\EOF &&
	testcase: quick
	run: "echo done: 1"
	runs: 2
	EOF
	cat >job.yaml <<-\EOF
	testcase: microbench
	run: "sh bench.sh && sleep 0.3"
	runs: 3
	metric: microbench.score
	direction: higher
	EOF
'

test_expect_success 'the agent flags a run during which a busy loop ran' '
	hog_start &&
	"$AGENT" run sleep.yaml res 2>err &&
	hog_stop &&
	! grep "^error" res/result &&
	grep "^disturbed other processes took [0-9]*% of one CPU (limit 25%" \
		res/result &&
	above 50 "$(metric "interference.other_cpu%" res/result)" &&
	metric interference.runqueue res/result | grep "^[0-9]" &&
	metric "interference.steal%" res/result | grep "^[0-9]" &&
	grep "^env monitors time interference$" res/result
'

test_expect_success 'the result says when the run ran, and in which boot' '
	start=$(sed -n "s/^start //p" res/result) &&
	end=$(sed -n "s/^end //p" res/result) &&
	awk -v s="$start" -v e="$end" -v now="$(date +%s)" "BEGIN {
		split(s, a, \" \"); split(e, b, \" \");
		exit !(b[1] - a[1] >= 0.9 && b[1] - a[1] < 30 &&
		    b[2] - a[2] >= 0.9 && b[2] - a[2] < 30 &&
		    a[1] > now - 300 && a[1] <= now)
	}" &&
	test "$(sed -n "s/^boot_id //p" res/result)" = \
		"$(cat /proc/sys/kernel/random/boot_id)"
'

test_expect_success 'the boot comes through the agent root' '
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run sleep.yaml res-fix 2>err &&
	test "$(sed -n "s/^boot_id //p" res-fix/result)" = "$FAKE_BOOT"
'

test_expect_success 'a disturbed run is set aside three times, then counted' '
	hog_start &&
	bisectctl queue slow.yaml --commit master --wait >out 2>err &&
	hog_stop &&
	run=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.testcase = '\''slow'\''") &&
	test "$(db_query "SELECT status FROM runs WHERE id = $run")" = done &&
	test "$(db_query "SELECT count(*) FROM run_set_aside
		WHERE run = $run")" = 3 &&
	test "$(db_query "SELECT set_aside FROM runs WHERE id = $run")" = 3 &&
	db_query "SELECT why FROM run_set_aside WHERE run = $run" |
		grep "^other processes took" &&
	db_query "SELECT disturbed FROM runs WHERE id = $run" |
		grep "^counted: set aside 3 times already, as often as allowed: other processes took" &&
	test "$(sample_count "$(git -C repo rev-parse master)" slow.done)" = 1 &&
	bisectctl show --run "$run" >show &&
	grep "^set aside as disturbed: 3 attempts$" show &&
	grep "^disturbed: counted: set aside 3 times" show &&
	grep "^started: [0-9]*\.[0-9]* (monotonic [0-9]*\.[0-9]*)$" show &&
	grep "^ended: " show &&
	grep "^boot: $(cat /proc/sys/kernel/random/boot_id)$" show
'

test_expect_success 'a job that says disturbed: keep counts it at once' '
	hog_start &&
	bisectctl queue keep.yaml --commit master --wait >out 2>err &&
	hog_stop &&
	run=$(db_query "SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.testcase = '\''kept'\''") &&
	test "$(db_query "SELECT status FROM runs WHERE id = $run")" = done &&
	test "$(db_query "SELECT set_aside FROM runs WHERE id = $run")" = 0 &&
	db_query "SELECT disturbed FROM runs WHERE id = $run" |
		grep "^kept (the job says .disturbed: keep.): other processes took"
'

test_expect_success 'a misspelt disturbed: is refused' '
	sed "s/disturbed: keep/disturbed: kep/" keep.yaml >kep.yaml &&
	test_expect_code 2 bisectctl queue kep.yaml --commit master 2>err &&
	grep "kep.yaml:4:[0-9]*: .disturbed. must be one of repeat, keep, not .kep." err
'

test_expect_success 'times and boots land in the store, with the fixture boot' '
	BISECT_AGENT_ROOT=$TRASH/ivb44 bisectctl queue quick.yaml \
		--commit master --wait >out 2>err &&
	q="SELECT r.id FROM runs r JOIN jobs j ON r.job = j.id
		WHERE j.testcase = '\''quick'\''" &&
	test "$(db_query "SELECT count(*) FROM runs WHERE id IN ($q)
		AND status = '\''done'\'' AND boot_id = '\''$FAKE_BOOT'\''
		AND ended_wall >= started_wall AND ended_mono >= started_mono
		AND started_wall > strftime('\''%s'\'', '\''now'\'') - 600
		AND dispatched_at <= started_wall + 1")" = 2 &&
	run=$(db_query "$q LIMIT 1") &&
	bisectctl show --run "$run" >show &&
	grep "^boot: $FAKE_BOOT$" show &&
	grep "^started: " show &&
	! grep "^set aside" show
'

test_expect_success 'a bisection under a busy loop: set aside, repeated, reported' '
	good=$(commit_oid "commit 1") &&
	hog_start &&
	{ bisectctl bisect job.yaml --good "$good" --bad master --wait --json \
		>bisect.json 2>progress & } &&
	pid=$! &&
	test_wait_for 600 set_aside_at_least 2 &&
	hog_stop &&
	wait $pid &&
	test "$(json_get bisect.json "d[\"status\"]")" = found &&
	test "$(json_get bisect.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	id=$(json_get bisect.json "d[\"id\"]") &&
	bisectctl report "$id" | tr "\n" " " >report &&
	n=$(sed -n "s/.*Runs set aside as disturbed by other load and repeated: \([0-9]*\) (the last: other processes took .*/\1/p" report) &&
	test "$n" -ge 2 &&
	test "$n" = "$(set_aside_count)"
'

test_expect_success 'set-aside attempts give the driver no samples' '
	test "$(db_query "SELECT count(*) FROM samples s JOIN runs r
		ON s.run = r.id JOIN jobs j ON r.job = j.id
		WHERE j.testcase = '\''microbench'\''
		AND s.metric = '\''microbench.score'\''")" = \
		"$(json_get bisect.json "d[\"runs\"]")"
'

test_done
