#!/usr/bin/python3
# Reference values for tests/unit/test-bisect-pair.c: the Hodges-Lehmann
# estimate of paired differences (the median of the Walsh averages) and
# its 95% interval found by inverting scipy.stats.wilcoxon (normal
# approximation, correction False, two-sided): the interval runs from the
# Walsh average where the test stops rejecting to the one where it starts
# again, looked at between each two neighbouring Walsh averages. Reads
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
        acc = [stats.wilcoxon(d - m, zero_method="wilcox", correction=False,
                              method="approx").pvalue >= 0.05 for m in mids]
        k = [t for t, a in enumerate(acc) if a]
        lo, hi = (w[k[0]], w[k[-1] + 1]) if k else (w[0], w[-1])
        print("%d %.17g %.17g %.17g" % (cid, est, lo, hi))


main()
