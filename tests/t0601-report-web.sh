#!/bin/sh
# The static web report: `report ID --html DIR` writes the page and the
# index; the page has the headline, the sections of the text report and an
# SVG plot with a point per tested commit; the culprit's hostile subject
# (a <script>) is escaped everywhere; nothing is loaded from the network.
# Then the page is opened in headless Chromium and its screenshot checked
# for the plot's and the headline's colours.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-report.sh"

test_expect_success 'setup: a bisection with a hostile culprit subject' '
	setup_hostile &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >one.json 2>/dev/null &&
	test "$(json_get one.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	id=$(json_get one.json "d[\"id\"]") &&
	bisectctl report "$id" >report.txt &&
	bisectctl log "$id" >bisect.log
'

test_expect_success 'report --html writes the page and the index' '
	id=$(json_get one.json "d[\"id\"]") &&
	bisectctl report "$id" --html web >html.out &&
	grep -qx "web: wrote web/report-$id.html" html.out &&
	test -s "web/report-$id.html" && test -s web/index.html
'

cat >"$TRASH/check-page.py" <<'EOF'
"""check-page.py PAGE REPORT LOG RESULT: the page carries the report."""
import json
import html
import html.parser
import re
import sys
import xml.etree.ElementTree as ET

page = open(sys.argv[1], encoding="utf-8").read()
report = open(sys.argv[2], encoding="utf-8").read()
log = open(sys.argv[3], encoding="utf-8").read()
result = json.load(open(sys.argv[4]))
headline = report.split("\n", 1)[0]


