"""Simultaneous, distribution-free confidence bands for a CDF.

Given ``n`` IID scores :math:`Y_1, \\dots, Y_n` from a continuous CDF
:math:`F`, :func:`cdf_band` returns step functions :math:`L \\le U` with

.. math::

   P\\bigl(L(x) \\le F(x) \\le U(x) \\text{ for all } x\\bigr) \\ge \\text{confidence},

with equality (exact coverage) for the ``ks`` and ``ld_*`` methods. All
methods bound the CDF at the order statistics: with
:math:`U_{(i)} = F(Y_{(i)})` (uniform order statistics for continuous
:math:`F`) and bounds :math:`l_i \\le u_i`, the event
:math:`\\{l_i \\le U_{(i)} \\le u_i\\ \\forall i\\}` implies, for
:math:`N(x) = \\#\\{i: Y_i \\le x\\}`,

.. math::

   l_{N(x)} \\le F(Y_{(N(x))}) \\le F(x) \\le F(Y_{(N(x)+1)}) \\le u_{N(x)+1}

(with :math:`l_0 = 0`, :math:`u_{n+1} = 1`), so
:math:`L(x) = l_{N(x)}` and :math:`U(x) = u_{N(x)+1}`. Known support
bounds ``low`` and ``high`` add :math:`F(x) = 0` below ``low`` and
:math:`F(x) = 1` from ``high`` on. The methods differ in the bounds:

``dkw``
    :math:`l_i = i/n - \\varepsilon`, :math:`u_i = (i-1)/n + \\varepsilon`
    with :math:`\\varepsilon = \\sqrt{\\log(2/\\alpha) / (2n)}` (the
    Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant).
    Conservative: coverage is at least ``confidence`` for every ``F``.
``ks``
    The same shape with :math:`\\varepsilon` replaced by the exact
    finite-``n`` critical value of the Kolmogorov-Smirnov statistic
    (:func:`ks_critical_value`). Exact coverage for continuous ``F``.
``ld_equal_tailed`` / ``ld_highest_density``
    Learned-Miller & DeStefano (2008): :math:`[l_i, u_i]` is the
    equal-tailed or the highest-density interval of coverage :math:`c` of
    Beta(:math:`i`, :math:`n+1-i`), the law of :math:`U_{(i)}`, with the
    pointwise coverage :math:`c` raised until the intervals hold
    simultaneously with probability ``confidence``. We compute that
    probability exactly (:func:`~benchverdict.stats.order_statistics_band_probability`)
    and solve for :math:`c` (:func:`ld_critical_value`); opda 0.8.0
    estimates it by Monte Carlo. The band is narrow in the tails and wide
    in the middle, and violated about equally often everywhere (Lourie,
    Cho & He 2024, App. C). Exact coverage for continuous ``F``.

Ties and discrete scores. Write :math:`Y = G(V)` with :math:`G` the
generalised inverse of :math:`F` and :math:`V` uniform. On the event
:math:`l_i \\le V_{(i)} \\le u_i` we still have
:math:`F(Y_{(i)}) \\ge V_{(i)} \\ge l_i` and, for :math:`x < Y_{(j)}`,
:math:`F(x) < V_{(j)} \\le u_j`, so the band with :math:`N(x)` counting
ties holds for every :math:`x`: **with ties the band remains valid with
probability at least ``confidence``; it is conservative, not exact.**
:func:`cdf_band` warns when it sees ties.

References
----------
Learned-Miller, E. and DeStefano, J. (2008). A probabilistic upper bound on
differential entropy. IEEE Transactions on Information Theory 54(11).
Massart, P. (1990). The tight constant in the Dvoretzky-Kiefer-Wolfowitz
inequality. Annals of Probability 18(3).
Lourie, N., Cho, K. and He, H. (2024). Show your work with confidence:
confidence bands for tuning curves. NAACL.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict._caveats import caveat
from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.stats.band_names import METHODS  # the names, shared with the CLI
from benchverdict.stats.beta_intervals import order_statistic_intervals
from benchverdict.stats.order_statistics import order_statistics_band_probability
from benchverdict.stats.samples import sorted_finite_scores

__all__ = [
    "METHODS",
    "CDFBand",
    "cdf_band",
    "dkw_epsilon",
    "ks_critical_value",
    "ld_band_probability",
    "ld_critical_value",
    "order_statistic_bounds",
    "restrict_to_grid",
    "restrict_to_levels",
]

_LD_KINDS = {"ld_highest_density": "highest_density", "ld_equal_tailed": "equal_tailed"}


def _check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")
    return confidence


def _check_n(n: int) -> int:
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    return int(n)


def dkw_epsilon(n: int, confidence: float) -> float:
    """Half-width of the DKW band: ``sqrt(log(2 / (1 - confidence)) / (2 n))``.

    Massart (1990) showed the constant 2 is tight; the band is conservative
    for every ``F`` and every ``n``.

    Examples
    --------
    >>> round(dkw_epsilon(100, 0.95), 4)
    0.1358
    """
    n = _check_n(n)
    confidence = _check_confidence(confidence)
    return math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * n))


def _ks_probability(n: int, d: float) -> float:
    """Exact P(D_n <= d) for the two-sided KS statistic via the order-statistic corridor."""
    i = np.arange(1, n + 1)
    return order_statistics_band_probability(i / n - d, (i - 1) / n + d)


@functools.lru_cache(maxsize=256)
def ks_critical_value(n: int, confidence: float) -> float:
    """Exact finite-``n`` critical value ``d`` of the two-sided KS statistic.

    Solves ``P(D_n <= d) = confidence``.

    Started from :class:`scipy.stats.kstwo` (exact for ``n <= 140``, an
    accurate asymptotic expansion above) and refined by the secant method on
    the exact probability :func:`~benchverdict.stats.order_statistics_band_probability`,
    so the coverage is exact (to about ``1e-10``) for every ``n``.

    Examples
    --------
    >>> from scipy import stats
    >>> d = ks_critical_value(20, 0.9)
    >>> bool(abs(stats.kstwo(20).cdf(d) - 0.9) < 1e-12)
    True
    """
    n = _check_n(n)
    confidence = _check_confidence(confidence)
    dist = stats.kstwo(n)
    d0 = float(dist.ppf(confidence))
    if n <= 140:
        return d0  # scipy is exact here (Simard & L'Ecuyer 2011)
    p0 = _ks_probability(n, d0) - confidence
    if abs(p0) < 1e-12:
        return d0
    slope = float(dist.pdf(d0))
    d1 = d0 - p0 / slope
    for _ in range(20):
        p1 = _ks_probability(n, d1) - confidence
        if abs(p1) < 1e-12 or p1 == p0:
            break
        d0, d1, p0 = d1, d1 - p1 * (d1 - d0) / (p1 - p0), p1
    return float(d1)


def ld_band_probability(n: int, coverage: float, kind: str = "highest_density") -> float:
    """P(every U_(i) lies in its Beta(i, n+1-i) interval of pointwise ``coverage``), exactly.

    This is the CDF at ``coverage`` of the Learned-Miller-DeStefano
    statistic (the largest pointwise coverage needed to contain all order
    statistics). See :func:`ld_critical_value`.

    Examples
    --------
    With one observation the band is the single interval:

    >>> round(ld_band_probability(1, 0.8, "equal_tailed"), 12)
    0.8
    """
    n = _check_n(n)
    if not 0.0 <= coverage <= 1.0:
        raise ValueError(f"coverage must lie in [0, 1], got {coverage}.")
    kind = _LD_KINDS.get(kind, kind)
    lower, upper = order_statistic_intervals(n, 1.0 - coverage, kind)
    return order_statistics_band_probability(lower, upper)


#: Relative precision of ``1 - confidence`` reached by the LD critical value.
_LD_RTOL = 1e-8
#: Coefficients of the starting-point fit for log(1 - c) in
#: [1, G, L, G L, L^2, G^2] with G = log(-log confidence), L = log(log n).
_LD_START = {
    "highest_density": (-0.8918, 0.9604, -0.9161, 0.1005, -0.1774, 0.0006),
    "equal_tailed": (-0.6016, 1.0152, -1.2966, 0.0845, -0.0696, 0.0042),
}


#: Above this n the start comes from :data:`_LD_START_LARGE`.
_LD_START_LARGE_N = 2048
#: Coefficients of a second fit, for n > 2048, in [1, G, L, G L, L^2, G^2, G L^2,
#: G^2 L, L^3, G^3, G^3 L]: least squares on the exact log(1 - c) at n = 2,048,
#: 4,096, 10^4, 3 10^4, 10^5 (confidence 0.5, 0.7, 0.8, 0.9, 0.95, 0.99) and
#: 3 10^5, 10^6 (0.5, 0.8, 0.95, 0.99; equal-tailed: up to 3 10^5). Within
#: 0.0015 of the root there (the first fit is off by 0.2 at n = 10^6), which
#: saves one of four exact evaluations, each seconds at n = 10^6 (issue 25).
_LD_START_LARGE = {
    "highest_density": (0.490246, 0.779968, -2.492039, 0.275455, 0.337786, -0.054250,
                        -0.040618, 0.024635, -0.033948, -0.006812, 0.002535),
    "equal_tailed": (0.414156, 0.859318, -2.532870, 0.233779, 0.381272, -0.042114,
                     -0.035637, 0.020523, -0.041986, -0.005704, 0.002160),
}


def _ld_start(n: int, confidence: float, kind: str) -> float:
    """Starting guess for log(1 - c) (see :func:`_ld_solve`)."""
    g = math.log(-math.log(confidence))
    ell = math.log(math.log(max(n, 3)))
    if n > _LD_START_LARGE_N:
        c = _LD_START_LARGE[kind]
        terms = (1.0, g, ell, g * ell, ell**2, g**2, g * ell**2, g**2 * ell, ell**3, g**3,
                 g**3 * ell)
        return math.fsum(ci * t for ci, t in zip(c, terms, strict=True))
    c = _LD_START[kind]
    return c[0] + c[1] * g + c[2] * ell + c[3] * g * ell + c[4] * ell**2 + c[5] * g**2


def _secant_solve(g, s_lo: float, s_hi: float, s0: float, confidence: float) -> float:
    """Root of the increasing ``g`` on [s_lo, s_hi] (g(s_lo) <= 0 <= g(s_hi) assumed).

    Starts at ``s0``, takes a Newton step with the slope of the
    Poisson-clumping model P = exp(-m alpha) (times 0.85, the slope observed),
    then safeguarded secant steps; stops when |g| <= _LD_RTOL. Returns the
    best point evaluated (``g`` caches its values).
    """
    values: dict[float, float] = {}

    def gv(s: float) -> float:
        if s not in values:
            values[s] = g(s)
        return values[s]

    g0 = gv(s0)
    g_lo = g_hi = None
    if g0 <= 0:
        s_lo, g_lo = s0, g0
    else:
        s_hi, g_hi = s0, g0
    slope = -0.85 * confidence * math.log(confidence) / (1.0 - confidence)
    s1 = min(max(s0 - g0 / slope, s_lo), s_hi)
    if s1 == s0:
        s1 = s_lo if g0 > 0 else s_hi
    best = s0
    for _ in range(60):
        g1 = gv(s1)
        if abs(g1) < abs(values[best]):
            best = s1
        if abs(g1) <= _LD_RTOL:
            break
        if g1 <= 0:
            s_lo, g_lo = s1, g1
        else:
            s_hi, g_hi = s1, g1
        if s_hi - s_lo <= 1e-13:
            break
        # Secant through the last two points, falling back to the bracket.
        denom = g1 - g0
        s_next = s1 - g1 * (s1 - s0) / denom if denom != 0 else math.nan
        if not (s_lo < s_next < s_hi) or not math.isfinite(s_next):
            if g_lo is not None and g_hi is not None and g_hi != g_lo:
                s_next = s_lo - g_lo * (s_hi - s_lo) / (g_hi - g_lo)
                if not (s_lo < s_next < s_hi):
                    s_next = 0.5 * (s_lo + s_hi)
            else:
                s_next = 0.5 * (s_lo + s_hi)
        s0, g0, s1 = s1, g1, s_next
    return best


@functools.lru_cache(maxsize=32)
def _ld_solve(n: int, confidence: float, kind: str) -> tuple[float, np.ndarray, np.ndarray]:
    """Solve P(band at pointwise tail alpha) = confidence for alpha; return (coverage, l, u).

    Root finding on s = log(alpha) for g(s) = log(1 - P) - log(1 - confidence),
    which is increasing and nearly linear (slope about 1 when alpha is small,
    where 1 - P is about proportional to alpha). The union bound brackets
    the root: alpha = (1 - confidence) / n gives P >= confidence, and alpha =
    1 - confidence gives P <= confidence. Safeguarded secant (Illinois)
    steps; each evaluation warm-starts the interval solver from the last.
    """
    target = math.log1p(-confidence)
    if n == 1:
        lower, upper = order_statistic_intervals(1, 1.0 - confidence, kind)
        return confidence, lower, upper
    state: dict[str, tuple[np.ndarray, np.ndarray] | None] = {"start": None}
    cache: dict[float, tuple[float, np.ndarray, np.ndarray]] = {}

    def g(s: float) -> float:
        if s in cache:
            return cache[s][0]
        alpha = math.exp(s)
        lower, upper = order_statistic_intervals(
            n, alpha, kind, start=state["start"] if kind == "highest_density" else None
        )
        state["start"] = (lower, upper)
        p = order_statistics_band_probability(lower, upper)
        value = (math.log1p(-p) if p < 1.0 else -math.inf) - target
        cache[s] = (value, lower, upper)
        return value

    s_lo, s_hi = math.log((1.0 - confidence) / n), math.log1p(-confidence)
    # A starting point only (the root is then solved exactly): a fit of the
    # exact log(1 - c) over n = 8..2048 and confidence 0.5..0.99, within
    # 0.06 of the root there, and another for n up to 10^6, within 0.0015;
    # then a Newton step with the slope of the Poisson-clumping model
    # P = exp(-m alpha); then safeguarded secant steps. From the second fit
    # three evaluations reach the tolerance, four from the first.
    s0 = min(max(_ld_start(n, confidence, kind), s_lo), s_hi)
    best = _secant_solve(g, s_lo, s_hi, s0, confidence)
    _, lower, upper = cache[best]
    coverage = -math.expm1(best)
    lower.setflags(write=False)
    upper.setflags(write=False)
    return coverage, lower, upper


def ld_critical_value(n: int, confidence: float, kind: str = "highest_density") -> float:
    """The pointwise coverage that makes the Learned-Miller-DeStefano band simultaneous.

    Returns ``c`` such that, for ``n`` IID uniforms, every order statistic
    ``U_(i)`` lies inside its coverage-``c`` Beta(``i``, ``n + 1 - i``)
    interval with probability exactly ``confidence``. That probability is a
    boundary-crossing probability for uniform order statistics, computed
    exactly by :func:`~benchverdict.stats.order_statistics_band_probability`;
    ``c`` is found by safeguarded secant steps in ``log(1 - c)`` to a
    relative precision of ``1e-8`` in ``1 - confidence``. Results are cached.

    Parameters
    ----------
    n : int
        Sample size.
    confidence : float
        Simultaneous coverage, in (0, 1).
    kind : {"highest_density", "equal_tailed"}
        The shape of the pointwise intervals (``"ld_highest_density"`` and
        ``"ld_equal_tailed"`` are accepted too).

    Returns
    -------
    float
        The critical pointwise coverage ``c`` (``>= confidence``).

    Examples
    --------
    >>> c = ld_critical_value(48, 0.8)
    >>> bool(abs(ld_band_probability(48, c) - 0.8) < 1e-9)
    True
    """
    n = _check_n(n)
    confidence = _check_confidence(confidence)
    kind = _LD_KINDS.get(kind, kind)
    if kind not in ("highest_density", "equal_tailed"):
        raise ValueError(f'kind must be "highest_density" or "equal_tailed", got {kind!r}.')
    return _ld_solve(n, confidence, kind)[0]


def restrict_to_levels(
    lower: np.ndarray, upper: np.ndarray, levels: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    r"""The order-statistic constraints that matter for quantiles at levels in ``levels``.

    With :math:`Q_L(p) = Y_{(j)}`, :math:`j = \min\{j : l_j \ge p\}`, and
    :math:`Q_U(p) = Y_{(j)}`, :math:`j = \min\{j \ge 0 : u_{j+1} \ge p\}`,
    the quantile interval contains :math:`F^{-1}(p)` for every
    :math:`p \in [p_{lo}, p_{hi}]` (continuous :math:`F`) exactly when

    * :math:`U_{(j)} \ge \min(l_j, p_{hi})` for every ``j`` whose step
      :math:`(l_{j-1}, l_j]` meets :math:`[p_{lo}, p_{hi}]`, and
    * :math:`U_{(j)} \le \max(u_j, p_{lo})` for every ``j >= 1`` whose step
      :math:`(u_j, u_{j+1}]` meets :math:`[p_{lo}, p_{hi}]`;

    other order statistics are unconstrained. The returned bounds describe
    that event (for :func:`order_statistics_band_probability`). With
    ``levels = (0, 1)`` they are the bounds themselves.

    Examples
    --------
    >>> lo, hi = restrict_to_levels(np.array([0.1, 0.4, 0.7]), np.array([0.3, 0.6, 0.9]),
    ...                             (0.5, 1.0))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, 0.7], [0.5, 0.6, 0.9])
    """
    p_lo, p_hi = float(levels[0]), float(levels[1])
    n = lower.size
    lower_prev = np.concatenate([[0.0], lower[:-1]])
    upper_next = np.concatenate([upper[1:], [1.0]])
    keep_lower = (lower >= p_lo) & (lower_prev < p_hi)
    keep_upper = (upper_next >= p_lo) & (upper < p_hi)
    new_lower = np.where(keep_lower, np.minimum(lower, p_hi), 0.0)
    new_upper = np.where(keep_upper, np.maximum(upper, p_lo), 1.0)
    assert new_lower.size == n
    return new_lower, new_upper


@functools.lru_cache(maxsize=64)
def _grid_probability(lower: bytes, upper: bytes) -> float:
    """:func:`order_statistics_band_probability` of two float64 arrays given as bytes, memoised.

    A distribution-free band's bounds depend on ``n``, the confidence and the
    grid only, so every curve of a study with the same number of draws asks for
    the same probability (100 curves of 10,000 draws: 12 s, now one evaluation).
    """
    return float(order_statistics_band_probability(np.frombuffer(lower), np.frombuffer(upper)))


def restrict_to_grid(
    lower: np.ndarray, upper: np.ndarray, grid: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray]:
    r"""The order-statistic constraints that matter for quantiles at a finite set of levels.

    The quantile interval at level :math:`p` is :math:`[Y_{(j')}, Y_{(j)}]`
    with :math:`j = \min\{j : l_j \ge p\}` and
    :math:`j' = \min\{j \ge 0 : u_{j+1} \ge p\}` (see
    :meth:`CDFBand.quantile_interval`). For continuous :math:`F` it contains
    :math:`F^{-1}(p)` exactly when :math:`U_{(j)} \ge p` (no constraint
    when no :math:`l_j` reaches :math:`p`: the upper end is ``high``) and
    :math:`U_{(j')} \le p` (none for :math:`j' = 0`: the lower end is
    ``low``). Over a finite set of levels the binding constraint of each order
    statistic is the largest (lower) and smallest (upper) level mapped to
    it. This is :func:`restrict_to_levels` for a grid of levels instead of
    a range (tuning curves at integer budgets need only the levels
    :math:`0.5^{1/k}`, ``k = 1, 2, ...``).

    Examples
    --------
    >>> lo, hi = restrict_to_grid(np.array([0.1, 0.4, 0.7]), np.array([0.3, 0.6, 0.9]),
    ...                           (0.5, 0.65))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, 0.65], [0.5, 0.65, 1.0])
    """
    n = lower.size
    p = np.asarray(grid, dtype=float)
    new_lower = np.zeros(n)
    new_upper = np.ones(n)
    # Same tolerance as CDFBand._invert, so the constraints are those of the intervals shown.
    j = np.searchsorted(np.concatenate([[0.0], lower]), p - 1e-12, side="left")
    keep = (j >= 1) & (j <= n)
    np.maximum.at(new_lower, j[keep] - 1, p[keep])
    j_up = np.searchsorted(np.concatenate([upper, [1.0]]), p - 1e-12, side="left")
    keep = (j_up >= 1) & (j_up <= n)
    np.minimum.at(new_upper, j_up[keep] - 1, p[keep])
    return new_lower, new_upper


def _check_grid(grid) -> tuple[float, ...] | None:
    if grid is None:
        return None
    # Sorted distinct levels (np.unique: a set and a sort of 10,000 Python floats per curve
    # cost a second on 10^6 draws).
    values = np.unique(np.asarray(grid, dtype=float).reshape(-1))
    if not values.size or not (np.all(values > 0.0) and np.all(values <= 1.0)):
        raise ValueError(f"grid levels must lie in (0, 1], got {grid!r}.")
    return tuple(values.tolist())


def _check_levels(levels) -> tuple[float, float]:
    p_lo, p_hi = (float(v) for v in levels)
    if not 0.0 <= p_lo < p_hi <= 1.0:
        raise ValueError(f"levels must satisfy 0 <= low < high <= 1, got {levels!r}.")
    return p_lo, p_hi


def _restricted(lower: np.ndarray, upper: np.ndarray, levels: tuple[float, float],
                grid: tuple[float, ...] | None) -> tuple[np.ndarray, np.ndarray]:
    if grid is not None:
        return restrict_to_grid(lower, upper, grid)
    return restrict_to_levels(lower, upper, levels)


class _RestrictedProbability:
    """P(band) of restricted constraints, computed once per distinct constraint set.

    A restricted band's bounds are levels (or 0 and 1), so the band probability
    is a step function of the solvers' parameter: while they bisect to a step,
    most evaluations meet a constraint set already computed (89 of 116 on
    10^6 draws at integer budgets, each an O(n^2) recursion). Keyed by a
    digest of the bounds' bytes; the value is that of
    :func:`order_statistics_band_probability` on them, so nothing changes but
    the number of times it is computed.
    """

    def __init__(self) -> None:
        self._known: dict[bytes, float] = {}
        self.computed = 0

    def __call__(self, lower: np.ndarray, upper: np.ndarray) -> float:
        lower = np.ascontiguousarray(lower, dtype=float)
        upper = np.ascontiguousarray(upper, dtype=float)
        digest = hashlib.blake2b(lower.tobytes(), digest_size=32)
        digest.update(upper.tobytes())
        key = digest.digest() + lower.size.to_bytes(8, "little")
        if key not in self._known:
            self._known[key] = order_statistics_band_probability(lower, upper)
            self.computed += 1
        return self._known[key]


@functools.lru_cache(maxsize=64)
def _ld_solve_levels(
    n: int, confidence: float, kind: str, levels: tuple[float, float],
    grid: tuple[float, ...] | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Like :func:`_ld_solve`, calibrated on the constraints of :func:`restrict_to_levels`.

    With ``grid``, on those of :func:`restrict_to_grid` instead.
    """
    if levels == (0.0, 1.0) and grid is None:
        return _ld_solve(n, confidence, kind)
    target = math.log1p(-confidence)
    state: dict[str, tuple[np.ndarray, np.ndarray] | None] = {"start": None}
    cache: dict[float, tuple[float, np.ndarray, np.ndarray]] = {}
    probability = _RestrictedProbability()

    def g(s: float) -> float:
        if s in cache:
            return cache[s][0]
        lower, upper = order_statistic_intervals(
            n, math.exp(s), kind, start=state["start"] if kind == "highest_density" else None
        )
        state["start"] = (lower, upper)
        p = probability(*_restricted(lower, upper, levels, grid))
        value = (math.log1p(-p) if p < 1.0 else -math.inf) - target
        cache[s] = (value, lower, upper)
        return value

    # The union bound still brackets the root (the event keeps a subset of the
    # constraints): alpha = (1 - confidence) / n gives P >= confidence, and
    # alpha = 1 (zero-width intervals) gives P = 0. Start from the whole-CDF
    # guess shifted by log 2 (about half the constraints remain for half the
    # levels; only a starting point).
    s_lo, s_hi = math.log((1.0 - confidence) / n), 0.0
    width = max((grid[-1] - grid[0]) if grid is not None else levels[1] - levels[0], 1e-3)
    s0 = min(max(_ld_start(n, confidence, kind) - math.log(width), s_lo), -1e-3)
    best = _secant_solve(g, s_lo, s_hi, s0, confidence)
    if cache[best][0] > 0:
        # Restricted to some levels, P(s) is a step function (a constraint drops out when
        # an order statistic's bound crosses a level), so it may have no root and the
        # closest point can lie on the wrong side (P < confidence; e.g. 0.796 for 0.8 with
        # n = 48 at integer budgets). Bisect to the step and keep its left end: the
        # band then covers with probability at least ``confidence``, as close as it can.
        g(s_lo)
        below = max(s for s, v in cache.items() if v[0] <= 0)
        above = min(s for s, v in cache.items() if v[0] > 0 and s > below)
        for _ in range(80):
            if above - below <= 1e-12 * max(1.0, abs(below)):
                break
            mid = 0.5 * (below + above)
            if g(mid) <= 0:
                below = mid
            else:
                above = mid
        best = below
    _, lower, upper = cache[best]
    lower.setflags(write=False)
    upper.setflags(write=False)
    return -math.expm1(best), lower, upper


