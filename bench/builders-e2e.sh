#!/bin/sh
# make bench: a real end-to-end bisection across 3 ssh agents and 2
# builders, each machine a real sshd in a network namespace of its own,
# against the same bisection with 1 agent (this machine) and local builds,
# both in this run, on the same generated repository (tests/fixture-repo.py:
# COMMITS commits, a -5% culprit). It prints the wall time of each, the
# builds made per host (bisectctl builders' counts: local, b1, b2), the
# runs per agent, the runs the interference monitor set aside (and had
# repeated: on a busy machine they, not the bisection, set the wall time)
# and the load average before and after.
#
# Every "machine" is this host: a build is `sleep BUILD_S` (a stand-in for
# a compile whose CPU a real builder would have to itself; compiling here
# would make 5 namespaces share 2 CPUs) and a run is `sleep RUN_S` and the
# fixture's noisy benchmark. The figures are the scheduling's: how builds
# on builders overlap runs on agents.
#
# So each agent's runs are the other agents' interference, which separate
# machines would not have: the job says `disturbed: keep` on both sides
# (BUILDERS_DISTURBED=repeat for the default, a disturbed run set aside
# and run again), and each side prints the runs set aside and the runs
# counted although disturbed ("marked"), so that the load shows. Both
# bisections allow drift (--allow-drift): other work on this host (a test
# that sets nr_hugepages, say) would otherwise fail one for a setting no
# agent of its own changed.
#
#   BUILDERS_COMMITS (64), BUILDERS_BUILD_S (4), BUILDERS_RUN_S (1),
#   BUILDERS_DISTURBED (keep)
#
# The bisections use the CLI's defaults (max_runs 40, initial_runs 3,
# min_effect_pct 1). Needs root (sshd, ip netns); says so and skips
# otherwise. Exits 1 when a bisection does not name the planted culprit.
set -u
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
PATH="$BISECTD_BUILD/bin:$PATH"
PYTHON3=/usr/bin/python3
COMMITS=${BUILDERS_COMMITS:-64}
BUILD_S=${BUILDERS_BUILD_S:-4}
RUN_S=${BUILDERS_RUN_S:-1}
CULPRIT=$((COMMITS * 5 / 8))
DISTURBED=${BUILDERS_DISTURBED:-keep}
case "$DISTURBED" in
keep|repeat) ;;
*) echo "builders-e2e: BUILDERS_DISTURBED is keep or repeat, not '$DISTURBED'"; exit 2 ;;
esac

if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/sshd ] ||
    ! command -v git >/dev/null 2>&1 ||
    ! ip netns add bdbldprobe 2>/dev/null; then
	echo "builders-e2e: skipped: needs root, /usr/sbin/sshd, git and network namespaces"
	exit 0
fi
ip netns del bdbldprobe

