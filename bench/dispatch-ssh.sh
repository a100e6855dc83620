#!/bin/sh
# make bench: dispatch to ssh agents. Three agents, each a real sshd in a
# network namespace of its own (as in tests/t04xx), then:
#
# 1. the per-run dispatch overhead (connect or reuse, upload, exec, fetch)
#    of the ssh transport against the same steps with OpenSSH's ssh and
#    scp, measured in the same run (build/bench/dispatch-harness);
#    target: at most 0.3 times OpenSSH's with the connection reused;
# 2. 3 agents x 2 slots on a queue of short runs (about a second each):
#    the share of slot time holding a run (from its dispatch to its result
#    back, runs.dispatched_at to returned_at), from the moment bisectctl
#    starts the scheduler to the moment it is done; target: at least 95%.
#    The share spent in the testcases themselves is printed beside it.
#
# Needs root (sshd, ip netns); says so and skips otherwise. Exits 1 when a
# target is missed.
set -u
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
PATH="$BISECTD_BUILD/bin:$PATH"
PYTHON3=/usr/bin/python3
RUNS=${DISPATCH_RUNS:-20}
SHORT=${DISPATCH_SHORT:-1}
QUEUE=${DISPATCH_QUEUE:-60}

if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/sshd ] ||
    ! ip netns add bdbenchprobe 2>/dev/null; then
	echo "dispatch-ssh: skipped: needs root, /usr/sbin/sshd and network namespaces"
	exit 0
fi
ip netns del bdbenchprobe

work=$(mktemp -d /tmp/bisectd-bench-ssh.XXXXXX)
cleanup() {
	for n in 1 2 3; do
		pids=$(ip netns pids bdbencha$n 2>/dev/null)
		[ -z "$pids" ] || kill -9 $pids 2>/dev/null
		ip netns del bdbencha$n 2>/dev/null
		ip link del bdbh$n 2>/dev/null
	done
	[ -n "${DISPATCH_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

port_open() {
	"$PYTHON3" -c 'import socket, sys
socket.create_connection((sys.argv[1], 22), 0.5).close()' "$1" 2>/dev/null
}

cd "$work"
mkdir -p /run/sshd keys
ssh-keygen -q -t ed25519 -N '' -f keys/id_ed25519
cp keys/id_ed25519.pub keys/authorized_keys
: >keys/known_hosts
for n in 1 2 3; do
	addr=10.250.$n.2
	mkdir -p a$n/home
	ssh-keygen -q -t ed25519 -N '' -f a$n/host_key
	cat >a$n/sshd_config <<-CFG
	ListenAddress $addr:22
	HostKey $work/a$n/host_key
	AuthorizedKeysFile $work/keys/authorized_keys
	PidFile $work/a$n/sshd.pid
	UsePAM no
	PasswordAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	MaxSessions 64
	MaxStartups 64
	Subsystem sftp internal-sftp
	SetEnv HOME=$work/a$n/home
	CFG
	ip netns add bdbencha$n &&
	ip link add bdbh$n type veth peer name bdbn$n &&
	ip link set bdbn$n netns bdbencha$n &&
	ip addr add 10.250.$n.1/24 dev bdbh$n &&
	ip link set bdbh$n up &&
	ip netns exec bdbencha$n ip addr add $addr/24 dev bdbn$n &&
	ip netns exec bdbencha$n ip link set bdbn$n up &&
	ip netns exec bdbencha$n ip link set lo up || exit 1
	ip netns exec bdbencha$n /usr/sbin/sshd -D -f "$work/a$n/sshd_config" \
		-E "$work/a$n/sshd.log" </dev/null >/dev/null 2>&1 &
	echo "$addr $(cut -d' ' -f1,2 a$n/host_key.pub)" >>keys/known_hosts
done
for n in 1 2 3; do
	tries=100
	until port_open 10.250.$n.2; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || { echo "dispatch-ssh: sshd a$n did not start"; exit 1; }
		sleep 0.1
	done
done

git init -q repo
"$PYTHON3" "$BISECTD_SRC/tests/fixture-repo.py" --commits 2 |
	git -C repo fast-import --quiet
git -C repo reset -q --hard master
mkdir art
cp repo/bench.sh repo/speed repo/noise art/
{
	cat <<-CFG
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: "true"
	      artifacts: [bench.sh, speed, noise]
	agents:
	CFG
	for n in 1 2 3; do
		cat <<-CFG
		  - name: a$n
		    transport: ssh
		    host: 10.250.$n.2
		    user: root
		    identity: $work/keys/id_ed25519
		    known_hosts: $work/keys/known_hosts
		    remote_dir: $work/a$n/remote
		    slots: 2
		CFG
	done
} >bisectd.yaml

status=0
BISECT_AGENT=$BISECTD_BUILD/bin/bisect-agent
export BISECT_AGENT
mkdir h
"$BISECTD_BUILD/bench/dispatch-harness" "$work/bisectd.yaml" a1 "$work/art" \
	"$work/h" "$RUNS" 0.3 || status=1

# The busy figure: one queue of QUEUE short runs over 3 agents x 2 slots.
cat >short.yaml <<-JOB
testcase: microbench
run: sleep $SHORT; sh bench.sh
runs: 1
metric: microbench.score
JOB
bisectctl -c bisectd.yaml queue short.yaml --commit master --wait \
	>/dev/null 2>warm.err || { cat warm.err; exit 1; }
# another job (runs: is not part of a job's identity): QUEUE new runs
sed "s/^runs: 1/runs: $QUEUE\nlabel: queue/" short.yaml >queue.yaml
t0=$(date +%s.%N)
bisectctl -c bisectd.yaml queue queue.yaml --commit master --wait \
	>/dev/null 2>queue.err || { cat queue.err; exit 1; }
t1=$(date +%s.%N)
db() {
	sqlite3 -cmd ".timeout 30000" state/bisectd.db "$1"
}
useful=$(db "SELECT sum(s.value) FROM samples s JOIN runs r ON s.run = r.id
	WHERE r.id > 1 AND s.metric = 'time.elapsed_time'")
held=$(db "SELECT sum(returned_at - dispatched_at) FROM runs WHERE id > 1")
done=$(db "SELECT count(*) FROM runs WHERE id > 1 AND status = 'done'")
spread=$(db "SELECT group_concat(n, '/') FROM (SELECT count(*) AS n FROM runs
	WHERE id > 1 GROUP BY agent ORDER BY agent)")
awk -v t0="$t0" -v t1="$t1" -v u="$useful" -v h="$held" -v n="$done" \
    -v s="$spread" -v q="$QUEUE" -v len="$SHORT" 'BEGIN {
	span = t1 - t0; busy = 100 * h / (6 * span); work = 100 * u / (6 * span)
	printf "dispatch-ssh: 3 agents x 2 slots, %d runs of ~%gs (a1/a2/a3: " \
	    "%s) in %.2f s, from the scheduler'\''s start to its end\n", \
	    n, len, s, span
	printf "dispatch-ssh: slots busy with a run: %.1f%% (target >= 95%%): " \
	    "%s\n", busy, (busy >= 95 && n == q) ? "ok" : "MISSED"
	printf "dispatch-ssh: slots busy in the testcase itself: %.1f%% " \
	    "(the rest: connecting, the agent'\''s own setup, uploads, " \
	    "fetches)\n", work
	exit !(busy >= 95 && n == q)
}' || status=1
exit $status
