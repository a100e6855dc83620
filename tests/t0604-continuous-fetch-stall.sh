#!/bin/sh
# Continuous mode with a remote that accepts the connection and then says
# nothing: the fetch runs in a child, so the daemon goes on with other
# work (a compare on another repository completes); the fetch that makes
# no progress ends after its stall timeout and is tried again at the next
# interval; SIGTERM stops the daemon and its fetch child at once. (The
# stall timeout is the default's 120 s: the compare must finish inside
# the first fetch, and it took 63 s under a load average of 18, where 30 s
# failed.)
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"

test_at_exit 'test -f "$TRASH/silent.pid" && kill "$(cat "$TRASH/silent.pid")"'
test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

connections() {
	cat connections 2>/dev/null || echo 0
}

# connected N: the silent server has seen N connections or more.
connected() {
	test "$(connections)" -ge "$1"
}

cat >"$TRASH/silent.py" <<'EOF'
"""A git:// server that accepts every connection and never answers; it
counts the connections in ./connections and writes its port to ./port."""
import os
import socket

s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(".port", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(".port", "port")
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    with open(".connections", "w") as f:
        f.write(str(len(held)))
    os.rename(".connections", "connections")
EOF

test_expect_success 'setup: a silent remote and a repository to compare on' '
	setup_bench --commits 12 --culprit 6 --change -5 &&
	git init -q hung &&
	{ "$PYTHON3" silent.py >silent.log 2>&1 & echo $! >silent.pid; } &&
	test_wait_for 100 test -s port &&
	cat >>bisectd.yaml <<-EOF
	  - name: hung
	    path: hung
	    fetch: git://127.0.0.1:$(cat port)/linux.git
	    track: [master]
	continuous:
	  jobs: [job.yaml]
	  interval: 1
	EOF
'

test_expect_success 'the daemon works on while a fetch hangs' '
	BISECTD_TEST_FETCH_STALL=120 bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready &&
	test_wait_for 300 connected 1 &&
	timeout 120 bisectctl compare --repo bench master~8 master job.yaml --wait \
		>cmp.out 2>cmp.err &&
	grep -q "microbench.score" cmp.out &&
	test "$(connections)" = 1 &&
	! grep -q "fetch stalled" daemon.log
'

test_expect_success 'a fetch without progress ends, and is tried again' '
	test_wait_for 2400 grep -q "repository .hung.: fetch stalled: no progress for 120 seconds" daemon.log &&
	test_wait_for 300 connected 2 &&
	grep -q "repository .hung.: the fetch stalled; trying again in" daemon.log
'

test_expect_success 'SIGTERM stops the daemon and its fetch child' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_gone &&
	rm -f daemon.pid &&
	grep -q "bisectd: stopped" daemon.log
'

test_done
