"""The schema's vocabulary: roles, objective, kind, and ``Results.exclusions``.

The lowest module of :mod:`benchverdict.results`: the names here are read by
validation, by the views, by :class:`~benchverdict.results.core.Results` and by
the Dask engine, and this module imports none of them. The exclusion record
and its columns are :mod:`benchverdict.exclusions`'s, shared with every analysis.
"""

from __future__ import annotations

from typing import Literal

import pandas as pd

# The one exclusion record and column set live below the data layer; these names are
# re-exported here for the modules of the data layer and for users.
from benchverdict.exclusions import EXCLUSION_COLUMNS, empty_exclusions
from benchverdict.exclusions import exclusions_table as _exclusions_table

Objective = Literal["maximize", "minimize"]
Kind = Literal["trials", "runs"]
ID_ROLES = ("algorithm", "benchmark", "seed")
#: The benchmark label given to data sets with a single benchmark.
SINGLE_BENCHMARK = "all"


def check_objective(objective: object) -> Objective:
    """Return ``objective`` if it is ``"maximize"`` or ``"minimize"``, else raise.

    Examples
    --------
    >>> check_objective("minimize")
    'minimize'
    """
    if objective not in ("maximize", "minimize"):
        raise ValueError(
            f"objective must be 'maximize' or 'minimize', got {objective!r}. It is required "
            "because benchverdict never guesses whether larger scores are better."
        )
    return objective  # type: ignore[return-value]


#: How a view's ``kind_reason`` starts (:meth:`Results.at_budget`, :meth:`Results.final`).
VIEW = "a view: "


class NoIncumbentsError(ValueError):
    """No run has an observation at or below the requested budget (:meth:`Results.at_budget`)."""


#: How a view's exclusion record for a run without an incumbent starts.
NO_INCUMBENT = "no observation at or below budget"


def exclusions_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as ``Results.exclusions``: the columns of :data:`EXCLUSION_COLUMNS`.

    Records made by validation or an adapter (``row``, ``columns``,
    ``reason``) are rows of the input, dropped when the data were read:
    ``unit`` ``"row"``, ``analysis`` and ``step`` ``"validation"`` unless
    given. A column outside :data:`EXCLUSION_COLUMNS` raises.

    Examples
    --------
    >>> t = exclusions_table(pd.DataFrame({"row": ["t7"], "columns": ["state"],
    ...                                    "reason": ["failed"]}))
    >>> t[["analysis", "unit", "row", "reason"]].values.tolist()
    [['validation', 'row', 't7', 'failed']]
    """
    unit = (table["unit"] if "unit" in table.columns
            else pd.Series(None, index=table.index, dtype=object))
    unit = unit.where(unit.notna(), "row")
    rows = unit == "row"
    fill = {"unit": unit}
    for who in ("analysis", "step"):
        values = (table[who] if who in table.columns
                  else pd.Series(None, index=table.index, dtype=object))
        if (values.isna() & rows).any():
            fill[who] = values.astype(object).where(~(values.isna() & rows), "validation")
    if "unit" in table.columns and len(fill) == 1 and not table["unit"].isna().any():
        return _exclusions_table(table)
    return _exclusions_table(table.assign(**fill))


__all__ = ["EXCLUSION_COLUMNS", "ID_ROLES", "NO_INCUMBENT", "SINGLE_BENCHMARK", "VIEW", "Kind",
           "NoIncumbentsError", "Objective", "check_objective", "empty_exclusions",
           "exclusions_table"]
