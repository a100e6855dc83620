#!/bin/sh
# Drift in the hugepage settings, and no drift where a quantity only
# wobbles (issue 11, item 7). On the ivb44 fixture tree with hugetlbfs
# pools, THP's shmem_enabled and khugepaged: every run records them;
# nr_hugepages 0 -> 16384 between the sides makes compare refuse and a
# bisection stop, naming the key; memory 0.05% apart across the GiB
# rounding ("5G | 6G") is no difference, and that bisection finds its
# culprit. A pool's surplus pages (held under nr_overcommit_hugepages
# by a process, such as another job's hugetlb case) are no setting.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

MACHINE=$BISECTD_SRC/tests/fixture-machine.sh
THP=sys/kernel/mm/transparent_hugepage

abbrev() {
	echo "$1" | cut -c1-10
}

# hugepages ROOT N: N pages of 2 MiB, machine-wide and split over 2 nodes.
hugepages() {
	echo "$2" >"$1/proc/sys/vm/nr_hugepages" &&
	echo "$2" >"$1/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages" &&
	for n in 0 1; do
		echo $(($2 / 2)) >"$1/sys/devices/system/node/node$n/hugepages/hugepages-2048kB/nr_hugepages" ||
		return 1
	done
}

# memtotal ROOT KB: MemTotal of the machine, KB/2 on each node.
memtotal() {
	sed -i "s/^MemTotal: .*/MemTotal:       $2 kB/" "$1/proc/meminfo" &&
	for n in 0 1; do
		sed -i "s/^Node $n MemTotal: .*/Node $n MemTotal:       $(($2 / 2)) kB/" \
			"$1/sys/devices/system/node/node$n/meminfo" || return 1
	done
}

test_expect_success 'setup: ivb44 with hugepage pools, THP shmem and khugepaged' '
	setup_bench --commits 12 --culprit 8 --change -10 --noise 0.5 &&
	sh "$MACHINE" ivb44 m &&
	for size in 2048 1048576; do
		mkdir -p m/sys/kernel/mm/hugepages/hugepages-${size}kB &&
		echo 0 >m/sys/kernel/mm/hugepages/hugepages-${size}kB/nr_hugepages &&
		echo 0 >m/sys/kernel/mm/hugepages/hugepages-${size}kB/nr_overcommit_hugepages &&
		for n in 0 1; do
			mkdir -p m/sys/devices/system/node/node$n/hugepages/hugepages-${size}kB &&
			echo 0 >m/sys/devices/system/node/node$n/hugepages/hugepages-${size}kB/nr_hugepages ||
			return 1
		done || return 1
	done &&
	echo 0 >m/proc/sys/vm/nr_hugepages &&
	echo 0 >m/proc/sys/vm/nr_overcommit_hugepages &&
	echo "always within_size advise [never] deny force" >m/$THP/shmem_enabled &&
	mkdir -p m/$THP/khugepaged &&
	echo 1 >m/$THP/khugepaged/defrag &&
	echo 511 >m/$THP/khugepaged/max_ptes_none &&
	cp -R m m-orig
'

test_expect_success 'bisect-agent info records every hugepage setting' '
	bisect-agent info --root m >info &&
	cat >want <<-\EOF &&
	sysctl.vm.nr_hugepages 0
	sysctl.vm.nr_overcommit_hugepages 0
	thp_shmem_enabled never
	thp_khugepaged_defrag 1
	thp_khugepaged_max_ptes_none 511
	hugepages-2048kB.nr_hugepages 0
	hugepages-2048kB.nr_overcommit_hugepages 0
	hugepages-1048576kB.nr_hugepages 0
	node0.hugepages-2048kB.nr_hugepages 0
	node1.hugepages-1048576kB.nr_hugepages 0
	EOF
	while read -r line; do
		grep -Fx "$line" info || { echo "missing: $line"; return 1; }
	done <want
'

test_expect_success 'surplus pages a process holds are no setting: the pools record nr_hugepages less surplus_hugepages' '
	cp -R m m-surplus &&
	pool=m-surplus/sys/kernel/mm/hugepages/hugepages-2048kB &&
	npool=m-surplus/sys/devices/system/node/node0/hugepages/hugepages-2048kB &&
	echo 6 >$pool/nr_hugepages && echo 4 >$pool/surplus_hugepages &&
	echo 4 >$npool/nr_hugepages && echo 4 >$npool/surplus_hugepages &&
	bisect-agent info --root m-surplus >info-s &&
	grep -Fx "hugepages-2048kB.nr_hugepages 2" info-s &&
	grep -Fx "node0.hugepages-2048kB.nr_hugepages 0" info-s &&
	echo 3 >$pool/nr_hugepages && echo 4 >$pool/surplus_hugepages &&
	bisect-agent info --root m-surplus >info-s2 &&
	grep -Fx "hugepages-2048kB.nr_hugepages 3" info-s2 &&
	rm -rf m-surplus
