#!/bin/sh
# Plots for bisections that named no culprit too: a no_change bisection
# gets a page of its own (bisection-ID.html) with what it concluded and
# the plot of the commits it tested, from `report --html` and from the
# scheduler when web: is set; headless Chromium draws it.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"
. "$(dirname "$0")/lib-report.sh"

test_expect_success 'setup: a range with no change, web: set' '
	setup_bench --commits 30 --culprit 0 &&
	echo "web: pages" >>bisectd.yaml
'

test_expect_success 'the bisection ends no_change and its page is written' '
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >nc.json 2>nc.err &&
	test "$(json_get nc.json "d[\"status\"]")" = no_change &&
	id=$(json_get nc.json "d[\"id\"]") &&
	test -s "pages/bisection-$id.html" &&
	grep -q "<h1>bisection $id: no_change, [-+][0-9.]*% microbench.score between good" "pages/bisection-$id.html" &&
	grep -q "<svg" "pages/bisection-$id.html" &&
	test "$(grep -c "<circle cx=.*<title>" "pages/bisection-$id.html")" -ge 2 &&
	grep -q "<h2>Bisections without a culprit</h2>" pages/index.html &&
	grep -q "<a href=\"bisection-$id.html\">$id</a></td><td>no_change</td>" pages/index.html &&
	grep -q "<h2>Bisections</h2>" pages/index.html &&
	grep -q "<h3><a href=\"bisection-$id.html\">bisection $id</a>: no_change" pages/index.html &&
	sed -n "/<h2>Bisections<\/h2>/,\$p" pages/index.html | grep -q "<svg"
'

test_expect_success 'report --html writes it too' '
	id=$(json_get nc.json "d[\"id\"]") &&
	rm -rf again &&
	bisectctl report "$id" --html again >out &&
	grep -q "^web: wrote .*again/bisection-$id.html$" out &&
	cmp "pages/bisection-$id.html" "again/bisection-$id.html"
'

if command -v chromium >/dev/null 2>&1; then
test_expect_success 'headless Chromium draws its plot' '
	id=$(json_get nc.json "d[\"id\"]") &&
	screenshot "file://$TRASH/pages/bisection-$id.html" "$TRASH/shot.png" 1200,1200 &&
	"$PYTHON3" - "$TRASH/shot.png" <<-\EOF
	import sys
	from PIL import Image
	px = Image.open(sys.argv[1]).convert("RGB")
	colours = px.getcolors(maxcolors=1 << 20)
	count = dict((c, n) for n, c in colours)
	line = count.get((0x1f, 0x77, 0xb4), 0)
	assert len(colours) > 50, "blank: %d colours" % len(colours)
	assert line > 300, "the plot line: %d pixels" % line
	print(len(colours), line)
	EOF
'
else
	test_skip 'headless Chromium draws its plot' 'chromium is not installed'
fi

test_done
