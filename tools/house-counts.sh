#!/bin/sh
# The counts of issue #18, measured on the C sources git tracks outside
# tests/ (run from the top of a tree): duplicates of 10+ lines, files over
# 800 lines, functions over 100 lines (universal-ctags' start and end lines),
# the share of functions named after their file (name = stem or stem_*,
# stem = file name without .c, '-' read as '_', main() left out), the
# strcmps that compare a status or state, and the file headers' length.
# VERBOSE=1 lists the functions off their prefix and the long headers.
#
# usage: tools/house-counts.sh [REV]   (the commit measured: HEAD by default;
# its tree is extracted to a temporary directory and measured there)
set -e
rev=${1:-HEAD}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git archive "$rev" | tar -x -C "$tmp"
list=$(git ls-tree -r --name-only "$rev")
cd "$tmp"
files=$(echo "$list" | grep -E '\.[ch]$' | grep -v '^tests/')
cfiles=$(echo "$list" | grep -E '\.c$' | grep -v '^tests/')

echo "measured: $(git -C "$OLDPWD" rev-parse --short "$rev")"
echo "duplicates: $(duplicates --repo "$tmp" --min-lines 10 --seconds 120 | head -1)"

n=0
for f in $files; do
	l=$(wc -l < "$f")
	if [ "$l" -gt 800 ]; then
		echo "  long file: $f $l"
		n=$((n + 1))
	fi
done
echo "files over 800 lines: $n"

ctags --c-kinds=f --fields=+ne -o - $cfiles | awk -F'\t' '
{
	name = $1; file = $2; start = 0; end = 0
	for (i = 4; i <= NF; i++) {
		if ($i ~ /^line:/) start = substr($i, 6)
		if ($i ~ /^end:/) end = substr($i, 5)
	}
	len = end - start + 1
	if (len > 100) {
		long++
		printf "  long function: %s %s %d\n", file, name, len
	}
	if (name == "main")
		next
	stem = file; sub(/.*\//, "", stem); sub(/\.c$/, "", stem)
	gsub(/-/, "_", stem)
	total++
	if (name == stem || index(name, stem "_") == 1)
		named++
	else if (verbose)
		printf "  off prefix: %s %s\n", file, name
}
END {
	printf "functions over 100 lines: %d\n", long
	printf "functions carrying their file prefix: %d of %d (%.1f%%)\n",
	    named, total, 100 * named / total
}' verbose="${VERBOSE:-0}"

echo "status strcmps: $(grep -nE 'strcmp\([^;]*(status|state)' $cfiles | wc -l)"

# The file headers: the comment a .c or .h opens with, its lines and its
# paragraphs (split by " *" lines).
for f in $files; do
	awk -v f="$f" 'NR == 1 && !/^\/\*/ { print f, 0, 0; exit }
	{ n++; if ($0 ~ /^ \*$/) p++ }
	/\*\// { print f, n, p + 1; exit }' "$f"
done | sort -k2 -n | awk '
{ l[NR] = $2; if ($2 > 10) long++; if ($3 > 1) multi++
  if (verbose && ($2 > 10 || $3 > 1)) printf "  header: %s %d lines %d paragraphs\n", $1, $2, $3 }
END {
	printf "file headers: median %d lines, %d over 10 lines, %d of more than one paragraph (%d files)\n",
	    l[int((NR + 1) / 2)], long, multi, NR
}' verbose="${VERBOSE:-0}"
