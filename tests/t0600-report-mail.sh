#!/bin/sh
# Report mails end to end, through a real SMTP server on loopback
# (tests/smtp-sink.py, on Debian's python3-aiosmtpd). The culprit's subject
# tries to inject headers ("\r\nBcc: victim@example.com", a bare CR, a
# <script>). One report is mailed exactly once and parses as a mail
# library reads it; a second report about the same commit, queued while
# the server is down, is delivered once when it is back, threaded under
# the first, byte for byte the message that was queued; a mail whose
# sender died mid-attempt is sent again, recognizably the same.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-report.sh"

test_at_exit 'test -f "$TRASH/sink.pid" && kill "$(cat "$TRASH/sink.pid")"'

cat >"$TRASH/check-mail.py" <<'EOF'
"""check-mail.py N REPORT [REPLY_TO]: mails/N.eml is the report's mail."""
import email
import email.policy
import json
import re
import sys
from email.utils import getaddresses, parsedate_to_datetime

n, report_file = sys.argv[1], sys.argv[2]
reply_to = sys.argv[3] if len(sys.argv) > 3 else None
raw = open("mails/%s.eml" % n, "rb").read()
env = json.load(open("mails/%s.json" % n))
# bisectctl shows control bytes as \\xHH; the mail carries the text
report = open(report_file, encoding="utf-8").read().replace("\\x0d", "\r")
headline = report.split("\n", 1)[0]
msg = email.message_from_bytes(raw, policy=email.policy.default)


