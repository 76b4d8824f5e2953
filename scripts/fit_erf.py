#!/usr/bin/env python3
"""Prints the coefficients of lib/kernels/vector_math.h's erf: near-minimax polynomials (least
squares reweighted by Lawson's rule toward equal ripple) for erf(x) = x + x * P(x^2) where
|x| < 0.921875, and erf(x) = 1 - exp(Q(|x|)) beyond, up to 4 (where erf is 1 in float32), each
error weighted to be relative to erf's value. numpy only.

Usage: scripts/fit_erf.py
"""
import math

import numpy as np

SPLIT = 0.921875
TOP = 4.0


def lawson(xs, fx, degree, weight, iterations=60):
    a = np.vander(xs, degree + 1, increasing=True)
    lawson_weight = np.ones(len(xs))
    for _ in range(iterations):
        w = np.sqrt(lawson_weight) * weight
        coefficients, *_ = np.linalg.lstsq(a * w[:, None], fx * w, rcond=None)
        error = np.abs(a @ coefficients - fx) * weight
        lawson_weight = lawson_weight * error
        lawson_weight /= lawson_weight.sum()
    return coefficients, error.max()


def chebyshev_nodes(lo, hi, n=4000):
    return np.cos(np.linspace(0.0, math.pi, n)) * 0.5 * (hi - lo) + 0.5 * (hi + lo)


def main():
    s = chebyshev_nodes(0.0, SPLIT * SPLIT)
    ratio = np.array([math.erf(math.sqrt(v)) / math.sqrt(v) if v > 0 else 2 / math.sqrt(math.pi)
                      for v in s])
    p, p_error = lawson(s, ratio - 1.0, 6, 1.0 / ratio)  # erf(x) / x - 1 = P(x^2)
    t = chebyshev_nodes(SPLIT, TOP)
    log_erfc = np.array([math.log(math.erfc(v)) for v in t])
    q, q_error = lawson(t, log_erfc, 7, np.array([math.erfc(v) / math.erf(v) for v in t]))
    print(f"# P, relative error {p_error:.2g}")
    print(", ".join(f"{np.float32(c)!r}f" for c in p))
    print(f"# Q, relative error of erf {q_error:.2g}")
    print(", ".join(f"{np.float32(c)!r}f" for c in q))


if __name__ == "__main__":
    main()
