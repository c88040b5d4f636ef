"""The report's effect sizes: each scope's pairs sized on the incumbents the families compare.

:func:`scope_effects` prepares the data once (each run's incumbent at the
final budget, or at ``Options.budget``; the scale decision) and returns the
``effects(key, algorithms)`` source that
:func:`~benchverdict.report.reconcile.reconcile` calls per scope:

- across benchmarks (and per level of a metafeature): the paired mean
  difference over benchmarks under the report's estimand
  (:mod:`benchverdict.effects.pairwise`), in score units, or in SDs of a
  benchmark where the scales differ across benchmarks (as the LMEM's) or
  the margin is given in SDs;
- per benchmark: Welch's difference over the runs, in the benchmark's own
  units (a margin in SDs is converted with the benchmark's SD, the one the
  standardisation uses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from benchverdict.analysis import Options, benchmarks_at
from benchverdict.effects.pairwise import PairwiseEffects, effects_from_frame
from benchverdict.replicates import BenchmarkReplicates, pair_replicates
from benchverdict.report.reconcile import EffectsSource
from benchverdict.report.relations import GroupKey
from benchverdict.results import NoIncumbentsError, Results
from benchverdict.scales import run_sd_per_benchmark, scale_check, standardise_per_benchmark
from benchverdict.tuning.collection import vote_budgets
from benchverdict.tuning.quantile_test import curve_difference, curve_equivalence_p


@dataclass(frozen=True)
class ComparedScores:
    """The incumbents the report compares, prepared once for effects and plans.

    ``data`` holds each run's incumbent at the final budget (or
    ``Options.budget``); ``standardized`` whether scores across benchmarks
    are z-scored per benchmark (the scales differ, or the margin is in SDs),
    and ``pooled`` the scores effects across benchmarks and plans use.
    """

    data: Results
    pooled: Results
    standardized: bool
    #: Each compared "run" is one random-search draw (draws without a trial order): the
    #: effects are differences of single draws (k = 1), and their unit says so.
    single_draws: bool = False
    #: Standardised by each benchmark's run-to-run SD (a margin in SDs), not its scores' SD.
    runs_sd: bool = False
    #: Benchmarks on which an algorithm's runs are identical (found on the runs as given).
    copies: BenchmarkReplicates = field(default_factory=BenchmarkReplicates)


def compared_scores(results: Results, options: Options) -> ComparedScores | None:
    """The compared incumbents and the scale decision, or ``None`` without incumbents.

    Raises
    ------
    ValueError
        A margin in score units on scores whose scales differ across
        benchmarks (the effects are then in SDs of a benchmark): the message
        says how to give it in SDs.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> compared_scores(_example_small(), Options()).standardized
    False
    """
    try:
        data = results.final() if options.budget is None else results.at_budget(options.budget)
    except NoIncumbentsError:
        return None
    margin = options.margin
    several = len(data.benchmarks) > 1
    check = scale_check(data) if several else None
    standardize = several and (bool(check is not None and check.heterogeneous)
                               or (margin is not None and margin.standardized))
    if standardize and margin is not None and not margin.standardized:
        raise ValueError(
            f"margin={margin.value:g} is in the score's units, but the scores' scales differ "
            f"across benchmarks ({check.reason if check is not None else ''}), so differences "
            f"across benchmarks are in standard deviations of a benchmark; give the margin "
            f"in SDs, e.g. margin='0.2sd' (--margin 0.2sd).")
    # A margin in SDs is in run-to-run SDs (Cohen's d): in the SD of all of a benchmark's
    # scores a far-worse third algorithm made a pair 0.5 SD apart "equivalent" (0.054 SD).
    runs_sd = margin is not None and margin.standardized
    pooled = (standardise_per_benchmark(data, sd="runs" if runs_sd else "scores")
              if standardize else data)
    single = results.kind == "trials" and not results.has_budget
    return ComparedScores(data, pooled, bool(standardize), single, runs_sd,
                          pair_replicates(results, options.replicate_by))


def scope_effects(scores: ComparedScores | None, options: Options) -> EffectsSource | None:
    """The effect sizes of every scope, computed on demand (and kept).

    Returns ``None`` without compared scores (no run has an incumbent at the
    budget compared).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> options = Options(margin=0.5)
    >>> source = scope_effects(compared_scores(_example_small(), options), options)
    >>> eff = source((None, ()), ["a", "b"])
    >>> eff.unit, eff.margin_value, eff.effects[0].n
    ('acc', 0.5, 2)
    """
    if scores is None:
        return None
    data, standardize = scores.data, scores.standardized
    margin = options.margin
    unit = str(data.roles.get("score", "score"))
    if scores.single_draws:
        # Across benchmarks these differences are of one draw each, and say so wherever
        # their unit is printed; per benchmark the tuning curves' vote decides, and the
        # effect is its curves' difference (_curve_effects).
        unit = f"{unit} of single draws"
    known_budgets: dict[str, int] = {}

    def budgets() -> dict[str, int]:
        """Each benchmark's budget of the tuning curves' vote (the same rule, counted once)."""
        if not known_budgets and len(data.table):
            sizes = data.table.groupby([data.table["algorithm"].astype(str),
                                        data.table["benchmark"].astype(str)],
                                       observed=True).size()
            known_budgets.update(vote_budgets({k: int(v) for k, v in sizes.items()},
                                              options.alpha))
        return known_budgets
    raw = data.table
    pooled = scores.pooled.table
    pooled_unit = ((f"the pair's run-to-run SD of a benchmark's {unit}" if scores.runs_sd
                    else f"SD of a benchmark's {unit}") if standardize else unit)
    run_sd = run_sd_per_benchmark(data) if scores.runs_sd else None
    estimand = options.estimand
    cache: dict[tuple, PairwiseEffects | None] = {}
    # Each benchmark's rows, split once when a benchmark's scope is first asked: selecting
    # them per scope scanned every row once per benchmark (2,000 benchmarks at 10^8 rows
    # made the report's effects most of its time and memory).
    by_benchmark: dict[str, pd.DataFrame] = {}

    def rows_of(bench: object) -> pd.DataFrame:
        if not by_benchmark and len(raw):
            names = raw["benchmark"].astype(str)
            by_benchmark.update(
                (str(name), part) for name, part in raw.groupby(names, sort=False))
        return by_benchmark.get(str(bench), raw.iloc[:0])

    def source(key: GroupKey, algorithms: list[str]) -> PairwiseEffects | None:
        memo = (key, tuple(algorithms))
        if memo in cache:
            return cache[memo]
        bench, meta = key
        if bench is not None:
            frame = rows_of(bench)
            margin_value = None
            if margin is not None and margin.standardized:
                margin_value = margin.value * _benchmark_sd(run_sd, bench, frame)
            # A margin in SDs is each pair's own run SD there (the benchmark's where the
            # pair's runs hold no spread).
            out = effects_from_frame(frame, algorithms=algorithms, estimand="benchmark",
                                     objective=data.objective, alpha=options.alpha,
                                     unit=unit, margin=margin, margin_value=margin_value,
                                     pair_run_sd=scores.runs_sd)
            if scores.single_draws:
                out = _curve_effects(out, frame, budgets().get(str(bench)), data.objective)
        else:
            frame = pooled
            for name, value in meta:
                keep = set(benchmarks_at(data, name, value))
                frame = frame[frame["benchmark"].astype(str).isin(keep)]
            out = effects_from_frame(frame, algorithms=algorithms, estimand=estimand,
                                     objective=data.objective, alpha=options.alpha,
                                     unit=pooled_unit, standardized=standardize,
                                     margin=margin, copies=scores.copies,
                                     pair_run_sd=scores.runs_sd and standardize)
            if scores.single_draws and estimand == "these":
                # About these benchmarks the tuning curves vote ("better on every
                # benchmark" at each one's k): "by how much" is their curves' difference.
                out = _curve_effects_across(out, frame, budgets(), data.objective)
        cache[memo] = out
        return out

    return source


def _benchmark_sd(run_sd: pd.Series | None, bench: object, frame: pd.DataFrame) -> float:
    """The SD a margin in SDs means on one benchmark: its run-to-run SD, else its scores'."""
    value = math.nan if run_sd is None else float(run_sd.get(str(bench), math.nan))
    if math.isfinite(value) and value > 0:
        return value
    return float(frame["score"].std(ddof=1))


