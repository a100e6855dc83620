#!/bin/sh
# make bench: run every benchmark. Each prints its own figures against a
# baseline measured in the same run. Compiled benchmarks are bench/*.c
# (built into $BISECTD_BUILD/bench/), scripted ones are bench/*.sh.
# BENCH_ONLY=name runs one of them.
set -e
: "${BISECTD_BUILD:?}" "${BISECTD_SRC:?}"
export PATH="$BISECTD_BUILD/bin:$PATH"
status=0
for b in "$BISECTD_BUILD"/bench/* "$BISECTD_SRC"/bench/*.sh; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	case "$b" in */run.sh|*.o|*.d) continue ;; esac
	name=$(basename "$b" .sh)
	[ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = "$name" ] || continue
	echo "== bench: $name"
	"$b" || { echo "bench: $name failed" >&2; status=1; }
done
exit $status
