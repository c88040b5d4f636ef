"""The unified results schema: one validated, immutable long table.

A :class:`Results` holds benchmark results in long format with canonical
roles:

========== ==========================================================
role       meaning
========== ==========================================================
algorithm  the method being compared (category)
benchmark  the problem instance (category; a constant if there is one)
seed       the replicate: an HPO run's seed or a random-search run (category)
budget     optional tuning effort or fidelity (float64)
score      the measured outcome (float64, in the user's direction)
========== ==========================================================

plus any metafeature columns, and ``objective`` (``"maximize"`` or
``"minimize"``), which every analysis honours.

Two kinds of data fit the schema (``Results.kind``):

* ``"trials"``: every row is an independent random-search draw (a
  configuration trained and scored once). ``budget``, if given, is the trial
  order within a seed's search. Tuning curves and DSE use these rows
  directly; the incumbent of a seed's search after ``b`` trials is the best
  score among its first ``b`` trials.
* ``"runs"``: every row is the incumbent of an HPO run at a budget, so scores
  never get worse along the budget within a run. Rank tests and LMEMs use
  these; they are not IID draws and tuning curves refuse them.

The package, one idea per module, each importing only those above it in
this list (no import circle, see ``tests/test_import_graph.py``):

* :mod:`~benchverdict.results.schema`: roles, objective, kind, and
  ``Results.exclusions`` (the one exclusion record and its columns are
  :mod:`benchverdict.exclusions`'s, below this package);
* :mod:`~benchverdict.results.validation`: a pandas frame to the canonical
  frame, shared by the in-memory and the Dask engine;
* :mod:`~benchverdict.results.views`: incumbents, trajectories, run budgets
  and completeness, computed from the canonical frame;
* :mod:`~benchverdict.results.blocks`: :class:`BlockMatrix` for rank tests;
* :mod:`~benchverdict.results.engine`: the :class:`Engine` protocol, the
  steps an engine that keeps its rows elsewhere runs itself;
* :mod:`~benchverdict.results.core`: the :class:`Results` class.

Every name is re-exported here: import from ``benchverdict.results``.
"""

from __future__ import annotations

from benchverdict._validation import ValidationError, format_rows
from benchverdict.results.blocks import BLOCK_DROPPED, RUN_LEFT_OUT, BlockMatrix
from benchverdict.results.core import Results
from benchverdict.results.core import _example_small as _example_small
from benchverdict.results.engine import Engine, InMemoryEngine
from benchverdict.results.schema import (
    EXCLUSION_COLUMNS,
    ID_ROLES,
    NO_INCUMBENT,
    SINGLE_BENCHMARK,
    VIEW,
    Kind,
    NoIncumbentsError,
    Objective,
    check_objective,
    empty_exclusions,
    exclusions_table,
)
from benchverdict.results.validation import (
    KIND_NEEDED,
    infer_kind,
    kind_needed_problem,
    metafeature_values,
    validate_frame,
)

# The names these had when results was one module; modules outside the package import the
# new names, these keep code written against the old ones working.
_empty_exclusions = empty_exclusions
_exclusions_table = exclusions_table
_validate = validate_frame
_infer_kind = infer_kind
_metafeature_values = metafeature_values

__all__ = ["BLOCK_DROPPED", "EXCLUSION_COLUMNS", "ID_ROLES", "KIND_NEEDED", "NO_INCUMBENT",
           "RUN_LEFT_OUT", "SINGLE_BENCHMARK", "VIEW", "BlockMatrix", "Engine", "InMemoryEngine",
           "Kind", "NoIncumbentsError", "Objective", "Results", "ValidationError",
           "check_objective", "format_rows", "kind_needed_problem"]
