"""The schema's vocabulary: roles, objective, kind, and the exclusion record.

The lowest module of :mod:`benchverdict.results`: the names here are read by
validation, by the views, by :class:`~benchverdict.results.core.Results` and by
the Dask engine, and this module imports none of them.
"""

from __future__ import annotations

from typing import Literal

import pandas as pd

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


#: Columns of ``Results.exclusions``: one record per input row dropped at validation
#: (``unit`` ``"row"``, ``row`` its index label) or per run a view left out (``unit`` ``"run"``,
#: with its ``algorithm``, ``benchmark`` and ``seed``); ``columns`` and ``reasons`` say why.
EXCLUSION_COLUMNS = ("unit", "row", "algorithm", "benchmark", "seed", "columns", "reasons")


#: How a view's ``kind_reason`` starts (:meth:`Results.at_budget`, :meth:`Results.final`).
VIEW = "a view: "


class NoIncumbentsError(ValueError):
    """No run has an observation at or below the requested budget (:meth:`Results.at_budget`)."""


#: How a view's exclusion record for a run without an incumbent starts.
NO_INCUMBENT = "no observation at or below budget"


def empty_exclusions() -> pd.DataFrame:
    """An exclusions table without records (the columns of :data:`EXCLUSION_COLUMNS`).

    Examples
    --------
    >>> list(empty_exclusions().columns) == list(EXCLUSION_COLUMNS)
    True
    """
    return pd.DataFrame({c: pd.Series(dtype=object) for c in EXCLUSION_COLUMNS})


def exclusions_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the columns of :data:`EXCLUSION_COLUMNS` first.

    Records made by validation or an adapter (``row``, ``columns``,
    ``reasons``) are rows: ``unit`` ``"row"``, no run named. Other columns
    an adapter adds are kept after these.
    """
    if (tuple(table.columns[:len(EXCLUSION_COLUMNS)]) == EXCLUSION_COLUMNS
            and not table["unit"].isna().any()):
        return table
    out = table.copy()
    for column in EXCLUSION_COLUMNS:
        if column not in out.columns:
            out[column] = None
        out[column] = out[column].astype(object)
    # Records an adapter concatenated without a unit are rows of the input.
    out["unit"] = out["unit"].where(out["unit"].notna(), "row")
    extra = [c for c in out.columns if c not in EXCLUSION_COLUMNS]
    return out[[*EXCLUSION_COLUMNS, *extra]]



__all__ = ["EXCLUSION_COLUMNS", "ID_ROLES", "NO_INCUMBENT", "SINGLE_BENCHMARK", "VIEW", "Kind",
           "NoIncumbentsError", "Objective", "check_objective", "empty_exclusions",
           "exclusions_table"]
