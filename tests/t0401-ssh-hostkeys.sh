#!/bin/sh
# Host keys and private keys: an unknown host key and a changed one are
# refused with a message naming the host and the key's SHA256 fingerprint;
# a refusal is permanent (a running daemon does not retry it, while it
# keeps probing an agent that is merely down) until known_hosts changes;
# trust on first use records the key; a private key others can read is
# refused.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1

fingerprint() {
	ssh-keygen -l -f "agents/a$1/host_key.pub" | awk '{print $2}'
}

connections() {
	grep -c "^Connection from" agents/a1/sshd.log
}

failures_at_least() {
	test "$(db_query "SELECT failures >= $2 FROM agents
		WHERE name = '$1'")" = 1
}

test_at_exit 'test ! -f "$TRASH/daemon.pid" || kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'setup' '
	setup_bench --commits 3 &&
	ssh-keygen -q -t ed25519 -N "" -f other_host &&
	{
		echo "agents:" &&
		ssh_agent_config 1 &&
		ssh_agent_config 2
	} >>bisectd.yaml
'

test_expect_success 'an unknown host key is refused, with its fingerprint' '
	echo "10.9.9.9 $(cut -d" " -f1,2 other_host.pub)" >keys/known_hosts &&
	test_expect_code 1 bisectctl agents >out 2>err &&
	cat out &&
	fp=$(fingerprint 1) &&
	grep "^a1 .*: refused since" out &&
	grep -F "error: agent '\''a1'\'': the host key of '\''$(ssh_addr 1)'\'' (ED25519 key $fp) is not in '\''$TRASH/keys/known_hosts'\'': refusing to connect" out &&
	test "$(agent_state a1)" = refused &&
	test "$(db_query "SELECT retry_at IS NULL FROM agents
		WHERE name = '\''a1'\''")" = 1
'

test_expect_success 'a changed host key is refused, with its fingerprint' '
	echo "$(ssh_addr 1) $(cut -d" " -f1,2 other_host.pub)" >keys/known_hosts &&
	test_expect_code 1 bisectctl agents --probe >out &&
	fp=$(fingerprint 1) &&
	grep -F "error: agent '\''a1'\'': the host key of '\''$(ssh_addr 1)'\'' has CHANGED (ED25519 key $fp is not the one in" out &&
	test "$(agent_state a1)" = refused
'

test_expect_success 'a daemon does not retry a refusal, but does retry a down agent' '
	bisectd --foreground >daemon.log 2>&1 &
	echo $! >daemon.pid &&
	test_wait_for 150 failures_at_least a2 4 &&
	c1=$(connections) &&
	test_wait_for 150 failures_at_least a2 6 &&
	test "$(connections)" = "$c1" &&
	test "$(agent_state a1)" = refused &&
	test "$(agent_state a2)" = down
'

test_expect_success 'a corrected known_hosts puts the agent back in service' '
	ssh_known_hosts 1 &&
	test_wait_for 100 state_is a1 up &&
	kill "$(cat daemon.pid)" &&
	test_wait_for 100 eval "! kill -0 $(cat daemon.pid) 2>/dev/null" &&
	rm daemon.pid
'

test_expect_success 'trust on first use records the key it was shown' '
	rm -f keys/known_hosts &&
	sed "s/    probe_interval: 1/    probe_interval: 1\n    trust_on_first_use: true/" \
		bisectd.yaml >tofu.yaml &&
	grep -c trust_on_first_use tofu.yaml | grep -qx 2 &&
	test_expect_code 1 bisectctl -c tofu.yaml agents --probe >out &&
	grep "^a1 .*: up since" out &&
	grep -x "$(ssh_addr 1) $(cut -d" " -f1,2 agents/a1/host_key.pub)" \
		keys/known_hosts &&
	{ bisectctl -c tofu.yaml agents --probe >out2 || :; } &&
	grep "^a1 .*: up since" out2 &&
	test "$(wc -l <keys/known_hosts)" = 1
'

test_expect_success 'trust on first use never accepts a changed key' '
	echo "$(ssh_addr 1) $(cut -d" " -f1,2 other_host.pub)" >keys/known_hosts &&
	{ bisectctl -c tofu.yaml agents --probe >out || :; } &&
	grep "has CHANGED" out &&
	test "$(wc -l <keys/known_hosts)" = 1
'

test_expect_success 'a private key others can read is refused' '
	ssh_known_hosts 1 &&
	chmod 644 keys/id_ed25519 &&
	test_expect_code 1 bisectctl agents --probe >out &&
	grep -F "error: agent '\''a1'\'': private key '\''$TRASH/keys/id_ed25519'\'' is accessible by others (mode 0644): refusing to use it" out &&
	test "$(agent_state a1)" = refused &&
	chmod 600 keys/id_ed25519 &&
	{ bisectctl agents --probe >out || :; } &&
	grep "^a1 .*: up since" out
'

test_done