def _bracketed_secant(g, s_lo: float, s_hi: float, s0: float, tol: float = 1e-8) -> float:
    """Root of increasing ``g`` in [s_lo, s_hi]: secant steps kept inside the bracket."""
    g_lo, g_hi = g(s_lo), g(s_hi)
    if g_lo >= 0:
        return s_lo
    if g_hi <= 0:
        return s_hi
    best, g_best = (s_lo, g_lo) if -g_lo < g_hi else (s_hi, g_hi)
    s_prev, g_prev = s_lo, g_lo
    s1 = s0
    for _ in range(80):
        g1 = g(s1)
        if abs(g1) < abs(g_best):
            best, g_best = s1, g1
        if abs(g1) <= tol or s_hi - s_lo <= 1e-13:
            break
        if g1 < 0:
            s_lo, g_lo = s1, g1
        else:
            s_hi, g_hi = s1, g1
        denom = g1 - g_prev
        s_next = s1 - g1 * (s1 - s_prev) / denom if denom != 0 else math.nan
        if not (s_lo < s_next < s_hi) or not math.isfinite(s_next):
            s_next = s_lo - g_lo * (s_hi - s_lo) / (g_hi - g_lo)
            if not (s_lo < s_next < s_hi) or abs(s_next - s1) < 1e-14:
                s_next = 0.5 * (s_lo + s_hi)
        s_prev, g_prev, s1 = s1, g1, s_next
    return best


