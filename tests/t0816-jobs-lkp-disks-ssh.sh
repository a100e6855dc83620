#!/bin/sh
# LKP's disk and fs on an ssh agent: a real sshd in a network namespace
# (tests/lib-ssh.sh) whose config entry declares disks: {hdd: [loop:1G],
# ssd: [loop:1G]}. fio-basic with disk: 1HDD and every fs runs end to
# end through queue --wait over ssh: the agent over there makes the loop
# disk, mkfs and mounts it, fio writes in the mount (checked against its
# fio.json), the run's environment records the mount as the kernel had
# it, and afterwards nothing of it is mounted, attached or left in that
# agent's disk directory. A real device declared for the ssh agent is
# used as is; an ssh agent without disks is not eligible; a remote agent
# killed with its disk mounted leaves it to the next attempt there,
# which reaps it. Needs root, sshd, network namespaces and loop devices,
# else skipped.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-lkp-bench.sh"
. "$(dirname "$0")/lib-ssh.sh"

why=$(lkp_loop_why fio dbench)
if [ -n "$why" ]; then
	[ -z "$SSH_NET_CLAIM" ] || rm -rf "$SSH_NET_CLAIM"
	test_skip "LKP's disks over ssh" "$why"
	test_done
	exit 0
fi
fss=ext4
command -v mkfs.xfs >/dev/null && fss="$fss, xfs"

# The agent over there has a disk directory of its own (its sessions get
# BISECT_AGENT_DISK_DIR from the sshd): nothing here uses it.
RDISKS=$TRASH/remote-disks
ssh_require
ssh_keys || exit 1
SSH_AGENT_ENV="BISECT_AGENT_DISK_DIR=$RDISKS" ssh_agent_start 1 ed25519 ||
	exit 1

# The mount table over there: ip netns exec gave the sshd (and so the
# agent it starts) a mount namespace of its own.
remote_mounts() {
	cat "/proc/$(cat "$TRASH/agents/a1/sshd.pid")/mounts"
}

# Nothing of the remote agent's is mounted, attached or left.
disks_gone() {
	remote_mounts >rmounts && lkp_disks_gone rmounts "$RDISKS"
}

