"""Scores on different scales across benchmarks: detect them, and standardise.

Analyses that pool benchmarks on the raw score (an LMEM's fixed effects, a
mean over benchmarks, a pooled residual variance) let the benchmarks with
the widest scores dominate. That is harmless when every benchmark measures
the same metric on a similar range, and wrong when one benchmark holds AUC in
``[0.5, 1]`` and another a negated log-loss in ``[-34, 0]``: a difference of
0.01 means something else on each. :func:`scale_check` says when the scales
differ and :func:`standardise_per_benchmark` makes them comparable. Rank
tests are unaffected (ranks are computed within a benchmark).

The rule of :func:`scale_check`, applied to the scores an analysis compares
(each run's final score: :meth:`Results.final` when there is a budget,
every row otherwise):

1. A ``metric`` metafeature (the AMLB reader keeps AMLB's ``metric``
   column) with more than one value: the benchmarks hold different metrics.
2. The *spread* of a benchmark is the interquartile range of its scores
   (its median absolute deviation if the IQR is 0, its range if that is 0
   too; a benchmark whose scores are all equal has no spread and is left
   out). ``ratio`` is the largest spread over the smallest. A ratio above
   ``max_ratio`` (default 100: the benchmarks' variances differ by 10^4).
3. A ratio above ``sign_ratio`` (default 10) when some benchmark's scores
   are all ``>= 0`` and another's all ``<= 0``: a score and a negated loss.

Every criterion is unchanged when all scores are multiplied by one positive
factor (the ratio is scale-free, signs are kept), so the verdict does not
depend on the unit; rule 2 is also unchanged by adding a constant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchverdict._repr import ResultText
from benchverdict.results import Results
from benchverdict.stats.round_off import ROUND_OFF

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.verdict import Verdict

#: The column :func:`scale_check` reads as the metric of each benchmark.
METRIC_COLUMN = "metric"


@dataclass(frozen=True, repr=False)
class ScaleCheck(ResultText):
    """Whether the benchmarks' scores are on comparable scales.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per benchmark: ``benchmark``, ``center`` (median score),
        ``spread`` (see the module docstring), ``min``, ``max``, ``n``
        (scores used) and ``metric`` (when the results have a metric
        metafeature).
    heterogeneous : bool
        Whether the scales differ (by the rule in the module docstring).
    reason : str
        One sentence saying why, naming the benchmarks involved and the fix
        when ``heterogeneous``.
    ratio : float
        Largest over smallest benchmark spread (1.0 with one benchmark with
        a spread; NaN when no benchmark has one).
    """

    table: pd.DataFrame
    heterogeneous: bool
    reason: str
    ratio: float

    def _summary_lines(self) -> list[str]:
        head = "scales differ across benchmarks" if self.heterogeneous else (
            "scales comparable across benchmarks")
        ratio = "n/a" if math.isnan(self.ratio) else f"{self.ratio:.3g}"
        return [f"{head} ({len(self.table)} benchmarks; spread ratio {ratio})", self.reason]

    def verdicts(self) -> list[Verdict]:
        """No verdicts: the check tests the data's scales, not a pair of algorithms.

        An empty list (every result type answers ``verdicts()``); what the
        check found is in :attr:`heterogeneous`, :attr:`reason` and :attr:`table`.
        """
        return []

    def plot(self, ax: plt.Axes | None = None) -> plt.Axes:
        """Each benchmark's score range (line) and interquartile spread (bar), on one axis.

        Benchmarks on different scales show as ranges of very different
        widths or on opposite sides of zero.
        """
        from benchverdict.plotting import new_axes

        ax = new_axes(ax, height=max(1.5, 0.25 * len(self.table) + 1.0))
        y = np.arange(len(self.table))
        t = self.table
        ax.hlines(y, t["min"], t["max"], color="0.5", linewidth=1)
        ax.barh(y, t["spread"], left=t["center"] - t["spread"] / 2, height=0.5,
                color="C3" if self.heterogeneous else "C0")
        ax.set_yticks(y, [str(b) for b in t["benchmark"]])
        ax.set_xlabel("score")
        ax.set_title("scales differ" if self.heterogeneous else "scales comparable")
        return ax


def _spread(values: np.ndarray) -> float:
    if not len(values):
        return 0.0
    # A spread within round-off of the values it is taken from is none: ten algorithms that
    # agree to the 16th digit gave an IQR of 1e-16 and a "4.6e15-fold" difference of scales.
    # Each floor is relative to its own two values (an outlier must not raise it).
    q1, q3 = np.quantile(values, [0.25, 0.75])
    if q3 - q1 > ROUND_OFF * max(abs(q1), abs(q3)):
        return float(q3 - q1)
    median = float(np.median(values))
    mad = float(np.median(np.abs(values - median)))
    if mad > ROUND_OFF * abs(median):
        return mad
    low, high = float(np.min(values)), float(np.max(values))
    return high - low if high - low > ROUND_OFF * max(abs(low), abs(high)) else 0.0


def _compared_scores(results: Results) -> pd.DataFrame:
    return (results.final() if results.has_budget else results).table


def scale_check(results: Results, *, max_ratio: float = 100.0,
                sign_ratio: float = 10.0) -> ScaleCheck:
    """Detect scores on different scales across benchmarks.

    Parameters
    ----------
    results : Results
        The data (any kind; with a budget, each run's final score is used).
    max_ratio : float
        Spreads differing by more than this factor are heterogeneous.
    sign_ratio : float
        Spreads differing by more than this factor are heterogeneous when
        the benchmarks' scores also have opposite signs.

    Returns
    -------
    ScaleCheck

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from benchverdict import Results
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"alg": np.tile(["a", "b"], 20), "seed": np.repeat(range(10), 4),
    ...                    "task": np.tile(["auc", "auc", "logloss", "logloss"], 10)})
    >>> df["score"] = np.where(df.task == "auc", rng.uniform(0.5, 1, 40),
    ...                        rng.uniform(-34, 0, 40))
    >>> res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed",
    ...                          score="score", objective="maximize", kind="runs")
    >>> check = scale_check(res)
    >>> check.heterogeneous, round(check.ratio)
    (True, 57)
    """
    if not (max_ratio > 1 and sign_ratio > 1):
        raise ValueError(f"max_ratio and sign_ratio must exceed 1, got {max_ratio!r} and "
                         f"{sign_ratio!r}.")
    scores = _compared_scores(results)
    rows = []
    has_metric = METRIC_COLUMN in scores.columns
    for bench, part in scores.groupby("benchmark", observed=True, sort=True):
        values = part["score"].to_numpy(dtype=float)
        row = {"benchmark": str(bench), "center": float(np.median(values)),
               "spread": _spread(values), "min": float(values.min()),
               "max": float(values.max()), "n": len(values)}
        if has_metric:
            row["metric"] = ", ".join(sorted(map(str, part[METRIC_COLUMN].dropna().unique())))
        rows.append(row)
    table = pd.DataFrame(rows)
    spreads = table.set_index("benchmark")["spread"]
    positive = spreads[spreads > 0]
    if len(positive):
        widest, narrowest = positive.idxmax(), positive.idxmin()
        ratio = float(positive.max() / positive.min())
    else:
        widest = narrowest = None
        ratio = float("nan")
    fix = ("Fix: compare on one metric, or standardise each benchmark "
           "(benchverdict.scales.standardise_per_benchmark) before pooling; rank tests are "
           "unaffected.")
    if has_metric:
        metrics = sorted({m for m in scores[METRIC_COLUMN].dropna().astype(str)})
        if len(metrics) > 1:
            per = table.groupby("metric")["benchmark"].size()
            listed = ", ".join(f"{m} on {n} benchmark(s)" for m, n in per.items())
            return ScaleCheck(table, True, f"the benchmarks hold different metrics ({listed}), "
                              f"so their raw scores are on different scales. {fix}", ratio)
    if widest is not None and ratio > max_ratio:
        return ScaleCheck(table, True, (
            f"the scores' spread differs {ratio:.3g}-fold between benchmarks (widest "
            f"{widest!r}: {spreads[widest]:.3g}; narrowest {narrowest!r}: "
            f"{spreads[narrowest]:.3g}), more than {max_ratio:g}-fold, so pooled analyses on "
            f"the raw scale are dominated by the widest benchmarks. {fix}"), ratio)
    non_negative = table.loc[table["min"] >= 0, "benchmark"].tolist()
    non_positive = table.loc[table["max"] <= 0, "benchmark"].tolist()
    opposite = [b for b in non_negative if b not in non_positive] and [
        b for b in non_positive if b not in non_negative]
    if widest is not None and ratio > sign_ratio and opposite:
        pos = [b for b in non_negative if b not in non_positive]
        neg = [b for b in non_positive if b not in non_negative]
        return ScaleCheck(table, True, (
            f"some benchmarks' scores are all >= 0 ({_names(pos)}) and others' all <= 0 "
            f"({_names(neg)}), with spreads differing {ratio:.3g}-fold: they look like "
            f"different metrics (a score and a negated loss). {fix}"), ratio)
    if widest is None:
        return ScaleCheck(table, False, "no benchmark has scores that vary, so there is no "
                          "scale to compare.", ratio)
    return ScaleCheck(table, False, (
        f"the benchmarks' score spreads differ at most {ratio:.3g}-fold (limit "
        f"{max_ratio:g}), with no sign to suggest different metrics: pooling them on the raw "
        f"scale is reasonable."), ratio)


def _names(names: list[str], shown: int = 3) -> str:
    more = len(names) - shown
    return ", ".join(map(repr, names[:shown])) + (f" and {more} more" if more > 0 else "")


def run_sd_per_benchmark(results: Results) -> pd.Series:
    r"""Each benchmark's run-to-run SD: the pooled SD of the runs within each cell.

    Cells are algorithm x benchmark (x budget, where a run has several rows);
    the pooled variance is :math:`\sum_c (n_c - 1) s_c^2 / \sum_c (n_c - 1)`,
    the seeds' spread that Cohen's d divides by. Unlike the SD of all of a
    benchmark's scores it does not grow with the distance between the
    algorithms; it is pooled over every algorithm's cells, so an algorithm far
    noisier than the others still widens it. NaN where no cell has two runs,
    0 where every cell's runs score alike.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict import Results
    >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b", "c", "c"], "seed": [0, 1] * 3,
    ...                    "y": [1.0, 2.0, 3.0, 4.0, 100.0, 101.0]})
    >>> res = Results.from_frame(df, algorithm="alg", seed="seed", score="y",
    ...                          objective="maximize", kind="runs")
    >>> float(run_sd_per_benchmark(res).iloc[0])  # the third algorithm's distance is not in it
    0.7071067811865476
    """
    in_memory = getattr(results, "in_memory", None)
    if callable(in_memory):
        results = in_memory()
    table = results.table
    keys = [table["benchmark"].astype(str), table["algorithm"].astype(str)]
    # Several rows per run (an anytime table): runs are compared at one budget at a time.
    # One row per run (each run's final incumbent, whose budgets may differ): the cell is
    # the algorithm on the benchmark, whatever budget each run ended at.
    if "budget" in table.columns and "seed" in table.columns and table.duplicated(
            ["benchmark", "algorithm", "seed"]).any():
        keys.append(table["budget"])
    cells = table.groupby(keys, observed=True, sort=False)["score"]
    size, var = cells.size(), cells.var(ddof=1).fillna(0.0)
    frame = pd.DataFrame({"df": (size - 1).clip(lower=0), "ss": (size - 1).clip(lower=0) * var})
    per = frame.groupby(level=0, sort=False).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(per["ss"] / per["df"].where(per["df"] > 0))
    sd.index.name = "benchmark"
    return sd.rename("run_sd")


def standardise_per_benchmark(results: Results, *, sd: str = "scores",
                              center: bool = True) -> Results:
    """Z-score each benchmark's scores with the benchmark's pooled mean and SD.

    Every score ``y`` on benchmark ``b`` becomes ``(y - mean_b) / sd_b``,
    where ``mean_b`` and ``sd_b`` (ddof 1) are those of all the scores on
    ``b`` (every algorithm, seed and budget pooled). With ``sd="runs"``,
    ``sd_b`` is the benchmark's run-to-run SD instead
    (:func:`run_sd_per_benchmark`: what a margin in SDs is measured in), and
    the scores' SD where no cell has two runs with different scores (where
    :func:`run_sd_per_benchmark` is NaN or 0). With ``center=False`` the
    scores are only divided by ``sd_b`` (a mixed model with a benchmark
    intercept keeps it estimable; centred, its variance is forced to 0). Within a benchmark this
    is one increasing affine map, so every within-benchmark comparison
    (which algorithm is ahead, ranks, incumbents along the budget, tests
    within one benchmark) is unchanged; across benchmarks, contrasts become
    unit-free (in benchmark SDs), so no benchmark dominates a pooled
    analysis by its units. A benchmark whose scores are all equal gets 0.
    Kind, objective, roles, metafeatures and exclusions are kept; the
    score's name gets `` (z per benchmark)``.

    Parameters
    ----------
    results : Results
        A Dask-backed one is brought into memory first (``in_memory()``,
        which refuses beyond the client's row limit).

    Returns
    -------
    Results

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict import Results
    >>> df = pd.DataFrame({"alg": ["a", "b"] * 4, "seed": [0, 0, 1, 1] * 2,
    ...                    "task": ["p"] * 4 + ["q"] * 4,
    ...                    "y": [0.6, 0.8, 0.7, 0.9, -30.0, -10.0, -20.0, 0.0]})
    >>> res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed",
    ...                          score="y", objective="maximize", kind="runs")
    >>> z = standardise_per_benchmark(res)
    >>> z.table.groupby("benchmark", observed=True)["score"].agg(["mean", "std"]).round(6)
               mean  std
    benchmark
    p           0.0  1.0
    q           0.0  1.0
    """
    # A Dask-backed Results comes into memory here (it refuses, naming the limit, when its
    # rows exceed what the client holds); the report only standardises in-memory views.
    in_memory = getattr(results, "in_memory", None)
    if callable(in_memory):
        results = in_memory()
    if sd not in ("scores", "runs"):
        raise ValueError(f"sd must be 'scores' or 'runs', got {sd!r}.")
    frame = results._frame.copy()
    grouped = frame.groupby("benchmark", observed=True)["score"]
    mean = grouped.transform("mean").to_numpy(dtype=float)
    spread = grouped.transform(lambda s: s.std(ddof=1) if len(s) > 1 else 0.0).to_numpy(
        dtype=float)
    if sd == "runs":
        run_sd = run_sd_per_benchmark(results)
        usable = run_sd[np.isfinite(run_sd) & (run_sd > 0)]
        per_row = frame["benchmark"].astype(str).map(usable).to_numpy(dtype=float)
        spread = np.where(np.isfinite(per_row), per_row, spread)
    spread = np.where(np.isfinite(spread) & (spread > 0), spread, np.inf)
    frame["score"] = (frame["score"].to_numpy(dtype=float) - (mean if center else 0.0)) / spread
    roles = dict(results.roles)
    roles["score"] = f"{roles.get('score', 'score')} (z per benchmark)"
    return Results(frame, objective=results.objective, kind=results.kind,
                   kind_reason=results.kind_reason, roles=roles,
                   metafeatures=results.metafeatures, exclusions=results.exclusions)


__all__ = ["METRIC_COLUMN", "ScaleCheck", "run_sd_per_benchmark", "scale_check",
           "standardise_per_benchmark"]
