#!/bin/sh
# The figure of docs/jobs.md "LKP job files": bisectctl check on every job
# file under an lkp-tests checkout's jobs/, against the job counts LKP's
# rules give (tools/lkp-job-count.py), as markdown tables.
#
#   tools/lkp-jobs-figure.sh BISECTCTL LKP_SRC
set -e
B=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TOOLS=$(cd "$(dirname "$0")" && pwd)
cd "$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find jobs -name '*.yaml' | LC_ALL=C sort >"$tmp/files"
python3 "$TOOLS/lkp-job-count.py" . $(cat "$tmp/files") >"$tmp/lkp"
while read -r f; do
	if BISECTD_CONFIG=/nonexistent "$B" check -I jobs "$f" \
	    >"$tmp/out" 2>"$tmp/err"; then
		echo "$f|ok|$(tail -n 1 "$tmp/out")"
	else
		echo "$f|refused|$(grep '^error: ' "$tmp/err" | head -n 1)"
	fi
done <"$tmp/files" >"$tmp/ours"
python3 - "$tmp/ours" "$tmp/lkp" <<'EOF'
import re, sys
lkp = {}
for l in open(sys.argv[2]):
    f, n = l.split()[0], l.split()[1]
    lkp[f] = int(n) if n.isdigit() else None
rows = [l.rstrip("\n").split("|", 2) for l in open(sys.argv[1])]
total = len(rows)
reasons = {}
ok = same = runnable = jobs = lkp_jobs = repeats = 0
diff = []
runnable_files = []
for f, status, rest in rows:
    if status == "refused":
        m = rest
        for name, pat in (("ruby expression `{{ }}`", "ruby expression"),
                          ("ERB template", "ERB"),
                          ("multi-host `if role` (not cs-localhost)",
                           "multi-host"),
                          ("no `testcase` (an include fragment)",
                           "missing 'testcase'"),
                          ("a value listed twice in an axis", "twice")):
            if pat in m:
                reasons.setdefault(name, []).append((f, m))
                break
        else:
            reasons.setdefault("other", []).append((f, m))
        continue
    ok += 1
    n, unrun, rep = map(int, re.findall(r"(\d+)", rest)[:3])
    jobs += n
    repeats += rep
    if unrun == 0:
        runnable += 1
        runnable_files.append(f)
    if lkp.get(f) is not None:
        lkp_jobs += lkp[f]
        if lkp[f] == n + rep:
            same += 1
        else:
            diff.append((f, lkp[f], n, rep))
pct = lambda x: "%d (%.1f%%)" % (x, 100.0 * x / total)
print("| lkp-tests job files | %d |" % total)
print("|---|---|")
print("| format accepted by `bisectctl check` | %s |" % pct(ok))
print("| accepted with LKP's job count | %s |" % pct(same))
print("| runnable here (every job has an adapter or `run:`) | %s |" % pct(runnable))
print("| jobs of the accepted files: bisectd (+ repeats dropped) / LKP | "
      "%d (+ %d) / %d |" % (jobs, repeats, lkp_jobs))
print()
print("| refused because | files | first file, first error |")
print("|---|---|---|")
for name, fs in sorted(reasons.items(), key=lambda x: -len(x[1])):
    f, m = fs[0]
    print("| %s | %d | `%s` |" % (name, len(fs), m.replace("error: ", "")))
print()
print("Runnable here: " + ", ".join("`%s`" % f[5:] for f in runnable_files))
print()
print("| accepted, count differs | LKP | bisectd | repeats dropped |")
print("|---|---|---|---|")
for f, l, n, r in diff:
    print("| %s | %d | %d | %d |" % (f, l, n, r))
EOF
