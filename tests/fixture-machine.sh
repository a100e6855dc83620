#!/bin/sh
# Fixture /proc and /sys trees of NUMA machines, for the agent's inventory,
# monitors and knobs (DESIGN §3.5: every read goes through a root path).
#
#   sh tests/fixture-machine.sh MACHINE ROOT          create the whole tree
#   sh tests/fixture-machine.sh MACHINE ROOT step N   move the counters and
#                                                     levels to step N
# MACHINE:
#   ivb44   the machine of seed 004: Ivytown Ivy Bridge-EP (Xeon E5-2697
#           v2), 2 nodes, 48 CPUs (0-11,24-35 and 12-23,36-47), 64G
#   hsx4    a four-node Haswell-EX (Xeon E7-8890 v3), 144 CPUs, 512G
#
# The files have the kernel's formats (tests/fixtures/proc-capture has
# real ones). "step N" rewrites only what a run changes -- vmstat,
# numastat, interrupts, softirqs, stat, meminfo, the current frequencies
# -- never the knobs, so a testcase can call it to stand for its own
# activity. Per step: on every CPU LOC +1000+cpu, TIMER +500, user +80,
# system +10 and idle +10 ticks, frequency 2700000 -> 3000000 kHz; on
# every node numa_hit +50000, numa_miss +250, local_node +49000,
# other_node +1000, MemFree -204800 kB; pgfault +48000 per node;
# MemFree -409600 kB; ctxt +1234567.
set -eu

machine=$1
root=$2
step=0
create=1
if [ $# -ge 4 ] && [ "$3" = step ]; then
	step=$4
	create=0
fi

case $machine in
ivb44)
	model='Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz'
	family=6 modelno=62 nodes=2 cores=12 memgb=64
	release=3.16.0-rc1-00001-gf7b5d647946a host=ivb44
	;;
hsx4)
	model='Intel(R) Xeon(R) CPU E7-8890 v3 @ 2.50GHz'
	family=6 modelno=63 nodes=4 cores=18 memgb=512
	release=4.2.0-rc1 host=lkp-hsx04
	;;
*)
	echo "fixture-machine: unknown machine '$machine'" >&2
	exit 2
	;;
esac
ncpu=$((nodes * cores * 2))
memkb=$((memgb * 1024 * 1024))
nodekb=$((memkb / nodes))

# The CPUs of node n: its cores, then their hyperthread siblings.
cpulist() {
	a=$(($1 * cores))
	b=$((a + cores - 1))
	echo "$a-$b,$((a + nodes * cores))-$((b + nodes * cores))"
}
node_of() {
	echo $((($1 % (nodes * cores)) / cores))
}

# Written whole and renamed, so a monitor never reads half a file.
put() {
	mkdir -p "$(dirname "$root/$1")"
	cat >"$root/$1.tmp"
	mv -f "$root/$1.tmp" "$root/$1"
}

