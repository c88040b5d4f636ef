"""Geburek et al.'s LMEM sanity checks on a ``DaskResults``, fitted per partition.

The three checks of :mod:`benchverdict.lmem.sanity` compare nested mixed
models; their fits go through :func:`benchverdict.lmem.fit`, which on a
``DaskResults`` sums the cross-products per partition
(:mod:`benchverdict._dask.lmem`). So:

* **seed dependency** and **benchmark informativeness** run by default on
  each run's final incumbent (or the incumbents at a budget): a per-run
  reduction (``final()``, ``at_budget()``) of at most one row per run, which
  the in-memory check then takes as it is;
* **budget relevance** uses every row: :func:`budget_relevance_partitioned`
  fits its three models on the partitions themselves, so it runs at any
  size (the same models, tests and verdict as in memory);
* the seed and benchmark checks on *every* row (``budget=None``) subset the
  rows per algorithm or benchmark; they run when the rows fit on the client
  (:data:`~benchverdict._dask.results.MAX_CLIENT_ROWS`) and otherwise fail
  with a :class:`~benchverdict._dask.results.RowsTooLargeError` that says
  why and what to do, recorded as that check's failure (the others run).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from benchverdict._dask.lmem import sum_cross_products_once
from benchverdict.lmem import exclusions as _exclusions
from benchverdict.lmem.fitting import fit
from benchverdict.lmem.model import DegenerateFitError
from benchverdict.lmem.sanity import SanityCheck, _compare, _degenerate_glrt, _quiet_glrt


def budget_relevance_partitioned(results: Any, *, alpha: float = 0.05) -> SanityCheck:
    """:func:`benchverdict.lmem.sanity.budget_relevance` with every fit summed per partition.

    The models, tests, table and verdict are those of the in-memory check
    (``score ~ algorithm [+ (1|benchmark)]`` against ``+ budget`` and against
    ``algorithm * budget``, by GLRT); only the rows stay in their
    partitions. The number of budgets and benchmarks come from the
    per-partition reductions the ``DaskResults`` keeps.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> from benchverdict.results import Results
    >>> mem = simulate_results(n_benchmarks=3, n_seeds=5, budgets=(1, 2, 3, 4),
    ...                        budget_slope={"A": -1.0}, rng=2)
    >>> roles = dict(algorithm="algorithm", benchmark="benchmark", seed="seed",
    ...              budget="budget", score="score", objective=mem.objective)
    >>> from benchverdict.io import from_dask_frame
    >>> dk = from_dask_frame(dd.from_pandas(mem.table.reset_index(drop=True),
    ...                                        npartitions=4), **roles)
    >>> budget_relevance_partitioned(dk).verdict
    'interaction'
    """
    if not results.has_budget:
        raise ValueError("the budget check needs a budget column (Results.from_frame("
                         "budget=...); on the command line --budget COLUMN).")
    if len(results.budgets) < 2:
        raise ValueError("the budget check needs at least two distinct budgets.")
    left_out = _exclusions.exclusions_of(results)
    used = results.rows_used()  # the in-memory check's own words
    n = _exclusions.counts(left_out)
    bench = " + (1|benchmark)" if len(results.benchmarks) > 1 else ""
    f0, f_simple = "score ~ algorithm" + bench, "score ~ algorithm + budget" + bench
    f_inter = "score ~ algorithm * budget" + bench
    sum_cross_products_once(results, [f0, f_simple, f_inter])  # nested: one pass for all
    simple, _, m_simple = _compare(results, f0, f_simple, alpha)
    if m_simple is None:
        raise DegenerateFitError(f"{f0} or {f_simple} reproduces the scores exactly; the "
                                 "budget check needs residual variation.")
    try:
        m_inter = fit(results, f_inter, start=m_simple)
    except DegenerateFitError:
        inter = _degenerate_glrt(str(m_simple.formula), f_inter, alpha, m_simple)
        m_inter = None
    else:
        inter = _quiet_glrt(m_simple, m_inter, alpha)
    if inter.p_value < alpha:
        verdict = "interaction"
    elif simple.p_value < alpha:
        verdict = "simple"
    else:
        verdict = "none"
    table = pd.DataFrame([
        {"test": "budget (simple effect)", "chi2": simple.chi2, "df": simple.df,
         "p_value": simple.p_value},
        {"test": "algorithm:budget (interaction)", "chi2": inter.chi2, "df": inter.df,
         "p_value": inter.p_value},
    ])
    details: dict[str, Any] = dict(n)
    if m_inter is not None:
        fe = m_inter.fixef
        algs = m_inter.grid.factors["algorithm"]
        slope = [float(fe["budget"] + fe.get(f"algorithm{a}:budget", 0.0)) for a in algs]
        details["plot"] = (list(algs), slope, [verdict == "interaction"] * len(algs),
                           "slope in budget")
        details["slopes"] = dict(zip(algs, slope))
    flagged = ("budget",) if verdict != "none" else ()
    return SanityCheck("budget_relevance", verdict, flagged,
                       {"simple": simple, "interaction": inter}, table, alpha, used, details)


__all__ = ["budget_relevance_partitioned"]
