"""Geburek et al.'s (2024, §4.2, App. C) sanity checks of a benchmark study.

Each check compares nested mixed models with a GLRT and returns a
:class:`SanityCheck` naming its verdict and the models it compared:

* **Seed dependency** -- does the seed matter beyond chance?
  ``score ~ algorithm [+ (1|benchmark)]`` against the same plus
  ``(0 + algorithm | seed)`` (a seed effect per algorithm, shared across
  benchmarks); then, per algorithm, ``score ~ 1`` against ``score ~ 1 +
  (1|seed)`` (Holm-adjusted, chi-bar-squared p-values) to say which
  algorithms are affected. With more than 10 algorithms the joint model's
  k(k+1)/2 covariance parameters are out of reach, and the per-algorithm
  Holm family is the overall test.
* **Benchmark informativeness** -- per benchmark, ``score ~ 1`` against
  ``score ~ algorithm``: on an uninformative benchmark the algorithms do not
  differ. Plus the variance ranking of ``score ~ benchmark + (0 + benchmark ||
  algorithm)``: each benchmark's variance between algorithms.
* **Budget relevance** -- does the score change with the budget (a simple
  effect), and does it change differently per algorithm (the budget changes
  the comparison)? Each run is reduced to its least-squares slope in the
  budget, and the slopes are compared with Wald F tests in a model whose
  replicate is the run (:func:`budget_relevance`); the verdict is
  ``"interaction"``, ``"simple"`` or ``"none"``.

By default (``budget=None``) the seed and benchmark checks use each run's
final incumbent, so that repeated budgets of one run do not count as
independent replicates; pass a number for the incumbents at that budget, or
a DataFrame (``results.table``) to use every row as given. The budget check
uses every run's trajectory.

Variance components are tested at the boundary of their space, so their
chi-squared p-values are conservative (Self and Liang 1987): the seed check's
false-alarm rate is at most alpha; the fixed-effect tests have size alpha
(the budget check's F tests with Satterthwaite df approximately).

Degenerate data give answers, not crashes: scores the null model reproduces
exactly (no residual variation) leave nothing for the larger model to
explain (p = 1); scores only the larger model reproduces are explained by it
exactly (p = 0). :func:`sanity_checks` runs each check on its own: a check
that fails records its error as a check with verdict ``"failed: <reason>"``
and the others are kept. Rows and runs the input left out are counted in
each check's ``data`` and ``details``.
"""

from __future__ import annotations

import math
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import special

from benchverdict._repr import ResultText
from benchverdict.lmem import exclusions as _exclusions
from benchverdict.lmem.fitting import fit
from benchverdict.lmem.glrt import BoundaryWarning, GLRTResult, glrt, nested_f_test
from benchverdict.lmem.model import DegenerateFitError, check_alpha
from benchverdict.results import Results
from benchverdict.stats.multiple_testing import holm

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.verdict import Verdict


#: At most this many bars per sanity-check panel (HPO-B has 86 benchmarks).
MAX_BARS = 30
#: The variance ranking of benchmark informativeness is fitted up to this many benchmarks.
MAX_RANKED_BENCHMARKS = 300


