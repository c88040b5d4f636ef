"""The paper kit: what a benchmark paper prints, fed by the report's error-controlled answer.

:func:`results_table` builds the results table (algorithms x benchmarks, a
cell statistic, the best per benchmark in bold, markers, compact letters, an
average-rank row) from a :class:`~benchverdict.report.Comparison`'s
relations; :class:`ResultsTable` renders it as LaTeX (booktabs), Markdown,
HTML and CSV. :mod:`benchverdict.paper.numbers` holds the number formatting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.paper.numbers import decimals_for, fixed, scale_exponent
    from benchverdict.paper.table import (
        CELL_COLUMNS,
        ORIENTATIONS,
        STATISTICS,
        SUMMARY_COLUMNS,
        ResultsTable,
        decide_cells,
        relation_letters,
        results_table,
    )

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'CELL_COLUMNS': 'benchverdict.paper.table',
    'ORIENTATIONS': 'benchverdict.paper.table',
    'ResultsTable': 'benchverdict.paper.table',
    'STATISTICS': 'benchverdict.paper.table',
    'SUMMARY_COLUMNS': 'benchverdict.paper.table',
    'decide_cells': 'benchverdict.paper.table',
    'decimals_for': 'benchverdict.paper.numbers',
    'fixed': 'benchverdict.paper.numbers',
    'relation_letters': 'benchverdict.paper.table',
    'results_table': 'benchverdict.paper.table',
    'scale_exponent': 'benchverdict.paper.numbers',
}

__all__ = [
    "CELL_COLUMNS",
    "ORIENTATIONS",
    "STATISTICS",
    "SUMMARY_COLUMNS",
    "ResultsTable",
    "decide_cells",
    "decimals_for",
    "fixed",
    "relation_letters",
    "results_table",
    "scale_exponent",
]

load_on_first_use(__name__)
