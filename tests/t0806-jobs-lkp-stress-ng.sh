#!/bin/sh
# LKP's stress-ng keys: testtime is its --timeout (before runtime, as
# LKP's programs/stress-ng takes it), and method, mode, type, sched,
# advise and hdd_opts are given to stress-ng as its options (of the
# stressor: --cpu-method). End to end on the local agent: a one-second
# cpu stressor with a method, its stress-ng.cpu.* metrics stored.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

argv_of() {
	bisectctl check --json "$1" >"$1.json" &&
	"$PYTHON3" -c "import json, sys
print(\" \".join(json.load(open(sys.argv[1]))[0][\"runs\"][\"argv\"][1:]))" "$1.json"
}

test_expect_success 'setup' '
	lkp_needs stress-ng && lkp_setup
'

test_expect_success 'testtime is the --timeout; runtime only without it' '
	printf "testcase: stress-ng\ntest: cpu\nnr_threads: 1\ntesttime: 2s\nruntime: 9\n" >t.yaml &&
	argv_of t.yaml >argv &&
	grep -- "--cpu 1 --timeout 2s " argv &&
	printf "testcase: stress-ng\ntest: cpu\nnr_threads: 1\nruntime: 9\n" >r.yaml &&
	argv_of r.yaml >argv &&
	grep -- "--timeout 9s " argv
'

# made-up values (the installed stress-ng has no --vm-mode: t0813 refuses
# that), so through a stress-ng that lists nothing
test_expect_success 'the options, as stress-ng names them' '
	mkdir mute && printf "#!/bin/sh\nexit 1\n" >mute/stress-ng &&
	chmod +x mute/stress-ng &&
	printf "testcase: stress-ng\ntest: vm\nnr_threads: 1\ntesttime: 1\nmethod: flip\nmode: x\ntype: y\nsched: fifo\nadvise: hugepage\nhdd_opts: wr-seq,rd-rnd\n" >o.yaml &&
	PATH=$TRASH/mute:$PATH argv_of o.yaml >argv &&
	grep -- "--vm-method flip --vm-mode x --vm-type y --vm-sched fifo --madvise-advise hugepage --hdd-opts wr-seq,rd-rnd" argv
'

test_expect_success 'an option value that is not one: FILE:LINE:COL' '
	printf "testcase: stress-ng\ntest: cpu\nmethod: \"a b\"\n" >bad.yaml &&
	test_expect_code 2 bisectctl check bad.yaml 2>err &&
	grep "^error: bad.yaml:3:1: testcase .stress-ng.: .method. must be a stress-ng option value" err
'

test_expect_success 'end to end: testtime 1s and a method' '
	cat >run.yaml <<-\EOF &&
	suite: stress-ng
	testcase: stress-ng
	category: benchmark
	nr_threads: 1
	testtime: 1s
	stress-ng:
	  test: cpu
	  method: int64
	runs: 1
	monitors: []
	EOF
	argv_of run.yaml >argv &&
	grep -- "--cpu 1 --timeout 1s --cpu-method int64 " argv &&
	lkp_run run.yaml &&
	lkp_names stress-ng cpu.ops_per_sec cpu.ops &&
	awk -v v="$(lkp_value stress-ng cpu.ops)" "BEGIN { exit !(v > 0) }"
'

test_done
