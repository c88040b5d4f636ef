"""Validation of a user's frame against the unified schema.

Every check returns :class:`Problem` records instead of raising at once, so
that ``benchverdict validate`` can show every problem in one pass and
``Results.from_frame(..., on_invalid="drop")`` can record each dropped row.

Problems come in two kinds:

* *row problems* (a missing id, a non-numeric or non-finite score or budget,
  a duplicated key): the offending rows can be dropped and recorded;
* *frame problems* (a missing column, an empty frame, mixed types in an id
  column, fewer than two algorithms): no row can be dropped to fix them, so
  they always raise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: How many offending row labels a message shows before it says "and N more".
SHOWN_ROWS = 5


@dataclass(frozen=True)
class Problem:
    """One validation problem.

    Attributes
    ----------
    column : str
        The user's column the problem is in (or the role for frame problems).
    reason : str
        A short machine-readable code, e.g. ``"non_finite_score"``.
    message : str
        A human-readable sentence naming the column, the first offending rows
        and the fix.
    rows : tuple
        Every offending row label (the input frame's index labels); empty for
        frame-level problems.
    droppable : bool
        Whether ``on_invalid="drop"`` can fix it by dropping ``rows``.
    """

    column: str
    reason: str
    message: str
    rows: tuple = field(default=(), repr=False)
    droppable: bool = False

    def __str__(self) -> str:
        return self.message


class ValidationError(ValueError):
    """Raised when a frame does not fit the schema.

    Attributes
    ----------
    problems : list of Problem
        Every problem found, in the order the checks ran.
    """

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        lines = [f"{len(self.problems)} problem(s) found in the results table:"]
        lines += [f"  - {p.message}" for p in self.problems]
        super().__init__("\n".join(lines))


def format_rows(rows: Sequence, shown: int = SHOWN_ROWS) -> str:
    """Render row labels as ``rows 3, 7, 9 and 12 more``."""
    rows = list(rows)
    head = ", ".join(str(r) for r in rows[:shown])
    more = len(rows) - shown
    word = "row" if len(rows) == 1 else "rows"
    return f"{word} {head}" + (f" and {more} more" if more > 0 else "")


def missing_columns(frame: pd.DataFrame, role_columns: dict[str, str]) -> list[Problem]:
    """Columns named for a role that the frame does not have."""
    problems = []
    available = list(map(str, frame.columns))
    for role, column in role_columns.items():
        if column not in frame.columns:
            problems.append(
                Problem(
                    column=column,
                    reason="missing_column",
                    message=(
                        f"column {column!r} (given as the {role} column) is not in the table; "
                        f"available columns: {available}. Fix: pass {role}=<one of these>."
                    ),
                )
            )
    return problems


def missing_ids(frame: pd.DataFrame, column: str, role: str) -> list[Problem]:
    """Missing values in an identifier column."""
    mask = frame[column].isna().to_numpy()
    if not mask.any():
        return []
    rows = tuple(frame.index[mask])
    return [
        Problem(
            column=column,
            reason=f"missing_{role}",
            message=(
                f"column {column!r} ({role}) has {len(rows)} missing value(s) at "
                f"{format_rows(rows)}. Fix: fill them in, or pass on_invalid='drop' "
                f"to drop and record these rows."
            ),
            rows=rows,
            droppable=True,
        )
    ]


def mixed_types(frame: pd.DataFrame, column: str, role: str) -> list[Problem]:
    """An object column holding more than one Python type (e.g. 1 and "1")."""
    values = frame[column]
    if not pd.api.types.is_object_dtype(values.dtype) and not pd.api.types.is_string_dtype(
        values.dtype
    ):
        return []
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if not inferred.startswith("mixed"):
        return []
    types = values.dropna().map(lambda v: type(v).__name__)
    counts = types.value_counts()
    minority = counts.index[-1]
    rows = tuple(types.index[types.to_numpy() == minority])
    summary = ", ".join(f"{n} {t}" for t, n in counts.items())
    return [
        Problem(
            column=column,
            reason="mixed_types",
            message=(
                f"column {column!r} ({role}) mixes value types ({summary}); e.g. the "
                f"{minority} values at {format_rows(rows)}. Identifiers like 1 and '1' would "
                f"silently become different groups. Fix: cast the column to one type, e.g. "
                f"df[{column!r}] = df[{column!r}].astype(str)."
            ),
            rows=rows,
            droppable=False,
        )
    ]


def numeric_column(
    frame: pd.DataFrame, column: str, role: str
) -> tuple[np.ndarray, list[Problem]]:
    """Convert a score or budget column to float64 and report bad entries.

    Returns the converted values (NaN where the entry was not a finite number)
    and the problems: non-numeric entries, missing values and infinities.
    """
    raw = frame[column]
    if pd.api.types.is_bool_dtype(raw.dtype):
        return np.full(len(raw), np.nan), [
            Problem(
                column=column,
                reason=f"non_numeric_{role}",
                message=(
                    f"column {column!r} ({role}) is boolean; a {role} must be a number. "
                    f"Fix: convert it, e.g. df[{column!r}].astype(float)."
                ),
            )
        ]
    if pd.api.types.is_numeric_dtype(raw.dtype):
        values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        non_numeric = np.zeros(len(values), dtype=bool)
    else:
        converted = pd.to_numeric(raw, errors="coerce")
        values = converted.to_numpy(dtype=np.float64, na_value=np.nan)
        non_numeric = np.isnan(values) & raw.notna().to_numpy()
    problems = []
    if non_numeric.any():
        rows = tuple(frame.index[non_numeric])
        examples = ", ".join(repr(v) for v in raw[non_numeric].head(3))
        problems.append(
            Problem(
                column=column,
                reason=f"non_numeric_{role}",
                message=(
                    f"column {column!r} ({role}) has {len(rows)} non-numeric value(s) "
                    f"({examples}) at {format_rows(rows)}. Fix: clean or convert them, or pass "
                    f"on_invalid='drop' to drop and record these rows."
                ),
                rows=rows,
                droppable=True,
            )
        )
    finite = np.isfinite(values)
    missing = np.isnan(values) & ~non_numeric
    infinite = ~finite & ~np.isnan(values)
    if missing.any():
        rows = tuple(frame.index[missing])
        problems.append(
            Problem(
                column=column,
                reason=f"missing_{role}",
                message=(
                    f"column {column!r} ({role}) has {len(rows)} missing value(s) (NaN) at "
                    f"{format_rows(rows)}. Fix: find out why these runs have no {role} "
                    f"(crashed trials?), or pass on_invalid='drop' to drop and record them."
                ),
                rows=rows,
                droppable=True,
            )
        )
    if infinite.any():
        rows = tuple(frame.index[infinite])
        problems.append(
            Problem(
                column=column,
                reason=f"non_finite_{role}",
                message=(
                    f"column {column!r} ({role}) has {len(rows)} infinite value(s) at "
                    f"{format_rows(rows)}. Fix: replace them with a finite worst-case value "
                    f"if that is what they mean, or pass on_invalid='drop' to drop and record them."
                ),
                rows=rows,
                droppable=True,
            )
        )
    return values, problems


def duplicated_keys(
    duplicated: np.ndarray, frame: pd.DataFrame, key_columns: dict[str, str]
) -> list[Problem]:
    """Rows that share their (algorithm, benchmark, seed[, budget]) key.

    ``duplicated`` is the mask of such rows; ``key_columns`` maps the key's
    roles to the user's columns.
    """
    if not duplicated.any():
        return []
    rows = tuple(frame.index[duplicated])
    first = frame.loc[rows[0]]
    key_text = ", ".join(f"{c}={_plain(first[c])!r}" for c in key_columns.values())
    key_cols = list(key_columns.values())
    roles = ", ".join(key_columns)
    return [
        Problem(
            column=", ".join(key_cols),
            reason="duplicate_key",
            message=(
                f"{len(rows)} rows share their key ({', '.join(key_cols)}) with another row, "
                f"e.g. {key_text}, at {format_rows(rows)}. Each ({roles}) must appear once. "
                f"Fix: add the column that tells them apart (a benchmark, seed or budget role "
                f"you have not mapped), aggregate them, or pass on_invalid='drop' to drop and "
                f"record every row of each duplicated key."
            ),
            rows=rows,
            droppable=True,
        )
    ]


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value
