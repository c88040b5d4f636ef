"""The rank statistics, on plain arrays: one function per formula.

Every function takes a ``blocks x algorithms`` matrix already *oriented* so
that larger is better (multiply scores by ``Results.sign``), or the rank
matrix made from it, where rank 1 is the best algorithm of a block and tied
scores share the average of their ranks.

Formulas follow Demšar (2006, JMLR 7) for Friedman, Iman–Davenport and
Nemenyi, Conover (1999, *Practical Nonparametric Statistics*, 3rd ed.,
§5.8) for Conover's post-hoc test, Holm (1979) for the step-down
adjustment, and autorank 1.x for Cliff's delta and Akinshin's gamma.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from benchverdict.stats.round_off import ROUND_OFF, snap_round_off
from benchverdict.stats.studentized_range import studentized_range_quantile, studentized_range_sf

__all__ = [
    "FriedmanStatistic",
    "akinshin_gamma",
    "block_ranks",
    "bootstrap_effect_intervals",
    "cliffs_delta",
    "cliffs_delta_intervals",
    "conover_p_values",
    "effect_size_matrices",
    "friedman_statistic",
    "nemenyi_critical_difference",
    "nemenyi_p_values",
    "pairwise_effect_sizes",
    "resampled_medians_mads",
    "wilcoxon_p_values",
]


def block_ranks(oriented: np.ndarray) -> np.ndarray:
    """Rank algorithms within each block: 1 = best (largest oriented score), ties averaged.

    Examples
    --------
    >>> block_ranks(np.array([[0.9, 0.5, 0.5], [0.1, 0.2, 0.3]]))
    array([[1. , 2.5, 2.5],
           [3. , 2. , 1. ]])
    """
    oriented = np.asarray(oriented, dtype=float)
    return stats.rankdata(-oriented, axis=1, method="average")


def _tie_sum(ranks: np.ndarray) -> float:
    """Sum over blocks and tie groups of ``t^3 - t`` (``t`` = size of a tie group)."""
    ordered = np.sort(ranks, axis=1)
    if not (np.diff(ordered, axis=1) == 0).any():
        return 0.0
    total = 0.0
    for row in ordered:
        _, counts = np.unique(row, return_counts=True)
        total += float(np.sum(counts.astype(float) ** 3 - counts))
    return total


@dataclass(frozen=True)
class FriedmanStatistic:
    """Friedman's test and what follows from it (see :func:`friedman_statistic`)."""

    statistic: float
    df: int
    p_value: float
    kendall_w: float
    iman_davenport: float
    iman_davenport_df: tuple[int, int]
    iman_davenport_p_value: float
    tie_correction: float


def friedman_statistic(ranks: np.ndarray) -> FriedmanStatistic:
    r"""Friedman's chi-square with the tie correction, Kendall's W and Iman–Davenport's F.

    With :math:`n` blocks, :math:`k` algorithms and rank sums :math:`R_j`,

    .. math::

        Q = \frac{\frac{12}{nk(k+1)}\sum_j R_j^2 - 3n(k+1)}
                 {1 - \sum_{\text{blocks}}\sum_{\text{ties}} (t^3 - t) / (nk(k^2-1))}

    is referred to :math:`\chi^2_{k-1}` (the large-sample approximation
    scipy also uses). Kendall's coefficient of concordance is
    :math:`W = Q / (n(k-1))`, and Iman and Davenport's
    :math:`F = (n-1)Q / (n(k-1) - Q)` is referred to
    :math:`F_{k-1, (k-1)(n-1)}` (less conservative than :math:`\chi^2`,
    Demšar 2006 §3.2.2).

    Examples
    --------
    >>> r = block_ranks(np.array([[3., 2, 1], [3, 1, 2], [3, 2, 1], [3, 2, 1]]))
    >>> s = friedman_statistic(r)
    >>> round(s.statistic, 3), s.df, round(s.kendall_w, 3)
    (6.5, 2, 0.812)
    """
    ranks = np.asarray(ranks, dtype=float)
    n, k = ranks.shape
    rank_sums = ranks.sum(axis=0)
    correction = 1.0 - _tie_sum(ranks) / (n * k * (k * k - 1))
    if correction <= 0:  # every block a complete tie: no information at all
        q = 0.0
    else:
        q = (12.0 / (n * k * (k + 1)) * float(np.sum(rank_sums**2)) - 3.0 * n * (k + 1))
        q = max(q / correction, 0.0)
    df = k - 1
    p = float(stats.chi2.sf(q, df))
    w = q / (n * (k - 1))
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denominator = n * (k - 1) - q
    if denominator <= 1e-12 * n * k:
        f, p_f = float("inf"), 0.0
    else:
        f = (n - 1) * q / denominator
        p_f = float(stats.f.sf(f, df1, df2)) if df2 > 0 else float("nan")
    return FriedmanStatistic(q, df, p, w, f, (df1, df2), p_f, correction)