@functools.lru_cache(maxsize=64)
def _ks_solve_levels(n: int, confidence: float, levels: tuple[float, float],
                     grid: tuple[float, ...] | None = None) -> float:
    """KS distance d with P(restricted KS corridor) = confidence."""
    d_full = ks_critical_value(n, confidence)
    if levels == (0.0, 1.0) and grid is None:
        return d_full
    i = np.arange(1, n + 1)
    probability = _RestrictedProbability()

    seen: dict[float, float] = {}

    def g(d: float) -> float:
        if d not in seen:
            lower = np.clip(i / n - d, 0.0, 1.0)
            upper = np.clip((i - 1) / n + d, 0.0, 1.0)
            p = probability(*_restricted(lower, upper, levels, grid))
            # Increasing in d: a wider corridor has more probability.
            seen[d] = math.log1p(-confidence) - (math.log1p(-p) if p < 1.0 else -math.inf)
        return seen[d]

    best = _bracketed_secant(g, 0.0, d_full, 0.8 * d_full)
    if g(best) < 0:
        # Restricted, P(d) is a step function (a constraint drops out where a bound crosses
        # a level): the point nearest the root can cover less than ``confidence`` (0.664
        # for 0.8 at n = 2, integer budgets). As for the LD bands: bisect to the step and
        # keep its right end, the narrowest corridor that covers with at least
        # ``confidence``.
        below = max(d for d, v in seen.items() if v < 0)
        known = [d for d, v in seen.items() if v >= 0 and d > below]
        above = min(known) if known else 1.0  # d = 1: no constraint is left, P = 1
        for _ in range(80):
            if above - below <= 1e-12:
                break
            mid = 0.5 * (below + above)
            if g(mid) < 0:
                below = mid
            else:
                above = mid
        best = above
    return best


