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
from dataclasses import dataclass, replace

import pandas as pd

from benchverdict.analysis import Options, benchmarks_at
from benchverdict.effects.pairwise import PairwiseEffects, effects_from_frame
from benchverdict.report.reconcile import EffectsSource
from benchverdict.report.relations import GroupKey
from benchverdict.results import NoIncumbentsError, Results
from benchverdict.scales import scale_check, standardise_per_benchmark
from benchverdict.tuning.collection import vote_budgets
from benchverdict.tuning.quantile_test import curve_difference


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
    pooled = standardise_per_benchmark(data) if standardize else data
    single = results.kind == "trials" and not results.has_budget
    return ComparedScores(data, pooled, bool(standardize), single)


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
    pooled_unit = f"SD of a benchmark's {unit}" if standardize else unit
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
                margin_value = margin.value * float(frame["score"].std(ddof=1))
            out = effects_from_frame(frame, algorithms=algorithms, estimand="benchmark",
                                     objective=data.objective, alpha=options.alpha,
                                     unit=unit, margin=margin, margin_value=margin_value)
            if scores.single_draws:
                out = _curve_effects(out, frame, budgets().get(str(bench)), options.alpha,
                                     data.objective)
        else:
            frame = pooled
            for name, value in meta:
                keep = set(benchmarks_at(data, name, value))
                frame = frame[frame["benchmark"].astype(str).isin(keep)]
            out = effects_from_frame(frame, algorithms=algorithms, estimand=estimand,
                                     objective=data.objective, alpha=options.alpha,
                                     unit=pooled_unit, standardized=standardize,
                                     margin=margin)
        cache[memo] = out
        return out

    return source


def _curve_effects(effects: PairwiseEffects, frame: pd.DataFrame, k: int | None, alpha: float,
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
    No t-based standard error, p-value or TOST belongs to this difference
    (NaN); the probability that a draw of ``a`` beats one of ``b`` stays.
    """
    if k is None or not effects.effects:
        return effects
    draws = {str(name): part["score"].to_numpy(dtype=float)
             for name, part in frame.groupby(frame["algorithm"].astype(str), observed=True)}
    out = []
    for e in effects.effects:
        point, low, high = curve_difference(draws[e.a], draws[e.b], k,
                                            confidence=effects.confidence, objective=objective)
        out.append(replace(e, difference=point, lower=low, upper=high, se=math.nan,
                           df=math.nan, p_value=math.nan, p_equivalence=math.nan))
    return replace(effects, effects=tuple(out), measure=f"median best-of-{k} difference",
                   unit=effects.unit.removesuffix(" of single draws"))


__all__ = ["ComparedScores", "compared_scores", "scope_effects"]