@dataclass(repr=False, frozen=True)
class SanityCheck(ResultText):
    """The result of one sanity check.

    Attributes
    ----------
    name : str
        ``"seed_dependency"``, ``"benchmark_informativeness"`` or ``"budget_relevance"``.
    verdict : str
        The finding in a few words.
    flagged : tuple of str
        What the check points at: affected algorithms, uninformative
        benchmarks, or ``("budget",)``.
    tests : dict of GLRTResult or WaldTest
        Every test, keyed by what it tests (likelihood-ratio tests; Wald F
        tests for the budget check).
    table : pandas.DataFrame
        One row per test (or per benchmark/algorithm), tidy.
    alpha : float
    data : str
        Which rows were used (and how many rows or runs the input left out).
    details : dict
        Check-specific extras; ``excluded_rows`` and ``excluded_runs`` count
        what the input left out; a failed check has ``error``.
    """

    name: str
    verdict: str
    flagged: tuple[str, ...]
    tests: dict[str, GLRTResult | WaldTest]
    table: pd.DataFrame
    alpha: float
    data: str
    details: dict[str, Any] = field(default_factory=dict)

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        flagged = f"; flagged: {names(self.flagged)}" if self.flagged else ""
        return [f"{self.name}: {self.verdict}{flagged} (alpha = {self.alpha:g})",
                f"data: {self.data}"]

    @property
    def failed(self) -> bool:
        """Whether the check could not be run (its error is in ``details["error"]``)."""
        return "error" in self.details

    @property
    def models(self) -> list[tuple[str, str]]:
        """The (null, alternative) model formulas (for a Wald test: hypothesis, model)."""
        return [(t.formula0, t.formula1) for t in self.tests.values()]

    def verdicts(self) -> list[Verdict]:
        """No verdicts: a sanity check tests the study's design, not a pair of algorithms.

        An empty list (every result type answers ``verdicts()``); what the
        check found is in :attr:`verdict`, :attr:`flagged` and :attr:`table`.
        """
        return []

    def summary(self) -> str:
        """The check's verdict and every test it ran, as text."""
        lines = [f"{self.name}: {self.verdict} (alpha = {self.alpha:g}; {self.data})"]
        by_f = (self.name == "benchmark_informativeness" and {"F", "p_value_f"} <= set(
            self.table.columns))
        rows = self.table.set_index("benchmark") if by_f else None
        for key, t in self.tests.items():
            r = rows.loc[key] if by_f and key in rows.index else None
            pairs = (float(r["p_value_welch_pairs"]) if r is not None
                     and "p_value_welch_pairs" in r.index else float("nan"))
            if r is not None and r["p_value"] == (
                    r["p_value_f"] if math.isnan(pairs) else max(r["p_value_f"], pairs)):
                # The exact F test decides (test="F"): print its p, the GLRT's beside it, and
                # the pairs' Welch tests where they decide (intersection-union).
                decides = ("" if math.isnan(pairs) or pairs <= r["p_value_f"] else
                           f"; the pairs' Welch tests (own variances, Hsu df, Bonferroni) "
                           f"give p = {pairs:.4g}, which decides")
                lines.append(f"  {key}: F = {r['F']:.4g}, df = {t.df}, {int(r['df_f'])}, "
                             f"p = {r['p_value_f']:.4g} "
                             f"(exact F; GLRT chi2 = {t.chi2:.4g}, p = {t.p_value:.4g}"
                             f"{decides})  [{t.formula0}  vs  {t.formula1}]")
                continue
            if isinstance(t, WaldTest):
                lines.append(f"  {key}: F = {t.F:.4g}, df = {t.df}, {t.df_denominator:.4g}, "
                             f"p = {t.p_value:.4g}  [{t.formula0}]")
                continue
            lines.append(f"  {key}: chi2 = {t.chi2:.4g}, df = {t.df}, p = {t.p_value:.4g}  "
                         f"[{t.formula0}  vs  {t.formula1}]")
        return "\n".join(lines)

    def plot(self, ax: plt.Axes | None = None, *, max_bars: int = MAX_BARS) -> plt.Axes:
        """A bar chart of the check's per-item statistic (see each check).

        One horizontal bar per item (algorithm or benchmark), so names stay
        readable however many there are; flagged items are drawn hatched in
        another colour and listed in the legend. With more than ``max_bars``
        items, every flagged one and the most extreme of the others are drawn
        (the title says how many of how many; all are in :attr:`table`).
        """
        from matplotlib.patches import Patch

        from benchverdict._plain_text import plain_text, set_lines
        from benchverdict.plotting import legend_outside, new_axes, shorten, theme

        spec = self.details.get("plot")
        if self.failed or (spec is None and not len(self.table)):
            labels, values, hit, xlabel = [], np.array([]), [], ""
        elif spec is None:
            t = self.table
            labels = [str(x) for x in t.iloc[:, 0]]
            values = -np.log10(np.maximum(t["p_value"].to_numpy(dtype=float), 1e-300))
            hit = list(t["p_value"].to_numpy(dtype=float) < self.alpha)
            xlabel = "-log10 p"
        else:
            labels, values, hit, xlabel = spec
            labels = [str(x) for x in labels]
        values = np.asarray(values, dtype=float)
        hit = [bool(h) for h in hit]
        keep = _bars_to_show(values, hit, max_bars)
        ax = new_axes(ax, width=5.0, height=0.2 * max(len(keep), 3) + 1.2)
        with theme():
            if not len(values):
                ax.text(0.5, 0.5, shorten(self.verdict, 60), ha="center", va="center",
                        wrap=True, transform=ax.transAxes)
                ax.set_axis_off()
            else:
                colours = {False: "#0021DE", True: "#DE2C00"}
                y = np.arange(len(keep))
                for flagged in (False, True):
                    rows = [i for i, j in enumerate(keep) if hit[j] == flagged]
                    if rows:
                        ax.barh(y[rows], values[[keep[i] for i in rows]], height=0.7,
                                color=colours[flagged], hatch="///" if flagged else None,
                                edgecolor="white", linewidth=0)
                ax.set_yticks(y, [shorten(labels[j], 24) + (" *" if hit[j] else "")
                                  for j in keep])
                ax.set_ylim(len(keep) - 0.5, -0.5)
                ax.set_xlabel(xlabel)
                if spec is None:
                    ax.axvline(-np.log10(self.alpha), color="k", ls="--", lw=0.8)
                ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
                # a flagged item can have a zero-length bar (no variance): a marker shows it
                flagged_rows = [i for i, j in enumerate(keep) if hit[j]]
                if flagged_rows:
                    ax.plot(values[[keep[i] for i in flagged_rows]], y[flagged_rows], "D",
                            color=colours[True], markersize=4, clip_on=False, zorder=4)
                handles = [Patch(facecolor=colours[True], hatch="///", edgecolor="white",
                                 label="flagged (*)"),
                           Patch(facecolor=colours[False], label="not flagged")]
                legend_outside(ax, handles, [h.get_label() for h in handles])
            title = f"{self.name.replace('_', ' ')}: {self.verdict}"
            if len(keep) < len(values):
                title += (f" ({len(keep)} of {len(values)} shown: every flagged one and the "
                          f"extremes; all are in the table)")
            set_lines(ax.set_title(""), textwrap.wrap(title, 60) or [""])
            ax.title.set_fontsize(9)
            ax.title.set_ha("left")
            ax.title.set_position((0.0, 1.0))
            ax.title.set_va("bottom")
        return plain_text(ax)


def _bars_to_show(values: np.ndarray, hit: list[bool], max_bars: int) -> list[int]:
    """Indices of the bars to draw: all of them, or every flagged one and the extremes."""
    n = len(values)
    if n <= max_bars:
        return list(range(n))
    flagged = [i for i in range(n) if hit[i]][:max_bars]
    others = sorted((i for i in range(n) if not hit[i]), key=lambda i: (values[i], i))
    room = max_bars - len(flagged)
    low, high = (room + 1) // 2, room // 2
    chosen = set(flagged) | set(others[:low]) | set(others[len(others) - high:] if high else [])
    return sorted(chosen)


