#!/bin/sh
# What a run records of its environment (docs/monitors.md): on fixture
# trees of ivb44 and a four-node machine, the kernel, its compiler,
# build and config hash, THP, NUMA balancing, zone_reclaim_mode, chosen
# sysctls, every CPU's governor, the NUMA topology; and what the
# artifacts of a kernel built here say (its release from the bzImage
# header, its .config), with kernel_under_test when the run booted it.
. "$(dirname "$0")/test-lib.sh"

AGENT=$BISECTD_BUILD/bin/bisect-agent
MACHINE=$BISECTD_SRC/tests/fixture-machine.sh

env_of() {
	awk -v k="env $1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$2"
}

# A bzImage with a setup header whose version string starts with $2.
make_bzimage() {
	"$PYTHON3" - "$1" "$2" <<-\EOF
	import struct, sys
	img = bytearray(0x400)
	img[0x202:0x206] = b"HdrS"
	ver = (sys.argv[2] + " (kbuild@lkp) #1 SMP").encode() + b"\0"
	off = 0x300
	img[0x20e:0x210] = struct.pack("<H", off - 0x200)
	img[off:off + len(ver)] = ver
	open(sys.argv[1], "wb").write(bytes(img))
	EOF
}

test_expect_success 'setup' '
	sh "$MACHINE" ivb44 ivb44 &&
	sh "$MACHINE" hsx4 hsx4 &&
	printf "testcase: env\nrun: \"true\"\nmonitors: []\n" >env.yaml
'

test_expect_success 'ivb44: machine, kernel and settings' '
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run env.yaml res &&
	r=res/result &&
	test "$(env_of model $r)" = "Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz" &&
	test "$(env_of nr_cpu $r)" = 48 &&
	test "$(env_of nr_node $r)" = 2 &&
	test "$(env_of memory $r)" = "64G 68719476736" &&
	test "$(env_of node0.cpulist $r)" = 0-11,24-35 &&
	test "$(env_of node1.cpulist $r)" = 12-23,36-47 &&
	test "$(env_of node1.distance $r)" = "20 10" &&
	test "$(env_of kernel $r)" = 3.16.0-rc1-00001-gf7b5d647946a &&
	test "$(env_of compiler $r)" = "gcc version 4.9.1 (Debian 4.9.1-1)" &&
	test "$(env_of kernel_build $r)" = "#1 SMP Sun Jul 13 18:30:14 CST 2014" &&
	want=$(sha256sum ivb44/boot/config-3.16.0-rc1-00001-gf7b5d647946a |
		cut -c1-16) &&
	test "$(env_of kconfig $r)" = "$want" &&
	test "$(env_of thp_enabled $r)" = madvise &&
	test "$(env_of thp_defrag $r)" = madvise &&
	test "$(env_of numa_balancing $r)" = 1 &&
	test "$(env_of zone_reclaim_mode $r)" = 0 &&
	test "$(env_of governor $r)" = performance &&
	test "$(env_of scaling_driver $r)" = intel_pstate &&
	test "$(env_of smt $r)" = on &&
	test "$(env_of no_turbo $r)" = 0 &&
	test "$(env_of sysctl.vm.swappiness $r)" = 60 &&
	test "$(env_of sysctl.vm.min_free_kbytes $r)" = 90112 &&
	test "$(env_of sysctl.kernel.sched_autogroup_enabled $r)" = 1 &&
	env_of cmdline $r | grep "numa_balancing=enable" &&
	env_of agent_version $r | grep "^[0-9]" &&
	! grep "^env kernel_under_test" $r
'

test_expect_success 'the four-node machine' '
	BISECT_AGENT_ROOT=$TRASH/hsx4 "$AGENT" run env.yaml res4 &&
	r=res4/result &&
	test "$(env_of nr_cpu $r)" = 144 &&
	test "$(env_of nr_node $r)" = 4 &&
	test "$(env_of memory $r)" = "512G 549755813888" &&
	test "$(env_of node3.cpulist $r)" = 54-71,126-143 &&
	test "$(env_of node3.memory $r)" = "128G 137438953472" &&
	test "$(env_of node2.distance $r)" = "21 21 10 21"
'

test_expect_success 'governors that disagree are all named' '
	echo powersave >ivb44/sys/devices/system/cpu/cpu30/cpufreq/scaling_governor &&
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run env.yaml res-gov &&
	test "$(env_of governor res-gov/result)" = performance,powersave &&
	echo performance >ivb44/sys/devices/system/cpu/cpu30/cpufreq/scaling_governor
'

test_expect_success 'a kernel built here: its release, config and compiler' '
	mkdir -p work/arch/x86/boot &&
	make_bzimage work/arch/x86/boot/bzImage 3.16.0-rc1-00001-gf7b5d647946a &&
	printf "# Linux/x86 3.16.0-rc1\nCONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14) 12.2.0\"\nCONFIG_NUMA=y\n" \
		>work/.config &&
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run --workdir work env.yaml res-built &&
	r=res-built/result &&
	test "$(env_of kernel_built $r)" = 3.16.0-rc1-00001-gf7b5d647946a &&
	test "$(env_of kernel_under_test $r)" = 1 &&
	test "$(env_of kconfig_built $r)" = "$(sha256sum work/.config | cut -c1-16)" &&
	test "$(env_of compiler_built $r)" = "gcc (Debian 12.2.0-14) 12.2.0" &&
	cmp work/.config res-built/kconfig
'

test_expect_success 'a built kernel the run did not boot is not under test' '
	make_bzimage work/arch/x86/boot/bzImage 3.17.0-rc2 &&
	BISECT_AGENT_ROOT=$TRASH/ivb44 "$AGENT" run --workdir work env.yaml res-other &&
	test "$(env_of kernel_built res-other/result)" = 3.17.0-rc2 &&
	! grep "^env kernel_under_test" res-other/result &&
	BISECT_AGENT_KERNEL_UNDER_TEST=1 BISECT_AGENT_ROOT=$TRASH/ivb44 \
		"$AGENT" run --workdir work env.yaml res-forced &&
	test "$(env_of kernel_under_test res-forced/result)" = 1
'

test_expect_success 'this machine: the running kernel and its settings' '
	"$AGENT" run env.yaml res-here &&
	r=res-here/result &&
	test "$(env_of kernel $r)" = "$(uname -r)" &&
	env_of compiler $r | grep . &&
	if test -r /proc/config.gz; then
		test "$(env_of kconfig $r)" = "$(sha256sum /proc/config.gz | cut -c1-16)"
	fi &&
	if test -r /sys/kernel/mm/transparent_hugepage/enabled; then
		env_of thp_enabled $r | grep -E "^(always|madvise|never)$"
	fi &&
	test "$(env_of sysctl.vm.swappiness $r)" = "$(cat /proc/sys/vm/swappiness)"
'

test_done
