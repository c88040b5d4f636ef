r"""By how much: every pair's mean difference with simultaneous intervals, and its odds.

For each pair of algorithms ``(a, b)`` of a scope this module estimates
the mean difference ``delta`` of their scores (``a`` minus ``b``, in the
score's units) and a unit-free companion, the probability of superiority,
with intervals that hold **simultaneously over the K pairs of the scope**
at level ``1 - alpha`` (Bonferroni: each interval at ``1 - alpha / K``).
Bonferroni is conservative but holds under any dependence and any
heterogeneity between the pairs; Tukey's studentized range would be
shorter, but only if every pair's difference varied equally (sphericity),
which benchmark data break when one algorithm fails on a few benchmarks.

The inputs are incumbents (one score per run: algorithm x benchmark x
seed). What is a replicate depends on the claim's population, the
*estimand*:

``"benchmarks"`` (across benchmarks; the default)
    The benchmarks are a sample from a population of benchmarks like them
    (Geburek et al. 2024's LMEM with an algorithm x benchmark term asks the
    same question). Per benchmark ``b`` the cell means give
    ``d_b = mean_a,b - mean_b,b``; ``delta`` is the mean of ``d_b`` over
    the benchmarks both algorithms ran on, with the paired ``t`` interval
    on ``n - 1`` degrees of freedom. Its variance includes both the
    benchmark-to-benchmark variation of the difference and the seeds'
    noise, so the interval generalises to new benchmarks. The companion is
    the share of benchmarks like these on which ``a``'s mean over its runs
    beats ``b``'s (ties count half), with a Clopper-Pearson interval. It is a
    share of *observed* means, so it depends on the runs per benchmark: with
    few runs the seeds' noise pulls it toward 0.5 (20 benchmarks where A's
    true mean wins on 98%: 0.62 at 2 seeds, 0.80 at 20). Benchmarks joined
    into one replicate (copied runs, a declared task:
    :mod:`benchverdict.replicates`) count once, with the mean of their
    differences, in ``delta``, its interval and the share.
``"these"`` (across exactly these benchmarks)
    ``delta`` is the same mean of ``d_b``, but only the seeds are random:
    its variance is ``sum_b (s2_a,b / r_a,b + s2_b,b / r_b,b) / n^2``
    with Welch-Satterthwaite degrees of freedom (cells need two runs). An
    algorithm's runs copied onto several benchmarks are one draw of its
    noise, counted once with its multiplicity (:func:`_these_with_copies`).
    The companion is the observed share (no interval: it describes these
    benchmarks).
``"benchmark"`` (within one benchmark)
    The runs are the replicates: Welch's two-sample ``t`` interval (on Hsu's
    ``min(n_a, n_b) - 1`` degrees of freedom, valid for any variance ratio), and
    ``P(a run of a beats a run of b)`` (Mann-Whitney, ties half) with
    DeLong's standard error (hull with a Wilson interval on the smaller
    sample, so that complete separation does not collapse it).

Assumptions: the runs (seeds) are independent, and the ``t`` intervals
assume the mean of the replicates is roughly normal (with 5 or more
replicates and no extreme outliers, they hold their level; the simulations
in ``tests/test_effects_pairwise.py`` measure it). Where the scores' scales
differ across benchmarks (:func:`benchverdict.scales.scale_check`) the
effects across benchmarks are in standard deviations of a benchmark's
scores (:func:`benchverdict.scales.standardise_per_benchmark`), as the
LMEM's, and say so.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict._repr import ResultText
from benchverdict.effects.equivalence import Margin, tost_p_value
from benchverdict.replicates import (
    BenchmarkReplicates,
    joins,
    pair_replicates,
    replicate_means,
)

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.results import Results

#: What an effect's replicates are (see the module docstring).
EFFECT_ESTIMANDS = ("benchmarks", "these", "benchmark")
#: Columns of :attr:`PairwiseEffects.table`.
EFFECT_COLUMNS = [
    "a", "b", "difference", "lower", "upper", "se", "df", "p_value", "superiority",
    "superiority_lower", "superiority_upper", "n", "unit", "p_equivalence", "margin_value",
]
#: Score scales of an effect.
EFFECT_SCALES = ("auto", "raw", "standardized")


@dataclass(frozen=True)
class PairEffect:
    """The effect of one pair: ``a`` minus ``b``, and how often ``a`` is better.

    Attributes
    ----------
    a, b : str
    difference : float
        Mean score of ``a`` minus that of ``b`` (score units, or SDs of a
        benchmark where the scale is standardised), as the data have it:
        with ``objective="minimize"`` a negative difference favours ``a``.
    lower, upper : float
        The interval of ``difference``, simultaneous over the scope's pairs.
    se, df : float
        Standard error and degrees of freedom of ``difference``.
    p_value : float
        Two-sided p-value of ``difference = 0`` (raw; not adjusted).
    superiority : float
        Probability that ``a`` is better than ``b`` (objective-aware): its
        mean over the runs, on a benchmark like these (across benchmarks; it
        moves toward 0.5 with fewer runs), or one run (within a benchmark).
    superiority_lower, superiority_upper : float
        Its simultaneous interval (NaN where it has none).
    n : int
        Replicates: benchmarks across benchmarks, the smaller number of runs
        within one.
    sign : float
        ``+1`` when larger scores are better, ``-1`` otherwise.
    p_equivalence : float
        The raw TOST p-value of ``|difference| >= margin`` (NaN without a margin).
    margin_value : float
        The margin that TOST used, in the difference's unit (NaN without one).
        A margin in SDs on one benchmark is the pair's own: the margin times
        the two algorithms' pooled run-to-run SD there, so another
        algorithm's noise does not widen it.
    """

    a: str
    b: str
    difference: float
    lower: float
    upper: float
    se: float
    df: float
    p_value: float
    superiority: float
    superiority_lower: float
    superiority_upper: float
    n: int
    sign: float = 1.0
    p_equivalence: float = math.nan
    margin_value: float = math.nan

    def flipped(self) -> PairEffect:
        """The same effect read as ``b`` against ``a``."""
        return replace(self, a=self.b, b=self.a, difference=-self.difference,
                       lower=-self.upper, upper=-self.lower, superiority=1.0 - self.superiority,
                       superiority_lower=1.0 - self.superiority_upper,
                       superiority_upper=1.0 - self.superiority_lower)

    def advantage(self, winner: str) -> tuple[float, float, float]:
        """How much better ``winner`` is (positive = better), with its interval.

        Examples
        --------
        >>> e = PairEffect("A", "B", -0.2, -0.3, -0.1, 0.04, 9, 0.001, 0.9, 0.7, 0.97, 10,
        ...                sign=-1.0)
        >>> e.advantage("A")
        (0.2, 0.1, 0.3)
        """
        own = self if winner == self.a else self.flipped()
        if own.sign > 0:
            return own.difference, own.lower, own.upper
        return -own.difference, -own.upper, -own.lower

    @property
    def excludes_zero(self) -> bool:
        """Whether the simultaneous interval lies on one side of 0."""
        return bool(self.lower > 0 or self.upper < 0)

    def row(self) -> dict[str, Any]:
        """The effect as a table row (columns :data:`EFFECT_COLUMNS` but ``unit``)."""
        return {k: getattr(self, k) for k in EFFECT_COLUMNS if k != "unit"}


@dataclass(frozen=True, repr=False)
class PairwiseEffects(ResultText):
    """The effects of every pair of one scope, with the interval's level and unit.

    Attributes
    ----------
    effects : tuple of PairEffect
        One per pair, ``a`` before ``b`` in the algorithm order.
    estimand : {"benchmarks", "these", "benchmark"}
    confidence : float
        Simultaneous level of the intervals over the scope's pairs (``1 - alpha``).
    unit : str
        The difference's unit ("accuracy", "SD of a benchmark's accuracy").
    standardized : bool
        Whether scores were z-scored per benchmark first.
    objective : {"maximize", "minimize"}
    margin : Margin or None
        The equivalence margin the TOST p-values test, in ``unit``'s terms.
    margin_value : float
        The margin in the effect's unit (NaN without one; per benchmark a
        standardised margin times the benchmark's run-to-run SD). Each
        pair's TOST used its own, :attr:`PairEffect.margin_value`: per
        benchmark with a margin in SDs, the margin times the pair's pooled
        run SD.
    n_benchmarks : int
    measure : str
        What ``difference`` is, in words: "mean difference" (default), or
        another estimand a caller put in its place (the report's effects on
        random-search draws without a trial order: the tuning curves'
        difference at their vote's budget).
    pooled_sd : float
        Across benchmarks: the SD of a pair's per-benchmark difference if
        every pair varied alike, ``sqrt(2 MS_interaction)`` of the two-way
        ANOVA on the cell means of the benchmarks every algorithm ran on (what
        an LMEM with one algorithm x benchmark variance assumes). A pair
        whose own SD (``se * sqrt(n)``) is far above it is where a pooled
        model's interval is too narrow. NaN within a benchmark.
    """

    effects: tuple[PairEffect, ...]
    estimand: str
    confidence: float
    unit: str
    standardized: bool
    objective: str
    margin: Margin | None = None
    margin_value: float = math.nan
    n_benchmarks: int = 0
    pooled_sd: float = math.nan
    measure: str = "mean difference"
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._index.update({(e.a, e.b): e for e in self.effects})

    def effect(self, a: str, b: str) -> PairEffect | None:
        """The effect of ``a`` against ``b`` (either orientation), or ``None``."""
        found = self._index.get((a, b))
        if found is not None:
            return found
        other = self._index.get((b, a))
        return None if other is None else other.flipped()

    @property
    def method(self) -> str:
        """How the intervals are computed, in words."""
        k = len(self.effects)
        what = {"benchmarks": "paired t over benchmarks (benchmark means; generalises to "
                              "benchmarks like these)",
                "these": "Welch t over the runs of these benchmarks (no claim beyond them)",
                "benchmark": "Welch t over the runs of the benchmark"}[self.estimand]
        return (f"mean difference, {what}; {self.confidence:.0%} intervals simultaneous over "
                f"{k} pair(s) (Bonferroni)")

    @property
    def table(self) -> pd.DataFrame:
        """One row per pair (columns :data:`EFFECT_COLUMNS`)."""
        rows = [{**e.row(), "unit": self.unit} for e in self.effects]
        return pd.DataFrame(rows, columns=EFFECT_COLUMNS)

    def _summary_lines(self) -> list[str]:
        lines = [f"{len(self.effects)} pairwise effect(s) in {self.unit}, "
                 f"{self.confidence:.0%} simultaneous intervals"]
        lines.append(f"  ({self.method})")
        for e in self.effects:
            lines.append(f"  {e.a} - {e.b}: {e.difference:.4g} [{e.lower:.4g}, {e.upper:.4g}], "
                         f"P({e.a} better) = {e.superiority:.2f}")
        return lines

    def verdicts(self) -> list:
        """An empty list: effects size the differences; the analyses and the report decide."""
        return []

    def plot(self, ax: plt.Axes | None = None) -> plt.Axes:
        """A forest plot: each pair's difference and simultaneous interval, 0 and the margin.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> ax = pairwise_effects(_example_small(), estimand="these").plot()
        >>> ax.get_xlabel()
        'difference (a - b), acc'
        """
        from benchverdict.plotting import new_axes, theme

        rows = list(self.effects)
        ax = new_axes(ax, width=5.5, height=max(1.6, 0.32 * len(rows) + 0.9))
        with theme():
            y = np.arange(len(rows))[::-1]
            margins = {e.margin_value for e in rows if math.isfinite(e.margin_value)}
            if len(margins) > 1:
                # Each pair its own margin (in SDs on one benchmark: the pair's run SD).
                for yi, e in zip(y, rows):
                    if math.isfinite(e.margin_value):
                        ax.fill_betweenx([yi - 0.4, yi + 0.4], -e.margin_value,
                                         e.margin_value, color="#009E73", alpha=0.15,
                                         linewidth=0)
                ax.fill_between([], [], color="#009E73", alpha=0.15,
                                label="each pair's margin")
            elif margins or math.isfinite(self.margin_value):
                m = margins.pop() if margins else self.margin_value
                ax.axvspan(-m, m, color="#009E73", alpha=0.15, linewidth=0,
                           label=f"margin ±{m:.3g}")
            ax.axvline(0.0, color="#1d1d1f", linewidth=0.8)
            for yi, e in zip(y, rows):
                colour = "#0072B2" if e.excludes_zero else "#7f7f7f"
                if math.isfinite(e.lower) and math.isfinite(e.upper):
                    ax.plot([e.lower, e.upper], [yi, yi], color=colour, linewidth=1.6)
                ax.plot([e.difference], [yi], "o", color=colour, markersize=4)
            ax.set_yticks(y, [f"{e.a} - {e.b}" for e in rows])
            ax.set_xlabel(f"difference (a - b), {self.unit}")
            ax.set_title(f"{self.confidence:.0%} simultaneous intervals", fontsize=10)
            if margins or math.isfinite(self.margin_value):
                ax.legend(loc="best", fontsize=8, frameon=False)
        return ax


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` of ``n`` at normal quantile ``z``."""
    if n <= 0 or not math.isfinite(p):
        return math.nan, math.nan
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _clopper_pearson(wins: np.ndarray, ties: np.ndarray, n: np.ndarray, level: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Exact intervals for ``P(win) + P(tie) / 2`` from ``wins`` and ``ties`` of ``n`` trials.

    Without ties, Clopper and Pearson's (1934) interval at ``level``. With ties the
    share is ``(p1 + p2) / 2`` with ``p1 = P(win)`` and ``p2 = P(win or tie)``, each a
    binomial proportion: their Clopper-Pearson intervals at ``1 - (1 - level) / 2``
    (Bonferroni) bound it. Wilson's score interval, used before, covered as little as
    0.83 at a nominal 0.95 when one algorithm wins on nearly every benchmark (exact
    binomial computation, 5 to 50 benchmarks); Clopper-Pearson never covers less than
    the level.

    Examples
    --------
    >>> lo, hi = _clopper_pearson(np.array([20]), np.array([0]), np.array([20]), 0.95)
    >>> round(float(lo[0]), 4), float(hi[0])  # (0.025)^(1/20)
    (0.8316, 1.0)
    """
    def bounds(x: np.ndarray, a: float) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore", divide="ignore"):
            lo = np.where(x > 0, stats.beta.ppf(a / 2.0, x, n - x + 1), 0.0)
            hi = np.where(x < n, stats.beta.ppf(1.0 - a / 2.0, x + 1, n - x), 1.0)
        return lo, hi

    a = 1.0 - level
    lo, hi = bounds(wins, a)
    tied = ties > 0
    if tied.any():
        lo1, hi1 = bounds(wins, a / 2.0)
        lo2, hi2 = bounds(wins + ties, a / 2.0)
        lo = np.where(tied, (lo1 + lo2) / 2.0, lo)
        hi = np.where(tied, (hi1 + hi2) / 2.0, hi)
    bad = n <= 0
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def _t_intervals(est: np.ndarray, se: np.ndarray, df: np.ndarray,
                 level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, two-sided p) of t contrasts; degenerate where ``se`` is 0, NaN if unknown."""
    low, high, p = (np.full(est.shape, np.nan) for _ in range(3))
    ok = np.isfinite(est) & np.isfinite(se) & np.isfinite(df) & (df > 0)
    zero = ok & (se == 0)
    low[zero], high[zero] = est[zero], est[zero]
    p[zero] = np.where(est[zero] == 0, 1.0, 0.0)
    pos = ok & (se > 0)
    if pos.any():
        crit = stats.t.ppf(1.0 - (1.0 - level) / 2.0, df[pos])
        low[pos], high[pos] = est[pos] - crit * se[pos], est[pos] + crit * se[pos]
        p[pos] = 2.0 * stats.t.sf(np.abs(est[pos]) / se[pos], df[pos])
    return low, high, p


def _welch_arrays(va: np.ndarray, na: np.ndarray, vb: np.ndarray, nb: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Welch's standard errors and Hsu's degrees of freedom, ``min(na, nb) - 1``, of many pairs.

    NaN where a group has fewer than 2 runs. Hsu's (1938) degrees of freedom hold the
    level for any ratio of the two variances, as the report's per-benchmark votes do
    (:mod:`benchverdict.lmem.per_benchmark`). Welch-Satterthwaite's estimated ones
    trusted a small group's sample variance: 2 runs beside 10 quieter ones gave 95%
    intervals that covered 0.89, and a TOST at the margin declared equivalence in 0.064
    (nominal 0.05).
    """
    se, df = np.full(va.shape, np.nan), np.full(va.shape, np.nan)
    ok = (na >= 2) & (nb >= 2) & np.isfinite(va) & np.isfinite(vb)
    se[ok] = np.sqrt(va[ok] / na[ok] + vb[ok] / nb[ok])
    df[ok] = np.minimum(na[ok], nb[ok]) - 1.0
    return se, df


def _superiority_pairs(scores: np.ndarray, group: np.ndarray, n_groups: int,
                       first: np.ndarray, second: np.ndarray, level: float
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_superiority_within` for every pair (``first[p]`` against ``second[p]``)."""
    k = len(first)
    theta, lo, hi = np.full(k, np.nan), np.full(k, np.nan), np.full(k, np.nan)
    sizes = np.bincount(group, minlength=n_groups)
    width = int(sizes.max()) if sizes.size else 0
    if width == 0 or k == 0:
        return theta, lo, hi
    # Runs per group, padded with NaN: runs[g, :sizes[g]].
    order = np.argsort(group, kind="stable")
    slot = np.arange(len(group)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    runs = np.full((n_groups, width), np.nan)
    runs[group[order], slot] = scores[order]
    z = float(stats.norm.ppf(1.0 - (1.0 - level) / 2.0))
    chunk = max(1, int(4_000_000 // (width * width)))
    for start in range(0, k, chunk):
        sl = slice(start, min(k, start + chunk))
        x, yv = runs[first[sl]], runs[second[sl]]  # (c, w)
        d = x[:, :, None] - yv[:, None, :]  # (c, w, w)
        valid = ~np.isnan(d)
        h = np.where(valid, (d > 0) + 0.5 * (d == 0), 0.0)
        na = (~np.isnan(x)).sum(axis=1).astype(float)
        nb = (~np.isnan(yv)).sum(axis=1).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = h.sum(axis=(1, 2)) / (na * nb)
            v10 = h.sum(axis=2) / nb[:, None]  # placements of a's runs (NaN rows masked)
            v01 = h.sum(axis=1) / na[:, None]
            m10 = ~np.isnan(x)
            m01 = ~np.isnan(yv)
            var10 = (np.where(m10, (v10 - t[:, None]) ** 2, 0.0).sum(axis=1) / (na - 1))
            var01 = (np.where(m01, (v01 - t[:, None]) ** 2, 0.0).sum(axis=1) / (nb - 1))
            se = np.sqrt(var10 / na + var01 / nb)
        small = np.minimum(na, nb)
        crit = np.where(small >= 2, stats.t.ppf(1.0 - (1.0 - level) / 2.0,
                                                 np.maximum(small - 1, 1)), np.nan)
        denom = 1.0 + z * z / small
        centre = (t + z * z / (2 * small)) / denom
        half = z * np.sqrt(np.maximum(t * (1 - t) / small + z * z / (4 * small * small),
                                      0.0)) / denom
        theta[sl] = t
        ok = small >= 2
        lo[sl] = np.where(ok, np.maximum(0.0, np.minimum(centre - half, t - crit * se)),
                          np.nan)
        hi[sl] = np.where(ok, np.minimum(1.0, np.maximum(centre + half, t + crit * se)),
                          np.nan)
    return theta, lo, hi


def _superiority_within(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float,
                                                                              float]:
    """``P(X > Y) + P(X = Y) / 2`` with DeLong's SE, hulled with a Wilson interval.

    The one-pair definition; :func:`_superiority_pairs` computes it for every
    pair at once (a test checks they agree).
    """
    diff = x[:, None] - y[None, :]
    h = (diff > 0) + 0.5 * (diff == 0)
    theta = float(h.mean())
    na, nb = len(x), len(y)
    if min(na, nb) < 2:
        return theta, math.nan, math.nan
    v10, v01 = h.mean(axis=1), h.mean(axis=0)
    se = math.sqrt(v10.var(ddof=1) / na + v01.var(ddof=1) / nb)
    crit = float(stats.t.ppf(1.0 - (1.0 - level) / 2.0, min(na, nb) - 1))
    lo, hi = _wilson(theta, min(na, nb), float(stats.norm.ppf(1.0 - (1.0 - level) / 2.0)))
    return theta, max(0.0, min(lo, theta - crit * se)), min(1.0, max(hi, theta + crit * se))


def effects_from_frame(
    frame: pd.DataFrame,
    *,
    algorithms: Sequence[str],
    estimand: str,
    objective: str,
    alpha: float = 0.05,
    unit: str = "score",
    standardized: bool = False,
    margin: Margin | None = None,
    margin_value: float | None = None,
    copies: BenchmarkReplicates | None = None,
    pair_run_sd: bool = False,
) -> PairwiseEffects:
    r"""The effects of every pair from incumbents (columns algorithm, benchmark, seed, score).

    The engine of :func:`pairwise_effects`, for callers that prepared the
    scores (subset, standardised) themselves, as the report does per scope.
    ``margin_value`` is the margin in the scores' unit (default
    ``margin.value``); the TOST p-values use it. With ``estimand="benchmarks"``,
    ``copies`` (:meth:`Results.copied_benchmarks`) joins the benchmarks on
    which some algorithm has identical runs into one replicate:
    the pair's difference, interval, superiority and ``n`` are over its
    replicates' mean differences (:mod:`benchverdict.replicates`).

    With ``pair_run_sd`` (a margin in run-to-run SDs: Cohen's d) each pair's
    difference on a benchmark is divided by the pair's own pooled run-to-run
    SD there, :math:`\sqrt{((r_a - 1) s_a^2 + (r_b - 1) s_b^2) / (r_a + r_b - 2)}`
    (:func:`_pair_sd`), so a third, noisier algorithm does not widen the unit
    (pooled over every algorithm, two algorithms with run SD 1 beside one
    with 10 read their -0.53 SD difference as -0.10;
    ``tests/test_effects_pairwise.py``). Where the pair's cells hold
    no spread, the scores keep the unit they come in (those of
    :func:`~benchverdict.scales.standardise_per_benchmark`). On one benchmark
    (``estimand="benchmark"``) the effects stay in the scores' unit and a
    margin in SDs becomes each pair's own, ``margin.value`` times the pair's
    pooled run SD (the caller's ``margin_value`` where the pair's runs hold no
    spread): pooled over every algorithm, C with run SD 10 beside A and B
    with 1 made 0.5sd a margin of 2.9, and A and B, 2 run SDs apart, read as
    equivalent (``tests/test_effects_pairwise.py``).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"algorithm": ["A", "B"] * 6, "benchmark": [b for b in "pqr"
    ...                   for _ in range(4)], "seed": [0, 0, 1, 1] * 3,
    ...                   "score": [2., 1, 2.2, 1.1, 3, 2.5, 3.1, 2.4, 1, 0.2, 1.2, 0.4]})
    >>> e = effects_from_frame(f, algorithms=["A", "B"], estimand="benchmarks",
    ...                        objective="maximize").effects[0]
    >>> round(e.difference, 3), e.superiority, e.n
    (0.817, 1.0, 3)
    """
    if estimand not in EFFECT_ESTIMANDS:
        raise ValueError(f"estimand must be one of {EFFECT_ESTIMANDS}, got {estimand!r}.")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}.")
    sign = 1.0 if objective == "maximize" else -1.0
    algs = frame["algorithm"].astype(str).to_numpy()
    present = set(algs)
    algorithms = [a for a in (str(x) for x in algorithms) if a in present]
    pairs = list(itertools.combinations(algorithms, 2))
    level = 1.0 - alpha / max(len(pairs), 1)
    m = (margin.value if margin is not None else math.nan) if margin_value is None else float(
        margin_value)
    scores = frame["score"].to_numpy(dtype=float)
    # Computed on scores divided by their largest magnitude (and scaled back at the end):
    # squares of scores near 1e150 would overflow, and the results are scale-equivariant.
    finite = np.abs(scores[np.isfinite(scores)])
    unit_scale = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    scores = scores / unit_scale
    benches, bench_of = np.unique(frame["benchmark"].astype(str).to_numpy(),
                                  return_inverse=True)
    n_benchmarks = len(benches)
    if not pairs:
        return PairwiseEffects((), estimand, 1.0 - alpha, unit, standardized, objective,
                               margin, m, n_benchmarks)
    # Cells (benchmark x algorithm) by bincount: the report calls this once per scope.
    column = {a: i for i, a in enumerate(algorithms)}
    alg_of = np.array([column.get(a, -1) for a in algs])
    keep = alg_of >= 0
    n_alg = len(algorithms)
    cell = bench_of[keep] * n_alg + alg_of[keep]
    y = scores[keep]
    size = n_benchmarks * n_alg
    count = np.bincount(cell, minlength=size).reshape(n_benchmarks, n_alg).astype(float)
    total = np.bincount(cell, y, minlength=size).reshape(n_benchmarks, n_alg)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        centred = y - mean.reshape(-1)[cell]
        ss = np.bincount(cell, centred * centred, minlength=size).reshape(n_benchmarks, n_alg)
        var = ss / (count - 1)
    first = np.array([column[a] for a, _ in pairs])
    second = np.array([column[b] for _, b in pairs])
    k = len(pairs)
    margins = np.full(k, m)  # each pair's margin in the scores' unit (divided: unit_scale)
    diff, se, df = np.full(k, np.nan), np.full(k, np.nan), np.full(k, np.nan)
    share, s_lo, s_hi = np.full(k, np.nan), np.full(k, np.nan), np.full(k, np.nan)
    n_rep = np.zeros(k, dtype=int)
    if estimand == "benchmark":
        # One benchmark: the runs of each algorithm are its replicates. Welch for every
        # pair at once from the per-algorithm moments, and the superiority from a padded
        # runs array (pairs in chunks: 200 algorithms have 19,900 pairs).
        n_a = count.sum(axis=0)
        m_a = np.nansum(total, axis=0) / np.where(n_a > 0, n_a, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):  # one run: no variance (NaN)
            v_a = np.bincount(alg_of[keep], (y - m_a[alg_of[keep]]) ** 2,
                              minlength=n_alg) / (n_a - 1)
        v_a = np.where(n_a > 1, v_a, np.nan)
        na, nb = n_a[first], n_a[second]
        n_rep = np.minimum(na, nb).astype(int)
        diff = np.where((na > 0) & (nb > 0), m_a[first] - m_a[second], np.nan)
        se, df = _welch_arrays(v_a[first], na, v_a[second], nb)
        if pair_run_sd and margin is not None and margin.standardized:
            # The pair's own run SD (Cohen's d): another algorithm's noise does not widen it.
            own = _pair_sd(v_a[None, :], n_a[None, :], first, second, np.nan)[0]
            margins = np.where(np.isfinite(own), margin.value * own * unit_scale, m)
        # Two cells whose runs all score the same (a ceiling, a deterministic algorithm):
        # Welch's SE is 0, and a zero-width interval (or TOST p = 0 for equivalence) would
        # claim certainty from as few as 2 runs each. No interval, and no equivalence test.
        se = np.where(se == 0, np.nan, se)
        share, s_lo, s_hi = _superiority_pairs(sign * y, alg_of[keep], n_alg, first, second,
                                               level)
    else:
        n_won, n_tied = np.zeros(k), np.zeros(k)
        # Pairs in chunks of (benchmarks x pairs) arrays: 200 algorithms have 19,900 pairs,
        # and a loop over them cost 1.6 s per scope.
        step = max(1, (1 << 21) // max(n_benchmarks, 1))
        for s0 in range(0, k, step):
            i, j = first[s0:s0 + step], second[s0:s0 + step]
            both = (count[:, i] > 0) & (count[:, j] > 0)
            n = both.sum(axis=0)
            n_rep[s0:s0 + step] = n
            with np.errstate(invalid="ignore", divide="ignore"):
                unit_of = (_pair_sd(var, count, i, j, 1.0 / unit_scale) if pair_run_sd
                           else 1.0)
                d = np.where(both, (mean[:, i] - mean[:, j]) / unit_of, 0.0)
                d_mean = d.sum(axis=0) / n
                diff[s0:s0 + step] = np.where(n > 0, d_mean, np.nan)
                if estimand == "benchmarks":
                    dev = np.where(both, d - d_mean, 0.0)
                    sd = np.sqrt((dev * dev).sum(axis=0) / (n - 1))
                    se[s0:s0 + step] = np.where(n >= 2, sd / np.sqrt(n), np.nan)
                    df[s0:s0 + step] = np.where(n >= 2, n - 1.0, np.nan)
                else:
                    r_a, r_b = count[:, i], count[:, j]
                    welch = (n > 0) & np.all(~both | ((r_a >= 2) & (r_b >= 2)), axis=0)
                    q_a = np.where(both, var[:, i] / r_a / unit_of ** 2, 0.0)
                    q_b = np.where(both, var[:, j] / r_b / unit_of ** 2, 0.0)
                    t = (q_a + q_b).sum(axis=0)
                    t_safe = np.where(t > 0, t, 1.0)
                    den = np.where(both, (q_a / t_safe) ** 2 / (r_a - 1)
                                   + (q_b / t_safe) ** 2 / (r_b - 1), 0.0).sum(axis=0)
                    fallback = np.where(both, r_a + r_b - 2, 0.0).sum(axis=0)
                    den = np.where(t > 0, den, 0.0)
                    se[s0:s0 + step] = np.where(welch, np.sqrt(t) / n, np.nan)
                    df[s0:s0 + step] = np.where(welch, np.where(den > 0, 1.0 / den, fallback),
                                                np.nan)
                wins = sign * d
                won = (both & (wins > 0)).sum(axis=0)
                tied = (both & (wins == 0)).sum(axis=0)
                n_won[s0:s0 + step], n_tied[s0:s0 + step] = won, tied
                share[s0:s0 + step] = np.where(n > 0, won / n + 0.5 * tied / n, np.nan)
        fallback = 1.0 / unit_scale if pair_run_sd else None
        if estimand == "these" and copies is not None and copies.copies:
            _these_with_copies(copies, column, [str(b) for b in benches], var, count, first,
                               second, se, df, fallback)
        if estimand == "benchmarks" and copies:
            _over_replicates(copies, pairs, [str(b) for b in benches], mean, count, first,
                             second, sign, diff, se, df, share, n_won, n_tied, n_rep,
                             var, fallback)
        if estimand == "benchmarks":
            s_lo, s_hi = _clopper_pearson(n_won, n_tied, n_rep.astype(float), level)
    pooled_sd = math.nan
    if estimand != "benchmark" and not pair_run_sd:  # a unit shared by all pairs only
        full = np.all(count > 0, axis=1)
        cells = mean[full]
        if cells.shape[0] >= 2 and n_alg >= 2:
            resid = (cells - cells.mean(axis=1, keepdims=True) - cells.mean(axis=0)
                     + cells.mean())
            ms = float(np.sum(resid ** 2)) / ((cells.shape[0] - 1) * (n_alg - 1))
            pooled_sd = math.sqrt(2.0 * ms)
    low, high, p_two = _t_intervals(diff, se, df, level)
    # In the pair's run SDs the differences are unit-free already (the margin too).
    out_scale = 1.0 if pair_run_sd and estimand != "benchmark" else unit_scale
    p_eq = (tost_p_value(diff, se, df, margins / out_scale)
            if np.isfinite(margins).any() else np.full(k, np.nan))
    diff, se, low, high = (out_scale * x for x in (diff, se, low, high))
    pooled_sd *= unit_scale
    out = [PairEffect(a, b, float(diff[p]), float(low[p]), float(high[p]), float(se[p]),
                      float(df[p]), float(p_two[p]), float(share[p]), float(s_lo[p]),
                      float(s_hi[p]), int(n_rep[p]), sign, float(p_eq[p]), float(margins[p]))
           for p, (a, b) in enumerate(pairs)]
    return PairwiseEffects(tuple(out), estimand, 1.0 - alpha, unit, standardized, objective,
                           margin, m, n_benchmarks, pooled_sd)


def _pair_sd(var: np.ndarray, count: np.ndarray, i: np.ndarray, j: np.ndarray,
             fallback: float) -> np.ndarray:
    """Each pair's pooled run-to-run SD on each benchmark (benchmarks x pairs).

    ``sqrt(((r_a - 1) s_a^2 + (r_b - 1) s_b^2) / (r_a + r_b - 2))`` over the
    two cells' runs; ``fallback`` where they hold no spread (fewer than two
    runs in each, or every run alike).

    Examples
    --------
    >>> var, count = np.array([[1.0, 4.0, 100.0]]), np.array([[3.0, 3.0, 3.0]])
    >>> _pair_sd(var, count, np.array([0, 0]), np.array([1, 2]), 1.0).round(3).tolist()
    [[1.581, 7.106]]
    """
    r_a, r_b = count[:, i], count[:, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = (np.where(r_a > 1, (r_a - 1) * var[:, i], 0.0)
              + np.where(r_b > 1, (r_b - 1) * var[:, j], 0.0))
        sd = np.sqrt(ss / (r_a + r_b - 2))
    return np.where(np.isfinite(sd) & (sd > 0), sd, fallback)


def _these_with_copies(copies: BenchmarkReplicates, column: dict[str, int],
                       benches: list[str], var: np.ndarray, count: np.ndarray,
                       first: np.ndarray, second: np.ndarray, se: np.ndarray,
                       df: np.ndarray, pair_sd_fallback: float | None = None) -> None:
    r"""Welch's SE and df across these benchmarks with copied cells as one noise (in place).

    Across exactly these benchmarks only the runs are random, and an
    algorithm's runs copied onto ``m`` benchmarks are one draw of its noise
    that enters the sum ``sum_b d_b`` ``m`` times. For such a group the
    variance component is :math:`(\sum_{b \in g} \sqrt{q_b})^2` with
    :math:`q_b = s^2_b / r_b` (exact also for copies rescaled per benchmark,
    whose noise is perfectly correlated), not :math:`\sum_b q_b`; it has the
    group's ``r - 1`` degrees of freedom once in Welch-Satterthwaite's sum.
    Counted as independent, HB - RS on PriorBand-shaped data covered 0.903
    for 0.983 (``tests/test_copied_replicates.py``; now 0.98). Declared groups
    (``replicate_by``) do not enter: their runs are independent draws. With
    ``pair_sd_fallback`` the differences are in each pair's run SD
    (:func:`_pair_sd`): every ``q_b`` is divided by its square.
    """
    index = {b: k for k, b in enumerate(benches)}
    nb = len(benches)
    groups_of: dict[int, np.ndarray] = {}
    for name, groups in copies.copies.items():
        if name not in column:
            continue
        label = np.arange(nb)
        for g, group in enumerate(groups):
            rows = [index[b] for b in group if b in index]
            if len(rows) > 1:
                label[rows] = nb + g
        if (label >= nb).any():
            groups_of[column[name]] = np.unique(label, return_inverse=True)[1]
    if not groups_of:
        return
    for p in range(first.size):
        i, j = int(first[p]), int(second[p])
        if (i not in groups_of and j not in groups_of) or not np.isfinite(se[p]):
            continue  # no copies in the pair, or no Welch interval to correct
        both = (count[:, i] > 0) & (count[:, j] > 0)
        n = int(both.sum())
        unit_of = (np.ones(int(both.sum())) if pair_sd_fallback is None else
                   _pair_sd(var, count, np.array([i]), np.array([j]),
                            pair_sd_fallback)[both, 0])
        parts, dfs = [], []
        for col in (i, j):
            label = groups_of.get(col, np.arange(nb))[both]
            size = int(label.max()) + 1
            cells = np.bincount(label, minlength=size)
            used = cells > 0
            root = np.bincount(label, np.sqrt(var[both, col] / count[both, col]) / unit_of,
                               minlength=size)
            runs = np.bincount(label, count[both, col], minlength=size)
            parts.append(root[used] ** 2)
            dfs.append(runs[used] / cells[used] - 1.0)
        part, dof = np.concatenate(parts), np.concatenate(dfs)
        total = float(part.sum())
        if total > 0:
            se[p] = math.sqrt(total) / n
            df[p] = 1.0 / float(((part / total) ** 2 / dof).sum())


def _over_replicates(copies: BenchmarkReplicates, pairs: Sequence[tuple[str, str]],
                     benches: list[str], mean: np.ndarray, count: np.ndarray,
                     first: np.ndarray, second: np.ndarray, sign: float, diff: np.ndarray,
                     se: np.ndarray, df: np.ndarray, share: np.ndarray, n_won: np.ndarray,
                     n_tied: np.ndarray, n_rep: np.ndarray, var: np.ndarray | None = None,
                     pair_sd_fallback: float | None = None) -> None:
    """Redo every pair on its replicates' mean differences (in place).

    With ``pair_sd_fallback`` (and ``var``) each difference is in the pair's
    run SD first (:func:`_pair_sd`).
    """
    labels = copies.labels(benches)
    if not joins(labels):
        return  # no benchmark is joined to another here
    for p in range(len(pairs)):
        i, j = first[p], second[p]
        both = (count[:, i] > 0) & (count[:, j] > 0)
        unit_of = (1.0 if pair_sd_fallback is None or var is None else
                   _pair_sd(var, count, np.array([i]), np.array([j]), pair_sd_fallback)[:, 0])
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(both, (mean[:, i] - mean[:, j]) / unit_of, np.nan)
        r = replicate_means(d, labels)
        n = r.size
        n_rep[p] = n
        diff[p] = float(r.mean()) if n else np.nan
        se[p] = float(r.std(ddof=1) / np.sqrt(n)) if n >= 2 else np.nan
        df[p] = n - 1.0 if n >= 2 else np.nan
        wins = sign * r
        n_won[p], n_tied[p] = float((wins > 0).sum()), float((wins == 0).sum())
        share[p] = (n_won[p] + 0.5 * n_tied[p]) / n if n else np.nan


def pairwise_effects(
    results: Results,
    *,
    algorithms: Sequence[str] | None = None,
    benchmark: str | None = None,
    estimand: str = "benchmarks",
    alpha: float = 0.05,
    budget: float | None = None,
    scale: str = "auto",
    margin: Margin | float | str | None = None,
    replicate_by: str | None = None,
) -> PairwiseEffects:
    """Every pair's mean difference and probability of superiority, with intervals.

    Parameters
    ----------
    results : Results
        Runs or trials; each run's incumbent at the final budget (``budget``:
        at that budget) is compared.
    algorithms : sequence of str, optional
        Which algorithms, in which order (default: all, in the data's order).
    benchmark : str, optional
        Compare within this benchmark (runs as replicates); default across
        benchmarks.
    estimand : {"benchmarks", "these"}
        Across benchmarks: generalise to benchmarks like these (default) or
        speak of these benchmarks only. Ignored with ``benchmark``.
    alpha : float
        The intervals hold simultaneously over the pairs at ``1 - alpha``.
    budget : float, optional
    scale : {"auto", "raw", "standardized"}
        Across benchmarks, ``"auto"`` standardises per benchmark when the
        scales differ (:func:`benchverdict.scales.scale_check`) or the margin
        is in SDs.
    margin : float or str or Margin, optional
        Margin of practical equivalence (``0.01`` score units, ``"0.2sd"``);
        the effects then carry TOST p-values
        (:mod:`benchverdict.effects.equivalence`).
    replicate_by : str, optional
        Across benchmarks: a benchmark metafeature whose levels are the
        independent units (each counts once, as in the report's tests);
        runs copied between benchmarks count once either way
        (:mod:`benchverdict.replicates`).

    Returns
    -------
    PairwiseEffects

    Raises
    ------
    ValueError
        An unknown algorithm or benchmark, fewer than two algorithms, or a
        margin in score units on scores whose scales differ across benchmarks.

    Examples
    --------
    >>> from benchverdict.examples import load_example
    >>> eff = pairwise_effects(load_example(), algorithms=["MLP", "LR"])
    >>> e = eff.effect("MLP", "LR")
    >>> round(e.difference, 3), e.n, eff.unit
    (0.086, 20, 'accuracy')
    """
    from benchverdict.scales import run_sd_per_benchmark, scale_check, standardise_per_benchmark

    if scale not in EFFECT_SCALES:
        raise ValueError(f"scale must be one of {EFFECT_SCALES}, got {scale!r}.")
    if estimand not in ("benchmarks", "these"):
        raise ValueError(f"estimand must be 'benchmarks' or 'these', got {estimand!r}.")
    margin = None if margin is None else Margin.parse(margin)
    data = results.final() if budget is None else results.at_budget(budget)
    names = list(data.algorithms) if algorithms is None else [str(a) for a in algorithms]
    unknown = sorted(set(names) - set(map(str, data.algorithms)))
    if unknown:
        raise ValueError(f"unknown algorithm(s) {unknown}; the data have "
                         f"{list(map(str, data.algorithms))}.")
    if len(names) < 2:
        raise ValueError("pairwise effects need at least two algorithms.")
    unit = str(data.roles.get("score", "score"))
    if benchmark is not None:
        if str(benchmark) not in set(map(str, data.benchmarks)):
            raise ValueError(f"unknown benchmark {benchmark!r}; the data have "
                             f"{list(map(str, data.benchmarks))[:10]}.")
        frame = data.table[data.table["benchmark"].astype(str) == str(benchmark)]
        mv = None
        if margin is not None and margin.standardized:
            run_sd = float(run_sd_per_benchmark(data).get(str(benchmark), math.nan))
            mv = margin.value * (run_sd if math.isfinite(run_sd) and run_sd > 0
                                 else float(frame["score"].std(ddof=1)))
        return effects_from_frame(frame, algorithms=names, estimand="benchmark",
                                  objective=data.objective, alpha=alpha, unit=unit,
                                  margin=margin, margin_value=mv,
                                  pair_run_sd=margin is not None and margin.standardized)
    standardize = scale == "standardized" or (margin is not None and margin.standardized)
    heterogeneous = len(data.benchmarks) > 1 and scale_check(data).heterogeneous
    if scale == "auto" and heterogeneous:
        standardize = True
    if standardize and margin is not None and not margin.standardized:
        raise ValueError(
            f"margin={margin.value:g} is in score units, but the effects are in standard "
            f"deviations of a benchmark (the scales differ across benchmarks or "
            f"scale='standardized'); give the margin in SDs, e.g. margin='0.2sd'.")
    runs_sd = standardize and margin is not None and margin.standardized
    if standardize:
        # A margin in SDs is in run-to-run SDs (Cohen's d), which another algorithm's
        # distance does not inflate; each pair's own (effects_from_frame), which another
        # algorithm's noise does not inflate either.
        data = standardise_per_benchmark(data, sd="runs" if runs_sd else "scores")
        unit = (f"the pair's run-to-run SD of a benchmark's {unit}" if runs_sd
                else f"SD of a benchmark's {unit}")
    frame = data.table[data.table["algorithm"].astype(str).isin(names)]
    return effects_from_frame(frame, algorithms=names, estimand=estimand,
                              objective=data.objective, alpha=alpha, unit=unit,
                              standardized=standardize, margin=margin,
                              copies=pair_replicates(results, replicate_by),
                              pair_run_sd=runs_sd)


__all__ = [
    "EFFECT_COLUMNS",
    "EFFECT_ESTIMANDS",
    "EFFECT_SCALES",
    "PairEffect",
    "PairwiseEffects",
    "effects_from_frame",
    "pairwise_effects",
]
