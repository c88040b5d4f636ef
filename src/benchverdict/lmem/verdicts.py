"""Every LMEM verdict of a study: each pair of algorithms, overall and per benchmark."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict.analysis import Options
from benchverdict.lmem.estimand import check_estimand
from benchverdict.lmem.runner import run_lmem
from benchverdict.verdict import Verdict

if TYPE_CHECKING:
    from benchverdict.results import Results


def lmem_verdicts(results: Results, *, alpha: float = 0.05, budget: float | None = None,
                  per_benchmark: bool = True, df: str | None = None,
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
      benchmark), a claim about that benchmark (estimand ``"benchmark"``).
    * Each level of a metafeature that splits the benchmarks into a few
      groups (e.g. prior quality): Tukey pairs within the level.

    These are the report's LMEM verdicts: both run
    :func:`benchverdict.lmem.runner.run_lmem` (without figures and sanity
    checks here), so ``benchverdict lmem`` and ``benchverdict report`` fit
    the same models and answer alike.

    Every verdict states its ``estimand``; its ``details`` name the
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
    df : {"auto", "asymptotic", "satterthwaite"}, optional
        Degrees of freedom across benchmarks; by default the report's
        (Satterthwaite for the generalising model, else ``"auto"``).
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
    >>> vs[0].estimand, vs[0].details["formula"]
    ('benchmarks', 'score ~ 1 + algorithm + (1 | benchmark) + (1 | benchmark:algorithm)')
    """
    check_estimand(estimand)
    options = Options(alpha=alpha, budget=budget, estimand=estimand, figures=False,
                      sanity_checks=False)
    run = run_lmem(results, options, df=df)
    if run.status != "ok":
        raise ValueError(f"the LMEM could not be fitted: {run.reason}")
    failed = run.failed_steps
    if failed:
        # Fail loudly: a sub-step the report would list as failed must not vanish here.
        raise RuntimeError("; ".join(str(check["conclusion"]) for check in failed))
    return [v for v in run.verdicts if per_benchmark or v.scope.benchmark is None]
