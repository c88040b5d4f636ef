"""Anytime ranks: each algorithm's average rank as a function of the budget.

The plot HPO papers use to compare optimisers over a budget (e.g. the
PriorBand paper, Mallik et al. 2023): at every budget ``b``, take each run's
incumbent after ``b``, average over seeds within each (algorithm,
benchmark), rank the algorithms on every benchmark (1 = best, ties
averaged), and average the ranks over benchmarks.

With ``rank_by="seed"`` the ranks are instead taken per (benchmark, seed)
run instance, averaged over benchmarks for every seed, then over seeds
(the practice of the PriorBand paper, whose data carry this as
``rel_rank``); seeds are then paired by their label across algorithms.

The bands are percentile bootstrap intervals over **seeds**: the seeds of
every (algorithm, benchmark) cell (or, with ``rank_by="seed"``, the seed
labels) are resampled with replacement and the whole computation is
repeated. They show how much the curve would move with other seeds on
*these* benchmarks; they say nothing about other benchmarks (use
:func:`benchverdict.ranks.friedman` for that). They are descriptive, not
calibrated confidence intervals: when algorithms are close on a
benchmark, seed noise can only push the best one's rank up and the worst
one's down, so average ranks are biased towards the middle and a
percentile band centred on them under-covers (3 algorithms 0.3 sd apart,
30 seeds: 63% joint coverage at a nominal 90%; 0.6 sd apart: 100%). The
pairwise verdicts at a budget (does the band of the difference of two
average ranks exclude 0?) are therefore marked ``descriptive``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import stats
from tqdm.auto import tqdm

from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.exclusions import exclusions_frame
from benchverdict.plotting import (
    SINGLE_COLUMN,
    algorithm_styles,
    legend_outside,
    new_axes,
    plain_log_axis,
    theme,
)
from benchverdict.results import Results
from benchverdict.stats.symmetry import canonical_block_order
from benchverdict.verdict import Effect, Evidence, Scope, Verdict, register_method

register_method("ranks.anytime_ranks", "ranks", "average rank against budget", paired=True,
                unit="benchmark (seeds resampled)", aspect="ranks",
                assumptions="a seed-bootstrap band; descriptive", error_control="descriptive",
                scale="ranks")


@dataclass(repr=False, frozen=True)
class AnytimeRanks(ResultText):
    """Average rank per algorithm and budget, with bootstrap bands over seeds.

    Attributes
    ----------
    table : pandas.DataFrame
        Long: ``budget, algorithm, average_rank, lower, upper, n_benchmarks``.
    bootstrap : dict
        ``budget -> array (n_resamples, n_algorithms)`` of resampled
        average ranks (columns in ``algorithms`` order), for custom
        summaries.
    algorithms : list of str
    exclusions : pandas.DataFrame
        What was left out at each budget, with the columns of
        :data:`~benchverdict.exclusions.EXCLUSION_COLUMNS` (``analysis``
        ``"ranks"``, ``step`` ``"anytime ranks"``): ``unit`` ``"cell"`` for
        a benchmark left out because an algorithm had no run with an
        incumbent there (``rank_by="seed_mean"``), ``"block"`` for a
        benchmark x seed run instance left out (``rank_by="seed"``; its
        ``algorithm`` lists those without an incumbent).
    confidence : float
    unit : str
    objective : str
    """

    table: pd.DataFrame
    bootstrap: dict[float, np.ndarray]
    algorithms: list[str]
    exclusions: pd.DataFrame
    confidence: float
    unit: str
    objective: str

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        budgets = sorted(self.table["budget"].unique()) if len(self.table) else []
        lines = [f"anytime ranks: {len(self.algorithms)} algorithms at {len(budgets)} budget(s); "
                 f"{self.confidence:.0%} bootstrap bands", self.unit]
        if budgets:
            last = self.at(budgets[-1])
            lines.append(f"at budget {budgets[-1]:g}, best first: "
                         + names(f"{a} ({r:.2f})" for a, r in last.items()))
        return lines

    def summary(self) -> str:
        """Average ranks (best first) with their bands at every computed budget, as text."""
        lines = [f"Anytime average ranks ({self.unit}; {self.confidence:.0%} seed-bootstrap "
                 f"bands, descriptive); objective: {self.objective}"]
        for budget, rows in self.table.groupby("budget", sort=True):
            rows = rows.sort_values(["average_rank", "algorithm"], kind="stable")
            lines.append(f"  budget {budget:g}: " + ", ".join(
                f"{r.algorithm} {r.average_rank:.2f} [{r.lower:.2f}, {r.upper:.2f}]"
                for r in rows.itertuples(index=False)))
        if len(self.exclusions):
            lines.append(f"  left out: {len(self.exclusions)} benchmark x budget cell(s) "
                         f"without an incumbent for some algorithm (see .exclusions)")
        return "\n".join(lines)

    def at(self, budget: float) -> pd.Series:
        """Average ranks at one of the computed budgets, best first."""
        rows = self.table[np.isclose(self.table["budget"], float(budget))]
        if rows.empty:
            known = sorted(self.table["budget"].unique())
            raise KeyError(f"budget {budget} was not computed; computed: {known[:10]}...")
        return rows.set_index("algorithm")["average_rank"].sort_values()

    def verdicts(self, budgets: Sequence[float] | None = None) -> list[Verdict]:
        """One verdict per budget and pair: whether the rank difference's band excludes 0.

        Scope: these benchmarks, seed-to-seed variation only. The evidence is
        ``descriptive``: the band is not a calibrated confidence interval
        (see the module docstring); use friedman() at that budget for a test.
        """
        chosen = sorted(self.bootstrap) if budgets is None else [float(b) for b in budgets]
        out = []
        for b in chosen:
            key = min(self.bootstrap, key=lambda k: abs(k - b))
            if not np.isclose(key, b):
                raise KeyError(f"budget {b} was not computed.")
            boot = self.bootstrap[key]
            point = self.at(key)
            tail = (1 - self.confidence) / 2
            n_bench = int(self.table.loc[np.isclose(self.table["budget"], key),
                                         "n_benchmarks"].iloc[0])
            # Each pair's band is computed once, in an orientation fixed by the resampled
            # ranks (not the names), and mirrored for the other: exactly antisymmetric.
            keys = [tuple(np.sort(boot[:, i]).tolist()) for i in range(boot.shape[1])]
            for i, j in itertools.combinations(range(len(self.algorithms)), 2):
                a, c = self.algorithms[i], self.algorithms[j]
                if keys[j] < keys[i]:
                    high, low = -np.quantile(boot[:, i] - boot[:, j], [tail, 1 - tail])
                else:
                    # positive: a has the better (smaller) rank
                    low, high = np.quantile(boot[:, j] - boot[:, i], [tail, 1 - tail])
                estimate = float(point[c] - point[a])
                outcome = "a" if low > 0 else "b" if high < 0 else "inconclusive"
                out.append(
                    Verdict(
                        a=a, b=c, outcome=outcome, method="ranks.anytime_ranks",
                        scope=Scope(budget_low=key, budget_high=key),
                        evidence=Evidence("descriptive", None, self.confidence),
                        objective=self.objective, unit=self.unit, n=n_bench,
                        explanation=(
                            f"average rank {a} {point[a]:.2f} vs {c} {point[c]:.2f} over "
                            f"{n_bench} benchmarks at budget {key:g}; {self.confidence:.0%} seed-"
                            f"bootstrap band of the difference [{low:.2f}, {high:.2f}] "
                            f"(these benchmarks only; descriptive, see anytime_ranks)"
                        ),
                        effect=Effect("average rank difference (b - a)", estimate, float(low),
                                      float(high), self.confidence),
                    )
                )
        return out

    def plot(self, ax: Axes | None = None, *, log_budget: bool | None = None) -> Axes:
        """Average rank against budget, one line and band per algorithm (1 = best, at the top).

        Whole-number budgets get whole-number ticks (never 2.5 or 7.5), on a
        linear or a log axis (:func:`~benchverdict.plotting.integer_budget_axis`).
        """
        from benchverdict.plotting import integer_budget_axis

        ax = new_axes(ax, width=SINGLE_COLUMN + 1.1)
        styles = algorithm_styles(self.algorithms)
        colors = {alg: style.color for alg, style in styles.items()}
        t = self.table
        with theme():
            for alg in self.algorithms:
                rows = t[t["algorithm"] == alg].sort_values("budget")
                ax.plot(rows["budget"], rows["average_rank"], label=alg, **styles[alg].line_kw())
                ax.fill_between(rows["budget"], rows["lower"], rows["upper"], color=colors[alg],
                                alpha=0.2, linewidth=0)
            budgets = t["budget"].to_numpy()
            if log_budget is None:
                positive = budgets[budgets > 0]
                log_budget = len(positive) == len(budgets) and positive.max() / positive.min() > 100
            if log_budget:
                plain_log_axis(ax, "x")
            # Whole-number budgets (trials, epochs) get whole-number ticks, also on a log axis.
            integer_budget_axis(ax, budgets, "x")
            ax.set_ylim(len(self.algorithms) + 0.1, 0.9)
            ax.set_xlabel("budget")
            ax.set_ylabel("average rank (1 = best)")
            legend_outside(ax)
            ax.set_title(f"{self.confidence:.0%} bootstrap bands over seeds", fontsize=9)
        return plain_text(ax)


def anytime_ranks(
    results: Results,
    *,
    budgets: Sequence[float] | None = None,
    aggregate: str = "mean",
    rank_by: str = "seed_mean",
    n_resamples: int = 200,
    confidence: float = 0.95,
    seed: int | None = 0,
    max_budgets: int = 50,
    progress: bool = False,
) -> AnytimeRanks:
    """Average rank of every algorithm at each budget, with bootstrap bands over seeds.

    Parameters
    ----------
    results : Results
        With a budget column.
    budgets : sequence of float, optional
        Where to evaluate; default every observed budget, or ``max_budgets``
        observed budgets spread by quantile when there are more.
    aggregate : {"mean", "median"}
        How seeds are combined within a benchmark before ranking
        (``rank_by="seed_mean"``).
    rank_by : {"seed_mean", "seed"}
        Rank the seed aggregate of each benchmark (default), or rank every
        (benchmark, seed) run instance and average (PriorBand's relative
        ranks; run instances missing an algorithm are left out and listed).
    n_resamples : int
        Seed resamples for the bands (0: no bands).
    confidence : float
        Confidence level of the bands.
    seed : int, optional
    max_budgets : int
        Cap on the default grid.
    progress : bool
        Show a progress bar over budgets.

    Returns
    -------
    AnytimeRanks

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> ar = anytime_ranks(small_runs(), n_resamples=50)
    >>> ar.at(3).round(2).to_dict()
    {'PB': 1.0, 'HB': 2.14, 'RS': 2.86}
    """
    if not isinstance(results, Results):
        raise TypeError(f"expected a benchverdict Results, got {type(results).__name__}.")
    if not results.has_budget:
        raise ValueError("anytime ranks need a budget column; pass budget=<column> to from_frame.")
    if aggregate not in ("mean", "median"):
        raise ValueError(f"aggregate must be 'mean' or 'median', got {aggregate!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}.")
    if rank_by not in ("seed_mean", "seed"):
        raise ValueError(f"rank_by must be 'seed_mean' or 'seed', got {rank_by!r}.")
    if budgets is None:
        budgets = results.budget_grid(max_budgets)
    budgets = [float(b) for b in budgets]
    algorithms = results.algorithms
    benchmarks = results.benchmarks
    seeds = results.seeds
    rng = np.random.default_rng(seed)
    center = np.nanmean if aggregate == "mean" else np.nanmedian
    rows, boot_store, excluded = [], {}, []
    # Every run's incumbent at every budget in one pass (oriented: larger is better).
    cubes = results.incumbent_cube(budgets) * results.sign
    # The (benchmark, seed) run instances that exist at some budget: one with no incumbent
    # for any algorithm at a budget is left out there, and must be counted as such.
    exists = (~np.isnan(cubes)).any(axis=(0, 1)) if len(budgets) else None
    for t, b in enumerate(tqdm(budgets, disable=not progress, desc="anytime ranks")):
        cube = cubes[t]
        if rank_by == "seed":
            point, boot, n_used = _per_seed(cube, b, benchmarks, seeds, algorithms, excluded,
                                            n_resamples, rng, exists)
            if point is None:
                continue
        else:
            counts = np.sum(~np.isnan(cube), axis=2)  # (A, B)
            complete = (counts > 0).all(axis=0)
            for j in np.flatnonzero(~complete):
                for i in np.flatnonzero(counts[:, j] == 0):
                    excluded.append({"unit": "cell", "budget": b, "benchmark": benchmarks[j],
                                     "algorithm": algorithms[i],
                                     "reason": "no incumbent at this budget: benchmark left out"})
            if not complete.any():
                continue
            cube = cube[:, complete, :]
            counts = counts[:, complete]
            with np.errstate(all="ignore"):
                point = _average_ranks(center(cube, axis=2))
            boot = (_bootstrap(cube, counts, n_resamples, rng, aggregate)
                    if n_resamples > 0 else None)
            n_used = int(complete.sum())
        tail = (1 - confidence) / 2
        for i, alg in enumerate(algorithms):
            lo, hi = ((np.quantile(boot[:, i], tail), np.quantile(boot[:, i], 1 - tail))
                      if boot is not None else (np.nan, np.nan))
            rows.append({"budget": b, "algorithm": alg, "average_rank": point[i],
                         "lower": lo, "upper": hi, "n_benchmarks": n_used})
        if boot is not None:
            boot_store[b] = boot
    table = pd.DataFrame(rows, columns=["budget", "algorithm", "average_rank", "lower", "upper",
                                        "n_benchmarks"])
    how = (f"ranks per benchmark of the {aggregate} over seeds" if rank_by == "seed_mean"
           else "ranks per benchmark x seed run, averaged over benchmarks then seeds")
    unit = f"{len(benchmarks)} benchmarks x {len(seeds)} seeds ({how}; bands: bootstrap over seeds)"
    table.attrs["unit"] = unit
    return AnytimeRanks(table, boot_store, algorithms,
                        exclusions_frame(excluded, analysis="ranks", step="anytime ranks"),
                        confidence, unit, results.objective)


def _per_seed(cube: np.ndarray, budget: float, benchmarks: list[str], seeds: list,
              algorithms: list[str], excluded: list[dict], n_resamples: int,
              rng: np.random.Generator, exists: np.ndarray | None = None,
              ) -> tuple[np.ndarray | None, np.ndarray | None, int]:
    """PriorBand-style relative ranks: rank each (benchmark, seed) run instance, then average.

    A run instance some algorithm lacks at ``budget`` is left out and recorded; so is
    one that exists at another budget (``exists``, (B, S)) but has no incumbent of any
    algorithm at this one.
    """
    present = ~np.isnan(cube)  # (A, B, S)
    complete = present.all(axis=0)  # (B, S)
    partial = present.any(axis=0) & ~complete
    if exists is not None:
        partial |= exists & ~present.any(axis=0)
    for j, s_ in zip(*np.nonzero(partial)):
        missing = [algorithms[i] for i in np.flatnonzero(~present[:, j, s_])]
        excluded.append({"unit": "block", "budget": budget, "benchmark": benchmarks[j],
                         "seed": seeds[s_], "algorithm": ", ".join(missing),
                         "reason": f"seed {seeds[s_]}: run instance left out"})
    if not complete.any():
        return None, None, 0
    ranks = stats.rankdata(-np.where(complete[None], cube, 0.0), axis=0, method="average")
    ranks = np.where(complete[None], ranks, np.nan)
    with np.errstate(all="ignore"):
        per_seed = np.nanmean(ranks, axis=1)  # (A, S): average over benchmarks
    usable = ~np.isnan(per_seed).any(axis=0)
    per_seed = per_seed[:, usable]
    point = per_seed.mean(axis=1)
    boot = None
    if n_resamples > 0:
        idx = rng.integers(0, per_seed.shape[1], size=(n_resamples, per_seed.shape[1]))
        boot = per_seed[:, idx].mean(axis=2).T  # (B, A)
    return point, boot, int(complete.any(axis=1).sum())


def _average_ranks(oriented_means: np.ndarray) -> np.ndarray:
    """Average over benchmarks of within-benchmark ranks; input (..., A, B), larger is better."""
    ranks = stats.rankdata(-oriented_means, axis=-2, method="average")
    return ranks.mean(axis=-1)


def _bootstrap(cube: np.ndarray, counts: np.ndarray, n_resamples: int,
               rng: np.random.Generator, aggregate: str) -> np.ndarray:
    """Resample seeds within every (algorithm, benchmark) cell; return (n_resamples, A) ranks."""
    n_alg, n_bench, n_seed = cube.shape
    # Draw in an order of algorithms and benchmarks fixed by the data, not by their names,
    # so renaming or reordering them cannot change a band (stats.symmetry).
    with np.errstate(all="ignore"):
        centers0 = np.nanmean(cube, axis=2)  # (A, B)
    bench_order = canonical_block_order(centers0.T)
    in_order = centers0[:, bench_order]
    keys = [(tuple(np.sort(in_order[a]).tolist()), tuple(in_order[a].tolist()))
            for a in range(n_alg)]
    alg_order = np.array(sorted(range(n_alg), key=keys.__getitem__), dtype=np.int64)
    cube = cube[alg_order][:, bench_order]
    counts = counts[alg_order][:, bench_order]
    # seeds present first in every cell, so index < count picks an observed seed
    compact = np.sort(cube, axis=2)  # NaN sorts last
    out = np.empty((n_resamples, n_alg))
    chunk = max(1, int(4e6 // max(cube.size, 1)))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        u = rng.random((size, n_alg, n_bench, n_seed))
        idx = (u * counts[None, :, :, None]).astype(np.int64)
        draws = np.take_along_axis(compact[None], idx, axis=3)
        # each cell keeps its own sample size: positions >= count are not used
        draws = np.where(np.arange(n_seed)[None, None, None, :] < counts[None, :, :, None],
                         draws, np.nan)
        with np.errstate(all="ignore"):
            centers = (np.nanmean(draws, axis=3) if aggregate == "mean"
                       else np.nanmedian(draws, axis=3))
        out[start:start + size] = _average_ranks(centers)
    result = np.empty_like(out)
    result[:, alg_order] = out
    return result
