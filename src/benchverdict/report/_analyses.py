"""How the report runs each analysis module through its public API.

One runner per module: ``runner(results, options) -> AnalysisRun``. Each
imports its module lazily; a module that is not installed gives an
``"unavailable"`` record (never a crash), and anything a module raises is
caught by :func:`~benchverdict.report.runner.run_analysis` and reported.
The runners choose the view of the data each method is meant for and say
which one in the run's ``reason`` and ``notes``.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np

from benchverdict.report.runner import (
    AnalysisRun,
    Options,
    ReportFigure,
    incumbent_results,
    incumbent_trajectories,
)
from benchverdict.verdict import Scope, Verdict

if TYPE_CHECKING:
    from benchverdict.results import Results

#: At most this many per-benchmark figures per analysis (the rest are in the tables).
MAX_FIGURES_PER_ANALYSIS = 8
#: Bootstrap replicates for the DSE's CVaR intervals (percentile intervals).
DSE_BOOTSTRAP_REPS = 1000
#: Budgets and seed resamples of the anytime-ranks figure (it is a figure, not a test).
ANYTIME_BUDGETS = 12
ANYTIME_BOOTSTRAP = 100
#: The LMEM's default formula (Geburek et al.'s drop-in replacement for Autorank).
DEFAULT_FORMULA = "score ~ algorithm + (1|benchmark)"


def _import(name: str) -> Any | None:
    """Import ``benchverdict.<name>`` or return None if it is not installed."""
    try:
        return importlib.import_module(f"benchverdict.{name}")
    except ModuleNotFoundError as err:
        if err.name in (f"benchverdict.{name}",):
            return None
        raise


def _unavailable(name: str, what: str) -> AnalysisRun:
    return AnalysisRun(name, "unavailable", reason=what)


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
    table = results.table
    desc = results.describe().metafeatures
    for name in results.metafeatures:
        if not bool(desc.loc[name, "constant_within_benchmark"]):
            continue
        per_bench = table.groupby("benchmark", observed=True)[name].first().dropna()
        counts = per_bench.astype(str).value_counts()
        if 2 <= len(counts) <= MAX_METAFEATURE_LEVELS and (counts >= 2).all():
            out[name] = sorted(counts.index)
    return out


def _benchmarks_at(results: Results, name: str, level: str) -> list[str]:
    table = results.table
    per_bench = table.groupby("benchmark", observed=True)[name].first().astype(str)
    return sorted(per_bench.index[per_bench == level].astype(str))


def _with_scope(verdicts: list[Verdict], scope: Scope) -> list[Verdict]:
    return [dataclasses.replace(v, scope=scope) for v in verdicts]


def _budget_scope(budget: float | None) -> Scope:
    return Scope() if budget is None else Scope(budget_low=budget, budget_high=budget)


# ----------------------------------------------------------------------------- ranks
def run_ranks(results: Results, options: Options) -> AnalysisRun:
    """Friedman with Nemenyi and with Wilcoxon–Holm post-hoc tests, and Autorank if present."""
    ranks = _import("ranks")
    if ranks is None or not hasattr(ranks, "friedman"):
        return _unavailable("ranks", "benchverdict.ranks is not installed")
    run = AnalysisRun("ranks", "ok")
    if len(results.benchmarks) < 2:
        return AnalysisRun(
            "ranks", "not applicable",
            reason=f"rank tests over benchmarks need at least 2 benchmarks, got "
                   f"{len(results.benchmarks)}")
    # One pass over the rows for the incumbents; every test below reuses the block matrix.
    blocks = results.blocks(unit="benchmark", aggregate="mean", budget=options.budget,
                            missing="drop")
    excluded = blocks.exclusions
    if len(excluded):
        run.warnings.append(f"rank tests: {blocks.exclusion_summary()}")
    for posthoc in ("nemenyi", "wilcoxon"):
        res = ranks.friedman(blocks, alpha=options.alpha, posthoc=posthoc)
        run.verdicts += res.verdicts()
        if posthoc == "nemenyi":
            run.notes.append(
                f"Friedman Q = {res.statistic:.4g} (df {res.df}), p = {res.pvalue:.3g}; "
                f"Kendall's W = {res.kendall_w:.3g}; replication unit: {res.unit}."
            )
            run.notes += [str(n) for n in res.notes]
            run.tables["average ranks and pairwise tests (Nemenyi)"] = res.table
            run.figures.append(_figure(
                "ranks-cd-nemenyi", "Critical-difference diagram (Nemenyi)", res.plot(),
                f"Average ranks over {res.n_blocks} blocks (1 = best); algorithms joined by a "
                f"bar are not significantly different at alpha = {options.alpha:g}."))
        else:
            run.tables["pairwise Wilcoxon signed-rank tests (Holm)"] = res.pairwise
    for name, levels in level_metafeatures(results).items():
        for level in levels:
            rows = [b for b in _benchmarks_at(results, name, level) if b in blocks.matrix.index]
            if len(rows) < 2:
                run.notes.append(f"{name} = {level}: fewer than 2 complete blocks; not ranked.")
                continue
            sub = dataclasses.replace(blocks, matrix=blocks.matrix.loc[rows])
            base = _budget_scope(options.budget)
            scope = Scope(budget_low=base.budget_low, budget_high=base.budget_high,
                          metafeature=((name, level),))
            for posthoc in ("nemenyi", "wilcoxon"):
                res = ranks.friedman(sub, alpha=options.alpha, posthoc=posthoc,
                                     n_bootstrap=200)
                run.verdicts += _with_scope(res.verdicts(), scope)
            run.notes.append(
                f"{name} = {level}: Friedman on the {res.n_blocks} benchmarks at this level, "
                f"p = {res.pvalue:.3g}.")
    if hasattr(ranks, "win_tie_loss"):
        try:
            wtl = ranks.win_tie_loss(results, budget=options.budget, alpha=options.alpha)
        except ValueError as err:
            run.warnings.append(f"win/tie/loss was not run: {err}")
        else:
            run.verdicts += wtl.verdicts()
            run.tables["win/tie/loss per pair (sign test across benchmarks)"] = wtl.table
            run.figures.append(_figure(
                "ranks-win-tie-loss", "Wins, ties and losses over benchmarks", wtl.plot(),
                f"Per benchmark a two-sided {wtl.test} test over seeds decides win, tie or "
                f"loss; the p-value is the sign test across benchmarks."))
    if hasattr(ranks, "anytime_ranks") and results.has_budget:
        try:
            anytime = ranks.anytime_ranks(results, max_budgets=ANYTIME_BUDGETS,
                                          n_bootstrap=ANYTIME_BOOTSTRAP)
        except ValueError as err:
            run.warnings.append(f"anytime ranks were not computed: {err}")
        else:
            run.tables["anytime average ranks"] = anytime.table
            run.figures.append(_figure(
                "ranks-anytime", "Average rank against budget", anytime.plot(),
                f"Average rank (1 = best) at {ANYTIME_BUDGETS} or fewer budgets; bands: "
                f"bootstrap over seeds ({anytime.unit})."))
    if hasattr(ranks, "autorank"):
        try:
            ar = ranks.autorank(blocks, alpha=options.alpha)
        except ValueError as err:
            run.warnings.append(f"autorank was not run: {err}")
        else:
            run.verdicts += ar.verdicts()
            run.notes.append(ar.summary())
            run.tables["Autorank's ranking"] = ar.table
            run.figures.append(_figure(
                "ranks-autorank", f"Autorank ({ar.omnibus}"
                + (f" + {ar.posthoc}" if ar.posthoc else "") + ")", ar.plot(),
                "Autorank's own decision path: " + "; ".join(ar.reasons)))
    return run


# ----------------------------------------------------------------------------- lmem
def run_lmem(results: Results, options: Options) -> AnalysisRun:
    """A mixed model on the runs' incumbents, Tukey-adjusted pairs, and the sanity checks."""
    lmem = _import("lmem")
    if lmem is None or not hasattr(lmem, "fit"):
        return _unavailable("lmem", "benchverdict.lmem is not installed")
    run = AnalysisRun("lmem", "ok")
    formula = options.formula or DEFAULT_FORMULA
    data = incumbent_results(results, options.budget)
    at = "the final budget" if options.budget is None else f"budget {options.budget:g}"
    run.reason = (
        f"on the incumbent of every run at {at} ({len(data):,} rows, one per algorithm x "
        f"benchmark x seed)"
    )
    if len(data.benchmarks) < 2 and "benchmark" in formula:
        return AnalysisRun(
            "lmem", "not applicable",
            reason=f"the formula {formula!r} needs at least 2 benchmarks for a random effect")
    model = lmem.fit(data, formula)
    run.notes.append(
        f"Model {formula} fitted by maximum likelihood ({model.backend} backend) on "
        f"{model.nobs:,} rows; log-likelihood {model.loglik:.6g}"
        + ("; the fit is SINGULAR (a variance component is at zero)" if model.singular else "")
        + ("" if getattr(model, "converged", True) else "; the optimiser did NOT converge")
        + "."
    )
    if model.singular:
        run.warnings.append(f"singular fit of {formula}: a variance component is (near) zero.")
    if not getattr(model, "converged", True):
        run.warnings.append(
            f"the optimiser did not report convergence for {formula}"
            + (f" ({model.message})" if getattr(model, "message", "") else "") + ".")
    scope = _budget_scope(options.budget)
    for v in model.verdicts(alpha=options.alpha, scope=scope):
        details = {**v.details, "singular": bool(model.singular)}
        run.verdicts.append(dataclasses.replace(v, details=details))
    run.tables["pairwise contrasts (Tukey)"] = model.pairwise()
    if options.formula is None:
        for name, levels in level_metafeatures(data).items():
            if not _IDENTIFIER.match(name) or name in ("algorithm", "benchmark", "score"):
                run.notes.append(f"metafeature {name!r} is not a plain identifier; its levels "
                                 f"are not modelled.")
                continue
            by_formula = f"score ~ algorithm * {name} + (1|benchmark)"
            by_model = lmem.fit(data, by_formula)
            for v in by_model.verdicts(alpha=options.alpha, by=name):
                scope = Scope(budget_low=scope.budget_low, budget_high=scope.budget_high,
                              metafeature=v.scope.metafeature)
                details = {**v.details, "singular": bool(by_model.singular)}
                run.verdicts.append(dataclasses.replace(v, scope=scope, details=details))
            run.notes.append(
                f"Per level of {name} ({', '.join(levels)}): {by_formula}, Tukey pairs within "
                f"each level.")
    if hasattr(model, "emmeans"):
        run.tables["estimated marginal means"] = model.emmeans()
    run.tables["variance components"] = model.varcomp
    try:
        run.figures.append(_figure(
            "lmem-cd", "LMEM critical-difference diagram", model.plot(alpha=options.alpha),
            "Algorithms at their estimated marginal means; a bar joins algorithms whose "
            "Tukey-adjusted difference is not significant."))
    except Exception as err:
        run.warnings.append(f"the LMEM CD diagram failed: {type(err).__name__}: {err}")
    if hasattr(lmem, "sanity_checks"):
        _lmem_sanity(lmem, results, options, run)
    else:
        run.notes.append("The LMEM sanity checks are not available in this version.")
    return run


