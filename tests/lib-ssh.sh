# Sourced by the ssh end-to-end tests (t04xx), after test-lib.sh: test
# machines made of a real sshd each, in a network namespace of its own with
# its own address, reached from here over a veth pair. Everything is
# created by the test (host keys, client keys, known_hosts, fixture trees)
# and removed at exit, on failure too.
#
#   ssh_require                 skip the whole test unless this can work
#   ssh_keys                    client keys: keys/id_ed25519, keys/id_rsa
#   ssh_agent_start N [KEYTYPE] start agent aN (10.S.N.2, host key KEYTYPE)
#   ssh_agent_stop N            kill its sshd and everything it started
#   ssh_known_hosts N...        keys/known_hosts for those agents
#   ssh_agent_config N [KEY] [EXTRA]  an agents: entry for aN
#
# An agent's sshd gives its sessions HOME=agents/aN/home (so that "~"
# there is inside the trash directory), BISECT_AGENT_ROOT=agents/aN/root
# (its /proc and /sys fixture), AGENT_NAME=aN and FAULTS=faults, which
# the fake agent of the fault tests reads, plus the NAME=VALUE words of
# $SSH_AGENT_ENV when it is set (BISECT_AGENT_QEMU for the boot tests).
# With $SSH_NO_SFTP set, the sshd has no sftp subsystem.

SSH_TEST_NUM=$(echo "$TEST_NAME" | sed 's/^t0*\([0-9]*\)-.*/\1/')

# A subnet 10.S.x.x of its own for this run, claimed with an atomic
# mkdir under /run (a claim whose test is gone is taken over), so that
# two checkouts, or two copies of one test, can run at once: the
# namespaces and links are named after S too.
ssh_net_claim() {
	for s in $(seq $((200 + SSH_TEST_NUM % 50)) 254) $(seq 100 199); do
		d=/run/bisectd-test-net.$s
		if ! mkdir "$d" 2>/dev/null; then
			p=$(cat "$d/pid" 2>/dev/null)
			if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
				continue
			fi
			# a claim without a pid may be being made right now
			[ -n "$p" ] || continue
			rm -rf "$d" && mkdir "$d" 2>/dev/null || continue
		fi
		echo $$ >"$d/pid"
		SSH_NET=$s
		SSH_NET_CLAIM=$d
		return 0
	done
	return 1
}
SSH_NET=$((200 + SSH_TEST_NUM % 50))
SSH_NET_CLAIM=
ssh_net_claim 2>/dev/null || :
SSH_PREFIX=bd$SSH_NET

# The EXIT trap (test-lib.sh) cleans up; make signals take that path too.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

ssh_require() {
	why=
	if [ "$(id -u)" != 0 ]; then
		why="needs root for sshd and network namespaces"
	elif [ ! -x /usr/sbin/sshd ]; then
		why="no /usr/sbin/sshd (openssh-server)"
	elif ! command -v ip >/dev/null 2>&1; then
		why="no ip (iproute2)"
	elif [ -z "$SSH_NET_CLAIM" ]; then
		why="no free test subnet could be claimed under /run"
	elif ! ip netns add "${SSH_PREFIX}probe" 2>/dev/null; then
		why="cannot create a network namespace"
	else
		ip netns del "${SSH_PREFIX}probe"
	fi
	if [ -n "$why" ]; then
		[ -z "$SSH_NET_CLAIM" ] || rm -rf "$SSH_NET_CLAIM"
		test_skip "$TEST_NAME" "$why"
		test_done
		exit 0
	fi
	mkdir -p /run/sshd
	mkdir -p "$TRASH/keys" "$TRASH/agents" "$TRASH/faults"
	test_at_exit ssh_cleanup
}

ssh_ns() {
	echo "${SSH_PREFIX}a$1"
}

ssh_addr() {
	echo "10.$SSH_NET.$1.2"
}

ssh_keys() {
	ssh-keygen -q -t ed25519 -N '' -C bisectd-test \
		-f "$TRASH/keys/id_ed25519" &&
	ssh-keygen -q -t rsa -b 3072 -N '' -C bisectd-test \
		-f "$TRASH/keys/id_rsa" &&
	cat "$TRASH/keys/id_ed25519.pub" "$TRASH/keys/id_rsa.pub" \
		>"$TRASH/keys/authorized_keys" &&
	chmod 600 "$TRASH/keys/id_ed25519" "$TRASH/keys/id_rsa"
}

