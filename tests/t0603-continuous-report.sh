#!/bin/sh
# Continuous mode to the inbox: pushes reach a bare repository; the daemon
# tests the new commits, detects the regression, bisects it, mails exactly
# one report to a real SMTP server on loopback and writes the web page.
# The index page plots the tracked series: a point per tested commit, the
# change point and the culprit marked, checked in the SVG and in a
# headless-Chromium screenshot. Then the same with the SMTP server down at
# the first attempt: the mail waits in the outbox and is delivered once,
# after its backoff.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-continuous.sh"
. "$(dirname "$0")/lib-report.sh"

test_at_exit 'test -f "$TRASH/sink.pid" && kill "$(cat "$TRASH/sink.pid")"'
test_at_exit 'test -f "$TRASH/daemon.pid" && kill "$(cat "$TRASH/daemon.pid")"'

# setup_continuous PORT: a source history, an empty upstream with its
# first 12 commits, and a config mailing to 127.0.0.1:PORT.
setup_continuous() {
	setup_bench --commits 40 --culprit 20 --change -5 &&
	rm -rf upstream.git source mails pages &&
	continuous_setup &&
	mkdir mails &&
	continuous_mail "$1" &&
	echo "web: pages" >>bisectd.yaml &&
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
	test_wait_for 100 daemon_gone &&
	rm -f daemon.pid
}

test_expect_success 'a regression pushed upstream is mailed once, with its page' '
	start_sink &&
	setup_continuous "$(cat port)" &&
	start_daemon &&
	git -C source push -q ../upstream.git master:refs/heads/master &&
	test_wait_for 3000 found 1 &&
	test_wait_for 300 sent 1 &&
	test "$(mails)" = 1 &&
	culprit=$(git -C source log --grep="(culprit)" --format=%H) &&
	short=$(echo "$culprit" | cut -c1-10) &&
	grep -q "^Subject: \[bench:master\] $short: microbench.score -[0-9.]*% regression" mails/0001.eml &&
	tr -d "\r" <mails/0001.eml | grep -q "  microbench.score$" &&
	id=$(db_query "SELECT id FROM bisections WHERE status = \"found\"") &&
	test -s "pages/report-$id.html" &&
	test -s pages/index.html &&
	grep -q "commit $short" "pages/report-$id.html" &&
	grep -q "<svg" "pages/report-$id.html"
'

cat >"$TRASH/check-index.py" <<'EOF'
"""check-index.py INDEX TESTED CULPRIT BISECTION: the tracked series."""
import html.parser
import re
import sys
import xml.etree.ElementTree as ET

page = open(sys.argv[1], encoding="utf-8").read()
tested, culprit, bisection = int(sys.argv[2]), sys.argv[3], sys.argv[4]
ns = "{http://www.w3.org/2000/svg}"


