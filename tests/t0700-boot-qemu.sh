#!/bin/sh
# bisect-agent run --boot qemu against a stand-in qemu (tests/kernel/
# fake-qemu.sh): the initramfs it makes (busybox, the runner, the agent with
# its loader and libraries, the artifacts without the kernel), qemu's
# command line (TCG, never KVM), the guest's results read back, and every
# way a boot fails: a panic and a hang are untestable, qemu's own failure
# and a guest running the wrong kernel are failed runs. The real kernel
# and qemu run in t0709 (make check-kernel).
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
BISECT_AGENT_QEMU=$BISECTD_SRC/tests/kernel/fake-qemu.sh
FAKE_QEMU_LOG=$TRASH/qemu
export BISECT_AGENT_QEMU FAKE_QEMU_LOG

if ! command -v cpio >/dev/null || ! command -v base64 >/dev/null ||
   [ ! -x /bin/busybox ]; then
	test_skip 'boot qemu' 'needs cpio, base64 and busybox-static'
	test_done
	exit 0
fi

value_of() {
	sed -n "s/^$1 //p" "$2"
}

# boot_run MODE [job lines...]: run the agent on a fake kernel saying MODE.
boot_run() {
	mode=$1
	shift
	rm -rf work res &&
	mkdir -p work/arch/x86/boot &&
	echo "$mode" >work/arch/x86/boot/bzImage &&
	printf 'image_hash %s\nkernel_release 6.1.0-fake\n' \
		"$(printf x | sha256sum | cut -c1-64)" >work/.bisectd-build &&
	echo "CONFIG_64BIT=y" >work/.config &&
	printf '#!/bin/sh\necho "calls: 3"\necho "ns_per_call: 250.5"\n' \
		>work/bench.sh &&
	{
		echo 'testcase: syscall'
		echo 'run: sh bench.sh'
		for l in "$@"; do echo "$l"; done
	} >job.yaml &&
	"$AGENT" run --boot qemu --workdir work job.yaml res
}

test_expect_success 'a guest that boots: its results come back' '
	boot_run ok "kernel_cmdline: mitigations=off" &&
	test "$(value_of exit_status res/result)" = 0 &&
	! grep -q "^error" res/result &&
	! grep -q "^untestable" res/result &&
	test "$(value_of "metric syscall.ns_per_call" res/result)" = 250.5 &&
	test "$(value_of "env boot" res/result)" = qemu &&
	test "$(value_of "env kernel_version" res/result)" = "#1 fake" &&
	test "$(value_of "env kernel_sha256" res/result)" = \
		"$(printf x | sha256sum | cut -c1-64)" &&
	value_of "env boot_seconds" res/result | grep -Eq "^[0-9]+\.[0-9]+$" &&
	grep -q "^metric time.elapsed_time " res/result &&
	grep -qx "ns_per_call: 250.5" res/output.log &&
	grep -q "Linux version" res/console.log
'

test_expect_success 'qemu runs under TCG, never KVM, and exits on reboot' '
	grep -qx -- "-accel" qemu.argv &&
	grep -A1 -x -- "-accel" qemu.argv | grep -qx tcg &&
	! grep -qi kvm qemu.argv &&
	grep -qx -- "-no-reboot" qemu.argv &&
	grep -qx -- "-nographic" qemu.argv &&
	grep -A1 -x -- "-append" qemu.argv | tail -n 1 >cmdline &&
	grep -q "console=ttyS0" cmdline &&
	grep -q "panic=-1" cmdline &&
	grep -q "mitigations=off" cmdline &&
	grep -A1 -x -- "-serial" qemu.argv | grep -qx stdio
'

test_expect_success 'the initramfs: busybox, runner, agent, artifacts' '
	for f in init bin/busybox dev/console dev/ttyS1 proc sys tmp \
	    bisectd/job.yaml bisectd/bisect-agent bisectd/lib/libc.so.6 \
	    work/bench.sh; do
		grep -qx "$f" qemu.list || { echo "missing $f"; return 1; }
	done &&
	grep -q "^bisectd/lib/ld-linux" qemu.list &&
	! grep -q "^work/arch/x86/boot/bzImage$" qemu.list &&
	! grep -q "^work/.bisectd-build$" qemu.list &&
	! grep -q "^work/.config$" qemu.list
'

test_expect_success 'a kernel that panics at boot is untestable' '
	boot_run panic &&
	test "$(value_of exit_status res/result)" = -1 &&
	value_of untestable res/result >why &&
	grep -q "the kernel did not boot" why &&
	grep -q "Kernel panic - not syncing: fake panic at boot" why &&
	grep -q "^error the kernel did not boot" res/result &&
	grep -q "fake panic" res/console.log
'

test_expect_success 'a kernel that hangs is untestable after boot_timeout' '
	start=$(date +%s) &&
	boot_run hang "boot_timeout: 2" &&
	end=$(date +%s) &&
	test $((end - start)) -lt 30 &&
	value_of untestable res/result >why &&
	grep -q "no word from the guest in 2s" why &&
	grep -q "hanging in early boot" why &&
	! kill -0 "$(cat qemu.pid)" 2>/dev/null
'

test_expect_success 'qemu failing to start is a failed run, not untestable' '
	boot_run qemu-error &&
	! grep -q "^untestable" res/result &&
	grep -q "^error qemu failed (exit status 1): .*could not load kernel" \
		res/result &&
	grep -q "could not load kernel" res/qemu.log
'

test_expect_success 'a guest running another kernel than the build is a failure' '
	boot_run release=6.1.0-other &&
	grep -q "^error the guest ran kernel .6.1.0-other., the build made .6.1.0-fake." res/result &&
	! grep -q "^untestable" res/result
'

test_expect_success 'no kernel among the artifacts' '
	boot_run ok &&
	rm work/arch/x86/boot/bzImage &&
	"$AGENT" run --boot qemu --workdir work job.yaml res &&
	grep -q "^error boot qemu: no kernel image among the artifacts" res/result
'

test_expect_success 'a dynamic busybox is refused' '
	mkdir -p work2/arch/x86/boot && echo ok >work2/arch/x86/boot/bzImage &&
	test_expect_code 1 env BISECT_AGENT_BUSYBOX=/bin/ls \
		"$AGENT" run --boot qemu --workdir work2 job.yaml res2 2>err &&
	grep -q "dynamically linked.*busybox-static" err
'

test_expect_success 'unknown boot methods and kexec are refused' '
	test_expect_code 2 "$AGENT" run --boot floppy --workdir work job.yaml res \
		2>err &&
	grep -q "unknown boot method .floppy." err &&
	test_expect_code 1 "$AGENT" run --boot kexec --workdir work job.yaml res \
		2>err &&
	grep -q "the daemon drives it" err
'

test_done
