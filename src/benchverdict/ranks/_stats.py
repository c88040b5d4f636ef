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
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchverdict.stats.studentized_range import studentized_range_quantile

__all__ = [
    "FriedmanStatistic",
    "adjust_pvalues",
    "akinshin_gamma",
    "block_ranks",
    "bootstrap_effect_intervals",
    "cliffs_delta",
    "conover_pvalues",
    "friedman_statistic",
    "nemenyi_critical_difference",
    "nemenyi_pvalues",
    "pairwise_effect_sizes",
    "wilcoxon_pvalues",
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
    pvalue: float
    kendall_w: float
    iman_davenport: float
    iman_davenport_df: tuple[int, int]
    iman_davenport_pvalue: float
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


def nemenyi_pvalues(average_ranks: np.ndarray, n: int) -> np.ndarray:
    r"""Pairwise Nemenyi p-values (already family-wise: the studentized range).

    :math:`p_{ij} = P(Q_{k,\infty} > \sqrt2\,|\bar R_i - \bar R_j| / \sqrt{k(k+1)/(6n)})`.
    A pair differs at level :math:`\alpha` exactly when its average ranks
    differ by more than :func:`nemenyi_critical_difference`.
    """
    r = np.asarray(average_ranks, dtype=float)
    k = len(r)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    z = np.abs(r[:, None] - r[None, :]) / se
    iu = np.triu_indices(k, 1)
    p = np.ones((k, k))
    if len(iu[0]):
        values = stats.studentized_range.sf(z[iu] * np.sqrt(2), k, np.inf)
        p[iu] = np.clip(values, 0.0, 1.0)
        p[(iu[1], iu[0])] = p[iu]
    return p


def conover_pvalues(ranks: np.ndarray) -> np.ndarray:
    r"""Unadjusted pairwise p-values of Conover's post-hoc test for Friedman.

    Two algorithms differ when
    :math:`|R_i - R_j| > t_{1-\alpha/2,(n-1)(k-1)}\sqrt{2(nA - \sum_j R_j^2)/((n-1)(k-1))}`,
    with rank sums :math:`R_j` and :math:`A = \sum r_{bj}^2` (Conover 1999,
    eq. 5.8.6). Adjust the p-values for multiplicity with
    :func:`adjust_pvalues`.
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


def wilcoxon_pvalues(oriented: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unadjusted pairwise Wilcoxon signed-rank tests over blocks (two-sided).

    Returns ``(pvalues, statistic, direction)``: scipy's statistic (the
    smaller of the signed-rank sums), and ``direction[i, j] = R+ - R-`` for
    the differences ``oriented[:, i] - oriented[:, j]`` (positive: ``i`` is
    better). Zero differences are dropped (Wilcoxon's convention, scipy's
    default); a pair with no non-zero difference gets ``p = 1``.
    """
    oriented = np.asarray(oriented, dtype=float)
    k = oriented.shape[1]
    p = np.ones((k, k))
    statistic = np.zeros((k, k))
    direction = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            d = oriented[:, i] - oriented[:, j]
            nonzero = d[d != 0]
            if len(nonzero) == 0:
                continue
            res = stats.wilcoxon(oriented[:, i], oriented[:, j])
            p[i, j] = p[j, i] = float(res.pvalue)
            statistic[i, j] = statistic[j, i] = float(res.statistic)
            r = stats.rankdata(np.abs(nonzero))
            balance = float(r[nonzero > 0].sum() - r[nonzero < 0].sum())
            direction[i, j], direction[j, i] = balance, -balance
    return p, statistic, direction


def adjust_pvalues(pvalues: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values: ``"holm"`` (step-down), ``"bonferroni"`` or ``"none"``.

    Holm's adjusted p-value of the ``i``-th smallest of ``m`` is
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``; it controls the family-wise
    error rate under any dependence, like Bonferroni's ``min(1, m p)``, and
    rejects at least as much.

    Examples
    --------
    >>> adjust_pvalues(np.array([0.01, 0.04, 0.03]), "holm")
    array([0.03, 0.06, 0.06])
    >>> adjust_pvalues(np.array([0.01, 0.04, 0.03]), "bonferroni")
    array([0.03, 0.12, 0.09])
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    if method == "holm":
        order = np.argsort(p, kind="stable")
        scaled = (m - np.arange(m)) * p[order]
        adjusted = np.minimum(1.0, np.maximum.accumulate(scaled))
        out = np.empty(m)
        out[order] = adjusted
        return out
    raise ValueError(f"adjust must be 'holm', 'bonferroni' or 'none', got {method!r}.")


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


def pairwise_effect_sizes(
    oriented: np.ndarray, pairs: list[tuple[int, int]]
) -> dict[tuple[int, int], tuple[float, float]]:
    """Cliff's delta and Akinshin's gamma of column ``i`` against ``j`` for every pair.

    The same values as :func:`cliffs_delta` and :func:`akinshin_gamma`, with
    each column's sort, median and MAD computed once.
    """
    oriented = np.asarray(oriented, dtype=float)
    n = oriented.shape[0]
    sorted_columns = np.sort(oriented, axis=0)
    medians = np.median(oriented, axis=0)
    mads = _mad(oriented, axis=0)
    out = {}
    for i, j in pairs:
        x, y_sorted = oriented[:, i], sorted_columns[:, j]
        below = np.searchsorted(y_sorted, x, side="left")
        above = n - np.searchsorted(y_sorted, x, side="right")
        delta = float(np.sum(below - above) / (n * n))
        diff = float(medians[i] - medians[j])
        scale = float(np.sqrt((mads[i] ** 2 + mads[j] ** 2) / 2.0))
        if scale == 0:
            gamma = 0.0 if diff == 0 else float(np.sign(diff) * np.inf)
        else:
            gamma = diff / scale
        out[(i, j)] = (delta, gamma)
    return out


def bootstrap_effect_intervals(
    oriented: np.ndarray,
    pairs: list[tuple[int, int]],
    *,
    n_bootstrap: int,
    level: float,
    rng: np.random.Generator,
) -> dict[tuple[int, int], dict[str, tuple[float, float]]]:
    """Percentile bootstrap intervals for Cliff's delta and Akinshin's gamma of each pair.

    Blocks (rows of ``oriented``) are resampled with replacement, keeping
    each block's values together: the blocks, not the values, are the
    independent units. The same resamples serve every pair. For Cliff's
    delta, a resampled block is compared with itself once per position,
    as in the original statistic; the extra same-block pairs that
    duplicated blocks would add are left out. Returns, per
    pair ``(i, j)``, ``{"cliffs_delta": (low, high), "akinshin_gamma": (low, high)}``
    for column ``i`` against column ``j``.
    """
    oriented = np.asarray(oriented, dtype=float)
    n, k = oriented.shape
    nan = (float("nan"), float("nan"))
    if n_bootstrap <= 0 or n < 2:
        return {p: {"cliffs_delta": nan, "akinshin_gamma": nan} for p in pairs}
    idx = rng.integers(0, n, size=(n_bootstrap, n))
    flat = (idx + (np.arange(n_bootstrap) * n)[:, None]).ravel()
    counts = np.bincount(flat, minlength=n_bootstrap * n).reshape(n_bootstrap, n).astype(float)
    # per algorithm and resample: median and MAD (for gamma), cumulative weights in sorted order
    medians = np.empty((n_bootstrap, k))
    mads = np.empty((n_bootstrap, k))
    for a in range(k):  # one algorithm at a time keeps memory at B x n
        resampled = oriented[idx, a]
        medians[:, a] = np.median(resampled, axis=1)
        mads[:, a] = _mad(resampled, axis=1)
    orders = np.argsort(oriented, axis=0, kind="stable")
    # blocks x resamples layout: gathering whole rows is much faster than gathering columns
    counts_t = np.ascontiguousarray(counts.T)
    counts_sq_t = counts_t**2
    denominator = n + n**2 - counts_sq_t.sum(axis=0)
    tail = (1 - level) / 2
    quantiles = [tail, 1 - tail]
    out = {}
    cum_cache: dict[int, np.ndarray] = {}
    for i, j in pairs:
        x, y = oriented[:, i], oriented[:, j]
        # Cliff's delta of a resample with block weights w:
        # sum_i w_i (W(y < x_i) - W(y > x_i)) / n^2, where W sums the weights of y values in
        # a range. With y sorted once, both are look-ups in cumulative weights: O(B n).
        if j not in cum_cache:
            cum_cache[j] = np.concatenate(
                [np.zeros((1, n_bootstrap)), np.cumsum(counts_t[orders[:, j]], axis=0)], axis=0
            )
        cum = cum_cache[j]
        y_sorted = y[orders[:, j]]
        # below - above = cum[left] - (total - cum[right]) = cum[left] + cum[right] - total
        balance = (cum[np.searchsorted(y_sorted, x, side="left")]
                   + cum[np.searchsorted(y_sorted, x, side="right")])
        cross = np.einsum("ib,ib->b", counts_t, balance) - n * n
        # A resample holding block i w_i times would compare x_i with y_i w_i^2 times, but
        # the statistic pairs a block with itself only once per position (n of the n^2
        # pairs). Keep those n self-pairs and drop the copies' same-block pairs, else the
        # bootstrap is biased towards the within-block comparison.
        same = np.sign(x - y)
        numerator = cross - same @ counts_sq_t + same @ counts_t
        deltas = numerator / denominator
        pooled = np.sqrt((mads[:, i] ** 2 + mads[:, j] ** 2) / 2.0)
        diff = medians[:, i] - medians[:, j]
        with np.errstate(divide="ignore", invalid="ignore"):
            gammas = np.where(pooled > 0, diff / np.where(pooled > 0, pooled, 1.0),
                              np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
        # order statistics, no interpolation: gamma can be infinite when MADs vanish
        out[(i, j)] = {
            "cliffs_delta": tuple(
                float(v) for v in np.quantile(deltas, quantiles, method="inverted_cdf")
            ),
            "akinshin_gamma": tuple(
                float(v) for v in np.quantile(gammas, quantiles, method="inverted_cdf")
            ),
        }
    return out
