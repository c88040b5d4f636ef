"""Quantiles of the studentized range, cached.

Tukey's HSD and the Nemenyi test need the ``1 - alpha`` quantile of the
studentized range for ``k`` means and ``df`` degrees of freedom. scipy
computes it by root-finding over a numerical integral (about 0.15 s per
call with finite ``df``), and a report asks for the same ``(probability, k, df)``
for every pair of algorithms, so the values are cached. Each is found by a
secant search that starts from the asymptotic quantile (about 2.5x fewer
evaluations of the cdf than scipy's bracketing ``ppf``; the same root to
the cdf's precision).

Satterthwaite degrees of freedom of a balanced design agree to many digits
but not exactly (e.g. 570.0000004 and 570.0000007), so ``df`` is rounded to
8 significant digits before the look-up. The quantile's derivative in
``df`` is below 1e-3 for ``df >= 2``, so this changes it by less than 1e-8
relative: far below any test tolerance or reported digit.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize, stats


@functools.lru_cache(maxsize=4096)
def _quantile(probability: float, k: int, df: float) -> float:
    if not np.isfinite(df) or df < 2:
        return float(stats.studentized_range.ppf(probability, k, df))
    # scipy's ppf brackets and bisects the cdf (about 14 evaluations of a double integral).
    # The quantile at df is close to the asymptotic one scaled by about (1 + 2/df), so a
    # secant search from there needs about 6; its root is checked, and scipy's ppf answers
    # whenever the search does not land on the same root.
    asymptotic = _quantile(probability, k, float("inf"))
    try:
        root = optimize.newton(lambda q: stats.studentized_range.cdf(q, k, df) - probability,
                               asymptotic * (1.0 + 2.0 / df), tol=1e-13, rtol=1e-14,
                               maxiter=30)
    except (RuntimeError, ArithmeticError):
        root = float("nan")
    if np.isfinite(root) and root > 0 and abs(
            float(stats.studentized_range.cdf(root, k, df)) - probability) < 1e-11:
        return float(root)
    return float(stats.studentized_range.ppf(probability, k, df))


def _rounded(df: float) -> float:
    """``df`` to 8 significant digits (inf stays inf)."""
    return df if not np.isfinite(df) else float(f"{df:.8g}")


def studentized_range_quantile(probability: float, k: int, df) -> np.ndarray | float:
    """The ``probability`` quantile of the studentized range for ``k`` means and ``df`` df.

    ``df`` may be an array (one value per contrast); each distinct value is
    computed once per process. ``df = inf`` gives the asymptotic (normal)
    range used by Nemenyi's test.

    Examples
    --------
    >>> round(studentized_range_quantile(0.95, 3, float("inf")), 4)
    3.3145
    >>> studentized_range_quantile(0.95, 3, [20.0, 20.0]).shape
    (2,)
    """
    if np.ndim(df) == 0:
        return _quantile(float(probability), int(k), _rounded(float(df)))
    dfs = np.vectorize(_rounded, otypes=[float])(np.asarray(df, dtype=float))
    uniq, inverse = np.unique(dfs, return_inverse=True)
    values = np.array([_quantile(float(probability), int(k), float(d)) for d in uniq])
    return values[inverse].reshape(dfs.shape)
