#!/bin/sh
# A build host (builders:) over ssh: a real sshd in a network namespace of
# its own. The scheduler pushes the commit to the builder's clone, builds
# there, and downloads the artifact with every file's sha256 checked.
# A builder whose host key is not the one in known_hosts is refused and
# the build made here; a builder killed mid-build (its sshd and the build
# with it) has the build retried here; artifacts whose digest does not
# match what the builder computed fail the attempt, which is retried (the
# builder's sha256sum, through the PATH its sshd gives, says other digests
# once: what corruption between the two ends would look like). With two
# builders, the one lost mid-build leaves the retry to the other.
# Before a run, the artifacts in the cache are checked against the digest
# their build recorded: changed ones are built again, never sent. bisectctl
# builders and status say where builds were made.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
command -v git >/dev/null 2>&1 || {
	test_skip "$TEST_NAME" "no git (the builder checks out with it)"
	test_done
	exit 0
}
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1

# builder_json EXPR: EXPR of b (the builder b1's entry) in builders --json
builder_json() {
	bisectctl builders --json >builders.json &&
	"$PYTHON3" -c "import json, sys
d = json.load(open('builders.json'))
b = [x for x in d if x['name'] == 'b1'][0]
l = [x for x in d if x['name'] == 'local'][0]
print($1)"
}

# b1 is tried again (its retry time has passed)
b1_retry_passed() {
	test "$(builder_json "int(b['retry_at'] <= __import__('time').time())")" = 1
}

commit_new() {
	echo "int f(void) { return $1; }" >repo/f.c &&
	git -C repo commit -qam "f $1" &&
	git -C repo rev-parse master
}

build_of() {
	db_query "SELECT $2 FROM builds WHERE commit_oid = '$1'"
}

test_expect_success 'setup: a C tree, the builder b1' '
	git init -q repo &&
	cat >repo/main.c <<-\EOF &&
	#include <stdio.h>
	int f(void);
	int main(void) { printf("ops: %d\n", 42 + 0 * f()); return 0; }
	EOF
	echo "int f(void) { return 0; }" >repo/f.c &&
	printf "%s\n" "calc: main.c f.c" "	\$(CC) -O2 -o \$@ main.c f.c" \
		>repo/Makefile &&
	git -C repo add . &&
	git -C repo commit -qm "a tree" &&
	cat >build.sh <<-EOF &&
	#!/bin/sh
	# AGENT_NAME is set by the builder sshd only
	case "\${AGENT_NAME:-}" in
	a1) where=b1 ;;
	a2) where=b2 ;;
	*) where=local ;;
	esac
	echo "\$where" >>"$TRASH/built-where"
	mode=\$(cat "$TRASH/mode" 2>/dev/null)
	if [ "\$where" != local ] && [ "\$mode" = hang ]; then
		rm -f "$TRASH/mode"
		touch "$TRASH/building"
		exec sleep 1000
	fi
	exec make
	EOF
	ssh_known_hosts 1 &&
	cat >bisectd.yaml <<-EOF &&
	scheduler:
	  max_attempts: 3
	repos:
	  - name: calc
	    path: repo
	    build:
	      command: sh $TRASH/build.sh
	      artifacts: [calc]
	builders:
	  - name: b1
	    host: $(ssh_addr 1)
	    user: root
	    identity: $TRASH/keys/id_ed25519
	    known_hosts: $TRASH/keys/known_hosts
	    remote_dir: $TRASH/agents/a1/remote
	    connect_timeout: 3
	    keepalive: 1
	    silence_timeout: 4
	    probe_interval: 1
	EOF
	cat >job.yaml <<-EOF
	testcase: calc
	run: ./calc
	runs: 1
	metric: calc.ops
	direction: higher
	EOF
'

test_expect_success 'a builder key that does not apply is an error with its place' '
	sed "s/^    probe_interval: 1/    boot: qemu/" bisectd.yaml >bad.yaml &&
	! bisectctl -c bad.yaml status 2>bad.err &&
	cat bad.err &&
	grep -q "bad.yaml:[0-9]*:5: .boot. does not apply to a builder" bad.err &&
	sed "s/^    probe_interval: 1/    sltos: 2/" bisectd.yaml >bad2.yaml &&
	! bisectctl -c bad2.yaml status 2>bad2.err &&
	grep -q "bad2.yaml:[0-9]*:5: unknown key .sltos. in .builders\[0\]." bad2.err
'

