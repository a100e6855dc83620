#!/bin/sh
# The daemon re-reads its config on SIGHUP, and stops cleanly on SIGTERM.
# A config that would not start a daemon (a typo, a database moved) is
# logged with its FILE:LINE:COL and the old one stays in force; a good
# one is in force for new work (a repository and an agent it adds are
# used) while the run already going on under the old one goes on and is
# recorded once. SIGTERM mid-run gives the run back to the queue with its
# attempt, leaves no process behind, and the next daemon finishes it.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_at_exit 'test ! -f "$TRASH/daemon.pids" || kill -9 $(cat "$TRASH/daemon.pids") 2>/dev/null'

daemon_start() {
	n=$(daemon_lines)
	bisectd -c daemon.yaml --foreground 2>>daemon.log &
	echo $! >daemon.pid
	echo $! >>daemon.pids
	test_wait_for 100 daemon_logged "$n" "bisectd: ready"
}

daemon_lines() {
	test -f daemon.log && wc -l <daemon.log || echo 0
}

# daemon_logged N TEXT: TEXT is in the log after its first N lines.
daemon_logged() {
	tail -n +"$(($1 + 1))" daemon.log | grep -qF "$2"
}

# hup TEXT: SIGHUP, then wait for TEXT in the log (bounded).
hup() {
	n=$(daemon_lines) &&
	kill -HUP "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_logged "$n" "$1"
}

started() {
	test -s "$TRASH/run.pid" && test -e "$TRASH/started"
}

gated_run() {
	db_query "SELECT status || '|' || attempts || '|' || agent FROM runs
		WHERE job = (SELECT id FROM jobs WHERE testcase = 'gated')
		ORDER BY id DESC LIMIT 1"
}

gated_samples() {
	db_query "SELECT count(*) FROM samples WHERE metric = 'gated.score'"
}

runs_done_on() {
	test "$(db_query "SELECT count(*) FROM runs WHERE status = 'done'
		AND agent = '$1'")" -ge "$2"
}

runs_left() {
	test "$(db_query "SELECT count(*) FROM runs
		WHERE status IN ('pending', 'running')")" = 0
}

pid_gone() {
	! kill -0 "$1" 2>/dev/null
}

test_expect_success 'setup: a daemon under one repository and one agent' '
	setup_bench --commits 3 &&
	git clone -q repo repo2 &&
	mkfifo gate &&
	cat >gated.yaml <<-EOF &&
	testcase: gated
	run: "echo \$\$ >$TRASH/run.pid; touch $TRASH/started; read x <$TRASH/gate; sh bench.sh"
	runs: 1
	metric: gated.score
	disturbed: keep
	EOF
	echo "disturbed: keep" >>job.yaml &&
	cat >>bisectd.yaml <<-EOF &&
	agents:
	  - name: l1
	    transport: local
	EOF
	cp bisectd.yaml daemon.yaml &&
	daemon_start
'

test_expect_success 'a run is going on under the first config' '
	bisectctl queue gated.yaml --commit master >q1.out &&
	test_wait_for 300 started &&
	test "$(gated_run)" = "running|1|l1"
'

test_expect_success 'a config with a typo is not loaded: FILE:LINE:COL, the old stays' '
	cp daemon.yaml good.yaml &&
	echo "    sltos: 2" >>daemon.yaml &&
	line=$(wc -l <daemon.yaml) &&
	hup "the config is not reloaded" &&
	grep -F "bisectd: the config is not reloaded, the old one stays in force: $TRASH/daemon.yaml:$line:5: " daemon.log &&
	grep -F "sltos" daemon.log &&
	kill -0 "$(cat daemon.pid)" &&
	test "$(gated_run)" = "running|1|l1"
'

test_expect_success 'a config that moves the database is not loaded; nothing is created' '
	cp good.yaml daemon.yaml &&
	echo "db: elsewhere/other.db" >>daemon.yaml &&
	mkdir elsewhere &&
	hup "the config is not reloaded" &&
	grep -F "'\''db'\'' moved from '\''$TRASH/state/bisectd.db'\'' to '\''$TRASH/elsewhere/other.db'\''" daemon.log &&
	test ! -e elsewhere/other.db &&
	cp good.yaml daemon.yaml &&
	echo "db: missing-dir/x.db" >>daemon.yaml &&
	line=$(wc -l <daemon.yaml) &&
	hup "daemon.yaml:$line:5: '\''db'\'' is in" &&
	test ! -e missing-dir &&
	test "$(gated_run)" = "running|1|l1"
'

test_expect_success 'a good config is in force for new work; the running run goes on' '
	cat >daemon.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	  - name: two
	    path: repo2
	    build:
	      command: test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	agents:
	  - name: l1
	    transport: local
	  - name: l2
	    transport: local
	EOF
	cp daemon.yaml bisectd.yaml &&
	hup "reloaded (2 repositories, 2 agents)" &&
	kill -0 "$(cat run.pid)" &&
	bisectctl queue job.yaml --repo two --commit master >q2.out &&
	test_wait_for 600 runs_done_on l2 1 &&
	test "$(gated_run)" = "running|1|l1" &&
	echo go >gate &&
	test_wait_for 300 runs_left &&
	test "$(gated_run)" = "done|1|l1" &&
	test "$(gated_samples)" = 1 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE requeues > 0")" = 0 &&
	test "$(db_query "SELECT count(*) FROM samples s JOIN runs r ON s.run = r.id
		WHERE r.repo = '\''two'\'' AND s.metric = '\''microbench.score'\''")" = 3
'

test_expect_success 'SIGTERM mid-run: the run is given back, nothing is left running' '
	rm -f started run.pid &&
	bisectctl queue gated.yaml --repo bench --commit master~1 >q3.out &&
	test_wait_for 300 started &&
	test "$(gated_run)" = "running|1|l1" &&
	runpid=$(cat run.pid) &&
	dpid=$(cat daemon.pid) &&
	kill -TERM "$dpid" &&
	test_wait_for 100 pid_gone "$dpid" &&
	rm -f daemon.pid &&
	grep -F "stopping: " daemon.log | grep -F "1 runs and 0 builds given back to the queue" &&
	grep -F "bisectd: stopped" daemon.log &&
	test_wait_for 50 pid_gone "$runpid" &&
	test "$(gated_run)" = "pending|0|l1" &&
	test "$(gated_samples)" = 1
'

test_expect_success 'the next daemon finishes it, once' '
	rm -f started run.pid &&
	daemon_start &&
	test_wait_for 300 started &&
	echo go >gate &&
	test_wait_for 300 runs_left &&
	test "$(gated_run)" = "done|1|l1" &&
	test "$(gated_samples)" = 2 &&
	dpid=$(cat daemon.pid) &&
	kill -TERM "$dpid" &&
	test_wait_for 100 pid_gone "$dpid" &&
	rm -f daemon.pid
'

test_done
