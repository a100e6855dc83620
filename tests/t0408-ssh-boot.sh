#!/bin/sh
# Agents reached over ssh that boot the kernel they test. a1 has boot: qemu:
# the agent over there runs with --boot qemu (a stand-in qemu,
# tests/kernel/fake-qemu.sh, named by the machine's sshd with SetEnv, as an
# administrator would set it), the bzImage going up with the artifact set by
# its hash; a bisection through it finds the culprit, the commits whose
# kernel panics are untestable. a2 has boot: kexec on a fake machine: its
# kexec, uname and /proc/cmdline are scripts over a state directory, and
# "kexec -e" kills the machine's sshd and starts it again on the new
# kernel, so the transport loses the connection, reconnects, checks the
# host key and the kernel, and runs the job.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

if ! command -v cpio >/dev/null || ! command -v base64 >/dev/null ||
   [ ! -x /bin/busybox ]; then
	test_skip 'ssh boot' 'needs cpio, base64 and busybox-static'
	test_done
	exit 0
fi
ssh_require
ssh_keys || exit 1
SSH_AGENT_ENV="BISECT_AGENT_QEMU=$BISECTD_SRC/tests/kernel/fake-qemu.sh FAKE_QEMU_LOG=$TRASH/qemu"
ssh_agent_start 1 ed25519 || exit 1

test_expect_success 'setup: a bisection whose runs boot in qemu over ssh' '
	setup_bench --commits 40 --culprit 23 --change -5 \
		--broken 24,25,26,27 &&
	ssh_known_hosts 1 &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: if [ -e broken ]; then echo panic; else echo ok; fi >bzImage
	      artifacts: [bench.sh, speed, noise, bzImage]
	agents:
	EOF
	ssh_agent_config 1 id_ed25519 "boot: qemu" >>bisectd.yaml
'

test_expect_success 'panicking commits are skipped, the culprit found' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	json_get out.json "\"\\n\".join(d[\"skipped\"])" >skipped &&
	test -s skipped &&
	for n in 24 25 26 27; do
		commit_oid "commit $n"
	done >panicking &&
	while read -r oid; do
		grep -qx "$oid" panicking || { echo "skipped $oid"; return 1; }
	done <skipped
'

test_expect_success 'the runs went over ssh and booted with qemu over there' '
	test "$(db_query "SELECT count(*) FROM runs WHERE agent != '\''a1'\''
		AND status != '\''pending'\''")" = 0 &&
	test "$(db_query "SELECT count(*) FROM runs r JOIN run_env e
		ON e.run = r.id WHERE r.status = '\''done'\''
		AND e.key = '\''boot'\'' AND e.value = '\''qemu'\''")" = \
		"$(runs_with_status done)" &&
	test "$(runs_with_status done)" -gt 0 &&
	grep -qx -- "-kernel" qemu.argv &&
	grep -qx -- "-accel" qemu.argv &&
	test "$(ssh_logins 1)" = 1
'

test_expect_success 'a panicking kernel is untestable, booted once, not retried' '
	oid=$(head -n 1 skipped) &&
	db_query "SELECT error FROM runs WHERE commit_oid = '\''$oid'\''" \
		>errors &&
	grep -q "untestable: the kernel did not boot" errors &&
	grep -q "Kernel panic - not syncing: fake panic at boot" errors &&
	test "$(sample_count "$oid" microbench.score)" = 0 &&
	test "$(db_query "SELECT max(attempts) FROM runs
		WHERE error LIKE '\''untestable: the kernel did not boot%'\''")" = 1
'

test_expect_success 'the bzImage went up once per build, in a set named by its hash' '
	ls agents/a1/remote/artifacts >sets &&
	test -s sets &&
	! grep -v "^[0-9a-f]\{64\}$" sets &&
	for h in $(cat sets); do
		test -f "agents/a1/remote/artifacts/$h/bzImage" || return 1
	done &&
	test "$(wc -l <sets)" = "$(db_query "SELECT count(*) FROM builds
		WHERE status = '\''ok'\''")"
'

test_done
