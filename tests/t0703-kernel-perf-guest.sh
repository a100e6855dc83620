#!/bin/sh
# perf-profile recorded inside a qemu guest on a real kernel (make
# check-kernel; skipped otherwise): Debian's linux-source-6.1 built with
# t0709's tinyconfig plus CONFIG_EVENTFD (perf record needs it; x86
# selects PERF_EVENTS itself) and without KALLSYMS, so that the kernel's
# frames are named from the build's System.map. bisect-agent boots it
# under qemu (TCG) with the host's perf and its libraries in the
# initramfs; the guest's profile names the kernel's system call path
# (do_syscall_64, syscall_enter_from_user_mode: above the 0.5% threshold
# in every run; getppid's own few instructions get 0 to 2 of the ~370
# samples, so they are not asked for), the perf.data comes back and the host's perf reads it, and the run carries
# its start, end and boot by the host's clocks. The guest boots with
# noapic: on a loaded host, TCG's timer can miss the IO-APIC check's
# window and the kernel panics ("IO-APIC + timer doesn't work!"), which
# is the host's load, not this test's subject. The built kernel is kept
# in $BISECTD_BUILD/kernel-t0703/KEY (the key hashes the tarball, the
# options and the compiler), so that a second run does not build again.
. "$(dirname "$0")/test-lib.sh"