#: What a curves' difference does not have: a t standard error, its p-value, a TOST (per
#: benchmark an interval-inclusion test takes its place), and the probability that a
#: single draw wins (a k = 1 quantity, which could read against it: "A > B ... A better
#: in 0% of comparisons").
_NOT_FOR_CURVES = {"se": math.nan, "df": math.nan, "p_value": math.nan,
                   "p_equivalence": math.nan, "superiority": math.nan,
                   "superiority_lower": math.nan, "superiority_upper": math.nan}


def _curve_effects(effects: PairwiseEffects, frame: pd.DataFrame, k: int | None,
                   objective: str) -> PairwiseEffects:
    """One benchmark's effects on random-search draws, as the tuning curves' vote measures them.

    Without a trial order the tuning curves' order-statistic test at budget
    ``k`` (:func:`~benchverdict.tuning.collection.vote_budgets`) is the only
    vote, so "by how much" is the difference of the median tuning curves
    there (:func:`~benchverdict.tuning.quantile_test.curve_difference`), with
    its distribution-free interval at the effects' simultaneous level. The
    mean difference of single draws answered another question and could
    have the opposite sign: A's draws spread wide (mean 0) beat B's narrow
    ones (mean 0.3) at k = 63, and the headline printed "A over B -0.203".
    No t-based standard error, p-value or single-draw probability of
    superiority belongs to this difference (NaN); with a margin, equivalence is
    tested by inclusion of the curves' interval
    (:func:`~benchverdict.tuning.quantile_test.curve_equivalence_p`).
    """
    if k is None or not effects.effects:
        return effects
    draws = {str(name): part["score"].to_numpy(dtype=float)
             for name, part in frame.groupby(frame["algorithm"].astype(str), observed=True)}
    out = []
    # Simultaneous over the scope's pairs (Bonferroni), as every effect interval is.
    level = 1.0 - (1.0 - effects.confidence) / len(effects.effects)
    for e in effects.effects:
        margin = e.margin_value if math.isfinite(e.margin_value) else effects.margin_value
        point, low, high = curve_difference(draws[e.a], draws[e.b], k, confidence=level,
                                            objective=objective)
        # Equivalence by inclusion of the curves' interval (curve_equivalence_p): the
        # p-value joins the Holm family as a TOST's would.
        p_eq = (curve_equivalence_p(draws[e.a], draws[e.b], k, margin, objective=objective)
                if math.isfinite(margin) and margin > 0 else math.nan)
        out.append(replace(e, difference=point, lower=low, upper=high,
                           **{**_NOT_FOR_CURVES, "p_equivalence": p_eq}))
    return replace(effects, effects=tuple(out), measure=f"median best-of-{k} difference",
                   unit=effects.unit.removesuffix(" of single draws"))


