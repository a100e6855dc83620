#!/bin/sh
# A parameter that the run needs, with no value in the job and no
# default (kernbench's and kbuild's src, the kernel tree), is refused at
# check and queue time with FILE:LINE:COL, not left to fail the run. A
# parameter used only under a condition it does not meet, or given by the
# job (a file the agent's machine may have), is not refused.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'kernbench without src: refused at check, at the testcase' '
	printf "suite: kernbench\ntestcase: kernbench\ncategory: benchmark\n\nkernbench:\nnr_loops: 5\nnr_threads:\n  - 50%%\n  - 100%%\n" >kb.yaml &&
	test_expect_code 2 bisectctl check kb.yaml 2>err &&
	grep -x "error: kb.yaml:2:1: testcase .kernbench.: .src. has no value: the job does not give it and it has no default, and the run needs it: LKP.s kernbench package builds the linux 5.9 release tarball it downloads from kernel.org, which no Debian package holds (linux-source-6.1 is another kernel, so another workload); give src: a clean kernel tree on the agent" err &&
	bisectctl check --format-only kb.yaml >out &&
	tail -n 1 out | grep "^2 jobs, "
'

test_expect_success 'kbuild with setup-kbuild but no src: refused the same way' '
	printf "testcase: kbuild\nsetup-kbuild:\nruntime: 10s\nnr_task: 200%%\ntarget: vmlinux\nkbuild:\n" >kbuild.yaml &&
	test_expect_code 2 bisectctl check kbuild.yaml 2>err &&
	grep -x "error: kbuild.yaml:1:1: testcase .kbuild.: .src. has no value: the job does not give it and it has no default, and the run needs it: LKP.s setup-kbuild builds the linux 6.12 release tarball its own package downloads from kernel.org, which no Debian package holds (linux-source-6.1 is another kernel, so another workload); give src: a clean kernel tree on the agent" err
'

test_expect_success 'with src given (a path the agent has), it is accepted' '
	mkdir tree &&
	printf "testcase: kernbench\nsrc: $TRASH/tree\nnr_loops: 1\n" >kbsrc.yaml &&
	bisectctl check kbsrc.yaml >out &&
	grep "^  runs: [^ ]*sh -c " out &&
	printf "testcase: kernbench\nsrc: /nonexistent/linux\nnr_loops: 1\n" >kbfar.yaml &&
	bisectctl check kbfar.yaml >out
'

test_expect_success 'queue refuses it, exit 2, before anything runs' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	printf "repos:\n  - name: r\n    path: repo\n" >bisectd.yaml &&
	test_expect_code 2 bisectctl queue kb.yaml --commit HEAD --wait 2>err &&
	grep "^error: kb.yaml:2:1: testcase .kernbench.: .src. has no value" err &&
	! test -d state/runs/1
'

test_done
