#!/usr/bin/python3
# Reference values for tests/unit/test-bisect-pair.c: Wilcoxon's
# signed-rank test by scipy.stats.wilcoxon (zero_method "wilcox",
# correction False), exact when at most 50 differences are left after the
# zeros and none are tied, else the normal approximation. Reads the cases,
# one per line:   ID ALT N d_1 .. d_N   (ALT: less, greater, two-sided)
# and prints for each: ID STATISTIC P.
import sys
import warnings

import numpy as np
from scipy import stats


def main():
    warnings.simplefilter("ignore")
    for line in open(sys.argv[1]):
        x = line.split()
        cid, alt, n = int(x[0]), x[1], int(x[2])
        d = np.array([float(v) for v in x[3:3 + n]])
        nz = d[d != 0]
        ties = len(np.unique(np.abs(nz))) != len(nz)
        method = "exact" if len(nz) <= 50 and not ties else "approx"
        if method == "exact":
            d = nz
        r = stats.wilcoxon(d, zero_method="wilcox", correction=False,
                           alternative=alt, method=method)
        print("%d %.17g %.17g" % (cid, float(r.statistic), float(r.pvalue)))


main()
