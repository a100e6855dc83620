#!/bin/sh
# make demo: bisect a real (small) regression with the embedded default.
# It makes a git repository of 300 commits holding a small C benchmark;
# commit 211 makes it about 4% slower. It times itself in CPU time, so
# that other load on the machine does not swamp the change; the noise is
# still this machine's own. bisectctl then bisects it with SQLite and the
# local agent, and prints the report: the headline and the compare table.
set -e
: "${BISECTD_BUILD:?}"
PATH="$BISECTD_BUILD/bin:$PATH"
demo="$BISECTD_BUILD/demo"
rm -rf "$demo"
mkdir -p "$demo"
cd "$demo"

echo "demo: making a repository of 300 commits in $demo/linux-ish"
git init -q linux-ish
(
	cd linux-ish
	export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL="author@example.com"
	export GIT_COMMITTER_NAME="C O Mitter"
	export GIT_COMMITTER_EMAIL="committer@example.com"
	awk -v n=300 -v culprit=211 '
	function blob(s) {
		mark++
		printf "blob\nmark :%d\ndata %d\n%s\n", mark, length(s), s
		return mark
	}
	BEGIN {
		bench = "#include <stdio.h>\n#include <time.h>\n#include \"extra.h\"\n\n" \
		    "static unsigned long long\nmix(unsigned long long x)\n{\n" \
		    "\tx ^= x >> 31;\n\tx *= 0x9e3779b97f4a7c15ULL;\n\tx ^= x >> 29;\n" \
		    "\treturn x;\n}\n\nint\nmain(void)\n{\n\tstruct timespec a, b;\n" \
		    "\tunsigned long long acc = 1, i, n = 40000000;\n\tdouble s;\n\n" \
		    "\tclock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);\n" \
		    "\tfor (i = 0; i < n; i++)\n\t\tacc = mix(acc + i);\n" \
		    "\tfor (i = 0; i < n / 100 * EXTRA_PERCENT; i++)\n\t\tacc = mix(acc ^ i);\n" \
		    "\tclock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);\n" \
		    "\ts = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;\n" \
		    "\tprintf(\"ops_per_sec: %.0f\\n\", n / s);\n" \
		    "\tfprintf(stderr, \"checksum %llu\\n\", acc);\n\treturn 0;\n}"
		b = blob(bench)
		extra0 = blob("#define EXTRA_PERCENT 0")
		extra1 = blob("#define EXTRA_PERCENT 4")
		date = 1700000000
		ch = blob("one change")
		for (c = 1; c <= n; c++) {
			subject = sprintf("subsys: change number %d", c)
			if (c == culprit)
				subject = "bench: validate the accumulator on every round"
			msg = subject
			date += 3600
			mark++
			printf "commit refs/heads/master\nmark :%d\n", mark
			printf "author A U Thor <author@example.com> %d +0000\n", date
			printf "committer C O Mitter <committer@example.com> %d +0000\n", date
			printf "data %d\n%s\n", length(msg), msg
			if (c > 1)
				printf "from :%d\n", last
			else
				printf "M 100644 :%d bench.c\nM 100644 :%d extra.h\n", b, extra0
			if (c == culprit)
				printf "M 100644 :%d extra.h\n", extra1
			# a file of its own: any commit reverts cleanly later on
			printf "M 100644 :%d changes/%d\n\n", ch, c
			last = mark
		}
	}' | git fast-import --quiet
	git reset -q --hard master
)

cat >bisectd.yaml <<'YAML'
# The embedded default: SQLite in state/, the implicit local agent.
repos:
  - name: linux-ish
    path: linux-ish
    build:
      command: cc -O2 -o "$BUILD_DIR/bench" bench.c
      artifacts: [bench]
YAML
cat >bench.yaml <<'YAML'
testcase: demo
run: ./bench
runs: 5
metric: demo.ops_per_sec
direction: higher
YAML

good=$(git -C linux-ish rev-list --reverse master | head -n 1)
echo "demo: bisectctl bisect bench.yaml --good ${good%????????????????????????????} --bad master --wait"
echo
start=$(date +%s)
bisectctl -c bisectd.yaml bisect bench.yaml --good "$good" --bad master --wait
end=$(date +%s)
culprit=$(git -C linux-ish log --format=%H --grep='validate the accumulator' master)
echo
echo "demo: done in $((end - start)) s; the commit that was planted is ${culprit%??????????????????????????????}"
echo "demo: the state is in $demo (bisectctl -c $demo/bisectd.yaml status)"
