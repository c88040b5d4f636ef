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

from benchverdict.tuning.curves import TuningCurve, default_budgets
from benchverdict.tuning.estimators import (
    _check_ks,
    _check_objective,
    _sorted_scores,
    estimator_weights,
    expected_max,
)

__all__ = ["bootstrap_band"]


def _weight_matrix(n: int, ks: np.ndarray, estimator: str) -> np.ndarray:
    """Dense (K, n) weights on the sorted scores (nan rows where undefined)."""
    return estimator_weights(n, ks, estimator)


def bootstrap_band(
    scores,
    ks=None,
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
    ks : array_like of int, optional
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
    _check_objective(objective)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")
    if int(n_resamples) < 10:
        raise ValueError(f"n_resamples must be at least 10, got {n_resamples}.")
    y = _sorted_scores(scores)
    n = y.size
    ks = default_budgets(n) if ks is None else _check_ks(ks, integer=True)
    rng = np.random.default_rng(seed)
    sign = 1.0 if objective == "maximize" else -1.0
    base = np.sort(sign * y)
    weights = _weight_matrix(n, ks, estimator)
    defined = ~np.isnan(weights[:, 0])
    weights = weights[defined]
    estimates = np.empty((int(n_resamples), int(defined.sum())))
    chunk = max(1, (1 << 22) // max(n, 1))
    for start in range(0, int(n_resamples), chunk):
        stop = min(start + chunk, int(n_resamples))
        resamples = np.sort(base[rng.integers(0, n, size=(stop - start, n))], axis=1)
        estimates[start:stop] = resamples @ weights.T
    alpha = 1.0 - confidence
    lo = np.full(ks.size, np.nan)
    hi = np.full(ks.size, np.nan)
    if estimates.shape[1]:
        lo[defined], hi[defined] = np.quantile(estimates, [alpha / 2, 1 - alpha / 2], axis=0)
    if sign < 0:
        lo, hi = -hi, -lo
    point = expected_max(y, ks, estimator, objective)
    return TuningCurve(
        k=ks, point=point, lower=lo, upper=hi, kind="mean", q=None, estimator=estimator,
        band="bootstrap", confidence=float(confidence), simultaneous=False,
        objective=objective, n=n, a=-np.inf, b=np.inf, scores=y, cdf=None, name=name,
        notes=("percentile bootstrap: pointwise only, and it under-covers at large k",),
    )