TARBALL=${BISECTD_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
OPTS="64BIT PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE BLK_DEV_INITRD
BINFMT_ELF BINFMT_SCRIPT PROC_FS SYSFS DEVTMPFS DEVTMPFS_MOUNT FUTEX EVENTFD"

if [ "${BISECTD_KERNEL_TEST:-}" != 1 ]; then
	test_skip 'perf-profile in a qemu guest' 'run by make check-kernel'
	test_done
	exit 0
fi
missing=
for t in qemu-system-x86_64 gcc make flex bison bc cpio base64 perf ldd; do
	command -v $t >/dev/null || missing="$missing $t"
done
[ -f "$TARBALL" ] || missing="$missing $TARBALL"
[ -x /bin/busybox ] || missing="$missing busybox"
if [ -n "$missing" ]; then
	test_skip 'perf-profile in a qemu guest' \
		"missing:$missing (tools/install-deps kernel)"
	test_done
	exit 0
fi

AGENT=$BISECTD_BUILD/bin/bisect-agent
KEY=$( { ls -l --time-style=+%s "$TARBALL"; echo "$OPTS"; gcc --version |
	head -n 1; } | sha256sum | cut -c1-16)
KCACHE=$BISECTD_BUILD/kernel-t0703/$KEY

FIGURES=${BISECTD_KERNEL_FIGURES:-$TRASH/figures}

# figure TEXT: a TAP comment now, and a line of $BISECTD_KERNEL_FIGURES.
figure() {
	echo "# t0703: $*"
	echo "t0703: $*" >>"$FIGURES"
}

value_of() {
	sed -n "s/^$1 //p" "$2"
}

cd "$TRASH" || exit 1

test_expect_success 'a tinyconfig kernel with EVENTFD, no KALLSYMS' '
	if [ -f "$KCACHE/.complete" ]; then
		echo "kernel: from $KCACHE" >kernel.figure
	else
		t0=$(date +%s) &&
		mkdir linux &&
		tar -xJf "$TARBALL" -C linux --strip-components=1 &&
		make -s -C linux O="$TRASH/kb" tinyconfig >/dev/null &&
		linux/scripts/config --file kb/.config \
			$(for o in $OPTS; do echo "-e $o"; done) &&
		make -s -C linux O="$TRASH/kb" olddefconfig >/dev/null &&
		make -s -C linux O="$TRASH/kb" -j"$(nproc)" bzImage \
			>build.log 2>&1 || { tail -n 20 build.log; false; } &&
		rm -rf "$KCACHE" && mkdir -p "$KCACHE" &&
		cp kb/arch/x86/boot/bzImage kb/System.map kb/.config \
			kb/include/config/kernel.release "$KCACHE" &&
		: >"$KCACHE/.complete" &&
		rm -rf linux kb &&
		echo "kernel: built in $(( $(date +%s) - t0 )) s" >kernel.figure
	fi &&
	mkdir -p work/arch/x86/boot &&
	cp "$KCACHE/bzImage" work/arch/x86/boot/ &&
	cp "$KCACHE/System.map" "$KCACHE/.config" work/ &&
	printf "image_hash %s\nkernel_release %s\n" \
		"$(sha256sum <work/arch/x86/boot/bzImage | cut -c1-64)" \
		"$(cat "$KCACHE/kernel.release")" >work/.bisectd-build &&
	grep -qx CONFIG_PERF_EVENTS=y work/.config &&
	grep -qx CONFIG_EVENTFD=y work/.config &&
	grep -qx "# CONFIG_KALLSYMS is not set" work/.config &&
	gcc -static -O2 -o work/syscall-bench \
		"$BISECTD_SRC/tests/kernel/syscall-bench.c" &&
	cat >job.yaml <<-\EOF
	testcase: syscall
	run: ./syscall-bench 100000
	monitors: [perf-profile]
	boot_timeout: 180
	kernel_cmdline: noapic
	EOF
'
[ -f kernel.figure ] && figure "$(cat kernel.figure)"

test_expect_success 'the guest records the profile and names kernel functions' '
	date +%s >before &&
	"$AGENT" run --boot qemu --workdir work job.yaml res &&
	date +%s >after &&
	cat res/result | grep -v "^metric perf-profile" &&
	test "$(value_of exit_status res/result)" = 0 &&
	! grep -q "^error" res/result &&
	test "$(value_of "env perf_profile_where" res/result)" = "qemu guest" &&
	test "$(value_of "env perf_profile_symbols" res/result)" = System.map &&
	test "$(value_of "env perf_profile_event" res/result)" = cpu-clock &&
	test "$(value_of "env kernel" res/result)" = "$(cat "$KCACHE/kernel.release")" &&
	grep "^metric perf-profile.children.cycles-pp.do_syscall_64 " res/result &&
	grep "^metric perf-profile.children.cycles-pp.syscall_enter_from_user_mode " res/result &&
	grep "^metric perf-profile.calltrace.cycles-pp.do_syscall_64.entry_SYSCALL_64_after_hwframe" res/result &&
	grep "^metric perf-profile.self.cycles-pp.main " res/result
'
[ -f after ] && figure "the profiled qemu run: $(( $(cat after) - $(cat before) )) s, $(wc -c <res/perf-profile.data) bytes of perf.data, $(grep -c "^metric perf-profile" res/result) rows"

test_expect_success 'the perf.data came back and the host perf reads it' '
	test -s res/perf-profile.data &&
	perf report -i res/perf-profile.data --header-only >header 2>&1 &&
	grep -q "os release : $(cat "$KCACHE/kernel.release")" header
'

test_expect_success 'the run has its start, end and boot by the host clocks' '
	set -- $(value_of start res/result) &&
	s_wall=${1%.*} &&
	set -- $(value_of end res/result) &&
	e_wall=${1%.*} &&
	test "$s_wall" -ge "$(cat before)" && test "$e_wall" -le "$(cat after)" &&
	test "$e_wall" -ge "$s_wall" &&
	value_of boot_id res/result >boot1 &&
	grep -Eq "^[0-9a-f-]{36}$" boot1
'

test_expect_success 'another boot has another boot id' '
	grep -v perf-profile job.yaml >plain.yaml &&
	"$AGENT" run --boot qemu --workdir work plain.yaml res2 &&
	test "$(value_of exit_status res2/result)" = 0 &&
	value_of boot_id res2/result >boot2 &&
	grep -Eq "^[0-9a-f-]{36}$" boot2 &&
	! cmp -s boot1 boot2 &&
	! grep -q "^metric perf-profile" res2/result
'

test_done
