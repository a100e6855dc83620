#!/bin/sh
# Continuous mode's fixes (issue 17), through the daemon on a bare
# upstream with a real SMTP server on loopback: a regression (commit 10)
# is bisected and mailed; the commits pushed later bring its fix (commit
# 20); the improvement closes the regression, is bisected to the fixing
# commit, and mailed as "commit X fixes the -5.0% ... regression of
# commit Y", in the regression's thread (In-Reply-To its report). Status,
# its JSON and the web index say the regression is fixed by that commit.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"
. "$(dirname "$0")/lib-report.sh"

test_at_exit 'test -f "$TRASH/sink.pid" && kill "$(cat "$TRASH/sink.pid")"'
test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

# header FILE NAME: the header's value, unfolded.
header() {
	tr -d "\r" <"$1" | sed -n "/^\$/q; p" |
		awk '/^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
		     { if (line != "") print line; line = $0 }
		     END { print line }' |
		sed -n "s/^$2: //p" | head -n 1
}

# flat FILE: the body's words on one line.
flat() {
	tr -d "\r" <"$1" | tr -s "\n\t " "   "
}

test_expect_success 'setup: a regression at commit 10, its fix at commit 20' '
	start_sink &&
	setup_bench --commits 30 --culprit 10 --change -5 --culprit2 20 --change2 5.263 &&
	continuous_setup &&
	mkdir -p mails web &&
	continuous_mail "$(cat port)" &&
	echo "web: web" >>bisectd.yaml &&
	push master~29 master &&
	bisectd --foreground 2>daemon.log &
	echo $! >daemon.pid &&
	test_wait_for 100 daemon_ready
'

test_expect_success 'the regression is bisected and mailed' '
	push master~14 master &&
	test_wait_for 3000 found 1 &&
	test_wait_for 1200 sent 1 &&
	test "$(mails)" = 1 &&
	culprit=$(git -C source log --grep="^commit 10 " --format=%H master) &&
	test -n "$culprit" &&
	header mails/0001.eml Subject | grep -q "^\[bench:master\] $(echo "$culprit" | cut -c1-10): microbench.score -[0-9.]*% regression"
'

test_expect_success 'its fix is bisected, mailed in its thread, and closes it' '
	push master master &&
	test_wait_for 3000 found 2 &&
	test_wait_for 1200 sent 2 &&
	test "$(mails)" = 2 &&
	culprit=$(git -C source log --grep="^commit 10 " --format=%H master) &&
	fix=$(git -C source log --grep="^commit 20" --format=%H master) &&
	c10=$(echo "$culprit" | cut -c1-10) &&
	f10=$(echo "$fix" | cut -c1-10) &&
	header mails/0002.eml Subject | grep -q "^\[bench:master\] $f10: fixes the microbench.score -[0-9.]*% regression of commit $c10$" &&
	flat mails/0002.eml | grep -q "This commit fixes the -[0-9.]*% microbench.score regression of commit $(echo "$culprit" | cut -c1-12) on master" &&
	test "$(header mails/0002.eml In-Reply-To)" = "$(header mails/0001.eml Message-ID)" &&
	test "$(count "SELECT count(*) FROM regressions WHERE kind = \"regression\"")" = 1 &&
	test "$(count "SELECT count(*) FROM regressions WHERE kind = \"regression\" AND fixed_by IS NOT NULL")" = 1 &&
	bisectctl status >status.out &&
	grep -q "closed: fixed by commit $f10" status.out &&
	bisectctl status --json >status.json &&
	"$PYTHON3" -c "
import json, sys
d = json.load(open(\"status.json\"))
regs = [g for b in d[\"tracked\"] for g in b[\"regressions\"] if g[\"kind\"] == \"regression\"]
assert len(regs) == 1, regs
assert regs[0][\"fixed\"][\"culprit\"] == sys.argv[1], regs
assert regs[0][\"culprit\"] == sys.argv[2], regs
" "$fix" "$culprit" &&
	test_wait_for 600 grep -q "fixed by commit <a href=\"report-[0-9]*.html\"><code>$f10</code>" web/index.html
'

test_expect_success 'the daemon stops on SIGTERM' '
	kill -TERM "$(cat daemon.pid)" &&
	test_wait_for 100 daemon_stopped
'

test_done
