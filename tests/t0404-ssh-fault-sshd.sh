#!/bin/sh
# An agent whose sshd is killed in the middle of a run: the run is marked
# failed with the reason and retried on the other agent (the job has no
# finished run on the lost one, so moving it breaks no comparison); the
# scheduler keeps serving; the agent goes back in service as soon as its
# sshd answers again; the samples recorded before are all there, once.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1
ssh_agent_start 2 ed25519 || exit 1
test_at_exit 'test ! -f "$TRASH/queue.pid" || kill "$(cat "$TRASH/queue.pid")"'

test_expect_success 'setup' '
	setup_bench --commits 3 &&
	ssh_known_hosts 1 2 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 &&
		ssh_agent_config 2
	} >>bisectd.yaml &&
	cat >gated.yaml <<-EOF
	testcase: microbench
	run: '\''touch $TRASH/started.\$AGENT_NAME; while [ ! -e $TRASH/go ]; do sleep 0.05; done; sh bench.sh'\''
	runs: 2
	metric: microbench.score
	EOF
'

test_expect_success 'samples recorded before the fault' '
	bisectctl queue job.yaml --commit master --wait >/dev/null 2>&1 &&
	test "$(sample_count "$(git -C repo rev-parse master)" \
		microbench.score)" = 3
'

test_expect_success 'sshd is killed while a run is on the agent' '
	bisectctl queue gated.yaml --commit master~1 --wait >queue.out \
		2>queue.err &
	echo $! >queue.pid &&
	test_wait_for 300 test -e started.a1 &&
	test_wait_for 300 test -e started.a2 &&
	running_on a1 && running_on a2 &&
	run=$(db_query "SELECT id FROM runs WHERE status = '\''running'\''
		AND agent = '\''a1'\''") &&
	echo $run >lost.run &&
	ssh_agent_stop 1 &&
	test_wait_for 200 failed_once $run &&
	run_failures $run >failures &&
	cat failures &&
	grep "^a1|agent '\''a1'\'': connection to .* lost: " failures &&
	test_wait_for 100 state_is a1 down
'

test_expect_success 'the agent is back in service when its sshd answers' '
	ssh_agent_start 1 ed25519 &&
	test_wait_for 150 state_is a1 up
'

test_expect_success 'the run is retried on the other agent; all is recorded once' '
	touch go &&
	test_wait_for 300 eval "! kill -0 $(cat queue.pid) 2>/dev/null" &&
	rm queue.pid &&
	run=$(cat lost.run) &&
	test "$(db_query "SELECT status, agent, attempts FROM runs
		WHERE id = $run")" = "done|a2|2" &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\''")" = 5 &&
	test "$(db_query "SELECT count(*) FROM samples
		WHERE metric = '\''microbench.score'\''")" = 5 &&
	test "$(sample_count "$(git -C repo rev-parse master)" \
		microbench.score)" = 3 &&
	grep "run $run .*connection to .* lost" queue.err
'

test_done
