"""benchverdict: which algorithm is better, by how much, at which budget, and how sure.

The unified :class:`Results` schema feeds four independent analysis modules
(``benchverdict.tuning``, ``benchverdict.lmem``, ``benchverdict.ranks``,
``benchverdict.dse``), each of which states its conclusions as
:class:`Verdict` records that :func:`compare` reconciles into a report.

Submodules and the names below are imported on first use (PEP 562, as scipy
does), so ``import benchverdict`` is quick and loads neither pandas nor
matplotlib; ``bv.ranks`` or ``bv.Results`` imports what it needs then.

Examples
--------
>>> import benchverdict as bv
>>> from benchverdict.results import _example_small
>>> report = bv.compare(_example_small(), analyses=["ranks"], progress=False)
>>> sorted(report.verdict_table["module"].unique())
['ranks']
>>> bv.ranks.__name__
'benchverdict.ranks'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from benchverdict._version import __version__

if TYPE_CHECKING:
    from benchverdict import dse, io, leaderboard, lmem, ranks, report, scales, stats, tuning
    from benchverdict._validation import Problem, ValidationError
    from benchverdict.describe import Description
    from benchverdict.io import read
    from benchverdict.report import Comparison, compare
    from benchverdict.results import BlockMatrix, Results
    from benchverdict.scales import ScaleCheck, scale_check, standardise_per_benchmark
    from benchverdict.verdict import (
        Effect,
        Evidence,
        Scope,
        Verdict,
        verdicts_from_json,
        verdicts_to_frame,
        verdicts_to_json,
    )

#: Submodules reachable as ``benchverdict.<name>`` without importing them first.
SUBMODULES = ("dse", "effects", "examples", "families", "io", "leaderboard", "lmem", "ranks",
              "report", "scales", "stats", "tuning")

#: The public names of the package, by the module that defines them.
_HOMES = {
    "BlockMatrix": "results",
    "Comparison": "report",
    "Description": "describe",
    "Effect": "verdict",
    "Evidence": "verdict",
    "Problem": "_validation",
    "Results": "results",
    "ScaleCheck": "scales",
    "Scope": "verdict",
    "ValidationError": "_validation",
    "Verdict": "verdict",
    "compare": "report",
    "read": "io",
    "from_dask_frame": "io",
    "scale_check": "scales",
    "standardise_per_benchmark": "scales",
    "verdicts_from_json": "verdict",
    "verdicts_to_frame": "verdict",
    "verdicts_to_json": "verdict",
}

__all__ = [
    "BlockMatrix", "Comparison", "Description", "Effect", "Evidence", "Problem", "Results",
    "ScaleCheck", "Scope", "ValidationError", "Verdict", "__version__", "compare", "dse",
    "effects", "examples", "families", "from_dask_frame", "io", "leaderboard", "lmem", "ranks",
    "read", "report", "scale_check", "scales", "standardise_per_benchmark", "stats", "tuning",
    "verdicts_from_json", "verdicts_to_frame", "verdicts_to_json",
]


def __getattr__(name: str) -> Any:
    """Import a submodule or a public name on first use (PEP 562)."""
    if name in SUBMODULES:
        value = importlib.import_module(f"benchverdict.{name}")
    elif name in _HOMES:
        value = getattr(importlib.import_module(f"benchverdict.{_HOMES[name]}"), name)
    else:
        raise AttributeError(f"module 'benchverdict' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    # The public names only: not the helpers this file imports (Any, importlib, ...).
    return sorted(__all__)