counters() {
	s=$step
	awk -v s="$s" -v nodes="$nodes" -v memkb="$memkb" 'BEGIN {
		printf "nr_free_pages %d\n", (memkb - 4194304 - s * 409600) / 4
		printf "nr_anon_pages %d\n", 100000 + s * 25600
		printf "nr_dirty %d\n", 50 + s
		printf "numa_hit %d\n", 987654321 + s * 50000 * nodes
		printf "numa_miss %d\n", 4321 + s * 250 * nodes
		printf "numa_foreign %d\n", 4321 + s * 250 * nodes
		printf "numa_interleave %d\n", 1133
		printf "numa_local %d\n", 987000000 + s * 49000 * nodes
		printf "numa_other %d\n", 654321 + s * 1000 * nodes
		printf "pgpgin %d\n", 1000000
		printf "pswpin %d\n", 0
		printf "pswpout %d\n", 0
		printf "pgfault %d\n", 123456789 + s * 48000 * nodes
		printf "pgmajfault %d\n", 3456
		printf "thp_fault_alloc %d\n", 2000 + s * 10
	}' | put proc/vmstat

	awk -v s="$s" -v memkb="$memkb" 'BEGIN {
		printf "MemTotal:       %d kB\n", memkb
		printf "MemFree:        %d kB\n", memkb - 4194304 - s * 409600
		printf "MemAvailable:   %d kB\n", memkb - 2097152 - s * 409600
		printf "AnonPages:      %d kB\n", 400000 + s * 102400
		printf "AnonHugePages:  %d kB\n", 0
		printf "HugePages_Total:       0\n"
		printf "Hugepagesize:       2048 kB\n"
		printf "DirectMap4k:      123456 kB\n"
		printf "DirectMap2M:     6974259 kB\n"
		printf "DirectMap1G:    60817408 kB\n"
	}' | put proc/meminfo

	n=0
	while [ $n -lt $nodes ]; do
		awk -v s="$s" -v n=$n 'BEGIN {
			printf "numa_hit %d\n", 400000000 + n + s * 50000
			printf "numa_miss %d\n", 2000 + s * 250
			printf "numa_foreign %d\n", 2000 + s * 250
			printf "interleave_hit %d\n", 500
			printf "local_node %d\n", 399000000 + s * 49000
			printf "other_node %d\n", 1000000 + s * 1000
		}' | put sys/devices/system/node/node$n/numastat
		awk -v s="$s" -v n=$n -v kb="$nodekb" 'BEGIN {
			printf "Node %d MemTotal:       %d kB\n", n, kb
			printf "Node %d MemFree:        %d kB\n", n, \
			    kb - 2097152 - s * 204800
			printf "Node %d MemUsed:        %d kB\n", n, \
			    2097152 + s * 204800
			printf "Node %d AnonPages:      %d kB\n", n, 200000 + s * 51200
			printf "Node %d HugePages_Total:     0\n", n
		}' | put sys/devices/system/node/node$n/meminfo
		n=$((n + 1))
	done

	awk -v s="$s" -v ncpu="$ncpu" 'BEGIN {
		printf "%11s", ""
		for (c = 0; c < ncpu; c++) printf " %10s", "CPU" c
		printf "\n"
		printf "%4s:", "0"
		for (c = 0; c < ncpu; c++) printf " %10d", c == 0 ? 45 : 0
		printf "  IR-IO-APIC    2-edge      timer\n"
		printf "%4s:", "35"
		for (c = 0; c < ncpu; c++) printf " %10d", 7 * c + s * 3
		printf "  IR-PCI-MSI 2097152-edge      eth0-TxRx-0\n"
		printf "%4s:", "NMI"
		for (c = 0; c < ncpu; c++) printf " %10d", 100 + c
		printf "   Non-maskable interrupts\n"
		printf "%4s:", "LOC"
		for (c = 0; c < ncpu; c++) printf " %10d", 5000000 + c + s * (1000 + c)
		printf "   Local timer interrupts\n"
		printf "%4s:", "RES"
		for (c = 0; c < ncpu; c++) printf " %10d", 20000 + s * 30
		printf "   Rescheduling interrupts\n"
		printf "%4s: %10d\n", "ERR", 0
		printf "%4s: %10d\n", "MIS", 0
	}' | put proc/interrupts

	awk -v s="$s" -v ncpu="$ncpu" 'BEGIN {
		printf "%20s", ""
		for (c = 0; c < ncpu; c++) printf " %10s", "CPU" c
		printf "\n"
		split("HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU", k, " ")
		for (i = 1; i <= 10; i++) {
			printf "%12s:", k[i]
			for (c = 0; c < ncpu; c++)
				printf " %10d", k[i] == "TIMER" ? 100000 + s * 500 : \
				    k[i] == "RCU" ? 200000 + s * 700 : 10
			printf "\n"
		}
	}' | put proc/softirqs

	awk -v s="$s" -v ncpu="$ncpu" 'BEGIN {
		u = 1000 + s * 80; n = 3; y = 500 + s * 10; i = 100000 + s * 10
		printf "cpu  %d %d %d %d 50 0 20 0 0 0\n", u * ncpu, n * ncpu, \
		    y * ncpu, i * ncpu
		for (c = 0; c < ncpu; c++)
			printf "cpu%d %d %d %d %d 1 0 0 0 0 0\n", c, u, n, y, i
		printf "intr %d 45 0 0\n", 9000000 + s * 100000
		printf "ctxt %d\n", 76543210 + s * 1234567
		printf "btime 1408000000\n"
		printf "processes %d\n", 123456 + s * 480
		printf "procs_running %d\n", 1 + s
		printf "procs_blocked 0\n"
		printf "softirq %d 0 1 2\n", 5000000 + s * 50000
	}' | put proc/stat

	c=0
	while [ $c -lt $ncpu ]; do
		if [ "$s" = 0 ]; then f=2700000; else f=3000000; fi
		echo $f | put sys/devices/system/cpu/cpu$c/cpufreq/scaling_cur_freq
		c=$((c + 1))
	done
}