@dataclass(repr=False, frozen=True)
class SanityReport(ResultText):
    """All applicable sanity checks of one Results."""

    checks: tuple[SanityCheck, ...]

    def _summary_lines(self) -> list[str]:
        return [f"{len(self.checks)} sanity check(s)",
                *(f"{c.name}: {c.verdict}" for c in self.checks)]

    @property
    def table(self) -> pd.DataFrame:
        """One row per check: name, verdict, flagged, data."""
        return pd.DataFrame([{"check": c.name, "verdict": c.verdict,
                              "flagged": ", ".join(c.flagged), "data": c.data}
                             for c in self.checks])

    def __getitem__(self, name: str) -> SanityCheck:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"no check {name!r}; have {[c.name for c in self.checks]}.")

    def verdicts(self) -> list[Verdict]:
        """No verdicts: the checks test the study's design (see :meth:`SanityCheck.verdicts`)."""
        return []

    def summary(self) -> str:
        """Every check's summary, one paragraph each."""
        return "\n\n".join(c.summary() for c in self.checks)

    def plot(self, ax: plt.Axes | None = None, *, check: str | None = None,
             max_bars: int = MAX_BARS) -> plt.Axes:
        """One panel per check, stacked, each as tall as its bars need; returns the first.

        A double-column-wide figure (fonts stay readable when it is shown at
        a page's width); see :meth:`SanityCheck.plot`. The figure has one
        Axes per check: ``report.plot().figure`` is the whole figure. With
        ``check`` (a check's name), or with ``ax`` when the report has one
        check, only that check is drawn, into ``ax`` if given.
        """
        from matplotlib import pyplot

        from benchverdict.plotting import DOUBLE_COLUMN, theme

        if check is not None:
            return self[check].plot(ax=ax, max_bars=max_bars)
        if ax is not None:
            if len(self.checks) != 1:
                raise ValueError(
                    f"this report has {len(self.checks)} checks, one panel each, so it cannot "
                    f"be drawn into one Axes; pass ax=None for its own figure, or name the "
                    f"check to draw: plot(ax=ax, check=...) (names: "
                    f"{[c.name for c in self.checks]}).")
            return self.checks[0].plot(ax=ax, max_bars=max_bars)
        rows = []
        for c in self.checks:
            spec = c.details.get("plot")
            n = len(spec[1]) if spec is not None else len(c.table)
            rows.append(max(min(n, max_bars), 3) * 0.2 + 1.1)
        with theme():
            _, axes = pyplot.subplots(len(self.checks), 1, squeeze=False,
                                      figsize=(DOUBLE_COLUMN, sum(rows) + 0.2),
                                      gridspec_kw={"height_ratios": rows})
        for panel, c in zip(axes[:, 0], self.checks):
            c.plot(ax=panel, max_bars=max_bars)
        return axes[0, 0]


# ---------------------------------------------------------------------- helpers
def _rows(results: Results | pd.DataFrame, budget) -> tuple[pd.DataFrame, str, pd.DataFrame]:
    """The rows a check uses (a view of ``results``), what they are, and what was left out."""
    if isinstance(results, pd.DataFrame):
        return results, f"{len(results)} rows as given", _exclusions.exclusions_of(results)
    view = results if budget is None else results.incumbents(
        None if budget == "final" else float(budget))
    return view.table, view.rows_used(), _exclusions.exclusions_of(view)


def _quiet_glrt(m0, m1, alpha: float) -> GLRTResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoundaryWarning)
        return glrt(m0, m1, alpha=alpha)


def _degenerate_glrt(f0: str, f1: str, alpha: float, m0=None) -> GLRTResult:
    """The test when a model's random effects reproduce the scores exactly.

    ``m0`` is None when the null model already does (nothing is left to
    explain: chi2 = 0, p = 1); else only ``m1`` does (chi2 = inf, p = 0).
    """
    if m0 is None:
        return GLRTResult(0.0, 0, 1.0, False, None, np.inf, np.inf, 0, 0, f0, f1, alpha,
                          note="m0 reproduces the scores exactly: nothing is left to explain")
    return GLRTResult(np.inf, 0, 0.0, False, None, m0.loglik, np.inf, m0.n_params, 0, f0, f1,
                      alpha, note="m1 reproduces the scores exactly and m0 does not")


def _compare(frame: pd.DataFrame | Results, f0: str, f1: str, alpha: float):
    """GLRT of ``f0`` against ``f1`` on ``frame`` (m1 started from m0's solution).

    Returns the test and both models (``None`` for a model whose random
    effects reproduce the scores exactly; then the test follows the module
    docstring's rule).
    """
    try:
        m0 = fit(frame, f0)
    except DegenerateFitError:
        return _degenerate_glrt(f0, f1, alpha), None, None
    try:
        m1 = fit(frame, f1, start=m0)
    except DegenerateFitError:
        return _degenerate_glrt(str(m0.formula), f1, alpha, m0), m0, None
    return _quiet_glrt(m0, m1, alpha), m0, m1


def _progress(items, progress: bool, desc: str):
    if not progress:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, leave=False)


# ---------------------------------------------------------------------- checks
#: Up to this many algorithms the seed check's overall test is Geburek et al.'s GLRT of
#: ``(0 + algorithm|seed)`` (k(k+1)/2 covariance parameters: 55 at 10 algorithms; its fit
#: took 85 s at 40 and did not end at 100). Beyond, the overall test is Holm over the
#: per-algorithm tests, which controls the same family-wise error.
MAX_JOINT_SEED_ALGORITHMS = 10


