#!/usr/bin/python3
# Reference values for tests/unit/test-bisect-time.c: Spearman's rank
# correlation by scipy.stats.spearmanr, one-sided (alternative "greater",
# the t approximation on n - 2 degrees of freedom). Reads the cases, one
# per line:   ID N x_1 .. x_N y_1 .. y_N
# and prints for each: ID RHO P.
import sys
import warnings

import numpy as np
from scipy import stats


def main():
    warnings.simplefilter("ignore")
    for line in open(sys.argv[1]):
        v = line.split()
        cid, n = int(v[0]), int(v[1])
        x = np.array([float(a) for a in v[2:2 + n]])
        y = np.array([float(a) for a in v[2 + n:2 + 2 * n]])
        r = stats.spearmanr(x, y, alternative="greater")
        print("%d %.17g %.17g" % (cid, float(r.statistic), float(r.pvalue)))


main()
