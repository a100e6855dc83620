#!/bin/sh
# A whole bisection whose runs boot a kernel (an agent with boot: qemu, the
# stand-in qemu of tests/kernel/fake-qemu.sh): commits whose kernel panics
# at boot are untestable, never good or bad, and the culprit before them
# is still found. The real kernel does the same in t0709.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

BISECT_AGENT_QEMU=$BISECTD_SRC/tests/kernel/fake-qemu.sh
FAKE_QEMU_LOG=$TRASH/qemu
export BISECT_AGENT_QEMU FAKE_QEMU_LOG

if ! command -v cpio >/dev/null || ! command -v base64 >/dev/null ||
   [ ! -x /bin/busybox ]; then
	test_skip 'bisect with boot qemu' 'needs cpio, base64 and busybox-static'
	test_done
	exit 0
fi

# The commits after the culprit, 102 to 109, "panic at boot": their
# bzImage says so to the stand-in qemu.
test_expect_success 'setup: an agent that boots each commit' '
	setup_bench --commits 120 --culprit 101 --change -5 \
		--broken 102,103,104,105,106,107,108,109 &&
	cat >bisectd.yaml <<-EOF
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: if [ -e broken ]; then echo panic; else echo ok; fi >bzImage
	      artifacts: [bench.sh, speed, noise, bzImage]
	agents:
	  - name: vm
	    transport: local
	    boot: qemu
	EOF
'

test_expect_success 'panicking commits are skipped, the culprit found' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"status\"]")" = found &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	json_get out.json "\"\\n\".join(d[\"skipped\"])" >skipped &&
	test -s skipped &&
	for n in 102 103 104 105 106 107 108 109; do
		commit_oid "commit $n"
	done >panicking &&
	while read -r oid; do
		grep -qx "$oid" panicking || { echo "skipped $oid"; return 1; }
	done <skipped
'

test_expect_success 'their runs say the kernel did not boot, none has samples' '
	oid=$(head -n 1 skipped) &&
	db_query "SELECT error FROM runs WHERE commit_oid = '\''$oid'\''" \
		>errors &&
	test -s errors &&
	grep -q "the kernel did not boot" errors &&
	grep -q "Kernel panic" errors &&
	test "$(sample_count "$oid" microbench.score)" = 0 &&
	test "$(db_query "SELECT status FROM builds
		WHERE commit_oid = '\''$oid'\''")" = ok
'

test_expect_success 'a panicking commit is booted once, not retried' '
	test "$(db_query "SELECT max(attempts) FROM runs
		WHERE error LIKE '\''untestable: the kernel did not boot%'\''")" = 1 &&
	test "$(db_query "SELECT count(*) FROM runs WHERE status = '\''skipped'\''
		AND error LIKE '\''untestable: the kernel did not boot%'\''")" -gt 0
'

test_expect_success 'runs that booted record the boot' '
	culprit=$(culprit_runs_oid out.json) &&
	test "$(sample_count "$culprit" microbench.score)" -gt 0 &&
	db_query "SELECT e.value FROM run_env e JOIN runs r ON e.run = r.id
		WHERE r.commit_oid = '\''$culprit'\'' AND e.key = '\''boot'\''
		LIMIT 1" >boot &&
	grep -qx qemu boot
'

test_done