def seed_dependency(results: Results | pd.DataFrame, *, alpha: float = 0.05,
                    budget: float | None = None, progress: bool = False
                    ) -> SanityCheck:
    """Test whether the seed affects the scores (Geburek et al. §4.2, App. C Fig. 14).

    See the module docstring for the models. The per-algorithm tests use the
    50:50 chi-bar-squared p-value of one variance at zero and Holm's
    adjustment over algorithms. With more than
    :data:`MAX_JOINT_SEED_ALGORITHMS` algorithms the overall test is that
    Holm family itself (seed-dependent when some algorithm is affected), not
    the joint ``(0 + algorithm|seed)`` model, whose covariance parameters grow
    as k(k+1)/2; ``details["overall_test"]`` says which was used.

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=3, n_seeds=15, seed_sd={"B": 2.0}, seed=0)
    >>> check = seed_dependency(res)
    >>> check.verdict, check.flagged
    ('seed-dependent', ('B',))
    """
    frame, used, left_out = _rows(results, "final" if budget is None else budget)
    bench = " + (1|benchmark)" if frame["benchmark"].nunique() > 1 else ""
    base = "score ~ algorithm" + bench
    algorithms = sorted(map(str, frame["algorithm"].unique()))
    joint = len(algorithms) <= MAX_JOINT_SEED_ALGORITHMS
    tests: dict[str, GLRTResult | WaldTest] = {}
    if joint:
        tests["overall"], _, _ = _compare(frame, base, base + " + (0 + algorithm|seed)", alpha)
    rows = []
    for alg in _progress(algorithms, progress, "seed dependency"):
        sub = frame[frame["algorithm"].astype(str) == alg]
        t, _, alt = _compare(sub, "score ~ 1" + bench, "score ~ 1" + bench + " + (1|seed)",
                             alpha)
        tests[alg] = t
        var = (float(alt.varcomp.query("group == 'seed'")["value"].iloc[0])
               if alt is not None else (np.nan if np.isinf(t.chi2) else 0.0))
        rows.append({"algorithm": alg, "seed_variance": var, "chi2": t.chi2,
                     "p_value": t.p_value_chibar if t.p_value_chibar is not None
                     else t.p_value})
    table = pd.DataFrame(rows)
    table["p_value_adjusted"] = holm(table["p_value"].to_numpy())
    table["adjustment"] = "holm"
    table["affected"] = table["p_value_adjusted"] < alpha
    if joint:
        # The joint model has one residual variance: an algorithm noisier than the others
        # has seed means that vary more than that variance predicts, and its seed variance
        # absorbs the excess (3 benchmarks x 30 seeds, no seed effect, run SD 5 against 0.5:
        # "seed-dependent" in 97% of data sets, lme4 agreeing). Each algorithm's own test
        # has its own residual variance, so the verdict needs both (intersection-union).
        dependent = tests["overall"].p_value < alpha and bool(table["affected"].any())
        overall_test = ("GLRT of (0 + algorithm|seed), confirmed by some algorithm's own "
                        "test after Holm (the joint model's one residual variance reads an "
                        "algorithm noisier than the others as seed-dependent)")
    else:
        # Holm's minimum over the per-algorithm tests is itself a level-alpha test of "no
        # algorithm's scores depend on the seed" (the joint model's null), without fitting
        # k(k+1)/2 covariance parameters.
        dependent = bool(table["affected"].any())
        overall_test = (f"Holm over the {len(algorithms)} per-algorithm tests (more than "
                        f"{MAX_JOINT_SEED_ALGORITHMS} algorithms: the joint model "
                        f"(0 + algorithm|seed) would have {_n_cov(len(algorithms))} "
                        f"covariance parameters)")
    flagged = tuple(table.loc[table["affected"], "algorithm"]) if dependent else ()
    verdict = "seed-dependent" if dependent else "no seed dependency found"
    return SanityCheck(
        "seed_dependency", verdict, flagged, tests, table, alpha, used,
        details={"plot": (list(table["algorithm"]), list(table["seed_variance"]),
                          list(table["affected"] & dependent), "seed variance"),
                 "overall_test": overall_test, **_exclusions.counts(left_out)},
    )


def _n_cov(k: int) -> int:
    """Covariance parameters of ``(0 + algorithm|seed)`` with ``k`` algorithms."""
    return k * (k + 1) // 2


def _welch_pairs(sub: pd.DataFrame) -> float:
    """Smallest Bonferroni-adjusted p of the pairs' Welch tests on Hsu's df (NaN if undefined).

    Each pair of algorithms: Welch's statistic (each its own variance) on
    ``min(n_a, n_b) - 1`` df, conservative for any variance ratio; the
    smallest p times the number of pairs is a level-alpha test of "all
    means equal" that assumes no common variance. Undefined (NaN: the model's
    test decides alone) when some algorithm has fewer than two runs.
    """
    # The per-benchmark contrasts' own Welch tests (one implementation: round-off snapped,
    # constant cells handled), on this benchmark's rows.
    from benchverdict.lmem.per_benchmark import per_benchmark_contrasts

    sizes = sub.groupby(sub["algorithm"].astype(str), observed=True).size()
    if len(sizes) < 2 or (sizes < 2).any():
        return float("nan")
    every = _all_cells_constant(sub, sizes)
    if every is not None:
        return every
    p = per_benchmark_contrasts(sub[["algorithm", "benchmark", "score"]])["p_value_welch"]
    return float(min(1.0, p.min() * len(p)))


