"""Tuning curves for every (algorithm, benchmark) of a :class:`~benchverdict.Results`."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchverdict._plain_text import plain_text
from benchverdict.tuning.compare import TuningComparison, compare
from benchverdict.tuning.curves import TuningCurve, default_budgets, tuning_curve
from benchverdict.tuning.guidance import largest_budget
from benchverdict.verdict import Verdict, verdicts_to_frame

__all__ = ["TuningCurves", "from_results"]


@dataclass(frozen=True, eq=False)
class TuningCurves:
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
    """

    curves: dict[tuple[str, str], TuningCurve]
    objective: str
    confidence: float
    band: str | None
    kind: str
    excluded: pd.DataFrame
    calibrate: str = "curve"

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

    def __repr__(self) -> str:
        from benchverdict._repr import result_repr

        return result_repr(self)

    def _repr_html_(self) -> str:
        from benchverdict._repr import result_html

        return result_html(self)

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
        """Per curve: n and the largest budget its band can bound (see tuning.guidance)."""
        rows = []
        for (alg, bench), curve in self.curves.items():
            k_max = (
                largest_budget(curve.n, self.confidence, self.band, curve.q or 0.5,
                               self.calibrate)
                if self.band is not None else np.nan
            )
            rows.append({"algorithm": alg, "benchmark": bench, "n": curve.n, "k_max": k_max})
        return pd.DataFrame(rows)

    def comparisons(self, pairs=None) -> list[TuningComparison]:
        """Pairwise comparisons within each benchmark (all pairs unless ``pairs`` is given)."""
        out = []
        for bench in self.benchmarks:
            algs = [a for a, b in self.curves if b == bench]
            wanted = pairs or list(itertools.combinations(algs, 2))
            for a, b in wanted:
                if (a, bench) in self.curves and (b, bench) in self.curves:
                    out.append(
                        compare(self.curves[(a, bench)], self.curves[(b, bench)],
                                names=(a, b), benchmark=bench)
                    )
        return out

    def verdicts(self, pairs=None) -> list[Verdict]:
        """All verdicts of :meth:`comparisons`."""
        return [v for c in self.comparisons(pairs) for v in c]

    def verdict_table(self, pairs=None) -> pd.DataFrame:
        """The verdicts as a tidy frame."""
        return verdicts_to_frame(self.verdicts(pairs))

    def plot(self, benchmark: str | None = None, ax=None):
        """The curves of one benchmark (default: the first) with their bands.

        Each algorithm keeps its colour and line style in every figure
        (:func:`benchverdict.plotting.algorithm_styles` of all algorithms);
        the x-axis ends where the bands stop bounding the curves, the
        y-limits follow the bulk of the curves (an extreme point is marked on
        the edge), and the legend sits outside the data (see
        :func:`benchverdict.tuning.curves.draw_tuning_curves`).
        """
        from benchverdict.plotting import algorithm_styles
        from benchverdict.tuning.curves import draw_tuning_curves

        bench = benchmark if benchmark is not None else self.benchmarks[0]
        algs = [a for a, b in self.curves if b == bench]
        styles = algorithm_styles(list(dict.fromkeys(a for a, _ in self.curves)))
        ax = draw_tuning_curves({a: self.curves[(a, bench)] for a in algs}, ax=ax,
                                styles={a: styles[a] for a in algs})
        ax.set_title(str(bench))
        return plain_text(ax)


def from_results(
    results,
    *,
    kind: str = "median",
    band: str | None = "ld_highest_density",
    confidence: float = 0.8,
    ks=None,
    a: float = -np.inf,
    b: float = np.inf,
    q: float = 0.5,
    estimator: str = "v",
    calibrate: str = "curve",
) -> TuningCurves:
    """Tuning curves for every (algorithm, benchmark) of random-search results.

    Parameters
    ----------
    results : benchverdict.Results
        Must be ``kind="trials"``: every row an IID random-search draw.
        HPO-run incumbents (``kind="runs"``) are refused with a clear error,
        because incumbents are running maxima, not independent draws.
    kind, band, confidence, a, b, q, estimator, calibrate
        As in :func:`~benchverdict.tuning.tuning_curve`. ``a``/``b`` bound
        the score's support in the user's direction (e.g. 0 and 1 for
        accuracy or error rate).
    ks : array_like, optional
        Budgets; default 1..(largest n among the benchmark's algorithms), so
        that curves on one benchmark share a grid and can be compared.

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
    objective = results.objective
    draws: dict[tuple[str, str], np.ndarray] = {}
    for alg, bench, values in results.iter_draws():
        draws[(alg, bench)] = values
    grid: dict[str, np.ndarray] = {}
    for _, bench in draws:
        if ks is None:
            n_max = max(v.size for (_, y), v in draws.items() if y == bench)
            grid[bench] = default_budgets(n_max)
        else:
            grid[bench] = np.atleast_1d(np.asarray(ks, dtype=float))
    curves: dict[tuple[str, str], TuningCurve] = {}
    excluded = []
    for (alg, bench), values in draws.items():
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                curve = tuning_curve(
                    values, grid[bench], kind=kind, band=band, confidence=confidence,
                    a=a, b=b, objective=objective, q=q, estimator=estimator, name=alg,
                    calibrate=calibrate,
                )
            for w in caught:
                warnings.warn(f"{alg} on {bench}: {w.message}", w.category, stacklevel=2)
            curves[(alg, bench)] = curve
        except ValueError as err:
            excluded.append({"algorithm": alg, "benchmark": bench, "n": values.size,
                             "reason": str(err)})
    return TuningCurves(
        curves=curves, objective=objective, confidence=confidence, band=band, kind=kind,
        excluded=pd.DataFrame(excluded, columns=["algorithm", "benchmark", "n", "reason"]),
        calibrate=calibrate,
    )
