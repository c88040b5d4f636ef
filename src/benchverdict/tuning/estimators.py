"""Point estimates of tuning curves from ``n`` IID random-search scores.

A tuning curve says how good the best of ``k`` random-search configurations
is, as a function of the budget ``k``. Write :math:`Y_{(1)} \\le \\dots \\le
Y_{(n)}` for the sorted scores (larger is better; for ``objective="minimize"``
everything is mirrored).

Expected maximum (mean tuning curve), :math:`E[\\max(Y_1, \\dots, Y_k)]`:

``"v"`` (Dodge et al. 2019)
    The plug-in / V-statistic estimate: the expected maximum of ``k`` draws
    *with replacement* from the sample,
    :math:`\\sum_i Y_{(i)} [(i/n)^k - ((i-1)/n)^k]`. Defined for real
    ``k >= 1``; biased low for ``k > 1``.
``"u"`` (Tang et al. 2020)
    The U-statistic: the average maximum over all ``C(n, k)`` subsets,
    :math:`\\sum_i Y_{(i)} \\binom{i-1}{k-1} / \\binom{n}{k}`. The unique
    unbiased estimator; integer ``k <= n`` only (``nan`` beyond ``n``, where
    no unbiased estimator exists).
``"w"`` (Dodge et al. 2021)
    The multiset estimate: the average maximum over all ``C(n+k-1, k)``
    multisets of size ``k``,
    :math:`\\sum_i Y_{(i)} \\binom{i+k-2}{k-1} / \\binom{n+k-1}{k}`. Integer
    ``k >= 1``. For every sample W <= V <= U (for maximisation): W has the
    largest downward bias and the smallest variance (Dodge et al. 2021).

Quantile tuning curves (Lourie, Cho & He 2024): with performance
:math:`Z = Y` (maximize) or :math:`Z = -Y` (minimize), the ``q``-quantile of
the best performance of ``k`` draws is :math:`F_Z^{-1}(q^{1/k})`; the
*median tuning curve* is ``q = 0.5``. The estimate plugs in the empirical
CDF of the performance (quantile :math:`\\inf\\{z: \\hat F_Z(z) \\ge p\\}`),
for real ``k > 0``, and maps back to the score: everything is computed in the
direction "larger is better". So negating every score and flipping the
objective negates the curve exactly, and ``q`` means the same in both
directions (``q = 0.9``: an optimistic curve, reached by only 10% of
searches). Two consequences for minimisation, where opda 0.8.0 applies its
quantile to the score instead: at levels where ``n p`` is an integer (e.g.
the median of an even sample at ``k = 1``) our estimate is the *worse* of the
two candidate draws in both directions, where opda takes the lower score;
and our ``q``-curve for a loss is opda's ``(1 - q)``-curve. The two agree
everywhere else, and always for maximisation.

Numerics. All weights are computed in log space. For U and W the binomial
ratios are written as differences
:math:`\\log\\Gamma(x + d) - \\log\\Gamma(x) - [\\log\\Gamma(X + d) - \\log\\Gamma(X)]`
and evaluated with Stirling's series arranged so that the large terms
cancel analytically (only :math:`\\log(1+\\cdot)` terms and the small
Stirling corrections remain), so the weights keep a relative error near
``1e-13`` for ``n`` up to ``10**6`` and beyond; the weights are then
renormalised to sum to one. Ties need no special care (tied scores are
equal, so any order among them gives the same sum). Cost: one sort,
``O(n log n)``, then ``O(n)`` per budget; memory ``O(n + K)`` (one budget's
weights at a time).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from benchverdict.results import check_objective
from benchverdict.stats.samples import sorted_finite_scores

__all__ = ["ESTIMATORS", "estimator_weights", "expected_max", "quantile_tuning_curve"]

#: Expected-maximum estimators :func:`expected_max` accepts.
ESTIMATORS = ("v", "u", "w")
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def check_budgets(budgets, *, integer: bool, minimum: float = 1.0) -> np.ndarray:
    """``budgets`` as a 1-D float array, checked finite, ``>= minimum`` (and integer)."""
    budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
    if budgets.ndim != 1:
        raise ValueError(f"budgets must be a scalar or 1-D, got shape {budgets.shape}.")
    if np.any(~np.isfinite(budgets)) or np.any(budgets < minimum):
        raise ValueError(f"budgets must be finite and >= {minimum:g}, got {budgets[:10]}.")
    if integer and np.any(budgets != np.round(budgets)):
        raise ValueError(f"this estimator needs integer budgets, got "
                         f"{budgets[budgets != np.round(budgets)][:5]}.")
    return budgets


def _stirlerr(x: np.ndarray) -> np.ndarray:
    """Stirling's remainder: log Gamma(x) - [(x - 1/2) log x - x + log(2 pi) / 2], x >= 1."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    big = x >= 30.0
    xb = x[big]
    inv = 1.0 / xb
    inv2 = inv * inv
    # Stirling's series; the first omitted term is below 1e-17 for x >= 30.
    out[big] = inv * (
        1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 * (1.0 / 1680 - inv2 / 1188)))
    )
    xs = x[~big]
    out[~big] = special.gammaln(xs) - ((xs - 0.5) * np.log(xs) - xs + _HALF_LOG_2PI)
    return out


