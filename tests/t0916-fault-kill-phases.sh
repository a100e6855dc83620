#!/bin/sh
# SIGKILL of the scheduler (bisectctl --wait, the embedded default) in
# each phase of a request that can be stopped exactly there, each held
# by a gate the test controls: a build blocked on a fifo, a run blocked
# on a fifo, a run whose result is being recorded while another process
# holds SQLite's write lock, a mail whose SMTP server holds its answer
# to the data. After each kill: the phase's processes are gone, nothing
# was recorded half, and the same command resumes the request, which
# records everything once (builds, runs, samples, mails counted).
# (Upload and download are t0917, over ssh.)
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-fault.sh"
. "$(dirname "$0")/lib-report.sh"

test_at_exit 'test ! -f "$TRASH/holder.pid" || kill -9 "$(cat "$TRASH/holder.pid")" 2>/dev/null'
test_at_exit 'test ! -f "$TRASH/sink.pid" || kill "$(cat "$TRASH/sink.pid")" 2>/dev/null'

left() {
	db_query "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')"
}

# every sample once: no (run, metric) twice
doubled() {
	db_query "SELECT count(*) - count(DISTINCT run || ' ' || metric) FROM samples"
}

started() {
	test -e "$TRASH/started"
}

test_expect_success 'setup' '
	setup_bench --commits 6 --culprit 4 --change -8 --noise 0.5 &&
	echo "disturbed: keep" >>job.yaml &&
	mkfifo bgate rgate &&
	sed -i "s|command: test ! -e broken|command: \"if test -e $TRASH/hold-build; then echo \$\$ >$TRASH/build.pid; read x <$TRASH/bgate; fi; test ! -e broken\"|" \
		bisectd.yaml &&
	grep -q hold-build bisectd.yaml &&
	cat >gated.yaml <<-EOF
	testcase: gated
	run: "echo \$\$ >$TRASH/run.pid; touch $TRASH/started; read x <$TRASH/rgate; sh bench.sh"
	runs: 1
	metric: gated.score
	disturbed: keep
	EOF
'

test_expect_success 'SIGKILL while building: the build is given back and done once' '
	touch hold-build &&
	c=$(git -C repo rev-parse master~5) &&
	bg b1 bisectctl queue job.yaml --commit "$c" --wait &&
	test_wait_for 600 test -s build.pid &&
	bpid=$(cat build.pid) &&
	test "$(db_query "SELECT status FROM builds WHERE commit_oid = '\''$c'\''")" = running &&
	kill_scheduler &&
	test_wait_for 100 gone "$bpid" &&
	rm -f hold-build build.pid &&
	bg b2 bisectctl queue job.yaml --commit "$c" --wait &&
	ended b2 &&
	test "$(db_query "SELECT count(*) || \" \" || status || \" attempts \" || attempts || \" requeues \" || requeues FROM builds WHERE commit_oid = '\''$c'\''")" = "1 ok attempts 1 requeues 1" &&
	test "$(left)" = 0 && test "$(doubled)" = 0 &&
	test "$(sample_count "$c" microbench.score)" = 3 &&
	figure "build: killed while building (its command gone too); after the resume 1 build row, ok at attempt 1 (requeued 1), 3 runs, 3 samples of the metric, none twice"
'

test_expect_success 'SIGKILL while running: the run is given back and done once' '
	c=$(git -C repo rev-parse master~4) &&
	bg r1 bisectctl queue gated.yaml --commit "$c" --wait &&
	test_wait_for 600 started &&
	rpid=$(cat run.pid) &&
	kill_scheduler &&
	test_wait_for 100 gone "$rpid" &&
	rm -f started run.pid &&
	bg r2 bisectctl queue gated.yaml --commit "$c" --wait &&
	test_wait_for 600 started &&
	echo go >rgate &&
	ended r2 &&
	test "$(db_query "SELECT status || \" attempts \" || attempts || \" requeues \" || requeues FROM runs WHERE commit_oid = '\''$c'\'' AND job = (SELECT id FROM jobs WHERE testcase = '\''gated'\'')")" = "done attempts 1 requeues 1" &&
	test "$(sample_count "$c" gated.score)" = 1 &&
	test "$(left)" = 0 && test "$(doubled)" = 0 &&
	figure "run: killed while the testcase ran (testcase gone too); after the resume the run done at attempt 1 (requeued 1), 1 sample, none twice"