def _curve_effects_across(effects: PairwiseEffects, frame: pd.DataFrame,
                          budgets: dict[str, int], objective: str) -> PairwiseEffects:
    """Across these benchmarks of draws: the mean of the curves' differences at each k.

    Each benchmark's difference at its vote's budget gets the interval of
    :func:`~benchverdict.tuning.quantile_test.curve_difference` at ``1 -
    (1 - confidence) / (m B)`` (Bonferroni over the scope's ``m`` pairs and
    the pair's ``B`` benchmarks); all hold together with probability at
    least ``confidence``, so the mean of their ends bounds the mean
    difference, simultaneously over the pairs. It speaks of these benchmarks only,
    as the tuning curves' intersection-union vote does.
    """
    if not effects.effects or not budgets:
        return effects
    draws: dict[tuple[str, str], np.ndarray] = {
        (str(a), str(b)): part["score"].to_numpy(dtype=float)
        for (a, b), part in frame.groupby([frame["algorithm"].astype(str),
                                           frame["benchmark"].astype(str)], observed=True)}
    out = []
    ks = set()
    for e in effects.effects:
        benches = [b for b in budgets if (e.a, b) in draws and (e.b, b) in draws]
        if not benches:
            out.append(e)
            continue
        # Bonferroni over the scope's pairs and the pair's benchmarks.
        level = 1.0 - (1.0 - effects.confidence) / (len(effects.effects) * len(benches))
        parts = np.array([curve_difference(draws[(e.a, b)], draws[(e.b, b)], budgets[b],
                                           confidence=level, objective=objective)
                          for b in benches])
        ks.update(budgets[b] for b in benches)
        point, low, high = parts.mean(axis=0)
        out.append(replace(e, difference=float(point), lower=float(low), upper=float(high),
                           **_NOT_FOR_CURVES))
    where = (f"{min(ks)}" if len(ks) == 1 else f"{min(ks)} to {max(ks)}") if ks else "k"
    return replace(effects, effects=tuple(out),
                   measure=f"mean over benchmarks of the median best-of-k difference at "
                           f"k = {where}",
                   unit=effects.unit.replace(" of single draws", ""))


__all__ = ["ComparedScores", "compared_scores", "scope_effects"]
