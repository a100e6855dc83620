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
	if BISECTD_CONFIG=/nonexistent "$B" check --format-only -I jobs "$f" \
	    >"$tmp/out" 2>"$tmp/err"; then
		if BISECTD_CONFIG=/nonexistent "$B" check -I jobs "$f" \
		    >/dev/null 2>"$tmp/err"; then
			v=valid
		else
			v=$(grep '^error: ' "$tmp/err" | head -n 1 |
			    sed -e "s/.*: unknown parameter '\([^']*\)'.*/unknown parameter/" \
			    -e "s/.*: program '[^']*' is a monitor.*/a monitor written as a program/" \
			    -e "s/.*: program '[^']*' is not one.*/a program bisectd does not run/" \
			    -e "s/.*has no 'run:' command and no adapter.*/no adapter and no run:/" \
			    -e "s/.*: '\\([^']*\\)' has no value: the job does not give it and it has no default, and the run needs it.*/a parameter the run needs has no value (\\\`\\1\\\`)/" \
			    -e "s/.*: \\([a-z]*\\) '\\([^']*\\)' is not a benchmark of the installed perf.*/a perf bench benchmark the installed perf lacks (\\\`\\1: \\2\\\`)/" \
			    -e "s/.*: stressor '\\([^']*\\)' is not one the installed stress-ng has.*/a stressor the installed stress-ng lacks/" \
			    -e "s/.*: the installed stress-ng has no \\(--[a-z0-9-]*\\),.*/an option the installed stress-ng lacks (\\\`\\1\\\`)/" \
			    -e "s/.*: \\([a-z]*\\) '\\([^']*\\)' is not one the installed stress-ng's.*/a stress-ng \\1 the installed one lacks (\\\`\\2\\\`)/" \
			    -e "s/.*: 'fs2' is '[^']*': LKP then exports.*/LKP's \\\`fs2\\\` (an NFS or CIFS export, not set up)/" \
			    -e "s/.*: 'fs' is '[^']*', a network file system.*/LKP's \\\`fs\\\`: a network file system/" \
			    -e "s/.*: 'disk' without 'fs'.*/LKP's \\\`disk\\\` without \\\`fs\\\` (the adapters run in a file system; only fio's \\\`raw_disk: 1\\\` takes the partition)/" \
			    -e "s/.*: test '\\([^']*\\)' is not one that bisect-agent's built-in vm-scalability worker does: \\(.*\\) (it does anon-.*/a vm-scalability case the built-in worker does not do (\\\`\\1\\\`: \\2)/" \
			    -e "s/.*: 'fs.format' is '[^']*': LKP then mounts.*/LKP's \\\`fs: {format: n}\\\` (a file system already on the disk)/" \
			    -e "s/.*: 'disk' is '[^']*': LKP's BRD disks.*/LKP's BRD ram disks/" \
			    -e "s/.*: 'disk' is '[^']*': persistent memory.*/LKP's pmem disks/" \
			    -e "s/.*: program '\\([^'.]*\\)' cannot be honoured here.*/LKP's \\\`\\1\\\` (cannot be honoured here)/" \
			    -e "s/.*: '\\([^'.]*\\)[^']*' cannot be honoured here.*/LKP's \\\`\\1\\\` (cannot be honoured here)/" \
			    -e "s/.*: '[^']*' is an option of program '\\([^']*\\)', which is neither.*/an option of a program bisectd does not have (\\\`\\1\\\`)/" \
			    -e "s/^error: [^ ]* //")
		fi
		echo "$f|ok|$(tail -n 1 "$tmp/out")|$v"
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
rows = [(l.rstrip("\n") + "|").split("|")[:4] for l in open(sys.argv[1])]
total = len(rows)
reasons = {}
ok = same = runnable = jobs = lkp_jobs = repeats = 0
diff = []
runnable_files = []
valid = 0
invalid = {}
for f, status, rest, v in rows:
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
    if v == "valid":
        valid += 1
    else:
        invalid[v] = invalid.get(v, 0) + 1
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
print("| format accepted (`bisectctl check --format-only`) | %s |" % pct(ok))
print("| accepted with LKP's job count | %s |" % pct(same))
print("| runnable here (every job has an adapter or `run:`) | %s |" % pct(runnable))
print("| passes the parameter check as `queue` (every parameter applied) | %s |" % pct(valid))
print("| jobs of the accepted files: bisectd (+ repeats dropped) / LKP | "
      "%d (+ %d) / %d |" % (jobs, repeats, lkp_jobs))
print()
print("| refused because | files | first file, first error |")
print("|---|---|---|")
for name, fs in sorted(reasons.items(), key=lambda x: -len(x[1])):
    f, m = fs[0]
    print("| %s | %d | `%s` |" % (name, len(fs), m.replace("error: ", "")))
print()
print("| accepted, but the parameter check refuses it (first error) | files |")
print("|---|---|")
for k, n in sorted(invalid.items(), key=lambda x: -x[1]):
    print("| %s | %d |" % (k, n))
print()
print("Runnable here: " + ", ".join("`%s`" % f[5:] for f in runnable_files))
print()
print("| accepted, count differs | LKP | bisectd | repeats dropped |")
print("|---|---|---|---|")
for f, l, n, r in diff:
    print("| %s | %d | %d | %d |" % (f, l, n, r))
EOF