def _log_gamma_ratio_difference(x, big_x, d) -> np.ndarray:
    """[log G(x + d) - log G(x)] - [log G(X + d) - log G(X)] without cancellation.

    With Stirling's formula the difference is
    (x - 1/2) log1p(d/x) - (X - 1/2) log1p(d/X) + d log((x + d) / (X + d))
    + stirlerr(x + d) - stirlerr(X + d) - stirlerr(x) + stirlerr(X);
    every term is small or computed from a ratio, so nothing of size
    ``d log X`` is subtracted. Requires x, X >= 1 and d >= 0.
    """
    x = np.asarray(x, dtype=float)
    big_x = float(big_x)
    d = float(d)
    if d == 0.0:
        return np.zeros_like(x)
    main = (x - 0.5) * np.log1p(d / x) - (big_x - 0.5) * math.log1p(d / big_x)
    main = main + d * np.log1p((x - big_x) / (big_x + d))
    corr = _stirlerr(x + d) - _stirlerr(x) - (
        _stirlerr(np.array([big_x + d]))[0] - _stirlerr(np.array([big_x]))[0]
    )
    return main + corr


#: Weights below exp(-_LOG_CUTOFF) times the largest are skipped (they underflow).
_LOG_CUTOFF = 800.0


def _first_useful(n: int, k: float, shift: float = 0.0) -> int:
    """1-based index below which every weight is below exp(-800) of the top one.

    All three estimators' weights decay at least like ((i + shift) / (n + shift))^(k - 1)
    away from the top, so lower indices contribute nothing in double precision.
    """
    if k <= 1.0:
        return 1
    ratio = math.exp(-_LOG_CUTOFF / (k - 1.0))
    return max(1, math.floor(ratio * (n + shift) - shift))


