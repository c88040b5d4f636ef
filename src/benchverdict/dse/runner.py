"""The DSE family's run: score distributions, dominance and CVaR (Jordan et al. 2018).

:func:`run_dse` (``run(results, options) -> AnalysisRun``, registered as the
``"dse"`` family in :mod:`benchverdict.families`) compares the distribution
of single random-search draws per benchmark and pooled over benchmarks
(min-max normalised): dominance by two one-sided KS tests, and the CVaR
difference at each level of ``options.cvar_levels`` by a label-permutation
test with studentized bootstrap intervals. When the draws of one run share
it, every test permutes whole runs and every bootstrap resamples whole runs.
DSE describes single draws, so its verdicts do not vote on the final
ranking; with a trial order they sit at ``k = 1`` trial.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from benchverdict.analysis import (
    AnalysisRun,
    Options,
    add_figure,
    draws_reading,
    draws_reason,
)
from benchverdict.dse.distribution import distribution, verdicts_by_pair
from benchverdict.results import Results
from benchverdict.verdict import Verdict

#: Bootstrap replicates for the DSE's CVaR intervals (studentized intervals).
DSE_BOOTSTRAP_REPS = 1000
#: The most permutations of the DSE's CVaR, dominance (on runs) and single-draw tests.
#: p-values resolve down to 0.002, ten times finer than the per-comparison alpha of 0.05
#: their decisions use (DSE does not vote, so no family-wise threshold applies); the
#: p-value (1 + #) / (1 + B) keeps every test exact at any B.
DSE_PERMUTATIONS = 499


def run_dse(results: Results, options: Options) -> AnalysisRun:
    """Score distributions: dominance and CVaR differences per benchmark (and pooled).

    DSE describes the distribution of a single random-search draw, so when
    the data have a trial order its verdicts are placed at ``k = 1`` trial
    (where the tuning curve also describes one draw), whatever the budget
    column's unit. One ``dse.cvar`` verdict per pair, scope and CVaR level
    in ``options.cvar_levels`` (the level is its ``parameter``). Each comparison
    (per benchmark or pooled, per level) and each figure is its own
    sub-step.
    """
    run = AnalysisRun("dse", "ok")
    one_draw = results.has_budget
    reading, _ = draws_reading(results, options)
    run.reason = draws_reason(reading, results)

    def place(v: Verdict) -> Verdict:
        if not one_draw:
            return v
        return dataclasses.replace(v, scope=dataclasses.replace(v.scope, trials_low=1.0,
                                                                trials_high=1.0))

    configs: list[tuple[str, dict[str, Any]]] = [("per benchmark", {})]
    if len(results.benchmarks) > 1:
        configs.append(("pooled over benchmarks (min-max normalised)",
                        {"pooled": True, "normalize": "minmax"}))
    for label, kwargs in configs:
        # Pooled over benchmarks, Jordan et al.'s level only (the pooled bootstrap is costly).
        levels = options.cvar_levels if not kwargs else options.cvar_levels[:1]
        steps = [f"distributions {label}, CVaR_{level:g}" for level in levels]
        # A level's failure is recorded where its step used to be (after the figure of the
        # level before), whether its distributions or its tests failed.
        made, failed = {}, {}
        for i, level in enumerate(levels):
            run.step(steps[i])
            try:
                made[i] = distribution(
                    results, cvar_level=level, confidence=options.confidence,
                    n_resamples=DSE_BOOTSTRAP_REPS, n_permutations=DSE_PERMUTATIONS,
                    draws=reading, **kwargs)
            except Exception as err:  # recorded below, in the level's place
                failed[i] = err
        # Each pair's tests at every level in turn: they share the pair's pooled runs.
        run.step(f"distributions {label}: the tests of each pair")
        found_by_level = dict(zip(made, verdicts_by_pair(
            list(made.values()), alpha=options.alpha,
            kinds=[("dominance", "cvar") if i == 0 else ("cvar",) for i in made]),
            strict=True))
        for i, level in enumerate(levels):
            found = failed[i] if i in failed else found_by_level[i]
            if isinstance(found, Exception):
                run.fail(steps[i], found)  # as a failed sub-step: the rest is kept
                continue
            res = made[i]
            if res.sample_rate < 1 and i == 0:
                sub = res.subsampled
                run.notes.append(
                    f"More draws than DSE's resampling can hold (dse.MAX_DRAWS, "
                    f"MAX_CELL_DRAWS): the score distributions {label} describe a "
                    f"uniform random sample ({int(sub['n_used'].sum()):,} of "
                    f"{int(sub['n_available'].sum()):,} draws; each kept with probability "
                    f"{res.sample_rate:.3g}, independent of the scores), so their tests and "
                    f"intervals hold at the sample's size.")
                run.exclude(f"score distributions {label}", "draw", [
                    {"algorithm": r.algorithm, "benchmark": r.benchmark,
                     "reason": f"{r.n_available - r.n_used:,} of {r.n_available:,} draws not "
                               f"in the uniform random sample"}
                    for r in sub.itertuples(index=False) if r.n_available > r.n_used])
            verdicts = []
            for v in found:
                if v.method == "dse.cvar":
                    verdicts.append(place(v))
                elif i == 0:  # dominance does not depend on the CVaR level
                    verdicts.append(place(v))
            run.verdicts += verdicts
            run.tables[f"distributions {label}, CVaR_{level:g}"] = res.table
            if i == 0:
                add_figure(
                    run, options, "dse-cdf" + ("-pooled" if kwargs else ""),
                    f"Performance distributions, {label}",
                    lambda res=res: res.plot(kind="cdf"),
                    f"Empirical CDFs with simultaneous {options.confidence:g} bands "
                    f"({res.band}); a curve to the "
                    f"{'right' if res.objective == 'maximize' else 'left'} is better.",
                    n_algorithms=len(results.algorithms))
    run.notes.append(
        f"CVaR levels {', '.join(f'{a:g}' for a in options.cvar_levels)} (CVaR_a is the mean "
        f"of the best {', '.join(f'{1 - a:.0%}' for a in options.cvar_levels)} of draws), "
        f"decided by a label-permutation test at alpha = {options.alpha:g}, with "
        f"{options.confidence:g} studentized bootstrap intervals; dominance: two one-sided KS "
        f"tests at alpha/2 each"
        + ("; draws of one run share it, so every test permutes whole runs and every "
           "bootstrap resamples whole runs" if reading == "clustered" else "")
        + ". Score distributions describe single draws: they do not vote on the ranking at "
          "the final budget; the single-draw line names only pairs whose test of 'single "
          "draws win equally often' survives Holm's adjustment over the row."
        + (" DSE verdicts describe single draws, so they sit at k = 1 trial." if one_draw else ""))
    return run
