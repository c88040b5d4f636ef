"""Validation of a user's frame against the unified schema.

Every check returns :class:`Problem` records instead of raising at once, so
that ``benchverdict validate`` can show every problem in one pass and
``Results.from_frame(..., on_invalid="drop")`` can record each dropped row.

Problems come in two kinds:

* *row problems* (a missing id, a non-numeric or non-finite score or budget,
  a duplicated key): the offending rows can be dropped and recorded;
* *frame problems* (a missing column, an empty frame, mixed types in an id
  column, names with control characters, look-alike names, fewer than two
  algorithms): no row
  can be dropped to fix them, so they always raise.

Messages are written for Python callers (``on_invalid='drop'``).
:meth:`Problem.cli_message` and :meth:`ValidationError.cli_message` render
the same text for the command line (``--on-invalid drop``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

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
    #: The message for the command line, when the automatic rewriting of
    #: Python arguments (see :func:`to_cli`) is not enough; empty otherwise.
    cli: str = field(default="", repr=False)

    def __str__(self) -> str:
        return self.message

    def cli_message(self) -> str:
        """The message with its fix written as command-line options.

        Examples
        --------
        >>> p = Problem(column="y", reason="missing_score",
        ...             message="column 'y' has NaN. Fix: pass on_invalid='drop'.")
        >>> p.cli_message()
        "column 'y' has NaN. Fix: pass --on-invalid drop."
        """
        return self.cli or to_cli(self.message)


class ValidationError(ValueError):
    """Raised when a frame does not fit the schema.

    Attributes
    ----------
    problems : list of Problem
        Every problem found, in the order the checks ran.
    """

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__(self._render([p.message for p in self.problems]))

    def _render(self, messages: list[str]) -> str:
        lines = [f"{len(messages)} problem(s) found in the results table:"]
        lines += [f"  - {m}" for m in messages]
        return "\n".join(lines)

    def cli_message(self) -> str:
        """The error with every fix written as command-line options.

        Examples
        --------
        >>> err = ValidationError([Problem(column="y", reason="r",
        ...     message="bad. Fix: pass on_invalid='drop' or algorithm=<a column>.")])
        >>> print(err.cli_message())
        1 problem(s) found in the results table:
          - bad. Fix: pass --on-invalid drop or --algorithm <a column>.
        """
        return self._render([p.cli_message() for p in self.problems])

    def for_cli(self) -> ValidationError:
        """A copy whose problems' ``message`` is the command-line rendering."""
        return ValidationError([replace(p, message=p.cli_message(), cli="")
                                for p in self.problems])

    def __reduce__(self):
        return (ValidationError, (self.problems,))


#: Python argument -> command-line option, for the arguments ``Results.from_frame``
#: and ``benchverdict.read`` share with ``benchverdict validate``.
CLI_OPTIONS: dict[str, str] = {
    "algorithm": "--algorithm",
    "benchmark": "--benchmark",
    "seed": "--seed",
    "score": "--score",
    "budget": "--budget",
    "objective": "--objective",
    "on_invalid": "--on-invalid",
    "kind": "--kind",
    "format": "--format",
    "metafeatures": "--metafeature",
}

_ARGUMENT = re.compile(
    r"(?<![\w\[.'\"])(?P<name>[a-z_][a-z0-9_]*)=(?P<value>'[^']*'|\"[^\"]*\"|<[^>]*>|\[[^\]]*\])"
)


def to_cli(text: str, options: Mapping[str, str] | None = None, *,
           fix_only: bool = True) -> str:
    """Rewrite Python arguments in a message's fix as command-line options.

    ``on_invalid='drop'`` becomes ``--on-invalid drop`` and
    ``algorithm=<a column>`` becomes ``--algorithm <a column>``. Only the
    text after ``Fix:`` is rewritten when there is one (before it, ``name=``
    may be a column and its value) unless ``fix_only`` is false, and only
    names in ``options`` (by default :data:`CLI_OPTIONS`) are touched.

    Examples
    --------
    >>> to_cli("column 'kind' has kind='x'. Fix: pass kind='trials'.")
    "column 'kind' has kind='x'. Fix: pass --kind trials."
    """
    options = CLI_OPTIONS if options is None else options
    head, sep, fix = text.partition("Fix:")
    if not sep or not fix_only:
        head, sep, fix = "", "", text

    def rewrite(match: re.Match) -> str:
        option = options.get(match["name"])
        if option is None:
            return match[0]
        value = match["value"]
        if value[0] in "'\"":
            value = value[1:-1]
            if not value or re.search(r"\s", value):
                value = repr(value)
        elif value[0] == "[":
            value = "COLUMN"
        return f"{option} {value}"

    return head + sep + _ARGUMENT.sub(rewrite, fix)


