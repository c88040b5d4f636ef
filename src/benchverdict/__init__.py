"""benchverdict: which algorithm is better, by how much, at which budget, and how sure.

The unified :class:`Results` schema feeds four independent analysis modules
(``benchverdict.tuning``, ``benchverdict.lmem``, ``benchverdict.ranks``,
``benchverdict.dse``), each of which states its conclusions as
:class:`Verdict` records that :func:`compare` reconciles into a report.

Examples
--------
>>> import benchverdict as bv
>>> from benchverdict.results import _example_small
>>> report = bv.compare(_example_small(), analyses=["ranks"], progress=False)
>>> sorted(report.verdicts["module"].unique())
['ranks']
"""

from benchverdict._validation import Problem, ValidationError
from benchverdict._version import __version__
from benchverdict.describe import Description
from benchverdict.io import read
from benchverdict.report import Comparison, compare
from benchverdict.results import BlockMatrix, Results
from benchverdict.verdict import (
    Effect,
    Evidence,
    Scope,
    Verdict,
    verdicts_from_json,
    verdicts_to_frame,
    verdicts_to_json,
)

__all__ = [
    "BlockMatrix",
    "Comparison",
    "Description",
    "Effect",
    "Evidence",
    "Problem",
    "Results",
    "Scope",
    "ValidationError",
    "Verdict",
    "__version__",
    "compare",
    "read",
    "verdicts_from_json",
    "verdicts_to_frame",
    "verdicts_to_json",
]
