#!/usr/bin/python3
# Reference values for tests/unit/test-compare-blocked.c, computed with
# NumPy and SciPy by a different road than stats/compare.c: an explicit
# design matrix (the side, and one column per machine) solved by least
# squares, the covariance of the side effect and of mean a taken from the
# pseudo-inverse, Fieller's interval from its quadratic, scipy.stats.t for
# p and (polished as in stats-reference.py) the quantile. Reads the cases, one per line:
#     ID ALPHA NA NB a_1 .. a_NA ma_1 .. ma_NA b_1 .. b_NB mb_1 .. mb_NB
# and prints for each: ID BLOCKS CHANGE_PCT T DF P CI_LO CI_HI, with
# BLOCKS 0 (and nan for the rest) where the comparison is not blocked:
# one machine, or no machine that ran both sides.
import importlib.util
import math
import os
import sys

import numpy as np
from scipy import stats

# t_quantile: scipy's t.ppf polished to double precision (1e-9 alone)
_spec = importlib.util.spec_from_file_location(
    "stats_reference", os.path.join(os.path.dirname(__file__),
                                    "stats-reference.py"))
_ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ref)


def fieller(tau, ma, vtt, vaa, vta, tq):
    q = tq * tq
    A = ma * ma - q * vaa
    B = tau * ma - q * vta
    if not A > 0:
        return -math.inf, math.inf
    # B^2 - A C with C = tau^2 - q vtt, multiplied out: tau^2 ma^2 cancels
    D = max(0.0, q * (ma * ma * vtt - 2 * tau * ma * vta + tau * tau * vaa)
            + q * q * (vta * vta - vaa * vtt))
    lo, hi = (B - math.sqrt(D)) / A, (B + math.sqrt(D)) / A
    if ma < 0:
        return -hi * 100, -lo * 100
    return lo * 100, hi * 100


def one(alpha, a, ma, b, mb):
    machines = sorted(set(ma) | set(mb))
    both = [m for m in machines if m in ma and m in mb]
    n = len(a) + len(b)
    if len(machines) < 2 or not both or n < len(machines) + 2:
        return None
    y = np.array(a + b, dtype=float)
    X = np.zeros((n, 1 + len(machines)))
    X[len(a):, 0] = 1
    for i, m in enumerate(ma + mb):
        X[i, 1 + machines.index(m)] = 1
    beta, _, rank, _ = np.linalg.lstsq(X, y, rcond=None)
    assert rank == X.shape[1]
    tau = beta[0]
    resid = y - X @ beta
    df = n - rank
    s2 = float(resid @ resid) / df
    P = np.linalg.pinv(X)          # tau = P[0] . y
    g = np.zeros(n)
    g[:len(a)] = 1.0 / len(a)      # mean a = g . y
    vtt = s2 * float(P[0] @ P[0])
    vaa = s2 * float(g @ g)
    vta = s2 * float(P[0] @ g)
    mean_a = float(np.mean(a))
    change = 0.0 if tau == 0 else 100 * tau / abs(mean_a)
    t = tau / math.sqrt(vtt)
    p = 2 * stats.t.sf(abs(t), df)
    tq = _ref.t_quantile(alpha, df)
    lo, hi = fieller(tau, mean_a, vtt, vaa, vta, tq)
    return len(both), change, t, df, p, lo, hi


def main():
    for line in open(sys.argv[1]):
        f = line.split()
        cid, alpha, na, nb = int(f[0]), float(f[1]), int(f[2]), int(f[3])
        x = f[4:]
        a = [float(v) for v in x[:na]]
        ma = [int(v) for v in x[na:2 * na]]
        b = [float(v) for v in x[2 * na:2 * na + nb]]
        mb = [int(v) for v in x[2 * na + nb:2 * na + 2 * nb]]
        r = one(alpha, a, ma, b, mb)
        if r is None:
            print(cid, 0, *(["nan"] * 6))
        else:
            print(cid, r[0], *[repr(float(v)) for v in r[1:]])


if __name__ == "__main__":
    main()
