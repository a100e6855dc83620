#!/bin/sh
# Clean builds of commits that a bisection built incrementally, to compare
# (docs/kernel.md, "What it measured"). Each commit is checked out into a
# fresh directory and built in a fresh O= directory with ccache off, with
# the recipe's base config, one at a time.
#
#   tests/kernel/clean-builds.sh REPO CONFIG OID...
#
# Prints "OID SECONDS" per commit and the total.
set -eu
repo=$1
config=$2
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clean-builds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
total=0
for oid in "$@"; do
	rm -rf "$tmp/src" "$tmp/out"
	mkdir -p "$tmp/src" "$tmp/out"
	git -C "$repo" archive "$oid" | tar -x -C "$tmp/src"
	cp "$config" "$tmp/out/.config"
	start=$(date +%s)
	CCACHE_DISABLE=1 KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970' \
		make -s -C "$tmp/src" -j"$(nproc)" O="$tmp/out" olddefconfig \
		bzImage >"$tmp/log" 2>&1 || { tail "$tmp/log"; exit 1; }
	s=$(($(date +%s) - start))
	total=$((total + s))
	echo "$oid $s"
done
echo "total $total"
