#!/bin/sh
# perf-profile on an agent that boots the kernel under test in qemu,
# through the daemon (the stand-in qemu of tests/kernel/fake-qemu.sh): the
# job is queued for that agent, the profile is recorded in the guest
# (t0562 has the initramfs side) and the run is reported as a local one
# is: its rows in the store, its perf.data named by show --run, and the
# run's start and boot in the store, so that the pair statistics have
# them (t0562: a kernel without CONFIG_EVENTFD is refused at the run).
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

BISECT_AGENT_QEMU=$BISECTD_SRC/tests/kernel/fake-qemu.sh
FAKE_QEMU_LOG=$TRASH/qemu
export BISECT_AGENT_QEMU FAKE_QEMU_LOG

if ! command -v cpio >/dev/null || ! command -v base64 >/dev/null ||
   [ ! -x /bin/busybox ] || ! command -v gcc >/dev/null ||
   ! command -v perf >/dev/null ||
   ! perf record -a -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
	test_skip 'perf-profile on a qemu agent' \
		'needs cpio, base64, gcc, busybox-static and perf allowed to record -a'
	test_done
	exit 0
fi

test_expect_success 'setup' '
	git init -q repo &&
	cat >repo/hot.c <<-\EOF &&
	#include <stdio.h>
	volatile unsigned long sink;
	__attribute__((noinline)) unsigned long
	spin_hot(unsigned long n)
	{
		unsigned long i, s = 1;
		for (i = 0; i < n; i++)
			s = s * 6364136223846793005UL + i;
		return s;
	}
	int
	main(void)
	{
		int k;
		for (k = 0; k < 20; k++)
			sink += spin_hot(20000000 + k);
		printf("loops: %d\n", k);
		return 0;
	}
	EOF
	git -C repo add hot.c &&
	test_tick && git -C repo commit -q -m one &&
	cat >qemu.yaml <<-\EOF &&
	repos:
	  - name: r
	    path: repo
	    build:
	      command: gcc -O1 -o hot hot.c && echo ok >bzImage
	      artifacts: [hot, bzImage]
	agents:
	  - name: vm
	    transport: local
	    boot: qemu
	EOF
	cat >job.yaml <<-\EOF
	testcase: hot
	run: ./hot
	runs: 1
	monitors: [perf-profile]
	EOF
'

test_expect_success 'the qemu agent takes the job and profiles in the guest' '
	bisectctl -c qemu.yaml queue job.yaml --commit HEAD --wait >out 2>err ||
		{ cat out err; false; } &&
	test "$(db_query "SELECT agent FROM runs")" = vm &&
	test "$(db_query "SELECT status FROM runs")" = done &&
	n=$(db_query "SELECT max(id) FROM runs") &&
	grep "^env perf_profile_where qemu guest" state/runs/$n/result/result &&
	grep "^env boot qemu" state/runs/$n/result/result &&
	test -s state/runs/$n/result/perf-profile.data &&
	db_query "SELECT s.metric FROM samples s WHERE s.run = $n" >metrics &&
	grep -qx perf-profile.self.cycles-pp.spin_hot metrics
'

test_expect_success 'show --run names its perf.data' '
	n=$(db_query "SELECT max(id) FROM runs") &&
	bisectctl -c qemu.yaml show --run "$n" >show &&
	grep "^perf profile: .*state/runs/$n/result/perf-profile.data (perf report -i" show
'

test_expect_success 'the run has its start, end and boot in the store' '
	n=$(db_query "SELECT max(id) FROM runs") &&
	test "$(db_query "SELECT started_wall IS NOT NULL AND
		started_mono IS NOT NULL AND ended_wall >= started_wall
		FROM runs WHERE id = $n")" = 1 &&
	db_query "SELECT boot_id FROM runs WHERE id = $n" |
		grep -Eqx "[0-9a-f-]{36}" &&
	bisectctl -c qemu.yaml show --run "$n" >show &&
	grep -q "^boot: " show
'

test_done
