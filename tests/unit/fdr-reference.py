#!/usr/bin/python3
"""Reference for tests/unit/test-stats-fdr.c: read cases, one per line
("p1 p2 ..."), print statsmodels' Benjamini-Hochberg adjusted p-values
(multipletests, method fdr_bh) for each, in the same order, with 17
significant digits."""
import sys

from statsmodels.stats.multitest import multipletests

for line in open(sys.argv[1]):
    p = [float(x) for x in line.split()]
    if not p:
        print()
        continue
    _, q, _, _ = multipletests(p, alpha=0.05, method="fdr_bh")
    print(" ".join("%.17g" % x for x in q))
