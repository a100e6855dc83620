#!/bin/sh
# perf-profile for a qemu boot, against the stand-in qemu of
# tests/kernel/fake-qemu.sh (which runs the initramfs's own agent and perf
# here, on the host's kernel): the initramfs carries the host's perf at
# its path with every library ldd names and the loader, the guest agent
# records with it, the perf.data comes back over the serial stream with
# the rows; a kernel built without CONFIG_EVENTFD or CONFIG_PERF_EVENTS is
# refused before qemu starts, naming the symbol; a job without the monitor
# gets no perf. Every boot run records its start, end and boot id. The
# real kernel and qemu: t0703 (make check-kernel).
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
BISECT_AGENT_QEMU=$BISECTD_SRC/tests/kernel/fake-qemu.sh
FAKE_QEMU_LOG=$TRASH/qemu
export BISECT_AGENT_QEMU FAKE_QEMU_LOG

if ! command -v cpio >/dev/null || ! command -v base64 >/dev/null ||
   [ ! -x /bin/busybox ] || ! command -v gcc >/dev/null; then
	test_skip 'perf-profile in a guest' 'needs cpio, base64, gcc and busybox-static'
	test_done
	exit 0
fi
if ! command -v perf >/dev/null || ! command -v ldd >/dev/null ||
   ! perf record -a -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
	test_skip 'perf-profile in a guest' 'needs perf allowed to record -a'
	test_done
	exit 0
fi

value_of() {
	sed -n "s/^$1 //p" "$2"
}

# boot_run KCONFIG-LINE [job lines...]: a run of the hot benchmark booted
# on a stand-in kernel whose .config has KCONFIG-LINE.
boot_run() {
	kline=$1
	shift
	rm -rf res qemu.argv qemu.list &&
	printf "CONFIG_64BIT=y\nCONFIG_PERF_EVENTS=y\n%s\n" "$kline" \
		>work/.config &&
	{
		echo 'testcase: hot'
		echo 'run: ./hot'
		for l in "$@"; do echo "$l"; done
	} >job.yaml &&
	date +%s >before &&
	"$AGENT" run --boot qemu --workdir work job.yaml res &&
	date +%s >after
}

test_expect_success 'setup: a stand-in kernel and a benchmark with a hot function' '
	mkdir -p work/arch/x86/boot &&
	echo ok >work/arch/x86/boot/bzImage &&
	printf "image_hash %s\nkernel_release 6.1.0-fake\n" \
		"$(printf x | sha256sum | cut -c1-64)" >work/.bisectd-build &&
	cat >hot.c <<-\EOF &&
	#include <stdio.h>
	volatile unsigned long sink;
	__attribute__((noinline)) unsigned long
	spin_hot(unsigned long n)
	{
		unsigned long i, s = 1;
		for (i = 0; i < n; i++)
			s = s * 6364136223846793005UL + i;
		return s;
	}
	int
	main(void)
	{
		int k;
		for (k = 0; k < 20; k++)
			sink += spin_hot(20000000 + k);
		printf("loops: %d\n", k);
		return 0;
	}
	EOF
	gcc -O1 -o work/hot hot.c &&
	ldd "$(realpath "$(command -v perf)")" |
		sed -n "s|.*=> \(/[^ ]*\) .*|\1|p; s|^[[:space:]]*\(/[^ ]*\) .*|\1|p" |
		sed "s|^/||" >perf.libs &&
	test -s perf.libs
'

test_expect_success 'the guest records with the initramfs perf and sends it back' '
	boot_run CONFIG_EVENTFD=y "monitors: [perf-profile]" &&
	grep -v "^metric perf-profile" res/result &&
	test "$(value_of exit_status res/result)" = 0 &&
	! grep -q "^error" res/result &&
	test "$(value_of "env perf_profile_where" res/result)" = "qemu guest" &&
	value_of "env perf_profile_event" res/result | grep -Eqx "cpu-clock|cycles" &&
	grep "^metric perf-profile.self.cycles-pp.spin_hot " res/result &&
	grep -q "^metric perf-profile.children.cycles-pp.spin_hot " res/result &&
	test -s res/perf-profile.data &&
	perf report -i res/perf-profile.data --stdio --sort comm 2>/dev/null |
		grep -q " hot *$"
'

test_expect_success 'the initramfs holds perf, its libraries and loader at their paths' '
	perf=$(realpath "$(command -v perf)") &&
	grep -qx "${perf#/}" qemu.list &&
	while read -r lib; do
		grep -qx "$lib" qemu.list || { echo "missing $lib"; return 1; }
	done <perf.libs &&
	grep -q "^lib64/ld-linux" perf.libs
'

test_expect_success 'the boot run records its start, end and boot by the host' '
	set -- $(value_of start res/result) &&
	test $# = 2 && s_wall=${1%.*} && s_mono=$2 &&
	set -- $(value_of end res/result) &&
	test $# = 2 && e_wall=${1%.*} && e_mono=$2 &&
	test "$s_wall" -ge "$(cat before)" && test "$e_wall" -le "$(cat after)" &&
	awk -v a="$s_mono" -v b="$e_mono" "BEGIN { exit !(b > a && a > 0) }" &&
	value_of boot_id res/result | grep -Eqx "[0-9a-f-]{36}"
'

test_expect_success 'a kernel built without EVENTFD is refused before qemu starts' '
	boot_run "# CONFIG_EVENTFD is not set" "monitors: [perf-profile]" &&
	test ! -e qemu.argv &&
	value_of error res/result >err &&
	cat err &&
	grep -q "monitor .perf-profile. records in the qemu guest, and its kernel was built without CONFIG_EVENTFD (CONFIG_EVENTFD=n in the build.s .config" err
'

test_expect_success 'so is one without PERF_EVENTS, as an LKP marker asks' '
	rm -rf res qemu.argv &&
	printf "CONFIG_64BIT=y\n# CONFIG_PERF_EVENTS is not set\nCONFIG_EVENTFD=y\n" \
		>work/.config &&
	printf "testcase: hot\nrun: ./hot\nperf-profile:\n" >job.yaml &&
	"$AGENT" run --boot qemu --workdir work job.yaml res &&
	test ! -e qemu.argv &&
	grep -q "^error .*built without CONFIG_PERF_EVENTS" res/result
'

test_expect_success 'a job without the monitor gets no perf in its initramfs' '
	boot_run CONFIG_EVENTFD=y &&
	test "$(value_of exit_status res/result)" = 0 &&
	! grep -q "^usr/bin/perf" qemu.list &&
	! grep -q "^metric perf-profile" res/result &&
	test ! -e res/perf-profile.data &&
	grep -q "^start " res/result && grep -q "^end " res/result &&
	grep -q "^boot_id " res/result
'

test_done