def _lmem_sanity(lmem: Any, results: Results, options: Options, run: AnalysisRun) -> None:
    """Run Geburek et al.'s sanity checks and add them to the sanity section.

    On random-search trials the checks see each seed's search as an HPO run
    (its incumbent after every trial), the view the LMEM compares. An
    algorithm the seed-dependency check flags is a caveat on every LMEM
    verdict about it when the formula has no seed term.
    """
    if results.kind == "runs":
        data = results
    elif results.has_budget:
        data = incumbent_trajectories(results)
    else:
        data = incumbent_results(results)
    budget: float | str = "final" if options.budget is None else float(options.budget)
    report = lmem.sanity_checks(data, alpha=options.alpha, budget=budget)
    for check in report.checks:
        flagged = ", ".join(check.flagged)
        run.sanity.append({
            "name": check.name.replace("_", " "),
            "conclusion": f"{check.verdict}" + (f" (flagged: {flagged})" if flagged else "")
                          + f"; {check.data}",
        })
        run.tables[f"sanity check: {check.name.replace('_', ' ')}"] = check.table
    try:
        run.figures.append(_figure(
            "lmem-sanity", "LMEM sanity checks (Geburek et al. 2024, §4.2)", report.plot(),
            "Seed dependency, benchmark informativeness and budget relevance, each a "
            "likelihood-ratio test of nested mixed models."))
    except Exception as err:
        run.warnings.append(f"the sanity-check figure failed: {type(err).__name__}: {err}")
    seed_check = next((c for c in report.checks if c.name == "seed_dependency"), None)
    formula = options.formula or DEFAULT_FORMULA
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