def format_rows(rows: Sequence, shown: int = SHOWN_ROWS) -> str:
    """Render row labels as ``rows 3, 7, 9 and 12 more``.

    Examples
    --------
    >>> format_rows([0, 900])
    'rows 0 and 900'
    >>> format_rows(range(8))
    'rows 0, 1, 2, 3, 4 and 3 more'
    """
    rows = list(rows)
    word = "row" if len(rows) == 1 else "rows"
    more = len(rows) - shown
    if more > 0:
        return f"{word} {', '.join(str(r) for r in rows[:shown])} and {more} more"
    if len(rows) <= 1:
        return f"{word} {', '.join(str(r) for r in rows)}"
    return f"{word} {', '.join(str(r) for r in rows[:-1])} and {rows[-1]}"


def missing_columns(frame: pd.DataFrame, role_columns: dict[str, str]) -> list[Problem]:
    """Columns named for a role that the frame does not have."""
    problems = []
    available = list(map(str, frame.columns))
    for role, column in role_columns.items():
        if column not in frame.columns:
            if role.startswith("metafeature"):
                fix = "leave it out of metafeatures=[...] or name an existing column"
                cli_fix = "leave out --metafeature " + column + " or name an existing column"
            else:
                fix = f"pass {role}=<one of these>"
                cli_fix = f"pass --{role} <one of these>"
            message = (
                f"column {column!r} (given as the {role} column) is not in the table; "
                f"available columns: {available}. Fix: "
            )
            problems.append(
                Problem(column=column, reason="missing_column", message=message + fix + ".",
                        cli=message + cli_fix + ".")
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
    if isinstance(values.dtype, pd.CategoricalDtype):
        categories = values.cat.categories
        if not pd.api.types.infer_dtype(categories, skipna=True).startswith("mixed"):
            return []
        values = values.astype(object)
    elif not pd.api.types.is_object_dtype(values.dtype) and not pd.api.types.is_string_dtype(
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
    message = (
        f"column {column!r} ({role}) mixes value types ({summary}); e.g. the "
        f"{minority} values at {format_rows(rows)}. Identifiers like 1 and '1' would "
        f"silently become different groups. Fix: "
    )
    return [
        Problem(
            column=column,
            reason="mixed_types",
            message=message + f"cast the column to one type, e.g. "
            f"df[{column!r}] = df[{column!r}].astype(str).",
            rows=rows,
            droppable=False,
            cli=message + "write every value of the column as the same type (e.g. all text).",
        )
    ]


#: Characters a name may not contain: C0 and C1 controls (NUL, tab, newline, ESC, ...),
#: DEL, the line and paragraph separators, and the bidirectional marks, embeddings,
#: overrides and isolates. They are invisible or reorder the text around them, make
#: SVG/XML figures invalid (NUL), and let two different names look alike.
FORBIDDEN_PATTERN = (
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
FORBIDDEN_IN_NAMES = re.compile(FORBIDDEN_PATTERN)


def _char_name(char: str) -> str:
    code = f"U+{ord(char):04X}"
    name = unicodedata.name(char, "")
    if not name:
        name = {"\x00": "NUL", "\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN",
                "\x1b": "ESCAPE", "\x7f": "DELETE"}.get(char, "control character")
    return f"{name} ({code})"


def name_labels(
    labels: pd.Index, codes: np.ndarray, frame: pd.DataFrame, column: str, role: str
) -> tuple[pd.Index, list[Problem]]:
    """Check (and decode) the distinct names of an id or label column.

    ``labels`` are the column's distinct values and ``codes`` each row's
    position in ``labels`` (-1 for missing). Bytes are decoded as UTF-8
    (``b'A2'`` becomes ``'A2'``, a lossless change); bytes that are not UTF-8
    and names holding control or bidirectional-formatting characters (see
    :data:`FORBIDDEN_IN_NAMES`) are frame problems naming the rows and the fix;
    so are names that look alike (the same :func:`lookalike_key`), names with
    leading or trailing whitespace (refused, never stripped silently) and
    names mixing Latin and Cyrillic letters.
    Only the distinct values are inspected, so the cost does not grow with
    the number of rows.

    Returns the (decoded) labels and the problems.
    """
    problems: list[Problem] = []
    values = list(labels)
    # Only labels some row uses count (a categorical may carry unused categories).
    used = np.bincount(codes[codes >= 0], minlength=len(values)) > 0
    if any(isinstance(v, bytes) for v in values):
        decoded, undecodable = [], []
        for i, v in enumerate(values):
            if isinstance(v, bytes):
                try:
                    v = v.decode("utf-8")
                except UnicodeDecodeError:
                    if used[i]:
                        undecodable.append(i)
                    v = v.decode("utf-8", errors="replace")
            decoded.append(v)
        if undecodable:
            rows = tuple(frame.index[np.isin(codes, undecodable)])
            examples = ", ".join(repr(values[i]) for i in undecodable[:3])
            message = (
                f"column {column!r} ({role}) holds bytes that are not UTF-8 text ({examples}) "
                f"at {format_rows(rows)}; names must be text. Fix: "
            )
            problems.append(Problem(
                column=column, reason=f"undecodable_{role}", rows=rows,
                message=message + f"decode them with the right encoding, e.g. "
                f"df[{column!r}] = df[{column!r}].str.decode('latin-1').",
                cli=message + "save the file with the names as UTF-8 text.",
            ))
        else:
            values = decoded
            labels = pd.Index(values, dtype=object)
    bad = [i for i, v in enumerate(values)
           if used[i] and isinstance(v, str) and FORBIDDEN_IN_NAMES.search(v)]
    if bad:
        rows = tuple(frame.index[np.isin(codes, bad)])
        chars = sorted({c for i in bad for c in FORBIDDEN_IN_NAMES.findall(values[i])})
        examples = ", ".join(repr(values[i]) for i in bad[:3])
        message = (
            f"column {column!r} ({role}) has {len(bad)} name(s) with control or "
            f"text-direction characters ({', '.join(_char_name(c) for c in chars[:4])}"
            f"{' ...' if len(chars) > 4 else ''}), e.g. {examples}, at {format_rows(rows)}. "
            f"They are invisible or reorder the text around them, make SVG figures invalid, "
            f"and let different names look alike. Fix: "
        )
        problems.append(Problem(
            column=column, reason=f"control_characters_{role}", rows=rows,
            message=message + f"remove them, e.g. df[{column!r}] = "
            f"df[{column!r}].str.replace(r'{FORBIDDEN_PATTERN}', '', regex=True).",
            cli=message + "remove them from the names in the file.",
        ))
    else:
        problems += _lookalike_problems(values, used, codes, frame, column, role)
    return labels, problems


#: Letters of other scripts that look like Latin letters (a small confusables skeleton,
#: after Unicode TR39's confusables.txt): two names that differ only in these letters
#: read the same and are refused.
_CONFUSABLES = str.maketrans({
    **dict(zip("АВЕКМНОРСТУХЅІЈԁаеорсуxѕіјһԛԝ", "ABEKMHOPCTYXSIJdaeopcyxsijhqw")),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοϲ", "ABEZHIKMNOPTYXoc")),
})


def _letter_script(char: str) -> str | None:
    """``"LATIN"``, ``"CYRILLIC"``, ... for a letter (None for anything else)."""
    if not char.isalpha():
        return None
    return unicodedata.name(char, "?").split(" ")[0]


def lookalike_key(name: str) -> str:
    """The form two names must not share: what a reader sees, not the code points.

    NFKC normalisation (NFC vs NFD, fullwidth and compatibility forms), then
    format characters (Unicode category Cf: zero-width space and joiners,
    soft hyphen, byte-order mark) removed, surrounding whitespace stripped,
    and Cyrillic and Greek letters that look like Latin ones mapped to them.
    Case is kept: ``rf`` and ``RF`` are different names.

    Examples
    --------
    >>> lookalike_key("\\uff34\\uff30\\uff25 ") == lookalike_key("TP\\u0415") == "TPE"
    True
    >>> lookalike_key("tpe") == lookalike_key("TPE")
    False
    """
    if name.isascii():
        return name.strip()
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf").strip()
    return text.translate(_CONFUSABLES)


def _shown(name: str) -> str:
    """A name as written, plus its code points when they are not plain ASCII."""
    return repr(name) if name.isascii() else f"{name!r} (= {name!a})"


def _lookalike_problems(values: list, used: np.ndarray, codes: np.ndarray,
                        frame: pd.DataFrame, column: str, role: str) -> list[Problem]:
    """Distinct names that look alike, names padded with spaces, names mixing scripts."""
    groups: dict[str, list[int]] = {}
    padded, mixed = [], []
    for i, v in enumerate(values):
        if not used[i] or not isinstance(v, str):
            continue
        groups.setdefault(lookalike_key(v), []).append(i)
        if v != v.strip():
            padded.append(i)
        if not v.isascii():
            scripts = {_letter_script(c) for c in v} - {None}
            if {"LATIN", "CYRILLIC"} <= scripts:
                mixed.append(i)
    collisions = [g for g in groups.values() if len(g) > 1]
    in_collision = {i for g in collisions for i in g}
    problems: list[Problem] = []

    def rows_of(indices: list[int]) -> tuple:
        return tuple(frame.index[np.isin(codes, indices)])

    if collisions:
        parts = []
        for g in collisions[:3]:
            parts.append(" and ".join(
                f"{_shown(values[i])} ({format_rows(rows_of([i]), shown=3)})" for i in g[:4]))
        more = f" and {len(collisions) - 3} more group(s)" if len(collisions) > 3 else ""
        message = (
            f"column {column!r} ({role}) has {len(collisions)} group(s) of different names "
            f"that look the same: {'; '.join(parts)}{more}. They differ only by surrounding "
            f"whitespace, invisible format characters (zero-width space, joiners), Unicode "
            f"normalisation (NFC vs NFD, fullwidth forms) or look-alike letters of another "
            f"script (Cyrillic, Greek), and would become separate entries. Fix: write each "
            f"name one way in the file (if they are truly different, rename one so the "
            f"difference is visible)."
        )
        problems.append(Problem(column=column, reason=f"lookalike_{role}",
                                rows=rows_of(sorted(in_collision)), message=message))
    padded = [i for i in padded if i not in in_collision]
    if padded:
        rows = rows_of(padded)
        examples = ", ".join(repr(values[i]) for i in padded[:3])
        message = (
            f"column {column!r} ({role}) has {len(padded)} name(s) with leading or trailing "
            f"whitespace, e.g. {examples}, at {format_rows(rows)}; such a name reads the same "
            f"as the stripped one but is a different entry, so it is refused rather than "
            f"stripped silently. Fix: "
        )
        problems.append(Problem(
            column=column, reason=f"whitespace_{role}", rows=rows,
            message=message + f"strip them, e.g. df[{column!r}] = df[{column!r}].str.strip().",
            cli=message + "remove the spaces around the names in the file (a CSV written "
                          "with ', ' between fields puts a space before every value)."))
    mixed = [i for i in mixed if i not in in_collision]
    if mixed:
        rows = rows_of(mixed)
        examples = ", ".join(repr(values[i]) for i in mixed[:3])
        message = (
            f"column {column!r} ({role}) has {len(mixed)} name(s) mixing Latin and Cyrillic "
            f"letters, e.g. {examples}, at {format_rows(rows)}; a Cyrillic 'а' looks like a "
            f"Latin 'a', so such a name can pass for another. Fix: write each name in one "
            f"script."
        )
        problems.append(Problem(column=column, reason=f"mixed_script_{role}", rows=rows,
                                message=message))
    return problems


def numeric_column(
    frame: pd.DataFrame, column: str, role: str
) -> tuple[np.ndarray, list[Problem]]:
    """Convert a score or budget column to float64 and report bad entries.

    Returns the converted values (NaN where the entry was not a finite number)
    and the problems: non-numeric entries, missing values and infinities.
    """
    raw = frame[column]
    booleans = np.zeros(len(raw), dtype=bool)
    if pd.api.types.is_bool_dtype(raw.dtype):
        message = (
            f"column {column!r} ({role}) is boolean; a {role} must be a number, and "
            f"benchverdict does not guess what True and False are worth. Fix: "
        )
        return np.full(len(raw), np.nan), [
            Problem(
                column=column,
                reason=f"non_numeric_{role}",
                message=message + f"convert it, e.g. df[{column!r}].astype(float).",
                cli=message + "write the scores as numbers (e.g. 1 and 0).",
            )
        ]
    if pd.api.types.is_numeric_dtype(raw.dtype):
        values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        non_numeric = np.zeros(len(values), dtype=bool)
    else:
        # Booleans among numbers are refused like a boolean column: to_numeric would
        # silently turn True/False into 1.0/0.0.
        if pd.api.types.is_object_dtype(raw.dtype) and pd.api.types.infer_dtype(
            raw, skipna=True
        ) in ("boolean", "mixed", "mixed-integer"):
            booleans = raw.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool)
        converted = pd.to_numeric(raw.mask(booleans) if booleans.any() else raw,
                                  errors="coerce")
        values = converted.to_numpy(dtype=np.float64, na_value=np.nan)
        non_numeric = (np.isnan(values) & raw.notna().to_numpy()) | booleans
    problems = []
    if non_numeric.any():
        rows = tuple(frame.index[non_numeric])
        examples = ", ".join(repr(v) for v in raw[non_numeric].head(3))
        why = (" (booleans are not numbers here: True/False are refused, not read as 1/0)"
               if booleans.any() else "")
        problems.append(
            Problem(
                column=column,
                reason=f"non_numeric_{role}",
                message=(
                    f"column {column!r} ({role}) has {len(rows)} non-numeric value(s) "
                    f"({examples}) at {format_rows(rows)}{why}. Fix: clean or convert them, "
                    f"or pass on_invalid='drop' to drop and record these rows."
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
    duplicated: np.ndarray,
    frame: pd.DataFrame,
    key_columns: dict[str, str],
    *,
    example_rows: np.ndarray,
    n_keys: int,
    separating: Sequence[tuple[str, str]] = (),
) -> list[Problem]:
    """Rows that share their (algorithm, benchmark, seed[, budget]) key.

    ``duplicated`` is the mask of such rows; ``key_columns`` maps the key's
    roles to the user's columns; ``example_rows`` are the positions of every
    row of one duplicated key (named exactly in the message) and ``n_keys``
    the number of duplicated keys. ``separating`` lists unmapped columns that
    vary within duplicated keys, as ``(column, how)`` pairs: the likely fix.
    """
    if not duplicated.any():
        return []
    rows = tuple(frame.index[duplicated])
    key_cols = list(key_columns.values())
    first = int(example_rows[0])
    key_text = ", ".join(f"{c}={_plain(frame[c].iloc[first])!r}" for c in key_cols)
    example = tuple(frame.index[example_rows])
    roles = ", ".join(key_columns)
    if separating:
        told = "; ".join(f"{c!r} {how}" for c, how in separating)
        hint = (
            f" Unmapped column(s) that differ within duplicated keys: {told}."
        )
        apart = separating[0][0]
        fix_py = (
            f"map the column that tells them apart to a role (e.g. benchmark=<a column "
            f"combining the benchmark and {apart!r}>, or restrict the table to one "
            f"value of {apart!r})"
        )
        fix_cli = (
            f"map the column that tells them apart to a role (e.g. --benchmark <a column "
            f"combining the benchmark and {apart!r}>, or keep one value of "
            f"{apart!r})"
        )
        values = frame[apart] if apart in frame.columns else None
        if ("budget" not in key_columns and values is not None
                and pd.api.types.is_numeric_dtype(values)
                and not pd.api.types.is_bool_dtype(values)):
            # A number that differs within a run's rows is most likely its trial or budget:
            # combining it into the benchmark would make one fake benchmark per trial.
            fix_py = (f"if {apart!r} is each run's trial number or budget, map it as the "
                      f"budget (budget={apart!r}); otherwise {fix_py}")
            fix_cli = (f"if {apart!r} is each run's trial number or budget, map it as the "
                       f"budget (--budget {apart}); otherwise {fix_cli}")
    else:
        hint = " No unmapped column differs within them: they look like repeated rows."
        fix_py = fix_cli = "remove the repeated rows"
    message = (
        f"{len(rows)} rows in {n_keys} duplicated key(s) share their key "
        f"({', '.join(key_cols)}) with another row; e.g. the key {key_text} is at "
        f"{format_rows(example)}. Each ({roles}) must appear once.{hint} Fix: "
    )
    tail = (
        ", aggregate them, or pass on_invalid='drop' to drop and record every row of each "
        "duplicated key."
    )
    return [
        Problem(
            column=", ".join(key_cols),
            reason="duplicate_key",
            message=message + fix_py + tail,
            rows=rows,
            droppable=True,
            cli=message + fix_cli + to_cli(tail),
        )
    ]


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


class ReadError(ValueError):
    """A file could not be read as a table: empty, truncated, corrupt or not UTF-8.

    Attributes
    ----------
    path : pathlib.Path
        The file.
    """

    def __init__(self, path: str | Path, message: str):
        self.path = Path(path)
        super().__init__(message)

    def __reduce__(self):
        return (ReadError, (self.path, str(self)))
