"""The rank tests' run in the report: Friedman, win/tie/loss, anytime ranks, Autorank.

:func:`run_ranks` (``run(results, options) -> AnalysisRun``, registered as
the ``"ranks"`` family in :mod:`benchverdict.families`) runs the package's
public functions on one block matrix of the runs' incumbents (one block per
benchmark, seeds averaged) and returns their verdicts, tables and figures.
Everything a test leaves out (runs without an incumbent at the budget,
incomplete blocks, benchmarks missing at a budget of the anytime ranks) is
recorded as exclusions; each test and figure is its own sub-step
(:meth:`~benchverdict.analysis.AnalysisRun.attempt`).
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from benchverdict.analysis import (
    AnalysisRun,
    Options,
    add_figure,
    attempt_levels,
    benchmarks_at,
    budget_scope,
    note_exclusions,
    runs_without_incumbent,
    with_verdicts,
)
from benchverdict.plotting import DOUBLE_COLUMN, new_axes
from benchverdict.ranks.anytime import anytime_ranks
from benchverdict.ranks.autorank_path import autorank
from benchverdict.ranks.friedman import friedman
from benchverdict.ranks.win_tie_loss import win_tie_loss
from benchverdict.replicates import pair_replicates
from benchverdict.results import BlockMatrix, Results
from benchverdict.verdict import Scope, Verdict

#: Budgets and seed resamples of the anytime-ranks figure (it is a figure, not a test).
ANYTIME_BUDGETS = 12
ANYTIME_BOOTSTRAP = 100


def block_exclusions(blocks: BlockMatrix) -> tuple[str, pd.DataFrame]:
    """What a block matrix left out, as exclusion records, and what kind of thing it is.

    ``BlockMatrix.exclusions`` (the one exclusion column set, a block named
    by its ``benchmark`` and, with ``unit="benchmark_seed"``, its ``seed``)
    lists missing cells whose whole block was dropped (``seed`` empty) and,
    when seeds are dropped to keep a block's cells complete, one record per
    seed.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> what, frame = block_exclusions(_example_small().blocks())
    >>> what, len(frame)
    ('benchmark', 0)
    """
    ex = blocks.exclusions.reset_index(drop=True)
    columns = ["algorithm", "benchmark", "seed", "reason"]
    if not len(ex):
        return "benchmark", pd.DataFrame(columns=columns)
    per_seed = bool(ex["seed"].notna().any())
    out = ex[columns].copy()
    if not per_seed and blocks.unit == "benchmark":
        out["reason"] = [
            f"{alg} has no result here ({why}): the whole benchmark is left out of the rank "
            f"tests" for alg, why in zip(out["algorithm"], out["reason"])]
    return ("seed" if per_seed else "benchmark"), out


def run_ranks(results: Results, options: Options) -> AnalysisRun:
    """Friedman (Nemenyi, Wilcoxon–Holm), win/tie/loss, anytime ranks and Autorank.

    Every test and figure is its own sub-step (:meth:`AnalysisRun.attempt`):
    one that fails is recorded and the others are kept. Everything left out
    (runs without an incumbent at the budget, incomplete blocks, benchmarks
    missing at a budget of the anytime ranks) is recorded as exclusions.
    """
    run = AnalysisRun("ranks", "ok")
    if len(results.benchmarks) < 2:
        return AnalysisRun(
            "ranks", "not applicable",
            reason=f"rank tests over benchmarks need at least 2 benchmarks, got "
                   f"{len(results.benchmarks)}")
    run.step("incumbents and rank blocks")
    late = runs_without_incumbent(results, options.budget)
    n_late = run.exclude(f"incumbents at budget {options.budget:g}"
                         if options.budget is not None else "incumbents", "run", late)
    note_exclusions(run, n_late, "run(s) without an incumbent at the budget",
                     "of the rank tests")
    # One pass over the rows for the incumbents; every test below reuses the block matrix.
    blocks = results.blocks(unit="benchmark", aggregate="mean", budget=options.budget,
                            missing="drop")
    what, dropped = block_exclusions(blocks)
    if len(dropped):
        run.exclude("rank blocks", what, dropped)
        if what == "benchmark":
            names = sorted(map(str, dropped["benchmark"].unique()))
            run.warnings.append(
                f"{len(names)} benchmark(s) were left out of the rank tests because an "
                f"algorithm had no result there: {names[:8]}{' ...' if len(names) > 8 else ''}")
        else:
            examples = "; ".join(
                f"{r.algorithm} on benchmark {r.benchmark}, seed {r.seed}"
                for r in dropped.head(3).itertuples())
            more = " ..." if len(dropped) > 3 else ""
            run.warnings.append(
                f"{len(dropped)} seed run(s) were left out of the rank blocks to keep every "
                f"block's cells complete, e.g. {examples}{more} (all are listed in the "
                f"report's exclusions).")
    if blocks.matrix.shape[0] < 2:
        run.status = "not applicable"
        at = "the final budget" if options.budget is None else f"budget {options.budget:g}"
        n_runs = len(results.table.groupby(["algorithm", "benchmark", "seed"], observed=True))
        run.reason = (
            f"no run has an observation at or below {at}, so there are no incumbents to rank"
            if len(late) == n_runs else
            f"only {blocks.matrix.shape[0]} complete block(s) remain at {at} (see the "
            f"exclusions); rank tests need at least 2")
        return run
    run.guide = RankUnitsGuide(results)
    # A pair's Wilcoxon test counts the benchmarks its algorithms' copied runs join once.
    copies = pair_replicates(results, options.replicate_by)
    n_algorithms = blocks.matrix.shape[1]
    n_pairs = n_algorithms * (n_algorithms - 1) // 2
    nemenyi_result = None
    for posthoc in ("nemenyi", "wilcoxon"):
        label = "Friedman + Nemenyi" if posthoc == "nemenyi" else "Friedman + Wilcoxon-Holm"
        got = run.attempt(label, with_verdicts, lambda posthoc=posthoc: friedman(
            blocks, alpha=options.alpha, posthoc=posthoc, copies=copies))
        if got is None:
            continue
        res, verdicts = got
        run.verdicts += verdicts
        if posthoc == "nemenyi":
            nemenyi_result = res
            run.notes.append(
                f"Friedman Q = {res.statistic:.4g} (df {res.df}), p = {res.p_value:.3g}; "
                f"Kendall's W = {res.kendall_w:.3g}; replication unit: {res.unit}."
            )
            run.notes += [str(n) for n in res.notes]
            run.tables["average ranks and pairwise tests (Nemenyi)"] = res.table
            add_figure(
                run, options, "ranks-cd-nemenyi", "Critical-difference diagram (Nemenyi)", res.plot,
                f"Average ranks over {_blocks_text(res)} (1 = best); algorithms joined by a "
                f"bar are not significantly different at alpha = {options.alpha:g}.",
                n_algorithms=n_algorithms)
        else:
            run.tables["pairwise Wilcoxon signed-rank tests (Holm)"] = res.pairwise
    for name, levels in attempt_levels(run, results):
        for level in levels:
            run.attempt(f"rank tests at {name} = {level}", _ranks_at_level, run,
                        results, blocks, options, name, level)
    got = run.attempt("win/tie/loss", with_verdicts, lambda: win_tie_loss(
        results, budget=options.budget, alpha=options.alpha, copies=copies))
    if got is not None:
        wtl, verdicts = got
        run.verdicts += verdicts
        run.tables["win/tie/loss per pair (sign test across benchmarks)"] = wtl.table
        add_figure(
            run, options, "ranks-win-tie-loss", "Wins, ties and losses over benchmarks", wtl.plot,
            f"Per benchmark a two-sided {wtl.test} test over seeds decides win, tie or "
            f"loss; the p-value is the sign test across benchmarks.", n_pairs=n_pairs)
    if results.has_budget:
        anytime = run.attempt("anytime ranks", anytime_ranks, results,
                              max_budgets=ANYTIME_BUDGETS, n_resamples=ANYTIME_BOOTSTRAP)
        if anytime is not None:
            left_out = anytime.exclusions
            if len(left_out):
                n = run.exclude("anytime ranks", "benchmark at a budget", left_out)
                note_exclusions(run, n, "benchmark x budget cell(s)",
                                "of the anytime ranks (no incumbent there)")
            run.tables["anytime average ranks"] = anytime.table
            add_figure(
                run, options, "ranks-anytime", "Average rank against budget",
                lambda: anytime.plot(ax=new_axes(
                    width=DOUBLE_COLUMN, height=max(3.5, 0.25 * n_algorithms + 1.0))),
                f"Average rank (1 = best) at {ANYTIME_BUDGETS} or fewer budgets; bands: "
                f"bootstrap over seeds ({anytime.unit}).", n_algorithms=n_algorithms)
    got = run.attempt("Autorank", with_verdicts,
                      lambda: autorank(blocks, alpha=options.alpha))
    if got is not None:
        ar, verdicts = got
        run.verdicts += verdicts
        # One note per line: the document lists notes as items (a joined string showed
        # its line feeds as escapes in the HTML and ran together in Markdown).
        run.notes += [line for line in ar.summary().splitlines() if line.strip()]
        run.tables["Autorank's ranking"] = ar.table
        if nemenyi_result is not None and ar.same_diagram_as(nemenyi_result):
            # Autorank took the Friedman + Nemenyi path on the same blocks: its diagram
            # is the Nemenyi CD diagram above, so the report shows that picture once.
            run.notes.append("Autorank's critical-difference diagram is the Friedman + "
                             "Nemenyi diagram above (same ranks and critical difference); "
                             "it is shown once.")
            return run
        add_figure(
            run, options, "ranks-autorank", f"Autorank ({ar.omnibus}"
            + (f" + {ar.posthoc}" if ar.posthoc else "") + ")", ar.plot,
            "Autorank's own decision path: " + "; ".join(ar.reasons),
            n_algorithms=n_algorithms)
    return run


def _ranks_at_level(run: AnalysisRun, results: Results, blocks: BlockMatrix,
                    options: Options, name: str, level: str) -> None:
    rows = [b for b in benchmarks_at(results, name, level) if b in blocks.matrix.index]
    if len(rows) < 2:
        run.notes.append(f"{name} = {level}: fewer than 2 complete blocks; not ranked.")
        return
    sub = dataclasses.replace(blocks, matrix=blocks.matrix.loc[rows])
    scope = dataclasses.replace(budget_scope(options.budget), metafeature=((name, level),))
    verdicts = []
    for posthoc in ("nemenyi", "wilcoxon"):
        res = friedman(sub, alpha=options.alpha, posthoc=posthoc, n_resamples=200,
                       copies=pair_replicates(results, options.replicate_by))
        verdicts += _with_scope(res.verdicts(), scope)
    run.verdicts += verdicts
    run.notes.append(
        f"{name} = {level}: Friedman on the {_blocks_text(res, 'benchmarks')} at this level, "
        f"p = {res.p_value:.3g}.")


def _with_scope(verdicts: list[Verdict], scope: Scope) -> list[Verdict]:
    return [dataclasses.replace(v, scope=scope) for v in verdicts]


class RankUnitsGuide:
    """Why more benchmarks, not more seeds, would settle a pair across benchmarks.

    Rank tests take each benchmark as one block, so their power grows with
    the number of benchmarks only. Called as ``guide(a, b, (benchmark,
    metafeature_levels))``; advice only for scopes across benchmarks.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> RankUnitsGuide(_example_small())("a", "b", (None, ()))[:40]
    'the rank tests had 2 benchmark(s) as ind'
    """

    #: The advice is about claims across benchmarks.
    scope = "across benchmarks"

    def __init__(self, results: Results):
        self.results = results
        self._units: dict[tuple, str] = {}

    def __call__(self, a: str, b: str, key: tuple) -> str | None:
        """The rank tests' units for ``a`` vs ``b`` across benchmarks (``None`` per benchmark)."""
        bench, meta = key
        if bench is not None:
            return None
        if meta not in self._units:
            n_units = len(self.results.benchmarks)
            for name, level in meta:
                if name in self.results.metafeatures:
                    n_units = min(n_units, len(benchmarks_at(self.results, name, level)))
            scope = "".join(f" with {name} = {level}" for name, level in meta)
            self._units[meta] = (
                f"the rank tests had {n_units} benchmark(s){scope} as independent units; more "
                f"benchmarks (not more seeds per benchmark) would add power to them.")
        return self._units[meta]


def _blocks_text(res, what: str = "blocks") -> str:
    """``"24 blocks"``, or ``"12 independent replicates of 24 blocks"`` where copies join them."""
    if res.n_units < res.n_blocks:
        return f"{res.n_units} independent replicates of {res.n_blocks} {what}"
    return f"{res.n_blocks} {what}"