def _all_cells_constant(sub: pd.DataFrame, sizes: pd.Series) -> float | None:
    """The exact permutation p of "all equal" when every algorithm scores one value per run.

    Every cell constant, with distinct values: only the arrangements of the runs that
    give each algorithm one value (a block of runs of its size) are as extreme as the
    observed one, so ``p = prod_s c_s! prod_i n_i! / N!`` (``c_s`` algorithms of ``s``
    runs). A pair's complete separation alone is worth only ``2 / C(n_a + n_b, n_a)``
    (0.1 for 3 runs each), and the Bonferroni minimum over 210 pairs called 21
    deterministic algorithms on 3 seeds "not separated". None when some cell varies
    (the pairs' Welch tests decide) or two algorithms share their value (1.0 when all do).
    """
    by = sub.groupby(sub["algorithm"].astype(str), observed=True)["score"]
    low, high = by.min(), by.max()
    if not (low == high).all():
        return None
    values = low.to_numpy(dtype=float)
    if np.unique(values).size == 1:
        return 1.0
    if np.unique(values).size < values.size:
        return None
    n = sizes.to_numpy(dtype=float)
    counts = np.unique(n, return_counts=True)[1]
    log_p = (special.gammaln(counts + 1.0).sum() + special.gammaln(n + 1.0).sum()
             - special.gammaln(n.sum() + 1.0))
    return float(min(1.0, math.exp(log_p)))


def benchmark_informativeness(results: Results | pd.DataFrame, *, alpha: float = 0.05,
                              budget: float | None = None,
                              rank: bool = True, standardize: bool = True,
                              test: str = "F", progress: bool = False) -> SanityCheck:
    """Test, per benchmark, whether the algorithms differ (Geburek et al. §4.2, App. C Fig. 16).

    Per benchmark, ``score ~ 1`` against ``score ~ algorithm`` (unadjusted,
    as in the paper; Holm's ``p_value_adjusted`` is given too). The paper uses the GLRT;
    these are linear models, for which the F test is exact, while the GLRT's
    chi-squared reference runs hot in small samples (about 11% false alarms
    at alpha = 5% with 18 rows per benchmark, in our simulation). So
    ``test="F"`` (default) decides with the F test; ``test="glrt"`` follows
    the paper. Both p-values are in the table. Both models have one residual
    variance, so an algorithm with 2-3 noisy runs beside quiet ones made
    identical algorithms "differ" (57% of such benchmarks at alpha = 0.05):
    a benchmark is informative only when some pair's Welch test (each
    algorithm its own variance, Hsu's df ``min(n_a, n_b) - 1``, Bonferroni
    over the pairs: ``p_value_welch_pairs``) rejects too; where an algorithm
    has fewer than two runs it is undefined and the model's test decides
    alone. With
    ``rank=True`` also fits ``score ~ benchmark + (0 + benchmark ||
    algorithm)`` and ranks benchmarks by their between-algorithm variance.
    With ``standardize=True`` (default) scores are first divided by their
    benchmark's standard deviation: the model has one residual variance, so
    on raw scores a benchmark's rank would mostly reflect its scale (on the
    PriorBand data, every LC-Bench variance shrinks to zero next to JAHS's).
    A benchmark on which every algorithm scores identically is uninformative
    (p = 1); one where each algorithm's scores are constant but differ is
    informative (p = 0). If the ranking fit fails, the per-benchmark tests
    are kept and the verdict says why the ranking is missing.

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=4, n_seeds=10, algorithm_effect={"C": 3.0},
    ...                        uninformative=[0], seed=1)
    >>> benchmark_informativeness(res).flagged
    ('bench00',)
    """
    if test not in ("F", "glrt"):
        raise ValueError(f"test must be 'F' or 'glrt', got {test!r}.")
    frame, used, left_out = _rows(results, "final" if budget is None else budget)
    rows, tests = [], {}
    # One groupby, not one scan of every row per benchmark (2000 benchmarks: 76 s -> 6 s).
    by_benchmark = dict(tuple(frame.groupby(frame["benchmark"].astype(str), observed=True)))
    benchmarks = sorted(by_benchmark)
    for bench in _progress(benchmarks, progress, "benchmark informativeness"):
        sub = by_benchmark[bench]
        if sub["algorithm"].nunique() < 2:
            raise ValueError(f"benchmark {bench!r} has results for one algorithm only; the "
                             "informativeness check compares algorithms within a benchmark.")
        m0, m1 = fit(sub, "score ~ 1"), fit(sub, "score ~ algorithm")
        t = _quiet_glrt(m0, m1, alpha)
        tests[bench] = t
        # The exact F test of the same nested linear models.
        f_stat, p_f = nested_f_test(m0, m1)
        p_pairs = _welch_pairs(sub)
        p = p_f if test == "F" else t.p_value
        rows.append({"benchmark": bench, "chi2": t.chi2, "df": t.df, "p_value_glrt": t.p_value,
                     "F": f_stat, "df_f": len(sub) - sub["algorithm"].nunique(),
                     "p_value_f": p_f, "p_value_welch_pairs": p_pairs,
                     # Intersection-union: the models' one residual variance read a noisy
                     # algorithm with 2-3 runs beside quiet ones as a difference between
                     # identical algorithms (57% of such benchmarks "informative").
                     "p_value": p if np.isnan(p_pairs) else max(p, p_pairs)})
    table = pd.DataFrame(rows)
    table["p_value_adjusted"] = holm(table["p_value"].to_numpy())
    table["adjustment"] = "holm"
    table["informative"] = table["p_value"] < alpha
    rank_error = None
    if rank and len(table) > MAX_RANKED_BENCHMARKS:
        # The ranking model has a fixed effect and a variance per benchmark: 300 took
        # 1.4 GB, 2000 exhausted 24 GB.
        rank_error = (f"{len(table)} benchmarks, more than MAX_RANKED_BENCHMARKS = "
                      f"{MAX_RANKED_BENCHMARKS}: the ranking model would have a fixed effect "
                      f"and a variance component per benchmark; rank a subset of benchmarks")
    elif rank and len(table) > 1:
        ranked = frame
        if standardize:
            sd = frame.groupby("benchmark", observed=True)["score"].transform("std")
            ranked = frame.assign(score=frame["score"] / sd.where(sd > 0, 1.0))
        try:
            m = fit(ranked, "score ~ benchmark + (0 + benchmark || algorithm)")
        except DegenerateFitError:
            rank_error = ("each algorithm's scores are constant within a benchmark, so there is "
                          "no residual variation to rank against")
        except np.linalg.LinAlgError as err:
            rank_error = f"the ranking fit failed: {err}"
        else:
            vc = m.varcomp[m.varcomp["group"] == "algorithm"]
            var = {t.removeprefix("benchmark"): v for t, v in zip(vc["term1"], vc["value"])}
            table["algorithm_variance"] = table["benchmark"].map(var)
            table["variance_rank"] = table["algorithm_variance"].rank(
                ascending=False, method="min").astype(int)
    flagged = tuple(table.loc[~table["informative"], "benchmark"])
    verdict = (f"{len(flagged)} of {len(table)} benchmarks uninformative" if flagged
               else "every benchmark separates the algorithms")
    if rank_error is not None:
        verdict += f"; no variance ranking ({rank_error})"
    values = (table["algorithm_variance"] if "algorithm_variance" in table
              else -np.log10(np.maximum(table["p_value"], 1e-300)))
    return SanityCheck(
        "benchmark_informativeness", verdict, flagged, tests, table, alpha, used,
        details={"plot": (list(table["benchmark"]), list(values), list(~table["informative"]),
                          "between-algorithm variance" if "algorithm_variance" in table
                          else "-log10 p"),
                 **({"rank_error": rank_error} if rank_error else {}),
                 **_exclusions.counts(left_out)},
    )


