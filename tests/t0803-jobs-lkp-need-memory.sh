#!/bin/sh
# LKP's need_memory, a placement requirement as its filters/need_memory
# reads it: a size (300MB, 4G, bytes) or N% (N/100 GiB per CPU of the
# machine), met by the agent's memory. A job that no agent can hold is
# refused at queue time naming the agent and both figures; one that
# fits runs; a value that is not a size is refused with FILE:LINE:COL.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"
. "$BISECTD_SRC/tests/lib-lkp-bench.sh"

# The agent's memory as its inventory has it: MemTotal, in bytes.
memtotal() {
	awk "/^MemTotal:/ { printf \"%.0f\", \$2 * 1024 }" /proc/meminfo
}

test_expect_success 'setup' '
	lkp_setup
'

test_expect_success 'check normalises it; it is bookkeeping, not a parameter' '
	printf "suite: m\ntestcase: m\nrun: \"echo v: 1\"\nneed_memory: 300MB\nruns: 1\nmonitors: []\n" >small.yaml &&
	bisectctl check --json small.yaml >small.json &&
	test "$(json_get small.json "d[0][\"params\"][\"need_memory\"]")" = 300M
'

test_expect_success 'a job that fits the agent runs' '
	bisectctl queue small.yaml --commit HEAD --wait >q.out &&
	grep -q "m.v" q.out
'

test_expect_success 'a job larger than every agent is refused, naming both figures' '
	printf "testcase: m\nrun: \"echo v: 1\"\nneed_memory: 100T\nmonitors: []\n" >big.yaml &&
	test_expect_code 2 bisectctl queue big.yaml --commit HEAD 2>err &&
	grep "no agent can run it: agent .local.: .need_memory. is .100T. (109951162777600 bytes), the machine has $(memtotal)" err
'

test_expect_success 'N% is N/100 GiB per CPU of the agent' '
	ncpu=$(getconf _NPROCESSORS_ONLN) &&
	pct=$(( ($(memtotal) >> 30) * 100 / ncpu + 100 )) &&
	printf "testcase: m\nrun: \"echo v: 1\"\nneed_memory: $pct%%\nmonitors: []\n" >pct.yaml &&
	test_expect_code 2 bisectctl queue pct.yaml --commit HEAD 2>err &&
	grep "need_memory. is .$pct%. (" err &&
	printf "testcase: m\nrun: \"echo v: 1\"\nneed_memory: 1%%\nruns: 1\nmonitors: []\n" >one.yaml &&
	bisectctl queue one.yaml --commit HEAD --wait >q.out &&
	grep -q "m.v" q.out
'

test_expect_success 'a value that is not a size: FILE:LINE:COL' '
	printf "testcase: m\nrun: \"true\"\nneed_memory: lots\n" >bad.yaml &&
	test_expect_code 2 bisectctl check bad.yaml 2>err &&
	grep "^error: bad.yaml:3:14: .need_memory. must be a memory size like 300MB, 4G or 50% (of 1 GiB per CPU), not .lots.$" err
'

test_done