def check(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


allowed = {"date", "from", "to", "cc", "subject", "message-id",
           "in-reply-to", "references", "mime-version", "content-type",
           "content-transfer-encoding", "auto-submitted",
           "x-bisectd-bisection", "x-bisectd-commit"}
names = [k.lower() for k in msg.keys()]
check(set(names) <= allowed, "only our headers: %s" % names)
check(len(names) == len(set(names)), "each header once: %s" % names)
check(b"\nBcc" not in raw.split(b"\r\n\r\n")[0], "no Bcc line")
check(msg.defects == [] and all(msg[k].defects == () for k in msg.keys()),
      "no parse defects")
check(str(msg["From"]) == "bisectd <bisectd@example.org>", "From")
check([a for _, a in getaddresses([str(msg["To"])])] ==
      ["perf-reports@example.org"], "To")
cc = getaddresses([str(msg["Cc"])])
check(("J\u00f6rg R\u00f6del", "joro@example.com") in cc and
      ("A U Thor", "author@example.com") in cc, "Cc: %s" % cc)
check(sorted(env["rcpt_tos"]) == ["author@example.com", "joro@example.com",
      "perf-reports@example.org"], "envelope: %s" % env["rcpt_tos"])
check(env["mail_from"] == "bisectd@example.org", "envelope sender")
hm = re.fullmatch(r"commit ([0-9a-f]{10}): ([-+][0-9.]+%) (\S+) "
                  r"(regression|improvement)(.*)", headline)
check(hm is not None, "headline %r" % headline)
want = "[linux-next:master] [mm/sl\u00fcb Bcc] %s: %s %s %s%s" % (
    hm.group(1), hm.group(3), hm.group(2), hm.group(4), hm.group(5))
check(str(msg["Subject"]) == want,
      "Subject %r, the robot's form %r" % (str(msg["Subject"]), want))
mid = str(msg["Message-ID"])
check(re.fullmatch(r"<bisectd-[0-9a-f]{12}-[0-9a-f]{20}@example\.org>", mid),
      "Message-ID %s" % mid)
if reply_to is None:
    check(msg["In-Reply-To"] is None and msg["References"] is None,
          "the first report starts the thread")
else:
    check(str(msg["In-Reply-To"]) == reply_to and
          str(msg["References"]) == reply_to, "threaded under %s" % reply_to)
check(parsedate_to_datetime(str(msg["Date"])).utcoffset() is not None,
      "Date")
check(msg.get_content_type() == "text/plain" and
      msg.get_content_charset() == "utf-8" and
      str(msg["Content-Transfer-Encoding"]) == "8bit", "MIME")
body = msg.get_content()
check("\r" not in body.replace("\r\n", "\n"), "no bare CR in the body")
body = body.replace("\r\n", "\n")
lines = body.split("\n")
check(lines[0] == "Hello,", "the body starts as the robot's does")
check("Details are as below:" in lines, "Details are as below")
check("https://git.example.org/linux.git master" in lines, "the tree's URL")
check(any(l.startswith("compiler: ") for l in lines) and
      "kconfig: none" in lines, "compiler and kconfig in the header")
ax = lines.index("compiler/kconfig/nr_threads/tbox_group/testcase:")
check(re.fullmatch(r"  [a-z]+-[0-9]+/none/2/[^/]+/microbench", lines[ax + 1]),
      "the axes line: %r" % lines[ax + 1])
check(lines[ax - 1].startswith("=====") and lines[ax + 3] == "commit:" and
      re.fullmatch(r"  [0-9a-f]{10} \(\"commit 26\"\)", lines[ax + 4]),
      "the parent's commit line: %r" % lines[ax + 4])
tags = [l for l in lines if l.startswith("| ")]
check(tags == ["| Reported-by: bisectd <bisectd@example.org>",
               "| Closes: https://lore.example.org/perf-reports/" +
               str(msg["Message-ID"]).strip("<>")], "the tags: %s" % tags)


def fixed(line):
    return (line == "" or line[0] in " \t#|" or "\t" in line or
            "  " in line or line.startswith(("git ", "- ", "---", "===")) or
            re.match(r"[A-Za-z0-9_.-]+:( |$)", line) is not None)


for line in lines:
    check(len(line) <= 72 or fixed(line), "wrapped at 72: %r" % line)
table = [l for l in report.split("\n") if "\u00b1" in l]
check(table and all(l in lines for l in table),
      "the compare table is there, untouched")
check(any(l.startswith("git bisect bad ") for l in lines), "the log")
norm = lambda s: " ".join(s.replace("\r", " ").split())
mailonly = body.split("\n", 2)[2]
cut = mailonly.index("If you fix the issue")
end = mailonly.index("| Closes: ")
mailonly = mailonly[:cut] + mailonly[mailonly.index("\n", end) + 1:]
check(norm(mailonly) == norm(report.split("\n", 1)[1]),
      "the body is the report without its headline, with Hello and the "
      "tags, rewrapped only")
print(mid)
EOF

test_expect_success 'setup: a hostile culprit subject, an SMTP server' '
	setup_hostile &&
	mkdir mails && start_sink &&
	cat >>bisectd.yaml <<-EOF &&
	mail:
	  smtp: smtp://127.0.0.1:$(cat port)
	  from: "bisectd <bisectd@example.org>"
	  to: [perf-reports@example.org]
	  cc: ["Jörg Rödel <joro@example.com>"]
	  author: true
	  closes: https://lore.example.org/perf-reports/
	EOF
	sed -i "s|^  - name: bench$|&\n    tree: linux-next\n    url: https://git.example.org/linux.git|" \
		bisectd.yaml &&
	grep -q "^    tree: linux-next$" bisectd.yaml &&
	git -C repo log -1 --format=%B "$(culprit_oid)" | grep -q "Bcc: victim" &&
	echo "nr_threads: 2" >>job.yaml
'

test_expect_success 'a bisection names the culprit' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >one.json 2>/dev/null &&
	test "$(json_get one.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	bisectctl report "$(json_get one.json "d[\"id\"]")" >report1.txt
'

test_expect_success 'the bisection mailed its report, exactly once' '
	id=$(json_get one.json "d[\"id\"]") &&
	test "$(mails)" = 1 &&
	test "$(db_query "SELECT status, attempts, trim(replace(recipients,
		char(10), \",\"), \",\") FROM outbox WHERE bisection = $id")" = \
		"sent|1|perf-reports@example.org,joro@example.com,author@example.com"
'

test_expect_success 'the message parses: headers, no injection, body' '
	"$PYTHON3" check-mail.py 0001 report1.txt >mid1 &&
	test "$(cat mid1)" = "<$(db_query "SELECT message_id FROM outbox
		WHERE bisection = $(json_get one.json "d[\"id\"]")")>"
'

test_expect_success 'asking again sends nothing' '
	bisectctl report "$(json_get one.json "d[\"id\"]")" --email >again.out &&
	grep -q "was sent already" again.out &&
	test "$(mails)" = 1
'

test_expect_success 'server down: a second report about the commit is queued' '
	stop_sink &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 2")" \
		--bad master --wait --json >two.json 2>/dev/null &&
	test "$(json_get two.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	id=$(json_get two.json "d[\"id\"]") &&
	bisectctl report "$id" >report2.txt &&
	test "$(mails)" = 1 &&
	test "$(db_query "SELECT status, attempts, next_attempt >= created + 60,
		last_error LIKE \"%onnect%\" FROM outbox WHERE bisection = $id")" \
		= "queued|1|1|1"
'

test_expect_success 'server back: delivered once, threaded, the queued bytes' '
	start_sink "$(sed -n "s/.*127.0.0.1:\([0-9]*\).*/\1/p" bisectd.yaml)" &&
	id=$(json_get two.json "d[\"id\"]") &&
	bisectctl report "$id" --email >up.out &&
	grep -q "^mail: <.*> sent to " up.out &&
	test "$(mails)" = 2 &&
	"$PYTHON3" check-mail.py 0002 report2.txt "$(cat mid1)" >mid2 &&
	! test "$(cat mid2)" = "$(cat mid1)" &&
	db_query "SELECT message FROM outbox WHERE bisection = $id" >queued.eml &&
	"$PYTHON3" -c "import sys
q = open(\"queued.eml\", \"rb\").read().rstrip(b\"\\r\\n\")
s = open(\"mails/0002.eml\", \"rb\").read()
sys.exit(0 if q == s.rstrip(b\"\\r\\n\") else 1)" &&
	test "$(db_query "SELECT status, attempts FROM outbox
		WHERE bisection = $id")" = "sent|2"
'

test_expect_success 'nothing more is sent by asking again' '
	bisectctl report "$(json_get one.json "d[\"id\"]")" --email >a.out &&
	bisectctl report "$(json_get two.json "d[\"id\"]")" --email >b.out &&
	grep -q "was sent already" a.out && grep -q "was sent already" b.out &&
	test "$(mails)" = 2
'

test_expect_success 'a sender that died mid-attempt: sent again, same message' '
	id=$(json_get two.json "d[\"id\"]") &&
	db_query "UPDATE outbox SET status = \"sending\" WHERE bisection = $id" &&
	bisectctl report "$id" --email >crash.out 2>crash.err &&
	grep -q "sending it again" crash.err &&
	grep -q "^mail: <.*> sent to " crash.out &&
	test "$(mails)" = 3 &&
	cmp mails/0002.eml mails/0003.eml &&
	test "$(db_query "SELECT status, attempts FROM outbox
		WHERE bisection = $id")" = "sent|3"
'

test_expect_success 'no mail settings: a clear error' '
	sed "/^mail:/,\$d" bisectd.yaml >nomail.yaml &&
	test_expect_code 2 bisectctl -c nomail.yaml report \
		"$(json_get one.json "d[\"id\"]")" --email 2>nomail.err &&
	grep -q "no .mail. settings" nomail.err
'

test_expect_success 'the report lists the testcase parameters only' '
	sed "/^To reproduce:/q" report1.txt >head1.txt &&
	report_section head1.txt "with following parameters:" >params &&
	printf "\tnr_threads: 2\n" >want &&
	test_cmp_lines params want &&
	! grep -E "^	(run|metric|direction|runs): " head1.txt
'

test_expect_success 'the commit names its branch; prose is wrapped at 72 columns' '
	sed "/^To reproduce:/q" report1.txt >head1.txt &&
	grep -qx "branch: master" head1.txt &&
	sed -n "/^The culprit explains/,/^\$/p" head1.txt >para &&
	test "$(wc -l <para)" -ge 3 &&
	! awk "length(\$0) > 72 { bad = 1 } END { exit !bad }" para &&
	tr "\n" " " <para | grep -Eq "^The culprit explains (all|[0-9]+%) of the change between good [0-9a-f]{12} and bad [0-9a-f]{12} \(95% CI of its own change: \[[-+0-9.]*%, [-+0-9.]*%\], p = "
'

test_expect_success 'the environment: what matters, the rest counted' '
	c=$(culprit_runs_oid one.json) &&
	test "$(last_env_count "$c" cmdline sysctl.vm.swappiness)" = 2 &&
	sed "/^To reproduce:/q" report1.txt >head1.txt &&
	! grep "cmdline" head1.txt && ! grep "sysctl\." head1.txt &&
	report_section head1.txt "environment of the culprit'"'"'s runs:" >env1 &&
	grep -x "	thp_enabled: [a-z]*" env1 &&
	grep -x "	kernel: .*" env1 &&
	run=$(sed -n "s/.*bisectctl show --run \([0-9]*\).*/\1/p" env1) &&
	test "$(db_query "SELECT commit_oid FROM runs WHERE id = $run AND
		status = \"done\"")" = "$c" &&
	grep -x "	and [0-9]* more identical settings; \`bisectctl show --run $run\` lists them" env1 &&
	shown=$(($(wc -l <env1) - 1)) &&
	machine=$(last_env_count "$c" model nr_cpu nr_node memory) &&
	test "$(env_more report1.txt)" = \
		"$(($(last_env_count "$c") - shown - machine))" &&
	grep "^on test machine: .* threads .* memory" head1.txt
'

test_expect_success 'show --run lists every setting and sample of the run' '
	c=$(culprit_runs_oid one.json) &&
	run=$(db_query "SELECT id FROM runs WHERE commit_oid = \"$c\" AND
		status = \"done\" ORDER BY seq DESC LIMIT 1") &&
	bisectctl show --run "$run" >run.txt &&
	grep -qx "run $run: done" run.txt &&
	grep -qx "commit: $c" run.txt &&
	n=$(last_env_count "$c") &&
	grep -qx "environment ($n keys):" run.txt &&
	test "$(sed -n "/^environment/,/^\$/p" run.txt | grep -c "^	")" = "$n" &&
	grep -qx "	cmdline: $(db_query "SELECT value FROM run_env WHERE run = $run AND key = \"cmdline\"")" run.txt &&
	value=$(db_query "SELECT value FROM samples WHERE run = $run AND metric = \"microbench.score\"") &&
	"$PYTHON3" -c "import sys; v = [l for l in open(sys.argv[1]) if l.startswith(\"\tmicrobench.score: \")]; assert len(v) == 1 and float(v[0].split()[1]) == float(sys.argv[2]), v" run.txt "$value" &&
	test_expect_code 2 bisectctl show --run 999999 2>err &&
	grep -q "no run 999999" err
'

test_expect_success 'a key that differs is called out first, not counted' '
	c=$(culprit_runs_oid one.json) && c10=$(echo "$c" | cut -c1-10) &&
	id=$(json_get one.json "d[\"id\"]") &&
	db_query "UPDATE run_env SET value = \"elsewhere\" WHERE key =
		\"hostname\" AND run IN (SELECT id FROM runs WHERE
		commit_oid = \"$c\")" &&
	bisectctl report "$id" >report3.txt &&
	report_section report3.txt "the compared runs differ in their environment:" >drift3 &&
	grep -x "	hostname: .* at parent [0-9a-f]\{10\} ([0-9]* runs*) | elsewhere at culprit $c10 ([0-9]* runs*) (noted only)" drift3 &&
	test "$(env_more report3.txt)" = "$(($(env_more report1.txt) - 1))" &&
	report_section report3.txt "environment of the culprit'"'"'s runs:" >env3 &&
	! grep hostname env3 &&
	! grep "^WARNING" report3.txt
'

test_expect_success 'a key that matters differs: flagged at the very top' '
	c=$(culprit_runs_oid one.json) && c10=$(echo "$c" | cut -c1-10) &&
	id=$(json_get one.json "d[\"id\"]") &&
	db_query "UPDATE run_env SET value = \"always\" WHERE key =
		\"thp_enabled\" AND run IN (SELECT id FROM runs WHERE
		commit_oid = \"$c\")" &&
	bisectctl report "$id" >report4.txt &&
	sed -n 3p report4.txt | grep "^WARNING: ENVIRONMENT DRIFT" &&
	report_section report4.txt "the compared runs differ in their environment:" >drift4 &&
	head -n 1 drift4 | grep -x "	thp_enabled: [a-z]* at parent [0-9a-f]\{10\} ([0-9]* runs*) | always at culprit $c10 ([0-9]* runs*)" &&
	report_section report4.txt "environment of the culprit'"'"'s runs:" >env4 &&
	! grep thp_enabled env4
'

test_done