#: The budget check reads each run's incumbent on at most this many budgets: every distinct
#: budget when there are no more, else this many quantiles of them (see budget_relevance).
MAX_BUDGET_GRID = 64


@dataclass(frozen=True)
class WaldTest:
    """A Wald F test of linear hypotheses on a mixed model's fixed effects.

    Attributes
    ----------
    F : float
    df : int
        Numerator degrees of freedom (number of hypotheses).
    df_denominator : float
        Satterthwaite denominator df (lmerTest's method; see
        :func:`benchverdict.lmem.model.wald_f_test`).
    p_value : float
    formula0 : str
        The hypothesis (what is zero, in which model).
    formula1 : str
        The fitted model.
    alpha : float
    """

    F: float
    df: int
    df_denominator: float
    p_value: float
    formula0: str
    formula1: str
    alpha: float

    @property
    def chi2(self) -> float:
        """The Wald chi-squared statistic ``df * F`` (what a large-sample test would use)."""
        return float(self.df * self.F)

    @property
    def significant(self) -> bool:
        """Whether ``p_value < alpha``."""
        return self.p_value < self.alpha


def run_slopes(results: Results | pd.DataFrame) -> tuple[pd.DataFrame, str, np.ndarray | None]:
    """Each run's least-squares slope of its score in the budget.

    A run is one algorithm x benchmark x seed. For a :class:`Results` the
    slope is that of the run's incumbent on a budget grid common to all runs
    (:meth:`Results.incumbent_cube`, which both engines compute exactly): the
    distinct budgets, or :data:`MAX_BUDGET_GRID` quantiles of them when there
    are more; grid points before a run's first row are left out. For a
    DataFrame (``results.table``) it is the slope over the run's rows as
    given. Runs with fewer than two distinct budgets have no slope and are
    left out (counted in the returned text).

    Returns
    -------
    slopes : pandas.DataFrame
        ``algorithm, benchmark, seed, slope``, one row per run.
    used : str
        What the slopes were computed from.
    grid : numpy.ndarray or None
        The budget grid (None for a DataFrame).

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=2, n_seeds=2, budgets=(1, 2, 3),
    ...                        budget_slope={"A": -1.0}, noise_sd=0.0, benchmark_sd=0.0, seed=0)
    >>> slopes, used, grid = run_slopes(res)
    >>> slopes.groupby("algorithm")["slope"].mean().round(6).to_dict()
    {'A': -1.0, 'B': 0.0, 'C': 0.0}
    """
    if isinstance(results, Results):
        levels = results.budget_grid(MAX_BUDGET_GRID)
        cube = results.incumbent_cube(levels)  # (budgets, algorithms, benchmarks, seeds)
        t = len(levels)
        y = cube.reshape(t, -1).T  # one row per run
        x = np.broadcast_to(levels, y.shape)
        names = pd.MultiIndex.from_product(
            [results.algorithms, results.benchmarks, results.seeds],
            names=["algorithm", "benchmark", "seed"]).to_frame(index=False)
        slope = _ls_slopes(x, y)
        what = (f"each run's incumbent at {t} budgets "
                + ("(every distinct budget)" if t == len(results.budgets)
                   else f"(quantiles of the {len(results.budgets)} distinct budgets)"))
        grid: np.ndarray | None = levels
    else:
        frame = results
        if "budget" not in frame.columns:
            raise ValueError("the budget check needs a budget column (Results.from_frame("
                             "budget=...); on the command line --budget COLUMN).")
        keys = ["algorithm", "benchmark", "seed"]
        g = frame.groupby(keys, observed=True, sort=True)
        xb = frame["budget"].astype(float) - g["budget"].transform("mean").astype(float)
        yb = frame["score"].astype(float) - g["score"].transform("mean").astype(float)
        sums = pd.DataFrame({"sxy": xb * yb, "sxx": xb * xb}).groupby(
            [frame[k] for k in keys], observed=True, sort=True).sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(sums["sxx"] > 0, sums["sxy"] / sums["sxx"], np.nan)
        names = sums.index.to_frame(index=False)
        what = "each run's rows as given"
        grid = None
    out = names.assign(slope=slope)
    if isinstance(results, Results):  # the cube has every combination: drop absent runs
        out = out[np.isfinite(y).any(axis=1)]
    n_runs = len(out)
    out = out[np.isfinite(out["slope"])].reset_index(drop=True)
    left = n_runs - len(out)
    used = (f"{len(out)} runs' least-squares slopes in the budget, from {what}"
            + (f"; {left} run(s) with fewer than two budgets have no slope" if left > 0
               else ""))
    return out, used, grid