'

test_expect_success 'runs at good with no hugepages, at bad with 16384' '
	good=$(commit_oid "commit 2") && bad=$(commit_oid "commit 11") &&
	echo "$good" >good && echo "$bad" >bad &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job.yaml --commit "$good" \
		--wait >q1.out 2>q1.err &&
	hugepages m 16384 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job.yaml --commit "$bad" \
		--wait >q2.out 2>q2.err &&
	db_query "SELECT DISTINCT e.value FROM run_env e JOIN runs r ON e.run = r.id
		WHERE e.key = '"'"'sysctl.vm.nr_hugepages'"'"' ORDER BY 0 + e.value" >nr &&
	printf "0\n16384\n" >want &&
	test_cmp_lines nr want
'

test_expect_success 'compare refuses, naming nr_hugepages and its pools' '
	good=$(cat good) && bad=$(cat bad) &&
	test_expect_code 1 bisectctl compare "$good" "$bad" job.yaml --wait \
		>cmp.out 2>cmp.err &&
	cat cmp.err &&
	grep "^error: refusing to compare: the runs did not run in the same environment" cmp.err &&
	grep "^    sysctl.vm.nr_hugepages: 0 at $(abbrev $good) (3 runs) | 16384 at $(abbrev $bad) (3 runs)$" cmp.err &&
	grep "^    node1.hugepages-2048kB.nr_hugepages: 0 at $(abbrev $good) (3 runs) | 8192 at $(abbrev $bad) (3 runs)$" cmp.err &&
	! grep "memory" cmp.err
'

test_expect_success 'a bisection across the change stops before another run' '
	good=$(cat good) && bad=$(cat bad) &&
	runs=$(db_query "SELECT count(*) FROM runs") &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl bisect job.yaml --good "$good" \
		--bad "$bad" --wait --json >bisect.json 2>bisect.err
	cat bisect.json bisect.err &&
	test "$(json_get bisect.json "d[\"status\"]")" = failed &&
	json_get bisect.json "d[\"error\"]" >why &&
	grep "sysctl.vm.nr_hugepages: 0 at good $(abbrev $good) (3 runs) | 16384 at bad $(abbrev $bad) (3 runs)" why &&
	test "$(db_query "SELECT count(*) FROM runs")" = "$runs"
'

test_expect_success 'khugepaged defrag changed alone is drift too' '
	good=$(cat good) && bad=$(cat bad) &&
	{ cat job.yaml && echo "variant: defrag"; } >job-defrag.yaml &&
	rm -rf m && cp -R m-orig m &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-defrag.yaml \
		--commit "$good" --wait >q3.out 2>q3.err &&
	echo 0 >m/$THP/khugepaged/defrag &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-defrag.yaml \
		--commit "$bad" --wait >q4.out 2>q4.err &&
	test_expect_code 1 bisectctl compare "$good" "$bad" job-defrag.yaml \
		--wait >cmp2.out 2>cmp2.err &&
	grep "^    thp_khugepaged_defrag: 1 at $(abbrev $good) (3 runs) | 0 at $(abbrev $bad) (3 runs)$" cmp2.err
'

test_expect_success 'memory 0.05% apart across the GiB rounding is no drift' '
	good=$(cat good) && bad=$(cat bad) &&
	{ cat job.yaml && echo "variant: memory"; } >job-mem.yaml &&
	rm -rf m && cp -R m-orig m &&
	memtotal m 5766000 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-mem.yaml \
		--commit "$good" --wait >q5.out 2>q5.err &&
	memtotal m 5769000 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-mem.yaml \
		--commit "$bad" --wait >q6.out 2>q6.err &&
	db_query "SELECT DISTINCT substr(e.value, 1, 2) FROM run_env e JOIN runs r
		ON e.run = r.id JOIN jobs j ON r.job = j.id WHERE e.key =
		'"'"'memory'"'"' AND j.canonical LIKE '"'"'%memory%'"'"' ORDER BY 1" >mem &&
	printf "5G\n6G\n" >want &&
	test_cmp_lines mem want &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl compare "$good" "$bad" \
		job-mem.yaml --wait >cmp3.out 2>cmp3.err &&
	cat cmp3.out &&
	! grep -i "drift" cmp3.out &&
	grep "microbench.score$" cmp3.out
