"""The results table a benchmark paper prints: the paper kit's entry point.

:func:`results_table` takes the data and the comparison (or computes the
comparison) and returns a :class:`~benchverdict.report.results_table.ResultsTable`.
The table itself (its cells, decisions, legend and the LaTeX, Markdown, HTML
and CSV renderers) lives in :mod:`benchverdict.report.results_table`, so that
the report shows it too (its "Results table" section); its names are
re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchverdict.report.results_table import (
    CELL_COLUMNS,
    ORIENTATIONS,
    STATISTICS,
    SUMMARY_COLUMNS,
    ResultsTable,
    _cell_statistics,  # noqa: F401  (the reference-value tests read it here)
    build_results_table,
    check_options,
    decide_cells,
    relation_letters,
)

if TYPE_CHECKING:
    from benchverdict.report.runner import Comparison
    from benchverdict.results import Results

__all__ = ["CELL_COLUMNS", "ORIENTATIONS", "STATISTICS", "SUMMARY_COLUMNS", "ResultsTable",
           "decide_cells", "relation_letters", "results_table"]


def results_table(
    results: Results | Comparison,
    comparison: Comparison | None = None,
    *,
    statistic: str = "mean_sd",
    budget: float | None = None,
    orientation: str = "benchmarks",
    baseline: str | None = None,
    letters: bool = False,
    confidence: float = 0.95,
    analyses: Sequence[str] | None = None,
    alpha: float | None = None,
) -> ResultsTable:
    """The results table a paper prints, with bold and markers from the report's relations.

    Parameters
    ----------
    results : Results or Comparison
        The data (any ``kind``; the cells summarise every run's incumbent), or a
        comparison built by :func:`benchverdict.report.compare`, which keeps its
        data (then leave ``comparison`` unset).
    comparison : Comparison, optional
        The report computed from ``results`` (:func:`benchverdict.report.compare`).
        Default: computed here with ``analyses`` and ``alpha`` (no figures).
    statistic : {"mean_sd", "median_iqr", "mean_ci"}
        Mean +- SD, median [quartiles] or mean [t interval at ``confidence``]
        over the runs (seeds) of each algorithm on each benchmark.
    budget : float, optional
        Summarise incumbents at this budget; default each run's final one.
        It must be the budget the comparison's relations were decided at.
    orientation : {"benchmarks", "algorithms"}
        What goes along the rows: one row per benchmark (algorithms as columns, the average rank as
        the last row), or the transpose.
    baseline : str, optional
        Mark every cell against this algorithm (``+`` / ``-``) instead of
        against the best (``†``).
    letters : bool
        Add compact letters (a shared letter: not separated).
    confidence : float
        Level of the ``mean_ci`` intervals.
    analyses : sequence of str, optional
        The analyses ``compare`` runs when ``comparison`` is not given.
    alpha : float, optional
        The family-wise error rate when ``comparison`` is not given
        (default 0.05); with a comparison, it must be the comparison's.

    Returns
    -------
    ResultsTable

    Raises
    ------
    ValueError
        An unknown ``statistic`` or ``orientation``, a ``baseline`` that is not an
        algorithm, a comparison of other data, or a budget or alpha other
        than the comparison's.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> t = results_table(_example_small(), analyses=["lmem"], statistic="median_iqr")
    >>> t.cells["text"].tolist()
    ['0.550 [0.525, 0.575]', '0.350 [0.325, 0.375]', '0.850 [0.825, 0.875]', '0.750 [0.725, 0.775]']
    >>> from benchverdict.report import compare
    >>> comp = compare(_example_small(), analyses=["lmem"], progress=False, figures=False)
    >>> results_table(comp).cells["text"].tolist() == results_table(
    ...     _example_small(), comp).cells["text"].tolist()
    True
    """
    from benchverdict.report.runner import compare
    from benchverdict.results import Results

    if comparison is None and hasattr(results, "reconciliation"):
        # A Comparison from compare(): it keeps the data it compared.
        comparison = results
        results = getattr(comparison, "results", None)
        if results is None:
            raise ValueError("this Comparison was built without its data; pass the data too: "
                             "results_table(results, comparison).")
    if not isinstance(results, Results):
        raise TypeError(f"results must be a benchverdict Results (Results.from_frame), got "
                        f"{type(results).__name__}.")
    # The options are checked before the comparison is computed (a typo fails at once).
    check_options(results, statistic=statistic, orientation=orientation, confidence=confidence,
                  baseline=baseline, budget=budget)
    if comparison is None:
        comparison = compare(results, analyses=analyses, budget=budget, progress=False,
                             figures=False, alpha=0.05 if alpha is None else alpha)
    else:
        if analyses is not None:
            raise ValueError("analyses= chooses the analyses of a comparison computed here; "
                             "with a comparison given, its analyses decide. Leave analyses "
                             "unset, or pass no comparison.")
        if alpha is not None and not math.isclose(alpha, comparison.reconciliation.alpha):
            raise ValueError(f"alpha={alpha:g}, but the comparison's relations were decided at "
                             f"alpha={comparison.reconciliation.alpha:g}; leave alpha unset.")
    return build_results_table(results, comparison, statistic=statistic, budget=budget,
                               orientation=orientation, baseline=baseline, letters=letters,
                               confidence=confidence)