if [ $create = 0 ]; then
	counters
	exit 0
fi

mkdir -p "$root"
c=0
while [ $c -lt $ncpu ]; do
	printf 'processor\t: %d\nvendor_id\t: GenuineIntel\n' $c
	printf 'cpu family\t: %d\nmodel\t\t: %d\n' $family $modelno
	printf 'model name\t: %s\n' "$model"
	printf 'physical id\t: %d\n' "$(node_of $c)"
	printf 'cpu MHz\t\t: 2700.000\n\n'
	c=$((c + 1))
done | put proc/cpuinfo
echo "0-$((ncpu - 1))" | put sys/devices/system/cpu/online
echo "0-$((ncpu - 1))" | put sys/devices/system/cpu/present
echo on | put sys/devices/system/cpu/smt/control
echo 0 | put sys/devices/system/cpu/intel_pstate/no_turbo
c=0
while [ $c -lt $ncpu ]; do
	d=sys/devices/system/cpu/cpu$c/cpufreq
	echo performance | put $d/scaling_governor
	echo intel_pstate | put $d/scaling_driver
	c=$((c + 1))
done
n=0
while [ $n -lt $nodes ]; do
	cpulist $n | put sys/devices/system/node/node$n/cpulist
	m=0 dist=
	while [ $m -lt $nodes ]; do
		if [ $m = $n ]; then d=10; else d=$((nodes > 2 ? 21 : 20)); fi
		dist="$dist${dist:+ }$d"
		m=$((m + 1))
	done
	echo "$dist" | put sys/devices/system/node/node$n/distance
	n=$((n + 1))
done
echo "0-$((nodes - 1))" | put sys/devices/system/node/online
echo 'always [madvise] never' | put sys/kernel/mm/transparent_hugepage/enabled
echo 'always defer defer+madvise [madvise] never' |
	put sys/kernel/mm/transparent_hugepage/defrag
echo 1 | put proc/sys/kernel/numa_balancing
echo 0 | put proc/sys/vm/zone_reclaim_mode
echo 60 | put proc/sys/vm/swappiness
echo 0 | put proc/sys/vm/overcommit_memory
echo 20 | put proc/sys/vm/dirty_ratio
echo 10 | put proc/sys/vm/dirty_background_ratio
echo 90112 | put proc/sys/vm/min_free_kbytes
echo 1 | put proc/sys/kernel/sched_autogroup_enabled
echo 2 | put proc/sys/kernel/randomize_va_space
echo "$release" | put proc/sys/kernel/osrelease
echo "$host" | put proc/sys/kernel/hostname
echo "Linux version $release (kbuild@lkp-hsw01) (gcc version 4.9.1 (Debian 4.9.1-1) ) #1 SMP Sun Jul 13 18:30:14 CST 2014" |
	put proc/version
echo "BOOT_IMAGE=/kernel/x86_64-rhel/$release/vmlinuz-$release root=/dev/ram0 user=lkp numa_balancing=enable" |
	put proc/cmdline
printf '# Linux/x86 %s Kernel Configuration\nCONFIG_64BIT=y\nCONFIG_NUMA=y\nCONFIG_TRANSPARENT_HUGEPAGE=y\nCONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y\n' "$release" |
	put boot/config-$release
counters
