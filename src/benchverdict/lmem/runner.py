"""The LMEM family's run: the estimand's mixed model, per-benchmark contrasts, sanity checks.

:func:`run_lmem` (``run(results, options) -> AnalysisRun``, registered as
the ``"lmem"`` family in :mod:`benchverdict.families`) is the one path from
a :class:`~benchverdict.results.Results` to LMEM verdicts: the report runs
it, and :func:`benchverdict.lmem.lmem_verdicts` (the ``benchverdict lmem``
command) returns its verdicts. Across benchmarks it fits the estimand's
model (:func:`lmem_formula`, :mod:`benchverdict.lmem.estimand`); per
benchmark, one linear model per benchmark with the runs as the replicates
(:mod:`benchverdict.lmem.per_benchmark`). Every verdict says what its claim
is about (its ``estimand``, ``details["unit_of_replication"]`` and
its explanation) and counts the rows and runs the data left out.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
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
    view_left_out,
)
from benchverdict.lmem.estimand import (
    FIXED_BENCHMARKS_FORMULA,
    default_formula,
)
from benchverdict.lmem.exclusions import counts, exclusions_of
from benchverdict.lmem.fitting import fit
from benchverdict.lmem.formula import parse_formula
from benchverdict.lmem.model import DegenerateFitError
from benchverdict.lmem.paired import settle_with_paired_tests
from benchverdict.lmem.per_benchmark import _per_benchmark_verdicts
from benchverdict.lmem.sanity import SanityCheck, SanityReport, sanity_checks
from benchverdict.lmem.these_gate import settle_with_these_tests
from benchverdict.plotting import theme
from benchverdict.replicates import BenchmarkReplicates, pair_replicates
from benchverdict.results import NoIncumbentsError, Results
from benchverdict.scales import scale_check, standardise_per_benchmark
from benchverdict.verdict import Scope, Verdict, replaced

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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


def run_lmem(results: Results, options: Options, *, df: str | None = None) -> AnalysisRun:
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

    Parameters
    ----------
    results : Results
    options : Options
        ``alpha``, ``budget``, ``formula``, ``estimand``, ``figures`` and
        ``sanity_checks`` are read.
    df : {"auto", "asymptotic", "satterthwaite"}, optional
        Degrees of freedom of the contrasts across benchmarks; by default
        Satterthwaite for the generalising model, else the model's ``"auto"``.

    Returns
    -------
    AnalysisRun

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=3, n_seeds=8, algorithm_effect={"A": -2.0}, seed=0)
    >>> run = run_lmem(res, Options(figures=False, sanity_checks=False))
    >>> run.status, run.verdicts[0].details["unit_of_replication"]
    ('ok', 'benchmark')
    """
    run = AnalysisRun("lmem", "ok")
    at = "the final budget" if options.budget is None else f"budget {options.budget:g}"
    try:
        data = results.final() if options.budget is None else results.at_budget(options.budget)
    except NoIncumbentsError as err:
        out = AnalysisRun("lmem", "not applicable", reason=str(err))
        out.exclude(f"incumbents at {at}", "run",
                    runs_without_incumbent(results, options.budget))
        return out
    formula = lmem_formula(options, data)
    run.reason = (
        f"on the incumbent of every run at {at} ({len(data):,} rows, one per algorithm x "
        f"benchmark x seed)"
    )
    late = view_left_out(data)
    if options.budget is not None:
        late["budget"] = options.budget
    n_late = run.exclude(f"incumbents at {at}", "run", late)
    note_exclusions(run, n_late, "run(s) without an incumbent at the budget", "of the model")
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
        # Divided by each benchmark's SD, not centred: centring forces the benchmark
        # variance to 0 (a singular fit) and ties each benchmark's interaction effects
        # together, which the model cannot represent; its Tukey contrasts then had about
        # twice (a - 1)(b - 1) Satterthwaite df and a family-wise error of 0.102 (3
        # benchmarks, 5 algorithms; 0.055 uncentred, as on one scale).
        modelled = standardise_per_benchmark(data, center=False)
        run.notes.append(
            f"Scores are on different scales across benchmarks ({scales.reason}): the "
            f"LMEM across benchmarks fits per-benchmark standardised scores (each "
            f"benchmark's scores divided by their standard deviation; not centred, so the "
            f"benchmark intercept stays in the model), so its differences are in standard "
            f"deviations of a benchmark's scores. Rank tests and the per-benchmark "
            f"contrasts use the raw scores.")
        run.warnings.append(f"scores on different scales across benchmarks "
                            f"({scales.reason}); the LMEM across benchmarks standardises "
                            f"them per benchmark.")
    # With an algorithm x benchmark term the contrast has about (a-1)(b-1) df whatever
    # the number of rows: asymptotic z would be anti-conservative with few benchmarks.
    if df is None:
        df = "satterthwaite" if estimand == "benchmarks" else "auto"
    run.step(f"fitting {formula}")
    # REML for the generalising model: ML underestimates the interaction variance by
    # about (b - 1) / b and inflates its Satterthwaite df (lmem.estimand explains).
    reml = estimand == "benchmarks"
    try:
        model = fit(modelled, formula, reml=reml)
    except DegenerateFitError:
        if options.formula is not None or estimand != "benchmarks" or one_per_cell:
            raise
        # Seeds identical within every cell: the interaction term reproduces the scores.
        # On the cell means the residual of score ~ algorithm + (1|benchmark) is the
        # interaction, the same generalising contrast (lmem.estimand, "one row per cell").
        modelled = _cell_means(modelled)
        formula = FIXED_BENCHMARKS_FORMULA
        model = fit(modelled, formula, reml=reml)
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
    scope = budget_scope(options.budget)
    n_benchmarks = len(data.benchmarks)
    claim, unit = claim_and_unit(estimand, n_benchmarks, formula)
    model_verdicts = model.verdicts(alpha=options.alpha, scope=scope, df=df)
    if n_benchmarks >= 2:
        # The model gives every algorithm one interaction (or residual) variance and
        # counts copied runs as independent; a pair is settled across benchmarks only if
        # its own test agrees (lmem.paired, lmem.these_gate explain).
        # Copies found on the runs as given: standardising per benchmark can make them differ.
        model_verdicts, own = settle_pairs(
            model_verdicts, modelled, estimand=estimand, alpha=options.alpha,
            copies=pair_replicates(results, options.replicate_by))
        run.tables[OWN_TEST_TABLE[estimand]] = own
        run.notes.append(OWN_TEST_NOTE[estimand])
    run.verdicts += [with_claim(v, claim, unit, estimand=estimand, n_benchmarks=n_benchmarks,
                                standardised=standardised) for v in model_verdicts]
    table = run.attempt("pairwise contrasts (Tukey)", model.pairwise, df=df)
    if table is not None:
        run.tables["pairwise contrasts (Tukey)"] = table
    # Per benchmark (also with one benchmark): the runs are the replicates.
    found = None
    if options.per_benchmark:
        # In the scope of the overall fit, with the study's left-out rows and runs counted
        # (as on it), each verdict made once: a 200-algorithm study has 199,000 of them.
        untested: list[dict] = []
        found = run.attempt("per-benchmark contrasts (runs as replicates)",
                            _per_benchmark_verdicts, results, alpha=options.alpha,
                            budget=options.budget, scope=scope, claim=True,
                            details={**counts(exclusions_of(data)),
                                     "unit_of_replication": "run"}, untested=untested)
        if untested:
            # No verdict on these benchmarks: counted and shown, never silently absent.
            n = run.exclude("per-benchmark contrasts (runs as replicates)", "benchmark",
                            untested)
            run.notes.append(
                f"No per-benchmark test on {n} benchmark(s): "
                + "; ".join(f"{r['benchmark']} ({r['reason'].split(',')[0]})"
                            for r in untested[:5])
                + (f" and {n - 5} more" if n > 5 else "") + " (listed in the exclusions).")
    else:
        run.notes.append("Per-benchmark contrasts were not made (per_benchmark=False): "
                         "only claims across benchmarks were asked for.")
    if found is not None:
        run.verdicts += found
        run.notes.append(
            "Per benchmark: score ~ algorithm on that benchmark's runs (its own residual "
            "variance; exact t with n - a df), and a pair counts only when its own Welch "
            "test (the two algorithms' own spreads) agrees, since algorithms rarely vary "
            "equally (an intersection-union rule); Holm within the benchmark; a claim "
            "about one benchmark takes its runs as the replicates.")
    if options.formula is None:
        for name, levels in attempt_levels(run, data):
            # On the scores the model across benchmarks fits (standardised per benchmark
            # when their scales differ): the widest benchmarks must not dominate a level.
            run.attempt(f"LMEM per level of {name}", _lmem_by_level, run, modelled, options,
                        scope, name, levels, estimand=estimand, one_per_cell=one_per_cell,
                        standardised=standardised,
                        copies=pair_replicates(results, options.replicate_by))
    table = run.attempt("estimated marginal means", model.emmeans, df=df)
    if table is not None:
        run.tables["estimated marginal means"] = table
    varcomp = run.attempt("variance components", lambda: model.varcomp)
    if varcomp is not None:
        run.tables["variance components"] = varcomp
    add_figure(run, options, "lmem-cd", "LMEM critical-difference diagram",
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
                   scope: Scope, name: str, levels: list[str], *, estimand: str = "benchmarks",
                   one_per_cell: bool = False, standardised: bool = False,
                   copies: BenchmarkReplicates | None = None) -> None:
    """Tukey pairs within each level of a benchmark metafeature, under the report's estimand.

    ``"benchmarks"`` (claims about benchmarks like these of each level):
    ``score ~ algorithm * level + (1|benchmark) + (1|benchmark:algorithm)``
    by REML with Satterthwaite df, so a contrast is judged against the
    algorithm x benchmark variation and the level's benchmarks are its
    replicates (without the interaction term the seeds were the replicates:
    algorithms that differ per benchmark but not on average were declared
    different). With one row per cell, or for ``"these"``, ``score ~
    algorithm * level + (1|benchmark)`` (its residual is then the
    interaction, or the claim is about these benchmarks only). ``data`` are
    the scores the model across benchmarks fits (``standardised``: per
    benchmark, as its effects say).
    """
    if not _IDENTIFIER.match(name) or name in ("algorithm", "benchmark", "score"):
        run.notes.append(f"metafeature {name!r} is not a plain identifier; its levels "
                         f"are not modelled.")
        return
    # Cell means (every run of a cell alike) have one row per cell too: no interaction term.
    one_per_cell = one_per_cell or bool(
        data.table.groupby(["algorithm", "benchmark"], observed=True).size().max() <= 1)
    generalising = estimand == "benchmarks" and not one_per_cell
    by_formula = f"score ~ algorithm * {name} + (1|benchmark)" + (
        " + (1|benchmark:algorithm)" if generalising else "")
    by_model = fit(data, by_formula, reml=generalising)
    found = by_model.verdicts(alpha=options.alpha, by=name,
                              df="satterthwaite" if generalising else "auto")
    # As across all benchmarks: a pair is settled within a level only if its own test on
    # the level's benchmarks agrees (lmem.paired, lmem.these_gate).
    found = with_level_paired_tests(found, data, name, alpha=options.alpha, copies=copies,
                                    estimand=estimand)
    verdicts = [with_level_claim(v, estimand=estimand, standardised=standardised,
                                 scope=dataclasses.replace(scope,
                                                           metafeature=v.scope.metafeature),
                                 formula=by_formula) for v in found]
    run.verdicts += verdicts
    run.notes.append(
        f"Per level of {name} ({', '.join(levels)}): {by_formula}"
        + (" by REML, Satterthwaite df" if generalising else "")
        + ", Tukey pairs within each level; a claim is about "
        + ("benchmarks like these of the level (the benchmark is the unit of replication)."
           if estimand == "benchmarks" else "these benchmarks of the level only."))


