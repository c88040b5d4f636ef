"""An exact-count binned sketch of an empirical CDF, and the DKW band widened by its error.

For ``n`` scores too many to sort on one machine, a sketch keeps ``B`` bin
edges :math:`e_0 < e_1 < \\dots < e_{B-1}` (chosen at the quantiles of a random
sample, with :math:`e_0 = \\min` and :math:`e_{B-1} = \\max` of the scores) and,
per edge, two **exact** counts (summed over partitions):

* ``at_edge[j]`` = :math:`\\#\\{i: Y_i = e_j\\}`,
* ``interior[j]`` = :math:`\\#\\{i: e_{j-1} < Y_i < e_j\\}` (``interior[0] = 0``).

So the empirical CDF :math:`F_n(x) = \\#\\{i: Y_i \\le x\\}/n` is known exactly
at every edge (``cum[j] / n``), and for any ``x`` it is bracketed:
with :math:`e_{k-1} \\le x < e_k`,

.. math::

   \\frac{\\mathrm{cum}_{k-1}}{n} \\le F_n(x) \\le
   \\frac{\\mathrm{cum}_{k-1} + \\mathrm{interior}_k}{n}

(equality on the left when :math:`x = e_{k-1}`). The sketch's sup-norm error
is therefore at most :math:`\\delta = \\max_j \\mathrm{interior}_j / n`, the
largest bin mass, which is computed exactly (:attr:`ECDFSketch.error_bound`);
it does not depend on how well the sample chose the edges, only its size does.

**Widened band.** The Dvoretzky-Kiefer-Wolfowitz inequality (Massart's
constant) gives :math:`P(\\sup_x |F_n(x) - F(x)| \\le \\varepsilon) \\ge
1 - \\alpha` with :math:`\\varepsilon = \\sqrt{\\log(2/\\alpha)/(2n)}`, for every
``F`` (continuous or not). :class:`SketchBand` uses the bracket instead of
:math:`F_n`:

.. math::

   L(x) = \\max(\\mathrm{lo}(x)/n - \\varepsilon, 0), \\qquad
   U(x) = \\min(\\mathrm{hi}(x)/n + \\varepsilon, 1),

so on the DKW event :math:`L \\le F_n - \\varepsilon \\le F \\le F_n + \\varepsilon
\\le U` everywhere: **the band covers F everywhere with probability at least
``confidence``**, like the exact DKW band, and is at most :math:`\\delta` wider
(``U - L <= 2 eps + delta``). Quantile bounds and tuning curves (the
``q``-quantile of the best of ``k`` draws is :math:`F^{-1}(q^{1/k})`) follow
by inverting ``L`` and ``U``, simultaneously for every level.

Scores must be finite (validation guarantees it for a ``Results``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchverdict.stats.cdf_bands import dkw_epsilon

__all__ = ["ECDFSketch", "SketchBand", "bin_counts", "choose_edges", "sketch_of"]

#: Default number of bins of a sketch.
DEFAULT_BINS = 2**16


def choose_edges(sample, n_bins: int, minimum: float, maximum: float) -> np.ndarray:
    """Bin edges: ``n_bins`` quantiles of ``sample``, with the exact minimum and maximum.

    The edges are distinct and sorted; ties in the sample merge edges (a
    tied value becomes an edge, counted exactly).

    Examples
    --------
    >>> choose_edges([3.0, 1.0, 2.0, 2.0], 2, 0.5, 4.0).tolist()
    [0.5, 2.0, 3.0, 4.0]
    """
    if int(n_bins) != n_bins or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")
    s = np.sort(np.asarray(sample, dtype=float))
    if len(s):
        pos = np.ceil(np.arange(1, n_bins + 1) * len(s) / n_bins).astype(np.int64) - 1
        quantiles = s[np.clip(pos, 0, len(s) - 1)]
    else:
        quantiles = np.array([], dtype=float)
    inside = quantiles[(quantiles > minimum) & (quantiles < maximum)]
    return np.unique(np.r_[float(minimum), inside, float(maximum)])


def bin_counts(values, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``(interior, at_edge)`` counts of ``values`` against sorted ``edges``.

    ``values`` must lie in ``[edges[0], edges[-1]]``.

    Examples
    --------
    >>> interior, at = bin_counts([1.0, 1.5, 2.0, 2.5, 3.0], np.array([1.0, 2.0, 3.0]))
    >>> interior.tolist(), at.tolist()
    ([0, 1, 1], [1, 1, 1])
    """
    v = np.asarray(values, dtype=float)
    edges = np.asarray(edges, dtype=float)
    if len(v) and (v.min() < edges[0] or v.max() > edges[-1]):
        raise ValueError(f"values range over [{v.min()}, {v.max()}], outside the edges "
                         f"[{edges[0]}, {edges[-1]}].")
    j = np.searchsorted(edges, v, side="left")  # edges[j-1] < v <= edges[j]
    at = edges[j] == v
    b = len(edges)
    return (np.bincount(j[~at], minlength=b).astype(np.int64),
            np.bincount(j[at], minlength=b).astype(np.int64))


