#!/usr/bin/python3
# Reference values for tests/unit/test-stats-scipy.c, computed with NumPy
# and SciPy (Debian 12: SciPy 1.10.1, NumPy 1.24). Reads the cases the C
# test generated, one per line:
#     ID ALPHA NA NB a_1 .. a_NA b_1 .. b_NB
# and prints, for each, one line of space-separated numbers in the order of
# FIELDS (repr() round-trips every double; nan and inf as such). The
# confidence interval is Fieller's, written here independently in its
# textbook quadratic form with scipy.stats.t.ppf for the quantile.
import math
import sys
import warnings

import numpy as np
import scipy
from scipy import special, stats

FIELDS = ("mean_a std_a median_a min_a max_a mean_b std_b median_b "
          "welch_p mw_p mw_exact ci_lo ci_hi df cv_a jain_a minmax_a").split()


def jain(x):
    x = np.asarray(x, dtype=float)
    s = np.sum(x)
    q = np.sum(x * x)
    if s == 0 and q == 0:
        return math.nan
    return s * s / (len(x) * q)


def t_quantile(alpha, df):
    """stats.t.ppf(1 - alpha/2, df), polished: SciPy 1.10's t.ppf (cdflib's
    root finder) is only good to about 1e-9, while special.stdtr is good to
    1e-15, so a few Newton steps on stdtr make it exact to double precision.
    """
    q = stats.t.ppf(1 - alpha / 2, df)
    for _ in range(4):
        step = (special.stdtr(df, -q) - alpha / 2) / stats.t.pdf(q, df)
        q += step
        if abs(step) <= 1e-15 * q:
            break
    return q


def fieller(a, b, alpha):
    """(1 - alpha) interval for 100 * (mean b - mean a) / |mean a|."""
    na, nb = len(a), len(b)
    ma, mb = np.mean(a), np.mean(b)
    va, vb = np.var(a, ddof=1), np.var(b, ddof=1)
    if va == 0 and vb == 0:
        c = 0.0 if ma == mb else 100 * (mb - ma) / abs(ma)
        return c, c, math.nan
    vna, vnb = va / na, vb / nb
    df = (vna + vnb) ** 2 / (vna ** 2 / (na - 1) + vnb ** 2 / (nb - 1))
    t = t_quantile(alpha, df)
    # (mb - theta ma)^2 = t^2 (vb/nb + theta^2 va/na), solved for theta
    a2 = ma * ma - t * t * vna
    a1 = ma * mb
    a0 = mb * mb - t * t * vnb
    if ma == 0 or a2 <= 0:
        return -math.inf, math.inf, df
    # a1^2 - a2 a0, expanded so that it does not cancel to below zero
    disc = t * t * (ma * ma * vnb + mb * mb * vna - t * t * vna * vnb)
    r1 = (a1 - math.sqrt(disc)) / a2
    r2 = (a1 + math.sqrt(disc)) / a2
    lo, hi = 100 * (r1 - 1), 100 * (r2 - 1)
    if ma < 0:
        lo, hi = -hi, -lo
    return lo, hi, df


def mw_is_exact(a, b):
    # SciPy 1.10's _mwu_choose_method: asymptotic when both sides have
    # more than 8 values or when there is any tie; exact otherwise
    if len(a) > 8 and len(b) > 8:
        return 0
    xy = np.concatenate([a, b])
    return 0 if len(np.unique(xy)) != len(xy) else 1


def one(alpha, a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    out = {}
    out["mean_a"] = np.mean(a)
    out["std_a"] = np.std(a, ddof=1) if len(a) > 1 else math.nan
    out["median_a"] = np.median(a)
    out["min_a"] = np.min(a)
    out["max_a"] = np.max(a)
    out["mean_b"] = np.mean(b)
    out["std_b"] = np.std(b, ddof=1) if len(b) > 1 else math.nan
    out["median_b"] = np.median(b)
    out["welch_p"] = stats.ttest_ind(a, b, equal_var=False).pvalue
    out["mw_p"] = stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
    out["mw_exact"] = mw_is_exact(a, b)
    out["ci_lo"], out["ci_hi"], out["df"] = fieller(a, b, alpha)
    out["cv_a"] = 100 * out["std_a"] / abs(out["mean_a"])
    out["jain_a"] = jain(a)
    out["minmax_a"] = np.min(a) / np.max(a)
    return " ".join(repr(float(out[f])) for f in FIELDS)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: stats-reference.py CASES\n")
        return 2
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    print("# scipy %s numpy %s fields %s" % (scipy.__version__,
          np.__version__, " ".join(FIELDS)))
    with open(sys.argv[1]) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            cid, alpha, na, nb = w[0], float(w[1]), int(w[2]), int(w[3])
            v = [float(x) for x in w[4:]]
            if len(v) != na + nb:
                sys.stderr.write("case %s: %d values, want %d\n" %
                                 (cid, len(v), na + nb))
                return 1
            print(cid, one(alpha, v[:na], v[na:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