def _ls_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise least-squares slopes of ``y`` on ``x`` over the finite ``y`` (nan if < 2)."""
    ok = np.isfinite(y)
    n = ok.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        xm = np.where(ok, x, 0.0).sum(axis=1) / n
        ym = np.where(ok, y, 0.0).sum(axis=1) / n
        dx = np.where(ok, x - xm[:, None], 0.0)
        dy = np.where(ok, y - ym[:, None], 0.0)
        sxx = (dx * dx).sum(axis=1)
        return np.where(sxx > 0, (dx * dy).sum(axis=1) / sxx, np.nan)


def budget_relevance(results: Results | pd.DataFrame, *, alpha: float = 0.05,
                     estimand: str = "benchmarks") -> SanityCheck:
    """Test whether the budget matters and changes the comparison (App. C Fig. 18).

    The rows along one run share that run (its seed's luck carries over from
    one budget to the next), so the run, not the row, is the replicate. Each
    run is reduced to its least-squares slope in the budget
    (:func:`run_slopes`), and the slopes are compared with the model the
    estimand chooses for one value per run
    (:func:`~benchverdict.lmem.estimand.default_formula`): for
    ``"benchmarks"`` (default) ``slope ~ algorithm + (1|benchmark) +
    (1|benchmark:algorithm)`` when cells have several runs, for ``"these"``
    ``slope ~ algorithm + (1|benchmark)``; fitted by REML.

    * **interaction**: do the algorithms' mean slopes differ? Wald F test
      of every algorithm effect being zero, Satterthwaite denominator df.
    * **simple**: is the mean slope (equal weights over algorithms) zero?
      Wald t test (as F) with Satterthwaite df.

    Verdict ``"interaction"`` when the interaction is significant (with
    ``"benchmarks"``, also some pair's paired t test on its cell mean slopes
    across benchmarks, Bonferroni over the pairs: the model assumes every
    algorithm's slope varies equally across benchmarks, and one that varies
    more made identical algorithms "interact" in 15% of null data sets),
    ``"simple"`` when only the simple effect is, else ``"none"``;
    ``details["slopes"]`` holds each algorithm's estimated mean slope.

    Why slopes: treating every incumbent along a run as an independent row
    (the earlier GLRT of ``score ~ algorithm * budget + (1|benchmark)``)
    finds an algorithm x budget interaction between identical algorithms
    whose runs each have their own slope far more often than alpha (36 of
    100 simulated data sets at alpha = 0.05; the slopes' test: 8 of 300,
    ``tests/test_lmem_estimand.py``).
    A per-run slope is an exact reduction: its sampling error already
    contains the run's own slope deviation and the noise along the run, and
    it needs no ``(1 + budget | run)`` term, whose fit would cost a 2 x 2
    covariance per run. In a balanced design (every run on the same
    budgets) the mean of the runs' slopes is the fixed slope of that
    random-slope model.

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=3, n_seeds=5, budgets=(1, 2, 3, 4),
    ...                        budget_slope={"A": -1.0}, seed=2)
    >>> budget_relevance(res).verdict
    'interaction'
    """
    from benchverdict.lmem.estimand import check_estimand, formula_for
    from benchverdict.lmem.model import wald_f_test

    check_alpha(alpha)
    check_estimand(estimand)
    if isinstance(results, Results):
        if not results.has_budget:
            raise ValueError("the budget check needs a budget column (Results.from_frame("
                             "budget=...); on the command line --budget COLUMN).")
        n_budgets, left_out = len(results.budgets), _exclusions.exclusions_of(results)
    else:
        if "budget" not in results.columns:
            raise ValueError("the budget check needs a budget column (Results.from_frame("
                             "budget=...); on the command line --budget COLUMN).")
        n_budgets, left_out = results["budget"].nunique(), _exclusions.exclusions_of(results)
    if n_budgets < 2:
        raise ValueError("the budget check needs at least two distinct budgets.")
    slopes, used, _ = run_slopes(results)
    if slopes.empty:
        raise ValueError("no run has results at two distinct budgets, so no run has a slope "
                         "in the budget; the budget check needs runs observed along the budget.")
    frame = slopes.rename(columns={"slope": "score"})
    formula = formula_for(frame, estimand)
    try:
        m = fit(frame, formula, reml=True)
    except DegenerateFitError:
        # The slopes are constant within each algorithm x benchmark cell: the cells' slopes
        # are then the data (one per cell), compared by the additive model.
        cells = frame.groupby(["algorithm", "benchmark"], observed=True, as_index=False
                              )["score"].mean()
        formula = formula_for(cells, "these")
        m = fit(cells, formula, reml=True)
    algs = list(m.grid.factors.get("algorithm", ()))
    L_means, _ = m._grid_matrix("algorithm", None) if algs else (None, None)
    names = list(m.fixef.index)
    alg_cols = [i for i, n in enumerate(names) if n.startswith("algorithm")]
    shown = formula.replace("score ~", "slope ~")
    if alg_cols:
        L_inter = np.eye(len(names))[alg_cols]
        F_i, q_i, ddf_i, p_i = wald_f_test(m, L_inter)
    else:  # one algorithm: nothing to compare
        F_i, q_i, ddf_i, p_i = 0.0, 0, np.inf, 1.0
    inter = WaldTest(F_i, q_i, ddf_i, p_i, f"{shown}: every algorithm effect = 0", shown, alpha)
    L_mean = (L_means.mean(axis=0) if L_means is not None else np.eye(len(names))[:1])
    F_s, q_s, ddf_s, p_s = wald_f_test(m, L_mean[None, :])
    simple = WaldTest(F_s, q_s, ddf_s, p_s,
                      f"{shown}: mean slope over algorithms = 0", shown, alpha)
    # Across benchmarks the model gives every algorithm one interaction variance; an
    # algorithm whose slope varies more across benchmarks made identical algorithms'
    # mean slopes "differ" in 15% of data sets. Each pair's paired t test on its cell mean
    # slopes has its own variance (Bonferroni over the pairs, as lmem.paired for the
    # contrasts): the interaction needs both (intersection-union).
    pair_p = np.nan
    # Only where the model has the algorithm x benchmark term (one benchmark: the runs are
    # the replicates, and the model's residual is the runs' own variance).
    if "benchmark:algorithm" in formula and len(algs) >= 2:
        from types import SimpleNamespace

        from benchverdict.lmem.paired import paired_contrasts

        cells = SimpleNamespace(table=frame, algorithms=[str(a) for a in algs])
        # Benchmarks with copied runs have copied slopes: each group counts once, as in the
        # contrasts across benchmarks (benchverdict.replicates).
        copies = results.copied_benchmarks() if isinstance(results, Results) else None
        pair_p = float(paired_contrasts(cells, alpha=alpha, copies=copies)
                       ["p_value_adjusted"].min())
    interaction = inter.p_value < alpha and not (pair_p >= alpha)
    if interaction:
        verdict = "interaction"
    elif simple.p_value < alpha:
        verdict = "simple"
    else:
        verdict = "none"
    rows = [
        {"test": "budget (simple effect)", "F": simple.F, "df": simple.df,
         "df_denominator": simple.df_denominator, "p_value": simple.p_value},
        {"test": "algorithm:budget (interaction)", "F": inter.F, "df": inter.df,
         "df_denominator": inter.df_denominator, "p_value": inter.p_value},
    ]
    if np.isfinite(pair_p):
        rows.append({"test": "algorithm:budget, the pairs' paired t on cell mean slopes "
                             "(smallest Bonferroni-adjusted p)",
                     "F": np.nan, "df": np.nan, "df_denominator": np.nan, "p_value": pair_p})
    table = pd.DataFrame(rows)
    details: dict[str, Any] = dict(_exclusions.counts(left_out))
    slope_of = (dict(zip(algs, (L_means @ m.fixef.to_numpy()).tolist())) if algs
                else {str(frame["algorithm"].iloc[0]): float(m.fixef.iloc[0])})
    details["plot"] = (list(slope_of), list(slope_of.values()),
                       [verdict == "interaction"] * len(slope_of), "mean slope in budget")
    details["slopes"] = slope_of
    details["formula"] = shown
    details["estimand"] = estimand
    details["n_runs"] = len(slopes)
    flagged = ("budget",) if verdict != "none" else ()
    return SanityCheck("budget_relevance", verdict, flagged,
                       {"simple": simple, "interaction": inter}, table, alpha, used, details)


def sanity_checks(results: Results, *, alpha: float = 0.05,
                  budget: float | None = None, progress: bool = False,
                  estimand: str = "benchmarks") -> SanityReport:
    """Run every applicable sanity check (the budget check needs a budget column).

    Each check runs on its own: one that raises is recorded as a check whose
    verdict is ``"failed: <error>"`` (with ``details["error"]``), and the
    others are kept.

    Parameters
    ----------
    results : Results
    alpha : float
        Significance level of every test.
    budget : float, optional
        Rows for the seed and benchmark checks: each run's final incumbent
        (default) or the incumbents at this budget (see the module docstring).
    progress : bool
        Show tqdm progress bars over the checks and their per-item tests.
    estimand : {"benchmarks", "these"}
        The claim the budget check's model for the runs' slopes makes (see
        :func:`budget_relevance`).

    Returns
    -------
    SanityReport

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> report = sanity_checks(simulate_results(n_seeds=6, budgets=(1, 2), seed=3))
    >>> list(report.table["check"])
    ['seed_dependency', 'benchmark_informativeness', 'budget_relevance']
    """
    check_alpha(alpha)
    from benchverdict.lmem.estimand import check_estimand

    check_estimand(estimand)
    runs = [
        ("seed_dependency", lambda: seed_dependency(results, alpha=alpha, budget=budget,
                                                    progress=progress)),
        ("benchmark_informativeness",
         lambda: benchmark_informativeness(results, alpha=alpha, budget=budget,
                                           progress=progress)),
    ]
    if isinstance(results, pd.DataFrame):
        has_budgets = "budget" in results.columns and results["budget"].nunique() > 1
    else:  # from the budget grid: a DaskResults keeps its rows in partitions
        has_budgets = results.has_budget and len(results.budgets) > 1
    if has_budgets:
        runs.append(("budget_relevance", lambda: budget_relevance(results, alpha=alpha,
                                                                  estimand=estimand)))
    checks = []
    for name, run in _progress(runs, progress, "sanity checks"):
        try:
            checks.append(run())
        except Exception as err:  # one failing check must not take the others with it
            checks.append(_failed_check(name, err, alpha, results))
    return SanityReport(tuple(checks))


def _failed_check(name: str, err: Exception, alpha: float, results) -> SanityCheck:
    """A check that could not be run, with its error."""
    reason = f"{type(err).__name__}: {err}"
    data = f"{len(results)} rows" if hasattr(results, "__len__") else ""
    return SanityCheck(name, f"failed: {reason}", (), {}, pd.DataFrame(), alpha, data,
                       details={"error": reason, "error_type": type(err).__name__})