# A 2-node, 48-CPU, 64G machine (nodes=2) or a 1-node, 8-CPU, 16G one.
ssh_fixture() {
	fx_root=$1 fx_nodes=$2
	if [ "$fx_nodes" = 2 ]; then
		fx_cpus=48 fx_mem=67108864 fx_model='Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz'
	else
		fx_cpus=8 fx_mem=16777216 fx_model='Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz'
	fi
	mkdir -p "$fx_root/proc/sys/kernel" "$fx_root/sys/devices/system/cpu" \
		"$fx_root/sys/kernel/mm/transparent_hugepage" &&
	fx_i=0 &&
	while [ $fx_i -lt $fx_cpus ]; do
		printf 'processor\t: %d\nmodel name\t: %s\n\n' $fx_i "$fx_model"
		fx_i=$((fx_i + 1))
	done >"$fx_root/proc/cpuinfo" &&
	printf 'MemTotal:       %d kB\n' $fx_mem >"$fx_root/proc/meminfo" &&
	echo "0-$((fx_cpus - 1))" >"$fx_root/sys/devices/system/cpu/online" &&
	fx_n=0 &&
	while [ $fx_n -lt "$fx_nodes" ]; do
		mkdir -p "$fx_root/sys/devices/system/node/node$fx_n" &&
		echo "$((fx_n * fx_cpus / fx_nodes))-$(((fx_n + 1) * fx_cpus / fx_nodes - 1))" \
			>"$fx_root/sys/devices/system/node/node$fx_n/cpulist" &&
		printf 'Node %d MemTotal:       %d kB\n' $fx_n $((fx_mem / fx_nodes)) \
			>"$fx_root/sys/devices/system/node/node$fx_n/meminfo" &&
		fx_n=$((fx_n + 1))
	done &&
	echo 'always [madvise] never' \
		>"$fx_root/sys/kernel/mm/transparent_hugepage/enabled" &&
	echo 'always defer defer+madvise [madvise] never' \
		>"$fx_root/sys/kernel/mm/transparent_hugepage/defrag" &&
	echo 1 >"$fx_root/proc/sys/kernel/numa_balancing" &&
	echo 6.1.0-test >"$fx_root/proc/sys/kernel/osrelease" &&
	echo "testbox" >"$fx_root/proc/sys/kernel/hostname" &&
	echo "BOOT_IMAGE=/vmlinuz-6.1.0-test ro" >"$fx_root/proc/cmdline" &&
	mkdir -p "$fx_root/proc/sys/kernel/random" &&
	printf '%08x-0000-4000-8000-000000000000\n' \
		"$(printf %s "$fx_root" | cksum | cut -d" " -f1)" \
		>"$fx_root/proc/sys/kernel/random/boot_id"
}

# Is something listening on ADDR port 22 (readiness of sshd)?
ssh_port_open() {
	"$PYTHON3" -c 'import socket, sys
socket.create_connection((sys.argv[1], 22), 0.5).close()' "$1"
}

# ssh_agent_start N [KEYTYPE [NODES]]: agent aN at 10.S.N.2.
ssh_agent_start() {
	n=$1 type=${2:-ed25519} nodes=${3:-1}
	ns=$(ssh_ns "$n")
	dir=$TRASH/agents/a$n
	host=${SSH_PREFIX}h$n peer=${SSH_PREFIX}n$n
	mkdir -p "$dir/home" &&
	ssh_fixture "$dir/root" "$nodes" &&
	if [ ! -f "$dir/host_key" ]; then
		ssh-keygen -q -t "$type" -N '' -C "a$n" -f "$dir/host_key"
	fi &&
	cat >"$dir/sshd_config" <<-EOF &&
	ListenAddress $(ssh_addr "$n"):22
	HostKey $dir/host_key
	AuthorizedKeysFile $TRASH/keys/authorized_keys
	PidFile $dir/sshd.pid
	UsePAM no
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	MaxSessions 64
	MaxStartups 64
	LogLevel VERBOSE
	$([ -n "${SSH_NO_SFTP:-}" ] || echo "Subsystem sftp internal-sftp")
	SetEnv HOME=$dir/home BISECT_AGENT_ROOT=$dir/root AGENT_NAME=a$n FAULTS=$TRASH/faults ${SSH_AGENT_ENV:-}
	EOF
	if [ "$type" = rsa ]; then
		# libssh2 1.10 signs with ssh-rsa (SHA-1) only: see
		# docs/agents.md
		printf "HostKeyAlgorithms +ssh-rsa\nPubkeyAcceptedAlgorithms +ssh-rsa\n" \
			>>"$dir/sshd_config"
	fi &&
	if ! ip netns list | grep -q "^$ns\\b"; then
		ip netns add "$ns" &&
		ip link add "$host" type veth peer name "$peer" &&
		ip link set "$peer" netns "$ns" &&
		ip addr add "10.$SSH_NET.$n.1/24" dev "$host" &&
		ip link set "$host" up &&
		ip netns exec "$ns" ip addr add "$(ssh_addr "$n")/24" \
			dev "$peer" &&
		ip netns exec "$ns" ip link set "$peer" up &&
		ip netns exec "$ns" ip link set lo up
	fi || return 1
	ip netns exec "$ns" /usr/sbin/sshd -D -f "$dir/sshd_config" \
		-E "$dir/sshd.log" </dev/null >/dev/null 2>&1 &
	test_wait_for 100 ssh_port_open "$(ssh_addr "$n")"
}

# Kill an agent's sshd with everything running in its namespace: the
# master (its pid was recorded) and the processes it started there.
ssh_agent_stop() {
	ns=$(ssh_ns "$1")
	pids=$(ip netns pids "$ns" 2>/dev/null)
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null
	test_wait_for 50 ssh_ns_empty "$ns"
}

