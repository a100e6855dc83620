#!/bin/sh
# SIGKILL of the scheduler while an ssh agent's artifacts are being
# uploaded, and while a run's result is being downloaded (the link's
# veth slowed down with tc, so that each transfer takes seconds and is
# seen going on: a partial file there, or here). After each kill
# nothing is recorded, and the same command resumes the request: the
# run done once, its samples once.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-fault.sh"
. "$(dirname "$0")/lib-ssh.sh"

ssh_require
ssh_keys || exit 1
ssh_agent_start 1 ed25519 || exit 1

uploading() {
	ls -a agents/a1/remote/artifacts 2>/dev/null | grep -q "^\.tmp-"
}

# The result file of the running run at commit $1 being fetched here,
# not complete yet (the earlier test's run left a complete one of its own).
downloading() {
	d=$(db_query "SELECT run_dir FROM runs WHERE commit_oid = '$1' AND status = 'running'" 2>/dev/null)
	test -n "$d" && test -f "$d/result/big" &&
	test "$(stat -c %s "$d/result/big")" -gt 0 &&
	echo "$d/result/big" >downloading
}

cat >"$TRASH/big-agent" <<EOF
#!/bin/sh
# the real agent; its run's result gets a 72 MB file more: about 14 s to
# fetch at 40 Mbit/s, so that a loaded test still kills the scheduler
# while the download is under way (at 24 MB, 5 s, CI failed #3 once)
"$BISECTD_BUILD/bin/bisect-agent" "\$@"
status=\$?
if [ "\$1" = run ]; then
	for res; do :; done
	head -c 72000000 /dev/urandom >"\$res/big"
fi
exit \$status
EOF
chmod +x "$TRASH/big-agent"

test_expect_success 'setup: a 24 MB artifact, a link slowed to 40 Mbit/s' '
	setup_bench --commits 3 &&
	echo "disturbed: keep" >>job.yaml &&
	sed -e "s|runs: 3|runs: 1|" job.yaml >one.yaml &&
	sed -i -e "s|command: test ! -e broken|command: \"test ! -e broken \&\& head -c 24000000 /dev/urandom >blob\"|" \
		-e "s|artifacts: \[bench.sh, speed, noise\]|artifacts: [bench.sh, speed, noise, blob]|" bisectd.yaml &&
	grep -q blob bisectd.yaml &&
	ssh_known_hosts 1 &&
	{ echo "agents:" && ssh_agent_config 1; } >>bisectd.yaml &&
	tc qdisc add dev "${SSH_PREFIX}h1" root tbf rate 40mbit burst 64kb latency 400ms &&
	bisectctl agents --probe >p.out 2>p.err
'

test_expect_success 'SIGKILL while uploading the artifacts: resumed, the run done once' '
	c=$(git -C repo rev-parse master~2) &&
	bg u1 bisectctl queue one.yaml --commit "$c" --wait &&
	test_wait_for 1200 uploading &&
	kill_scheduler &&
	test "$(sample_count "$c" microbench.score)" = 0 &&
	partial=$(ls -a agents/a1/remote/artifacts | grep -c "^\.tmp-") &&
	bg u2 bisectctl queue one.yaml --commit "$c" --wait &&
	ended u2 &&
	test "$(sample_count "$c" microbench.score)" = 1 &&
	test "$(db_query "SELECT status || \" attempts \" || attempts || \" requeues \" || requeues FROM runs WHERE commit_oid = '\''$c'\''")" = "done attempts 1 requeues 1" &&
	figure "upload: killed with $partial partial artifact upload(s) on the agent; after the resume the run done at attempt 1 (1 requeue), 1 sample"
'

test_expect_success 'SIGKILL while downloading the result: resumed, the run done once' '
	c=$(git -C repo rev-parse master~1) &&
	BISECT_AGENT=$TRASH/big-agent &&
	export BISECT_AGENT &&
	bg d1 bisectctl queue one.yaml --commit "$c" --wait &&
	test_wait_for 1200 downloading "$c" &&
	size=$(stat -c %s "$(cat downloading)") &&
	kill_scheduler &&
	{ test "$(sample_count "$c" microbench.score)" = 0 ||
	  { echo "the download ended before the kill ($size bytes seen)"; false; }; } &&
	bg d2 bisectctl queue one.yaml --commit "$c" --wait &&
	ended d2 &&
	test "$(sample_count "$c" microbench.score)" = 1 &&
	got=$(db_query "SELECT status || \" attempts \" || attempts || \" requeues \" || requeues FROM runs WHERE commit_oid = '\''$c'\''") &&
	{ test "$got" = "done attempts 1 requeues 1" || { echo "run: $got"; false; }; } &&
	test "$(db_query "SELECT count(*) - count(DISTINCT run || \" \" || metric) FROM samples")" = 0 &&
	figure "download: killed with $size of 72000000 bytes of a result file fetched; after the resume the run done at attempt 1 (1 requeue), 1 sample, none twice"
'

fault_figures
test_done