def with_level_paired_tests(verdicts: list, data: Results, name: str, *,
                             alpha: float, copies: BenchmarkReplicates | None = None,
                             estimand: str = "benchmarks") -> list:
    """Each level's verdicts settled only where the pair's own test on that level agrees.

    ``name`` is a benchmark metafeature (constant within a benchmark); each
    verdict's scope names its level, and the pair's tests of a level run on
    that level's benchmarks (:func:`settle_pairs`: paired over benchmarks, or
    Welch over these benchmarks' runs for ``estimand="these"``).

    Examples
    --------
    >>> import numpy as np
    >>> from benchverdict.lmem import fit
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=6, n_seeds=3, seed=0)
    >>> t = res.table.assign(size=np.where(res.table["benchmark"].astype(str) < "bench03",
    ...                                    "small", "large"))
    >>> from benchverdict import Results
    >>> res = Results.from_frame(t, algorithm="algorithm", benchmark="benchmark", seed="seed",
    ...                          score="score", objective=res.objective, metafeatures=["size"],
    ...                          kind="runs")
    >>> model = fit(res, "score ~ algorithm * size + (1|benchmark) + (1|benchmark:algorithm)",
    ...             reml=True)
    >>> out = with_level_paired_tests(model.verdicts(by="size"), res, "size", alpha=0.05)
    >>> sorted({dict(v.scope.metafeature)["size"] for v in out})
    ['large', 'small']
    """
    out = []
    levels: dict[str, list] = {}
    for v in verdicts:
        levels.setdefault(dict(v.scope.metafeature)[name], []).append(v)
    for value, found in levels.items():
        benches = benchmarks_at(data, name, str(value))
        # Also a level of one benchmark: the model's residual variance is pooled over every
        # algorithm and benchmark, the pair's own test is not.
        out += settle_pairs(found, data.subset(benchmarks=benches), estimand=estimand,
                            alpha=alpha, copies=copies)[0]
    return out


