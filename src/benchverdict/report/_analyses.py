"""How the report runs each analysis module through its public API.

One runner per module: ``runner(results, options) -> AnalysisRun``. The
modules are imported plainly and called through their public API, so a
renamed function fails loudly (never a silently dropped section); anything a
module raises is caught by :func:`~benchverdict.report.runner.run_analysis`
and reported.
Within a runner every sub-step (a post-hoc test, a per-metafeature fit, a
figure, a sanity check) runs through :meth:`AnalysisRun.attempt`, so one
that fails is recorded in the report's sanity section with its name and
message and the rest of the analysis is kept; whatever a step leaves out is
recorded with :meth:`AnalysisRun.exclude`.
The runners choose the view of the data each method is meant for and say
which one in the run's ``reason`` and ``notes``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from benchverdict import dse, lmem, ranks, tuning
from benchverdict.lmem.estimand import FIXED_BENCHMARKS_FORMULA, default_formula
from benchverdict.lmem.formula import parse_formula
from benchverdict.lmem.model import DegenerateFitError
from benchverdict.lmem.per_benchmark import per_benchmark_verdicts
from benchverdict.lmem.sanity import SanityCheck, SanityReport
from benchverdict.plotting import DOUBLE_COLUMN, new_axes, theme
from benchverdict.report.records import AnalysisRun, Options, ReportFigure
from benchverdict.results import NO_INCUMBENT, BlockMatrix, NoIncumbentsError, Results
from benchverdict.scales import scale_check, standardise_per_benchmark
from benchverdict.verdict import Scope, Verdict

#: At most this many per-benchmark figures per analysis (the rest are in the tables).
MAX_FIGURES_PER_ANALYSIS = 8
#: Figures with one label per algorithm are drawn up to this many algorithms, and figures
#: with one row per pair up to this many pairs; beyond, they cannot be read (and take
#: minutes to draw), so the report says so and the tables carry the numbers.
MAX_FIGURE_ALGORITHMS = 60
MAX_FIGURE_PAIRS = 120
#: The tuning run's table of sample sizes and band reach (read again by the guidance).
GUIDANCE_TABLE = "sample size and the largest budget each band bounds"
#: Bootstrap replicates for the DSE's CVaR intervals (studentized intervals).
DSE_BOOTSTRAP_REPS = 1000
#: The most permutations of the DSE's CVaR, dominance (on runs) and single-draw tests.
#: p-values resolve down to 0.002, ten times finer than the per-comparison alpha of 0.05
#: their decisions use (DSE does not vote, so no family-wise threshold applies); the
#: p-value (1 + #) / (1 + B) keeps every test exact at any B.
DSE_PERMUTATIONS = 499
#: Budgets and seed resamples of the anytime-ranks figure (it is a figure, not a test).
ANYTIME_BUDGETS = 12
ANYTIME_BOOTSTRAP = 100


def _figure(name: str, title: str, obj: Any, caption: str = "") -> ReportFigure:
    """Wrap the Axes/Figure a ``.plot()`` returned; close it in pyplot (it stays renderable)."""
    fig = obj if isinstance(obj, plt.Figure) else obj.figure
    plt.close(fig)
    return ReportFigure(name, title, fig, caption)


#: Metafeatures with at most this many levels get their own scope (e.g. prior quality).
MAX_METAFEATURE_LEVELS = 6
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def level_metafeatures(results: Results) -> dict[str, list[str]]:
    """Metafeatures that split the benchmarks into a few groups, with their levels.

    A metafeature qualifies when it is constant within every benchmark, has
    2 to ``MAX_METAFEATURE_LEVELS`` levels, and every level holds at least 2
    benchmarks (e.g. PriorBand's prior quality). Each level becomes a scope
    of its own in the rank and LMEM analyses.
    """
    out: dict[str, list[str]] = {}
    if not results.metafeatures:
        return out
    desc = results.describe().metafeatures
    for name in results.metafeatures:
        if not bool(desc.loc[name, "constant_within_benchmark"]):
            continue
        per_bench = results.first_per_benchmark(name).dropna()
        counts = per_bench.astype(str).value_counts()
        if 2 <= len(counts) <= MAX_METAFEATURE_LEVELS and (counts >= 2).all():
            out[name] = sorted(counts.index)
    return out


def _benchmarks_at(results: Results, name: str, level: str) -> list[str]:
    per_bench = results.first_per_benchmark(name).astype(str)
    return sorted(per_bench.index[per_bench == level].astype(str))


def _with_scope(verdicts: list[Verdict], scope: Scope) -> list[Verdict]:
    return [dataclasses.replace(v, scope=scope) for v in verdicts]


def _budget_scope(budget: float | None) -> Scope:
    """The scope of a verdict at ``budget`` (in the budget column's unit; ``None``: final)."""
    return Scope() if budget is None else Scope(budget_low=budget, budget_high=budget)


# ----------------------------------------------------------------------------- helpers
def _add_figure(run: AnalysisRun, options: Options, name: str, title: str,
                make: Callable[[], Any], caption: str = "", *, n_algorithms: int = 0,
                n_pairs: int = 0) -> None:
    """Draw a figure as its own sub-step: a figure that fails costs only itself.

    A figure with more than :data:`MAX_FIGURE_ALGORITHMS` algorithms (or
    :data:`MAX_FIGURE_PAIRS` pair rows) is not drawn; a note says so. With
    ``compare(..., figures=False)`` (``options.figures``) no figure is drawn.
    """
    if not options.figures:
        return
    if n_algorithms > MAX_FIGURE_ALGORITHMS or n_pairs > MAX_FIGURE_PAIRS:
        what = (f"{n_algorithms:,} algorithms" if n_algorithms > MAX_FIGURE_ALGORITHMS
                else f"{n_pairs:,} pairs")
        run.notes.append(f"Figure '{title}' is not drawn: with {what} it could not be read; "
                         f"the tables have every value.")
        return
    figure = run.attempt(f"figure '{title}'", lambda: _figure(name, title, make(), caption))
    if figure is not None:
        run.figures.append(figure)


def _with_verdicts(make: Callable[[], Any]) -> tuple[Any, list[Verdict]]:
    """A module result and its verdicts, made in one sub-step (either may raise)."""
    result = make()
    return result, list(result.verdicts())


def _note_exclusions(run: AnalysisRun, n: int, what: str, where: str) -> None:
    if n:
        run.notes.append(f"{n:,} {what} left out {where} (listed in the report's exclusions).")


def _runs_without_incumbent(results: Results, budget: float | None) -> pd.DataFrame:
    """Runs with no observation at or below ``budget`` (none for the final budget)."""
    if budget is None:
        return pd.DataFrame(columns=["algorithm", "benchmark", "seed", "budget", "reason"])
    late = results.runs_without_incumbent(budget)
    frame = late[["algorithm", "benchmark", "seed"]].copy()
    frame["budget"] = budget
    frame["reason"] = [f"{NO_INCUMBENT} {budget:g} (the run starts at {first:g})"
                       for first in late["first_budget"]]
    return frame


def _view_left_out(view: Results) -> pd.DataFrame:
    """The runs a view of the incumbents left out, as the report's exclusion records."""
    ex = view.exclusions
    runs = ex[ex["unit"] == "run"]
    return pd.DataFrame({"algorithm": runs["algorithm"], "benchmark": runs["benchmark"],
                         "seed": runs["seed"], "reason": runs["reasons"]})


def block_exclusions(blocks: BlockMatrix) -> tuple[str, pd.DataFrame]:
    """What a block matrix left out, as exclusion records, and what kind of thing it is.

    ``BlockMatrix.exclusions`` (``block, algorithm, seed, reason``) lists
    missing cells whose whole block was dropped (``seed`` empty) and, when
    seeds are dropped to keep a block's cells complete, one record per seed.
    With ``unit="benchmark_seed"`` a block is a ``(benchmark, seed)`` pair.

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
    pairs = [block if isinstance(block, tuple) else (block, seed)
             for block, seed in zip(ex["block"], ex["seed"])]
    out = pd.DataFrame({
        "algorithm": ex["algorithm"],
        "benchmark": [b for b, _ in pairs],
        "seed": [s for _, s in pairs],
        "reason": ex["reason"],
    }, columns=columns)
    if not per_seed and blocks.unit == "benchmark":
        out["reason"] = [
            f"{alg} has no result here ({why}): the whole benchmark is left out of the rank "
            f"tests" for alg, why in zip(out["algorithm"], out["reason"])]
    return ("seed" if per_seed else "benchmark"), out


# ----------------------------------------------------------------------------- ranks
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
    late = _runs_without_incumbent(results, options.budget)
    n_late = run.exclude(f"incumbents at budget {options.budget:g}"
                         if options.budget is not None else "incumbents", "run", late)
    _note_exclusions(run, n_late, "run(s) without an incumbent at the budget",
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
    n_algorithms = blocks.matrix.shape[1]
    n_pairs = n_algorithms * (n_algorithms - 1) // 2
    nemenyi_result = None
    for posthoc in ("nemenyi", "wilcoxon"):
        label = "Friedman + Nemenyi" if posthoc == "nemenyi" else "Friedman + Wilcoxon-Holm"
        got = run.attempt(label, _with_verdicts, lambda posthoc=posthoc: ranks.friedman(
            blocks, alpha=options.alpha, posthoc=posthoc))
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
            _add_figure(
                run, options, "ranks-cd-nemenyi", "Critical-difference diagram (Nemenyi)", res.plot,
                f"Average ranks over {res.n_blocks} blocks (1 = best); algorithms joined by a "
                f"bar are not significantly different at alpha = {options.alpha:g}.",
                n_algorithms=n_algorithms)
        else:
            run.tables["pairwise Wilcoxon signed-rank tests (Holm)"] = res.pairwise
    for name, levels in _attempt_levels(run, results):
        for level in levels:
            run.attempt(f"rank tests at {name} = {level}", _ranks_at_level, run,
                        results, blocks, options, name, level)
    got = run.attempt("win/tie/loss", _with_verdicts, lambda: ranks.win_tie_loss(
        results, budget=options.budget, alpha=options.alpha))
    if got is not None:
        wtl, verdicts = got
        run.verdicts += verdicts
        run.tables["win/tie/loss per pair (sign test across benchmarks)"] = wtl.table
        _add_figure(
            run, options, "ranks-win-tie-loss", "Wins, ties and losses over benchmarks", wtl.plot,
            f"Per benchmark a two-sided {wtl.test} test over seeds decides win, tie or "
            f"loss; the p-value is the sign test across benchmarks.", n_pairs=n_pairs)
    if results.has_budget:
        anytime = run.attempt("anytime ranks", ranks.anytime_ranks, results,
                              max_budgets=ANYTIME_BUDGETS, n_resamples=ANYTIME_BOOTSTRAP)
        if anytime is not None:
            left_out = anytime.exclusions
            if len(left_out):
                n = run.exclude("anytime ranks", "benchmark at a budget", left_out)
                _note_exclusions(run, n, "benchmark x budget cell(s)",
                                 "of the anytime ranks (no incumbent there)")
            run.tables["anytime average ranks"] = anytime.table
            _add_figure(
                run, options, "ranks-anytime", "Average rank against budget",
                lambda: anytime.plot(ax=new_axes(
                    width=DOUBLE_COLUMN, height=max(3.5, 0.25 * n_algorithms + 1.0))),
                f"Average rank (1 = best) at {ANYTIME_BUDGETS} or fewer budgets; bands: "
                f"bootstrap over seeds ({anytime.unit}).", n_algorithms=n_algorithms)
    got = run.attempt("Autorank", _with_verdicts,
                      lambda: ranks.autorank(blocks, alpha=options.alpha))
    if got is not None:
        ar, verdicts = got
        run.verdicts += verdicts
        run.notes.append(ar.summary())
        run.tables["Autorank's ranking"] = ar.table
        if nemenyi_result is not None and ar.same_diagram_as(nemenyi_result):
            # Autorank took the Friedman + Nemenyi path on the same blocks: its diagram
            # is the Nemenyi CD diagram above, so the report shows that picture once.
            run.notes.append("Autorank's critical-difference diagram is the Friedman + "
                             "Nemenyi diagram above (same ranks and critical difference); "
                             "it is shown once.")
            return run
        _add_figure(
            run, options, "ranks-autorank", f"Autorank ({ar.omnibus}"
            + (f" + {ar.posthoc}" if ar.posthoc else "") + ")", ar.plot,
            "Autorank's own decision path: " + "; ".join(ar.reasons),
            n_algorithms=n_algorithms)
    return run


def _attempt_levels(run: AnalysisRun, results: Results) -> list[tuple[str, list[str]]]:
    levels = run.attempt("metafeature levels", level_metafeatures, results)
    return list((levels or {}).items())


def _ranks_at_level(run: AnalysisRun, results: Results, blocks: BlockMatrix,
                    options: Options, name: str, level: str) -> None:
    rows = [b for b in _benchmarks_at(results, name, level) if b in blocks.matrix.index]
    if len(rows) < 2:
        run.notes.append(f"{name} = {level}: fewer than 2 complete blocks; not ranked.")
        return
    sub = dataclasses.replace(blocks, matrix=blocks.matrix.loc[rows])
    scope = dataclasses.replace(_budget_scope(options.budget), metafeature=((name, level),))
    verdicts = []
    for posthoc in ("nemenyi", "wilcoxon"):
        res = ranks.friedman(sub, alpha=options.alpha, posthoc=posthoc, n_resamples=200)
        verdicts += _with_scope(res.verdicts(), scope)
    run.verdicts += verdicts
    run.notes.append(
        f"{name} = {level}: Friedman on the {res.n_blocks} benchmarks at this level, "
        f"p = {res.p_value:.3g}.")


# ----------------------------------------------------------------------------- lmem
def lmem_formula(options: Options, data: Results) -> str:
    """The LMEM formula the report fits: the user's, else the estimand's default.

    With ``estimand="benchmarks"`` the algorithm contrast is judged against
    the algorithm x benchmark variation (:mod:`benchverdict.lmem.estimand`),
    so a settled relation holds for benchmarks like these; with ``"these"``
    it is Geburek et al.'s ``score ~ algorithm + (1|benchmark)``, valid for
    exactly the observed benchmarks.
    """
    if options.formula:
        return options.formula
    cells = data.table.groupby(["algorithm", "benchmark"], observed=True).size()
    return default_formula(options.estimand, n_benchmarks=len(data.benchmarks),
                           n_seeds_per_cell=float(cells.mean()) if len(cells) else 0.0)


def formula_estimand(formula: str) -> str:
    """What population a formula's algorithm contrast speaks about ("benchmarks"/"these").

    The contrast generalises over benchmarks when a random term varies the
    algorithm effect by benchmark (``(1|benchmark:algorithm)``, ``(1|
    algorithm:benchmark)`` or ``(0 + algorithm|benchmark)``); otherwise the
    benchmarks are held fixed.

    Examples
    --------
    >>> formula_estimand("score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm)")
    'benchmarks'
    >>> formula_estimand("score ~ algorithm + (1|benchmark)")
    'these'
    """
    parsed = parse_formula(formula)
    for term in parsed.random:
        group = set(term.group)
        if {"benchmark", "algorithm"} <= group:
            return "benchmarks"
        if "benchmark" in group and "algorithm" in term.expr.variables:
            return "benchmarks"
    return "these"


def _cell_means(data: Results) -> Results:
    """One row per algorithm x benchmark: the mean score of its runs (seed 0)."""
    cells = (data.table.groupby(["algorithm", "benchmark"], observed=True)["score"].mean()
             .reset_index().assign(seed=0))
    for role in ("algorithm", "benchmark"):
        cells[role] = cells[role].astype(str)
    return Results.from_frame(cells, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", score="score", objective=data.objective,
                              kind="runs")


def run_lmem(results: Results, options: Options) -> AnalysisRun:
    """A mixed model on the runs' incumbents, Tukey-adjusted pairs, and the sanity checks.

    Across benchmarks the model is the estimand's (:func:`lmem_formula`),
    with Satterthwaite degrees of freedom: with an algorithm x benchmark term
    the contrast's precision rests on the number of benchmarks, not rows.
    Per benchmark, one linear model per benchmark with the runs as the
    replicates (:mod:`benchverdict.lmem.per_benchmark`). The main fit is the
    analysis (if it raises, the analysis is an error). Everything after it
    -- the per-benchmark contrasts, the per-metafeature fits, tables, the CD
    diagram and each sanity check -- is its own sub-step: one that fails is
    recorded in the sanity section and the rest is kept.
    """
    run = AnalysisRun("lmem", "ok")
    at = "the final budget" if options.budget is None else f"budget {options.budget:g}"
    try:
        data = results.final() if options.budget is None else results.at_budget(options.budget)
    except NoIncumbentsError as err:
        out = AnalysisRun("lmem", "not applicable", reason=str(err))
        out.exclude(f"incumbents at {at}", "run", _runs_without_incumbent(results,
                                                                          options.budget))
        return out
    formula = lmem_formula(options, data)
    run.reason = (
        f"on the incumbent of every run at {at} ({len(data):,} rows, one per algorithm x "
        f"benchmark x seed)"
    )
    late = _view_left_out(data)
    if options.budget is not None:
        late["budget"] = options.budget
    n_late = run.exclude(f"incumbents at {at}", "run", late)
    _note_exclusions(run, n_late, "run(s) without an incumbent at the budget", "of the model")
    if n_late:
        run.reason += f"; {n_late:,} run(s) without an incumbent there are left out"
    if len(data.benchmarks) < 2 and "benchmark" in formula:
        out = AnalysisRun(
            "lmem", "not applicable",
            reason=f"the formula {formula!r} needs at least 2 benchmarks for a random effect")
        out.exclusions = run.exclusions
        return out
    one_per_cell = bool(data.table.groupby(["algorithm", "benchmark"], observed=True)
                        .size().max() <= 1)
    estimand = ("these" if len(data.benchmarks) < 2 else
                # One row per cell: the residual of score ~ algorithm + (1|benchmark) is
                # the algorithm x benchmark variation, so that model generalises too.
                "benchmarks" if one_per_cell and options.formula is None else
                formula_estimand(formula))
    scales = run.attempt("score scales across benchmarks", scale_check, data)
    modelled = data
    standardised = bool(scales is not None and scales.heterogeneous
                        and len(data.benchmarks) > 1)
    if standardised:
        # Pooled on the raw scale, the widest benchmarks would dominate the contrast and
        # the variance components; per-benchmark z-scores make the benchmarks comparable.
        modelled = standardise_per_benchmark(data)
        run.notes.append(
            f"Scores are on different scales across benchmarks ({scales.reason}): the "
            f"LMEM across benchmarks fits per-benchmark standardised scores (each "
            f"benchmark's scores minus their mean, divided by their standard deviation), so "
            f"its differences are in standard deviations of a benchmark's scores. Rank "
            f"tests and the per-benchmark contrasts use the raw scores.")
        run.warnings.append(f"scores on different scales across benchmarks "
                            f"({scales.reason}); the LMEM across benchmarks standardises "
                            f"them per benchmark.")
    # With an algorithm x benchmark term the contrast has about (a-1)(b-1) df whatever
    # the number of rows: asymptotic z would be anti-conservative with few benchmarks.
    df = "satterthwaite" if estimand == "benchmarks" else "auto"
    run.step(f"fitting {formula}")
    # REML for the generalising model: ML underestimates the interaction variance by
    # about (b - 1) / b and inflates its Satterthwaite df (lmem.estimand explains).
    reml = estimand == "benchmarks"
    try:
        model = lmem.fit(modelled, formula, reml=reml)
    except DegenerateFitError:
        if options.formula is not None or estimand != "benchmarks" or one_per_cell:
            raise
        # Seeds identical within every cell: the interaction term reproduces the scores.
        # On the cell means the residual of score ~ algorithm + (1|benchmark) is the
        # interaction, the same generalising contrast (lmem.estimand, "one row per cell").
        modelled = _cell_means(modelled)
        formula = FIXED_BENCHMARKS_FORMULA
        model = lmem.fit(modelled, formula, reml=reml)
        run.notes.append("Every run of a cell has the same score, so the LMEM across "
                         "benchmarks is fitted on the cell means (one row per algorithm x "
                         "benchmark; its residual is the interaction).")
    population = ("benchmarks like these (the algorithm contrast is judged against the "
                  "algorithm x benchmark variation, Satterthwaite df)"
                  if estimand == "benchmarks" else
                  f"these {len(data.benchmarks)} benchmarks only (seeds are the replicates "
                  f"of the algorithm effect)")
    run.notes.append(
        f"Model {formula} fitted by {'REML' if reml else 'maximum likelihood'} "
        f"({model.backend} backend) on "
        f"{model.nobs:,} rows; log-likelihood {model.loglik:.6g}"
        + ("; the fit is SINGULAR (a variance component is at zero)" if model.singular else "")
        + ("" if model.converged else "; the optimiser did NOT converge")
        + f". Its claims across benchmarks are about {population}."
    )
    if model.singular:
        run.warnings.append(f"singular fit of {formula}: a variance component is (near) zero.")
    if not model.converged:
        run.warnings.append(
            f"the optimiser did not report convergence for {formula}"
            + (f" ({model.message})" if model.message else "") + ".")
    scope = _budget_scope(options.budget)
    for v in model.verdicts(alpha=options.alpha, scope=scope, df=df):
        details = {**v.details, "singular": bool(model.singular), "estimand": estimand,
                   "n_benchmarks": len(data.benchmarks),
                   "standardised": standardised}
        if standardised and v.effect is not None:
            v = dataclasses.replace(v, effect=dataclasses.replace(
                v.effect, name=v.effect.name + " (standardised per benchmark: in standard "
                                               "deviations of a benchmark's scores)"))
        run.verdicts.append(dataclasses.replace(v, details=details))
    table = run.attempt("pairwise contrasts (Tukey)", model.pairwise, df=df)
    if table is not None:
        run.tables["pairwise contrasts (Tukey)"] = table
    # Per benchmark (also with one benchmark): the runs are the replicates.
    found = run.attempt("per-benchmark contrasts (runs as replicates)",
                        per_benchmark_verdicts, results, alpha=options.alpha,
                        budget=options.budget)
    if found is not None:
        run.verdicts += [dataclasses.replace(v, scope=dataclasses.replace(
            scope, benchmark=v.scope.benchmark)) for v in found]
        run.notes.append(
            "Per benchmark: score ~ algorithm on that benchmark's runs (its own residual "
            "variance; exact t with n - a df), Holm within the benchmark; a claim about "
            "one benchmark takes its runs as the replicates.")
    if options.formula is None:
        for name, levels in _attempt_levels(run, data):
            run.attempt(f"LMEM per level of {name}", _lmem_by_level, run, data, options,
                        scope, name, levels)
    table = run.attempt("estimated marginal means", model.emmeans, df=df)
    if table is not None:
        run.tables["estimated marginal means"] = table
    varcomp = run.attempt("variance components", lambda: model.varcomp)
    if varcomp is not None:
        run.tables["variance components"] = varcomp
    _add_figure(run, options, "lmem-cd", "LMEM critical-difference diagram",
                lambda: model.plot(alpha=options.alpha, df=df),
                "Algorithms at their estimated marginal means; a bar joins algorithms whose "
                "Tukey-adjusted difference is not significant.",
                n_algorithms=len(data.algorithms))
    if options.sanity_checks:
        _lmem_sanity(results, options, run, formula)
    else:
        run.notes.append("The LMEM sanity checks were skipped (sanity_checks=False).")
    return run


def _lmem_by_level(run: AnalysisRun, data: Results, options: Options,
                   scope: Scope, name: str, levels: list[str]) -> None:
    if not _IDENTIFIER.match(name) or name in ("algorithm", "benchmark", "score"):
        run.notes.append(f"metafeature {name!r} is not a plain identifier; its levels "
                         f"are not modelled.")
        return
    by_formula = f"score ~ algorithm * {name} + (1|benchmark)"
    by_model = lmem.fit(data, by_formula)
    verdicts = []
    for v in by_model.verdicts(alpha=options.alpha, by=name):
        level_scope = dataclasses.replace(scope, metafeature=v.scope.metafeature)
        details = {**v.details, "singular": bool(by_model.singular)}
        verdicts.append(dataclasses.replace(v, scope=level_scope, details=details))
    run.verdicts += verdicts
    run.notes.append(
        f"Per level of {name} ({', '.join(levels)}): {by_formula}, Tukey pairs within "
        f"each level.")


def _lmem_sanity(results: Results, options: Options, run: AnalysisRun, formula: str) -> None:
    """Run Geburek et al.'s sanity checks and add them to the sanity section.

    On random-search trials the checks see each seed's search as an HPO run
    (its incumbent after every trial), the view the LMEM compares. An
    algorithm the seed-dependency check flags is a caveat on every LMEM
    verdict about it when the formula has no seed term. A check that could
    not run (``SanityCheck.failed``, its error in ``details["error"]``) is
    listed as failed; the other checks and the main LMEM analysis are kept.
    """
    if results.kind == "runs":
        data = results
    elif results.has_budget:
        try:
            data = results.incumbent_trajectories()
        except MemoryError as err:  # an engine's rows beyond what the client holds
            # Seed and benchmark checks need only the final incumbents; the budget check
            # needs every search's trajectory, which does not fit.
            data = results.final()
            run.notes.append(f"The LMEM sanity checks ran on each search's final incumbent: "
                             f"its trajectory over budgets does not fit on the client "
                             f"({type(err).__name__}), so the budget check did not run.")
    else:
        data = results.final()
    budget = None if options.budget is None else float(options.budget)
    report = run.attempt("LMEM sanity checks", lmem.sanity_checks, data, alpha=options.alpha,
                         budget=budget, estimand=options.estimand)
    if report is None:
        return
    ran: list[SanityCheck] = []
    for check in report.checks:
        label = check.name.replace("_", " ")
        if check.failed:
            run.fail(f"LMEM sanity check: {label}", str(check.details["error"]))
            continue
        ran.append(check)
        flagged = ", ".join(map(str, check.flagged))
        run.sanity.append({
            "name": label,
            "status": "ok",
            "conclusion": f"{check.verdict}" + (f" (flagged: {flagged})" if flagged else "")
                          + f"; {check.data}",
        })
        run.tables[f"sanity check: {label}"] = check.table
    if ran:
        _add_figure(
            run, options, "lmem-sanity", "LMEM sanity checks (Geburek et al. 2024, §4.2)",
            lambda: _sanity_figure(report, ran),
            "Seed dependency and benchmark informativeness, each a likelihood-ratio test "
            "of nested mixed models; budget relevance, Wald F tests on each run's slope in "
            "the budget (the run is the replicate).",
            n_algorithms=max(len(results.algorithms), len(results.benchmarks)))
    seed_check = next((c for c in ran if c.name == "seed_dependency"), None)
    if seed_check is not None and seed_check.flagged and "seed" not in formula:
        affected = set(seed_check.flagged)
        caveat = (f"the seed-dependency check finds seed effects for "
                  f"{', '.join(sorted(affected))}, which {formula} does not model")
        run.verdicts = [
            dataclasses.replace(v, details={
                **v.details,
                "violated_assumptions": [*v.details.get("violated_assumptions", []), caveat]})
            if v.module == "lmem" and ({v.a, v.b} & affected) else v
            for v in run.verdicts
        ]
        run.warnings.append(caveat + ".")


def _sanity_figure(report: SanityReport, ran: list[SanityCheck]) -> Any:
    """The sanity report's figure; when some checks failed, one panel per check that ran."""
    if len(ran) == len(report.checks):
        return report.plot().figure
    with theme():
        fig, axes = plt.subplots(1, len(ran), figsize=(5 * len(ran), 3.4))
    for ax, check in zip(np.atleast_1d(axes), ran):
        check.plot(ax=ax)
    return fig


# ----------------------------------------------------------------------------- tuning
def run_tuning(results: Results, options: Options) -> AnalysisRun:
    """Median tuning curves with exact simultaneous LD bands, compared per benchmark.

    Per pair, benchmark and budget range: a decision where the bands at
    ``sqrt(1 - alpha)`` separate (error at most ``alpha`` per pair), else
    Lourie et al.'s lean (weak / fair / strong) from the display bands.
    At the final budget -- ``k`` = the trials a search has there -- the
    exact order-statistic test of the two curves, per benchmark and "on
    every benchmark", which is the family's vote. Cells that get no curve
    are recorded as exclusions.
    """
    run = AnalysisRun("tuning", "ok")
    run.step("tuning curves and bands")
    curves = tuning.from_results(results, kind="median", band="ld_highest_density",
                                 confidence=options.confidence, alpha=options.alpha)
    k = final_trials(results, options)
    k_final = None if k is None else int(k)
    reading, why = draws_reading(results, options)
    run.reason = _draws_reason(reading, results)
    run.step("tuning-curve decisions and tests")
    final_scope = _budget_scope(options.budget)
    # The tests sit at the final budget, where a search has k_final trials: their scopes
    # say both (the budget in the budget column's unit, k as a count); the module sets them.
    at_budget = final_scope.budget_low if k_final is not None else None
    for v in curves.verdicts(budget=k_final, at_budget=at_budget):
        if reading == "clustered":
            # The bands and the order-statistic test assume IID draws; draws that share
            # a run are not, so these verdicts describe and do not vote.
            v = dataclasses.replace(v, details={
                **v.details, "no_vote": why,
                "violated_assumptions": [*v.details.get("violated_assumptions", []),
                                         "IID draws (" + why + ")"]})
        run.verdicts.append(v)
    run.notes.append(
        "Draws: " + why + (
            ". Tuning curves are shown, but their bands and tests assume IID draws, so they "
            "do not vote; per benchmark, the runs' final incumbents decide (LMEM, runs as "
            "replicates). Pass draws='iid' (--draws iid) if every draw is independent of "
            "its run's other draws." if reading == "clustered" else "."))
    if k_final is not None and len(curves.sketched) < len(curves.benchmarks):
        run.notes.append(
            f"At the final budget every pair's curves are compared by the exact "
            f"order-statistic test at k = {k_final} trials (the most trials a search has "
            f"there); its p-value is the tuning curves' vote. Decisions over budget ranges "
            f"need the {np.sqrt(1 - options.alpha):.2%} bands to separate (error at most "
            f"alpha = {options.alpha:g} per pair); the {options.confidence:g} bands only lean.")
    if curves.sketched:
        bound = max(c.sketch.error_bound for _, c in curves if c.sketch is not None)
        largest = max(c.n for _, c in curves if c.sketch is not None)
        run.notes.append(
            f"{len(curves.sketched)} benchmark(s) have cells with more draws than the client "
            f"holds (up to {largest:,}): their curves come from exact-count ECDF sketches, "
            f"with DKW bands widened by each sketch's exact error bound (at most {bound:.2g} "
            f"in the CDF; stated in every verdict), and every curve on those benchmarks uses "
            f"the DKW band. Their pairs are decided by the bands only: the order-statistic "
            f"test needs the draws themselves.")
    reached = [c.cdf.grid_coverage for _, c in curves if c.cdf is not None]
    reached = [r for r in reached if r is not None]
    if reached:
        low, high = min(reached), max(reached)
        what = f"{low:.3f}" if high - low < 5e-4 else f"{low:.3f}-{high:.3f}"
        run.notes.append(
            f"The {options.confidence:g} bands are calibrated on the integer budgets they "
            f"are shown at (k = 1, 2, ...): each covers its whole curve at those budgets "
            f"with probability {what} for continuous scores (the first attainable value at "
            f"or above {options.confidence:g}; ties make it larger).")
    if len(curves.excluded):
        run.tables["cells without a curve"] = curves.excluded
        n = run.exclude("tuning curves", "cell", curves.excluded)
        run.warnings.append(f"{n} algorithm x benchmark cell(s) got no tuning curve (listed "
                            f"in the tables and the report's exclusions).")
    guidance = run.attempt("sample-size table", curves.guidance)
    if guidance is not None:
        run.tables[GUIDANCE_TABLE] = guidance
    table = run.attempt("tuning-curve table", lambda: curves.table)
    if table is not None:
        run.tables["median tuning curves (k, point, band)"] = table
    if guidance is not None and len(guidance):
        def span(values, fmt: str) -> str:
            lo, hi = float(values.min()), float(values.max())
            return format(lo, fmt) if lo == hi else f"{lo:{fmt}} to {hi:{fmt}}"

        bands = (f"{options.confidence:g} simultaneous LD highest-density bands"
                 if not curves.sketched else
                 f"{options.confidence:g} simultaneous bands (LD highest-density; DKW on the "
                 f"{len(curves.sketched)} benchmark(s) with sketched cells)")
        run.notes.append(
            f"Median tuning curves with {bands} (Lourie et al. 2024); with n = "
            f"{span(guidance['n'], ',.0f')} draws per curve the upper band is informative up "
            f"to k = {span(guidance['k_max'], '.1f')}.")
    for bench in curves.benchmarks[:MAX_FIGURES_PER_ANALYSIS]:
        _add_figure(
            run, options, f"tuning-{bench}", f"Median tuning curves on {bench}",
            lambda bench=bench: curves.plot(benchmark=bench),
            f"The median best score of k random-search draws, with simultaneous "
            f"{options.confidence:g} bands; budgets beyond a band's informative range show "
            f"a trivial upper bound.", n_algorithms=len(results.algorithms))
    if len(curves.benchmarks) > MAX_FIGURES_PER_ANALYSIS:
        run.notes.append(f"Figures show the first {MAX_FIGURES_PER_ANALYSIS} of "
                         f"{len(curves.benchmarks)} benchmarks; the table has them all.")
    return run


# ----------------------------------------------------------------------------- dse
def run_dse(results: Results, options: Options) -> AnalysisRun:
    """Score distributions: dominance and CVaR differences per benchmark (and pooled).

    DSE describes the distribution of a single random-search draw, so when
    the data have a trial order its verdicts are placed at ``k = 1`` trial
    (where the tuning curve also describes one draw), whatever the budget
    column's unit. One ``dse.cvar_<level>``
    method per CVaR level in ``options.cvar_levels``. Each comparison
    (per benchmark or pooled, per level) and each figure is its own
    sub-step.
    """
    run = AnalysisRun("dse", "ok")
    one_draw = results.has_budget
    reading, _ = draws_reading(results, options)
    run.reason = _draws_reason(reading, results)

    def place(v: Verdict, method: str | None = None) -> Verdict:
        scope = v.scope
        if one_draw:
            scope = dataclasses.replace(scope, trials_low=1.0, trials_high=1.0)
        return dataclasses.replace(v, scope=scope, method=method or v.method)

    configs: list[tuple[str, dict[str, Any]]] = [("per benchmark", {})]
    if len(results.benchmarks) > 1:
        configs.append(("pooled over benchmarks (min-max normalised)",
                        {"pooled": True, "normalize": "minmax"}))
    for label, kwargs in configs:
        # Pooled over benchmarks, Jordan et al.'s level only (the pooled bootstrap is costly).
        levels = options.cvar_levels if not kwargs else options.cvar_levels[:1]
        for i, level in enumerate(levels):
            got = run.attempt(
                f"distributions {label}, CVaR_{level:g}", _with_verdicts,
                lambda level=level, kwargs=kwargs, i=i: _DSEVerdicts(dse.distribution(
                    results, cvar_level=level, confidence=options.confidence,
                    n_resamples=DSE_BOOTSTRAP_REPS, n_permutations=DSE_PERMUTATIONS,
                    draws=reading, **kwargs),
                    options.alpha, ("dominance", "cvar") if i == 0 else ("cvar",)))
            if got is None:
                continue
            res, found = got
            res = res.result
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
                    verdicts.append(place(v, f"dse.cvar_{level:g}"))
                elif i == 0:  # dominance does not depend on the CVaR level
                    verdicts.append(place(v))
            run.verdicts += verdicts
            run.tables[f"distributions {label}, CVaR_{level:g}"] = res.table
            if i == 0:
                _add_figure(
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


@dataclasses.dataclass
class _DSEVerdicts:
    """A DSE result whose ``verdicts()`` uses the report's significance level."""

    result: Any
    alpha: float
    kinds: tuple[str, ...] = ("dominance", "cvar")

    def verdicts(self) -> list[Verdict]:
        return list(self.result.verdicts(alpha=self.alpha, kinds=self.kinds))


# ----------------------------------------------------------------------------- guidance
class _Guidance:
    """Sample-size guidance for an unsettled pair, from the analyses that ran.

    Called by :func:`~benchverdict.report.reconcile.reconcile` once per
    unsettled pair and scope. Never raises: a failure is kept in
    ``warnings`` (shown in the report) and that pair gets no guidance.
    """

    def __init__(self, results: Results, options: Options, tuning: Any, ranks_ran: bool,
                 dkw_benchmarks: frozenset[str] = frozenset()):
        self.results = results
        self.options = options
        # Benchmarks whose curves had DKW bands (sketched cells): their guidance uses DKW.
        self.dkw_benchmarks = dkw_benchmarks
        self.tuning = tuning
        self.ranks_ran = ranks_ran
        self.warnings: list[str] = []
        self.counts = results.cell_sizes()
        self.n_bench = len(results.benchmarks)
        self.trials = _trials_per_run(results, options.budget) if tuning is not None else None
        # Looked up once per pair and scope (10,000s of times with many algorithms): plain
        # dicts, not pandas indexing.
        self._cell_n = {(str(a), str(b)): int(n) for (a, b), n in self.counts.items()}
        self._alg_n: dict[str, list[int]] = {}
        for (alg, _), n in self._cell_n.items():
            self._alg_n.setdefault(alg, []).append(n)
        self._cell_k: dict[tuple[str, str], int] = {}
        self._alg_k: dict[str, int] = {}
        if self.trials is not None and len(self.trials):
            by_cell = self.trials.groupby(level=["algorithm", "benchmark"], observed=True).max()
            for (alg, bench), k in by_cell.items():
                self._cell_k[str(alg), str(bench)] = int(k)
                self._alg_k[str(alg)] = max(self._alg_k.get(str(alg), 0), int(k))
        self._units: dict[tuple, str] = {}
        self._largest: dict[tuple[int, str], float] = {}
        self._needed: dict[tuple[int, str], int] = {}

    def __call__(self, a: str, b: str, key: tuple) -> str | None:
        try:
            return self._guidance(a, b, key)
        except Exception as err:  # guidance is advice: the report goes on without it
            text = f"sample-size guidance failed for {a} vs {b}: {type(err).__name__}: {err}"
            if len(self.warnings) < 5:
                self.warnings.append(text)
            return None

    def rank_units(self, meta: tuple) -> str:
        if meta not in self._units:
            n_units = self.n_bench
            for name, level in meta:
                if name in self.results.metafeatures:
                    n_units = min(n_units, len(_benchmarks_at(self.results, name, level)))
            scope = "".join(f" with {name} = {level}" for name, level in meta)
            self._units[meta] = (
                f"the rank tests had {n_units} benchmark(s){scope} as independent units; more "
                f"benchmarks (not more seeds per benchmark) would add power to them.")
        return self._units[meta]

    def _band(self, bench: str | None) -> dict[str, str]:
        dkw = (bench in self.dkw_benchmarks if bench is not None
               else bool(self.dkw_benchmarks))
        # A sketched curve's DKW band bounds the whole CDF (calibrate "cdf").
        return ({"band": "dkw", "calibrate": "cdf"} if dkw
                else {"band": "ld_highest_density", "calibrate": "curve"})

    def largest_budget(self, n: int, bench: str | None = None) -> float:
        band = self._band(bench)
        key = (n, band["band"])
        if key not in self._largest:
            self._largest[key] = float(self.tuning.largest_budget(
                n, self.options.confidence, **band))
        return self._largest[key]

    def sample_size(self, k: int, bench: str | None = None) -> int:
        band = self._band(bench)
        key = (k, band["band"])
        if key not in self._needed:
            self._needed[key] = int(self.tuning.sample_size(k, self.options.confidence,
                                                            **band))
        return self._needed[key]

    def _guidance(self, a: str, b: str, key: tuple) -> str | None:
        bench, meta = key
        parts = []
        if self.ranks_ran and bench is None:
            parts.append(self.rank_units(meta))
        if self.tuning is not None:
            text = self._tuning_text(a, b, bench)
            if text:
                parts.append(("Per benchmark, " if parts else "") + text)
        if not parts:
            return None
        text = " ".join(parts)
        if bench is None and self.ranks_ran and len(parts) > 1:
            text = "Across benchmarks, " + text
        return text[0].upper() + text[1:]

    def _tuning_text(self, a: str, b: str, bench: str | None) -> str | None:
        if bench is not None:
            if (a, bench) not in self._cell_n or (b, bench) not in self._cell_n:
                return None
            sizes = [self._cell_n[a, bench], self._cell_n[b, bench]]
        else:
            if a not in self._alg_n or b not in self._alg_n:
                return None
            sizes = self._alg_n[a] + self._alg_n[b]
        n = int(min(sizes))
        # "0.8 band", or "0.8 DKW band" where the curves came from sketches.
        conf = (f"{self.options.confidence:g} DKW" if self._band(bench)["band"] == "dkw"
                else f"{self.options.confidence:g}")
        k_max = self.largest_budget(n, bench)
        k_goal = self._k_goal(a, b, bench, k_max)
        if k_goal is None:
            return (f"with {n:,} draws per algorithm the median tuning curve's {conf} band "
                    f"is informative up to k = {k_max:.1f}; at the requested budget no search "
                    f"has a trial yet, so there is no budget of interest to size for.")
        n_goal = self.sample_size(k_goal, bench)
        if n_goal > n:
            return (f"with {n:,} draws per algorithm the median tuning curve's {conf} band "
                    f"is informative only up to k = {k_max:.1f}; bounding it up to k = "
                    f"{k_goal:,} trials takes n = {n_goal:,} draws per algorithm.")
        return (f"{n:,} draws per algorithm already give informative {conf} bands up to "
                f"k = {k_max:.1f} (k = {k_goal:,} trials needs {n_goal:,}), yet they overlap: "
                f"the difference is smaller than the bands resolve; band width shrinks like "
                f"1/sqrt(n), so about 4x the draws halve it.")

    def _k_goal(self, a: str, b: str, bench: str | None, k_max: float) -> int | None:
        """The tuning-curve budget k of interest: a number of trials, never a budget value.

        With a trial order, k is the number of trials a search of ``a`` or
        ``b`` has at the requested budget (its longest such search), so the
        budget column's unit (trial index, seconds, epochs x 1000) does not
        matter. Without one, k is twice what the current draws bound.
        """
        if self.trials is None:
            return max(2, 2 * math.floor(k_max))
        if bench is not None:
            k = max(self._cell_k.get((a, bench), 0), self._cell_k.get((b, bench), 0))
        else:
            k = max(self._alg_k.get(a, 0), self._alg_k.get(b, 0))
        return k if k >= 1 else None


def draws_reading(results: Results, options: Options) -> tuple[str, str]:
    """Whether random-search draws are IID or clustered by run, and why (for the output).

    ``options.draws`` decides when the user stated it; with ``"auto"`` the
    data's structure does: draws are IID only where every run (algorithm x
    benchmark x seed) holds one draw. A run of several trials may share
    whatever its seed fixes (a data split, an initialisation), which the
    data cannot rule out.
    """
    if options.draws == "iid":
        return "iid", "stated IID (draws='iid'): every draw is taken as its own replicate"
    sizes = results.run_sizes() if results.kind == "trials" else None
    if options.draws == "clustered":
        return "clustered", "stated clustered (draws='clustered'): draws of one run share it"
    if sizes is None or not len(sizes) or int(sizes.max()) <= 1:
        return "iid", "every run holds one draw, so the draws are IID by the data's structure"
    lo, hi = int(sizes.min()), int(sizes.max())
    return "clustered", (
        f"runs hold {lo if lo == hi else f'{lo}-{hi}'} draws each; draws of one run "
        f"(seed) may share it, so the run is the unit of replication")


def _draws_reason(reading: str, results: Results) -> str:
    """The analysis status line's "on what": the draws and how they were read."""
    if reading == "iid":
        return "on the random-search draws, read as IID (one replicate each)"
    sizes = results.run_sizes()
    lo, hi = int(sizes.min()), int(sizes.max())
    return (f"on the random-search draws, clustered by run ({len(sizes):,} runs of "
            f"{lo if lo == hi else f'{lo}-{hi}'} draws; the run is the replicate)")


def final_trials(results: Results, options: Options) -> float | None:
    """The trials ``k`` a search has at the final budget: where a tuning curve meets it.

    The one conversion between the two axes of a :class:`~benchverdict.verdict.Scope`:
    the budget column's unit (rank tests, LMEM) and the number of random-search
    draws (tuning curves, DSE). ``None`` without a trial order.
    """
    trials = _trials_per_run(results, options.budget)
    return float(trials.max()) if trials is not None and len(trials) else None


def _trials_per_run(results: Results, budget: float | None) -> pd.Series | None:
    """Trials per run (algorithm, benchmark, seed) at ``budget`` (default: all of them).

    ``None`` without a trial order (no budget column): then the rows of a
    cell are draws with no search they belong to.
    """
    if not results.has_budget:
        return None
    return results.run_sizes(budget)


def sample_size_guidance(
    results: Results, options: Options, runs: list[AnalysisRun]
) -> Callable[[str, str, tuple], str | None] | None:
    """A function giving sample-size guidance for an unsettled pair, or None.

    Guidance comes only from analyses that ran. When the tuning curves ran
    (random-search draws), it uses the tuning module's exact guidance
    (:func:`benchverdict.tuning.largest_budget` and
    :func:`~benchverdict.tuning.sample_size`): how far the current draws
    bound the median tuning curve, and how many draws per algorithm would
    bound it up to the budget of interest. That budget is a number of
    trials ``k`` -- with a trial order, the trials a search has at the
    requested budget; the budget column's values are never used as ``k``,
    so budgets that are fractional, negative or huge cannot make the
    guidance fail or allocate by their size. When the rank tests ran, it
    states how many independent units they had, because only more
    benchmarks (not more seeds) add power there.

    The returned callable never raises; failures are collected in its
    ``warnings`` attribute.

    Examples
    --------
    >>> from benchverdict.report.records import AnalysisRun, Options
    >>> from benchverdict.results import _example_small
    >>> res = _example_small()
    >>> sample_size_guidance(res, Options(), [AnalysisRun("dse", "ok")]) is None
    True
    >>> guide = sample_size_guidance(res, Options(), [AnalysisRun("ranks", "ok")])
    >>> guide("a", "b", (None, ()))[:40]
    'The rank tests had 2 benchmark(s) as ind'
    """
    ran = {r.name for r in runs if r.status == "ok"}
    tuning_ran = "tuning" in ran and results.kind == "trials"
    ranks_ran = "ranks" in ran
    if not tuning_ran and not ranks_ran:
        return None
    dkw: frozenset[str] = frozenset()
    for run in runs:
        table = run.tables.get(GUIDANCE_TABLE) if run.name == "tuning" else None
        if table is not None and "band" in table:
            dkw = frozenset(table.loc[table["band"] == "dkw", "benchmark"].astype(str))
    return _Guidance(results, options, tuning if tuning_ran else None, ranks_ran, dkw)
