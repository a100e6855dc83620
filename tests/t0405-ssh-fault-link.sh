#!/bin/sh
# An agent whose network link goes down in the middle of a run: the
# keepalives go unanswered, the connection is declared lost after the
# silence timeout, the run is marked failed with that reason. The job has
# finished runs on that machine, so the run waits for it rather than move
# (its commit would be measured on another machine than the others): when
# the link comes back, the agent is probed, put back in service, and the
# run is retried there.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1
ssh_agent_start 2 ed25519 || exit 1
test_at_exit 'test ! -f "$TRASH/queue.pid" || kill "$(cat "$TRASH/queue.pid")"'

run_status() {
	test "$(db_query "SELECT status FROM runs WHERE id = $1")" = "$2"
}

done_runs() {
	test "$(runs_with_status done)" = "$1"
}

link() {
	ip netns exec "$(ssh_ns 1)" ip link set "${SSH_PREFIX}n1" "$1"
}

test_expect_success 'setup: the job has finished runs on both machines' '
	setup_bench --commits 3 &&
	ssh_known_hosts 1 2 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 &&
		ssh_agent_config 2
	} >>bisectd.yaml &&
	cat >gated.yaml <<-EOF &&
	testcase: microbench
	run: '\''if [ -e $TRASH/gate ]; then touch $TRASH/started.\$AGENT_NAME; while [ ! -e $TRASH/go ]; do sleep 0.05; done; fi; sh bench.sh'\''
	runs: 2
	metric: microbench.score
	EOF
	bisectctl queue gated.yaml --commit master --wait >/dev/null 2>&1 &&
	test "$(db_query "SELECT group_concat(agent) FROM (SELECT agent FROM
		runs WHERE status = '\''done'\'' ORDER BY agent)")" = "a1,a2"
'

test_expect_success 'the link goes down during a run: lost after the silence' '
	touch gate &&
	bisectctl queue gated.yaml --commit master~1 --wait >queue.out \
		2>queue.err &
	echo $! >queue.pid &&
	test_wait_for 300 test -e started.a1 &&
	test_wait_for 300 test -e started.a2 &&
	running_on a1 && running_on a2 &&
	run=$(db_query "SELECT id FROM runs WHERE status = '\''running'\''
		AND agent = '\''a1'\''") &&
	echo $run >lost.run &&
	link down &&
	test_wait_for 150 failed_once $run &&
	run_failures $run >failures &&
	cat failures &&
	grep "^a1|agent '\''a1'\'': connection to '\''$(ssh_addr 1)'\'' lost: no answer for 4s" failures &&
	test_wait_for 100 state_is a1 down
'

test_expect_success 'the run waits for its machine instead of moving' '
	run=$(cat lost.run) &&
	touch go &&
	test_wait_for 200 done_runs 3 &&
	run_status $run pending &&
	test "$(db_query "SELECT group_concat(agent) FROM (SELECT agent FROM
		job_agents ORDER BY agent)")" = "a1,a2"
'

test_expect_success 'the link comes back: the agent is probed, back in service, and runs it' '
	link up &&
	test_wait_for 300 eval "! kill -0 $(cat queue.pid) 2>/dev/null" &&
	rm queue.pid &&
	run=$(cat lost.run) &&
	test "$(db_query "SELECT status, agent, attempts FROM runs
		WHERE id = $run")" = "done|a1|2" &&
	test "$(agent_state a1)" = up &&
	test "$(db_query "SELECT count(*) FROM samples
		WHERE metric = '\''microbench.score'\''")" = 4
'

test_done