test_expect_success 'the commit is built on the builder, its artifact checked and run' '
	oid=$(git -C repo rev-parse master) &&
	bisectctl queue job.yaml --commit master --wait >q1.out 2>q1.err &&
	test "$(build_of $oid status)" = ok &&
	test "$(cat built-where)" = b1 &&
	log=$(build_of $oid log_path) &&
	grep "on builder .b1." "$log" &&
	grep "1 artifact file from builder .b1., each sha256 checked" "$log" &&
	git --git-dir=agents/a1/remote/git/calc.git cat-file -e "$oid^{commit}" &&
	test ! -e agents/a1/remote/slots/calc/0/tree/.git &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = \"calc.ops\" AND value = 42")" = 1 &&
	test "$(builder_json "b[\"state\"], b[\"builds\"], l[\"builds\"]")" = "up 1 0" &&
	builder_json "b[\"host_key\"]" | grep -q "^ED25519 key SHA256:" &&
	bisectctl builders >builders.out &&
	cat builders.out &&
	grep -q "^b1 (ssh root@$(ssh_addr 1) port 22, 1 slot): up since .*, 1 build, 0 failed, 0 errors" builders.out &&
	bisectctl status >status.out &&
	grep -q "^  b1  *ssh  *up  *1 builds" status.out
'

test_expect_success 'a second commit is pushed as the objects the builder lacks' '
	oid=$(commit_new 1) &&
	bisectctl queue job.yaml --commit master --wait >q2.out 2>q2.err &&
	test "$(build_of $oid status)" = ok &&
	log=$(build_of $oid log_path) &&
	grep "pushing [0-9]* objects to builder" "$log" >pushed &&
	n=$(sed "s/.*pushing \([0-9]*\) objects.*/\1/" pushed) &&
	echo "objects pushed: $n" &&
	test "$n" -le 3
'

test_expect_success 'a wrong host key is refused: nothing sent, built here' '
	logins=$(ssh_logins 1) &&
	ssh-keygen -q -t ed25519 -N "" -f other_key &&
	echo "$(ssh_addr 1) $(cut -d" " -f1,2 other_key.pub)" >keys/known_hosts &&
	oid=$(commit_new 2) &&
	bisectctl queue job.yaml --commit master --wait >q3.out 2>q3.err &&
	test "$(build_of $oid status)" = ok &&
	test "$(tail -n 1 built-where)" = local &&
	test "$(ssh_logins 1)" = "$logins" &&
	grep "builder .b1. refused us" "$(build_of $oid log_path)" &&
	test "$(builder_json "b[\"state\"]")" = refused &&
	builder_json "b[\"error\"]" | grep -i "host key" &&
	test "$(builder_json "l[\"builds\"]")" = 1
'

# Kill the build's command on the builder (the sleep it hangs in).
kill_remote_build() {
	for p in $(ip netns pids "$(ssh_ns 1)" 2>/dev/null); do
		if tr "\0" " " <"/proc/$p/cmdline" 2>/dev/null |
		    grep -q "^sleep 1000"; then
			kill -9 "$p" && return 0
		fi
	done
	return 1
}

test_expect_success 'a build killed on the builder is retried' '
	ssh_known_hosts 1 &&
	test_wait_for 50 b1_retry_passed &&
	errors=$(builder_json "b[\"errors\"]") &&
	echo hang >mode &&
	oid=$(commit_new 3) &&
	{ bisectctl queue job.yaml --commit master --wait >q6.out 2>q6.err & } &&
	test_wait_for 300 test -e building &&
	kill_remote_build &&
	wait $! &&
	rm -f building &&
	test "$(build_of $oid status)" = ok &&
	test "$(build_of $oid attempts)" = 2 &&
	grep "build killed by signal 9 on builder .b1." q6.err &&
	test "$(builder_json "b[\"errors\"]")" = $((errors + 1)) &&
	"$(build_of $oid artifact_dir)/calc" | grep -q "ops: 42"
'

test_expect_success 'a builder killed mid-build: the build is retried here' '
	test_wait_for 50 b1_retry_passed &&
	errors=$(builder_json "b[\"errors\"]") &&
	echo hang >mode &&
	oid=$(commit_new 5) &&
	{ bisectctl queue job.yaml --commit master --wait >q4.out 2>q4.err & } &&
	test_wait_for 300 test -e building &&
	ssh_agent_stop 1 &&
	wait $! &&
	test "$(build_of $oid status)" = ok &&
	test "$(build_of $oid attempts)" = 2 &&
	test "$(tail -n 2 built-where | tr "\n" " ")" = "b1 local " &&
	grep "build of .*builder .b1.*connection .* lost" q4.err &&
	test "$(builder_json "b[\"state\"]")" = down &&
	test "$(builder_json "b[\"errors\"]")" -ge $((errors + 1)) &&
	test "$(db_query "SELECT count(*) FROM samples WHERE metric = \"calc.ops\"")" = 5
