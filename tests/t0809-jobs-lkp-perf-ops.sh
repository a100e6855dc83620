#!/bin/sh
# A perf bench benchmark that the installed perf does not have (perf 6.1
# has "perf bench syscall basic" but no fork, execve or getpgid) is
# refused at check and queue time with FILE:LINE:COL and the benchmarks
# it has, read from "perf bench COLLECTION" on the machine that checks.
# A fake perf on PATH makes the list known; without perf there is nothing
# to ask and the value is left to the run.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a perf that lists basic and all for syscall' '
	mkdir bin &&
	cat >bin/perf <<-\EOF &&
	#!/bin/sh
	[ "$1 $2" = "bench syscall" ] && [ $# -eq 2 ] || exit 1
	printf "\n        # List of available benchmarks for collection %s:\n\n" "syscall"
	printf "         basic: Benchmark for basic getppid(2) calls\n"
	printf "           all: Run all syscall benchmarks\n\n"
	EOF
	chmod +x bin/perf &&
	cat >sys.yaml <<-\EOF
	suite: perf-bench-syscall
	testcase: perf-bench-syscall
	category: benchmark

	perf-bench-syscall:
	  op:
	    - basic
	    - execve
	    - fork
	    - getpgid
	EOF
'

test_expect_success 'an op the installed perf lacks is refused, naming what it has' '
	PATH=$TRASH/bin:$PATH test_expect_code 2 bisectctl check sys.yaml 2>err &&
	grep -x "error: sys.yaml:6:3: testcase .perf-bench-syscall.: op .execve. is not a benchmark of the installed perf (.perf bench syscall. has basic/all)" err
'

test_expect_success 'an op it has is accepted, and so is the default' '
	printf "testcase: perf-bench-syscall\nop: basic\n" >basic.yaml &&
	PATH=$TRASH/bin:$PATH bisectctl check basic.yaml >out &&
	printf "testcase: perf-bench-syscall\n" >dflt.yaml &&
	PATH=$TRASH/bin:$PATH bisectctl check dflt.yaml >out
'

test_expect_success 'no perf that answers: not checked here (the run says)' '
	mkdir nobin &&
	printf "#!/bin/sh\nexit 1\n" >nobin/perf && chmod +x nobin/perf &&
	printf "testcase: perf-bench-syscall\nop: fork\n" >fork.yaml &&
	PATH=$TRASH/nobin:$PATH bisectctl check fork.yaml >out
'

test_expect_success 'queue refuses it, exit 2, before anything runs' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	printf "repos:\n  - name: r\n    path: repo\n" >bisectd.yaml &&
	PATH=$TRASH/bin:$PATH test_expect_code 2 bisectctl queue fork.yaml --commit HEAD --wait 2>err &&
	grep "^error: fork.yaml:2:1: testcase .perf-bench-syscall.: op .fork. is not a benchmark of the installed perf" err &&
	! test -d state/runs/1
'

test_done