# ----------------------------------------------------------------------------- tuning
def run_tuning(results: Results, options: Options) -> AnalysisRun:
    """Median tuning curves with exact simultaneous LD bands, compared per benchmark.

    Lourie et al.'s evidence (weak / fair / strong) per budget range becomes
    one verdict per pair, benchmark and budget range.
    """
    tuning = _import("tuning")
    if tuning is None or not hasattr(tuning, "from_results"):
        return _unavailable("tuning", "benchverdict.tuning is not installed")
    run = AnalysisRun("tuning", "ok")
    curves = tuning.from_results(results, kind="median", band="ld_highest_density",
                                 confidence=options.confidence)
    run.verdicts += curves.verdicts()
    guidance = curves.guidance()
    run.tables["sample size and the largest budget each band bounds"] = guidance
    run.tables["median tuning curves (k, point, band)"] = curves.table
    if len(curves.excluded):
        run.tables["cells without a curve"] = curves.excluded
        run.warnings.append(f"{len(curves.excluded)} algorithm x benchmark cell(s) got no "
                            f"tuning curve (listed in the tables).")
    if len(guidance):
        def span(values, fmt: str) -> str:
            lo, hi = float(values.min()), float(values.max())
            return format(lo, fmt) if lo == hi else f"{lo:{fmt}} to {hi:{fmt}}"

        run.notes.append(
            f"Median tuning curves with {options.confidence:g} simultaneous LD highest-density "
            f"bands (Lourie et al. 2024); with n = {span(guidance['n'], ',.0f')} draws per "
            f"curve the upper band is informative up to k = {span(guidance['k_max'], '.1f')}.")
    for bench in curves.benchmarks[:MAX_FIGURES_PER_ANALYSIS]:
        run.figures.append(_figure(
            f"tuning-{bench}", f"Median tuning curves on {bench}", curves.plot(benchmark=bench),
            f"The median best score of k random-search draws, with simultaneous "
            f"{options.confidence:g} bands; budgets beyond a band's informative range show "
            f"a trivial upper bound."))
    if len(curves.benchmarks) > MAX_FIGURES_PER_ANALYSIS:
        run.notes.append(f"Figures show the first {MAX_FIGURES_PER_ANALYSIS} of "
                         f"{len(curves.benchmarks)} benchmarks; the table has them all.")
    return run


