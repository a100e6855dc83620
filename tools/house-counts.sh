#!/bin/sh
# The counts of issue #18, measured on the C sources git tracks outside
# tests/ (run from the top of a tree): duplicates of 10+ lines, files over
# 800 lines, functions over 100 lines (universal-ctags' start and end lines),
# the share of functions named after their file (name = stem or stem_*,
# stem = file name without .c, '-' read as '_', main() left out) and the
# strcmps that compare a status or state.
set -e
files=$(git ls-files '*.c' '*.h' | grep -v '^tests/')
cfiles=$(git ls-files '*.c' | grep -v '^tests/')

echo "duplicates: $(duplicates --min-lines 10 --seconds 120 | head -1)"

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