ssh_ns_empty() {
	[ -z "$(ip netns pids "$1" 2>/dev/null)" ]
}

ssh_cleanup() {
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case "$ns" in
		"${SSH_PREFIX}a"*)
			pids=$(ip netns pids "$ns" 2>/dev/null)
			[ -z "$pids" ] || kill -9 $pids 2>/dev/null
			ip netns del "$ns"
			;;
		esac
	done
	for l in $(ip -o link show 2>/dev/null |
		sed -n "s/^[0-9]*: \(${SSH_PREFIX}h[0-9]*\)@.*/\1/p"); do
		ip link del "$l" 2>/dev/null
	done
	[ -z "$SSH_NET_CLAIM" ] || rm -rf "$SSH_NET_CLAIM"
}

# keys/known_hosts with the host keys of agents N..., as ssh-keyscan would
# give them (but read from the files: the out-of-band check).
ssh_known_hosts() {
	: >"$TRASH/keys/known_hosts" &&
	for n in "$@"; do
		echo "$(ssh_addr "$n") $(cut -d' ' -f1,2 \
			"$TRASH/agents/a$n/host_key.pub")"
	done >>"$TRASH/keys/known_hosts"
}

# ssh_agent_config N [KEY [EXTRA...]]: one "agents:" list entry.
ssh_agent_config() {
	n=$1 key=${2:-id_ed25519}
	shift
	[ $# -eq 0 ] || shift
	cat <<-EOF
	  - name: a$n
	    transport: ssh
	    host: $(ssh_addr "$n")
	    user: root
	    identity: $TRASH/keys/$key
	    known_hosts: $TRASH/keys/known_hosts
	    remote_dir: $TRASH/agents/a$n/remote
	    connect_timeout: 3
	    keepalive: 1
	    silence_timeout: 4
	    probe_interval: 1
	EOF
	for extra in "$@"; do
		echo "    $extra"
	done
}

# How many connections agent aN's sshd accepted.
ssh_logins() {
	grep -c 'Accepted publickey' "$TRASH/agents/a$1/sshd.log"
}

# The state of an agent in the database.
agent_state() {
	sqlite3 -cmd ".timeout 30000" state/bisectd.db \
		"SELECT state FROM agents WHERE name = '$1'"
}

# state_is AGENT STATE: the agent is in that state now.
state_is() {
	test "$(agent_state "$1")" = "$2"
}

# running_on AGENT [N]: N runs (1 unless said) or more run on the agent.
running_on() {
	test "$(db_query "SELECT count(*) FROM runs WHERE status = 'running'
		AND agent = '$1'")" -ge "${2:-1}"
}

# failed_once RUN: the run has failed at least once.
failed_once() {
	test -n "$(db_query "SELECT 1 FROM run_failures WHERE run = $1")"
}

# $TRASH/fake-agent: the real agent, unless faults/aN (once) or
# faults/aN.always (every time) names a fault for the agent aN it runs on:
# garbage (a result that is no result), truncated (a result cut short),
# hang (never returns). Use it with BISECT_AGENT=$TRASH/fake-agent.
ssh_fake_agent() {
	cat >"$TRASH/fake-agent" <<-EOF &&
	#!/bin/sh
	real="$BISECTD_BUILD/bin/bisect-agent"
	fault=
	if [ "\$1" = run ]; then
		if [ -e "\$FAULTS/\$AGENT_NAME.always" ]; then
			fault=\$(cat "\$FAULTS/\$AGENT_NAME.always")
		elif [ -e "\$FAULTS/\$AGENT_NAME" ]; then
			fault=\$(cat "\$FAULTS/\$AGENT_NAME")
			rm -f "\$FAULTS/\$AGENT_NAME"
		fi
	fi
	for res; do :; done
	case "\$fault" in
	garbage)
		mkdir -p "\$res" && echo "this is not a result" >"\$res/result"
		exit 0 ;;
	truncated)
		"\$real" "\$@"
		status=\$?
		head -c 40 "\$res/result" >"\$res/cut" && mv "\$res/cut" "\$res/result"
		exit \$status ;;
	hang)
		exec sleep 1000 ;;
	huge)
		"\$real" "\$@"
		status=\$?
		head -c 69206016 /dev/zero >>"\$res/result"
		exit \$status ;;
	esac
	exec "\$real" "\$@"
	EOF
	chmod +x "$TRASH/fake-agent"
}

# A run's failed attempts: "agent|error" lines.
run_failures() {
	sqlite3 -cmd ".timeout 30000" state/bisectd.db \
		"SELECT agent, error FROM run_failures WHERE run = $1
		ORDER BY attempt"
}

# Is a process running "sleep 1000" in agent aN's namespace?
ssh_agent_hangs() {
	for p in $(ip netns pids "$(ssh_ns "$1")" 2>/dev/null); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		    grep -q "^sleep 1000"; then
			return 0
		fi
	done
	return 1
}
