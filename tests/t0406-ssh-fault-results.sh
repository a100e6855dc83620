#!/bin/sh
# Agents that send back garbage or a truncated result: the run is marked
# failed with the parser's reason and retried; the agent is probed and
# back in service at once (it answers). An agent that always sends garbage
# makes its runs fail at the attempt cap, with the reason, while the
# scheduler goes on and nothing recorded before is lost.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1
ssh_agent_start 2 ed25519 || exit 1
ssh_fake_agent || exit 1
BISECT_AGENT=$TRASH/fake-agent
export BISECT_AGENT

test_expect_success 'setup' '
	setup_bench --commits 4 &&
	ssh_known_hosts 1 2 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 &&
		ssh_agent_config 2
	} >>bisectd.yaml &&
	sed -n "/^agents:/q;p" bisectd.yaml >one.yaml &&
	{ echo "agents:"; ssh_agent_config 1; } >>one.yaml &&
	bisectctl queue job.yaml --commit master --wait >/dev/null 2>&1 &&
	test "$(runs_with_status done)" = 3
'

test_expect_success 'garbage: failed with the reason, retried, done' '
	echo garbage >faults/a1 &&
	bisectctl queue job.yaml --commit master~1 --wait >out 2>err &&
	test ! -e faults/a1 &&
	test "$(runs_with_status done)" = 6 &&
	run=$(db_query "SELECT run FROM run_failures") &&
	run_failures $run >failures &&
	cat failures &&
	grep "^a1|agent '\''a1'\'': bisect-agent exited with status 0 without a usable result (.*/result:1: " failures &&
	test "$(db_query "SELECT status, attempts FROM runs WHERE id = $run")" = "done|2" &&
	test "$(agent_state a1)" = up
'

test_expect_success 'a truncated result: failed with the reason, retried, done' '
	echo truncated >faults/a2 &&
	bisectctl queue job.yaml --commit master~2 --wait >out 2>err &&
	test ! -e faults/a2 &&
	test "$(runs_with_status done)" = 9 &&
	run=$(db_query "SELECT run FROM run_failures WHERE agent = '\''a2'\''") &&
	run_failures $run >failures &&
	cat failures &&
	grep "^a2|agent '\''a2'\'': bisect-agent exited with status 0 without a usable result (.*/result:[0-9]*: .*)" failures &&
	test "$(db_query "SELECT status FROM runs WHERE id = $run")" = done
'

test_expect_success 'always garbage: failed at the cap, nothing recorded is lost' '
	samples=$(db_query "SELECT count(*) FROM samples") &&
	echo garbage >faults/a1.always &&
	test_expect_code 1 bisectctl -c one.yaml queue job.yaml \
		--commit master~3 --wait >out 2>err &&
	grep -q "has no samples at 1 of its commits" err &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''failed'\''
		AND attempts = 3 AND error LIKE '\''%without a usable result%'\''")" = 3 &&
	test "$(db_query "SELECT count(*) FROM run_failures rf JOIN runs r ON
		rf.run = r.id WHERE r.status = '\''failed'\''")" = 9 &&
	test "$(db_query "SELECT count(*) FROM samples")" = "$samples" &&
	test "$(runs_with_status done)" = 9
'

test_expect_success 'the scheduler goes on serving: the next request runs' '
	rm faults/a1.always &&
	{ cat job.yaml && echo "label: after"; } >after.yaml &&
	bisectctl -c one.yaml queue after.yaml --commit master~3 --wait \
		>out 2>err &&
	test "$(runs_with_status done)" = 12
'

test_expect_success 'a result over the cap: not downloaded past it, not kept, retried' '
	sed "s/^testcase: microbench$/testcase: huge/" job.yaml >huge.yaml &&
	echo huge >faults/a1 &&
	bisectctl -c one.yaml queue huge.yaml --commit master --wait \
		>out 2>err &&
	test ! -e faults/a1 &&
	run=$(db_query "SELECT max(run) FROM run_failures") &&
	run_failures $run >failures &&
	cat failures &&
	grep -q "'"'"'result'"'"' is larger than 64 MiB, the most a result may be" failures &&
	test "$(db_query "SELECT status FROM runs WHERE id = $run")" = done &&
	test "$(du -sm "state/runs/$run" | cut -f1)" -lt 64
'

test_done
