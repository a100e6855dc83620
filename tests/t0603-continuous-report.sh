#!/bin/sh
# Continuous mode to the inbox: pushes reach a bare repository; the daemon
# tests the new commits, detects the regression, bisects it, mails exactly
# one report to a real SMTP server on loopback and writes the web page.
# Then the same with the SMTP server down at the first attempt: the mail
# waits in the outbox and is delivered once, after its backoff.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-report.sh"

test_at_exit 'test -f "$TRASH/sink.pid" && kill "$(cat "$TRASH/sink.pid")"'
test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

daemon_ready() {
	grep -q "bisectd: ready" daemon.log
}

daemon_stopped() {
	! kill -0 "$(cat daemon.pid)" 2>/dev/null
}

found_culprit() {
	test "$(db_query "SELECT count(*) FROM bisections WHERE status = 'found'")" -ge 1
}

mail_sent() {
	test "$(db_query "SELECT count(*) FROM outbox WHERE status = 'sent'")" = 1
}

# setup_continuous PORT: a source history, an empty upstream with its
# first 12 commits, and a config mailing to 127.0.0.1:PORT.
setup_continuous() {
	setup_bench --commits 40 --culprit 20 --change -5 &&
	rm -rf upstream.git source mails pages &&
	git init -q --bare upstream.git &&
	mv repo source &&
	git init -q repo &&
	mkdir mails &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: bench
	    path: repo
	    fetch: $TRASH/upstream.git
	    track: [master]
	    build:
	      command: test ! -e broken
	      artifacts: [bench.sh, speed, noise]
	continuous:
	  jobs: [job.yaml]
	  interval: 1
	mail:
	  smtp: smtp://127.0.0.1:$1
	  from: "bisectd <bisectd@example.org>"
	  to: [perf-reports@example.org]
	web: pages
	EOF
	git -C source push -q ../upstream.git "$(git -C source rev-parse master~28):refs/heads/master"
}

start_daemon() {
	{ ! test -f daemon.log || cat daemon.log >>daemon.all.log; } &&
	rm -f daemon.log &&
	{ bisectd --foreground 2>daemon.log & echo $! >daemon.pid; } &&
	test_wait_for 100 daemon_ready
}

stop_daemon() {
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped &&
	rm -f daemon.pid
}

test_expect_success 'a regression pushed upstream is mailed once, with its page' '
	start_sink &&
	setup_continuous "$(cat port)" &&
	start_daemon &&
	git -C source push -q ../upstream.git master:refs/heads/master &&
	test_wait_for 900 found_culprit &&
	test_wait_for 300 mail_sent &&
	test "$(mails)" = 1 &&
	culprit=$(git -C source log --grep="(culprit)" --format=%H) &&
	short=$(echo "$culprit" | cut -c1-10) &&
	grep -q "^Subject: .*commit $short: -[0-9.]*% microbench.score regression" mails/0001.eml &&
	tr -d "\r" <mails/0001.eml | grep -q "  microbench.score$" &&
	id=$(db_query "SELECT id FROM bisections WHERE status = \"found\"") &&
	test -s "pages/report-$id.html" &&
	test -s pages/index.html &&
	grep -q "commit $short" "pages/report-$id.html" &&
	grep -q "<svg" "pages/report-$id.html"
'

test_expect_success 'more commits later send nothing more' '
	stop_daemon &&
	start_daemon &&
	test_wait_for 100 eval "grep -q \"new commits\|bisectd: ready\" daemon.log" &&
	stop_daemon &&
	test "$(mails)" = 1 &&
	test "$(db_query "SELECT count(*) FROM regressions")" = 1
'

test_expect_success 'with the SMTP server down, the mail waits and goes once' '
	stop_sink &&
	port=$(cat port) &&
	rm -rf state &&
	setup_continuous "$port" &&
	start_daemon &&
	git -C source push -q ../upstream.git master:refs/heads/master &&
	test_wait_for 900 found_culprit &&
	test_wait_for 300 eval "grep -q \"stays queued, next attempt\" daemon.log" &&
	test "$(mails)" = 0 &&
	start_sink "$port" &&
	test_wait_for 1200 mail_sent &&
	test "$(mails)" = 1 &&
	stop_daemon &&
	test "$(mails)" = 1
'

test_done
