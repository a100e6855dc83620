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

# Only builds that were run go up: a build whose image was sampled at
# another commit is not run (identical images are one test point).
test_expect_success 'the bzImage went up once per build, in a set named by its hash' '
	ls agents/a1/remote/artifacts >sets &&
	test -s sets &&
	! grep -v "^[0-9a-f]\{64\}$" sets &&
	for h in $(cat sets); do
		test -f "agents/a1/remote/artifacts/$h/bzImage" || return 1
	done &&
	test "$(wc -l <sets)" = "$(db_query "SELECT count(*) FROM builds b
		WHERE b.status = '\''ok'\'' AND EXISTS (SELECT 1 FROM runs r
		WHERE r.commit_oid = b.commit_oid)")"
'

# The fake machine a2. Its state: the fixture root's osrelease and
# cmdline (which bisect-agent info reads too), kexec/ (what kexec -l
# loaded, and a log). The kernel image's contents say what booting it does:
# release=R (comes up as R, with the command line kexec -l was given),
# panic (the machine reboots into its default kernel at once), hang (its
# watchdog brings the default kernel back after 4s, beyond the job's
# boot_timeout of 2s), newkey (the machine comes back with another host
# key). tests/unit/test-ssh-boot-direct does a kexec run through a
# transport without a link, on the same machine.
fake_kexec_machine() {
	dir=$TRASH/agents/a2
	mkdir -p "$dir/fakebin" "$dir/kexec" &&
	cat >"$dir/fakebin/uname" <<-EOF &&
	#!/bin/sh
	case "\$*" in
	-r) exec /bin/cat "$dir/root/proc/sys/kernel/osrelease" ;;
	-v) exec /bin/cat "$dir/kexec/version" ;;
	esac
	exec /bin/uname "\$@"
	EOF
	cat >"$dir/fakebin/cat" <<-EOF &&
	#!/bin/sh
	[ "\$*" = /proc/cmdline ] && exec /bin/cat "$dir/root/proc/cmdline"
	exec /bin/cat "\$@"
	EOF
	cat >"$dir/fakebin/kexec" <<-EOF &&
	#!/bin/sh
	echo "kexec \$*" >>"$dir/kexec/log"
	case \$1 in
	-l)
		[ -f "\$2" ] || { echo "kexec: cannot open \$2" >&2; exit 1; }
		printf "%s\\n" "\$2" >"$dir/kexec/image"
		for a; do
			case \$a in --append=*) printf "%s\\n" "\${a#--append=}" \
				>"$dir/kexec/append" ;; esac
		done ;;
	-e)
		[ -f "$dir/kexec/image" ] || { echo "kexec: no kernel loaded" >&2; exit 1; }
		setsid "$dir/reboot" </dev/null >>"$dir/kexec/reboot.log" 2>&1 &
		exec sleep 60 ;;
	esac
	EOF
	cat >"$dir/reboot" <<-EOF &&
	#!/bin/sh
	# the old kernel goes: every process of the machine, sshd first
	mode=\$(/bin/cat "\$(/bin/cat "$dir/kexec/image")")
	append=\$(/bin/cat "$dir/kexec/append")
	rm -f "$dir/kexec/image"
	kill -9 \$(/bin/cat "$dir/sshd.pid")
	for p in \$(ip netns pids $(ssh_ns 2)); do
		[ "\$p" = \$\$ ] || kill -9 "\$p" 2>/dev/null
	done
	default() {
		echo 6.1.0-test >"$dir/root/proc/sys/kernel/osrelease"
		echo "BOOT_IMAGE=/vmlinuz-6.1.0-test ro" >"$dir/root/proc/cmdline"
		echo "#1 SMP default" >"$dir/kexec/version"
	}
	case \$mode in
	release=*)
		echo "\${mode#release=}" >"$dir/root/proc/sys/kernel/osrelease"
		echo "BOOT_IMAGE=/vmlinuz-6.1.0-test ro \$append" >"$dir/root/proc/cmdline"
		echo "#1 SMP kexec" >"$dir/kexec/version" ;;
	hang)
		sleep 4	# the machine's watchdog
		default ;;
	newkey)
		rm -f "$dir/host_key" "$dir/host_key.pub"
		ssh-keygen -q -t ed25519 -N "" -C a2 -f "$dir/host_key"
		default ;;
	*)
		default ;;
	esac
	exec /usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log"
	EOF
	chmod +x "$dir/fakebin/uname" "$dir/fakebin/cat" "$dir/fakebin/kexec" \
		"$dir/reboot" &&
	echo "#1 SMP default" >"$dir/kexec/version"
}

test_expect_success 'setup: a fake machine with boot: kexec' '
	fake_kexec_machine &&
	SSH_AGENT_ENV="PATH=$TRASH/agents/a2/fakebin:/usr/sbin:/usr/bin:/sbin:/bin" &&
	ssh_agent_start 2 ed25519 &&
	setup_bench --commits 6 &&
	ssh_known_hosts 2 &&
	echo CONFIG_64BIT=y >kconfig &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: mkdir -p "\$BUILD_DIR/include/config" && echo 6.1.0-bisect >"\$BUILD_DIR/include/config/kernel.release" && cat "$TRASH/mode" >"\$BUILD_DIR/bzImage"
	      kconfig: kconfig
	      artifacts: [bench.sh, speed, noise, bzImage]
	scheduler:
	  max_attempts: 2
	agents:
	EOF
	ssh_agent_config 2 id_ed25519 "boot: kexec" >>bisectd.yaml &&
	sed -i "s/^runs: 3/runs: 1/" job.yaml &&
	echo "boot_timeout: 2" >>job.yaml &&
	echo "kernel_cmdline: mitigations=off" >>job.yaml
