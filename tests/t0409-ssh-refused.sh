#!/bin/sh
# Faults of a machine's set-up are said once and kept as a state, not
# retried for ever: an sshd without the sftp subsystem, and a known_hosts
# file that others may write, leave the agent 'refused' with the reason;
# the work goes to the other machines, and a scheduler tries a refused
# agent when it starts (its link and its first probe), not again and
# again while it runs.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
SSH_NO_SFTP=1 ssh_agent_start 1 ed25519 || exit 1
ssh_agent_start 2 ed25519 || exit 1

connections() {
	grep -c "^Connection from" "agents/a$1/sshd.log"
}

test_expect_success 'setup' '
	setup_bench --commits 3 &&
	ssh_known_hosts 1 2 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 &&
		ssh_agent_config 2
	} >>bisectd.yaml &&
	! grep -q "^Subsystem" agents/a1/sshd_config &&
	grep -q "^Subsystem sftp" agents/a2/sshd_config
'

test_expect_success 'no SFTP subsystem: refused, with what to do' '
	test_expect_code 1 bisectctl agents --probe >out 2>err &&
	cat out &&
	grep "^a1 .*: refused since" out &&
	grep -F "error: agent '\''a1'\'': '\''$(ssh_addr 1)'\'' has no SFTP subsystem" out &&
	grep -q "add .Subsystem sftp internal-sftp. to its sshd_config" out &&
	test "$(agent_state a1)" = refused &&
	test "$(agent_state a2)" = up &&
	test "$(db_query "SELECT retry_at IS NULL FROM agents
		WHERE name = '\''a1'\''")" = 1
'

test_expect_success 'the work goes on without it; the fault is not retried on and on' '
	before=$(connections 1) &&
	bisectctl queue job.yaml --commit master --wait >q.out 2>q.err &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\''
		AND agent = '\''a2'\''")" = 3 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE agent = '\''a1'\''")" = 0 &&
	test "$(grep -c "has no SFTP subsystem" q.err)" -le 2 &&
	test "$(connections 1)" -le $((before + 2))
'

test_expect_success 'a known_hosts file anyone may write is refused' '
	chmod 666 keys/known_hosts &&
	test_expect_code 1 bisectctl agents --probe >out 2>err &&
	grep -F "error: agent '\''a2'\'': known_hosts: '\''$TRASH/keys/known_hosts'\'' may be written by others (mode 0666)" out &&
	test "$(agent_state a2)" = refused &&
	chmod 644 keys/known_hosts &&
	bisectctl agents --probe >out 2>err || :
	test "$(agent_state a2)" = up
'

test_done
