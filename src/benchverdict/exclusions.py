"""One record of what was left out and why: :class:`Exclusion` and its one column set.

Validation drops invalid input rows, an adapter drops failed trials, a view
leaves out runs without an incumbent, a block matrix drops blocks and seeds,
an analysis leaves out cells or benchmarks at a budget. Each of them says
what it left out with the same record, and every table of such records has
the columns :data:`EXCLUSION_COLUMNS`, in that order:

``analysis``, ``step``
    Who left it out: ``"validation"`` for what was dropped when the data
    were read, else the analysis (``"ranks"``, ``"lmem"``, ...) and its
    sub-step (``"rank blocks"``, ``"incumbents at budget 2"``, ...).
``unit``
    What kind of thing it is: ``"row"`` (an input row), ``"run"`` (one
    algorithm x benchmark x seed), ``"cell"`` (one algorithm x benchmark or
    block x algorithm), ``"seed"``, ``"benchmark"``, ``"draw"``, ...
``algorithm``, ``benchmark``, ``seed``, ``budget``, ``row``
    Where it is, as far as the producer knows (``row``: the input row's
    label).
``columns``
    The input columns at fault (``"score; budget"``), for rows.
``reason``
    Why, in words (several reasons of one row are joined by ``"; "``).

A producer fills the fields it knows and leaves the others missing
(``None``). The summaries that outputs print (:func:`rows_by_reason`,
:func:`summarise_steps`) are views of this one table, not other schemas.

This module sits below every analysis and the data layer: it imports only
the standard library, numpy and pandas.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True, kw_only=True)
class Exclusion:
    """One thing left out of an analysis (or of the data), and why.

    Attributes
    ----------
    analysis : str or None
        Who left it out: ``"validation"`` or an analysis name.
    step : str or None
        The sub-step that left it out.
    unit : str
        What it is: ``"row"``, ``"run"``, ``"cell"``, ``"seed"``,
        ``"benchmark"``, ``"draw"``, ...
    algorithm, benchmark, seed : object or None
        The labels that locate it, where known.
    budget : float or None
        The budget it was left out at, where one applies.
    row : object or None
        The input row's label, for rows.
    columns : str or None
        The input columns at fault, for rows (``"; "``-joined).
    reason : str
        Why it was left out.

    Examples
    --------
    >>> e = Exclusion(unit="run", algorithm="a", benchmark="p", seed=0, budget=2.0,
    ...               reason="no observation at or below budget 2")
    >>> e.as_dict()["unit"], e.as_dict()["row"] is None
    ('run', True)
    """

    analysis: str | None = None
    step: str | None = None
    unit: str
    algorithm: Any = None
    benchmark: Any = None
    seed: Any = None
    budget: float | None = None
    row: Any = None
    columns: str | None = None
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.unit, str) or not self.unit:
            raise ValueError(f"an exclusion needs a unit (row, run, cell, ...), got {self.unit!r}")
        if not isinstance(self.reason, str):
            raise TypeError(f"an exclusion's reason is a str, got {self.reason!r}")

    def as_dict(self) -> dict[str, Any]:
        """The record as ``{column: value}``, in the order of :data:`EXCLUSION_COLUMNS`."""
        return {name: getattr(self, name) for name in EXCLUSION_COLUMNS}

    @classmethod
    def from_mapping(cls, record: Mapping[str, Any], **defaults: Any) -> Exclusion:
        """The record of ``record``'s fields; ``defaults`` fill the fields it leaves missing.

        A key that is not a column of :data:`EXCLUSION_COLUMNS` raises: a
        record never loses a field silently.

        Examples
        --------
        >>> Exclusion.from_mapping({"algorithm": "a", "seed": float("nan")},
        ...                        unit="run", reason="late").seed is None
        True
        """
        unknown = [k for k in record if k not in EXCLUSION_COLUMNS]
        if unknown:
            raise ValueError(f"not exclusion fields: {unknown}; an exclusion record has "
                             f"{list(EXCLUSION_COLUMNS)}")
        values = {k: None if is_missing(v) else v for k, v in record.items()}
        for key, value in defaults.items():
            if values.get(key) is None:
                values[key] = value
        return cls(**values)


#: The one column set of every exclusion table the package produces (the fields of
#: :class:`Exclusion`, in order).
EXCLUSION_COLUMNS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Exclusion))

#: Columns of :func:`rows_by_reason`, the per-column summary of excluded input rows.
ROWS_BY_REASON = ("column", "reason", "rows")
#: Columns of :func:`summarise_steps`, the per-step summary of every record.
STEP_SUMMARY = ("analysis", "step", "what", "count", "examples", "reason")


def is_missing(value: Any) -> bool:
    """Whether ``value`` is a missing field (``None``, NaN, ``pd.NA``, ``NaT``).

    Examples
    --------
    >>> is_missing(None), is_missing(float("nan")), is_missing(0), is_missing(("p", 1))
    (True, True, False, False)
    """
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a tuple or an array is a value, not a missing one
        return False


def empty_exclusions() -> pd.DataFrame:
    """An exclusion table without records (the columns of :data:`EXCLUSION_COLUMNS`).

    Examples
    --------
    >>> list(empty_exclusions().columns) == list(EXCLUSION_COLUMNS)
    True
    """
    return pd.DataFrame({c: pd.Series(dtype=object) for c in EXCLUSION_COLUMNS})


def exclusions_frame(records: Iterable[Exclusion | Mapping[str, Any]],
                     **defaults: Any) -> pd.DataFrame:
    """The tidy exclusion table of ``records`` (columns :data:`EXCLUSION_COLUMNS`).

    Parameters
    ----------
    records : iterable of Exclusion or mapping
        The records; a mapping has some of the columns (any other key raises).
    **defaults
        Values for the fields a record leaves missing (e.g. ``analysis``,
        ``step``, ``unit``, ``reason``).

    Returns
    -------
    pandas.DataFrame
        One row per record, object columns, ``None`` where a field is missing.

    Examples
    --------
    >>> frame = exclusions_frame([{"algorithm": "a", "seed": 0}, {"algorithm": "b"}],
    ...                          analysis="lmem", unit="run", reason="late")
    >>> frame[["analysis", "unit", "algorithm", "seed", "reason"]].values.tolist()
    [['lmem', 'run', 'a', 0, 'late'], ['lmem', 'run', 'b', None, 'late']]
    """
    rows = []
    for record in records:
        if isinstance(record, Exclusion):
            record = {k: v for k, v in record.as_dict().items() if v is not None}
        rows.append(Exclusion.from_mapping(record, **defaults).as_dict())
    if not rows:
        return empty_exclusions()
    return pd.DataFrame(rows, columns=list(EXCLUSION_COLUMNS), dtype=object)


def exclusions_table(table: pd.DataFrame, **defaults: Any) -> pd.DataFrame:
    """``table`` as an exclusion table: its columns in order, the missing ones added.

    The column-wise form of :func:`exclusions_frame`, for tables of many
    records (every invalid row of a large input). ``defaults`` fill the
    missing values of their columns. A column that is not one of
    :data:`EXCLUSION_COLUMNS` raises, and so does a record without a
    ``unit`` or a ``reason`` once the defaults are applied.

    Examples
    --------
    >>> t = exclusions_table(pd.DataFrame({"row": [3], "columns": ["y"],
    ...                                    "reason": ["missing score (NaN)"]}), unit="row")
    >>> t[["unit", "row", "columns", "reason"]].values.tolist()
    [['row', 3, 'y', 'missing score (NaN)']]
    """
    unknown = [c for c in table.columns if c not in EXCLUSION_COLUMNS]
    if unknown:
        raise ValueError(f"not exclusion columns: {unknown}; an exclusion table has "
                         f"{list(EXCLUSION_COLUMNS)}")
    if (tuple(table.columns) == EXCLUSION_COLUMNS and all(
            table[c].dtype == object for c in EXCLUSION_COLUMNS) and not any(
            table[c].isna().any() for c in defaults)):
        out = table
    else:
        out = pd.DataFrame(index=table.index)
        for column in EXCLUSION_COLUMNS:
            values = (table[column].astype(object) if column in table.columns
                      else pd.Series(None, index=table.index, dtype=object))
            if column in defaults:
                values = values.where(values.notna(), defaults[column])
            out[column] = values.where(values.notna(), None).astype(object)
    for required in ("unit", "reason"):
        if len(out) and out[required].isna().any():
            raise ValueError(f"{int(out[required].isna().sum())} exclusion record(s) have "
                             f"no {required}")
    return out


def concat_exclusions(tables: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """The records of several exclusion tables, in order, as one table (a fresh index).

    Examples
    --------
    >>> a = exclusions_frame([{"row": 1}], unit="row", reason="x")
    >>> b = exclusions_frame([{"row": 2}], unit="row", reason="y")
    >>> concat_exclusions([a, empty_exclusions(), b])["row"].tolist()
    [1, 2]
    """
    parts = [exclusions_table(t) for t in tables if len(t)]
    if not parts:
        return empty_exclusions()
    return pd.concat(parts, ignore_index=True).astype(object)


def rows_by_reason(exclusions: pd.DataFrame) -> pd.DataFrame:
    """How many input rows were excluded per column and reason (columns :data:`ROWS_BY_REASON`).

    A summary view of the records with ``unit`` ``"row"``: one record per
    dropped row, so the counts add up to the rows dropped. Records without
    columns are counted under ``""``.

    Examples
    --------
    >>> ex = exclusions_frame([{"row": r, "columns": "y"} for r in (1, 2)],
    ...                       unit="row", reason="missing score (NaN)")
    >>> rows_by_reason(ex).values.tolist()
    [['y', 'missing score (NaN)', 2]]
    """
    rows = exclusions[exclusions["unit"] == "row"] if len(exclusions) else exclusions
    if not len(rows):
        return pd.DataFrame({c: pd.Series(dtype=object) for c in ROWS_BY_REASON})
    keys = pd.DataFrame({"column": rows["columns"].fillna(""),
                         "reason": rows["reason"].fillna("")})
    return (keys.groupby(["column", "reason"], sort=True).size().rename("rows")
            .reset_index()[list(ROWS_BY_REASON)])


def _label(record: Mapping[str, Any]) -> str:
    """Where one record is, in words: ``a / p / seed 0``, ``row 12``, ..."""
    parts = [str(record[k]) for k in ("algorithm", "benchmark") if not is_missing(record.get(k))]
    if not is_missing(record.get("seed")):
        parts.append(f"seed {record['seed']}")
    budget = record.get("budget")
    if not is_missing(budget) and record.get("unit") != "run":
        parts.append(f"budget {budget:g}" if isinstance(budget, (int, float, np.number))
                     else f"budget {budget}")
    if not is_missing(record.get("row")):
        parts.append(f"row {record['row']}")
    return " / ".join(parts) or str(record.get("reason", ""))


def _reason_text(record: Mapping[str, Any]) -> str:
    reason = "" if is_missing(record.get("reason")) else str(record["reason"])
    columns = record.get("columns")
    return reason if is_missing(columns) else f"{columns}: {reason}"


def summarise_steps(exclusions: pd.DataFrame, max_examples: int = 5) -> pd.DataFrame:
    """Count the records per analysis, step and unit, with examples and their reasons.

    A summary view (columns :data:`STEP_SUMMARY`; ``what`` is the records'
    ``unit``): the count of records, up to ``max_examples`` of them and
    their reasons (prefixed by the columns at fault, for rows): one reason as
    it is, several with their counts, the commonest first.

    Examples
    --------
    >>> ex = exclusions_frame([{"seed": s} for s in (0, 1)], analysis="lmem",
    ...                       step="incumbents", unit="run", algorithm="a", benchmark="p",
    ...                       budget=2.0, reason="late")
    >>> summarise_steps(ex)[["analysis", "what", "count", "examples"]].values.tolist()
    [['lmem', 'run', 2, 'a / p / seed 0; a / p / seed 1']]
    """
    if exclusions is None or not len(exclusions):
        return pd.DataFrame(columns=list(STEP_SUMMARY))
    rows = []
    keys = ["analysis", "step", "unit"]
    for key, group in exclusions.groupby(keys, sort=False, dropna=False):
        records = group.to_dict("records")
        examples = "; ".join(_label(r) for r in records[:max_examples])
        if len(records) > max_examples:
            examples += f"; ... ({len(records) - max_examples} more)"
        reasons = pd.Series([_reason_text(r) for r in records]).value_counts(sort=False)
        analysis, step, unit = (None if is_missing(k) else k for k in key)
        rows.append({"analysis": analysis, "step": step, "what": unit, "count": len(records),
                     "examples": examples, "reason": _reasons_text(reasons)})
    return pd.DataFrame(rows, columns=list(STEP_SUMMARY))


#: How many distinct reasons a summary row names (the others are counted).
MAX_SUMMARY_REASONS = 3


def _reasons_text(reasons: pd.Series) -> str:
    """One reason as it is; several, the commonest first, each with its count.

    Examples
    --------
    >>> _reasons_text(pd.Series({"late": 2}))
    'late'
    >>> _reasons_text(pd.Series({"a": 1, "b": 3, "c": 1, "d": 1}))
    'b (3 records); a (1); c (1); and 1 other reason (1 record)'
    """
    if not len(reasons):
        return ""
    if len(reasons) == 1:
        return str(reasons.index[0])
    # The commonest first; equal counts in the order met (a stable sort).
    ordered = reasons.iloc[np.argsort(-reasons.to_numpy(), kind="stable")]
    shown = [f"{ordered.index[0]} ({int(ordered.iloc[0])} record"
             f"{'s' if ordered.iloc[0] != 1 else ''})"]
    shown += [f"{r} ({int(n)})" for r, n in ordered.iloc[1:MAX_SUMMARY_REASONS].items()]
    rest = ordered.iloc[MAX_SUMMARY_REASONS:]
    if len(rest):
        n = int(rest.sum())
        shown.append(f"and {len(rest)} other reason{'s' if len(rest) != 1 else ''} "
                      f"({n} record{'s' if n != 1 else ''})")
    return "; ".join(shown)


__all__ = ["EXCLUSION_COLUMNS", "ROWS_BY_REASON", "STEP_SUMMARY", "Exclusion",
           "concat_exclusions", "empty_exclusions", "exclusions_frame", "exclusions_table",
           "is_missing", "rows_by_reason", "summarise_steps"]
