#!/usr/bin/python3
"""Generate a git history for the end-to-end tests, as a git fast-import
stream on stdout, with fixed dates. Each commit holds `speed`, the number the
benchmark (bench.sh) prints with noise; a culprit commit changes it. Commits
listed as broken carry a file `broken`, which makes the build command fail.

  fixture-repo.py --commits 200 --culprit 137 --change -5 [--culprit2 60
      --change2 -3] [--broken 136,138] [--merge-every 10] [--noise 1.0]
      [--timed]

With --timed the benchmark's noise is the machine's own: bench.sh runs
./spin (spin.c, built by the test's build command), a loop whose length
grows as `speed` falls, and prints the operations per second of CPU time,
as `make demo` does; other load on the machine disturbs it.

Subjects: "commit N" on the main line, "side N.k" on merged side branches;
a culprit's subject ends in "(culprit)" so that tests can find its oid.
"""
import argparse
import sys

BENCH = r'''#!/bin/sh
# A benchmark whose score depends on the commit: `speed` with Gaussian
# noise of NOISE percent (Box-Muller). The two uniforms come straight from
# /dev/urandom, not from awk's srand: mawk takes every seed >= 2^31-1 as
# the same seed, which made half of all runs print one value.
speed=$(cat speed)
set -- $(od -An -N8 -tu4 /dev/urandom)
awk -v s="$speed" -v a="$1" -v b="$2" -v noise="$(cat noise)" 'BEGIN {
	u1 = (a + 0.5) / 4294967296; u2 = (b + 0.5) / 4294967296;
	z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
	printf "score: %.4f\n", s * (1 + noise / 100 * z);
	printf "other: %.4f\n", 100 * (1 + noise / 100 * z);
}'
'''


TIMED_BENCH = r'''#!/bin/sh
# A timed benchmark: ./spin's operations per CPU-second at this commit's speed.
exec ./spin "$(cat speed)"
'''

SPIN = r'''#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* 16 million operations, each costing 1000 / speed loop rounds. */
static unsigned long long
mix(unsigned long long x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x;
}

int
main(int argc, char **argv)
{
	struct timespec a, b;
	double speed = argc > 1 ? atof(argv[1]) : 1000, s;
	unsigned long long acc = 1, i, ops = 16000000, n;

	n = (unsigned long long)(ops * 1000.0 / speed);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (i = 0; i < n; i++)
		acc = mix(acc + i);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("score: %.4f\n", ops / s / 1000);
	printf("other: %.4f\n", 100.0);
	fprintf(stderr, "checksum %llu\n", acc);
	return 0;
}
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--culprit", type=int, default=0)
    ap.add_argument("--change", type=float, default=-5.0)
    ap.add_argument("--culprit2", type=int, default=0)
    ap.add_argument("--change2", type=float, default=0.0)
    ap.add_argument("--broken", default="")
    ap.add_argument("--merge-every", type=int, default=0)
    ap.add_argument("--side-culprit", action="store_true",
                    help="put the culprit on the side branch merged at it")
    ap.add_argument("--noise", type=float, default=1.0)
    ap.add_argument("--base", type=float, default=1000.0)
    ap.add_argument("--timed", action="store_true",
                    help="the machine's noise: a CPU-timed loop (spin.c)")
    a = ap.parse_args()
    broken = {int(x) for x in a.broken.split(",") if x}
    out = sys.stdout
    mark = 0
    date = 1700000000
    speed = a.base

    def blob(data):
        nonlocal mark
        mark += 1
        b = data.encode()
        out.write("blob\nmark :%d\ndata %d\n" % (mark, len(b)))
        out.write(data + "\n")
        return mark

    bench = blob(TIMED_BENCH if a.timed else BENCH)
    spin = blob(SPIN) if a.timed else None
    noise = blob("%g\n" % a.noise)
    change = blob("a change\n")

    def commit(subject, parents, files, branch="refs/heads/master"):
        nonlocal mark, date
        date += 60
        mark += 1
        msg = subject.encode()
        out.write("commit %s\nmark :%d\n" % (branch, mark))
        out.write("author A U Thor <author@example.com> %d +0000\n" % date)
        out.write("committer C O Mitter <committer@example.com> %d +0000\n"
                  % date)
        out.write("data %d\n%s\n" % (len(msg), subject))
        if parents:
            out.write("from :%d\n" % parents[0])
            for p in parents[1:]:
                out.write("merge :%d\n" % p)
        out.write("deleteall\n")
        for path, (m, mode) in sorted(files.items()):
            out.write("M %s :%d %s\n" % (mode, m, path))
        out.write("\n")
        return mark

    touched = []

    def files_for(speed, n, is_broken):
        # every commit adds a file of its own, so that any commit can be
        # reverted on top of any later one without a conflict
        touched.append("changes/%d" % n)
        f = {"bench.sh": (bench, "100755"), "noise": (noise, "100644"),
             "speed": (blob("%.6f\n" % speed), "100644")}
        if spin is not None:
            f["spin.c"] = (spin, "100644")
        for path in touched:
            f[path] = (change, "100644")
        if is_broken:
            f["broken"] = (blob("this commit does not build\n"), "100644")
        return f

    head = None
    for n in range(1, a.commits + 1):
        subject = "commit %d" % n
        new_speed = speed
        if n == a.culprit:
            new_speed = speed * (1 + a.change / 100)
        if n == a.culprit2:
            new_speed = speed * (1 + a.change2 / 100)
        culprit_here = new_speed != speed
        if a.merge_every and head is not None and n % a.merge_every == 0:
            # a side branch of two commits forked three commits back
            # (approximated by forking at head), merged at commit n
            side = head
            side_speed = speed
            for k in (1, 2):
                sub = "side %d.%d" % (n, k)
                if culprit_here and a.side_culprit and k == 1:
                    side_speed = new_speed
                    sub += " (culprit)"
                side = commit(sub, [side], files_for(side_speed, n * 10 + k,
                              False), "refs/heads/side")
            main_speed = speed if a.side_culprit else new_speed
            if culprit_here and not a.side_culprit:
                subject += " (culprit)"
            main = commit("commit %d" % n if not (culprit_here and not
                          a.side_culprit) else subject, [head],
                          files_for(main_speed, n, n in broken))
            merged_speed = new_speed
            head = commit("Merge side %d" % n, [main, side],
                          files_for(merged_speed, n, False))
            speed = merged_speed
            continue
        if culprit_here:
            subject += " (culprit)"
        head = commit(subject, [head] if head else [],
                      files_for(new_speed, n, n in broken))
        speed = new_speed
    out.write("reset refs/heads/master\nfrom :%d\n\n" % head)
    out.write("done\n")


main()
