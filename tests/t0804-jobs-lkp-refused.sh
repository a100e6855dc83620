#!/bin/sh
# LKP's keys that a run here cannot honour are refused at check and
# queue time with FILE:LINE:COL and why, as keys, maps or markers:
# disk without fs (and its maps), fs without disk, fs2, md, swap,
# boot_params, cgroup2,
# nr_instances, the oom-killer watch, a cluster of
# several machines, a marker that is neither the testcase's program nor
# a monitor the agent has (perf-profile until one is registered), and an
# option of a monitor, which would not be applied.
. "$(dirname "$0")/test-lib.sh"

# refused FILE.yaml MESSAGE: check exits 2 with "error: MESSAGE".
refused() {
	test_expect_code 2 bisectctl check "$1" 2>err &&
	grep -qxF "error: $2" err || { cat err; return 1; }
}

test_expect_success 'disk without fs, as a key and a map; disk: as a marker' '
	printf "suite: sysbench-cpu\ntestcase: sysbench-cpu\ndisk: 1HDD\n" >d1.yaml &&
	refused d1.yaml "d1.yaml:3:1: testcase '"'"'sysbench-cpu'"'"': '"'"'disk'"'"' without '"'"'fs'"'"': bisect-agent'"'"'s adapters run in a file system on the disk (LKP'"'"'s programs too, but for fio'"'"'s raw_disk: 1, which writes to the partition itself); give '"'"'fs: ext4'"'"', '"'"'xfs'"'"' or '"'"'btrfs'"'"', or '"'"'raw_disk: 1'"'"' to fio" &&
	printf "testcase: sysbench-cpu\ndisk:\n  nr_ssd: 1\n" >d2.yaml &&
	test_expect_code 2 bisectctl check d2.yaml 2>err &&
	grep "^error: d2.yaml:3:3: testcase .sysbench-cpu.: .disk. without .fs." err &&
	printf "testcase: sysbench-cpu\ndisk:\n  nr_pmem: 1\n" >d4.yaml &&
	test_expect_code 2 bisectctl check d4.yaml 2>err &&
	grep "^error: d4.yaml:3:3: testcase .sysbench-cpu.: .disk.nr_pmem. is not one bisect-agent does" err &&
	printf "testcase: sysbench-cpu\ndisk:\n" >d3.yaml &&
	test_expect_code 2 bisectctl check d3.yaml 2>err &&
	grep "^error: d3.yaml:2:1: program .disk. cannot be honoured here: LKP.s .disk:. without a count" err
'

test_expect_success 'fs without disk, fs2, md, swap, boot_params, cgroup2, nr_instances' '
	printf "testcase: sysbench-cpu\nfs: ext4\n" >f.yaml &&
	test_expect_code 2 bisectctl check f.yaml 2>err &&
	grep "^error: f.yaml:2:1: testcase .sysbench-cpu.: .fs. is .ext4. but the job asks for no disk" err &&
	printf "testcase: sysbench-cpu\nfs2: nfs\n" >f2.yaml &&
	test_expect_code 2 bisectctl check f2.yaml 2>err &&
	grep "^error: f2.yaml:2:1: testcase .sysbench-cpu.: .fs2. is .nfs.: LKP then exports the job.s file system over NFS or CIFS" err &&
	for k in "md: RAID0:RAID array" \
	    "swap: {priority: 1}:makes swap" "boot_params: {bp_memmap: 1G}:command-line" \
	    "cgroup2: {cg_count: 2}:cgroups it makes" "nr_instances: 8:copies of the test"; do
		kv=${k%:*} why=${k##*:} key=${k%%:*}
		printf "testcase: sysbench-cpu\n%s\n" "$kv" >k.yaml &&
		test_expect_code 2 bisectctl check k.yaml 2>err &&
		grep "^error: k.yaml:2:[0-9]*: .$key[.a-z_]*. cannot be honoured here: LKP.s .$key.* $why" err ||
		{ echo "# $key:"; cat err; return 1; }
	done
'

test_expect_success 'a cluster of several machines; cs-localhost is one' '
	printf "testcase: sysbench-cpu\ncluster: cs-lkp-hsw-ep5\n" >c.yaml &&
	refused c.yaml "c.yaml:2:1: cluster '"'"'cs-lkp-hsw-ep5'"'"' is several machines: bisectd runs a job on one (only '"'"'cluster: cs-localhost'"'"', where it has every role)" &&
	printf "testcase: sysbench-cpu\ncluster: cs-localhost\n" >c1.yaml &&
	bisectctl check c1.yaml >/dev/null
'

test_expect_success 'the oom-killer watch; only its ignored form is what the agent does' '
	printf "testcase: sysbench-cpu\noom-killer:\n" >o.yaml &&
	test_expect_code 2 bisectctl check o.yaml 2>err &&
	grep "^error: o.yaml:2:1: program .oom-killer. cannot be honoured here: LKP.s .oom-killer. watches" err &&
	printf "testcase: sysbench-cpu\noom-killer:\n  ignored: 1\n" >o1.yaml &&
	bisectctl check o1.yaml >/dev/null &&
	printf "testcase: sysbench-cpu\noom-killer:\n  ignored: 0\n" >o0.yaml &&
	test_expect_code 2 bisectctl check o0.yaml 2>err &&
	grep "^error: o0.yaml:3:3: .oom-killer.ignored. cannot be honoured here" err
'

test_expect_success 'a marker that is no monitor the agent has, and its options' '
	printf "testcase: sysbench-cpu\nno-such-monitor:\n" >m.yaml &&
	test_expect_code 2 bisectctl check m.yaml 2>err &&
	grep "^error: m.yaml:2:1: program .no-such-monitor. is not one bisectd runs: neither the testcase.s own, .sysbench-cpu., nor a monitor bisect-agent has (time, proc-vmstat, " err &&
	printf "testcase: sysbench-cpu\nno-such-monitor:\n  delay: 1\n" >m2.yaml &&
	refused m2.yaml "m2.yaml:3:3: '"'"'no-such-monitor.delay'"'"' is an option of program '"'"'no-such-monitor'"'"', which is neither the testcase'"'"'s nor a monitor bisect-agent has"
'

test_expect_success 'a known monitor takes no options: they would not be applied' '
	printf "testcase: sysbench-cpu\nproc-vmstat:\n  interval: 5\n" >v.yaml &&
	refused v.yaml "v.yaml:3:3: monitor '"'"'proc-vmstat'"'"' takes no options: '"'"'proc-vmstat.interval'"'"' would not be applied"
'

test_expect_success 'queue refuses them the same way, before anything runs' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	printf "repos:\n  - name: r\n    path: repo\n" >bisectd.yaml &&
	test_expect_code 2 bisectctl queue d1.yaml --commit HEAD 2>err &&
	grep "^error: d1.yaml:3:1: testcase .sysbench-cpu.: .disk. without .fs." err &&
	! test -d state/runs/1
'

test_done
