#!/bin/sh
# The local agent's program cannot be run (not installed beside bisectd,
# or BISECT_AGENT names a path that is not there): the agent is refused
# with the reason, not probed as down for ever; with the program back, a
# probe brings it up.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

agent_state() {
	db_query "SELECT state FROM agents WHERE name = '$1'"
}

test_expect_success 'setup' '
	setup_bench --commits 4
'

test_expect_success 'a missing agent program: refused, with the reason' '
	test_expect_code 1 env BISECT_AGENT="$TRASH/no/bisect-agent" \
		bisectctl agents >out 2>err &&
	grep -q "^local (local, .*): refused since" out &&
	grep -F "the agent program '"'"'$TRASH/no/bisect-agent'"'"' cannot be run (exit 127: " out &&
	grep -F "No such file or directory" out &&
	test "$(agent_state local)" = refused
'

test_expect_success 'a program that is not executable: refused' '
	printf "#!/bin/sh\necho hi\n" >agent.sh &&
	chmod 644 agent.sh &&
	test_expect_code 1 env BISECT_AGENT="$TRASH/agent.sh" \
		bisectctl agents --probe >out 2>err &&
	grep -F "cannot be run (exit 127: " out &&
	grep -F "Permission denied" out &&
	test "$(agent_state local)" = refused
'

test_expect_success 'with the program back, a probe brings it up' '
	bisectctl agents --probe >out 2>err &&
	test "$(agent_state local)" = up
'

test_done
