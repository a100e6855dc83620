# Sourced by the fault tests (t0916, t0917), after test-lib.sh: commands
# in the background whose scheduler the test kills with SIGKILL, and the
# figures the tests print.

test_at_exit 'test ! -f "$TRASH/wait.pid" || kill -9 "$(cat "$TRASH/wait.pid")" 2>/dev/null'

# figure TEXT: a "# figure:" line of the TAP output (fault_figures prints them)
figure() {
	echo "$*" >>"$TRASH/figures"
}

fault_figures() {
	[ ! -f "$TRASH/figures" ] || sed "s/^/# figure: /" "$TRASH/figures"
}

# bg NAME CMD...: CMD in the background; its pid in wait.pid, its exit
# status in NAME.rc when it ends
bg() {
	name=$1
	shift
	rm -f "$name.rc" wait.pid
	( "$@" >"$name.out" 2>"$name.err" & echo $! >wait.pid; wait $!; echo $? >"$name.rc" ) &
	test_wait_for 100 test -s wait.pid
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# kill_scheduler: SIGKILL to the waiting bisectctl, and it is gone
kill_scheduler() {
	p=$(cat wait.pid) &&
	kill -9 "$p" &&
	test_wait_for 100 gone "$p" &&
	rm -f wait.pid
}

# ended NAME: the command started by bg NAME ended, with status 0
ended() {
	test_wait_for 3000 test -s "$1.rc" && test "$(cat "$1.rc")" = 0
}
