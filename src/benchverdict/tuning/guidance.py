"""Sample-size guidance: the budgets that ``n`` random-search trials can vouch for.

The upper band of a (maximisation) quantile tuning curve at budget ``k`` is
the lower CDF band's quantile at level :math:`p_k = q^{1/k}`. Past the
largest order statistic the lower CDF band is :math:`l_n < 1` until the
support bound ``b``, so the upper band is finite (non-trivial, below ``b``)
exactly when :math:`p_k \\le l_n`, i.e.

.. math::

   k \\le k_{\\max}(n) = \\frac{\\log q}{\\log l_n}.

For the LD highest-density band, :math:`U_{(n)} \\sim` Beta(n, 1) and its
highest-density interval of coverage :math:`c_n` is
:math:`[(1-c_n)^{1/n}, 1]`, so :math:`k_{\\max} = n \\log q / \\log(1-c_n)`,
with :math:`c_n` the exact critical value. Curves are computed on the
performance (larger is better) for either objective, so the same budgets
bound the curves of a score to minimise. Lourie et al. report that about
``6.25 k`` samples bound the median curve up to ``k`` at 80% confidence with
whole-CDF bands (``calibrate="cdf"``); :func:`sample_size` computes the
number, and with this library's curve-calibrated bands (the default) fewer
samples are needed (see ``analyses/tuning_lourie_fig9_sample_size.py``).

Cost. Nothing here allocates by the size of a budget or a sample:

* up to ``n = EXACT_MAX_N`` (4096) :math:`l_n` is computed exactly from the
  band (cached; at most a fraction of a second);
* beyond, :math:`l_n` comes from a two-point extrapolation anchored at the
  exact values for ``n = 1024`` and ``4096``: for the LD bands,
  :math:`\\log l_n^n` (the log tail probability of the top order statistic's
  interval) is linear in :math:`\\log\\log n`; for KS,
  :math:`\\sqrt n (1 - l_n)` is linear in :math:`1/\\sqrt n`; the DKW band
  is in closed form for every ``n``. Both extrapolations err on the
  conservative side (a slightly smaller :math:`k_{\\max}`, a slightly
  larger sample size); against the exact values at ``n = 16384`` and
  ``65536`` their relative error in :math:`k_{\\max}` is below 0.4% for
  every band, calibration and ``q`` in {0.5, 0.9} (0.5% is tested);
* :func:`sample_size` bisects over ``n`` with these O(1) evaluations, so any
  real budget ``k >= 1`` (``1e9`` included) costs a few dozen evaluations.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
import pandas as pd

from benchverdict.stats.cdf_bands import METHODS, dkw_epsilon, order_statistic_bounds

__all__ = ["EXACT_MAX_N", "budget_table", "largest_budget", "sample_size"]

#: Largest sample size for which the band's top bound is computed exactly.
EXACT_MAX_N = 4096
#: The smaller anchor of the extrapolation beyond EXACT_MAX_N.
_ANCHOR_N = 1024


def _check_options(confidence: float, band: str, q: float, calibrate: str) -> None:
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q}.")
    if calibrate not in ("budgets", "curve", "cdf"):
        raise ValueError(f"calibrate must be 'budgets', 'curve' or 'cdf', got {calibrate!r}.")
    if band not in METHODS:
        raise ValueError(f"band must be one of {METHODS}, got {band!r}.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not math.isfinite(n) or (
            n != math.floor(n)) or n < 1:
        raise ValueError(f"n must be a whole number of random-search trials >= 1, got {n!r}.")
    return int(n)


@functools.lru_cache(maxsize=512)
def _exact_top(n: int, confidence: float, band: str, levels: tuple[float, float]) -> float:
    """The band's exact lower bound on F at the largest of n draws, l_n."""
    lower, _, _ = order_statistic_bounds(n, confidence, band, levels)
    return float(lower[-1])


def _top(n: int, confidence: float, band: str, levels: tuple[float, float]) -> float:
    """l_n for any n: exact up to EXACT_MAX_N, extrapolated beyond (module docstring)."""
    if band == "dkw":
        return max(0.0, 1.0 - dkw_epsilon(n, confidence))
    if n <= EXACT_MAX_N:
        return _exact_top(n, confidence, band, levels)
    n0, n1 = _ANCHOR_N, EXACT_MAX_N
    l0, l1 = _exact_top(n0, confidence, band, levels), _exact_top(n1, confidence, band, levels)
    if band == "ks":
        # sqrt(n) d_n -> a constant like a + b / sqrt(n); d_n = 1 - l_n.
        c0, c1 = math.sqrt(n0) * (1 - l0), math.sqrt(n1) * (1 - l1)
        x0, x1, x = 1 / math.sqrt(n0), 1 / math.sqrt(n1), 1 / math.sqrt(n)
        c = c1 + (c1 - c0) / (x1 - x0) * (x - x1)
        return max(0.0, 1.0 - c / math.sqrt(n))
    # LD: log tau_n = n log l_n, linear in log log n.
    t0, t1 = n0 * math.log(l0), n1 * math.log(l1)
    u0, u1, u = (math.log(math.log(m)) for m in (n0, n1, n))
    log_tau = t1 + (t1 - t0) / (u1 - u0) * (u - u1)
    return math.exp(log_tau / n)


