"""The comparison report: run every analysis that applies, reconcile the verdicts, render.

:func:`reconcile` works on any list of verdicts; :func:`compare` runs the
analysis modules on a :class:`~benchverdict.Results` and returns a
:class:`Comparison` that renders to HTML, Markdown, LaTeX and JSON. Its
``headlines``, ``relations``, ``groups``, ``contradictions`` and
``power_gaps`` tables (columns ``*_COLUMNS``) hold the error-controlled answer.
"""

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
