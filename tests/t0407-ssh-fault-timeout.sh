#!/bin/sh
# Runs that hang. When the agent itself hangs, the transport gives up at
# the run's timeout (the testcase's own plus the agent's run_margin),
# closes the channel -- the hung process on the machine gets SIGHUP and
# dies -- marks the run failed with the reason and retries it. When the
# testcase hangs, the agent stops it at its timeout and records that: the
# run fails with "timed out" up to the cap, and the agent stays in service.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1
ssh_fake_agent || exit 1
BISECT_AGENT=$TRASH/fake-agent
export BISECT_AGENT

test_expect_success 'setup' '
	setup_bench --commits 3 &&
	ssh_known_hosts 1 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519 "run_margin: 2"
	} >>bisectd.yaml &&
	{ cat job.yaml && echo "timeout: 1s"; } >quick.yaml &&
	sed -i "s/^runs: 3/runs: 1/" quick.yaml
'

test_expect_success 'a hung agent: timed out, killed over there, retried' '
	echo hang >faults/a1 &&
	bisectctl queue quick.yaml --commit master --wait >out 2>err &&
	test ! -e faults/a1 &&
	run=$(db_query "SELECT id FROM runs") &&
	run_failures $run >failures &&
	cat failures &&
	grep "^a1|agent '\''a1'\'': run timed out after 3s" failures &&
	test "$(db_query "SELECT status, attempts FROM runs WHERE id = $run")" = "done|2" &&
	test_wait_for 100 eval "! ssh_agent_hangs 1"
'

test_expect_success 'a hung testcase: the agent records the timeout, up to the cap' '
	cat >hang.yaml <<-\EOF &&
	testcase: microbench
	run: sleep 30
	timeout: 1s
	runs: 1
	metric: microbench.score
	EOF
	test_expect_code 1 bisectctl queue hang.yaml --commit master --wait \
		>out 2>err &&
	grep -q "has no samples at 1 of its commits" err &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	test "$(db_query "SELECT status, attempts FROM runs WHERE id = $run")" = "failed|3" &&
	test "$(db_query "SELECT count(*) FROM run_failures WHERE run = $run
		AND error = '\''timed out after 1s'\''")" = 3 &&
	test "$(agent_state a1)" = up
'

test_done