'

test_expect_success 'and a bisection over those runs goes on to its culprit' '
	good=$(cat good) && bad=$(cat bad) &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl bisect job-mem.yaml --good "$good" \
		--bad "$bad" --wait --json >bisect2.json 2>bisect2.err
	cat bisect2.json &&
	test "$(json_get bisect2.json "d[\"status\"]")" = found &&
	test "$(json_get bisect2.json "d[\"culprit\"]")" = "$(culprit_oid)"
'

test_expect_success 'memory moving during the runs on both sides alike is noted, not drift' '
	good=$(cat good) && bad=$(cat bad) &&
	{ sed "s/^runs: .*/runs: 2/" job.yaml && echo "variant: hotplug"; } >job-hot.yaml &&
	rm -rf m && cp -R m-orig m &&
	memtotal m 8000000 &&
	for c in "$good" "$bad"; do
		BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-hot.yaml \
			--commit "$c" --wait >/dev/null 2>>hot.err || return 1
	done &&
	sed -i "s/^runs: .*/runs: 4/" job-hot.yaml &&
	memtotal m 8400000 &&
	for c in "$good" "$bad"; do
		BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-hot.yaml \
			--commit "$c" --wait >/dev/null 2>>hot.err || return 1
	done &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl compare "$good" "$bad" \
		job-hot.yaml --wait >cmp4.out 2>cmp4.err &&
	grep "microbench.score$" cmp4.out &&
	! grep -i "drift" cmp4.out &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl compare "$good" "$bad" \
		job-hot.yaml --wait --json >cmp4.json 2>>cmp4.err &&
	json_get cmp4.json "\" \".join(\"%s=%s\" % (i[\"key\"], i[\"matters\"]) for i in d[\"drift\"])" >hot.keys &&
	grep -x "memory=False node0.memory=False node1.memory=False" hot.keys &&
	json_get cmp4.json "d[\"drift\"][0][\"text\"]" |
		grep "^7.63G at .* | 8.01G at .*; it moved while the runs went on, on every side alike$"
'

test_expect_success 'memory that parts the sides, across a reboot, is still drift' '
	good=$(cat good) && bad=$(cat bad) &&
	{ cat job.yaml && echo "variant: parted"; } >job-part.yaml &&
	mkdir -p m/proc/sys/kernel/random &&
	echo 11111111-1111-4111-8111-111111111111 >m/proc/sys/kernel/random/boot_id &&
	memtotal m 8000000 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-part.yaml \
		--commit "$good" --wait >/dev/null 2>part.err &&
	echo 22222222-2222-4222-8222-222222222222 >m/proc/sys/kernel/random/boot_id &&
	memtotal m 8400000 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-part.yaml \
		--commit "$bad" --wait >/dev/null 2>>part.err &&
	test "$(db_query "SELECT count(DISTINCT boot_id) FROM runs WHERE boot_id LIKE '"'"'1111%'"'"' OR boot_id LIKE '"'"'2222%'"'"'")" = 2 &&
	test_expect_code 1 bisectctl compare "$good" "$bad" job-part.yaml \
		--wait >cmp5.out 2>cmp5.err &&
	grep "^    memory: 7.63G at $(abbrev $good) (3 runs) | 8.01G at $(abbrev $bad) (3 runs)$" cmp5.err
'

test_expect_success 'memory that changes within one boot is the host hot-plugging it: noted' '
	good=$(cat good) && bad=$(cat bad) &&
	{ cat job.yaml && echo "variant: one boot"; } >job-boot.yaml &&
	echo 33333333-3333-4333-8333-333333333333 >m/proc/sys/kernel/random/boot_id &&
	memtotal m 8000000 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-boot.yaml \
		--commit "$good" --wait >/dev/null 2>boot.err &&
	memtotal m 8400000 &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl queue job-boot.yaml \
		--commit "$bad" --wait >/dev/null 2>>boot.err &&
	BISECT_AGENT_ROOT=$TRASH/m bisectctl compare "$good" "$bad" \
		job-boot.yaml --wait --json >cmp6.json 2>cmp6.err &&
	json_get cmp6.json "d[\"drift\"][0][\"text\"]" |
		grep "^7.63G at .* | 8.01G at .*; it changed within one boot (memory hot-plugged or ballooned by the host)$" &&
	json_get cmp6.json "[i[\"matters\"] for i in d[\"drift\"]]" | grep -x "\[False, False, False\]"
'

test_done