'

test_expect_success 'SIGKILL while recording (the write lock held elsewhere): recorded once' '
	c=$(git -C repo rev-parse master~3) &&
	rm -f started run.pid locked &&
	bg k1 bisectctl queue gated.yaml --commit "$c" --wait &&
	test_wait_for 600 started &&
	run=$(db_query "SELECT id FROM runs WHERE commit_oid = '\''$c'\'' AND job = (SELECT id FROM jobs WHERE testcase = '\''gated'\'')") &&
	{ "$PYTHON3" -c "
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
c.execute(\"BEGIN IMMEDIATE\")
open(sys.argv[2], \"w\").close()
time.sleep(600)
" state/bisectd.db locked & echo $! >holder.pid; } &&
	test_wait_for 100 test -e locked &&
	echo go >rgate &&
	test_wait_for 600 test -s state/runs/$run/result/result &&
	test "$(sqlite3 "file:state/bisectd.db?mode=ro" "SELECT status FROM runs WHERE id = $run")" = running &&
	kill_scheduler &&
	kill -9 "$(cat holder.pid)" && rm -f holder.pid &&
	test "$(sample_count "$c" gated.score)" = 0 &&
	rm -f started &&
	bg k2 bisectctl queue gated.yaml --commit "$c" --wait &&
	test_wait_for 600 started &&
	echo go >rgate &&
	ended k2 &&
	test "$(sample_count "$c" gated.score)" = 1 &&
	test "$(db_query "SELECT status || \" attempts \" || attempts FROM runs WHERE id = $run")" = "done attempts 1" &&
	test "$(left)" = 0 && test "$(doubled)" = 0 &&
	figure "record: killed with the result on disk and its transaction waiting for the lock; 0 samples after the kill, 1 after the resume (attempt 1), none twice"
'

test_expect_success 'SIGKILL while the SMTP server holds its answer: the mail goes once' '
	mkdir mails &&
	rm -f port &&
	"$PYTHON3" "$BISECTD_SRC/tests/smtp-sink.py" --dir mails --ready port \
		--hold "$TRASH/mgate" >>sink.log 2>&1 &
	echo $! >sink.pid &&
	test_wait_for 100 test -s port &&
	cat >>bisectd.yaml <<-EOF &&
	mail:
	  smtp: smtp://127.0.0.1:$(cat port)
	  from: "bisectd <bisectd@example.org>"
	  to: [perf-reports@example.org]
	EOF
	bg m1 bisectctl bisect job.yaml --good master~5 --bad master --wait --json &&
	test_wait_for 1200 test -e mgate.held &&
	id=$(db_query "SELECT bisection FROM outbox") &&
	test "$(db_query "SELECT status FROM outbox")" = sending &&
	kill_scheduler &&
	touch mgate &&
	test_wait_for 100 eval "! test -e mgate.held" &&
	test "$(ls mails | grep -c eml)" = 0 &&
	bisectctl report "$id" --email >m2.out 2>m2.err &&
	test "$(ls mails | grep -c eml)" = 1 &&
	test "$(db_query "SELECT status || \" attempts \" || attempts FROM outbox")" = "sent attempts 2" &&
	grep -q "^Message-ID: <$(db_query "SELECT message_id FROM outbox")>" mails/0001.eml &&
	test "$(db_query "SELECT count(*) FROM reports")" = 1 &&
	figure "mail: killed while the server held its answer to the data; 0 mails kept then, 1 after the resend (attempt 2, same Message-ID), 1 report row"
'

fault_figures
test_done