'

test_expect_success 'artifacts that do not match their digest: the attempt fails, retried' '
	mkdir -p fakebin &&
	cat >fakebin/sha256sum <<-EOF &&
	#!/bin/sh
	# once: the digests said are not those of the bytes sent
	if [ -e "$TRASH/corrupt-once" ]; then
		rm -f "$TRASH/corrupt-once"
		/usr/bin/sha256sum "\$@" | sed "s/^[0-9a-f]*/$(printf "%064d" 0)/"
	else
		exec /usr/bin/sha256sum "\$@"
	fi
	EOF
	chmod +x fakebin/sha256sum &&
	SSH_AGENT_ENV="PATH=$TRASH/fakebin:/usr/bin:/bin" ssh_agent_start 1 ed25519 &&
	test_wait_for 50 b1_retry_passed &&
	errors=$(builder_json "b[\"errors\"]") &&
	touch corrupt-once &&
	oid=$(commit_new 6) &&
	bisectctl queue job.yaml --commit master --wait >q5.out 2>q5.err &&
	test ! -e corrupt-once &&
	grep "digest mismatch: .*calc.* from builder .b1." q5.err &&
	test "$(build_of $oid status)" = ok &&
	test "$(build_of $oid attempts)" = 2 &&
	test "$(tail -n 2 built-where | head -n 1)" = b1 &&
	dir=$(build_of $oid artifact_dir) &&
	"$dir/calc" | grep -q "ops: 42" &&
	test "$(builder_json "b[\"errors\"]")" -ge $((errors + 1))
'

test_expect_success 'artifacts changed in the cache do not reach an agent: built again' '
	oid=$(git -C repo rev-parse master~1) &&
	failures=$(db_query "SELECT count(*) FROM run_failures") &&
	dir=$(build_of $oid artifact_dir) &&
	echo x >>"$dir/calc" &&
	sed "s|^run: ./calc|run: ./calc again|" job.yaml >job2.yaml &&
	bisectctl queue job2.yaml --commit $oid --wait >q7.out 2>q7.err &&
	cat q7.err &&
	grep "digest mismatch: the artifacts in .$dir. have sha256" q7.err &&
	test "$(build_of $oid status)" = ok &&
	test "$(build_of $oid attempts)" -ge 2 &&
	test "$(db_query "SELECT count(*) FROM run_failures")" = "$failures" &&
	"$dir/calc" | grep -q "ops: 42" &&
	test "$(tail -c 2 "$dir/calc" | od -An -c | tr -d " ")" != "x\\n"
'

test_expect_success 'with two builders, one lost mid-build: retried on the other' '
	ssh_agent_start 2 ed25519 &&
	ssh_known_hosts 1 2 &&
	cat >>bisectd.yaml <<-EOF &&
	  - name: b2
	    host: $(ssh_addr 2)
	    user: root
	    identity: $TRASH/keys/id_ed25519
	    known_hosts: $TRASH/keys/known_hosts
	    remote_dir: $TRASH/agents/a2/remote
	    connect_timeout: 3
	    keepalive: 1
	    silence_timeout: 4
	    probe_interval: 30
	EOF
	test_wait_for 50 b1_retry_passed &&
	rm -f building &&
	echo hang >mode &&
	oid=$(commit_new 7) &&
	{ bisectctl queue job.yaml --commit master --wait >q8.out 2>q8.err & } &&
	test_wait_for 300 test -e building &&
	first=$(tail -n 1 built-where) &&
	ssh_agent_stop ${first#b} &&
	wait $! &&
	second=$(tail -n 1 built-where) &&
	echo "first $first, then $second" &&
	test "$(build_of $oid status)" = ok &&
	test "$(build_of $oid attempts)" = 2 &&
	case "$first$second" in b1b2|b2b1) ;; *) false ;; esac &&
	bisectctl builders >builders2.out &&
	cat builders2.out &&
	grep -q "^$first .*: down since" builders2.out &&
	grep -q "^$second .*: up since" builders2.out
'

test_done
