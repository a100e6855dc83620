#!/bin/sh
# One build's compilation spread over machines with distcc, through the
# build command: two distccd daemons, each in a network namespace of its
# own (the machines), compile a small C tree that bisectd builds with
# `make -j8 CC="distcc gcc"` and DISTCC_HOSTS naming only them, with the
# local fallback off. Every file is compiled on one of them (their logs
# say so, both took some), the artifact runs, and a daemon that is gone
# fails the build instead of it being compiled here unseen. What
# docs/kernel.md ("distcc") says to set up is what this test does.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
if ! command -v distccd >/dev/null 2>&1 || ! command -v distcc >/dev/null 2>&1; then
	test_skip "$TEST_NAME" "no distcc/distccd (Debian: distcc)"
	test_done
	exit 0
fi

NR_FILES=24

# distcc_start N: distccd at 10.S.N.2:3632 in namespace aN, logging to
# distcc/dN.log (on stderr: it runs as user distccd, who cannot open a
# file in the trash directory); ready once it accepts connections.
distcc_start() {
	n=$1
	ns=$(ssh_ns "$n")
	host=${SSH_PREFIX}h$n peer=${SSH_PREFIX}n$n
	mkdir -p "$TRASH/distcc" &&
	ip netns add "$ns" &&
	ip link add "$host" type veth peer name "$peer" &&
	ip link set "$peer" netns "$ns" &&
	ip addr add "10.$SSH_NET.$n.1/24" dev "$host" &&
	ip link set "$host" up &&
	ip netns exec "$ns" ip addr add "$(ssh_addr "$n")/24" dev "$peer" &&
	ip netns exec "$ns" ip link set "$peer" up &&
	ip netns exec "$ns" ip link set lo up &&
	{ ip netns exec "$ns" distccd --no-detach --daemon --user distccd \
		--listen "$(ssh_addr "$n")" --allow "10.$SSH_NET.0.0/16" \
		--jobs 4 --log-level info --log-stderr \
		</dev/null >/dev/null 2>"$TRASH/distcc/d$n.log" & } &&
	test_wait_for 100 distcc_port_open "$(ssh_addr "$n")"
}

distcc_port_open() {
	"$PYTHON3" -c 'import socket, sys
socket.create_connection((sys.argv[1], 3632), 0.5).close()' "$1"
}

compiled_on() {
	grep -c "COMPILE_OK" "$TRASH/distcc/d$1.log"
}

test_expect_success 'setup: a C tree, two distccd machines' '
	git init -q repo &&
	i=0 &&
	while [ $i -lt $NR_FILES ]; do
		printf "int f%d(int x) { return x * %d + V; }\n" $i $i \
			>repo/f$i.c &&
		i=$((i + 1)) || return 1
	done &&
	echo "#define V 7" >repo/v.h &&
	cat >repo/main.c <<-\EOF &&
	#include <stdio.h>
	int main(void) { printf("ops: %d\n", 42); return 0; }
	EOF
	printf "%s\n" "OBJS = \$(patsubst %.c,%.o,\$(wildcard *.c))" \
		"calc: \$(OBJS)" "	\$(CC) -o \$@ \$(OBJS)" \
		"%.o: %.c v.h" "	\$(CC) -O2 -include v.h -c -o \$@ \$<" \
		>repo/Makefile &&
	git -C repo add . &&
	git -C repo commit -qm "a tree" &&
	distcc_start 1 &&
	distcc_start 2 &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: calc
	    path: repo
	    build:
	      command: DISTCC_HOSTS="$(ssh_addr 1)/4 $(ssh_addr 2)/4" DISTCC_FALLBACK=0 make -j8 CC="distcc gcc"
	      artifacts: [calc]
	EOF
	cat >job.yaml <<-EOF
	testcase: calc
	run: ./calc
	runs: 1
	metric: calc.ops
	direction: higher
	EOF
'

test_expect_success 'the build is compiled on the two machines, none here' '
	bisectctl queue job.yaml --commit master --wait >q1.out 2>q1.err &&
	test "$(db_query "SELECT status FROM builds")" = ok &&
	a=$(compiled_on 1) && b=$(compiled_on 2) &&
	echo "compiled on d1: $a, on d2: $b" &&
	test "$a" -ge 1 && test "$b" -ge 1 &&
	test $((a + b)) = $((NR_FILES + 1)) &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = \"calc.ops\" AND value = 42")" = 1
'

test_expect_success 'with the machines gone the build fails, not compiled here unseen' '
	ssh_agent_stop 1 &&
	ssh_agent_stop 2 &&
	echo "#define V 8" >repo/v.h &&
	git -C repo commit -qam "V 8" &&
	bisectctl queue job.yaml --commit master --wait >q2.out 2>q2.err;
	test "$(db_query "SELECT status FROM builds WHERE commit_oid = \"$(git -C repo rev-parse master)\"")" = failed &&
	log=$(db_query "SELECT log_path FROM builds WHERE commit_oid = \"$(git -C repo rev-parse master)\"") &&
	grep -q "distcc" "$log"
'

test_done
