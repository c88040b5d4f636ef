"""Percentile bootstrap bands for expected-maximum tuning curves: the baseline that fails.

Dodge et al. (2019) and Tang et al. (2020) drew percentile bootstrap bands
around the V and U estimates. Tang et al. (Fig. 4) and Lourie et al.
(Fig. 4) show their pointwise coverage collapsing as the budget ``k``
approaches the sample size: a resample never contains a score above the
sample maximum, so at large ``k`` the whole bootstrap distribution sits
below the true expected maximum. This module reproduces that baseline so
analyses can show the failure; it is not recommended for inference (use
:func:`benchverdict.tuning.tuning_curve` with a simultaneous band).
"""

from __future__ import annotations

import numpy as np

from benchverdict.results import check_objective
from benchverdict.stats.samples import sorted_finite_scores
from benchverdict.tuning.curves import TuningCurve, default_budgets
from benchverdict.tuning.estimators import check_budgets, estimator_weights, expected_max

__all__ = ["bootstrap_band"]


def bootstrap_band(
    scores,
    budgets=None,
    *,
    estimator: str = "v",
    confidence: float = 0.8,
    n_resamples: int = 2000,
    objective: str = "maximize",
    seed: int | np.random.Generator | None = None,
    name: str | None = None,
) -> TuningCurve:
    """Pointwise percentile bootstrap band around the V or U expected-maximum estimate.

    Parameters
    ----------
    scores : array_like of float
        IID random-search scores.
    budgets : array_like of int, optional
        Budgets (default 1..n).
    estimator : {"v", "u"}
    confidence : float
        Pointwise coverage aimed at: the band is the
        ``[(1 - confidence) / 2, (1 + confidence) / 2]`` percentiles of the
        bootstrap distribution at each ``k``.
    n_resamples : int
    objective : {"maximize", "minimize"}
    seed : int or numpy.random.Generator, optional
    name : str, optional

    Returns
    -------
    TuningCurve
        With ``band="bootstrap"`` and ``simultaneous=False``.

    Examples
    --------
    >>> curve = bootstrap_band(np.arange(20.0), [1, 20], estimator="u", seed=0)
    >>> bool(curve.upper[-1] <= 19.0)  # never above the sample maximum
    True
    """
    if estimator not in ("v", "u"):
        raise ValueError(f"estimator must be 'v' or 'u' for bootstrap bands, got {estimator!r}.")
    check_objective(objective)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")
    if int(n_resamples) < 10:
        raise ValueError(f"n_resamples must be at least 10, got {n_resamples}.")
    y = sorted_finite_scores(scores)
    n = y.size
    budgets = default_budgets(n) if budgets is None else check_budgets(budgets, integer=True)
    rng = np.random.default_rng(seed)
    sign = 1.0 if objective == "maximize" else -1.0
    base = np.sort(sign * y)
    # Dense (K, n) weights on the sorted scores (nan rows where undefined).
    weights = estimator_weights(n, budgets, estimator)
    defined = ~np.isnan(weights[:, 0])
    weights = weights[defined]
    estimates = np.empty((int(n_resamples), int(defined.sum())))
    chunk = max(1, (1 << 22) // max(n, 1))
    for start in range(0, int(n_resamples), chunk):
        stop = min(start + chunk, int(n_resamples))
        resamples = np.sort(base[rng.integers(0, n, size=(stop - start, n))], axis=1)
        estimates[start:stop] = resamples @ weights.T
    tail = (1.0 - confidence) / 2
    lo = np.full(budgets.size, np.nan)
    hi = np.full(budgets.size, np.nan)
    if estimates.shape[1]:
        lo[defined], hi[defined] = np.quantile(estimates, [tail, 1 - tail], axis=0)
    if sign < 0:
        lo, hi = -hi, -lo
    point = expected_max(y, budgets, estimator, objective)
    return TuningCurve(
        k=budgets, point=point, lower=lo, upper=hi, kind="mean", q=None, estimator=estimator,
        band="bootstrap", confidence=float(confidence), simultaneous=False,
        objective=objective, n=n, low=-np.inf, high=np.inf, scores=y, cdf=None, name=name,
        notes=("percentile bootstrap: pointwise only, and it under-covers at large k",),
    )
