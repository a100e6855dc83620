#!/bin/sh
# kernbench (LKP's programs/kernbench: kernbench's optimal load) end to
# end on the local agent: a small kernel-like tree made here (mrproper,
# defconfig, clean and the default goal, O=), configured once and built
# nr_loops times with make -j nr_threads. LKP's stats/kernbench names,
# one instance per loop, the means and standard deviations checked
# against the lines /usr/bin/time wrote, read again here with awk.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

test_expect_success 'setup' '
	lkp_needs make cc /usr/bin/time && lkp_setup &&
	mkdir tree &&
	printf "%s\n" "O ?= ." "all: \$(O)/vmlinux" "mrproper: clean" \
		"	rm -f \$(O)/.config" \
		"clean:" "	rm -f \$(O)/*.o \$(O)/vmlinux" \
		"defconfig:" "	echo CONFIG_X=y >\$(O)/.config" \
		"\$(O)/vmlinux: \$(O)/a.o \$(O)/b.o" \
		"	cc -o \$(O)/vmlinux \$(O)/a.o \$(O)/b.o" \
		"\$(O)/%.o: %.c" "	test -f \$(O)/.config && cc -c -o \$@ \$<" \
		>tree/Makefile &&
	echo "int f(void) { return 1; }" >tree/b.c &&
	echo "int f(void); int main(void) { return f() - 1; }" >tree/a.c
'

test_expect_success 'kernbench, 3 loops: LKP names, an instance per loop' '
	cat >kb.yaml <<-EOF &&
	suite: kernbench
	testcase: kernbench
	category: benchmark
	kernbench:
	nr_loops: 3
	nr_threads: 2
	src: $TRASH/tree
	runs: 1
	monitors: []
	EOF
	lkp_run kb.yaml &&
	log=$lkp_run_dir/output.log &&
	test "$(grep -c "^kernbench loop:" "$log")" = 3 &&
	lkp_names kernbench elapsed_time elapsed_time_stddev user_time \
		user_time_stddev system_time system_time_stddev percent_cpu \
		context_switches sleeps sleeps_stddev &&
	test "$(lkp_count_instances kernbench elapsed_time)" = 3 &&
	for f in "elapsed_time 3" "user_time 4" "system_time 5" \
	    "percent_cpu 6" "context_switches 7" "sleeps 8"; do
		set -- $f
		awk -v c=$2 "/^kernbench loop:/ { v = \$(c); sub(/%\$/, \"\", v);
			s += v; q += v * v; n++ }
			END { m = s / n; d = (q - n * m * m) / (n - 1);
			printf \"%.17g %.17g\\n\", m, d < 0 ? 0 : sqrt(d) }" \
			"$log" >want &&
		read mean sd <want &&
		lkp_same "$(lkp_value kernbench $1)" "$mean" 1e-9 &&
		lkp_same "$(lkp_value kernbench ${1}_stddev)" "$sd" 1e-6 ||
		return 1
	done &&
	test ! -e tree/vmlinux && test ! -e tree/.config
'

test_expect_success 'kernbench and kbuild without src: refused at check, naming src and why' '
	printf "testcase: kernbench\nnr_loops: 1\nruns: 1\nmonitors: []\n" >nosrc.yaml &&
	test_expect_code 2 bisectctl check nosrc.yaml 2>err &&
	grep "^error: nosrc.yaml:1:1: testcase .kernbench.: .src. has no value: .*the run needs it: LKP.s kernbench package builds the linux 5.9 release tarball" err &&
	printf "testcase: kbuild\nruns: 1\nmonitors: []\nsetup-kbuild:\n" >kb.yaml &&
	test_expect_code 2 bisectctl check kb.yaml 2>err &&
	grep "^error: kb.yaml:1:1: testcase .kbuild.: .src. has no value: .*: LKP.s setup-kbuild builds the linux 6.12 release tarball .* give src: a clean kernel tree on the agent" err
'

test_done
