"""Metafeature analysis (Geburek et al. 2024, §4.3): does A vs B depend on a metafeature.

For a pair of algorithms and a benchmark metafeature such as prior quality,
the question is, benchmark by benchmark: is the difference between A and B
the same at every level of the metafeature? Within each benchmark group we
compare

    m0: score ~ algorithm + metafeature
    m1: score ~ algorithm * metafeature

on the pair's runs. The interaction ``algorithm:metafeature`` is exactly
"the A-B difference changes with the level". By default each run contributes
its final incumbent (independent runs: these are linear models, so the F test
is exact; the GLRT is reported too). Within each level, A-B is estimated
from ``m1`` with its confidence interval and a verdict.

lmem-significance answers the question differently (per budget step, a win
indicator from a per-benchmark model, then a second model on the wins); the
direct interaction test uses the scores themselves and needs no second stage.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.lmem import exclusions as _exclusions
from benchverdict.lmem.fitting import fit
from benchverdict.lmem.glrt import BoundaryWarning, GLRTResult, glrt, nested_f_test
from benchverdict.results import VIEW
from benchverdict.stats.studentized_range import studentized_range_quantile, studentized_range_sf
from benchverdict.verdict import Scope, Verdict, register_method

register_method("lmem.metafeature", "lmem", "LMEM contrast within a metafeature level",
                paired=True, unit="run (an incumbent)", aspect="centre",
                assumptions="a linear mixed model with an algorithm x metafeature interaction",
                error_control="per comparison", votes=True, scale="raw")

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.results import Results


@dataclass(repr=False, frozen=True)
class MetafeatureAnalysis(ResultText):
    """Per benchmark group: the A-B difference at each metafeature level and the interaction test.

    Attributes
    ----------
    pair : (str, str)
    metafeature : str
    by : str
        The column grouping rows into benchmarks.
    table : pandas.DataFrame
        One row per group and level: ``group, level, estimate`` (A - B in
        the score's units), ``se, df, lower, upper, p_value`` (A vs B within the
        level), and per group ``F, p_value_f, chi2, p_value_glrt, differs`` (the
        interaction test).
    tests : dict of GLRTResult
    alpha : float
    objective : str
    data : str
    """

    pair: tuple[str, str]
    metafeature: str
    by: str
    table: pd.DataFrame
    tests: dict[str, GLRTResult]
    alpha: float
    objective: str
    data: str
    _verdicts: tuple[Verdict, ...] = ()

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        a, b = self.pair
        per_group = self.table.drop_duplicates("group")
        tests = [f"{r.group} p = {r.p_value_f:.2g}" for r in per_group.itertuples(index=False)]
        return [f"{a} - {b} by {self.metafeature} (per {self.by}): {len(per_group)} "
                f"group(s), alpha = {self.alpha:g}; {self.objective}",
                f"{a} - {b} depends on {self.metafeature} in {int(per_group['differs'].sum())} "
                f"of {len(per_group)} group(s) (F test): {names(tests, 4)}",
                f"data: {self.data}"]

    def verdicts(self) -> list[Verdict]:
        """A vs B within every group and metafeature level (scope: benchmark + level)."""
        return list(self._verdicts)

    @property
    def differing(self) -> list[str]:
        """Groups where the A-B difference changes significantly with the metafeature."""
        per_group = self.table.drop_duplicates("group")
        return list(per_group.loc[per_group["differs"], "group"])

    def summary(self) -> str:
        """Per group: whether A - B depends on the metafeature, and A - B by level."""
        a, b = self.pair
        lines = [f"Does {a} - {b} depend on {self.metafeature}? (alpha = {self.alpha:g}; "
                 f"{self.data}; objective: {self.objective})"]
        for group, rows in self.table.groupby("group", sort=False):
            first = rows.iloc[0]
            diffs = ", ".join(f"{r.level}: {r.estimate:+.4g} [{r.lower:+.4g}, {r.upper:+.4g}]"
                              for r in rows.itertuples())
            word = "DIFFERS" if first["differs"] else "no significant difference"
            lines.append(f"  {group}: {word} (F = {first['F']:.3g}, p = {first['p_value_f']:.3g}); "
                         f"{a} - {b} by level: {diffs}")
        return "\n".join(lines)

    def plot(self, ax: plt.Axes | None = None) -> plt.Axes:
        """Forest plot: A - B with its interval per group and level."""
        from benchverdict.plotting import (
            ALGORITHM_PALETTE,
            legend_outside,
            new_axes,
            shorten,
            theme,
        )

        t = self.table
        groups = list(dict.fromkeys(t["group"]))
        levels = list(dict.fromkeys(t["level"]))
        ax = new_axes(ax, width=5.5, height=0.35 * len(groups) * len(levels) + 1.0)
        with theme():
            colors = {lvl: ALGORITHM_PALETTE[i % len(ALGORITHM_PALETTE)]
                      for i, lvl in enumerate(levels)}
            for i, g in enumerate(groups):
                for j, lvl in enumerate(levels):
                    r = t[(t["group"] == g) & (t["level"] == lvl)]
                    if r.empty:
                        continue
                    y = i + (j - (len(levels) - 1) / 2) * 0.25
                    r = r.iloc[0]
                    ax.errorbar(r["estimate"], y, xerr=[[r["estimate"] - r["lower"]],
                                                        [r["upper"] - r["estimate"]]],
                                fmt="o", color=colors[lvl], ms=4,
                                label=str(lvl) if i == 0 else None)
            ax.axvline(0, color="k", lw=0.8)
            ax.set_yticks(range(len(groups)),
                          [shorten(g, 20) + (" *" if g in self.differing else "")
                           for g in groups])
            ax.invert_yaxis()
            a, b = self.pair
            ax.set_xlabel(f"{a} - {b} ({self.objective}; * = depends on {self.metafeature})")
            legend_outside(ax, title=self.metafeature)
        return plain_text(ax)


def metafeature_analysis(results: Results, pair: tuple[str, str], metafeature: str, *,
                         by: str = "benchmark", budget: float | None = None,
                         alpha: float = 0.05) -> MetafeatureAnalysis:
    """Test, per benchmark group, whether ``pair``'s difference depends on ``metafeature``.

    Parameters
    ----------
    results : Results
    pair : (str, str)
        Algorithms A and B.
    metafeature : str
        A factor metafeature column (e.g. ``"prior"``).
    by : str
        The column that identifies a benchmark across metafeature levels
        (``"benchmark"``, or e.g. ``"task"`` when each benchmark label already
        includes the level, as in the PriorBand adapter).
    budget : float, optional
        Use each run's final incumbent (default), or its incumbent at this budget.
    alpha : float

    Returns
    -------
    MetafeatureAnalysis

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from benchverdict import Results
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame([(a, b, m, s) for a in "AB" for b in ("t1", "t2")
    ...                    for m in ("good", "bad") for s in range(10)],
    ...                   columns=["alg", "task", "prior", "seed"])
    >>> df["loss"] = rng.normal(size=len(df)) - 2.0 * ((df.alg == "A") & (df.prior == "good")
    ...                                               & (df.task == "t1"))
    >>> res = Results.from_frame(df.assign(bench=df.task + "_" + df.prior), algorithm="alg",
    ...                          benchmark="bench", seed="seed", score="loss",
    ...                          objective="minimize", metafeatures=["task", "prior"],
    ...                          kind="trials")
    >>> metafeature_analysis(res, ("A", "B"), "prior", by="task").differing
    ['t1']
    """
    a, b = map(str, pair)
    if a == b:
        raise ValueError("pair must name two different algorithms.")
    unknown = [x for x in (a, b) if x not in results.algorithms]
    if unknown:
        raise KeyError(f"unknown algorithm(s) {unknown}; known: {results.algorithms}.")
    view = results.incumbents(None if budget is None else float(budget))
    frame, used = view.table, view.kind_reason.removeprefix(VIEW)
    left_out = _exclusions.exclusions_of(view)
    for col in (metafeature, by):
        if col not in frame.columns:
            raise KeyError(f"column {col!r} not in the results; have {list(frame.columns)}.")
    frame = frame[frame["algorithm"].astype(str).isin([a, b])].copy()
    # Put A first so that the algorithm contrast reads A - B.
    frame["algorithm"] = pd.Categorical(frame["algorithm"].astype(str), categories=[a, b])
    frame[metafeature] = frame[metafeature].astype(str)
    rows, tests, verdicts = [], {}, []
    for group in sorted(map(str, frame[by].astype(str).unique())):
        sub = frame[frame[by].astype(str) == group]
        levels = sorted(sub[metafeature].unique())
        if len(levels) < 2:
            raise ValueError(
                f"{by}={group!r} has only the {metafeature} level {levels}: the analysis needs "
                f"every group at two or more levels. If each benchmark label includes the "
                f"level, pass by= the column naming the underlying benchmark."
            )
        cells = sub.groupby(["algorithm", metafeature], observed=True).size()
        if (cells < 2).any() or len(cells) < 2 * len(levels):
            raise ValueError(f"{by}={group!r}: every algorithm x {metafeature} cell needs at "
                             f"least two runs; counts:\n{cells}")
        m0 = fit(sub, f"score ~ algorithm + `{metafeature}`", exclusions=left_out)
        m1 = fit(sub, f"score ~ algorithm * `{metafeature}`", exclusions=left_out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BoundaryWarning)
            t = glrt(m0, m1, alpha=alpha)
        tests[group] = t
        f_stat, p_f = nested_f_test(m0, m1)
        pairs = m1.pairwise("algorithm", "none", by=metafeature)
        for r in pairs.itertuples(index=False):
            crit = stats.t.ppf(1 - alpha / 2, r.df)
            rows.append({"group": group, "level": getattr(r, metafeature),
                         "estimate": r.estimate, "se": r.se, "df": r.df,
                         "lower": r.estimate - crit * r.se, "upper": r.estimate + crit * r.se,
                         "p_value": r.p_value, "F": f_stat, "p_value_f": p_f, "chi2": t.chi2,
                         "p_value_glrt": t.p_value, "differs": p_f < alpha})
        m1.objective = results.objective  # fitted on a plain frame; verdicts need the direction
        for v in m1.verdicts(by=metafeature, adjust="none", alpha=alpha):
            level = dict(v.scope.metafeature)[metafeature]
            scope = Scope(benchmark=group, metafeature=((metafeature, level),))
            verdicts.append(Verdict(
                a=v.a, b=v.b, outcome=v.outcome, method="lmem.metafeature", scope=scope,
                evidence=v.evidence, objective=v.objective,
                explanation=v.explanation + f" ({by} {group}, {metafeature}={level})",
                effect=v.effect, unit=f"run ({used})", n=len(sub),
                details={**v.details, "interaction_p_value_f": p_f},
            ))
    table = pd.DataFrame(rows)
    return MetafeatureAnalysis((a, b), metafeature, by, table, tests, alpha, results.objective,
                               used, tuple(verdicts))


@dataclass(repr=False, frozen=True)
class DifferenceClusters(ResultText):
    """A - B per benchmark, and which benchmarks' differences are indistinguishable.

    Attributes
    ----------
    pair : (str, str)
    table : pandas.DataFrame
        ``benchmark, estimate, se`` (A - B in the score's units) plus any
        metafeature columns constant within a benchmark.
    pairs : pandas.DataFrame
        Every pair of benchmarks: ``benchmark_1, benchmark_2, estimate, se,
        statistic, df, p_value`` (unadjusted), ``p_value_adjusted`` (Tukey over
        all benchmarks) and ``adjustment``.
    not_different : pandas.DataFrame
        Square boolean matrix for the CD diagram.
    alpha : float
    objective : str
    """

    pair: tuple[str, str]
    table: pd.DataFrame
    pairs: pd.DataFrame
    not_different: pd.DataFrame
    alpha: float
    objective: str
    standardized: bool = True

    def _summary_lines(self) -> list[str]:
        a, b = self.pair
        n = len(self.table)
        lines = [f"{a} - {b} on {n} benchmark(s), clustered by Tukey-adjusted comparisons "
                 f"(alpha = {self.alpha:g}; {'standardized' if self.standardized else 'raw'})"]
        if n:
            t = self.table.sort_values("estimate", kind="stable")
            lo, hi = t.iloc[0], t.iloc[-1]
            differ = (int((self.pairs["p_value_adjusted"] < self.alpha).sum())
                      if len(self.pairs) else 0)
            lines.append(f"{a} - {b} from {lo['estimate']:+.3g} ({lo['benchmark']}) to "
                         f"{hi['estimate']:+.3g} ({hi['benchmark']}); {differ} of "
                         f"{len(self.pairs)} benchmark pair(s) differ")
        return lines

    def verdicts(self) -> list[Verdict]:
        """No verdicts: these comparisons are between benchmarks, not algorithms.

        An empty list (every result type answers ``verdicts()``); A vs B
        within each benchmark group comes from :func:`metafeature_analysis`.
        """
        return []

    def summary(self) -> str:
        """A - B per benchmark and the groups of benchmarks whose differences do not differ."""
        from benchverdict.critical_difference import grouping

        a, b = self.pair
        unit = "benchmark SDs" if self.standardized else "score units"
        lines = [f"{a} - {b} per benchmark ({unit}; Tukey-adjusted comparisons of the "
                 f"differences, alpha = {self.alpha:g}; objective: {self.objective})"]
        lines += [f"  {r.benchmark}: {r.estimate:+.4g} (se {r.se:.3g})"
                  for r in self.table.itertuples(index=False)]
        if len(self.table) > 1:
            found = grouping(self.table.set_index("benchmark")["estimate"], self.not_different,
                             lower_is_better=self.objective == "minimize")
            lines.append("  benchmarks whose differences do not differ: "
                         + ("; ".join("{" + ", ".join(sorted(g)) + "}" for g in found.groups)
                            or "none"))
        return "\n".join(lines)

    def plot(self, ax: plt.Axes | None = None) -> plt.Axes:
        """CD diagram of the benchmarks placed at A - B (A's advantage grows to the left)."""
        from benchverdict.critical_difference import draw_cd_diagram

        a, b = self.pair
        pos = self.table.set_index("benchmark")["estimate"]
        crit = studentized_range_quantile(1 - self.alpha, len(pos), self.pairs["df"].to_numpy())
        cds = crit / np.sqrt(2) * self.pairs["se"].to_numpy()
        return draw_cd_diagram(
            pos, self.not_different, lower_is_better=self.objective == "minimize",
            critical_difference_range=(float(cds.min()), float(cds.max())),
            axis_label=f"{a} - {b} in {'benchmark SDs' if self.standardized else 'score'} "
                       f"({a} better to the left; Tukey, "
                       f"alpha = {self.alpha:g})", value_format="{:+.3g}", ax=ax,
        )


def difference_clusters(results: Results, pair: tuple[str, str], *, by: str = "benchmark",
                        budget: float | None = None, alpha: float = 0.05,
                        standardize: bool = True) -> DifferenceClusters:
    """Cluster benchmarks by the difference between two algorithms (cf. Geburek et al. Fig. 4).

    Fits ``score ~ algorithm * by`` to the pair's runs (final incumbents by
    default), estimates ``A - B`` on every benchmark, and compares those
    differences between all pairs of benchmarks with Tukey's adjustment.
    Benchmarks whose differences are not significantly different share a
    group in the CD diagram: metafeatures that drive the comparison (such as
    prior quality) show up as groups. The model has one residual variance,
    so with ``standardize=True`` (default) each benchmark's scores are first
    divided by their standard deviation (differences are then in standard
    deviations, comparable across benchmarks of different scales).

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=4, n_seeds=10, algorithm_effect={"A": -3.0},
    ...                        uninformative=[0, 1], seed=0)
    >>> c = difference_clusters(res, ("A", "B"))
    >>> bool(c.not_different.loc["bench00", "bench01"]), bool(c.not_different.loc["bench00",
    ...                                                                            "bench03"])
    (True, False)
    """
    a, b = map(str, pair)
    frame = results.incumbents(None if budget is None else float(budget)).table
    frame = frame[frame["algorithm"].astype(str).isin([a, b])].copy()
    frame["algorithm"] = pd.Categorical(frame["algorithm"].astype(str), categories=[a, b])
    frame[by] = frame[by].astype(str)
    if standardize:
        sd = frame.groupby(by)["score"].transform("std")
        frame["score"] = frame["score"] / sd.where(sd > 0, 1.0)
    model = fit(frame, f"score ~ algorithm * `{by}`")
    L, grid = model._grid_matrix("algorithm", by)
    benches = list(dict.fromkeys(grid[by]))
    D = np.array([L[(grid["algorithm"] == a) & (grid[by] == v)][0]
                  - L[(grid["algorithm"] == b) & (grid[by] == v)][0] for v in benches])
    est = D @ model.fixef.to_numpy()
    se = model._standard_errors(D)
    table = pd.DataFrame({"benchmark": benches, "estimate": est, "se": se})
    for col in results.metafeatures:
        if col in frame.columns and (frame.groupby(by)[col].nunique() == 1).all():
            table[col] = table["benchmark"].map(frame.groupby(by)[col].first())
    rows, C = [], []
    for i in range(len(benches)):
        for j in range(i + 1, len(benches)):
            C.append(D[i] - D[j])
            rows.append({"benchmark_1": benches[i], "benchmark_2": benches[j]})
    C = np.array(C)
    diff = C @ model.fixef.to_numpy()
    dse = model._standard_errors(C)
    dfs = model._df_for(C, "auto")
    t = diff / dse
    k = len(benches)
    p = studentized_range_sf(np.sqrt(2) * np.abs(t), k, dfs)
    raw = 2 * stats.t.sf(np.abs(t), dfs)
    p = np.where(p < raw, np.minimum(1.0, k * (k - 1) / 2 * raw), p)
    pairs = pd.DataFrame(rows).assign(estimate=diff, se=dse, statistic=t, df=dfs, p_value=raw,
                                      p_value_adjusted=p, adjustment="tukey")
    nd = pd.DataFrame(True, index=benches, columns=benches)
    for r in pairs.itertuples():
        nd.loc[r.benchmark_1, r.benchmark_2] = nd.loc[r.benchmark_2, r.benchmark_1] = (
            r.p_value_adjusted >= alpha)
    return DifferenceClusters((a, b), table, pairs, nd, alpha, results.objective, standardize)
