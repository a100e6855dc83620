#!/bin/sh
# Nothing from a job or a result reaches a shell or a path it should not:
# job values "$(touch /tmp/pwned)" and "; rm -rf ~" stay text, a remote
# directory whose name holds quotes and "$(...)" is quoted, and a result
# directory that holds symbolic links (to /etc/passwd, to "..") or odd
# names brings back only its regular files, inside the run directory; an
# artifact set holding a symbolic link is not uploaded at all.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1

test_expect_success 'setup' '
	setup_bench --commits 2 &&
	ssh_known_hosts 1 &&
	{
		echo "agents:" &&
		ssh_agent_config 1 | sed "/remote_dir/d" &&
		echo "    remote_dir: \"$TRASH/agents/a1/it'\''s \$(touch $TRASH/pwned2) dir\""
	} >>bisectd.yaml &&
	echo precious >agents/a1/home/canary &&
	cat >inert.yaml <<-\EOF
	testcase: microbench
	run: '\''echo "label=$label"; echo "note=$note"; echo "score: 1"'\''
	label: "$(touch /tmp/pwned)"
	note: "; rm -rf ~"
	runs: 1
	metric: microbench.score
	EOF
'

test_expect_success 'job values stay inert on the test machine' '
	rm -f /tmp/pwned &&
	bisectctl queue inert.yaml --commit master --wait >out 2>err &&
	test "$(runs_with_status done)" = 1 &&
	run=$(db_query "SELECT id FROM runs") &&
	grep -Fx "label=\$(touch /tmp/pwned)" state/runs/$run/result/output.log &&
	grep -Fx "note=; rm -rf ~" state/runs/$run/result/output.log &&
	test ! -e /tmp/pwned &&
	test "$(cat agents/a1/home/canary)" = precious
'

test_expect_success 'a remote directory with quotes and $(...) in its name is quoted' '
	test ! -e pwned2 &&
	ls "agents/a1/it'\''s \$(touch $TRASH/pwned2) dir/bin" | grep -q bisect-agent
'

test_expect_success 'a result directory brings back only regular files' '
	cat >fake-agent <<-EOF &&
	#!/bin/sh
	"$BISECTD_BUILD/bin/bisect-agent" "\$@"
	status=\$?
	if [ "\$1" = run ]; then
		for res; do :; done
		ln -s /etc/passwd "\$res/passwd"
		ln -s .. "\$res/up"
		mkdir "\$res/sub" && echo inside >"\$res/sub/file"
		echo dash >"\$res/-rf"
		mkfifo "\$res/fifo"
	fi
	exit \$status
	EOF
	chmod +x fake-agent &&
	BISECT_AGENT=$TRASH/fake-agent bisectctl queue job.yaml --commit master \
		--wait >out 2>err &&
	test "$(runs_with_status done)" = 4 &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	res=state/runs/$run/result &&
	test -f $res/result &&
	test "$(cat $res/sub/file)" = inside &&
	test "$(cat $res/-rf)" = dash &&
	test ! -e $res/passwd && test ! -L $res/passwd &&
	test ! -e $res/up && test ! -L $res/up &&
	test ! -e $res/fifo &&
	test -z "$(find state -type l)" &&
	grep "3 entries of the result directory were not fetched" \
		state/runs/$run/agent.log
'

test_expect_success 'an artifact that is a symbolic link is not uploaded' '
	git init -q linked &&
	echo "echo score: 1" >linked/bench.sh &&
	ln -s /etc/passwd linked/evil &&
	git -C linked add bench.sh evil &&
	git -C linked commit -q -m linked &&
	sed -e "s|path: repo|path: linked|" \
		-e "s|artifacts: \[bench.sh, speed, noise\]|artifacts: [bench.sh, evil]|" \
		bisectd.yaml >linked.yaml &&
	grep -q "artifacts: \[bench.sh, evil\]" linked.yaml &&
	sed "s/^runs: 3/runs: 1/" job.yaml >one.yaml &&
	test_expect_code 1 bisectctl -c linked.yaml queue one.yaml --wait \
		>out 2>err &&
	grep -q "has no samples at 1 of its commits" err &&
	run=$(db_query "SELECT max(id) FROM runs") &&
	test "$(db_query "SELECT status FROM runs WHERE id = $run")" = failed &&
	run_failures $run >failures &&
	cat failures &&
	grep "refusing to upload .*/evil.: not a regular file or a directory" failures &&
	test -z "$(find agents/a1 -name evil)"
'

test_done