'

# kexec_run N MODE: queue the job at "commit N", built with a bzImage MODE.
kexec_run() {
	echo "$2" >mode &&
	bisectctl queue job.yaml --commit "$(commit_oid "commit $1")" --wait \
		>out 2>err
	run=$(db_query "SELECT max(id) FROM runs")
}

run_env() {
	db_query "SELECT value FROM run_env WHERE run = $run AND key = '$1'"
}

test_expect_success 'kexec boots the build, the machine comes back, the job runs' '
	kexec_run 2 release=6.1.0-bisect &&
	test "$(db_query "SELECT status, attempts FROM runs WHERE id = $run")" = "done|1" &&
	test "$(run_env boot)" = kexec &&
	test "$(run_env kernel)" = 6.1.0-bisect &&
	test "$(run_env kernel_version)" = "#1 SMP kexec" &&
	run_env kernel_sha256 | grep -q "^[0-9a-f]\{64\}$" &&
	run_env boot_seconds | grep -Eq "^[0-9]+\.[0-9]+$" &&
	run_env cmdline | grep -q "bisectd.boot=[0-9a-f]\{16\} mitigations=off" &&
	test "$(sample_count "$(commit_oid "commit 2")" microbench.score)" = 1 &&
	grep -q "^kexec -l $TRASH/agents/a2/remote/artifacts/[0-9a-f]\{64\}/bzImage --reuse-cmdline --append=bisectd.boot=[0-9a-f]\{16\} mitigations=off$" \
		agents/a2/kexec/log &&
	grep -qx "kexec -e" agents/a2/kexec/log &&
	test "$(ssh_logins 2)" -ge 2
'

test_expect_success 'a kernel that panics at boot is untestable, not retried' '
	kexec_run 3 panic &&
	test "$(db_query "SELECT status, attempts FROM runs WHERE id = $run")" = "failed|1" &&
	db_query "SELECT error FROM runs WHERE id = $run" >error &&
	cat error &&
	grep -q "^untestable: the kernel did not boot: the machine came back on kernel .6.1.0-test. without .bisectd.boot=" error &&
	test "$(agent_state a2)" = up
'

test_expect_success 'a kernel that hangs is untestable after boot_timeout' '
	kexec_run 4 hang &&
	db_query "SELECT error FROM runs WHERE id = $run" >error &&
	cat error &&
	grep -q "^untestable: the kernel did not boot: the kernel did not come up within 2s; the machine is back on its default kernel .6.1.0-test." error &&
	test "$(db_query "SELECT attempts FROM runs WHERE id = $run")" = 1
'

test_expect_success 'a machine that boots another kernel than the build: a failed run' '
	kexec_run 5 release=6.1.0-other &&
	test "$(db_query "SELECT status, attempts FROM runs WHERE id = $run")" = "failed|2" &&
	db_query "SELECT error FROM runs WHERE id = $run" >error &&
	cat error &&
	grep -q "the machine ran kernel .6.1.0-other., the build made .6.1.0-bisect." error &&
	! grep -q untestable error
'

test_expect_success 'without a link, the transport reconnects by itself' '
	echo release=6.1.0-bisect >mode &&
	art=$(db_query "SELECT artifact_dir FROM builds
		WHERE commit_oid = '\''$(commit_oid "commit 2")'\''") &&
	test -f "$art/bzImage" &&
	logins=$(ssh_logins 2) &&
	BISECTD_TEST_SSH_BOOT="$TRASH/bisectd.yaml a2 $art $TRASH/direct $TRASH/job.yaml" \
		"$BISECTD_BUILD/tests/unit/test-ssh-boot-direct" >direct.tap &&
	cat direct.tap &&
	! grep -q "^not ok" direct.tap &&
	grep -q "^1\.\.9$" direct.tap &&
	test "$(ssh_logins 2)" = $((logins + 2)) &&
	grep -q "^env boot kexec$" direct/result/result
'

has_failure() {
	test "$(db_query "SELECT count(*) FROM run_failures")" -gt "$1"
}

test_at_exit 'test ! -f "$TRASH/daemon.pid" || kill "$(cat "$TRASH/daemon.pid")"'

test_expect_success 'a machine back with another host key is refused' '
	echo newkey >mode &&
	db_query "SELECT count(*) FROM run_failures" >before &&
	bisectctl queue job.yaml --commit "$(commit_oid "commit 6")" \
		>out 2>err
	bisectd --foreground >daemon.log 2>&1 &
	echo $! >daemon.pid &&
	test_wait_for 300 has_failure "$(cat before)" &&
	test_wait_for 100 eval "test \"\$(agent_state a2)\" = refused" &&
	kill "$(cat daemon.pid)" &&
	test_wait_for 100 eval "! kill -0 $(cat daemon.pid) 2>/dev/null" &&
	rm daemon.pid &&
	db_query "SELECT error FROM run_failures ORDER BY rowid DESC LIMIT 1" \
		>error &&
	cat error &&
	grep -q "after the kexec reboot: .*host key of .$(ssh_addr 2). .*has CHANGED" error
'

test_done