def order_statistic_bounds(
    n: int,
    confidence: float,
    method: str = "ld_highest_density",
    levels: tuple[float, float] = (0.0, 1.0),
    grid: tuple[float, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Simultaneous bounds ``l_i <= F(Y_(i)) <= u_i`` for the order statistics of ``n`` draws.

    Parameters
    ----------
    n : int
    confidence : float
    method : str
        One of :data:`METHODS`.
    levels : (float, float)
        ``(0, 1)``: the bounds hold for all ``i`` simultaneously with
        probability ``confidence`` (a band for the whole CDF). A narrower
        range ``(p_lo, p_hi)`` calibrates the band so that the quantile
        bounds it implies hold for every level in that range with probability
        ``confidence`` (see :func:`restrict_to_levels`); this is what makes
        tuning-curve bands exact rather than conservative. DKW bands are not
        recalibrated (they are conservative by construction).
    grid : sequence of float, optional
        Calibrate for the quantiles at exactly these levels instead (see
        :func:`restrict_to_grid`); overrides ``levels``.

    Returns
    -------
    (lower, upper, critical_value)
        Arrays of shape ``(n,)``, non-decreasing, in [0, 1]; the critical
        value is the pointwise coverage (LD), the KS distance, or the DKW
        epsilon.

    Examples
    --------
    >>> lo, hi, d = order_statistic_bounds(10, 0.9, "ks")
    >>> bool(np.all(lo <= hi))
    True
    >>> _, _, c_half = order_statistic_bounds(10, 0.9, levels=(0.5, 1.0))
    >>> bool(c_half < ld_critical_value(10, 0.9))  # fewer constraints: narrower band
    True
    """
    n = _check_n(n)
    confidence = _check_confidence(confidence)
    levels = _check_levels(levels)
    grid = _check_grid(grid)
    if method in _LD_KINDS:
        coverage, lower, upper = _ld_solve_levels(n, confidence, _LD_KINDS[method], levels,
                                                  grid)
        return lower.copy(), upper.copy(), coverage
    if method in ("ks", "dkw"):
        if method == "ks":
            d = _ks_solve_levels(n, confidence, levels, grid)
        else:
            d = dkw_epsilon(n, confidence)
        i = np.arange(1, n + 1)
        lower = np.clip(i / n - d, 0.0, 1.0)
        upper = np.clip((i - 1) / n + d, 0.0, 1.0)
        return lower, upper, d
    raise ValueError(f"method must be one of {METHODS}, got {method!r}.")


@dataclass(repr=False, frozen=True, eq=False)
class CDFBand(ResultText):
    """A simultaneous confidence band for a CDF, built from a sample.

    With probability at least ``confidence`` (exactly ``confidence`` for the
    ``ks`` and ``ld_*`` methods and continuous scores),
    ``lower_cdf(x) <= F(x) <= upper_cdf(x)`` for every ``x`` at once.

    Attributes
    ----------
    scores : numpy.ndarray, shape (n,)
        The sorted sample :math:`Y_{(1)} \\le \\dots \\le Y_{(n)}`.
    lower, upper : numpy.ndarray, shape (n,)
        Bounds on the CDF at the order statistics: ``lower[i-1] <= F(Y_(i))``
        and ``F(x) <= upper[i-1]`` for every ``x < Y_(i)`` (and at ``Y_(i)``
        when ``F`` is continuous).
    confidence : float
    method : str
        One of :data:`METHODS`.
    low, high : float
        Known bounds of the support (``-inf``/``inf`` if unknown).
    n : int
    critical_value : float
        Pointwise coverage (LD), KS distance, or DKW epsilon.
    n_ties : int
        How many scores equal an earlier score (0 for continuous data).
    levels : (float, float)
        ``(0, 1)`` for a band on the whole CDF. Otherwise the band is
        calibrated for quantiles: with probability ``confidence``,
        :meth:`quantile_interval` contains :math:`F^{-1}(p)` for every ``p``
        in ``levels`` (the CDF itself may leave the band elsewhere).
    grid : tuple of float or None
        When set, the band is calibrated for the quantiles at exactly these
        levels (``levels`` then spans them).
    """

    scores: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float
    method: str
    low: float
    high: float
    n: int
    critical_value: float
    n_ties: int = 0
    levels: tuple[float, float] = (0.0, 1.0)
    grid: tuple[float, ...] | None = None

    # ------------------------------------------------------------ evaluation
    def _summary_lines(self) -> list[str]:
        return [f"{self.method} CDF band: n = {self.n}, confidence {self.confidence:g}, "
                f"levels {self.levels[0]:g}-{self.levels[1]:g}, support [{self.low:g}, "
                f"{self.high:g}], {self.n_ties} tie(s)"]

    def summary(self) -> str:
        """What the band is and what it guarantees, as text (also ``str(band)``)."""
        return "\n".join([*self._summary_lines(), self.describe()])

    def verdicts(self) -> list:
        """An empty list: a band describes one sample and compares nothing.

        It is here so that every result object answers the same protocol
        (``table``, ``verdicts()``, ``plot()``, ``summary()``).
        """
        return []

    def _count(self, x) -> np.ndarray:
        return np.searchsorted(self.scores, np.asarray(x, dtype=float), side="right")

    def lower_cdf(self, x) -> np.ndarray:
        """The lower band :math:`L(x) = l_{N(x)}` (0 below ``low``, 1 from ``high`` on)."""
        x = np.asarray(x, dtype=float)
        lower_ext = np.concatenate([[0.0], self.lower])
        out = lower_ext[self._count(x)]
        out = np.where(x >= self.high, 1.0, out)
        return np.where(x < self.low, 0.0, out)[()]

    def upper_cdf(self, x) -> np.ndarray:
        """The upper band :math:`U(x) = u_{N(x)+1}` (0 below ``low``, 1 from ``high`` on)."""
        x = np.asarray(x, dtype=float)
        upper_ext = np.concatenate([self.upper, [1.0]])
        out = upper_ext[self._count(x)]
        out = np.where(x >= self.high, 1.0, out)
        return np.where(x < self.low, 0.0, out)[()]

    def ecdf(self, x) -> np.ndarray:
        """The empirical CDF :math:`N(x) / n`."""
        return (self._count(x) / self.n)[()]

    def quantile(self, q) -> np.ndarray:
        """The empirical quantile :math:`\\inf\\{x \\ge low: \\hat F(x) \\ge q\\}` (``low`` at 0).

        Examples
        --------
        >>> band = cdf_band([3.0, 1.0, 2.0, 4.0], 0.8, method="dkw")
        >>> float(band.quantile(0.5))
        2.0
        """
        q = self._check_q(q)
        ecdf_ext = np.arange(self.n + 1) / self.n
        return self._invert(ecdf_ext, q)

    def quantile_interval(self, q) -> tuple[np.ndarray, np.ndarray]:
        """Simultaneous bounds on the quantiles :math:`F^{-1}(q)`.

        On the band's event, for every ``q`` at once,
        ``low(q) <= F^{-1}(q) <= high(q)`` with
        :math:`F^{-1}(q) = \\inf\\{x \\ge low : F(x) \\ge q\\}`:
        ``low`` inverts the upper band and ``high`` the lower band. ``high``
        is ``high`` (possibly ``inf``) where the lower band never reaches ``q``.

        Examples
        --------
        >>> band = cdf_band(np.arange(1.0, 101.0), 0.8, method="ks")
        >>> low, high = band.quantile_interval(0.5)
        >>> bool(low < 50 < high)
        True
        """
        q = self._check_q(q)
        upper_ext = np.concatenate([self.upper, [1.0]])
        lower_ext = np.concatenate([[0.0], self.lower])
        return self._invert(upper_ext, q), self._invert(lower_ext, q)

    def _invert(self, cdf_ext: np.ndarray, q: np.ndarray) -> np.ndarray:
        """inf{x >= low : G(x) >= q} for the step CDF G with values cdf_ext on [Y_(j), Y_(j+1))."""
        scores_ext = np.concatenate([[self.low], self.scores, [self.high]])
        # Float noise must not push a bound past a level it meets exactly.
        j = np.searchsorted(cdf_ext, q - 1e-12, side="left")
        return scores_ext[j][()]

    @staticmethod
    def _check_q(q) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if np.any(~((q >= 0.0) & (q <= 1.0))):
            raise ValueError("quantile levels q must lie in [0, 1].")
        return q

    def mirrored(self) -> CDFBand:
        """The same band for the negated sample ``-Y``.

        With :math:`Y' = -Y` and :math:`Y'_{(j)} = -Y_{(n+1-j)}`, the band's
        bounds :math:`l_i \\le F(Y_{(i)})` and :math:`F(x) \\le u_i` for
        :math:`x < Y_{(i)}` become :math:`1 - u_{n+1-j} \\le F'(Y'_{(j)})` and
        :math:`F'(x) \\le 1 - l_{n+1-j}` for :math:`x < Y'_{(j)}`: the same
        event, so the same coverage. Support bounds become ``(-high, -low)`` and
        quantile levels ``(1 - p_hi, 1 - p_lo)``.

        Examples
        --------
        >>> band = cdf_band([0.2, 0.5, 0.9], 0.8, "ks", low=0, high=1)
        >>> m = band.mirrored()
        >>> m.scores.tolist(), (m.low, m.high)
        ([-0.9, -0.5, -0.2], (-1.0, -0.0))
        >>> bool(np.allclose(m.mirrored().lower, band.lower))
        True
        """
        scores = -self.scores[::-1]
        lower = 1.0 - self.upper[::-1]
        upper = 1.0 - self.lower[::-1]
        for array in (scores, lower, upper):
            array.setflags(write=False)
        return CDFBand(
            scores=scores, lower=lower, upper=upper, confidence=self.confidence,
            method=self.method, low=-self.high, high=-self.low, n=self.n,
            critical_value=self.critical_value, n_ties=self.n_ties,
            levels=(1.0 - self.levels[1], 1.0 - self.levels[0]),
            grid=None if self.grid is None else tuple(sorted(1.0 - p for p in self.grid)),
        )

    # --------------------------------------------------------------- outputs
    @property
    def table(self) -> pd.DataFrame:
        """One row per order statistic: i, score, ecdf, lower, upper (bounds on F(score))."""
        i = np.arange(1, self.n + 1)
        return pd.DataFrame(
            {
                "i": i,
                "score": self.scores,
                "ecdf": i / self.n,
                "lower": self.lower,
                "upper": self.upper,
            }
        )

    @property
    def grid_coverage(self) -> float | None:
        """The exact coverage of a band calibrated on a grid of levels (else ``None``).

        The probability that all its quantile intervals hold (continuous scores).
        With few levels the probability moves in steps as the band widens, so the
        calibration takes the first step at or above ``confidence``; this is where it
        landed (e.g. 0.822 for 0.8 with n = 10 at the budgets 1..10).
        """
        if self.grid is None or self.method == "dkw":
            return None
        lower, upper = restrict_to_grid(self.lower, self.upper, self.grid)
        return _grid_probability(lower.tobytes(), upper.tobytes())

    def describe(self) -> str:
        """One line saying what the band guarantees."""
        exact = self.method != "dkw" and self.n_ties == 0
        what = "exactly" if exact else "at least"
        if self.grid is not None:
            achieved = self.grid_coverage
            stated = (f"at least {self.confidence:g}" if achieved is None else
                      f"{what} {achieved:.4g}" + (
                          f" (the first value at or above {self.confidence:g} that "
                          f"{len(self.grid)} level(s) allow)"
                          if achieved > self.confidence + 5e-4 else ""))
            text = (
                f"{self.method} band from n={self.n} scores, calibrated for the quantiles at "
                f"{len(self.grid)} level(s) {self.grid[0]:.4g}-{self.grid[-1]:.4g}: their "
                f"quantile intervals hold simultaneously with probability {stated}"
            )
        elif self.levels == (0.0, 1.0):
            text = (
                f"{self.method} band from n={self.n} scores: F lies inside it everywhere with "
                f"probability {what} {self.confidence:g}"
            )
        else:
            text = (
                f"{self.method} band from n={self.n} scores, calibrated for quantile levels "
                f"{self.levels[0]:.4g}-{self.levels[1]:.4g}: their quantile intervals hold "
                f"simultaneously with probability {what} {self.confidence:g}"
            )
        if self.n_ties:
            text += f" ({self.n_ties} tied scores make it conservative)"
        return text + "."

    def plot(self, ax=None, *, color=None, label: str | None = None, show_ecdf: bool = True):
        """Draw the empirical CDF and the band as shaded steps; returns the Axes.

        Examples
        --------
        >>> band = cdf_band(np.linspace(0, 1, 30), 0.8)
        >>> ax = band.plot()
        >>> ax.get_ylabel()
        'CDF'
        """
        from benchverdict.plotting import new_axes, theme

        ax = new_axes(ax)
        span = self.scores[-1] - self.scores[0]
        pad = 0.05 * span if span > 0 else 1.0
        left = self.low if np.isfinite(self.low) else self.scores[0] - pad
        right = self.high if np.isfinite(self.high) else self.scores[-1] + pad
        xs = np.concatenate([[left], self.scores, [right]])
        with theme():
            lower = self.lower_cdf(xs)
            upper = self.upper_cdf(xs)
            # At the right edge the unknown-support band stays open.
            if not np.isfinite(self.high):
                lower[-1] = self.lower[-1]
            line_kw = {"color": color} if color is not None else {}
            band_label = f"{self.confidence:.0%} band"
            fill = ax.fill_between(
                xs, lower, upper, step="post", alpha=0.25, linewidth=0,
                label=f"{label}: {band_label}" if label else band_label, **line_kw,
            )
            if show_ecdf:
                ax.step(
                    xs, self.ecdf(xs), where="post", linewidth=1.2,
                    color=fill.get_facecolor()[0][:3] if color is None else color,
                    label=label or "empirical CDF",
                )
            ax.set_xlabel("score")
            ax.set_ylabel("CDF")
            ax.set_ylim(-0.02, 1.02)
        return plain_text(ax)


def cdf_band(
    scores,
    confidence: float,
    method: str = "ld_highest_density",
    *,
    low: float = -np.inf,
    high: float = np.inf,
    levels: tuple[float, float] = (0.0, 1.0),
    grid=None,
) -> CDFBand:
    """A simultaneous distribution-free confidence band for the CDF of ``scores``.

    Parameters
    ----------
    scores : array_like of float
        IID draws (e.g. the scores of random-search configurations).
    confidence : float
        Simultaneous coverage in (0, 1), e.g. 0.8 or 0.95.
    method : {"ld_highest_density", "ld_equal_tailed", "ks", "dkw"}
        See the module docstring. ``ld_highest_density`` gives the tightest
        band in the tails (Lourie et al.'s default).
    low, high : float
        Known bounds of the support, e.g. 0 and 1 for accuracy. They make
        the band reach 0 at ``low`` and 1 at ``high`` and the quantile bounds
        finite.
    levels : (float, float)
        Calibrate for quantiles at these CDF levels only (see
        :func:`order_statistic_bounds`); default the whole CDF.
    grid : sequence of float, optional
        Calibrate for the quantiles at exactly these levels (see
        :func:`restrict_to_grid`); overrides ``levels``.

    Returns
    -------
    CDFBand

    Warns
    -----
    UserWarning
        If ``scores`` contain ties (exact coverage needs continuous scores;
        the band then holds with probability at least ``confidence``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> band = cdf_band(rng.uniform(size=48), 0.8, low=0.0, high=1.0)
    >>> band.n, band.method
    (48, 'ld_highest_density')
    >>> x = np.linspace(0, 1, 5)
    >>> bool(np.all(band.lower_cdf(x) <= band.upper_cdf(x)))
    True
    """
    y = sorted_finite_scores(scores)
    confidence = _check_confidence(confidence)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    low, high = float(low), float(high)
    if not low < high:
        raise ValueError(f"the support bounds must satisfy low < high, got low={low}, "
                         f"high={high}.")
    if low > y[0] or high < y[-1]:
        raise ValueError(
            f"scores must lie within [low, high] = [{low}, {high}], but they range over "
            f"[{y[0]}, {y[-1]}]; pass support bounds that contain every score."
        )
    n = y.size
    n_ties = int(n - np.unique(y).size)
    levels = _check_levels(levels)
    grid = _check_grid(grid)
    if grid is not None:
        levels = (grid[0], grid[-1]) if grid[0] < grid[-1] else (0.0, 1.0)
    if n_ties and method != "dkw":
        what = (
            f"for the quantiles at {len(grid)} level(s) {grid[0]:.4g}-{grid[-1]:.4g} "
            f"simultaneously" if grid is not None
            else "for all x simultaneously" if levels == (0.0, 1.0)
            else f"for the quantiles at levels {levels[0]:.4g}-{levels[1]:.4g} simultaneously"
        )
        caveat(
            "ties in the scores",
            f"{n_ties} of {n} scores are ties. The {method} band has exact coverage only for "
            f"continuous scores; with ties it still holds {what} with probability at least "
            f"{confidence:g} (it is conservative).",
            category=UserWarning,
            stacklevel=2,
        )
    lower, upper, critical = order_statistic_bounds(n, confidence, method, levels, grid)
    lower.setflags(write=False)
    upper.setflags(write=False)
    y.setflags(write=False)
    return CDFBand(
        scores=y, lower=lower, upper=upper, confidence=confidence, method=method,
        low=low, high=high, n=n, critical_value=float(critical), n_ties=n_ties, levels=levels,
        grid=grid,
    )