# ----------------------------------------------------------------------------- dse
def run_dse(results: Results, options: Options) -> AnalysisRun:
    """Score distributions: dominance and CVaR differences per benchmark (and pooled).

    DSE describes the distribution of a single random-search draw, so when
    the data have a trial order its verdicts are placed at budget 1 (where
    the tuning curve also describes one draw). One ``dse.cvar_<level>``
    method per CVaR level in ``options.cvar_levels``.
    """
    dse = _import("dse")
    if dse is None or not hasattr(dse, "distribution"):
        return _unavailable("dse", "benchverdict.dse.distribution is not available")
    run = AnalysisRun("dse", "ok")
    one_draw = results.has_budget

    def place(v: Verdict, method: str | None = None) -> Verdict:
        scope = v.scope
        if one_draw:
            scope = Scope(benchmark=scope.benchmark, budget_low=1.0, budget_high=1.0,
                          metafeature=scope.metafeature)
        return dataclasses.replace(v, scope=scope, method=method or v.method)

    configs: list[tuple[str, dict[str, Any]]] = [("per benchmark", {})]
    if len(results.benchmarks) > 1:
        configs.append(("pooled over benchmarks (min-max normalised)",
                        {"pooled": True, "normalize": "minmax"}))
    for label, kwargs in configs:
        # Pooled over benchmarks, Jordan et al.'s level only (the pooled bootstrap is costly).
        levels = options.cvar_levels if not kwargs else options.cvar_levels[:1]
        for i, level in enumerate(levels):
            res = dse.distribution(results, cvar_level=level, confidence=options.confidence,
                                   reps=DSE_BOOTSTRAP_REPS, **kwargs)
            for v in res.verdicts(alpha=options.alpha):
                if v.method == "dse.cvar":
                    run.verdicts.append(place(v, f"dse.cvar_{level:g}"))
                elif i == 0:  # dominance does not depend on the CVaR level
                    run.verdicts.append(place(v))
            run.tables[f"distributions {label}, CVaR_{level:g}"] = res.table
            if i == 0:
                try:
                    run.figures.append(_figure(
                        "dse-cdf" + ("-pooled" if kwargs else ""),
                        f"Performance distributions, {label}", res.plot(kind="cdf"),
                        f"Empirical CDFs with simultaneous {options.confidence:g} bands "
                        f"({res.band}); a curve to the "
                        f"{'right' if res.objective == 'maximize' else 'left'} is better."))
                except Exception as err:
                    run.warnings.append(f"the DSE plot failed: {type(err).__name__}: {err}")
    run.notes.append(
        f"CVaR levels {', '.join(f'{a:g}' for a in options.cvar_levels)} (CVaR_a is the mean "
        f"of the best {', '.join(f'{1 - a:.0%}' for a in options.cvar_levels)} of draws); "
        f"dominance: two one-sided KS tests at alpha/2 each."
        + (" DSE verdicts describe single draws, so they sit at budget 1." if one_draw else ""))
    return run


