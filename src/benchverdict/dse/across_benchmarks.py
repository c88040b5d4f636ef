r"""Pooled distributions and benchmarks like these: a sign-flip test over benchmarks.

The pooled DSE tests (:mod:`benchverdict.dse.compare` with ``strata``)
permute draws, or whole runs, *within* each benchmark. They test the sharp
null that on every benchmark A's and B's draws are exchangeable; a
rejection says that the two differ somewhere, not which pooled distribution
is better. When A is better on some benchmarks and B on others, that test
rejects ever more surely as the draws grow, while the pooled distributions
are equal: two benchmarks with A 3 SD ahead on one and B 3 SD ahead on the
other, min-max normalised, gave a pooled "winner" in 16-31% of such data
sets at a nominal 5%, half of them naming A and half B.

A claim about the pooled distribution of *benchmarks like these* takes the
benchmark as its replicate. Per benchmark ``b`` one statistic ``d_b``,
oriented so that a positive value favours A:

* dominance: the curve ``D_b(x) = F_B,b(x) - F_A,b(x)`` on a common grid
  of the normalised values (positive where A's CDF is below B's);
* CVaR: ``CVaR_A,b - CVaR_B,b``;
* a single draw: ``P_b(a draw of A beats one of B) - 1/2``.

The statistics are ``T_A = max_x mean_b D_b(x)`` ("A better somewhere")
and ``T_B = max_x -mean_b D_b(x)``, and, for a scalar, ``|mean_b d_b|``.
Under the null that the benchmarks' statistics are symmetric about zero
(A and B exchangeable at the level of a benchmark drawn from the
population; in particular, each benchmark's law unchanged by swapping the
labels) flipping the sign of any subset of the ``d_b`` leaves their joint
law unchanged, so the sign-flip p-value ``#{T* >= T} / #flips`` over all
``2^m`` flips is exact, and ``(1 + #{T* >= T}) / (1 + n)`` over ``n``
random flips (with the observed signs' own pair) is valid too (Fisher 1935;
Hemerik and Goeman 2018). The grid is a
function of the union of both algorithms' draws on every benchmark, which
no flip changes.

The smallest p-value is ``1 / 2^m`` for one side (``2 / 2^m`` for both):
with five benchmarks no two-sided claim at ``alpha = 0.05`` is possible,
which is the honest answer for a population sampled five times.

Examples
--------
>>> d = np.array([0.2, 0.3, 0.1, 0.25, 0.15, 0.2])   # A ahead on each of 6 benchmarks
>>> t = sign_flip_test(d)
>>> t.p_a_better, t.p_b_better, t.exact            # 1 / 2^6: the smallest there is
(0.015625, 1.0, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchverdict._repr import ResultText

#: Up to this many benchmarks every sign flip is enumerated (2^11 = 2,048 flips, about the
#: report's random ones): beyond, 16,384 flips of 512-point curves took 0.1 s a pair.
EXACT_MAX_BENCHMARKS = 11
#: The most grid points a dominance curve is evaluated at (evenly spaced in rank among
#: the pooled values: the test stays exact, its statistic is the sup over this grid).
MAX_GRID_POINTS = 256
#: Rows of sign flips per block (the (flips x grid) means stay a few MB).
_BLOCK = 2048


@dataclass(frozen=True, repr=False)
class SignFlipTest(ResultText):
    """Result of :func:`sign_flip_test`, a test record with named fields (as scipy.stats').

    Attributes
    ----------
    estimate : float
        ``mean_b d_b`` for a scalar statistic; for curves, the larger of
        ``T_A`` and ``T_B`` with the sign of the side it comes from.
    p_a_better, p_b_better : float
        One-sided p-values of "A better" (``T_A``) and "B better" (``T_B``).
    p_value : float
        Two-sided: ``max(T_A, T_B)`` (``|mean_b d_b|`` for a scalar).
    n_benchmarks : int
    n_flips : int
        Sign flips used (``2^m`` when ``exact``).
    exact : bool
    min_p : float
        The smallest one-sided p-value the benchmarks allow.
    """

    estimate: float
    p_a_better: float
    p_b_better: float
    p_value: float
    n_benchmarks: int
    n_flips: int
    exact: bool
    min_p: float

    def _summary_lines(self) -> list[str]:
        return [f"sign flips over {self.n_benchmarks} benchmarks: estimate "
                f"{self.estimate:.4g}, p = {self.p_value:.3g} (A better {self.p_a_better:.3g}, "
                f"B better {self.p_b_better:.3g}; {self.n_flips} flips"
                f"{', all' if self.exact else ''})"]

    @property
    def table(self):
        """One row: the estimate, the three p-values, benchmarks, flips, exactness, min p."""
        import pandas as pd

        return pd.DataFrame([{k: getattr(self, k) for k in (
            "estimate", "p_a_better", "p_b_better", "p_value", "n_benchmarks", "n_flips",
            "exact", "min_p")}])

    def details(self) -> dict:
        """The record as plain JSON-safe values (for a verdict's ``details``)."""
        return {"test": "sign flips over benchmarks (the benchmark as replicate)",
                "estimate": float(self.estimate), "p_a_better": float(self.p_a_better),
                "p_b_better": float(self.p_b_better), "p_value": float(self.p_value),
                "n_benchmarks": int(self.n_benchmarks), "n_flips": int(self.n_flips),
                "exact": bool(self.exact), "min_p": float(self.min_p)}


def _all_flips(m: int):
    """Every sign vector of length ``m`` (the identity among them), in blocks."""
    total = 1 << m
    for start in range(0, total, _BLOCK):
        codes = np.arange(start, min(total, start + _BLOCK), dtype=np.int64)
        bits = (codes[:, None] >> np.arange(m)) & 1
        yield 1.0 - 2.0 * bits


def _random_flips(observed: np.ndarray, n_resamples: int, seed: int | None):
    """The observed signs and their negation, then random sign vectors each with its negation.

    A union of random cosets of ``{+1, -1}`` with the observed signs' own coset:
    a valid reference set (Hemerik and Goeman 2018), closed under negation, so
    that the one-sided p-values of ``d`` and ``-d`` mirror each other exactly.
    """
    yield np.stack([observed, -observed])
    rng = np.random.default_rng(seed)
    pairs = max(1, n_resamples // 2)
    for start in range(0, pairs, _BLOCK // 2):
        rows = min(_BLOCK // 2, pairs - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(rows, observed.size))
        yield np.concatenate([signs, -signs])


def sign_flip_test(d: object, *, n_resamples: int = 9999, seed: int | None = 0
                   ) -> SignFlipTest:
    """Sign-flip test over benchmarks of per-benchmark statistics (see the module docstring).

    Up to :data:`EXACT_MAX_BENCHMARKS` benchmarks every flip is enumerated.
    Beyond, each row is written ``d_b = s_b c_b`` with ``c_b`` its canonical
    form (its first nonzero value positive); under the null the signs ``s_b``
    are independent and fair given the ``c_b``, so the observed statistic is
    one draw among the flips of the ``c_b``, which are put in an order fixed
    by their values: the p-value depends on the multiset of rows only
    (renaming or reordering benchmarks changes nothing), and the flips come in
    pairs ``(S, -S)`` (swapping A and B swaps the one-sided p-values exactly).

    Parameters
    ----------
    d : array_like, shape (m,) or (m, G)
        One value (or one curve on a common grid of ``G`` points) per
        benchmark, positive favouring A. Rows with a non-finite value are
        refused.
    n_resamples : int
        Random flips when there are more than :data:`EXACT_MAX_BENCHMARKS`
        benchmarks (``n_resamples // 2`` pairs, besides the observed signs and
        their negation); else all ``2^m`` are enumerated.
    seed : int, optional

    Returns
    -------
    SignFlipTest

    Raises
    ------
    ValueError
        No benchmark, or a non-finite statistic.

    Examples
    --------
    >>> t = sign_flip_test([0.2, -0.3, 0.1, -0.25, 0.15, -0.2])  # no consistent direction
    >>> round(t.p_value, 3), t.n_flips
    (0.656, 64)
    """
    values = np.asarray(d, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[0] < 1:
        raise ValueError("d must hold one value or one curve per benchmark (at least one).")
    if not np.all(np.isfinite(values)):
        rows = np.flatnonzero(~np.all(np.isfinite(values), axis=1)).tolist()
        raise ValueError(f"the statistics of benchmark row(s) {rows[:10]} are not finite.")
    m = values.shape[0]
    exact = m <= EXACT_MAX_BENCHMARKS
    # Each row's canonical sign: that of its first nonzero value (an all-zero row: +1). Rows
    # in the order of their canonical forms: every sum below, and the random flips' rows,
    # are then the same whatever the benchmarks' order, and for d and -d.
    nonzero = values != 0
    first = np.where(nonzero.any(axis=1), nonzero.argmax(axis=1), 0)
    observed = np.where(values[np.arange(m), first] < 0, -1.0, 1.0)
    canonical = values * observed[:, None]
    # (np.lexsort's last key is its primary one: the first column first; then the sign.)
    order = np.lexsort([observed, *canonical.T[::-1]])
    values, canonical, observed = values[order], canonical[order], observed[order]
    mean = values.mean(axis=0)
    t_a, t_b = float(mean.max()), float((-mean).max())
    t_two = max(t_a, t_b)
    if exact:
        rows, flips = values, _all_flips(m)
    else:
        rows, flips = canonical, _random_flips(observed, n_resamples, seed)
    # A flip's statistic reaches the observed one within round-off of the means (each a sum
    # of m values): the observed flip always counts, and its mirror too when it ties.
    tol = 1e-12 * max(1.0, float(np.abs(values).max()))
    hits_a = hits_b = hits_two = total = 0
    for signs in flips:
        means = signs @ rows / m
        top, bottom = means.max(axis=1), (-means).max(axis=1)
        hits_a += int(np.count_nonzero(top >= t_a - tol))
        hits_b += int(np.count_nonzero(bottom >= t_b - tol))
        hits_two += int(np.count_nonzero(np.maximum(top, bottom) >= t_two - tol))
        total += signs.shape[0]
    p_a, p_b, p_two = hits_a / total, hits_b / total, hits_two / total
    if values.shape[1] == 1:
        estimate = float(mean[0])
    else:
        estimate = t_a if t_a >= t_b else -t_b
    return SignFlipTest(estimate, float(p_a), float(p_b), float(p_two), m, total, exact,
                        1.0 / total)


def benchmarks_needed(alpha: float, *, two_sided: bool) -> int:
    """The fewest benchmarks whose smallest sign-flip p-value is at most ``alpha``.

    Examples
    --------
    >>> benchmarks_needed(0.05, two_sided=True), benchmarks_needed(0.025, two_sided=False)
    (6, 6)
    """
    m = 1
    while (2.0 if two_sided else 1.0) / 2**m > alpha:
        m += 1
    return m


def _by_benchmark(x: np.ndarray, labels: np.ndarray) -> dict[str, np.ndarray]:
    labels = np.asarray(labels).astype(str)
    order = np.argsort(labels, kind="stable")
    keys, starts = np.unique(labels[order], return_index=True)
    parts = np.split(x[order], starts[1:])
    return dict(zip(keys.tolist(), parts))


def common_benchmarks(xa: np.ndarray, sa: np.ndarray, xb: np.ndarray, sb: np.ndarray
                      ) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(benchmark, A's values, B's values)`` for every benchmark both have draws on, sorted.

    Examples
    --------
    >>> [(b, a.tolist(), c.tolist()) for b, a, c in common_benchmarks(
    ...     np.array([1.0, 2.0, 3.0]), np.array(["p", "q", "q"]),
    ...     np.array([4.0, 5.0]), np.array(["q", "r"]))]
    [('q', [2.0, 3.0], [4.0])]
    """
    by_a, by_b = _by_benchmark(xa, sa), _by_benchmark(xb, sb)
    return [(b, by_a[b], by_b[b]) for b in sorted(set(by_a) & set(by_b))]


def dominance_curves(pairs: list[tuple[str, np.ndarray, np.ndarray]], sign: float
                     ) -> np.ndarray:
    """``D_b(x) = F_B,b(x) - F_A,b(x)`` of oriented values (``sign * x``) on a common grid.

    The grid is the sorted union of every value of both algorithms on these
    benchmarks, thinned to at most :data:`MAX_GRID_POINTS` points evenly
    spaced in rank (the largest value always kept): a function of the union,
    so no sign flip changes it.

    Examples
    --------
    >>> curves = dominance_curves([("p", np.array([2.0, 3.0]), np.array([0.0, 1.0]))], 1.0)
    >>> curves.tolist()   # A's draws all above B's: F_B - F_A >= 0 everywhere
    [[0.5, 1.0, 0.5, 0.0]]
    """
    oriented = [(sign * a, sign * b) for _, a, b in pairs]
    grid = np.unique(np.concatenate([np.concatenate(p) for p in oriented]))
    if grid.size > MAX_GRID_POINTS:
        at = np.unique(np.round(np.linspace(0, grid.size - 1, MAX_GRID_POINTS)).astype(np.int64))
        grid = grid[at]
    curves = np.empty((len(oriented), grid.size))
    for i, (a, b) in enumerate(oriented):
        f_a = np.searchsorted(np.sort(a), grid, side="right") / a.size
        f_b = np.searchsorted(np.sort(b), grid, side="right") / b.size
        curves[i] = f_b - f_a
    return curves


def single_draw_margins(pairs: list[tuple[str, np.ndarray, np.ndarray]], sign: float
                        ) -> np.ndarray:
    """``P_b(a draw of A beats one of B) - 1/2`` per benchmark (ties half), oriented by ``sign``.

    Examples
    --------
    >>> single_draw_margins([("p", np.array([1.0, 3.0]), np.array([2.0, 2.0]))], 1.0).tolist()
    [0.0]
    """
    out = np.empty(len(pairs))
    for i, (_, a, b) in enumerate(pairs):
        sb = np.sort(sign * b)
        za = sign * a
        below = np.searchsorted(sb, za, side="left")
        at_or_below = np.searchsorted(sb, za, side="right")
        out[i] = (below.sum() + 0.5 * (at_or_below - below).sum()) / (a.size * b.size) - 0.5
    return out


__all__ = ["EXACT_MAX_BENCHMARKS", "MAX_GRID_POINTS", "SignFlipTest", "benchmarks_needed",
           "common_benchmarks", "dominance_curves", "sign_flip_test", "single_draw_margins"]
