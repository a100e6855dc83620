#!/bin/sh
# perf-profile on an agent that boots the kernel under test in qemu: the
# agent runs on the host, where perf would sample qemu, and the guest's
# initramfs does not carry perf, so a job asking for the monitor is
# refused at queue time for that agent, with the reason. Another agent
# that can run it takes the job; the job without the monitor is not
# refused by it.
. "$(dirname "$0")/test-lib.sh"
. "$BISECTD_SRC/tests/lib-bisect.sh"

test_expect_success 'setup' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	cat >qemu.yaml <<-\EOF &&
	repos:
	  - name: r
	    path: repo
	agents:
	  - name: vm
	    transport: local
	    boot: qemu
	EOF
	cat >both.yaml <<-\EOF &&
	repos:
	  - name: r
	    path: repo
	agents:
	  - name: vm
	    transport: local
	    boot: qemu
	  - name: host
	    transport: local
	EOF
	cat >job.yaml <<-\EOF &&
	testcase: spin
	run: "echo loops: 1"
	runs: 1
	monitors: [perf-profile]
	EOF
	grep -v perf-profile job.yaml >plain.yaml
'

test_expect_success 'queue refuses perf-profile on a qemu agent, saying why' '
	! bisectctl -c qemu.yaml queue job.yaml --commit HEAD >out 2>err &&
	cat err &&
	grep "no agent can run it: agent .vm.: monitor .perf-profile. cannot profile a qemu guest: the guest.s initramfs does not carry perf (the kernel would also need CONFIG_PERF_EVENTS=y)" err &&
	test "$(db_query "SELECT count(*) FROM runs")" = 0
'

test_expect_success 'the same job without the monitor is queued' '
	bisectctl -c qemu.yaml queue plain.yaml --commit HEAD >out 2>err &&
	grep "^request " out
'

test_expect_success 'with another agent, the job runs there, profiled' '
	rm -rf state &&
	command -v perf >/dev/null &&
	bisectctl -c both.yaml queue job.yaml --commit HEAD --wait >out 2>err ||
		{ cat out err; false; } &&
	test "$(db_query "SELECT agent FROM runs")" = host &&
	n=$(db_query "SELECT max(id) FROM runs") &&
	grep "^env monitors .*perf-profile" state/runs/$n/result/result &&
	test -s state/runs/$n/result/perf-profile.data
'

test_done