@dataclass(frozen=True)
class ECDFSketch:
    """Exact counts of ``n`` scores at and between bin edges (see the module docstring).

    Attributes
    ----------
    edges : numpy.ndarray, shape (B,)
        Sorted distinct edges; ``edges[0]`` and ``edges[-1]`` are the exact
        minimum and maximum.
    interior : numpy.ndarray of int, shape (B,)
        ``interior[j]``: scores strictly between ``edges[j-1]`` and ``edges[j]``.
    at_edge : numpy.ndarray of int, shape (B,)
        ``at_edge[j]``: scores equal to ``edges[j]``.
    n : int
    sample_size : int
        Size of the random sample the edges were chosen from (0 if given).
    """

    edges: np.ndarray
    interior: np.ndarray
    at_edge: np.ndarray
    n: int
    sample_size: int = 0

    def __post_init__(self) -> None:
        if not (len(self.edges) == len(self.interior) == len(self.at_edge)):
            raise ValueError("edges, interior and at_edge must have the same length.")
        total = int(self.interior.sum() + self.at_edge.sum())
        if total != self.n:
            raise ValueError(f"the counts add up to {total}, not n = {self.n}.")
        if len(self.interior) and self.interior[0]:
            raise ValueError("interior[0] must be 0: edges[0] is the minimum.")

    @property
    def n_bins(self) -> int:
        """The number of edges ``B``."""
        return len(self.edges)

    @property
    def cum(self) -> np.ndarray:
        """``cum[j]`` = #scores <= ``edges[j]`` (exact)."""
        return np.cumsum(self.interior + self.at_edge)

    @property
    def error_bound(self) -> float:
        """``delta``: the largest bin mass, a bound on ``sup |sketch ECDF - ECDF|`` (exact).

        Examples
        --------
        >>> sketch_of(np.arange(100.0), n_bins=10, sample_size=100).error_bound
        0.09
        """
        return float(self.interior.max() / self.n) if self.n else 0.0

    def ecdf_bounds(self, x) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` with ``lo <= F_n(x) <= hi`` for every ``x`` (equal at the edges).

        Examples
        --------
        >>> s = sketch_of([1.0, 2.0, 3.0, 4.0], n_bins=2, seed=0)
        >>> [b.tolist() for b in s.ecdf_bounds([0.0, 2.0, 3.5, 9.0])]
        [[0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.75, 1.0]]
        """
        x = np.atleast_1d(np.asarray(x, dtype=float))
        cum = np.r_[0, self.cum]
        k = np.searchsorted(self.edges, x, side="right")  # edges[k-1] <= x < edges[k]
        lo = cum[k]
        on_edge = (k > 0) & (self.edges[np.maximum(k - 1, 0)] == x)
        inside = np.r_[self.interior, 0][k]
        hi = lo + np.where(on_edge, 0, inside)
        return lo / self.n, hi / self.n

    def quantile_bounds(self, p) -> tuple[np.ndarray, np.ndarray]:
        """An interval holding the empirical ``p``-quantile ``inf{x: F_n(x) >= p}`` (exact).

        Equal ends when the quantile is an edge; else it is strictly between
        two consecutive edges.

        Examples
        --------
        >>> s = sketch_of(np.arange(1.0, 101.0), n_bins=4, sample_size=100)
        >>> [b.tolist() for b in s.quantile_bounds([0.25, 0.3])]
        [[25.0, 25.0], [25.0, 50.0]]
        """
        p = np.atleast_1d(np.asarray(p, dtype=float))
        need = np.ceil(p * self.n - 1e-9 * self.n).clip(1, self.n)  # F_n(x) >= p
        cum = self.cum
        j = np.searchsorted(cum, need, side="left")  # first edge with cum >= need
        before = np.r_[0, cum][j]  # cum[j-1]
        strictly_inside = before + self.interior[j] >= need
        low = np.where(strictly_inside, self.edges[np.maximum(j - 1, 0)], self.edges[j])
        return low, self.edges[j].astype(float)

    def merge(self, other: ECDFSketch) -> ECDFSketch:
        """The sketch of both samples (same edges): counts add.

        Examples
        --------
        >>> s = sketch_of([1.0, 2.0], n_bins=2, seed=0)
        >>> s.merge(s).n
        4
        """
        if not np.array_equal(self.edges, other.edges):
            raise ValueError("only sketches with the same edges merge.")
        return ECDFSketch(self.edges, self.interior + other.interior,
                          self.at_edge + other.at_edge, self.n + other.n,
                          max(self.sample_size, other.sample_size))

    def mirrored(self) -> ECDFSketch:
        """The sketch of the negated scores (for minimisation: larger is better).

        Examples
        --------
        >>> m = sketch_of([1.0, 2.0, 2.5, 3.0], n_bins=2, seed=0).mirrored()
        >>> m.edges.tolist(), m.interior.tolist(), m.at_edge.tolist()
        ([-3.0, -2.0, -1.0], [0, 1, 0], [1, 1, 1])
        """
        interior = np.r_[0, self.interior[1:][::-1]]
        return ECDFSketch(-self.edges[::-1], interior, self.at_edge[::-1].copy(), self.n,
                          self.sample_size)

    def band(self, confidence: float) -> SketchBand:
        """The DKW band of the CDF, widened by the sketch's bracket (module docstring)."""
        return SketchBand(self, float(confidence))


@dataclass(frozen=True)
class SketchBand:
    """The DKW band of ``F`` from an :class:`ECDFSketch`, widened to stay conservative.

    Guarantee: with probability at least ``confidence``,
    ``lower_cdf(x) <= F(x) <= upper_cdf(x)`` for every ``x`` at once, for
    every ``F``: the exact DKW band ``F_n +- eps`` holds with that
    probability, and this band contains it (its ends use the sketch's exact
    bracket of ``F_n``). It is at most ``error_bound`` wider than the exact
    DKW band; every quantile and tuning-curve bound from it inherits the
    guarantee, simultaneously over levels.

    Attributes
    ----------
    sketch : ECDFSketch
    confidence : float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> band = sketch_of(rng.normal(size=10_000), n_bins=256, seed=1).band(0.9)
    >>> lo, hi = band.lower_cdf(0.0), band.upper_cdf(0.0)
    >>> bool(lo[0] <= 0.5 <= hi[0]), bool(hi[0] - lo[0] <= 2 * band.epsilon + band.error_bound)
    (True, True)
    """

    sketch: ECDFSketch
    confidence: float

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must lie strictly between 0 and 1, got "
                             f"{self.confidence}.")

    @property
    def epsilon(self) -> float:
        """The DKW half-width ``sqrt(log(2 / (1 - confidence)) / (2 n))``."""
        return dkw_epsilon(self.sketch.n, self.confidence)

    @property
    def error_bound(self) -> float:
        """How much wider than the exact DKW band this band may be (the sketch's delta)."""
        return self.sketch.error_bound

    def lower_cdf(self, x) -> np.ndarray:
        """``max(lo(x) - eps, 0)``: below ``F(x)`` for every ``x`` on the DKW event."""
        lo, _ = self.sketch.ecdf_bounds(x)
        return np.maximum(lo - self.epsilon, 0.0)

    def upper_cdf(self, x) -> np.ndarray:
        """``min(hi(x) + eps, 1)``: above ``F(x)`` for every ``x`` on the DKW event."""
        _, hi = self.sketch.ecdf_bounds(x)
        return np.minimum(hi + self.epsilon, 1.0)

    def quantile_interval(self, p, *, low: float = -np.inf, high: float = np.inf
                          ) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on ``F^{-1}(p)`` for every ``p`` in (0, 1] at once (on the DKW event).

        ``F <= U`` gives ``F^{-1}(p) >= inf{x: U(x) >= p}``; ``F >= L`` gives
        ``F^{-1}(p) <= inf{x: L(x) >= p}``. ``low`` and ``high`` are known
        bounds of the support (returned where the band does not bound the
        quantile).
        """
        s = self.sketch
        p = np.atleast_1d(np.asarray(p, dtype=float))
        eps, n = self.epsilon, s.n
        cum = s.cum
        # U just left of edges[k] (on [edges[k-1], edges[k])): (cum[k-1] + interior[k]) / n.
        u_left = (np.r_[0, cum[:-1]] + s.interior) / n + eps
        u_left = np.maximum.accumulate(u_left)
        k = np.searchsorted(u_left, p - 1e-12, side="left")
        # U >= p already on [edges[k-1], edges[k]) (k = 0: below the minimum edge).
        start = np.r_[low, s.edges]
        lower = np.where(k < len(u_left), start[np.minimum(k, len(u_left))], s.edges[-1])
        lower = np.where(p <= eps, low, lower)
        # L = cum[j] / n - eps on [edges[j], edges[j+1]).
        l_at = cum / n - eps
        j = np.searchsorted(l_at, p - 1e-12, side="left")
        upper = np.where(j < len(l_at), s.edges[np.minimum(j, len(l_at) - 1)], high)
        return lower.astype(float), upper.astype(float)

    def tuning_curve(self, budgets, q: float = 0.5, *, low: float = -np.inf,
                     high: float = np.inf) -> dict[str, np.ndarray]:
        """The ``q``-quantile of the best of ``k`` draws (larger is better), with its band.

        The best of ``k`` IID draws has CDF ``F^k``, so its ``q``-quantile is
        ``F^{-1}(q^{1/k})``. Returns ``k``, the empirical curve's bracket
        (``point_lower``, ``point_upper``: the sketch's exact bounds on the
        in-memory point estimate) and the band (``lower``, ``upper``), which
        holds for every ``k`` at once with probability at least
        ``confidence``. For minimisation, use ``sketch.mirrored()`` and negate.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> curve = sketch_of(rng.uniform(size=50_000), n_bins=512, seed=0).band(0.8).tuning_curve(
        ...     [1, 2, 8], low=0.0, high=1.0)
        >>> bool(np.all(curve["lower"] <= 0.5 ** (1 / curve["k"])))
        True
        """
        ks = np.atleast_1d(np.asarray(budgets, dtype=float))
        if np.any(ks <= 0):
            raise ValueError("budgets k must be positive.")
        p = float(q) ** (1.0 / ks)
        lower, upper = self.quantile_interval(p, low=low, high=high)
        point_lower, point_upper = self.sketch.quantile_bounds(p)
        return {"k": ks, "point_lower": point_lower, "point_upper": point_upper,
                "lower": lower, "upper": upper}

    def details(self) -> dict[str, float | int]:
        """What a verdict built from this band must carry in its details/evidence.

        Examples
        --------
        >>> sorted(sketch_of([1.0, 2.0, 3.0], n_bins=2, seed=0).band(0.9).details())
        ['confidence', 'dkw_epsilon', 'n', 'sketch_bins', 'sketch_error_bound', 'sketch_sample']
        """
        return {"n": self.sketch.n, "confidence": self.confidence,
                "dkw_epsilon": self.epsilon, "sketch_bins": self.sketch.n_bins,
                "sketch_sample": self.sketch.sample_size,
                "sketch_error_bound": self.error_bound}


def sketch_of(values, n_bins: int = DEFAULT_BINS, *, sample_size: int | None = None,
              seed: int | np.random.Generator | None = 0) -> ECDFSketch:
    """The :class:`ECDFSketch` of ``values`` in memory (edges from a seeded sample).

    ``sample_size`` defaults to ``8 * n_bins`` (all values when fewer).

    Examples
    --------
    >>> s = sketch_of(np.arange(10.0), n_bins=3, seed=0)
    >>> s.n, bool(np.all(s.cum == [int((np.arange(10.0) <= e).sum()) for e in s.edges]))
    (10, True)
    """
    v = np.asarray(values, dtype=float)
    if not len(v):
        raise ValueError("a sketch needs at least one value.")
    if not np.isfinite(v).all():
        raise ValueError("a sketch needs finite values.")
    m = min(len(v), 8 * n_bins if sample_size is None else int(sample_size))
    rng = np.random.default_rng(seed)
    sample = v if m == len(v) else v[rng.choice(len(v), size=m, replace=False)]
    edges = choose_edges(sample, n_bins, float(v.min()), float(v.max()))
    interior, at = bin_counts(v, edges)
    return ECDFSketch(edges, interior, at, len(v), m)