#: The table of each estimand's own per-pair tests (:func:`settle_pairs`).
OWN_TEST_TABLE = {"benchmarks": "pairwise contrasts (paired across benchmarks)",
                  "these": "pairwise contrasts (Welch over these benchmarks' runs)"}
#: What the report says about them.
OWN_TEST_NOTE = {
    "benchmarks": "Across benchmarks, a pair is settled only when the model's Tukey test and "
                  "the pair's own paired t test on its per-benchmark differences (Bonferroni "
                  "over the pairs) both reject: the model assumes every algorithm varies "
                  "equally across benchmarks, the paired test does not.",
    "these": "Across these benchmarks, a pair is settled only when the model's Tukey test and "
             "the pair's own Welch t test over the runs of these benchmarks (each "
             "algorithm's own spread, copied runs counted once; Bonferroni over the pairs) "
             "both reject: the model gives every algorithm one residual variance and counts "
             "a run copied onto several benchmarks once per benchmark.",
}


def settle_pairs(verdicts: list, data: Results, *, estimand: str, alpha: float,
                 copies: BenchmarkReplicates | None = None) -> tuple[list, pd.DataFrame]:
    """The model's verdicts across benchmarks, each kept only where the pair's own test agrees.

    The one place the report's LMEM and ``benchverdict lmem`` apply the rule:
    ``estimand="benchmarks"``: the pair's paired t test over benchmarks
    (:func:`~benchverdict.lmem.paired.settle_with_paired_tests`);
    ``"these"``: its Welch t test over these benchmarks' runs, copied runs
    counted once (:func:`~benchverdict.lmem.these_gate.settle_with_these_tests`).

    Examples
    --------
    >>> from benchverdict.lmem import fit
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=4, n_seeds=3, algorithm_effect={"A": -2.0},
    ...                        seed=0)
    >>> model = fit(res, "score ~ algorithm + (1|benchmark)")
    >>> out, table = settle_pairs(model.verdicts(), res, estimand="these", alpha=0.05)
    >>> list(table.columns[:3]), len(out)
    (['a', 'b', 'estimate'], 3)
    """
    if estimand == "benchmarks":
        return settle_with_paired_tests(verdicts, data, alpha=alpha, copies=copies)
    if estimand == "these":
        return settle_with_these_tests(verdicts, data, alpha=alpha, copies=copies)
    raise ValueError(f"estimand must be 'benchmarks' or 'these', got {estimand!r}.")


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
    report = run.attempt("LMEM sanity checks", sanity_checks, data, alpha=options.alpha,
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
        add_figure(
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
            replaced(v, caveats=(*v.caveats, caveat))
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


def claim_and_unit(estimand: str, n_benchmarks: int, formula: str) -> tuple[str, str]:
    """What a verdict of the model across benchmarks claims, and its unit of replication.

    Examples
    --------
    >>> from benchverdict.lmem.estimand import GENERALISING_FORMULA
    >>> claim_and_unit("benchmarks", 12, GENERALISING_FORMULA)[1]
    'benchmark'
    >>> claim_and_unit("these", 12, FIXED_BENCHMARKS_FORMULA)
    ('on these 12 benchmarks only (the run is the unit of replication)', 'run')
    """
    if n_benchmarks < 2:
        return "on this one benchmark", "run"
    if estimand == "benchmarks":
        claim = (f"across benchmarks like these {n_benchmarks} (the benchmark is the unit "
                 "of replication)")
        if formula == FIXED_BENCHMARKS_FORMULA:
            claim += "; one row per algorithm x benchmark, so the residual is the interaction"
        return claim, "benchmark"
    return (f"on these {n_benchmarks} benchmarks only (the run is the unit of replication)",
            "run")


def with_claim(verdict: Verdict, claim: str, unit: str, *, estimand: str, n_benchmarks: int,
               standardised: bool = False) -> Verdict:
    """The model's verdict with its claim, estimand, unit and count of independent units.

    Examples
    --------
    >>> from benchverdict.lmem import fit
    >>> from benchverdict.lmem.estimand import GENERALISING_FORMULA
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=4, n_seeds=3, seed=0)
    >>> v = fit(res, GENERALISING_FORMULA, reml=True).verdicts()[0]
    >>> out = with_claim(v, *claim_and_unit("benchmarks", 4, GENERALISING_FORMULA),
    ...                  estimand="benchmarks", n_benchmarks=4)
    >>> out.n, out.details["unit_of_replication"]
    (4, 'benchmark')
    """
    # Every change in one replace: each replace re-validates the whole verdict.
    changes: dict[str, object] = {
        "explanation": _claimed(verdict.explanation, claim), "estimand": estimand,
        "details": {**verdict.details, "unit_of_replication": unit,
                    "n_benchmarks": n_benchmarks, "standardised": standardised}}
    if unit == "benchmark":
        # The contrast is judged against the benchmark-to-benchmark variation: the
        # benchmarks, not the rows, are its independent units.
        # Where copied runs (or a declared task) joined benchmarks, the paired test
        # counted the pair's independent replicates (with_paired_test set n to them).
        replicates = verdict.details.get("paired_n_replicates", n_benchmarks)
        changes.update(n=min(n_benchmarks, int(replicates)), unit=BENCHMARK_UNIT)
    return replaced(verdict, **changes, **_standardised_effect(verdict, standardised))


def with_level_claim(verdict: Verdict, *, estimand: str, standardised: bool = False,
                     scope: Scope | None = None, formula: str | None = None) -> Verdict:
    """A verdict within one level of a benchmark metafeature, with its estimand and units.

    Generalising (``estimand="benchmarks"``): the level's benchmarks are the
    units, its independent replicates as the pair's paired test counted them
    (``paired_n_replicates``), not the model's rows; else the runs.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> v = Verdict(a="A", b="B", outcome="a", method="lmem.tukey",
    ...             scope=Scope(metafeature=(("size", "small"),)), explanation="A - B = +1.",
    ...             evidence=Evidence("p_value", 0.01, 0.05), objective="maximize",
    ...             details={"paired_n_replicates": 3})
    >>> with_level_claim(v, estimand="benchmarks").n
    3
    """
    unit = "benchmark" if estimand == "benchmarks" else "run"
    changes: dict[str, object] = {"estimand": estimand, "details": {
        **verdict.details, "unit_of_replication": unit, "standardised": standardised,
        **({"formula": formula} if formula is not None else {})}}
    if scope is not None:
        changes["scope"] = scope
    if unit == "benchmark" and "paired_n_replicates" in verdict.details:
        changes.update(n=int(verdict.details["paired_n_replicates"]), unit=BENCHMARK_UNIT)
    return replaced(verdict, **changes, **_standardised_effect(verdict, standardised))


#: A verdict's unit where the algorithm x benchmark variation is the error.
BENCHMARK_UNIT = "benchmark (the algorithm x benchmark variation is the error)"


def _standardised_effect(verdict: Verdict, standardised: bool) -> dict[str, object]:
    """``{"effect": ...}`` naming the standardised unit, or nothing."""
    if not standardised or verdict.effect is None:
        return {}
    return {"effect": dataclasses.replace(
        verdict.effect, name=verdict.effect.name + " (standardised per benchmark: in standard "
                                                   "deviations of a benchmark's scores)")}


def _claimed(explanation: str, claim: str) -> str:
    """``explanation`` with ``(claim)`` at its end."""
    return explanation.rstrip(".") + f" ({claim})."