work=$(mktemp -d /tmp/bisectd-bench-builders.XXXXXX)
cleanup() {
	for n in 1 2 3 4 5; do
		pids=$(ip netns pids bdbld$n 2>/dev/null)
		[ -z "$pids" ] || kill -9 $pids 2>/dev/null
		ip netns del bdbld$n 2>/dev/null
		ip link del bdbldh$n 2>/dev/null
	done
	[ -n "${BUILDERS_KEEP:-}" ] || rm -rf "$work"
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
# machines 1-3 are the agents a1-a3, 4 and 5 the builders b1 and b2
for n in 1 2 3 4 5; do
	addr=10.249.$n.2
	mkdir -p m$n/home
	ssh-keygen -q -t ed25519 -N '' -f m$n/host_key
	cat >m$n/sshd_config <<-CFG
	ListenAddress $addr:22
	HostKey $work/m$n/host_key
	AuthorizedKeysFile $work/keys/authorized_keys
	PidFile $work/m$n/sshd.pid
	UsePAM no
	PasswordAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	MaxSessions 64
	MaxStartups 64
	Subsystem sftp internal-sftp
	SetEnv HOME=$work/m$n/home
	CFG
	ip netns add bdbld$n &&
	ip link add bdbldh$n type veth peer name bdbldn$n &&
	ip link set bdbldn$n netns bdbld$n &&
	ip addr add 10.249.$n.1/24 dev bdbldh$n &&
	ip link set bdbldh$n up &&
	ip netns exec bdbld$n ip addr add $addr/24 dev bdbldn$n &&
	ip netns exec bdbld$n ip link set bdbldn$n up &&
	ip netns exec bdbld$n ip link set lo up || exit 1
	ip netns exec bdbld$n /usr/sbin/sshd -D -f "$work/m$n/sshd_config" \
		-E "$work/m$n/sshd.log" </dev/null >/dev/null 2>&1 &
	echo "$addr $(cut -d' ' -f1,2 m$n/host_key.pub)" >>keys/known_hosts
done
for n in 1 2 3 4 5; do
	tries=100
	until port_open 10.249.$n.2; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || { echo "builders-e2e: sshd $n did not start"; exit 1; }
		sleep 0.1
	done
done

git init -q repo
"$PYTHON3" "$BISECTD_SRC/tests/fixture-repo.py" --commits "$COMMITS" \
	--culprit "$CULPRIT" --change -5 | git -C repo fast-import --quiet
git -C repo reset -q --hard master
good=$(git -C repo rev-list --reverse master | head -n 1)
culprit=$(git -C repo log master --grep='(culprit)' --format=%H | tail -n 1)

repo_config() {
	cat <<-CFG
	repos:
	  - name: bench
	    path: $work/repo
	    build:
	      command: sleep $BUILD_S && test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	CFG
}
ssh_entry() {
	cat <<-CFG
	  - name: $1
	    host: 10.249.$2.2
	    user: root
	    identity: $work/keys/id_ed25519
	    known_hosts: $work/keys/known_hosts
	    remote_dir: $work/m$2/remote
	CFG
}
mkdir one many
repo_config >one/bisectd.yaml
{
	repo_config
	echo "agents:"
	for n in 1 2 3; do
		ssh_entry a$n $n
		echo "    transport: ssh"
	done
	echo "builders:"
	ssh_entry b1 4
	ssh_entry b2 5
} >many/bisectd.yaml
cat >job.yaml <<-JOB
testcase: microbench
run: sleep $RUN_S; sh bench.sh
runs: 3
metric: microbench.score
direction: higher
disturbed: $DISTURBED
JOB

BISECT_AGENT=$BISECTD_BUILD/bin/bisect-agent
export BISECT_AGENT
status=0

# bisect NAME: the bisection under NAME/bisectd.yaml; NAME.json, NAME.time
bisect() {
	t0=$(date +%s.%N)
	bisectctl -c "$1/bisectd.yaml" bisect "$work/job.yaml" --good "$good" \
		--bad master --allow-drift --wait --json >"$1.json" 2>"$1.err"
	r=$?
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.1f\n", $2 - $1 }' >"$1.time"
	if [ $r != 0 ]; then
		echo "builders-e2e: the bisection of '$1' exited $r:"
		tail -n 5 "$1.err"
		status=1
	fi
}

counts() {
	db="$1/state/bisectd.db"
	found=$("$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d.get("status"), d.get("culprit", "")[:12])' "$1.json" 2>/dev/null)
	builds=$(bisectctl -c "$1/bisectd.yaml" builders --json |
		"$PYTHON3" -c 'import json, sys
print(" ".join("%s=%d" % (b["name"], b["builds"]) for b in json.load(sys.stdin)))')
	runs=$(sqlite3 -cmd ".timeout 30000" "$db" "SELECT group_concat(agent
		|| '=' || n, ' ') FROM (SELECT agent, count(*) AS n FROM runs
		WHERE status = 'done' GROUP BY agent ORDER BY agent)")
	nb=$(sqlite3 "$db" "SELECT count(*) FROM builds WHERE status = 'ok'")
	nr=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'done'")
	# runs the agents' interference monitor set aside and repeated
	aside=$(sqlite3 "$db" "SELECT count(*) FROM run_set_aside")
	# runs counted although disturbed (kept, or set aside 3 times)
	marked=$(sqlite3 "$db" "SELECT count(*) FROM runs
		WHERE status = 'done' AND disturbed IS NOT NULL")
	case "$found" in
	"found ${culprit%"${culprit#????????????}"}") ok=right ;;
	*) ok=WRONG; status=1 ;;
	esac
	printf "builders-e2e: %-24s %6.1f s  %s (%s); %d builds: %s; %d runs: %s; %d set aside, %d marked disturbed\n" \
		"$2" "$(cat "$1.time")" "$found" "$ok" "$nb" "$builds" "$nr" "$runs" "$aside" "$marked"
}

echo "builders-e2e: $COMMITS commits, culprit at $CULPRIT (-5%), build = sleep $BUILD_S s, run = sleep $RUN_S s + bench.sh, runs 3, disturbed: $DISTURBED; CLI defaults (max_runs 40, initial_runs 3, min_effect_pct 1)"
echo "builders-e2e: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
bisect one
bisect many
echo "builders-e2e: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
counts one "1 agent, local builds:"
counts many "3 agents, 2 builders:"
awk -v a="$(cat one.time)" -v b="$(cat many.time)" 'BEGIN {
	printf "builders-e2e: wall time 3 agents + 2 builders / 1 agent + local builds: %.2f\n", b / a }'
exit $status