def _collect(run: AnalysisRun, res: Any, prefix: str, title: str, caption: str) -> None:
    """Take verdicts, tables, figures and notes from a module result (or a dict of them)."""
    parts = res.items() if isinstance(res, dict) else [(None, res)]
    for key, part in parts:
        if hasattr(part, "verdicts"):
            run.verdicts += list(part.verdicts())
        table = getattr(part, "table", None)
        if table is not None and hasattr(table, "columns"):
            run.tables[f"{title}" + (f": {key}" if key is not None else "")] = table
        for note in getattr(part, "notes", ()) or ():
            run.notes.append(str(note))
        if hasattr(part, "plot") and len(run.figures) < MAX_FIGURES_PER_ANALYSIS:
            suffix = "" if key is None else f"-{key}"
            run.figures.append(_figure(f"{prefix}{suffix}", title + (
                f": {key}" if key is not None else ""), part.plot(), caption))


# ----------------------------------------------------------------------------- guidance
def sample_size_guidance(
    results: Results, options: Options, runs: list[AnalysisRun]
) -> Callable[[str, str, tuple], str | None] | None:
    """A function giving sample-size guidance for an unsettled pair.

    For random-search draws it uses the tuning-curve module's exact guidance
    (:func:`benchverdict.tuning.largest_budget` and
    :func:`~benchverdict.tuning.sample_size`): how far the current draws can
    bound the median tuning curve, and how many draws per algorithm would
    bound the budget of interest. For HPO runs it states how many
    independent units the rank tests had, because only more benchmarks (not
    more seeds) add power there.
    """
    tuning = _import("tuning") if results.kind == "trials" else None
    has_guide = tuning is not None and all(
        hasattr(tuning, f) for f in ("largest_budget", "sample_size"))
    counts = results.table.groupby(["algorithm", "benchmark"], observed=True).size()
    n_bench = len(results.benchmarks)
    target = float(options.budget) if options.budget is not None else (
        float(np.max(results.budgets)) if results.has_budget else None)

    def rank_units(meta: tuple) -> str:
        n_units = n_bench
        for name, level in meta:
            if name in results.metafeatures:
                n_units = min(n_units, len(_benchmarks_at(results, name, level)))
        scope = "".join(f" with {name} = {level}" for name, level in meta)
        return (f"the rank tests had {n_units} benchmark(s){scope} as independent units; more "
                f"benchmarks (not more seeds per benchmark) would add power to them.")

    def guidance(a: str, b: str, key: tuple) -> str | None:
        bench, meta = key
        if results.kind != "trials":
            return rank_units(meta).capitalize()
        cells = counts.loc[[a, b]] if bench is None else counts.loc[[(a, bench), (b, bench)]]
        n = int(np.min(cells.to_numpy()))
        prefix = "Across benchmarks, " + rank_units(meta) + " Per benchmark, " if (
            bench is None) else ""
        if not has_guide:
            return (f"{prefix}{n:,} draws per algorithm were not enough; the tuning-curve "
                    f"module's sample-size guidance is not available.")
        k_max = float(tuning.largest_budget(n, options.confidence))
        k_goal = target if target is not None else max(2.0, 2.0 * math.floor(k_max))
        n_goal = int(tuning.sample_size(k_goal, options.confidence))
        if n_goal > n:
            text = (f"with {n:,} draws per algorithm the median tuning curve's "
                    f"{options.confidence:g} band is informative only up to k = {k_max:.1f}; "
                    f"bounding it up to k = {k_goal:g} takes n = {n_goal:,} draws per "
                    f"algorithm.")
        else:
            text = (f"{n:,} draws per algorithm already give informative "
                    f"{options.confidence:g} bands up to k = {k_max:.1f} (k = {k_goal:g} needs "
                    f"{n_goal:,}), yet they overlap: the difference is smaller than the bands "
                    f"resolve; band width shrinks like 1/sqrt(n), so about 4x the draws halve "
                    f"it.")
        return prefix + (text[0].upper() + text[1:] if not prefix else text)

    return guidance


#: The runners, by analysis name.
RUNNERS: dict[str, Callable[[Results, Options], AnalysisRun]] = {
    "tuning": run_tuning,
    "dse": run_dse,
    "ranks": run_ranks,
    "lmem": run_lmem,
}
