#!/bin/sh
# More faults of a machine's set-up that are kept as a state and said
# once (refused, with the reason) instead of being probed for ever: a
# host known only under another key type, an agent program that cannot
# be run over there (its interpreter or loader missing: exit 127; a
# remote_dir on a noexec mount: exit 126), and an identity file that
# others may write. Each: 'agents --probe' exits 1 naming it, the state
# is refused, and a scheduler that runs a whole request meanwhile (on
# the local agent) does not connect to it again and again.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1

figure() {
	echo "$*" >>"$TRASH/figures"
}

connections() {
	grep -c "^Connection from" agents/a1/sshd.log
}

# a request that runs on the local agent while a1 stays refused, and
# how many times the scheduler connected to a1 meanwhile: at most its
# link's first try and a probe at start
not_retried() {
	before=$(connections) &&
	bisectctl queue job.yaml --commit "$1" --wait >q.out 2>q.err &&
	test "$(agent_state a1)" = refused &&
	test "$(db_query "SELECT count(*) FROM runs WHERE agent = 'a1'")" = 0 &&
	test "$(connections)" -le $((before + 2)) &&
	figure "$2: a whole request ran meanwhile (on the local agent); connections to a1: $before before, $(connections) after; a1 refused throughout"
}

test_expect_success 'setup' '
	setup_bench --commits 4 &&
	echo "disturbed: keep" >>job.yaml &&
	ssh_known_hosts 1 &&
	cp keys/known_hosts keys/known_hosts.good &&
	{
		echo "agents:" &&
		ssh_agent_config 1 &&
		echo "  - name: l" &&
		echo "    transport: local"
	} >>bisectd.yaml &&
	bisectctl agents --probe >out 2>err &&
	test "$(agent_state a1)" = up
'

test_expect_success 'a host known only under another key type: refused' '
	ssh-keygen -q -t ecdsa -N "" -f other_key &&
	echo "$(ssh_addr 1) $(cut -d" " -f1,2 other_key.pub)" >keys/known_hosts &&
	test_expect_code 1 bisectctl agents --probe >out 2>err &&
	cat out &&
	grep "^a1 .*: refused since" out &&
	grep -F "error: agent '\''a1'\'': '\''$(ssh_addr 1)'\'' shows a host key of another type (ED25519 key SHA256:" out &&
	grep -F "than '\''$TRASH/keys/known_hosts'\'' knows for it (ecdsa-sha2-nistp256): refusing to connect" out &&
	test "$(agent_state a1)" = refused &&
	not_retried master~3 "host known under another key type" &&
	cp keys/known_hosts.good keys/known_hosts &&
	bisectctl agents --probe >out 2>err &&
	test "$(agent_state a1)" = up
'

# in the mount namespace of a1's sshd (ip netns exec made it one of its
# own): what its sessions see, and only they
in_a1() {
	nsenter -t "$(cat agents/a1/sshd.pid)" -m "$@"
}
LIBYAML=$(ldd "$BISECTD_BUILD/bin/bisect-agent" | awk '/libyaml/ { print $3 }')

test_expect_success 'a library the agent program needs is missing there: refused (exit 127)' '
	test -n "$LIBYAML" &&
	in_a1 mount --bind /dev/null "$LIBYAML" &&
	test_expect_code 1 bisectctl agents --probe >out 2>err &&
	cat out &&
	grep "^a1 .*: refused since" out &&
	grep -F "error: agent '\''a1'\'': the agent program '\''$TRASH/agents/a1/remote/bin/bisect-agent-" out &&
	grep -F "cannot be run there (exit 127: " out &&
	grep -F "libyaml" out &&
	grep -F "it, its interpreter or a library it needs is missing on that machine" out &&
	test "$(agent_state a1)" = refused &&
	not_retried master~2 "a library of the agent missing there (exit 127)" &&
	in_a1 umount "$LIBYAML" &&
	bisectctl agents --probe >out 2>err &&
	test "$(agent_state a1)" = up
'

test_expect_success 'an agent program on a noexec mount there: refused (exit 126)' '
	in_a1 mount -t tmpfs -o noexec,size=64m tmpfs "$TRASH/agents/a1/remote" &&
	test_expect_code 1 bisectctl agents --probe >out 2>err &&
	cat out &&
	grep -F "cannot be run there (exit 126: " out &&
	grep -F "is remote_dir on a noexec mount?" out &&
	test "$(agent_state a1)" = refused &&
	not_retried master~1 "remote_dir on a noexec mount (exit 126)" &&
	in_a1 umount "$TRASH/agents/a1/remote" &&
	bisectctl agents --probe >out 2>err &&
	test "$(agent_state a1)" = up
'

test_expect_success 'an identity file others may write: refused' '
	chmod 622 keys/id_ed25519 &&
	test_expect_code 1 bisectctl agents --probe >out 2>err &&
	cat out &&
	grep -F "error: agent '\''a1'\'': private key '\''$TRASH/keys/id_ed25519'\'' is accessible by others (mode 0622): refusing to use it; chmod 600 it" out &&
	test "$(agent_state a1)" = refused &&
	not_retried master "an identity file others may write" &&
	chmod 600 keys/id_ed25519 &&
	bisectctl agents --probe >out 2>err &&
	test "$(agent_state a1)" = up
'

[ ! -f "$TRASH/figures" ] || sed "s/^/# figure: /" "$TRASH/figures"
test_done