def _weight_function(n: int, estimator: str, k_max: float):
    """A function ``k -> (start, weights)`` for budgets up to ``k_max``.

    The estimate at ``k`` is ``weights @ y_sorted[start:]``. Arrays that do not
    depend on ``k`` (logarithms, Stirling remainders) are computed once here,
    so each budget costs two or three transcendental evaluations per score.
    """
    i = np.arange(1, n + 1, dtype=float)
    if estimator == "v":
        log_ratio = np.log(i / n)
        with np.errstate(divide="ignore"):
            log_step = np.log1p(-1.0 / i)  # -inf at i = 1

        def v(k: float) -> tuple[int, np.ndarray]:
            first = _first_useful(n, k)
            # (i/n)^k - ((i-1)/n)^k = (i/n)^k (1 - (1 - 1/i)^k), computed stably.
            w = np.exp(k * log_ratio[first - 1:]) * -np.expm1(k * log_step[first - 1:])
            return first - 1, w / w.sum()

        return v
    if estimator not in ("u", "w"):
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}.")
    top = n + (int(k_max) if estimator == "w" else 0)
    stirling = _stirlerr(np.arange(1, top + 1, dtype=float))  # stirling[m - 1] = stirlerr(m)
    log_ratio = np.log(i / n)

    if estimator == "u":

        def u(k: float) -> tuple[int, np.ndarray]:
            # w_i = C(i-1, k-1) / C(n, k), i = k..n: with x = i-k+1, X = n-k+1, d = k-1,
            # log w_i = D(x, X, d) + log k - log n (see _log_gamma_ratio_difference),
            # where d log((x + d) / (X + d)) = d log(i / n).
            k_int = int(k)
            if k_int > n:
                return n, np.empty(0)
            first = max(k_int, _first_useful(n, k_int))
            d = k_int - 1.0
            x = i[first - 1:] - d
            big_x = n - d
            log_w = (x - 0.5) * np.log1p(d / x) - (big_x - 0.5) * math.log1p(d / big_x)
            log_w += d * log_ratio[first - 1:]
            log_w += stirling[first - 1:] - stirling[first - 1 - k_int + 1: n - k_int + 1]
            log_w -= stirling[n - 1] - stirling[n - k_int]
            w = np.exp(log_w + (math.log(k_int) - math.log(n)))
            return first - 1, w / w.sum()

        return u

    def w_est(k: float) -> tuple[int, np.ndarray]:
        # w_i = C(i+k-2, k-1) / C(n+k-1, k), i = 1..n: with x = i, X = n, d = k-1,
        # log w_i = D(x, X, d) + log k - log(n + k - 1).
        k_int = int(k)
        d = k_int - 1.0
        first = _first_useful(n, k_int, shift=d)
        x = i[first - 1:]
        log_w = (x - 0.5) * np.log1p(d / x) - (n - 0.5) * math.log1p(d / n)
        log_w += d * np.log1p((x - n) / (n + d))
        shift = k_int - 1
        log_w += stirling[first - 1 + shift: n + shift] - stirling[first - 1: n]
        log_w -= stirling[n - 1 + shift] - stirling[n - 1]
        w = np.exp(log_w + (math.log(k_int) - math.log(n + d)))
        return first - 1, w / w.sum()

    return w_est


def expected_max(scores, budgets, estimator: str = "v", objective: str = "maximize") -> np.ndarray:
    """Estimate the expected best score of ``k`` random-search draws, for each ``k``.

    Parameters
    ----------
    scores : array_like of float
        ``n`` IID scores (one per random-search configuration).
    budgets : float or array_like
        Budgets ``k``. ``"v"``: real ``k >= 1``; ``"u"``: integers (``nan`` for
        ``k > n``); ``"w"``: integers ``>= 1``.
    estimator : {"v", "u", "w"}
        See the module docstring (Dodge et al. 2019; Tang et al. 2020;
        Dodge et al. 2021).
    objective : {"maximize", "minimize"}
        For ``"minimize"`` the expected *minimum* is estimated.

    Returns
    -------
    numpy.ndarray
        One estimate per budget.

    Notes
    -----
    Exact (relative weight error about ``1e-13``) for ``n`` up to ``10**6``
    with ties; ``O(n log n + K n)`` time and ``O(n + K)`` memory. opda 0.8.0's
    U estimate overflows (``nan``) above ``n`` of about 1,030.

    Examples
    --------
    >>> y = [0.1, 0.5, 0.4, 0.9]
    >>> expected_max(y, [1, 2, 4], "u").round(4)
    array([0.475 , 0.6833, 0.9   ])
    >>> expected_max(y, [1, 2], "v").round(4)
    array([0.475 , 0.6312])
    >>> expected_max(y, [1], "u", objective="minimize")
    array([0.475])
    """
    estimator = str(estimator).lower()
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}.")
    check_objective(objective)
    y = sorted_finite_scores(scores)
    budgets = check_budgets(budgets, integer=estimator in ("u", "w"))
    if objective == "minimize":
        y = -y[::-1]
    n = y.size
    out = np.empty(budgets.size)
    weights = _weight_function(n, estimator, float(budgets.max()))
    for j, k in enumerate(budgets):
        start, w = weights(float(k))
        out[j] = math.nan if w.size == 0 else float(w @ y[start:])
    return -out if objective == "minimize" else out


