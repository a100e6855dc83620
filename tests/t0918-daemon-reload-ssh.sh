#!/bin/sh
# SIGHUP with an ssh agent's connection settings changed while a run is
# going on over its link: the run goes on over the old link and is
# recorded once; then the old link stops and a new one, under the new
# settings, carries the next run.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1
test_at_exit 'test ! -f "$TRASH/daemon.pids" || kill -9 $(cat "$TRASH/daemon.pids") 2>/dev/null'

figure() {
	echo "$*" >>"$TRASH/figures"
}

logged() {
	grep -qF "$1" daemon.log
}

started() {
	test -e "$TRASH/started"
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

gated() {
	db_query "SELECT status || ' attempts ' || attempts || ' requeues ' || requeues
		FROM runs WHERE commit_oid = '$1' AND job = (SELECT id FROM jobs
		WHERE testcase = 'gated')"
}

test_expect_success 'setup: a daemon with one ssh agent, a run going on over its link' '
	setup_bench --commits 3 &&
	mkfifo gate &&
	cat >gated.yaml <<-EOF &&
	testcase: gated
	run: "touch $TRASH/started; read x <$TRASH/gate; sh bench.sh"
	runs: 1
	metric: gated.score
	disturbed: keep
	EOF
	ssh_known_hosts 1 &&
	{ echo "agents:" && ssh_agent_config 1; } >>bisectd.yaml &&
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid && echo $! >>daemon.pids &&
	test_wait_for 100 logged "bisectd: ready" &&
	c=$(git -C repo rev-parse master) &&
	bisectctl queue gated.yaml --commit "$c" >q1.out &&
	test_wait_for 600 started &&
	test "$(gated "$c")" = "running attempts 1 requeues 0"
'

test_expect_success 'its settings change: the old link finishes the run, then a new one takes over' '
	c=$(git -C repo rev-parse master) &&
	logins=$(ssh_logins 1) &&
	sed -i "s/keepalive: 1$/keepalive: 2/" bisectd.yaml &&
	grep -q "keepalive: 2" bisectd.yaml &&
	kill -HUP "$(cat daemon.pid)" &&
	test_wait_for 100 logged "agent '\''a1'\'': its link is replaced once the work on it is done (its settings changed)" &&
	test "$(gated "$c")" = "running attempts 1 requeues 0" &&
	! logged "its old link stops" &&
	echo go >gate &&
	test_wait_for 600 logged "agent '\''a1'\'': its old link stops" &&
	test "$(gated "$c")" = "done attempts 1 requeues 0" &&
	test "$(sample_count "$c" gated.score)" = 1 &&
	rm -f started &&
	c2=$(git -C repo rev-parse master~1) &&
	bisectctl queue gated.yaml --commit "$c2" >q2.out &&
	test_wait_for 600 started &&
	echo go >gate &&
	test_wait_for 600 eval "test \"\$(gated $c2)\" = \"done attempts 1 requeues 0\"" &&
	test "$(sample_count "$c2" gated.score)" = 1 &&
	test "$(ssh_logins 1)" -gt "$logins" &&
	figure "ssh agent reconfigured mid-run: the run on the old link done at attempt 1, 0 requeues, 1 sample; the old link stopped after it; the next run over a new link ($logins logins before the reload, $(ssh_logins 1) after), done at attempt 1"
'

test_expect_success 'SIGTERM: the daemon stops cleanly' '
	p=$(cat daemon.pid) &&
	kill -TERM "$p" &&
	test_wait_for 100 gone "$p" &&
	logged "bisectd: stopped"
'

[ ! -f "$TRASH/figures" ] || sed "s/^/# figure: /" "$TRASH/figures"
test_done
