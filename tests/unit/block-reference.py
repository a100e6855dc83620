#!/usr/bin/python3
# Reference values for tests/unit/test-bisect-block.c: the nested one-way
# analysis of variance (units within groups) by NumPy group means and
# scipy.stats.f.sf, by a different road than stats/bisect-block.c: the
# sums of squares from an explicit table of units. Reads the cases, one
# per line:   ID N y_1 .. y_N g_1 .. g_N u_1 .. u_N
# and prints for each: ID F DF1 DF2 P (nan where not defined).
import math
import sys

import numpy as np
from scipy import stats


def one(y, g, u):
    y = np.array(y, dtype=float)
    units = sorted(set(u))
    groups = sorted(set(g))
    ssw = 0.0
    ssb = 0.0
    for k in units:
        idx = [i for i in range(len(y)) if u[i] == k]
        yu = y[idx]
        gk = g[idx[0]]
        yg = y[[i for i in range(len(y)) if g[i] == gk]]
        ssw += float(np.sum((yu - yu.mean()) ** 2))
        ssb += len(yu) * float((yu.mean() - yg.mean()) ** 2)
    df1 = len(units) - len(groups)
    df2 = len(y) - len(units)
    if df1 <= 0 or df2 <= 0 or not ssw > 0:
        return math.nan, df1, df2, math.nan
    f = (ssb / df1) / (ssw / df2)
    return f, df1, df2, float(stats.f.sf(f, df1, df2))


def main():
    for line in open(sys.argv[1]):
        x = line.split()
        cid, n = int(x[0]), int(x[1])
        y = [float(v) for v in x[2:2 + n]]
        g = [int(v) for v in x[2 + n:2 + 2 * n]]
        u = [int(v) for v in x[2 + 2 * n:2 + 3 * n]]
        f, d1, d2, p = one(y, g, u)
        print("%d %.17g %d %d %.17g" % (cid, f, d1, d2, p))


main()
