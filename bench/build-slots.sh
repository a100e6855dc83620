#!/bin/sh
# Parallel builds: the wall time of building the same commits of a small C
# tree (40 files compiled one at a time, `make -j1`, as the serial parts of
# a real build are) with scheduler.build_slots 1 and 3, in one run, ccache
# off so that only the parallelism is measured. Each side starts from an
# empty workdir; the run is a trivial inline testcase.
#
#   bench/build-slots.sh [NR_COMMITS]    (default 6)
set -e
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
export PATH="$BISECTD_BUILD/bin:$PATH"
nr=${1:-6}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-build-slots.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export HOME="$dir" GIT_AUTHOR_DATE='1700000000 +0000' \
	GIT_COMMITTER_DATE='1700000000 +0000' BISECTD_CCACHE=0
git init -q repo
(
	cd repo
	i=0
	while [ $i -lt 40 ]; do
		cat >f$i.c <<-EOF
		#include "v.h"
		double f$i(double x)
		{
			double s = 0;
			int k;
			for (k = 0; k < V + $i; k++)
				s += x * k / (k + 1.0);
			return s;
		}
		EOF
		i=$((i + 1))
	done
	printf '#define V 1\n' >v.h
	printf 'SRCS = $(wildcard f*.c)\nlib.a: $(SRCS:.c=.o)\n\tar rc $@ $^\n%%.o: %%.c v.h\n\t$(CC) -O2 -g -c -o $@ $<\n' >Makefile
	printf 'echo "bench.ops: 1"\n' >bench.sh
	git add . && git -c user.name=b -c user.email=b@b commit -qm base
	c=1
	while [ $c -le "$nr" ]; do
		printf '#define V %d\n' $((c + 1)) >v.h
		git -c user.name=b -c user.email=b@b commit -qam "v $c"
		c=$((c + 1))
	done
)
cat >job.yaml <<-EOF
testcase: bench
run: sh bench.sh
runs: 1
metric: bench.ops
direction: higher
EOF
args=$(git -C repo log --format='--commit %H' -n "$nr" master)
for slots in 1 3; do
	rm -rf state
	cat >bisectd.yaml <<-EOF
	repos:
	  - name: c
	    path: repo
	    build:
	      command: make -j1
	      artifacts: [lib.a, bench.sh]
	scheduler:
	  build_slots: $slots
	EOF
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	bisectctl queue job.yaml $args --wait >/dev/null 2>err
	t1=$(date +%s.%N)
	n=$(sqlite3 state/bisectd.db "SELECT count(*) || ' ' || sum(seconds) FROM builds WHERE status = 'ok'")
	echo "$slots $n $t0 $t1"
done | awk -v nr="$nr" -v cpus="$(nproc)" '
	{ t[$1] = $5 - $4; printf "build_slots %d: %d builds of %d commits in %.1f s (the builds themselves: %.1f s)\n", $1, $2, nr, t[$1], $3 }
	END { printf "speed-up with 3 slots: %.2fx (%d CPUs)\n", t[1] / t[3], cpus }'
