"""The comparison report: run every analysis that applies, reconcile the verdicts, render.

:func:`reconcile` works on any list of verdicts; :func:`compare` runs the
analysis modules on a :class:`~benchverdict.Results` and returns a
:class:`Comparison` that renders to HTML, Markdown, LaTeX and JSON. Its
``headlines``, ``relations``, ``groups``, ``contradictions`` and
``power_gaps`` tables (columns ``*_COLUMNS``) hold the error-controlled answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.report.explain import (
        EXPLANATION_RULES,
        Explanation,
        MethodTraits,
        explain_disagreement,
        method_traits,
    )
    from benchverdict.report.reconcile import Ranking, Reconciliation, reconcile
    from benchverdict.report.relations import (
        CONTRADICTION_COLUMNS,
        GROUP_COLUMNS,
        HEADLINE_COLUMNS,
        POWER_GAP_COLUMNS,
        RELATION_COLUMNS,
        VOTE_COLUMNS,
    )
    from benchverdict.report.runner import (
        ANALYSES,
        AnalysisRun,
        Comparison,
        Options,
        ReportFigure,
        applicability,
        compare,
    )

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'ANALYSES': 'benchverdict.report.runner',
    'AnalysisRun': 'benchverdict.report.runner',
    'CONTRADICTION_COLUMNS': 'benchverdict.report.relations',
    'Comparison': 'benchverdict.report.runner',
    'EXPLANATION_RULES': 'benchverdict.report.explain',
    'Explanation': 'benchverdict.report.explain',
    'GROUP_COLUMNS': 'benchverdict.report.relations',
    'HEADLINE_COLUMNS': 'benchverdict.report.relations',
    'MethodTraits': 'benchverdict.report.explain',
    'Options': 'benchverdict.report.runner',
    'POWER_GAP_COLUMNS': 'benchverdict.report.relations',
    'RELATION_COLUMNS': 'benchverdict.report.relations',
    'Ranking': 'benchverdict.report.reconcile',
    'Reconciliation': 'benchverdict.report.reconcile',
    'ReportFigure': 'benchverdict.report.runner',
    'VOTE_COLUMNS': 'benchverdict.report.relations',
    'applicability': 'benchverdict.report.runner',
    'compare': 'benchverdict.report.runner',
    'explain_disagreement': 'benchverdict.report.explain',
    'method_traits': 'benchverdict.report.explain',
    'reconcile': 'benchverdict.report.reconcile',
}

__all__ = [
    "ANALYSES",
    "CONTRADICTION_COLUMNS",
    "EXPLANATION_RULES",
    "GROUP_COLUMNS",
    "HEADLINE_COLUMNS",
    "POWER_GAP_COLUMNS",
    "RELATION_COLUMNS",
    "VOTE_COLUMNS",
    "AnalysisRun",
    "Comparison",
    "Explanation",
    "MethodTraits",
    "Options",
    "Ranking",
    "Reconciliation",
    "ReportFigure",
    "applicability",
    "compare",
    "explain_disagreement",
    "method_traits",
    "reconcile",
]

load_on_first_use(__name__)
