#!/bin/sh
# fio (LKP's fio-basic, a C adapter reading fio's JSON report), fs_mark
# and kbuild end to end on the local agent with short runs. fio: LKP's
# stats/fio names, one instance per fio job, checked against fio.json as
# Python reads it. fsmark: files_per_sec over the iterations (the
# instances). kbuild: a small tree made here with a kernel-like Makefile
# (mrproper, defconfig, the target, O=), built again and again
# for a second.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

test_expect_success 'setup' '
	lkp_needs fio fs_mark make cc /usr/bin/time && lkp_setup
'

test_expect_success 'fio randrw, 2 jobs: LKP names, per-job instances' '
	cat >fio.yaml <<-\EOF &&
	testcase: fio
	rw: randrw
	bs: 4k
	ioengine: sync
	nr_task: 2
	test_size: 8M
	runtime: 1s
	time_based: 1
	runs: 1
	monitors: []
	EOF
	lkp_run fio.yaml &&
	test -s "$lkp_run_dir/fio.json" &&
	lkp_names fio read_bw_MBps read_iops read_clat_mean_ns read_clat_stddev \
		"read_clat_90%_ns" "read_clat_95%_ns" "read_clat_99%_ns" \
		read_slat_mean_us write_bw_MBps write_iops "write_clat_99%_ns" \
		workload "latency_4us%" &&
	"$PYTHON3" -c "import json, sys
d = json.load(open(sys.argv[1]))
jobs = d[\"jobs\"]
assert len(jobs) == 2, len(jobs)
print(\"read_iops\", repr(sum(j[\"read\"][\"iops\"] for j in jobs)))
print(\"write_bw_MBps\", repr(sum(j[\"write\"][\"bw\"] for j in jobs) / 1024))
print(\"workload\", sum(j[\"read\"][\"total_ios\"] + j[\"write\"][\"total_ios\"] for j in jobs))
print(\"read_clat_99%_ns\", repr(sum(j[\"read\"][\"clat_ns\"][\"percentile\"][\"99.000000\"] for j in jobs) / 2))
print(\"read_clat_mean_ns\", repr(sum(j[\"read\"][\"clat_ns\"][\"mean\"] for j in jobs) / 2))
" "$lkp_run_dir/fio.json" >want &&
	while read -r name v; do
		lkp_same "$(lkp_value fio "$name")" "$v" 1e-9 || return 1
	done <want &&
	test "$(lkp_count_instances fio read_iops)" = 2 &&
	lkp_same "$(lkp_sum_instances fio read_iops)" "$(lkp_value fio read_iops)" 1e-9
'

test_expect_success 'fio-basic, the name in LKP job files' '
	printf "testcase: fio-basic\nrw: write\nbs: 64k\ntest_size: 4M\nruntime: 1s\nruns: 1\nmonitors: []\n" >fb.yaml &&
	lkp_run fb.yaml &&
	lkp_same "$(lkp_value fio-basic write_iops)" "$("$PYTHON3" -c "import json, sys
print(repr(json.load(open(sys.argv[1]))[\"jobs\"][0][\"write\"][\"iops\"]))" "$lkp_run_dir/fio.json")"
'

test_expect_success 'fio: a bad parameter is an error of the run, naming it' '
	printf "testcase: fio\nrw: sideways\nruntime: 1s\nruns: 1\nmonitors: []\n" >bad.yaml &&
	# refused at queue time (exit 2), or else an error of the run
	if bisectctl queue bad.yaml --commit HEAD --wait >out 2>err; then
		grep "^error testcase .fio.: .rw. must be one of read, write, .*not .sideways.$" \
			"$(lkp_last_run)/result"
	else
		test $? = 2 && grep "rw.*sideways" err
	fi
'

test_expect_success 'fsmark: files_per_sec and app_overhead over the iterations' '
	cat >fsm.yaml <<-\EOF &&
	testcase: fsmark
	nr_threads: 2
	filesize: 4K
	nr_files: 50
	iterations: 2
	sync_method: NoSync
	runs: 1
	monitors: []
	EOF
	lkp_run fsm.yaml &&
	log=$lkp_run_dir/output.log &&
	grep "fs_mark .*-S  0 .*-s  4096" "$log" &&
	awk "/^FSUse%/ { t = 1; next } t && NF == 5 { n++; f += \$4; o += \$5 }
		END { printf \"%.17g %.17g %d\\n\", f / n, o / n, n }" "$log" >want &&
	read f o n <want && test "$n" = 2 &&
	lkp_same "$(lkp_value fsmark files_per_sec)" "$f" 1e-9 &&
	lkp_same "$(lkp_value fsmark app_overhead)" "$o" 1e-9 &&
	test "$(lkp_count_instances fsmark files_per_sec)" = 2
'

test_expect_success 'kbuild: a tree built out of tree, LKP names' '
	mkdir tree &&
	printf "%s\n" "O ?= ." "mrproper:" \
		"	rm -rf \$(O)/*.o \$(O)/vmlinux \$(O)/.config" \
		"defconfig:" "	echo CONFIG_X=y >\$(O)/.config" \
		"vmlinux: \$(O)/a.o \$(O)/b.o" \
		"	cc -o \$(O)/vmlinux \$(O)/a.o \$(O)/b.o" \
		"\$(O)/%.o: %.c" "	test -f \$(O)/.config && cc -c -o \$@ \$<" \
		>tree/Makefile &&
	echo "int f(void) { return 1; }" >tree/b.c &&
	echo "int f(void); int main(void) { return f() - 1; }" >tree/a.c &&
	printf "testcase: kbuild\nsrc: $TRASH/tree\nnr_task: 2\nruntime: 1s\nruns: 1\nmonitors: []\n" >kb.yaml &&
	lkp_run kb.yaml &&
	log=$lkp_run_dir/output.log &&
	lkp_same "$(lkp_value kbuild workload)" "$(grep -c "^end time:" "$log")" &&
	test "$(lkp_count_instances kbuild buildtime_per_iteration)" = "$(grep -c "^end time:" "$log")" &&
	lkp_same "$(lkp_value kbuild buildtime_per_iteration)" \
		"$(awk "/^start time:/ { s = \$3 } /^end time:/ { t += \$3 - s; n++ } END { printf \"%.17g\", t / n }" "$log")" 1e-6 &&
	lkp_same "$(lkp_value kbuild user_time_per_iteration)" \
		"$(awk "/^user:/ { v = \$2; sub(/s\$/, \"\", v); t += v; n++ } END { printf \"%.17g\", t / n }" "$log")" 1e-9 &&
	test ! -e tree/vmlinux && test ! -e tree/.config
'

test_done
