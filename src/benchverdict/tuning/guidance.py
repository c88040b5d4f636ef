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
with :math:`c_n` the exact critical value. The bands used here are
symmetric, so the same budgets bound the lower band of a minimisation
curve. Lourie et al. report that about ``6.25 k`` samples bound the median
curve up to ``k`` at 80% confidence with whole-CDF bands
(``calibrate="cdf"``); :func:`sample_size` computes the exact number, and
with this library's curve-calibrated bands (the default) fewer samples are
needed (see ``analyses/tuning_lourie_fig9_sample_size.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from benchverdict.stats.cdf_bands import order_statistic_bounds

__all__ = ["budget_table", "largest_budget", "sample_size"]


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
        Number of random-search trials.
    confidence : float
    band : str
        CDF-band method (see :func:`benchverdict.stats.cdf_band`).
    q : float
        The quantile of the tuning curve (0.5: median).
    calibrate : {"curve", "cdf"}
        The band calibration (see :func:`~benchverdict.tuning.tuning_curve`):
        ``"curve"`` for this library's exact curve bands over all budgets
        ``k >= 1``, ``"cdf"`` for whole-CDF bands as in Lourie et al. and
        opda.

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
    """
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q}.")
    if calibrate not in ("curve", "cdf"):
        raise ValueError(f"calibrate must be 'curve' or 'cdf', got {calibrate!r}.")
    levels = (q, 1.0) if calibrate == "curve" else (0.0, 1.0)
    lower, _, _ = order_statistic_bounds(int(n), confidence, band, levels)
    top = float(lower[-1])
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

    Found by doubling then bisection on ``n`` with the exact
    :func:`largest_budget` (which increases with ``n``).

    Examples
    --------
    >>> n = sample_size(8)
    >>> largest_budget(n) >= 8 > largest_budget(n - 1)
    True
    """
    if not k >= 1:
        raise ValueError(f"k must be at least 1, got {k}.")
    lo, hi = 0, max(2, math.ceil(4 * k))
    while largest_budget(hi, confidence, band, q, calibrate) < k:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if largest_budget(mid, confidence, band, q, calibrate) >= k:
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
