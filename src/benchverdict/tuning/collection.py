"""Tuning curves for every (algorithm, benchmark) of a :class:`~benchverdict.Results`.

Verdicts per pair of algorithms: on each benchmark, the bands' decisions and
leans over budget ranges (:func:`~benchverdict.tuning.compare_curves`), and at one
budget of interest the exact order-statistic test of the two curves
(:func:`~benchverdict.tuning.quantile_test`), whose p-value is the tuning
family's vote when the report reconciles; over all benchmarks, the
intersection-union test "better on every benchmark" (the largest of the
per-benchmark one-sided p-values).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchverdict._caveats import collecting, place
from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.stats.ecdf_sketch import ECDFSketch
from benchverdict.tuning.compare import TuningComparison, compare_curves, decision_confidence
from benchverdict.tuning.curves import TuningCurve, default_budgets, kind_label, tuning_curve
from benchverdict.tuning.guidance import largest_budget
from benchverdict.tuning.quantile_test import QuantileTest, quantile_test, vote_budget
from benchverdict.verdict import (
    Effect,
    Evidence,
    Scope,
    Verdict,
    register_method,
    verdicts_to_frame,
)

for _kind in ("median", "quantile"):
    register_method(
        f"tuning.{_kind}_test", "tuning",
        f"exact order-statistic test of the {_kind} tuning curves at one budget",
        paired=False, unit="random-search draw", aspect="varies with k",
        assumptions="IID random-search draws of each algorithm (ties make it conservative); "
                    "over benchmarks: better on every benchmark (intersection-union)",
        error_control="per comparison", votes=True, primary=True, scale="raw", iid_draws=True)

__all__ = ["TuningCurves", "from_results", "sketch_budgets"]

#: ``TuningCurves.plot()`` draws at most this many benchmarks in one figure.
MAX_PANELS = 24
#: Panels per row of ``TuningCurves.plot()``'s small multiples.
PANEL_COLUMNS = 4
#: Sketched benchmarks: every integer budget up to this, then log-spaced ones.
SKETCH_INTEGER_BUDGETS = 100


def sketch_budgets(n: int) -> np.ndarray:
    """The default budgets of a benchmark with sketched curves (n = its largest cell).

    Every integer up to :data:`SKETCH_INTEGER_BUDGETS`, then 200 integers
    spaced evenly in log up to ``n``: the curve at ``10^7`` budgets one by
    one would be as slow to compare as it is flat.

    Examples
    --------
    >>> b = sketch_budgets(10**7)
    >>> b[:3].tolist(), float(b[-1]), int(b.size) <= 300
    ([1.0, 2.0, 3.0], 10000000.0, True)
    """
    head = np.arange(1, min(int(n), SKETCH_INTEGER_BUDGETS) + 1, dtype=float)
    if n <= SKETCH_INTEGER_BUDGETS:
        return head
    tail = np.unique(np.round(np.geomspace(SKETCH_INTEGER_BUDGETS, n, 200)))
    return np.union1d(head, tail)



def vote_budgets(sizes: dict[tuple[str, str], int], alpha: float, q: float = 0.5,
                 pairs=None) -> dict[str, int]:
    """Each benchmark's budget for the tuning curves' test (its vote), from sample sizes.

    ``sizes`` maps ``(algorithm, benchmark)`` to the number of draws.
    Every pair of algorithms on a benchmark (or the given ``pairs`` present
    there) is one test; :func:`~benchverdict.tuning.quantile_test.vote_budget`
    of the benchmark's smallest sample, for that many tests in all, gives
    its budget. The report's effect sizes use the same budgets as the vote.

    Examples
    --------
    >>> vote_budgets({("A", "p"): 400, ("B", "p"): 400, ("C", "p"): 100}, 0.05)
    {'p': 6}
    """
    by_bench: dict[str, list[str]] = {}
    for alg, bench in sizes:
        by_bench.setdefault(bench, []).append(alg)
    n_tests = 0
    for algs in by_bench.values():
        wanted = pairs or list(itertools.combinations(algs, 2))
        n_tests += sum(1 for a, b in wanted if a in algs and b in algs)
    return {bench: vote_budget(min(sizes[(a, bench)] for a in algs), alpha, max(n_tests, 1), q)
            for bench, algs in by_bench.items()}

@dataclass(repr=False, frozen=True, eq=False)
class TuningCurves(ResultText):
    """One tuning curve per (algorithm, benchmark), on a shared budget grid per benchmark.

    Attributes
    ----------
    curves : dict
        ``{(algorithm, benchmark): TuningCurve}``.
    objective : str
    confidence : float
    band : str or None
    kind : str
    excluded : pandas.DataFrame
        Cells that could not get a curve, with the reason (none are dropped
        silently).
    calibrate : str
        The bands' calibration (see :func:`~benchverdict.tuning.tuning_curve`).
    alpha : float
        The error rate of a decision (per pair, over all budgets) and the
        level of the tests.
    """

    curves: dict[tuple[str, str], TuningCurve]
    objective: str
    confidence: float
    band: str | None
    kind: str
    excluded: pd.DataFrame
    calibrate: str = "budgets"
    alpha: float = 0.05
    _decision: dict = field(default_factory=dict, repr=False, compare=False)

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names
        from benchverdict.tuning.curves import kind_label

        algs = list(dict.fromkeys(a for a, _ in self.curves))
        band = "no band" if self.band is None else f"{self.confidence:.0%} {self.band} band"
        first = next(iter(self.curves.values()), None)
        kind = self.kind if first is None else kind_label(first.kind, first.q)
        return [f"{len(self.curves)} {kind} tuning curves: {len(algs)} algorithms x "
                f"{len(self.benchmarks)} benchmarks; {band}; {self.objective}",
                f"algorithms: {names(algs)}", f"benchmarks: {names(self.benchmarks)}",
                f"{len(self.excluded)} cell(s) excluded"]

    def _summary_table(self) -> pd.DataFrame:
        return self.guidance()

    def summary(self) -> str:
        """The curves, the bands' reach per curve and the verdicts, as text (also ``str``)."""
        lines = self._summary_lines()
        reach = self.guidance()
        if len(reach):
            lines.append("largest budget each band bounds (k_max):")
            lines += [f"  {r.algorithm} on {r.benchmark}: n = {r.n}, k_max = {r.k_max:g}"
                      for r in reach.itertuples(index=False)]
        lines += [f"excluded {r.algorithm} on {r.benchmark}: {r.reason}"
                  for r in self.excluded.itertuples(index=False)]
        return "\n".join(lines)

    def __iter__(self) -> Iterator[tuple[tuple[str, str], TuningCurve]]:
        return iter(self.curves.items())

    def __getitem__(self, key: tuple[str, str]) -> TuningCurve:
        return self.curves[key]

    @property
    def benchmarks(self) -> list[str]:
        """Benchmarks in order of appearance."""
        return list(dict.fromkeys(b for _, b in self.curves))

    @property
    def table(self) -> pd.DataFrame:
        """Long table: algorithm, benchmark, n, k, point, lower, upper."""
        frames = []
        for (alg, bench), curve in self.curves.items():
            frame = curve.table
            frame.insert(0, "n", curve.n)
            frame.insert(0, "benchmark", bench)
            frame.insert(0, "algorithm", alg)
            frames.append(frame)
        if not frames:
            return pd.DataFrame(columns=["algorithm", "benchmark", "n", "k", "point", "lower",
                                         "upper"])
        return pd.concat(frames, ignore_index=True)

    def guidance(self) -> pd.DataFrame:
        """Per curve: n, the largest budget its band can bound (see tuning.guidance), the band."""
        rows = []
        for (alg, bench), curve in self.curves.items():
            # A curve's own band and calibration: a sketched benchmark's curves use DKW.
            k_max = (
                largest_budget(curve.n, self.confidence, curve.band, curve.q or 0.5,
                               curve.calibrate)
                if curve.band is not None else np.nan
            )
            rows.append({"algorithm": alg, "benchmark": bench, "n": curve.n, "k_max": k_max,
                         "band": curve.band})
        return pd.DataFrame(rows, columns=["algorithm", "benchmark", "n", "k_max", "band"])

    def decision_curve(self, key: tuple[str, str]) -> TuningCurve:
        """The curve of ``key`` with its band at ``sqrt(1 - alpha)`` (built once)."""
        if key not in self._decision:
            with place(algorithm=key[0], benchmark=key[1]):
                self._decision[key] = self.curves[key].at_confidence(
                    decision_confidence(self.alpha))
        return self._decision[key]

    def _pairs(self, pairs=None):
        for bench in self.benchmarks:
            algs = [a for a, b in self.curves if b == bench]
            wanted = pairs or list(itertools.combinations(algs, 2))
            for a, b in wanted:
                if (a, bench) in self.curves and (b, bench) in self.curves:
                    yield bench, a, b

    def comparisons(self, pairs=None) -> list[TuningComparison]:
        """Pairwise comparisons within each benchmark (all pairs unless ``pairs`` is given).

        The decision bands are built on first use; their caveats (ties) are
        said once per kind, with the cells (:mod:`benchverdict._caveats`).
        """
        with collecting(stacklevel=4):
            return [
                compare_curves(
                    self.curves[(a, bench)], self.curves[(b, bench)], names=(a, b),
                    benchmark=bench, alpha=self.alpha,
                    decision=(self.decision_curve((a, bench)), self.decision_curve((b, bench))))
                for bench, a, b in self._pairs(pairs)
            ]

    def n_tests(self, pairs=None) -> int:
        """How many order-statistic tests :meth:`tests` makes.

        Every pair on every benchmark whose draws it holds (sketched
        benchmarks get none), or the given ``pairs``.
        """
        sketched = set(self.sketched)
        return sum(1 for bench, _, _ in self._pairs(pairs) if bench not in sketched)

    def test_budget(self, benchmark: str, pairs=None) -> int:
        """The default budget of :meth:`tests` on ``benchmark``.

        :func:`~benchverdict.tuning.quantile_test.vote_budget` of the
        smallest sample on the benchmark, for as many tests as :meth:`tests`
        makes (every pair on every benchmark the test reaches, or ``pairs``):
        a function of the sample sizes, ``alpha`` and the number of tests
        only, never of the scores.
        """
        return self.test_budgets(pairs)[benchmark]

    def test_budgets(self, pairs=None) -> dict[str, int]:
        """Every tested benchmark's :meth:`test_budget`, computed once for all of them.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> from_results(_example_small(), kind="median").test_budgets()
        {'p': 1, 'q': 1}
        """
        sketched = set(self.sketched)
        sizes = {key: c.n for key, c in self.curves.items() if key[1] not in sketched}
        return vote_budgets(sizes, self.alpha, self._q, pairs)

    @property
    def _q(self) -> float:
        return 0.5 if self.kind == "median" else float(
            next(iter(self.curves.values())).q or 0.5)

    def tests(self, budget: float | None = None, pairs=None) -> pd.DataFrame:
        """The exact test of every pair's curves at ``budget``, per benchmark.

        Columns ``benchmark, a, b, k, quantile_level, point_a, point_b, p_a,
        p_b, p_value, winner`` (``winner``: the better curve when ``p_value
        <= alpha``). ``budget`` is a number of trials; default
        :meth:`test_budget` of each benchmark. Not defined for mean curves.
        """
        rows = []
        for bench, a, b, t in self._tests(budget, pairs):
            rows.append({"benchmark": bench, "a": a, "b": b, "k": t.k,
                         "quantile_level": t.quantile_level, "point_a": t.point_a,
                         "point_b": t.point_b, "p_a": t.p_a, "p_b": t.p_b, "p_value": t.p_value,
                         "winner": ({"a": a, "b": b}.get(t.direction)
                                    if t.p_value <= self.alpha else None)})
        return pd.DataFrame(rows, columns=["benchmark", "a", "b", "k", "quantile_level",
                                           "point_a", "point_b", "p_a", "p_b", "p_value",
                                           "winner"])

    @property
    def sketched(self) -> list[str]:
        """Benchmarks with a curve from an ECDF sketch (too many draws to hold).

        Their curves use the widened DKW band, and their pairs get no
        order-statistic test (it needs the draws): the bands decide.
        """
        return list(dict.fromkeys(b for (_, b), c in self.curves.items()
                                  if c.sketch is not None))

    def _tests(self, budget, pairs) -> list[tuple[str, str, str, QuantileTest]]:
        if self.kind == "mean":
            return []
        out = []
        sketched = set(self.sketched)
        # One count of the tests for every pair (per pair it grew with pairs x benchmarks).
        budgets = self.test_budgets(pairs) if budget is None else {}
        for bench, a, b in self._pairs(pairs):
            if bench in sketched:
                continue
            k = float(budget) if budget is not None else float(budgets[bench])
            out.append((bench, a, b, quantile_test(
                self.curves[(a, bench)].scores, self.curves[(b, bench)].scores, k, q=self._q,
                objective=self.objective)))
        return out

    def verdicts(self, pairs=None, *, budget: float | None = None,
                 at_budget: float | None = None) -> list[Verdict]:
        """Every verdict: the band comparisons, then the tests at ``budget`` (see :meth:`tests`).

        The tests give one verdict per pair and benchmark (method
        ``tuning.median_test``, or ``tuning.quantile_test``) and, with two
        or more benchmarks, one per pair over all benchmarks: "better on
        every benchmark", the intersection-union test whose one-sided
        p-value is the largest per-benchmark one (two-sided: twice the
        smaller direction's).

        ``budget`` is a number of trials k. ``at_budget`` (optional) is the
        value of the data's budget column where the searches have those k
        trials (e.g. the final budget a report compares at): the tests'
        scopes then carry both (``trials_low``/``trials_high`` = k,
        ``budget_low``/``budget_high`` = ``at_budget``).
        """
        with collecting(stacklevel=4):
            out = [v for c in self.comparisons(pairs) for v in c]
        tests = self._tests(budget, pairs)
        out += [self._test_verdict(bench, a, b, t) for bench, a, b, t in tests]
        by_pair: dict[tuple[str, str], list[tuple[str, QuantileTest]]] = {}
        for bench, a, b, t in tests:
            by_pair.setdefault((a, b), []).append((bench, t))
        if len(self.benchmarks) >= 2:
            for (a, b), found in by_pair.items():
                if len(found) == len(self.benchmarks):
                    out.append(self._every_benchmark_verdict(a, b, found))
        if at_budget is not None:  # every test verdict (per benchmark and across them)
            where = float(at_budget)
            out = [v if v.method != self._method() else dataclasses.replace(
                v, scope=dataclasses.replace(v.scope, budget_low=where, budget_high=where))
                for v in out]
        return out

    def _method(self) -> str:
        return f"tuning.{'median' if self.kind == 'median' else 'quantile'}_test"

    def _test_verdict(self, bench: str, a: str, b: str, t: QuantileTest) -> Verdict:
        what = kind_label(self.kind, self._q)
        decided = t.p_value <= self.alpha and t.direction is not None
        outcome = t.direction if decided else "inconclusive"
        better = {"a": a, "b": b}.get(t.direction or "")
        sign = 1.0 if self.objective == "maximize" else -1.0
        text = (f"{what} best score of k = {t.k:g} trials (the {t.quantile_level:.3f} "
                f"quantile): {a} "
                f"{t.point_a:.4g} vs {b} {t.point_b:.4g}; exact order-statistic bounds "
                f"separate at p = {t.p_value:.3g}")
        text += (f", so {better}'s curve is higher." if decided else
                 f" > alpha = {self.alpha:g}: not separated.")
        return Verdict(
            a=a, b=b, outcome=outcome, method=self._method(),
            scope=Scope(benchmark=bench, trials_low=t.k, trials_high=t.k),
            evidence=Evidence("p_value", t.p_value, self.alpha), objective=self.objective,
            explanation=text,
            effect=Effect(f"difference in {what} best score at k={t.k:g} (positive favours {a})",
                          sign * (t.point_a - t.point_b)),
            unit="random-search draw", n=t.n_a + t.n_b,
            p_value=t.p_value, p_one_sided=(t.p_a, t.p_b), sizes=(t.n_a, t.n_b),
            estimand="benchmark",
            details={"k": t.k, "quantile_level": t.quantile_level},
        )

    def _every_benchmark_verdict(self, a: str, b: str,
                                 found: list[tuple[str, QuantileTest]]) -> Verdict:
        p_a = max(t.p_a for _, t in found)
        p_b = max(t.p_b for _, t in found)
        p_value = min(1.0, 2.0 * min(p_a, p_b))
        direction = None if p_value >= 1.0 else "a" if p_a < p_b else "b" if p_b < p_a else None
        decided = p_value <= self.alpha and direction is not None
        budgets = sorted({t.k for _, t in found})
        k_text = (f"k = {budgets[0]:g}" if len(budgets) == 1
                  else f"k = {budgets[0]:g}-{budgets[-1]:g}")
        better = {"a": a, "b": b}.get(direction or "")
        worst = max(found, key=lambda bt: bt[1].p_a if direction == "a" else bt[1].p_b)[0]
        text = (f"is one curve higher on every one of {len(found)} benchmarks at {k_text}? "
                f"intersection-union test: p = {p_value:.3g} (the weakest benchmark, {worst}, "
                f"decides)")
        text += (f"; {better}'s curve is higher on every benchmark." if decided else
                 f" > alpha = {self.alpha:g}.")
        return Verdict(
            a=a, b=b, outcome=direction if decided else "inconclusive", method=self._method(),
            scope=Scope(trials_low=budgets[0], trials_high=budgets[-1]),
            evidence=Evidence("p_value", p_value, self.alpha), objective=self.objective,
            explanation=text, unit="random-search draw",
            n=int(sum(t.n_a + t.n_b for _, t in found)),
            p_value=p_value, p_one_sided=(p_a, p_b), estimand="these",
            pooling="intersection-union",
            details={"combined": "intersection-union over benchmarks (better on every one)",
                     "n_benchmarks": len(found), "k": budgets[-1]},
        )

    def verdict_table(self, pairs=None) -> pd.DataFrame:
        """The verdicts as a tidy frame."""
        return verdicts_to_frame(self.verdicts(pairs))

    def plot(self, ax=None, *, benchmark: str | Sequence[str] | None = None):
        """The curves with their bands: one benchmark on an Axes, several as small multiples.

        Each algorithm keeps its colour and line style in every figure
        (:func:`benchverdict.plotting.algorithm_styles` of all algorithms);
        the x-axis ends where the bands stop bounding the curves, the
        y-limits follow the bulk of the curves (an extreme point is marked on
        the edge and its value given), and the legend sits outside the data
        (see :func:`benchverdict.tuning.curves.draw_tuning_curves`).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Draw one benchmark here: ``benchmark``, or else the first, and
            then the title says so (``"p (1 of 2 benchmarks; benchmark=
            picks)"``).
        benchmark : str or sequence of str, optional
            The benchmark(s) to draw. Default: every benchmark, one panel
            each (at most :data:`MAX_PANELS`; with more, name the ones to
            draw: nothing is left out silently).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes of one benchmark; with several, the first panel (the
            others, in order, are ``ax.figure.axes``), as the DSE plots do.

        Raises
        ------
        ValueError
            For an unknown benchmark, more than :data:`MAX_PANELS`
            benchmarks, or ``ax`` with several benchmarks named.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> curves = from_results(_example_small(), band="dkw")
        >>> ax = curves.plot()
        >>> [a.get_title() for a in ax.figure.axes]
        ['p', 'q']
        >>> curves.plot(benchmark="q").get_title()
        'q'
        >>> import matplotlib.pyplot as plt
        >>> plt.close("all")
        """
        from benchverdict.plotting import algorithm_styles
        from benchverdict.tuning.curves import draw_tuning_curves

        note = ""
        if benchmark is None and ax is not None and len(self.benchmarks) > 1:
            # One Axes holds one benchmark: the first, and the title says which of how many.
            chosen = [self.benchmarks[0]]
            note = f" (1 of {len(self.benchmarks)} benchmarks; benchmark= picks)"
        elif benchmark is None:
            chosen = list(self.benchmarks)
        elif isinstance(benchmark, str):
            chosen = [benchmark]
        else:
            chosen = [str(b) for b in benchmark]
        unknown = [b for b in chosen if b not in self.benchmarks]
        if unknown or not chosen:
            raise ValueError(f"benchmark {unknown or benchmark!r} has no tuning curves; the "
                             f"benchmarks are {self.benchmarks}.")
        styles = algorithm_styles(list(dict.fromkeys(a for a, _ in self.curves)))
        if len(chosen) == 1:
            bench = chosen[0]
            algs = [a for a, b in self.curves if b == bench]
            ax = draw_tuning_curves({a: self.curves[(a, bench)] for a in algs}, ax=ax,
                                    styles={a: styles[a] for a in algs})
            ax.set_title(str(bench) + note)
            return plain_text(ax)
        if ax is not None:
            raise ValueError(f"ax= draws one benchmark, but {len(chosen)} are to be drawn; "
                             f"pass benchmark='name' with ax=, or leave ax out for one panel "
                             f"per benchmark.")
        if len(chosen) > MAX_PANELS:
            raise ValueError(
                f"{len(chosen)} benchmarks are too many panels for one readable figure (at "
                f"most {MAX_PANELS}); pass benchmark=[...] with the ones to draw (e.g. "
                f"benchmark={chosen[:4]!r}), or draw them one at a time.")
        return self._small_multiples(chosen, styles)

    def _small_multiples(self, chosen: list[str], styles):
        import matplotlib.pyplot as plt
        from matplotlib.legend_handler import HandlerTuple
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        from benchverdict.plotting import legend_outside, theme
        from benchverdict.tuning.curves import draw_tuning_curves

        ncols = min(PANEL_COLUMNS, len(chosen))
        nrows = -(-len(chosen) // ncols)
        with theme():
            fig, grid = plt.subplots(nrows, ncols, squeeze=False, layout="constrained",
                                     figsize=(2.3 * ncols + 1.4, 2.0 * nrows + 0.3))
        axes = grid.ravel()
        for i, (ax, bench) in enumerate(zip(axes, chosen)):
            algs = [a for a, b in self.curves if b == bench]
            draw_tuning_curves({a: self.curves[(a, bench)] for a in algs}, ax=ax,
                               styles={a: styles[a] for a in algs}, legend=False)
            ax.set_title(str(bench), fontsize=9)
            if i + ncols < len(chosen):  # a panel below says what the x-axis is
                ax.set_xlabel("")
            if i % ncols:
                ax.set_ylabel("")
        for ax in axes[len(chosen):]:
            ax.set_visible(False)
        names = list(styles)
        band = next((c for c in self.curves.values() if c.band is not None), None)
        handles = []
        for name in names:
            line = Line2D([], [], **styles[name].line_kw())
            handles.append((Patch(facecolor=styles[name].color, alpha=0.25, linewidth=0), line)
                           if band is not None else (line,))
        title = (None if band is None else f"{band.confidence:.0%} band"
                 + ("" if band.simultaneous else " (pointwise)"))
        with theme():
            legend_outside(fig, handles, names, title=title,
                           handler_map={tuple: HandlerTuple(ndivide=1)})
        plain_text(fig)
        return axes[0]


def from_results(
    results,
    *,
    kind: str = "median",
    band: str | None = "ld_highest_density",
    confidence: float = 0.8,
    budgets=None,
    low: float = -np.inf,
    high: float = np.inf,
    q: float = 0.5,
    estimator: str = "v",
    calibrate: str = "budgets",
    alpha: float = 0.05,
) -> TuningCurves:
    """Tuning curves for every (algorithm, benchmark) of random-search results.

    Parameters
    ----------
    results : benchverdict.Results
        Must be ``kind="trials"``: every row an IID random-search draw.
        HPO-run incumbents (``kind="runs"``) are refused with a clear error,
        because incumbents are running maxima, not independent draws. On a
        Dask-backed Results, a cell with more draws than the client holds
        comes as an exact-count ECDF sketch
        (:func:`benchverdict._dask.sketch.draws_or_sketches`): every curve on
        its benchmark then uses the DKW band (the sketched ones widened by
        their exact error bound, stated in the verdicts), the default budgets
        there are every integer to 100 and then 200 log-spaced ones, and
        the benchmark's pairs get no order-statistic test (see
        :attr:`TuningCurves.sketched`).
    kind, band, confidence, low, high, q, estimator, calibrate
        As in :func:`~benchverdict.tuning.tuning_curve`. ``low``/``high``
        bound the score's support in the user's direction (e.g. 0 and 1 for
        accuracy or error rate).
    budgets : array_like, optional
        Budgets ``k``; default 1..(largest n among the benchmark's algorithms), so
        that curves on one benchmark share a grid and can be compared.
    alpha : float
        The error rate of a decision between two curves (per pair, over
        all budgets) and the level of their tests.

    Returns
    -------
    TuningCurves

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> curves = from_results(_example_small(), band="dkw")
    >>> sorted(curves.curves)[0]
    ('a', 'p')
    """
    results.require_kind("trials", "tuning curves")
    decision_confidence(alpha)  # validates alpha early
    objective = results.objective
    own_draws = results.engine.draws_or_sketches()  # None: the engine has no own step
    draws: dict[tuple[str, str], np.ndarray | ECDFSketch] = (
        own_draws if own_draws is not None
        else {(alg, bench): values for alg, bench, values in results.iter_draws()})

    def size(values) -> int:
        return values.n if isinstance(values, ECDFSketch) else values.size

    sketched = {bench for (_, bench), v in draws.items() if isinstance(v, ECDFSketch)}
    grid: dict[str, np.ndarray] = {}
    for _, bench in draws:
        if budgets is None:
            n_max = max(size(v) for (_, y), v in draws.items() if y == bench)
            grid[bench] = (sketch_budgets(n_max) if bench in sketched
                           else default_budgets(n_max))
        else:
            grid[bench] = np.atleast_1d(np.asarray(budgets, dtype=float))
    curves: dict[tuple[str, str], TuningCurve] = {}
    excluded = []
    # One warning per kind of caveat (ties in 100 cells are one caveat), with the count
    # and the cells, said when the loop ends (benchverdict._caveats).
    with collecting(stacklevel=4):
        for (alg, bench), values in draws.items():
            cell_band = "dkw" if bench in sketched and band is not None else band
            try:
                with place(algorithm=alg, benchmark=bench):
                    curves[(alg, bench)] = tuning_curve(
                        values, grid[bench], kind=kind, band=cell_band, confidence=confidence,
                        low=low, high=high, objective=objective, q=q, estimator=estimator,
                        name=alg, calibrate=calibrate,
                    )
            except ValueError as err:
                excluded.append({"algorithm": alg, "benchmark": bench, "n": size(values),
                                 "reason": str(err)})
    return TuningCurves(
        curves=curves, objective=objective, confidence=confidence, band=band, kind=kind,
        excluded=pd.DataFrame(excluded, columns=["algorithm", "benchmark", "n", "reason"]),
        calibrate=calibrate, alpha=float(alpha),
    )