def check(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


class Walk(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        check(tag not in ("script", "iframe", "img", "link"), "no loads")
        for k, v in attrs:
            check(not k.startswith("on"), "no event handler: %s" % k)
            check(k != "href" or re.fullmatch(r"report-[0-9]+\.html", v),
                  "links stay in the page's directory: %s" % v)


Walk().feed(page)
check("<h2>Tracked: bench master</h2>" in page, "the branch's section")
check(re.search(r"<h3>Job <code>[0-9a-f]+</code>: microbench</h3>", page),
      "the job's heading")
svgs = {}
bisection_plots = 0
for text in re.findall(r"<svg.*?</svg>", page, re.S):
    svg = ET.fromstring(text)
    title = svg.find(ns + "title").text
    if title.endswith(" at each tested commit"):
        bisection_plots += 1    # the Bisections section: its own plot
        continue
    svgs[title] = svg
check(bisection_plots == 1, "the bisection's plot in the index: %d"
      % bisection_plots)
check(sorted(svgs) == ["microbench.other along the branch",
                       "microbench.score along the branch"],
      "a plot per metric of the testcase: %s" % sorted(svgs))
svg = svgs["microbench.score along the branch"]
points = [c for c in svg.iter(ns + "circle") if c.find(ns + "title") is not None]
check(len(points) == tested, "a point per tested commit: %d, not %d"
      % (len(points), tested))
check(all(": tested, mean " in c.find(ns + "title").text for c in points),
      "each point says its mean")
check(len(list(svg.iter(ns + "polygon"))) == 1, "the band")
texts = [t.text or "" for t in svg.iter(ns + "text")]
changes = [t for t in texts if re.fullmatch(r"-[0-9.]+% regression \(p .*\)", t)]
check(len(changes) == 1, "one change point, a regression: %s" % texts)
links = [a for a in svg.iter(ns + "a")
         if a.find(ns + "text").text == "culprit " + culprit[:10]]
check(len(links) == 1 and links[0].get("href") == "report-%s.html" % bisection,
      "the culprit marked and linked to its report")
xs = {}
for line in svg.iter(ns + "line"):
    if line.get("stroke-dasharray") and line.get("x1") == line.get("x2"):
        xs.setdefault(line.get("stroke"), []).append(float(line.get("x1")))
change_x, culprit_x = xs["#ff7f0e"][0], xs["#d62728"][0]
check(0 < culprit_x - change_x < 60, "the culprit just after the change point")
other = svgs["microbench.other along the branch"]
check(not [t for t in other.iter(ns + "text")
           if re.search(r"regression|improvement", t.text or "")],
      "no change point in the metric that did not change")
check(re.search(r'<a href="report-%s.html"><code>%s</code></a>'
                % (bisection, culprit[:10]), page),
      "the regressions table links the report")
print(len(points), len(changes))
EOF

test_expect_success 'the index plots the tracked series with its change and culprit' '
	culprit=$(git -C source log --grep="(culprit)" --format=%H) &&
	id=$(db_query "SELECT id FROM bisections WHERE status = \"found\"") &&
	tested=$(db_query "SELECT count(DISTINCT t.commit_oid) FROM tracked t JOIN runs r ON r.commit_oid = t.commit_oid WHERE r.status = \"done\"") &&
	test_wait_for 600 "$PYTHON3" check-index.py pages/index.html \
		"$tested" "$culprit" "$id" &&
	bisectctl report --html pages >out &&
	grep -qx "web: wrote pages/index.html" out &&
	"$PYTHON3" check-index.py pages/index.html "$tested" "$culprit" "$id"
'

if command -v chromium >/dev/null 2>&1; then
test_expect_success 'headless Chromium renders the series, its change and culprit' '
	screenshot "file://$TRASH/pages/index.html" "$TRASH/shot.png" 1200,1400 &&
	"$PYTHON3" - "$TRASH/shot.png" <<-\EOF
	import sys
	from PIL import Image
	im = Image.open(sys.argv[1])
	assert im.size == (1200, 1400), im.size
	px = im.convert("RGB")
	count = dict((c, n) for n, c in px.getcolors(maxcolors=1 << 20))
	line = count.get((0x1f, 0x77, 0xb4), 0)
	change = count.get((0xff, 0x7f, 0x0e), 0)
	culprit = count.get((0xd6, 0x27, 0x28), 0)
	assert line > 1000, "the series: %d pixels" % line
	assert change > 100, "the change point: %d pixels" % change
	assert culprit > 200, "the culprit: %d pixels" % culprit
	print(line, change, culprit)
	EOF
'
else
	test_skip 'headless Chromium renders the series' \
		'chromium is not installed (tools/install-deps check installs it)'
fi

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
	test_wait_for 3000 found 1 &&
	test_wait_for 300 eval "grep -q \"stays queued, next attempt\" daemon.log" &&
	test "$(mails)" = 0 &&
	start_sink "$port" &&
	test_wait_for 1200 sent 1 &&
	test "$(mails)" = 1 &&
	stop_daemon &&
	test "$(mails)" = 1
'

test_done
