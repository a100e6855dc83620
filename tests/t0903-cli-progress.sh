#!/bin/sh
# Progress a person can trust: --wait follows its own request. Piped, a
# plain line each time the state changes; on a terminal (a pty made by
# script(1)) one line that rewrites itself with runs done and to go, the
# time taken and an estimate of the time left, ended by a newline before
# the result.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

test_expect_success 'setup' '
	setup_bench --commits 12 --culprit 8 --change -8 &&
	sed -i "s/^runs: 3$/runs: 4/" job.yaml
'

test_expect_success 'queue --wait, piped: says what it waits for, in plain lines' '
	bisectctl queue job.yaml --commit master~1 --commit master --wait \
		>q.out 2>q.err &&
	grep -q "^request [0-9]*: waiting for its 8 runs (0 done, 0 failed)$" q.err &&
	grep -q "^request [0-9]*: waiting for its 8 runs (8 done, 0 failed)$" q.err &&
	! grep -q "$(printf "\\r")" q.err &&
	grep -q "microbench.score$" q.out
'

test_expect_success 'compare --wait on a terminal: one line that rewrites itself' '
	script -qec "bisectctl compare master~3 master~2 job.yaml --wait" \
		/dev/null >tty.out 2>&1 &&
	tr "\\r" "\\n" <tty.out >lines &&
	grep -q "^request [0-9]*: waiting for its 8 runs ([0-9] done, 0 failed), [01] running | [0-9]*s" lines &&
	grep -q ", about [0-9]*s left" lines &&
	grep -q "(8 done, 0 failed), 0 running | [0-9]*s" lines &&
	test "$(grep -c "$(printf "\\r")" tty.out)" -ge 1 &&
	grep -q "microbench.score" lines &&
	awk "/8 done, 0 failed/ { seen = 1 } seen && /microbench \\(job/ { ok = 1 } END { exit !ok }" lines
'

test_expect_success 'bisect --wait on a terminal shows the step with its runs' '
	script -qec "bisectctl bisect job.yaml --good master~10 --bad master --wait" \
		/dev/null >btty.out 2>&1 &&
	tr "\\r" "\\n" <btty.out >blines &&
	grep -q "^bisect: .* | runs: [0-9]* done, [0-9]* running, [0-9]* to go | [0-9]*s" blines &&
	grep -q "^commit [0-9a-f]\\{10\\}: " blines
'

test_done