# remote_agent_pid: the bisect-agent running a job in a1's namespace.
remote_agent_pid() {
	for p in $(ip netns pids "$(ssh_ns 1)" 2>/dev/null); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		    grep -q "^$TRASH/agents/a1/remote/bin/bisect-agent-[0-9a-f]* run "; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

remote_mounted() {
	remote_mounts | grep -qF " $RDISKS/fs-"
}

test_at_exit 'sh "$TRASH/cleanup" 2>/dev/null'

test_expect_success 'setup: an ssh agent with a loop hdd and a loop ssd' '
	cat >cleanup <<-EOF &&
	for m in $RDISKS/fs-*; do nsenter -t \$(cat $TRASH/agents/a1/sshd.pid) -m umount "\$m"; done
	for d in \$(losetup -a | grep -F "$RDISKS/" | cut -d: -f1); do losetup -d "\$d"; done
	EOF
	lkp_setup &&
	ssh_known_hosts 1 &&
	cp bisectd.yaml base.yaml &&
	{
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519 "disks: {hdd: [loop:1G], ssd: [loop:1G]}"
	} >>bisectd.yaml &&
	bisectctl agents >agents.out &&
	grep "^a1 (ssh root@$(ssh_addr 1) port 22, boot none, 1 slot.*): up" agents.out
'

test_expect_success 'fio-basic as LKP writes it over ssh: 1HDD, every fs, in the mount' '
	lkp_fio_disk_job "$fss" &&
	bisectctl queue fio.yaml --commit HEAD --wait >q.out 2>q.err ||
		{ cat q.out q.err; false; } &&
	nfs=$(echo "$fss" | tr , "\n" | wc -l) &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''done'\''
		AND agent = '\''a1'\''")" = "$nfs" &&
	for run in $(db_query "SELECT id FROM runs ORDER BY id"); do
		test "$(lkp_run_env $run partitions_loop)" != "" &&
		lkp_fio_disk_run $run "$RDISKS" || return 1
	done &&
	test "$(db_query "SELECT count(DISTINCT value) FROM run_env WHERE key = '\''fs'\''")" = "$nfs" &&
	disks_gone
'

test_expect_success 'an ssh agent without the disks is not eligible: queue refuses' '
	{
		cat base.yaml &&
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519
	} >nodisks.yaml &&
	printf "testcase: dbench\nruns: 1\nmonitors: []\nruntime: 1s\nnr_threads: 1\ndisk: 1SSD\nfs: ext4\n" >d1.yaml &&
	test_expect_code 2 bisectctl -c nodisks.yaml queue d1.yaml \
		--commit HEAD 2>err &&
	grep -q "no agent can run it: agent .a1.: .disk. is 1SSD, the agent has 0 ssd disks" err
'

test_expect_success 'a device declared for the ssh agent: used over there as is' '
	truncate -s 512M dev.img &&
	dev=$(losetup -f --show dev.img) &&
	echo "losetup -j $TRASH/dev.img | cut -d: -f1 | xargs -r losetup -d" >>cleanup &&
	{
		cat base.yaml &&
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519 "disks: {ssd: [$dev]}"
	} >devs.yaml &&
	bisectctl -c devs.yaml queue d1.yaml --commit HEAD --wait >out 2>err ||
		{ cat out err; false; } &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	test "$(db_query "SELECT agent FROM runs WHERE id = $run")" = a1 &&
	! grep "^error" state/runs/$run/result/result &&
	test "$(lkp_run_env $run partitions)" = "$dev" &&
	test -z "$(lkp_run_env $run partitions_loop)" &&
	lkp_run_env $run mounted | grep -q "^$dev $RDISKS/fs-[0-9]*-0 ext4 " &&
	want=$(awk "/^Throughput/ { print \$2 }" state/runs/$run/result/output.log) &&
	lkp_same "$(lkp_value dbench throughput-MB/sec)" "$want" 1e-9 &&
	losetup "$dev" &&
	disks_gone &&
	losetup -d "$dev" &&
	{
		cat base.yaml &&
		echo "agents:" &&
		ssh_agent_config 1 id_ed25519 "disks: {ssd: [/dev/bisectd-none]}"
	} >none.yaml &&
	sed "s/^runtime: 1s/runtime: 2s/" d1.yaml >d2.yaml &&
	bisectctl -c none.yaml queue d2.yaml --commit HEAD --wait >out 2>&1 ;
	run=$(db_query "SELECT max(id) FROM runs") &&
	grep "^error disks: disk ./dev/bisectd-none. is not a block device on this machine" state/runs/$run/result/result
'

test_expect_success 'a remote agent killed with its disk mounted: the next attempt there reaps it' '
	printf "testcase: fio-basic\nruns: 1\ndisk: 1HDD\nfs: ext4\nruntime: 5s\ntime_based: 1\ntest_size: 64M\nmonitors: []\n" >long.yaml &&
	bisectctl queue long.yaml --commit HEAD --wait >long.out 2>long.err &
	queue=$! &&
	test_wait_for 1200 remote_mounted &&
	pid=$(remote_agent_pid) &&
	remote_mounts | grep -F " $RDISKS/fs-$pid-0 " &&
	kill -9 "$pid" &&
	wait $queue ||
		{ cat long.out long.err; false; } &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	test "$(db_query "SELECT status FROM runs WHERE id = $run")" = done &&
	test -n "$(db_query "SELECT 1 FROM run_failures WHERE run = $run")" &&
	! grep "^error" state/runs/$run/result/result &&
	! grep "disks_reap_error" state/runs/$run/result/result &&
	! grep -F "fs-$pid-" state/runs/$run/result/result &&
	disks_gone
'

test_done