def largest_budget(
    n: int,
    confidence: float = 0.8,
    band: str = "ld_highest_density",
    q: float = 0.5,
    calibrate: str = "curve",
) -> float:
    """The largest budget ``k`` at which ``n`` samples give a non-trivial upper band.

    Parameters
    ----------
    n : int
        Number of random-search trials (any size: beyond
        :data:`EXACT_MAX_N` the band's top bound is extrapolated, see the
        module docstring).
    confidence : float
    band : str
        CDF-band method (see :func:`benchverdict.stats.cdf_band`).
    q : float
        The quantile of the tuning curve (0.5: median).
    calibrate : {"budgets", "curve", "cdf"}
        The band calibration (see :func:`~benchverdict.tuning.tuning_curve`):
        ``"curve"`` for this library's exact curve bands over all budgets
        ``k >= 1``, ``"cdf"`` for whole-CDF bands as in Lourie et al. and
        opda. ``"budgets"`` (bands calibrated at the integer budgets asked
        for, which depend on the grid) is answered as ``"curve"``: those
        bands are at most as wide, so the budget returned is a safe lower
        bound for them.

    Returns
    -------
    float
        :math:`\\log q / \\log l_n` (0 if the band's lower CDF bound at the
        sample maximum is 0). Every real budget up to it is bounded.

    Examples
    --------
    >>> round(largest_budget(48, 0.8, calibrate="cdf"), 2)
    8.15
    >>> round(largest_budget(48, 0.8), 2)
    9.65
    >>> round(largest_budget(10**9) / 10**9, 3)  # extrapolated: no array of size n
    0.115
    """
    _check_options(confidence, band, q, calibrate)
    n = _check_n(n)
    levels = (0.0, 1.0) if calibrate == "cdf" else (q, 1.0)
    top = _top(n, float(confidence), band, levels)
    if top <= 0.0:
        return 0.0
    if top >= 1.0:
        return math.inf
    return math.log(q) / math.log(top)


def sample_size(
    k: float,
    confidence: float = 0.8,
    band: str = "ld_highest_density",
    q: float = 0.5,
    calibrate: str = "curve",
) -> int:
    """The smallest ``n`` whose upper band is non-trivial for every budget up to ``k``.

    ``k`` is a tuning-curve budget: a number of random-search trials, any
    real number ``>= 1`` (fractional budgets are allowed, as in the curves).
    Found by doubling then bisection on ``n`` with :func:`largest_budget`
    (increasing in ``n``); every evaluation costs O(1) beyond
    :data:`EXACT_MAX_N`, so the cost grows like ``log k`` and nothing is
    allocated by the size of ``k``.

    Raises
    ------
    ValueError
        If ``k`` is not a finite real number ``>= 1``.

    Examples
    --------
    >>> n = sample_size(8)
    >>> largest_budget(n) >= 8 > largest_budget(n - 1)
    True
    >>> sample_size(2.5) <= sample_size(3)
    True
    >>> sample_size(1e9) > 1e9
    True
    """
    _check_options(confidence, band, q, calibrate)
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not math.isfinite(k) or k < 1:
        raise ValueError(
            f"k must be a finite budget of at least 1 random-search trial, got {k!r}; a "
            f"tuning-curve budget counts trials, so budgets below 1 have no tuning-curve "
            f"meaning."
        )
    k = float(k)

    def bounded(m: int) -> bool:
        return largest_budget(m, confidence, band, q, calibrate) >= k

    lo, hi = 0, max(2, math.ceil(4 * k))
    while not bounded(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bounded(mid):
            hi = mid
        else:
            lo = mid
    return hi


def budget_table(
    ns,
    confidence: float = 0.8,
    band: str = "ld_highest_density",
    q: float = 0.5,
    calibrate: str = "curve",
) -> pd.DataFrame:
    """For each sample size: the largest bounded budget and the ratio ``n / k_max``.

    Examples
    --------
    >>> budget_table([48, 96], calibrate="cdf")[["n", "k_max"]].round(1)
        n  k_max
    0  48    8.2
    1  96   15.3
    """
    rows = []
    for n in np.atleast_1d(ns):
        k_max = largest_budget(int(n), confidence, band, q, calibrate)
        rows.append(
            {
                "n": int(n),
                "k_max": k_max,
                "k_max_integer": math.floor(k_max + 1e-12),
                "n_per_k": int(n) / k_max if k_max > 0 else math.inf,
                "confidence": confidence,
                "band": band,
                "calibrate": calibrate,
            }
        )
    return pd.DataFrame(rows)
