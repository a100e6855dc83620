#!/usr/bin/python3
# Reference values for tests/unit/test-bisect-pair.c: the Hodges-Lehmann
# estimate of paired differences (the median of the Walsh averages) and
# its 95% interval found by inverting scipy.stats.wilcoxon (normal
# approximation, correction False, two-sided): the interval runs from the
# Walsh average where the test stops rejecting to the one where it starts
# again, looked at between two neighbouring Walsh averages (bisected for:
# the test accepts on one run of them around the middle). Reads
# the cases, one per line:   ID N d_1 .. d_N   and prints for each:
# ID ESTIMATE LO HI.
import sys
import warnings

import numpy as np
from scipy import stats


def main():
    warnings.simplefilter("ignore")
    for line in open(sys.argv[1]):
        x = line.split()
        cid, n = int(x[0]), int(x[1])
        d = np.array([float(v) for v in x[2:2 + n]])
        i, j = np.triu_indices(n)
        w = np.sort((d[i] + d[j]) / 2)
        est = np.median(w)
        mids = (w[:-1] + w[1:]) / 2

        def acc(t):
            return stats.wilcoxon(d - mids[t], zero_method="wilcox",
                                  correction=False,
                                  method="approx").pvalue >= 0.05

        # the accepted midpoints are one run around the middle: bisect
        # for its ends
        mid = len(mids) // 2
        a, b = 0, mid
        while a < b:
            t = (a + b) // 2
            if acc(t):
                b = t
            else:
                a = t + 1
        first = a
        a, b = mid, len(mids) - 1
        while a < b:
            t = (a + b + 1) // 2
            if acc(t):
                a = t
            else:
                b = t - 1
        last = a
        print("%d %.17g %.17g %.17g" % (cid, est, w[first], w[last + 1]))


main()
