"""Every LMEM verdict of a study: each pair of algorithms, overall and per benchmark."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from benchverdict.lmem.estimand import (
    ESTIMAND_REML,
    FIXED_BENCHMARKS_FORMULA,
    check_estimand,
    formula_for,
)
from benchverdict.lmem.exclusions import counts, exclusions_of
from benchverdict.lmem.fitting import fit
from benchverdict.lmem.per_benchmark import per_benchmark_verdicts
from benchverdict.verdict import Verdict

if TYPE_CHECKING:
    from benchverdict.results import Results


def lmem_verdicts(results: Results, *, alpha: float = 0.05, budget: float | None = None,
                  per_benchmark: bool = True, df: str = "auto",
                  estimand: str = "benchmarks") -> list[Verdict]:
    """Tukey-adjusted LMEM verdicts for every pair, on all benchmarks and on each one.

    * All benchmarks: the estimand's default model
      (:func:`~benchverdict.lmem.estimand.default_formula`), contrasts of
      marginal means. ``estimand="benchmarks"`` (default): ``score ~
      algorithm + (1|benchmark) + (1|benchmark:algorithm)`` fitted by REML,
      a claim about benchmarks like the observed ones (the benchmark is the
      unit of replication); ``"these"``: Geburek et al.'s ``score ~ algorithm
      + (1|benchmark)`` fitted by ML, a claim about exactly the observed
      benchmarks (the run is the unit of replication). See
      :mod:`benchverdict.lmem.estimand`.
    * Each benchmark (``per_benchmark=True``, with more than one benchmark):
      ``score ~ algorithm`` on that benchmark's runs, with its own residual
      variance (:mod:`benchverdict.lmem.per_benchmark`; one Holm family per
      benchmark), a claim about that benchmark (estimand ``"these"``).

    Every verdict's ``details`` name the ``estimand`` and the
    ``unit_of_replication``, and count the input rows and runs the Results
    left out (``excluded_rows``, ``excluded_runs``); its explanation says
    what the claim is about.

    Parameters
    ----------
    results : Results
    alpha : float
    budget : float, optional
        For HPO runs with a budget, each run's incumbent at this budget, or
        (``None``, the default) its final incumbent. To fit every row, pass
        ``results.table`` to :func:`fit` instead.
    per_benchmark : bool
    df : {"auto", "asymptotic", "satterthwaite"}
    estimand : {"benchmarks", "these"}

    Returns
    -------
    list of Verdict

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=3, n_seeds=8, algorithm_effect={"A": -2.0}, seed=0)
    >>> vs = lmem_verdicts(res)
    >>> len(vs), sorted({str(v.scope) for v in vs})[:2]
    (12, ['all benchmarks', 'benchmark bench00'])
    >>> vs[0].details["estimand"], vs[0].details["formula"]
    ('benchmarks', 'score ~ 1 + algorithm + (1 | benchmark) + (1 | benchmark:algorithm)')
    """
    check_estimand(estimand)
    view = results.incumbents(budget) if results.has_budget and results.kind == "runs" else results
    frame = view.table
    left_out = exclusions_of(view)
    n_benchmarks = int(frame["benchmark"].nunique())
    multi = n_benchmarks > 1
    formula = formula_for(frame, estimand)
    generalising = estimand == "benchmarks" and multi
    overall = fit(frame, formula, reml=ESTIMAND_REML[estimand] if multi else False,
                  exclusions=left_out)
    overall.objective = results.objective
    if not multi:
        claim, unit = "on this one benchmark", "run"
    elif generalising:
        claim, unit = (f"across benchmarks like these {n_benchmarks} (the benchmark is the unit "
                       "of replication)"), "benchmark"
        if formula == FIXED_BENCHMARKS_FORMULA:
            claim += "; one row per algorithm x benchmark, so the residual is the interaction"
    else:
        claim, unit = (f"on these {n_benchmarks} benchmarks only (the run is the unit of "
                       "replication)"), "run"
    verdicts = [_with_estimand(v, estimand if multi else "these", claim, unit)
                for v in overall.verdicts(alpha=alpha, df=df)]
    if per_benchmark and multi:
        # One linear model per benchmark, the runs as replicates (the report's path too).
        # The study's left-out rows and runs are counted on these too (as on the overall fit).
        left = counts(left_out)
        for v in per_benchmark_verdicts(results, alpha=alpha, budget=budget):
            v = dataclasses.replace(v, details={**v.details, **left})
            verdicts.append(_with_estimand(v, "these", f"on benchmark {v.scope.benchmark}",
                                           "run"))
    return verdicts


def _with_estimand(v: Verdict, estimand: str, claim: str, unit: str) -> Verdict:
    """``v`` with its estimand in ``details`` and what the claim is about in its explanation."""
    text = v.explanation.rstrip(".") + f" ({claim})."
    return dataclasses.replace(v, explanation=text, details={
        **v.details, "estimand": estimand, "unit_of_replication": unit})
