#!/bin/sh
# Smaller LKP keys of lkp-tests' files: force_reboot: 1 needs an agent
# that boots every run (queue refuses one with boot: none, naming why);
# vm-scalability's "size:" with no value is its size parameter left to
# the default, not a program; redis's nr_threads is redis-benchmark's
# --threads; debug-setup (LKP's self-test script) is refused by name.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	printf "repos:\n  - name: r\n    path: repo\n" >bisectd.yaml
'

test_expect_success 'force_reboot: 1 is refused on an agent that boots nothing' '
	printf "testcase: t\nrun: \"echo t: 1\"\nruns: 1\nforce_reboot: 1\n" >r.yaml &&
	bisectctl check r.yaml >/dev/null &&
	test_expect_code 2 bisectctl queue r.yaml --commit HEAD 2>err &&
	grep -q "no agent can run it: agent .local.: .force_reboot: 1. asks for the machine to be rebooted after the job" err &&
	! test -d state/runs/1 &&
	printf "testcase: t\nrun: \"echo t: 1\"\nruns: 1\nforce_reboot: 0\nmonitors: []\n" >r0.yaml &&
	bisectctl queue r0.yaml --commit HEAD --wait >out &&
	grep -q "t.t" out &&
	printf "testcase: t\nrun: \"echo t: 1\"\nforce_reboot: yes\n" >ry.yaml &&
	test_expect_code 2 bisectctl queue ry.yaml --commit HEAD 2>err &&
	grep -q ".force_reboot. must be 0 or 1, not .yes." err
'

test_expect_success 'vm-scalability: size: with no value is the size parameter' '
	printf "testcase: vm-scalability\nsize:\nvm-scalability:\n  test: anon-r-seq\n" >s.yaml &&
	bisectctl check s.yaml >out &&
	grep -q "^  runs: .*bisect-agent vm-scalability --test=anon-r-seq --nr-task=[0-9]* --runtime=300\$" out &&
	printf "testcase: vm-scalability\nsize:\n  x: 1\nvm-scalability:\n  test: anon-r-seq\n" >s2.yaml &&
	test_expect_code 2 bisectctl check s2.yaml 2>err &&
	grep -q "^error: s2.yaml:3:3: .size.x. is an option of program .size." err &&
	printf "testcase: hackbench\nnosuch:\n" >s3.yaml &&
	test_expect_code 2 bisectctl check s3.yaml 2>err &&
	grep -q "program .nosuch. is not one bisectd runs" err
'

test_expect_success 'redis: nr_threads is redis-benchmark --threads' '
	printf "testcase: redis\nnr_threads: 3\n" >redis.yaml &&
	bisectctl check redis.yaml >out &&
	grep -q "^  runs: .* -P 1 --threads 3$" out &&
	printf "testcase: redis\n" >redis0.yaml &&
	bisectctl check redis0.yaml >out &&
	! grep -q -- "--threads" out
'

test_expect_success 'debug-setup is refused by name' '
	printf "testcase: sysbench-cpu\ndebug-setup: tune\n" >d.yaml &&
	test_expect_code 2 bisectctl check d.yaml 2>err &&
	grep -q "^error: d.yaml:2:1: .debug-setup. cannot be honoured here: LKP.s .debug-setup. is its self-test setup script" err
'

test_done