def estimator_weights(n: int, budgets, estimator: str = "v") -> np.ndarray:
    """The (K, n) matrix ``W`` with ``expected_max(y, budgets, estimator) == W @ sort(y)``.

    Every estimator is linear in the sorted sample, so simulations of many
    samples of the same size can apply ``W`` to all of them at once. Rows are
    ``nan`` where the estimator is undefined (U beyond ``n``).

    Examples
    --------
    >>> y = np.array([0.3, 0.1, 0.7])
    >>> w = estimator_weights(3, [1, 2], "u")
    >>> bool(np.allclose(w @ np.sort(y), expected_max(y, [1, 2], "u")))
    True
    """
    estimator = str(estimator).lower()
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}.")
    budgets = check_budgets(budgets, integer=estimator in ("u", "w"))
    out = np.zeros((budgets.size, int(n)))
    weights = _weight_function(int(n), estimator, float(budgets.max()))
    for j, k in enumerate(budgets):
        start, w = weights(float(k))
        if w.size == 0:
            out[j] = np.nan
        else:
            out[j, start:] = w
    return out


def quantile_levels(budgets, q: float = 0.5, objective: str = "maximize") -> np.ndarray:
    """The level of the score's CDF at the ``q``-quantile of the best performance of ``k`` draws.

    ``q ** (1 / k)`` for maximisation; for minimisation the best of ``k``
    losses reaches its performance ``q``-quantile at the score CDF's level
    ``1 - q ** (1 / k)`` (computed with ``expm1`` for precision). The
    estimates themselves are computed on the performance scale, where the
    level is ``q ** (1 / k)`` in both directions (see the module docstring).

    Examples
    --------
    >>> quantile_levels([1, 2], 0.5).round(4)
    array([0.5   , 0.7071])
    >>> quantile_levels([1, 2], 0.5, "minimize").round(4)
    array([0.5   , 0.2929])
    """
    check_objective(objective)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q}.")
    budgets = check_budgets(budgets, integer=False, minimum=np.finfo(float).tiny)
    if objective == "maximize":
        return np.exp(math.log(q) / budgets)
    return -np.expm1(math.log(q) / budgets)


def quantile_tuning_curve(scores, budgets, q: float = 0.5,
                          objective: str = "maximize") -> np.ndarray:
    """Plug-in estimate of the ``q``-quantile of the best of ``k`` draws (median: ``q = 0.5``).

    Uses the empirical quantile of the performance,
    :math:`\\inf\\{z : \\hat F_Z(z) \\ge q^{1/k}\\}`, mapped back to the score;
    real ``k > 0`` allowed. Exactly equivariant: negating the scores and
    flipping the objective negates the curve.

    Examples
    --------
    >>> quantile_tuning_curve([0.1, 0.5, 0.4, 0.9], [1, 2, 3])
    array([0.4, 0.5, 0.9])
    >>> -quantile_tuning_curve([-0.1, -0.5, -0.4, -0.9], [1, 2, 3], objective="minimize")
    array([0.4, 0.5, 0.9])
    """
    if check_objective(objective) == "minimize":
        return -quantile_tuning_curve(-np.asarray(scores, dtype=float), budgets, q, "maximize")
    y = sorted_finite_scores(scores)
    levels = quantile_levels(budgets, q, objective)
    n = y.size
    # Smallest i with i / n >= p (float noise must not skip a level met exactly).
    idx = np.ceil(levels * n - 1e-9).astype(np.int64)
    idx = np.clip(idx, 1, n)
    return y[idx - 1]
