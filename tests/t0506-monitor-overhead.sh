#!/bin/sh
# The default monitors' CPU cost stays under 1% of one CPU: a short
# version of bench/monitor-overhead.sh (2-second runs instead of 10), on
# this machine and on the fixture trees of 48- and 144-CPU machines.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'the default monitors cost under 1% of one CPU' '
	sh "$BISECTD_SRC/bench/monitor-overhead.sh" 2 >overhead &&
	cat overhead &&
	test "$(wc -l <overhead)" = 4 &&
	awk "NR > 1 { sub(/%/, \"\", \$6); if (\$6 + 0 > 1) bad = 1 }
		END { exit bad }" overhead
'

test_done
