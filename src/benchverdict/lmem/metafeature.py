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

import pandas as pd
from scipy import stats

from benchverdict.lmem.glrt import BoundaryWarning, GLRTResult, glrt
from benchverdict.lmem.model import fit
from benchverdict.verdict import Scope, Verdict

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.results import Results


@dataclass(frozen=True)
class MetafeatureAnalysis:
    """Per benchmark group: the A-B difference at each metafeature level and the interaction test.

    Attributes
    ----------
    pair : (str, str)
    metafeature : str
    by : str
        The column grouping rows into benchmarks.
    table : pandas.DataFrame
        One row per group and level: ``group, level, estimate`` (A - B in
        the score's units), ``se, df, low, high, p_value`` (A vs B within the
        level), and per group ``F, p_F, chi2, p_glrt, differs`` (the
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

    def verdicts(self) -> list[Verdict]:
        """A vs B within every group and metafeature level (scope: benchmark + level)."""
        return list(self._verdicts)

    @property
    def differing(self) -> list[str]:
        """Groups where the A-B difference changes significantly with the metafeature."""
        per_group = self.table.drop_duplicates("group")
        return list(per_group.loc[per_group["differs"], "group"])

    def __str__(self) -> str:
        a, b = self.pair
        lines = [f"Does {a} - {b} depend on {self.metafeature}? (alpha = {self.alpha:g}; "
                 f"{self.data}; objective: {self.objective})"]
        for group, rows in self.table.groupby("group", sort=False):
            first = rows.iloc[0]
            diffs = ", ".join(f"{r.level}: {r.estimate:+.4g} [{r.low:+.4g}, {r.high:+.4g}]"
                              for r in rows.itertuples())
            word = "DIFFERS" if first["differs"] else "no significant difference"
            lines.append(f"  {group}: {word} (F = {first['F']:.3g}, p = {first['p_F']:.3g}); "
                         f"{a} - {b} by level: {diffs}")
        return "\n".join(lines)

    def plot(self, ax: plt.Axes | None = None) -> plt.Axes:
        """Forest plot: A - B with its interval per group and level."""
        from benchverdict.plotting import new_axes, shorten, theme

        t = self.table
        groups = list(dict.fromkeys(t["group"]))
        levels = list(dict.fromkeys(t["level"]))
        ax = new_axes(ax, width=4.5, height=0.35 * len(groups) * len(levels) + 1.0)
        import seaborn as sns

        with theme():
            colors = dict(zip(levels, sns.color_palette("colorblind", len(levels))))
            for i, g in enumerate(groups):
                for j, lvl in enumerate(levels):
                    r = t[(t["group"] == g) & (t["level"] == lvl)]
                    if r.empty:
                        continue
                    y = i + (j - (len(levels) - 1) / 2) * 0.25
                    r = r.iloc[0]
                    ax.errorbar(r["estimate"], y, xerr=[[r["estimate"] - r["low"]],
                                                        [r["high"] - r["estimate"]]],
                                fmt="o", color=colors[lvl], ms=4,
                                label=str(lvl) if i == 0 else None)
            ax.axvline(0, color="k", lw=0.8)
            ax.set_yticks(range(len(groups)),
                          [shorten(g, 20) + (" *" if g in self.differing else "")
                           for g in groups])
            ax.invert_yaxis()
            a, b = self.pair
            ax.set_xlabel(f"{a} - {b} ({self.objective}; * = depends on {self.metafeature})")
            ax.legend(title=self.metafeature, loc="best")
        return ax


def metafeature_analysis(results: Results, pair: tuple[str, str], metafeature: str, *,
                         by: str = "benchmark", budget: float | str = "final",
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
    budget : "final" or float
        Use each run's final incumbent, or its incumbent at this budget.
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
    ...                          objective="minimize", metafeatures=["task", "prior"])
    >>> metafeature_analysis(res, ("A", "B"), "prior", by="task").differing
    ['t1']
    """
    a, b = map(str, pair)
    if a == b:
        raise ValueError("pair must name two different algorithms.")
    unknown = [x for x in (a, b) if x not in results.algorithms]
    if unknown:
        raise KeyError(f"unknown algorithm(s) {unknown}; known: {results.algorithms}.")
    if budget == "final":
        frame = results.final() if results.has_budget else results.table
        used = "final incumbent of each run"
    else:
        frame = results.at_budget(float(budget))
        used = f"incumbents at budget {float(budget):g}"
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
        m0 = fit(sub, f"score ~ algorithm + `{metafeature}`")
        m1 = fit(sub, f"score ~ algorithm * `{metafeature}`")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BoundaryWarning)
            t = glrt(m0, m1, alpha=alpha)
        tests[group] = t
        n, p1, p0 = m1.nobs, len(m1.fixef), len(m0.fixef)
        rss0, rss1 = n * m0.sigma**2, n * m1.sigma**2
        f_stat = ((rss0 - rss1) / (p1 - p0)) / (rss1 / (n - p1))
        p_f = float(stats.f.sf(f_stat, p1 - p0, n - p1))
        pairs = m1.pairwise("algorithm", "none", by=metafeature)
        for r in pairs.itertuples(index=False):
            crit = stats.t.ppf(1 - alpha / 2, r.df)
            rows.append({"group": group, "level": getattr(r, metafeature),
                         "estimate": r.estimate, "se": r.se, "df": r.df,
                         "low": r.estimate - crit * r.se, "high": r.estimate + crit * r.se,
                         "p_value": r.p_value, "F": f_stat, "p_F": p_f, "chi2": t.chi2,
                         "p_glrt": t.p_value, "differs": p_f < alpha})
        m1.objective = results.objective  # fitted on a plain frame; verdicts need the direction
        for v in m1.verdicts(by=metafeature, adjust="none", alpha=alpha):
            level = dict(v.scope.metafeature)[metafeature]
            scope = Scope(benchmark=group, metafeature=((metafeature, level),))
            verdicts.append(Verdict(
                a=v.a, b=v.b, outcome=v.outcome, method="lmem.metafeature", scope=scope,
                evidence=v.evidence, objective=v.objective,
                explanation=v.explanation + f" ({by} {group}, {metafeature}={level})",
                effect=v.effect, unit=f"run ({used})", n=len(sub),
                details={**v.details, "interaction_p_F": p_f},
            ))
    table = pd.DataFrame(rows)
    return MetafeatureAnalysis((a, b), metafeature, by, table, tests, alpha, results.objective,
                               used, tuple(verdicts))
