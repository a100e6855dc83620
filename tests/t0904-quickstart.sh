#!/bin/sh
# docs/quickstart.md, as printed: its config and job are taken from the
# page itself (only the repository path is this test's), a repository
# whose bench gets 5% slower at one commit stands behind them, and the
# page's commands are run and checked against what the page says.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

DOC=$BISECTD_SRC/docs/quickstart.md

# The N-th ```yaml block of the page.
yaml_block() {
	awk -v n="$1" '/^```yaml$/ { k++; on = (k == n); next }
		/^```$/ { on = 0 } on' "$DOC"
}

# The indented command lines of the page that start with bisectctl.
doc_commands() {
	sed -n 's/^    \(bisectctl .*\)$/\1/p' "$DOC"
}

test_expect_success 'setup: the repository behind the page' '
	git init -q mybench &&
	printf "O ?= .\n\$(O)/bench: bench.c speed.h\n\t\$(CC) -O2 -o \$@ bench.c -lm\n" \
		>mybench/Makefile &&
	cat >mybench/bench.c <<-\EOF &&
	#include <math.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include "speed.h"
	int main(int argc, char **argv)
	{
		unsigned int r;
		FILE *f = fopen("/dev/urandom", "r");
		double u1, u2, z;
		if (argc != 3 || strcmp(argv[1], "--iterations") != 0)
			return 2;
		if (fread(&r, sizeof r, 1, f) != 1) return 1;
		u1 = (r + 1.0) / 4294967297.0;
		if (fread(&r, sizeof r, 1, f) != 1) return 1;
		u2 = r / 4294967296.0;
		z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
		printf("ops_per_sec: %.0f\n", SPEED * (1 + 0.01 * z));
		return 0;
	}
	EOF
	grep -q "^	.(CC) -O2 -o .@ bench.c -lm$" mybench/Makefile &&
	echo "#define SPEED 501234" >mybench/speed.h &&
	git -C mybench add . &&
	git -C mybench commit -q -m "bench: the start" &&
	git -C mybench tag v1.0 &&
	for i in 1 2 3 4 5 6 7 8 9; do
		echo "$i" >mybench/notes &&
		git -C mybench add notes &&
		if test $i = 6; then
			echo "#define SPEED 476172" >mybench/speed.h &&
			git -C mybench add speed.h &&
			git -C mybench commit -q -m "bench: slower on purpose" || exit 1
		else
			git -C mybench commit -q -m "notes $i" || exit 1
		fi
	done &&
	yaml_block 1 | sed "s|/srv/git/mybench|$TRASH/mybench|" >bisectd.yaml &&
	grep -q "command: make -j\$NPROC O=\$BUILD_DIR" bisectd.yaml &&
	yaml_block 2 >job.yaml &&
	grep -q "^run: ./bench --iterations 1000" job.yaml &&
	test "$(doc_commands | wc -l)" = 2
'

test_expect_success 'section 4: bisect prints the report and names the commit' '
	cmd=$(doc_commands | sed -n 1p) &&
	test "$cmd" = "bisectctl bisect job.yaml --good v1.0 --bad master --wait" &&
	$cmd >bisect.out 2>bisect.err &&
	culprit=$(git -C mybench log --format=%h --abbrev=10 -1 --grep="slower on purpose") &&
	head -n 1 bisect.out | grep -q "^commit $culprit: -[0-9.]*% mybench.ops_per_sec regression" &&
	grep -q "^bisect: checking that good and bad differ" bisect.err
'

test_expect_success 'section 4: its log replays in git bisect' '
	bisectctl log 1 >log &&
	git -C mybench bisect replay ../log >replay.out 2>&1 &&
	grep -q "is the first bad commit" replay.out &&
	git -C mybench bisect reset >/dev/null 2>&1
'

test_expect_success 'section 5: compare prints the table the page shows' '
	cmd=$(doc_commands | sed -n 2p) &&
	test "$cmd" = "bisectctl compare v1.0 master job.yaml --wait" &&
	$cmd >cmp.out 2>cmp.err &&
	grep -q "^mybench (job [0-9a-f]\\{16\\})$" cmp.out &&
	grep -q "^---------------- ---------------------------$" cmp.out &&
	grep -q "^         %stddev     %change         %stddev$" cmp.out &&
	grep "mybench.ops_per_sec$" cmp.out | grep -q "±  [0-9]%      -[45]\\.[0-9]%" &&
	grep -q "^(.* other metrics tested: a change is shown where it passes its own$" cmp.out
'

test_expect_success 'section 6: status shows what it did' '
	bisectctl status >status.out &&
	grep -q "^scheduler: not running" status.out &&
	grep -q "found, culprit" status.out
'

test_done