def check(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


class Walk(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.h1, self.in_h1, self.text = [], "", False, []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            check(not k.startswith("on"), "no event handler: %s" % k)
            check(k not in ("src", "href") or
                  not re.match(r"\s*(https?:|//|javascript:)", v or "", re.I),
                  "nothing from the network: %s=%s" % (k, v))
        self.in_h1 = tag == "h1"

    def handle_endtag(self, tag):
        self.in_h1 = False

    def handle_data(self, data):
        if self.in_h1:
            self.h1 += data
        self.text.append(data)


w = Walk()
w.feed(page)
check("script" not in w.tags and "iframe" not in w.tags and
      "link" not in w.tags and "img" not in w.tags, "no script, no loads")
check(not re.search(r"<\s*script", page, re.I), "no <script anywhere")
check("&lt;script&gt;alert(1)&lt;/script&gt;" in page,
      "the subject's <script> is escaped")
check("Content-Security-Policy" in page and "default-src 'none'" in page,
      "a CSP that forbids loads")
check(w.h1 == headline, "the headline is the h1: %r" % w.h1)
text = "".join(w.text)
table = [l for l in report.split("\n") if "\u00b1" in l]
check(table and all(l in text for l in table), "the compare table")
check(all(l in text for l in log.strip().split("\n")
          if l.startswith("git bisect")), "the bisection log")
check("bisectctl bisect job.yaml --good" in text, "the reproducer")
check("testcase: microbench" in text, "the job file")
for key in ("model", "nr_cpu", "memory", "nr_node"):
    check(re.search(r"<th>%s</th><td>[^<]+</td>" % key, page),
          "the machine's %s" % key)
svgs = re.findall(r"<svg.*?</svg>", page, re.S)
check(len(svgs) == 1, "one inline SVG")
svg = ET.fromstring(svgs[0])
ns = "{http://www.w3.org/2000/svg}"
points = [c for c in svg.iter(ns + "circle") if c.find(ns + "title") is not None]
steps = [l for l in log.split("\n") if re.match(r"git bisect (good|bad|skip) ", l)]
check(len(points) == len(steps), "a point per tested commit: %d vs %d"
      % (len(points), len(steps)))
check(len(list(svg.iter(ns + "polyline"))) == 1 and
      len(list(svg.iter(ns + "polygon"))) == 1, "the means and their band")
culprit = re.search(r"first bad commit: \[([0-9a-f]{40})\]", log).group(1)
marks = [t.text for t in svg.iter(ns + "text")]
check("culprit " + culprit[:10] in marks, "the culprit is marked: %s" % marks)
check(any(m and m.startswith("good ") for m in marks) and
      any(m and m.startswith("bad ") for m in marks), "the ends are named")
titles = " ".join(c.find(ns + "title").text for c in points)
check("<script>alert(1)</script>" in titles,
      "the subject reads back as text in the point's title")
revert = result.get("revert")
if revert and revert.get("built"):
    check("<h2>Revert check</h2>" in page and
          ("restores %.0f%%" % revert["restored_pct"]) in page,
          "the revert check is reported")
    paths = [p for p in svg.iter(ns + "path")
             if p.find(ns + "title") is not None]
    check(len(paths) == 1 and revert["commit"][:12] in
          paths[0].find(ns + "title").text, "and plotted")
print(len(points))
EOF

test_expect_success 'the page has the report, the plot, and no injection' '
	id=$(json_get one.json "d[\"id\"]") &&
	"$PYTHON3" check-page.py "web/report-$id.html" report.txt bisect.log \
		one.json
'

test_expect_success 'the index lists the reports, newest first' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 2")" \
		--bad master --wait --json >two.json 2>/dev/null &&
	id1=$(json_get one.json "d[\"id\"]") &&
	id2=$(json_get two.json "d[\"id\"]") &&
	bisectctl report "$id2" --html web >/dev/null &&
	sed "/<h2>Bisections<\/h2>/q" web/index.html |
		grep -o "href=\"report-[0-9]*\.html\"" >links &&
	printf "href=\"report-%s.html\"\nhref=\"report-%s.html\"\n" \
		"$id2" "$id1" >want &&
	test_cmp_lines links want &&
	grep -qF "$(head -n 1 report.txt)</a>" web/index.html &&
	sed -n "/<h2>Bisections<\/h2>/,\$p" web/index.html >plots &&
	test "$(grep -c "<h3><a href=\"report-[0-9]*.html\">bisection [0-9]*</a>: found" plots)" = 2 &&
	test "$(grep -c "<svg" plots)" = 2
'

test_expect_success 'a bisection without a culprit has no page' '
	test_expect_code 2 bisectctl report 999 --html web 2>err &&
	grep -q "no bisection 999" err
'

if command -v chromium >/dev/null 2>&1; then
	have_chromium=1
else
	have_chromium=
	test_skip 'screenshot in headless Chromium' \
		'chromium is not installed (tools/install-deps check installs it)'
fi

if [ -n "$have_chromium" ]; then
test_expect_success 'headless Chromium renders the plot and the headline' '
	id=$(json_get one.json "d[\"id\"]") &&
	screenshot "file://$TRASH/web/report-$id.html" "$TRASH/shot.png" 1200,1600 &&
	"$PYTHON3" - "$TRASH/shot.png" <<-\EOF
	import sys
	from PIL import Image
	im = Image.open(sys.argv[1])
	assert im.format == "PNG", im.format
	assert im.size == (1200, 1600), im.size
	px = im.convert("RGB")
	colours = px.getcolors(maxcolors=1 << 20)
	assert len(colours) > 50, "blank: %d colours" % len(colours)
	count = dict((c, n) for n, c in colours)
	line = count.get((0x1f, 0x77, 0xb4), 0)
	bad = count.get((0xd6, 0x27, 0x28), 0)
	assert line > 300, "the plot line: %d pixels" % line
	assert bad > 50, "the bad points and the culprit mark: %d" % bad
	top = px.crop((0, 0, 1200, 200)).getcolors(maxcolors=1 << 20)
	red = sum(n for n, c in top if c == (0xb0, 0x00, 0x20))
	assert red > 100, "the headline, in regression red: %d pixels" % red
	print(len(colours), line, bad, red)
	EOF
'
fi

test_done