def nemenyi_critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    r"""Nemenyi's critical difference of average ranks.

    :math:`CD = q_\alpha \sqrt{k(k+1)/(6n)}`, where :math:`q_\alpha` is the
    upper-:math:`\alpha` quantile of the studentized range of :math:`k`
    means with infinite degrees of freedom, divided by :math:`\sqrt 2`
    (Demšar 2006, Table 5).

    Examples
    --------
    >>> round(nemenyi_critical_difference(4, 14, 0.05), 3)
    1.254
    """
    if k < 2 or n < 1:
        raise ValueError(f"need k >= 2 algorithms and n >= 1 blocks, got k={k}, n={n}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    return float(_nemenyi_q(int(k), float(alpha)) * np.sqrt(k * (k + 1) / (6.0 * n)))


@functools.lru_cache(maxsize=256)
def _nemenyi_q(k: int, alpha: float) -> float:
    """Demšar's q_alpha: the studentized range quantile (infinite df) over sqrt(2); cached."""
    return float(studentized_range_quantile(1 - alpha, k, np.inf) / np.sqrt(2))


def nemenyi_p_values(average_ranks: np.ndarray, n: int) -> np.ndarray:
    r"""Pairwise Nemenyi p-values (already family-wise: the studentized range).

    :math:`p_{ij} = P(Q_{k,\infty} > \sqrt2\,|\bar R_i - \bar R_j| / \sqrt{k(k+1)/(6n)})`.
    A pair differs at level :math:`\alpha` exactly when its average ranks
    differ by more than :func:`nemenyi_critical_difference`.

    The tail probability is evaluated once per distinct rank difference
    (average ranks are multiples of ``1 / (2n)``, so there are few); with
    more than :data:`_SRANGE_DIRECT` distinct values (thousands of
    algorithms) it is interpolated from :func:`_studentized_range_sf`'s
    grid, to an absolute error below ``1e-10``.

    Examples
    --------
    >>> nemenyi_p_values(np.array([1.0, 2.0, 3.0]), 10).round(4)
    array([[1.    , 0.0653, 0.    ],
           [0.0653, 1.    , 0.0653],
           [0.    , 0.0653, 1.    ]])
    """
    r = np.asarray(average_ranks, dtype=float)
    k = len(r)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    iu = np.triu_indices(k, 1)
    p = np.ones((k, k))
    if len(iu[0]):
        q = np.abs(r[iu[0]] - r[iu[1]]) / se * np.sqrt(2)
        p[iu] = np.clip(_studentized_range_sf(q, k), 0.0, 1.0)
        p[(iu[1], iu[0])] = p[iu]
    return p


#: Up to this many distinct arguments the studentized range is evaluated directly.
_SRANGE_DIRECT = 2048


def _studentized_range_sf(q: np.ndarray, k: int) -> np.ndarray:
    """``P(Q_{k, inf} > q)`` for many ``q``: exact per distinct value, or a spline beyond.

    :func:`~benchverdict.stats.studentized_range.studentized_range_sf` takes
    about 25 (k <= 100) to 75 (k = 1000) microseconds per argument, which is
    seconds for the half-million pairs of 1000 algorithms. With many distinct
    values, log sf is evaluated on a 2048-point grid and interpolated by a
    cubic spline (absolute error below ``1e-10``, measured against scipy);
    the tail is exact on the grid, so the spline keeps its relative accuracy
    there until the sf underflows (beyond 1e-300, where it is 0).
    """
    q = np.asarray(q, dtype=float)
    values, inverse = np.unique(q, return_inverse=True)
    if values.size <= _SRANGE_DIRECT:
        return studentized_range_sf(values, k, np.inf)[inverse].reshape(q.shape)
    from scipy.interpolate import CubicSpline

    grid = np.linspace(0.0, float(values[-1]), _SRANGE_DIRECT)
    sf = studentized_range_sf(grid, k, np.inf)
    good = sf > 0
    spline = CubicSpline(grid[good], np.log(sf[good]))
    top = grid[good][-1]
    out = np.where(values <= top, np.exp(spline(np.minimum(values, top))), 0.0)
    return np.clip(out, 0.0, 1.0)[inverse].reshape(q.shape)


def conover_p_values(ranks: np.ndarray) -> np.ndarray:
    r"""Unadjusted pairwise p-values of Conover's post-hoc test for Friedman.

    Two algorithms differ when
    :math:`|R_i - R_j| > t_{1-\alpha/2,(n-1)(k-1)}\sqrt{2(nA - \sum_j R_j^2)/((n-1)(k-1))}`,
    with rank sums :math:`R_j` and :math:`A = \sum r_{bj}^2` (Conover 1999,
    eq. 5.8.6). Adjust the p-values for multiplicity with
    :func:`benchverdict.stats.multiple_testing.adjust_p_values`.
    """
    ranks = np.asarray(ranks, dtype=float)
    n, k = ranks.shape
    rank_sums = ranks.sum(axis=0)
    a = float(np.sum(ranks**2))
    df = (n - 1) * (k - 1)
    spread = 2.0 * (n * a - float(np.sum(rank_sums**2))) / df if df > 0 else 0.0
    diff = np.abs(rank_sums[:, None] - rank_sums[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / np.sqrt(spread) if spread > 0 else np.where(diff > 0, np.inf, 0.0)
    p = 2.0 * stats.t.sf(t, df) if df > 0 else np.ones_like(t)
    np.fill_diagonal(p, 1.0)
    return np.clip(p, 0.0, 1.0)


def wilcoxon_p_values(oriented: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unadjusted pairwise Wilcoxon signed-rank tests over blocks (two-sided).

    Returns ``(p_values, statistic, direction)``: scipy's statistic (the
    smaller of the signed-rank sums), and ``direction[i, j] = R+ - R-`` for
    the differences ``oriented[:, i] - oriented[:, j]`` (positive: ``i`` is
    better). Zero differences are dropped (Wilcoxon's convention, scipy's
    default); a pair with no non-zero difference gets ``p = 1``.

    Every pair gets exactly what ``scipy.stats.wilcoxon(x_i, x_j)`` returns
    for it (scipy 1.17's ``method="auto"``): the exact null distribution
    without ties or zeros and at most 50 blocks; the exact sign-flip
    permutation distribution with ties or zeros and at most 13 blocks; the
    tie-corrected normal approximation otherwise. All pairs are computed
    at once (vectorised over pairs, in chunks), so thousands of algorithms
    cost seconds, not the minutes of one scipy call per pair.

    Examples
    --------
    >>> from scipy import stats
    >>> x = np.random.default_rng(0).normal(size=(12, 3))
    >>> p, _, _ = wilcoxon_p_values(x)
    >>> bool(np.isclose(p[0, 2], stats.wilcoxon(x[:, 0], x[:, 2]).pvalue, rtol=1e-12))
    True
    """
    oriented = np.asarray(oriented, dtype=float)
    n, k = oriented.shape
    p = np.ones((k, k))
    statistic = np.zeros((k, k))
    direction = np.zeros((k, k))
    first, second = np.triu_indices(k, 1)
    chunk = max(1, 4_000_000 // max(n, 1))
    exact_cache: dict[int, np.ndarray] = {}
    flip_cache: dict[tuple[int, ...], np.ndarray] = {}
    magnitude = np.abs(oriented)
    for start in range(0, first.size, chunk):
        i, j = first[start:start + chunk], second[start:start + chunk]
        d = (oriented[:, i] - oriented[:, j]).T
        # The round-off of a difference is relative to the two scores it is taken from
        # (in that block), not to the (smaller) difference.
        d = _without_round_off(d, np.maximum(magnitude[:, i], magnitude[:, j]).T)
        pv, st, bal = _wilcoxon_rows(d, exact_cache, flip_cache)
        p[i, j] = p[j, i] = pv
        statistic[i, j] = statistic[j, i] = st
        direction[i, j], direction[j, i] = bal, -bal
    return p, statistic, direction


def _without_round_off(d: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Differences (pairs x blocks) with round-off zeros made 0 and broken ties restored.

    ``scale`` (the shape of ``d``) is the larger magnitude of the two scores each
    difference is taken from. A difference within
    :data:`~benchverdict.stats.round_off.ROUND_OFF` of it is a zero (dropped, as
    Wilcoxon drops zeros); magnitudes equal but for round-off are made equal (one tie),
    so that the signed ranks do not depend on summation order or on a rescaling.
    """
    d = np.where(np.abs(d) <= ROUND_OFF * scale, 0.0, d)
    return np.sign(d) * snap_round_off(np.abs(d), scale=scale)


def _wilcoxon_rows(d: np.ndarray, exact_cache: dict, flip_cache: dict):
    """Two-sided Wilcoxon signed-rank tests of every row of ``d`` (pairs x blocks)."""
    m, n = d.shape
    zero = d == 0
    count = n - zero.sum(axis=1)
    magnitude = np.where(zero, np.inf, np.abs(d))
    ranks = stats.rankdata(magnitude, axis=1)  # zeros (inf) rank last and are ignored
    r_plus = np.sum(np.where(d > 0, ranks, 0.0), axis=1)
    r_minus = np.sum(np.where(d < 0, ranks, 0.0), axis=1)
    ordered = np.sort(magnitude, axis=1)
    finite = np.isfinite(ordered)
    same = (ordered[:, 1:] == ordered[:, :-1]) & finite[:, 1:]
    has_ties = same.any(axis=1)
    # sum over tie groups of t^3 - t, as sum over elements of t^2 - 1 (t = own group size)
    group = np.cumsum(np.concatenate([np.ones((m, 1), bool), ~same], axis=1), axis=1) - 1
    flat = (group + (np.arange(m) * n)[:, None])[finite]
    sizes = np.bincount(flat, minlength=m * n).astype(float)
    tie_term = np.bincount(np.nonzero(finite)[0], weights=sizes[flat] ** 2 - 1.0,
                           minlength=m)
    p = np.ones(m)
    informative = count > 0
    exact = informative & ~has_ties & (count == n) & (n <= 50)
    flips = informative & ~exact & (n <= 13)
    normal = informative & ~exact & ~flips
    if exact.any():
        if n not in exact_cache:
            exact_cache[n] = _subset_sum_counts(np.arange(1, n + 1) * 2)
        counts = exact_cache[n]
        doubled = np.rint(2 * r_plus[exact]).astype(np.int64)
        p[exact] = _two_sided_from_counts(counts, doubled, n)
    for row in np.flatnonzero(flips):
        doubled_ranks = tuple(sorted(np.rint(2 * ranks[row][~zero[row]]).astype(int).tolist()))
        if doubled_ranks not in flip_cache:
            flip_cache[doubled_ranks] = _subset_sum_counts(np.array(doubled_ranks))
        p[row] = _two_sided_from_counts(flip_cache[doubled_ranks],
                                        np.array([round(float(2 * r_plus[row]))]),
                                        len(doubled_ranks))[0]
    if normal.any():
        c = count[normal].astype(float)
        mean = c * (c + 1.0) * 0.25
        se = np.sqrt((c * (c + 1.0) * (2.0 * c + 1.0) - tie_term[normal] / 2) / 24)
        z = (r_plus[normal] - mean) / se
        p[normal] = 2 * special.ndtr(-np.abs(z))
    statistic = np.where(informative, np.minimum(r_plus, r_minus), 0.0)
    balance = np.where(informative, r_plus - r_minus, 0.0)
    return np.clip(p, 0.0, 1.0), statistic, balance


def _subset_sum_counts(weights: np.ndarray) -> np.ndarray:
    """``c[s]`` = number of subsets of ``weights`` (non-negative integers) summing to ``s``."""
    counts = np.zeros(int(np.sum(weights)) + 1)
    counts[0] = 1.0
    for w in weights:
        w = int(w)
        if w:
            counts[w:] = counts[w:] + counts[:-w].copy()
        else:
            counts = counts * 2
    return counts


def _two_sided_from_counts(counts: np.ndarray, observed: np.ndarray, n: int) -> np.ndarray:
    """``2 min(P(T <= t), P(T >= t))`` with ``T`` uniform over the 2**n sign patterns."""
    below = np.cumsum(counts)
    above = np.cumsum(counts[::-1])[::-1]
    total = 2.0**n
    return np.clip(2 * np.minimum(below[observed] / total, above[observed] / total), 0, 1)


# ---------------------------------------------------------------------- effect sizes
def cliffs_delta(x: np.ndarray, y: np.ndarray) -> float:
    r"""Cliff's delta :math:`P(X > Y) - P(X < Y)` over all pairs of values (as autorank).

    The values of ``x`` and ``y`` are compared as two samples (the blocks'
    pairing is not used), exactly as autorank computes it.

    Examples
    --------
    >>> cliffs_delta(np.array([3., 4, 5]), np.array([1., 2, 4]))
    0.6666666666666666
    """
    x = np.asarray(x, dtype=float)
    y = np.sort(np.asarray(y, dtype=float))
    below = np.searchsorted(y, x, side="left")
    above = len(y) - np.searchsorted(y, x, side="right")
    return float(np.sum(below - above) / (len(x) * len(y)))


_MAD_SCALE = 1.4826  # 1 / Phi^{-1}(3/4), rounded as autorank does: a MAD estimates a sigma


def _mad(values: np.ndarray, axis: int = -1) -> np.ndarray:
    med = np.median(values, axis=axis, keepdims=True)
    return np.median(np.abs(values - med), axis=axis) * _MAD_SCALE


def _pooled_mad(x: np.ndarray, y: np.ndarray) -> float:
    nx, ny = len(x), len(y)
    mad_x, mad_y = float(_mad(x)), float(_mad(y))
    return float(np.sqrt(((nx - 1) * mad_x**2 + (ny - 1) * mad_y**2) / (nx + ny - 2)))


def akinshin_gamma(x: np.ndarray, y: np.ndarray) -> float:
    r"""Akinshin's gamma: difference of medians over the pooled scaled MAD (as autorank).

    :math:`\gamma = (\operatorname{med} x - \operatorname{med} y) / s`, with
    :math:`s^2 = ((n_x-1)\,\mathrm{MAD}_x^2 + (n_y-1)\,\mathrm{MAD}_y^2)/(n_x+n_y-2)` and
    MADs scaled by 1.4826 to estimate a normal standard deviation. Infinite
    when both MADs are 0 and the medians differ; 0 when nothing differs.

    Examples
    --------
    >>> round(akinshin_gamma(np.array([3., 4, 5, 6]), np.array([1., 2, 3, 4])), 3)
    1.349
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    diff = float(np.median(x) - np.median(y))
    scale = _pooled_mad(x, y)
    if scale == 0:
        return 0.0 if diff == 0 else float(np.sign(diff) * np.inf)
    return diff / scale


#: Largest ``distinct values x columns`` table :func:`_balance_table` builds (int32
#: entries: 16 MiB, about 64 MiB while it is built); beyond it (e.g. 1000 algorithms on
#: 5 or more blocks) the counts come from binary searches, as before the table.
_BALANCE_TABLE_MAX = 1 << 22


def _dense_ranks(oriented: np.ndarray) -> np.ndarray | None:
    """Dense ranks from 0 over the whole matrix (equal values share one), or None with NaN."""
    if np.isnan(oriented).any():
        return None
    return stats.rankdata(oriented, method="dense").reshape(oriented.shape).astype(np.int64) - 1


def _balance_table(dense: np.ndarray) -> np.ndarray | None:
    """``D[r, j] = #(column j < v) - #(column j > v)`` for the value ``v`` of dense rank ``r``.

    ``dense`` holds the dense ranks (from 0) of a ``blocks x columns``
    matrix; ``D`` is ``distinct values x columns`` (``int32``), so the
    comparisons of any value with a whole column are one lookup instead of
    two binary searches (about 20 times faster). None when the table would
    exceed :data:`_BALANCE_TABLE_MAX` entries.

    Examples
    --------
    >>> _balance_table(np.array([[0, 2], [1, 1]])).tolist()  # column 0 holds 0, 1; column 1: 2, 1
    [[-1, -2], [1, -1], [2, 1]]
    """
    n, k = dense.shape
    levels = int(dense.max()) + 1 if dense.size else 0
    if levels * k > _BALANCE_TABLE_MAX:
        return None
    counts = np.bincount((dense * k + np.arange(k)).ravel(), minlength=levels * k)
    counts = counts.astype(np.int32).reshape(levels, k)
    table = np.cumsum(counts, axis=0, dtype=np.int32)  # at most
    # below - above = (at_most - counts) - (n - at_most)
    table *= 2
    table -= counts
    table -= n
    return table


def effect_size_matrices(oriented: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cliff's delta and Akinshin's gamma of every column against every other, as k x k matrices.

    ``delta[i, j]`` and ``gamma[i, j]`` are :func:`cliffs_delta` and
    :func:`akinshin_gamma` of column ``i`` against column ``j``; both are
    antisymmetric. O(n k^2) time with each column's median and MAD computed
    once; Cliff's counts are lookups in :func:`_balance_table` (one per value
    and column; binary searches when the table would be too large or a
    value is NaN).

    Examples
    --------
    >>> x = np.array([[3.0, 1.0], [4.0, 2.0], [5.0, 4.0]])
    >>> delta, gamma = effect_size_matrices(x)
    >>> float(delta[0, 1]) == cliffs_delta(x[:, 0], x[:, 1]), float(delta[1, 0] + delta[0, 1])
    (True, 0.0)
    """
    oriented = np.asarray(oriented, dtype=float)
    n, k = oriented.shape
    dense = _dense_ranks(oriented)
    table = None if dense is None else _balance_table(dense)
    if table is not None:  # one lookup per value and column
        sums = np.empty((k, k), dtype=np.int64)
        step = max(1, (1 << 22) // max(n * k, 1))
        for c0 in range(0, k, step):
            sums[c0:c0 + step] = table[dense[:, c0:c0 + step]].sum(axis=0)
        delta = sums / (n * n)
    else:
        sorted_columns = np.sort(oriented, axis=0)
        delta = np.empty((k, k))
        for j in range(k):
            below = np.searchsorted(sorted_columns[:, j], oriented, side="left")
            above = n - np.searchsorted(sorted_columns[:, j], oriented, side="right")
            delta[:, j] = (below - above).sum(axis=0) / (n * n)
    medians = np.median(oriented, axis=0)
    mads = _mad(oriented, axis=0)
    diff = medians[:, None] - medians[None, :]
    scale = np.sqrt((mads[:, None] ** 2 + mads[None, :] ** 2) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0),
                         np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
    return delta, gamma


def pairwise_effect_sizes(
    oriented: np.ndarray, pairs: list[tuple[int, int]]
) -> dict[tuple[int, int], tuple[float, float]]:
    """Cliff's delta and Akinshin's gamma of column ``i`` against ``j`` for every pair.

    The same values as :func:`cliffs_delta` and :func:`akinshin_gamma`
    (from :func:`effect_size_matrices`).
    """
    delta, gamma = effect_size_matrices(oriented)
    return {(i, j): (float(delta[i, j]), float(gamma[i, j])) for i, j in pairs}


#: Fewest blocks for which :func:`cliffs_delta_intervals` gives bounds (NaN below).
CLIFF_MIN_BLOCKS = 5
#: Weight of the boundary-aware (Wilson-type) part of :func:`cliffs_delta_intervals`.
CLIFF_BOUNDARY_WEIGHT = 0.5
#: What the rank tests say about the percentile bootstrap interval of Akinshin's gamma,
#: measured in tests/test_rank_intervals.py (nominal 0.95, normal scores, 400 tables per
#: model, block sd 0 to 2, shift 0 to 2 sd).
GAMMA_INTERVAL_NOTE = (
    "Akinshin's gamma intervals are a percentile bootstrap over blocks: in our simulations "
    "they covered 0.94-0.97 at nominal 0.95 with 10 blocks but only 0.86-0.94 with 6; with "
    "fewer than 10 blocks they do not hold their level, read them as descriptive")


def cliffs_delta_intervals(
    oriented: np.ndarray, first: np.ndarray, second: np.ndarray, *, confidence: float,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Intervals for the population Cliff's delta of column ``first[p]`` against ``second[p]``.

    **Estimand.** Autorank's Cliff's delta (:func:`cliffs_delta`) compares
    every block's value of one algorithm with every block's value of the
    other; as the number of blocks grows it tends to
    :math:`\theta = P(X_A > Y_B) - P(X_A < Y_B)` for two *independent*
    random blocks (benchmarks) :math:`A \ne B`. That is the parameter
    covered.

    **Interval.** With blocks :math:`Z_a = (x_a, y_a)` the unbiased
    estimate is the U-statistic over distinct blocks,
    :math:`U = \sum_{a \ne b} \operatorname{sign}(x_a - y_b) / (n(n-1))`
    (Cliff 1993 for the dependent case), whose variance :math:`v` is
    estimated by the jackknife over blocks (leave one block out; closed
    form, no resampling). The interval is the hull of

    1. the :math:`t`-interval :math:`U \pm t_{n-1, 1-\alpha/2}\sqrt v`;
    2. a Wilson-type score interval
       :math:`\{\theta : (U - \theta)^2 \le t^2_{n-1,1-\alpha/2}\,
       w (1 - \theta^2) / n\}` with :math:`w` = :data:`CLIFF_BOUNDARY_WEIGHT`.
       For independent samples :math:`\operatorname{Var} \hat\theta \le
       (1 - \theta^2)/n` (Birnbaum and Klose 1957); this part keeps the
       interval from collapsing when every value of one algorithm beats
       every value of the other, where :math:`v = 0` and the :math:`t`-
       interval alone covered about 0.5 at 10 blocks;
    3. the reported (autorank) estimate, which differs from :math:`U` by
       its :math:`n` same-block comparisons (at most :math:`2/n`);

    clipped to :math:`[-1, 1]`. Measured coverage (nominal 0.95, normal
    scores, block effects 0 to 2 sd, shifts 0 to 3 sd, with and without
    ties, 6 to 20 blocks) was 0.95 to 1.0; it is conservative when block
    effects are strong (the score part then dominates). The percentile
    bootstrap used before covered 0.88 to 0.91 at 10 blocks. With fewer
    than :data:`CLIFF_MIN_BLOCKS` blocks the bounds are NaN.

    The interval of ``(j, i)`` is exactly minus that of ``(i, j)``, and
    only the order of the values matters (any increasing transform of all
    scores leaves it unchanged). Cost: ``O(pairs x n)`` lookups in
    :func:`_balance_table` (``O(pairs x n log n)`` binary searches when the
    table would be too large or a value is NaN).

    Parameters
    ----------
    oriented : numpy.ndarray
        ``blocks x algorithms``, larger is better.
    first, second : numpy.ndarray
        Column indices of the pairs.
    confidence : float
        Level of each interval (not simultaneous).

    Returns
    -------
    (lower, upper) : tuple of numpy.ndarray

    Examples
    --------
    >>> x = np.array([[3., 1], [4, 2], [5, 4], [6, 3], [2, 5], [7, 1]])
    >>> low, high = cliffs_delta_intervals(x, np.array([0]), np.array([1]), confidence=0.95)
    >>> bool(low[0] <= cliffs_delta(x[:, 0], x[:, 1]) <= high[0]), bool(-1 <= low[0] < high[0] <= 1)
    (True, True)
    """
    oriented = np.asarray(oriented, dtype=float)
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    n, k = oriented.shape
    m = first.size
    lower, upper = np.full(m, np.nan), np.full(m, np.nan)
    if n < CLIFF_MIN_BLOCKS or m == 0:
        return lower, upper
    # Global dense ranks keep the order of all values and make one sorted array of all
    # columns (column c offset by c * big), so one searchsorted counts for many pairs.
    g = stats.rankdata(oriented, method="dense").reshape(n, k)
    big = float(g.max() + 1)
    offsets = np.arange(k) * big
    flat = (np.sort(g, axis=0) + offsets[None, :]).T.ravel()
    dense = None if np.isnan(g).any() else g.astype(np.int64) - 1
    table = None if dense is None else _balance_table(dense)

    def balance(values: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """#(column < value) - #(column > value) for each value against its pair's column."""
        if table is not None:  # a lookup (values are dense ranks from 1)
            # C order, as searchsorted returns: the sums below then add in the same order
            return table[values.astype(np.int64) - 1, columns[None, :]].astype(float, order="C")
        q = values + offsets[columns][None, :]
        start = (columns * n)[None, :]
        below = np.searchsorted(flat, q, side="left") - start
        above = n - (np.searchsorted(flat, q, side="right") - start)
        return (below - above).astype(float)

    z = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1))
    c = z * z * CLIFF_BOUNDARY_WEIGHT / n
    step = max(1, (1 << 22) // max(n, 1))
    for s in range(0, m, step):
        i, j = first[s:s + step], second[s:s + step]
        xi, xj = g[:, i], g[:, j]
        rows = balance(xi, j)  # sum_b sign(x_a - y_b), per block a
        cols = -balance(xj, i)  # sum_a sign(x_a - y_b), per block b
        same = np.sign(xi - xj)
        total = rows.sum(axis=0) - same.sum(axis=0)  # distinct blocks only
        u = total / (n * (n - 1))
        left_out = (total[None, :] - (rows - same) - (cols - same)) / ((n - 1) * (n - 2))
        v = (n - 1) / n * ((left_out - left_out.mean(axis=0)) ** 2).sum(axis=0)
        half = z * np.sqrt(v)
        reported = rows.sum(axis=0) / (n * n)
        root = np.sqrt(np.maximum(u * u - (1 + c) * (u * u - c), 0.0))
        lower[s:s + step] = np.clip(np.minimum.reduce([u - half, (u - root) / (1 + c),
                                                       reported]), -1.0, 1.0)
        upper[s:s + step] = np.clip(np.maximum.reduce([u + half, (u + root) / (1 + c),
                                                       reported]), -1.0, 1.0)
    return lower, upper


def _inverted_cdf_index(n: int, q: float) -> int:
    """The 0-based order statistic ``numpy.quantile(x, q, method="inverted_cdf")`` returns.

    The smallest value whose empirical CDF reaches ``q``, computed as numpy does
    (virtual index ``n q - 1``, rounded up when it has a fractional part).

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=2000)
    >>> all(np.sort(x)[_inverted_cdf_index(2000, q)] == np.quantile(x, q, method="inverted_cdf")
    ...     for q in (0.0, 0.025, 0.5, 0.975, 0.99975, 1.0))
    True
    """
    virtual = n * q - 1
    below = math.floor(virtual)
    index = below + 1 if virtual - below > 0 else below
    return min(max(int(index), 0), n - 1)


def _resampled_medians_mads_numpy(oriented: np.ndarray, idx: np.ndarray, *,
                                  progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Median and scaled MAD of every column over every resample, by ``numpy.median``.

    The reference for :func:`resampled_medians_mads` (which returns the same
    numbers, bit for bit, for finite values); used when a value is infinite.
    ``idx`` is ``resamples x blocks`` (row indices); returns two
    ``resamples x columns`` arrays. About 25 ms per column at 1000 resamples
    of 500 blocks.
    """
    b, k = idx.shape[0], oriented.shape[1]
    medians = np.empty((b, k))
    mads = np.empty((b, k))
    columns = range(k)
    if progress:
        from tqdm.auto import tqdm

        columns = tqdm(columns, desc="effect-size bootstrap", unit="algorithm", leave=False)
    for a in columns:  # one column at a time keeps memory at B x n
        resampled = oriented[idx, a]
        medians[:, a] = np.median(resampled, axis=1)
        mads[:, a] = _mad(resampled, axis=1)
    return medians, mads


@functools.lru_cache(maxsize=1)
def _small_rank_sort() -> tuple[type, str]:
    """The fastest way this machine sorts rows of ranks below 32,768 (timed once).

    numpy sorts ``int16`` rows with SIMD quicksort only where the CPU has
    AVX-512 (about 0.3 ms for 1000 rows of 500; 13 ms without it), ``int16``
    with its radix sort (``kind="stable"``) at about 1.8 ms anywhere, and
    ``int32`` with SIMD quicksort where it has AVX2 (about 1.1 ms). The
    sorted rows are the same whichever is used, so only the speed depends on
    this choice: each candidate sorts the same 64 rows of 500 three times
    and the fastest is kept for the process.
    """
    import time

    rows = np.random.default_rng(0).integers(0, 500, size=(64, 500))
    best, choice = float("inf"), (np.int16, "stable")
    for dtype, kind in ((np.int16, "quicksort"), (np.int16, "stable"), (np.int32, "quicksort")):
        sample = rows.astype(dtype)
        for _ in range(3):
            start = time.perf_counter()
            np.sort(sample, axis=1, kind=kind)
            elapsed = time.perf_counter() - start
            if elapsed < best:
                best, choice = elapsed, (dtype, kind)
    return choice


def _rank_sort(n: int) -> tuple[type, str]:
    """Integer type and sort kind for rows of ranks ``0 .. n-1`` (see :func:`_small_rank_sort`)."""
    if n <= np.iinfo(np.int16).max:
        return _small_rank_sort()
    return (np.int32 if n <= np.iinfo(np.int32).max else np.int64), "quicksort"


def resampled_medians_mads(oriented: np.ndarray, idx: np.ndarray, *, progress: bool = False,
                           chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    r"""Median and scaled MAD of every column over every resample, from sorted integer ranks.

    Returns exactly (bit for bit) what ``numpy.median(x[idx, a], axis=1)`` and
    :func:`_mad` give for every column ``a`` of a finite ``x``, about 20 times
    faster (1000 resamples of 500 blocks: about 1 ms per column instead of
    25 ms with AVX-512; about 2.5 ms with AVX2 only, 5 ms with no SIMD sort).

    **How.** Each column is replaced by the ranks ``0 .. n-1`` of its values
    (ties broken by position; tied values are equal, so which one comes first
    changes no number below). A resample of ranks is a row of small integers,
    which numpy sorts several times faster than floats (``int16`` or
    ``int32``, whichever this machine sorts faster: :func:`_small_rank_sort`),
    and the sorted resample of values is ``sorted_column[ranks]``.
    Its median is one order statistic, or the mean ``(a + b) / 2`` of two, as
    in ``numpy.median``.

    The MAD needs the ``t``-th smallest (0-based) deviation
    :math:`d_j = |v_j - m|` of the sorted resample :math:`v_0 \le \dots \le
    v_{n-1}` from its median :math:`m`. The :math:`t + 1` smallest deviations
    can be taken as a run :math:`v_s, \dots, v_{s+t}` of consecutive values
    (the values nearest to :math:`m`), and within a run the largest deviation
    is at an end, so

    .. math::

        d_{(t)} = \min_{0 \le s \le n-1-t} \max(m - v_s,\; v_{s+t} - m).

    (When the run lies above :math:`m`, :math:`m - v_s < 0` and the maximum
    is :math:`v_{s+t} - m`, its largest deviation; below, symmetrically.) In
    floating point this holds for the computed ``abs(v - m)`` too: rounding is
    monotone and ``fl(m - v) = -fl(v - m)``, so the computed deviations still
    fall and then rise along the sorted resample and the terms above are the
    computed deviations. :math:`A(s) = m - v_s` does not increase with
    :math:`s` and :math:`B(s) = v_{s+t} - m` does not decrease, so the first
    :math:`s^*` with :math:`A(s^*) \le B(s^*)` is found by bisection, and the
    minimum is :math:`\min(B(s^*), A(s^* - 1))`: every :math:`s < s^*` has
    maximum :math:`A(s) \ge A(s^* - 1)`, every :math:`s \ge s^*` has
    :math:`B(s) \ge B(s^*)`. The MAD is the mean of the two middle
    deviations (or the middle one) times 1.4826, as in :func:`_mad`. All
    resamples and columns of a chunk are bisected together, about
    :math:`\log_2 n` vector steps.

    Parameters
    ----------
    oriented : numpy.ndarray
        ``blocks x columns``, finite.
    idx : numpy.ndarray
        ``resamples x blocks`` row indices of the resamples.
    progress : bool
        Show a progress bar over the chunks of columns.
    chunk : int
        About how many resampled values are held at once (columns are taken
        together up to it).

    Returns
    -------
    (medians, mads) : tuple of numpy.ndarray
        ``resamples x columns`` each.

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(9, 3))
    >>> idx = np.random.default_rng(1).integers(0, 9, size=(50, 9))
    >>> med, mad = resampled_medians_mads(x, idx)
    >>> bool(np.array_equal(med[:, 1], np.median(x[idx, 1], axis=1)))
    True
    >>> bool(np.array_equal(mad[:, 2], _mad(x[idx, 2], axis=1)))
    True
    """
    oriented = np.asarray(oriented, dtype=float)
    idx = np.asarray(idx, dtype=np.intp)
    n, k = oriented.shape
    b = idx.shape[0]
    medians = np.empty((b, k))
    mads = np.empty((b, k))
    if b == 0 or k == 0:
        return medians, mads
    order = np.argsort(oriented, axis=0, kind="stable")
    values = np.take_along_axis(oriented, order, axis=0).T.ravel()  # sorted columns, end to end
    dtype, kind = _rank_sort(n)
    ranks = np.empty((k, n), dtype=dtype)
    ranks[np.arange(k)[:, None], order.T] = np.arange(n, dtype=dtype)
    low, high = (n - 1) // 2, n // 2
    step = max(1, chunk // max(b * n, 1))
    starts = range(0, k, step)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc="effect-size bootstrap", unit="chunk", leave=False)
    for c0 in starts:
        columns = list(range(c0, min(k, c0 + step)))
        rows = len(columns) * b
        resamples = np.empty((len(columns), b, n), dtype=dtype)
        for j, a in enumerate(columns):
            np.take(ranks[a], idx, out=resamples[j])
            resamples[j].sort(axis=1, kind=kind)
        flat = resamples.ravel()
        row_start = np.arange(rows, dtype=np.int64) * n
        column_start = np.repeat(np.array(columns, dtype=np.int64) * n, b)

        def value(position: np.ndarray | int, flat=flat, row_start=row_start,
                  column_start=column_start) -> np.ndarray:
            """The value at ``position`` of each row's sorted resample."""
            return values[column_start + flat[row_start + position]]

        med = value(low) if low == high else (value(low) + value(high)) / 2
        mad = _middle_deviation(value, med, n, low, high)
        medians[:, c0:c0 + len(columns)] = med.reshape(len(columns), b).T
        mads[:, c0:c0 + len(columns)] = (mad * _MAD_SCALE).reshape(len(columns), b).T
    return medians, mads


def _middle_deviation(value, med: np.ndarray, n: int, low: int, high: int) -> np.ndarray:
    """The median of ``|v - med|`` over each row's sorted resample ``v`` (see the caller).

    The ``low``-th smallest deviation by bisection for the first run start
    ``s*`` with ``med - v[s] <= v[s + low] - med``. With an even ``n`` the
    ``high = low + 1``-th follows from one more comparison: call the
    conditions for runs of ``low + 1`` and ``low + 2`` values ``P(s)`` and
    ``P'(s)``. ``P(s)`` implies ``P'(s)`` (the run's far end only moves
    out), and ``P'(s)`` implies ``P(s + 1)`` (``med - v[s + 1] <= med -
    v[s] <= v[s + 1 + low] - med``), so the first start for ``P'`` is ``s*``
    or ``s* - 1``.
    """

    def smallest(start: np.ndarray, t: int) -> np.ndarray:
        """min(v[s + t] - med, med - v[s - 1]) at the first start s of the condition."""
        right = np.where(start < n - t, value(np.minimum(start, n - 1 - t) + t) - med, np.inf)
        left = np.where(start > 0, med - value(np.maximum(start - 1, 0)), np.inf)
        return np.minimum(right, left)

    length = n - low  # run starts s = 0 .. length - 1
    start = np.zeros(med.size, dtype=np.int64)
    step = 1 << (length.bit_length() - 1)
    while step:  # branchless bisection: start = how many s fail the condition
        candidate = start + step
        probe = np.minimum(candidate, length) - 1
        fails = (med - value(probe)) > (value(probe + low) - med)
        start = np.where((candidate <= length) & fails, candidate, start)
        step >>= 1
    first = smallest(start, low)
    if high == low:
        return first
    start = np.minimum(start, length - 1)  # runs of high + 1 values: s = 0 .. length - 2
    probe = np.maximum(start - 1, 0)
    holds = (med - value(probe)) <= (value(probe + high) - med)
    start = np.where((start > 0) & holds, start - 1, start)
    return (first + smallest(start, high)) / 2


def bootstrap_effect_intervals(
    oriented: np.ndarray,
    pairs: list[tuple[int, int]],
    *,
    n_resamples: int,
    confidence: float,
    rng: np.random.Generator,
    progress: bool = False,
) -> dict[tuple[int, int], dict[str, tuple[float, float]]]:
    """Intervals for Cliff's delta and Akinshin's gamma of each pair.

    Returns, per pair ``(i, j)``,
    ``{"cliffs_delta": (lower, upper), "akinshin_gamma": (lower, upper)}``
    for column ``i`` against column ``j``; NaN bounds when ``n_resamples``
    is 0 or there are fewer than 2 blocks (and, for Cliff's delta, fewer
    than :data:`CLIFF_MIN_BLOCKS`).

    - **Cliff's delta**: :func:`cliffs_delta_intervals` (U-statistic with
      its jackknife variance and a boundary-aware score part), which holds
      its level at 5 to 20 blocks; no resampling. The percentile bootstrap
      used before covered about 0.9 at nominal 0.95 with 10 blocks.
    - **Akinshin's gamma**: a percentile bootstrap over blocks (each
      block's values kept together; the same resamples serve every pair).
      It does **not** hold its level with fewer than 10 blocks: see
      :data:`GAMMA_INTERVAL_NOTE`, which the rank tests add to their notes.

    The resamples follow the rows' order, and a gamma interval of ``(j, i)``
    is not exactly minus that of ``(i, j)`` (percentiles of a finite sample
    are not symmetric); :func:`~benchverdict.ranks.friedman` therefore
    passes the blocks in a canonical order and each pair in a canonical
    orientation (:mod:`benchverdict.stats.symmetry`), so names cannot move
    an interval. The cost is about ``algorithms x n_resamples x blocks``
    for the medians and MADs (:func:`resampled_medians_mads`: a sort of
    small integers per resample, about 1 ms per algorithm at 1000 resamples
    of 500 blocks) plus ``pairs x n_resamples`` for gamma.

    The interval is not computed in closed form: gamma is a ratio of
    medians and MADs of two algorithms resampled by the same blocks, not
    one order statistic of a resample (whose bootstrap distribution is a
    binomial sum), so its percentiles come from the resamples. What the
    resamples cost was made cheaper; the draws and the numbers are those of
    ``numpy.median`` on ``x[idx]`` (the test suite checks bit equality).

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(10, 3)) + np.array([0.0, 0.5, 1.0])
    >>> got = bootstrap_effect_intervals(x, [(2, 0)], n_resamples=200, confidence=0.95,
    ...                                  rng=np.random.default_rng(1))[(2, 0)]
    >>> low, high = got["cliffs_delta"]
    >>> bool(low <= cliffs_delta(x[:, 2], x[:, 0]) <= high)
    True
    """
    oriented = np.asarray(oriented, dtype=float)
    n = oriented.shape[0]
    nan = (float("nan"), float("nan"))
    if n_resamples <= 0 or n < 2:
        return {p: {"cliffs_delta": nan, "akinshin_gamma": nan} for p in pairs}
    first = np.array([p[0] for p in pairs], dtype=np.int64)
    second = np.array([p[1] for p in pairs], dtype=np.int64)
    delta_low, delta_high = cliffs_delta_intervals(oriented, first, second,
                                                   confidence=confidence)
    idx = rng.integers(0, n, size=(n_resamples, n))
    # per algorithm and resample: median and MAD (for gamma)
    if np.isfinite(oriented).all():
        medians, mads = resampled_medians_mads(oriented, idx, progress=progress)
    else:  # inf - inf: numpy's NaN rules decide, so let numpy compute them
        medians, mads = _resampled_medians_mads_numpy(oriented, idx, progress=progress)
    tail = (1 - confidence) / 2
    # The two order statistics numpy.quantile(method="inverted_cdf") picks, found by one
    # partial sort per chunk instead of a full sort of every pair's resamples.
    ranks_picked = [_inverted_cdf_index(n_resamples, q) for q in (tail, 1 - tail)]
    gamma_low, gamma_high = np.empty(len(pairs)), np.empty(len(pairs))
    # Chunks of about 2^16 values: the temporaries stay in cache (4x faster than 2^24 values
    # at 200 algorithms).
    step = max(1, (1 << 16) // max(n_resamples, 1))
    for s in range(0, len(pairs), step):
        i, j = first[s:s + step], second[s:s + step]
        pooled = np.sqrt((mads[:, i] ** 2 + mads[:, j] ** 2) / 2.0)
        diff = medians[:, i] - medians[:, j]
        with np.errstate(divide="ignore", invalid="ignore"):
            gammas = np.where(pooled > 0, diff / np.where(pooled > 0, pooled, 1.0),
                              np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
        # order statistics, no interpolation: gamma can be infinite when MADs vanish
        gammas.partition(ranks_picked, axis=0)
        gamma_low[s:s + step] = gammas[ranks_picked[0]]
        gamma_high[s:s + step] = gammas[ranks_picked[1]]
    return {pair: {"cliffs_delta": (float(delta_low[p]), float(delta_high[p])),
                   "akinshin_gamma": (float(gamma_low[p]), float(gamma_high[p]))}
            for p, pair in enumerate(pairs)}
