"""Every LMEM verdict of a study: each pair of algorithms, overall and per benchmark."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict.lmem.exclusions import exclusions_of
from benchverdict.lmem.fitting import fit
from benchverdict.verdict import Scope, Verdict

if TYPE_CHECKING:
    from benchverdict.results import Results


def lmem_verdicts(results: Results, *, alpha: float = 0.05, budget: float | None = None,
                  per_benchmark: bool = True, df: str = "auto") -> list[Verdict]:
    """Tukey-adjusted LMEM verdicts for every pair, on all benchmarks and on each one.

    * All benchmarks: ``score ~ algorithm + (1|benchmark)`` (Geburek et al.'s
      model), contrasts of marginal means.
    * Each benchmark (``per_benchmark=True``, with more than one benchmark):
      ``score ~ algorithm * benchmark`` and the contrasts within each
      benchmark (one Tukey family per benchmark).

    Every verdict's ``details`` count the input rows and runs the Results
    left out (``excluded_rows``, ``excluded_runs``).

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

    Returns
    -------
    list of Verdict

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=3, n_seeds=8, algorithm_effect={"A": -2.0}, rng=0)
    >>> vs = lmem_verdicts(res)
    >>> len(vs), sorted({str(v.scope) for v in vs})[:2]
    (12, ['all benchmarks', 'benchmark bench00'])
    """
    view = results.incumbents(budget) if results.has_budget and results.kind == "runs" else results
    frame = view.table
    left_out = exclusions_of(view)
    multi = frame["benchmark"].nunique() > 1
    overall = fit(frame, "score ~ algorithm + (1|benchmark)" if multi else "score ~ algorithm",
                  exclusions=left_out)
    overall.objective = results.objective
    verdicts = overall.verdicts(alpha=alpha, df=df)
    if per_benchmark and multi:
        within = fit(frame, "score ~ algorithm * benchmark", exclusions=left_out)
        within.objective = results.objective
        for v in within.verdicts(alpha=alpha, df=df, by="benchmark"):
            verdicts.append(Verdict(
                a=v.a, b=v.b, outcome=v.outcome, method=v.method,
                scope=Scope(benchmark=v.scope.benchmark), evidence=v.evidence,
                objective=v.objective, explanation=v.explanation, effect=v.effect,
                unit=v.unit, n=int((frame["benchmark"].astype(str) == v.scope.benchmark).sum()),
                details=v.details))
    return verdicts
