"""Readers: files to :class:`~benchverdict.results.Results`, never guessing silently.

:func:`read` reads CSV, TSV, Parquet (a file or a directory of parts) and
JSON Lines, then validates through :meth:`Results.from_frame`. The format is
taken from the suffix; pass ``format=`` when the suffix does not say.
Adapters for published benchmark formats live in :mod:`benchverdict.io.adapters`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pandas as pd

from benchverdict.results import Kind, Objective, Results

Format = Literal["csv", "tsv", "parquet", "jsonl"]
_SUFFIXES: dict[str, Format] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
_COMPRESSION = {".gz", ".bz2", ".xz", ".zst", ".zip"}


def detect_format(path: str | Path) -> Format:
    """The file format from the path's suffix (a directory means Parquet parts).

    Examples
    --------
    >>> detect_format("runs.csv.gz")
    'csv'
    """
    path = Path(path)
    if path.is_dir():
        return "parquet"
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION:
        suffixes.pop()
    if suffixes and suffixes[-1] in _SUFFIXES:
        return _SUFFIXES[suffixes[-1]]
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its suffix; known suffixes: "
        f"{sorted(_SUFFIXES)} (optionally compressed). Fix: pass format='csv', 'tsv', "
        f"'parquet' or 'jsonl'."
    )


def read_frame(path: str | Path, *, format: Format | None = None,
               columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a table file into a DataFrame without validation.

    Parameters
    ----------
    path : str or Path
        A CSV/TSV/Parquet/JSON Lines file, or a directory of Parquet parts.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the suffix.
    columns : sequence of str, optional
        Read only these columns (Parquet reads nothing else from disk).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> pd.DataFrame({"a": [1, 2]}).to_csv(p, index=False)
    >>> read_frame(p)["a"].tolist()
    [1, 2]
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or directory: {str(path)!r}")
    fmt = format or detect_format(path)
    cols = None if columns is None else list(dict.fromkeys(columns))
    if fmt == "csv":
        return pd.read_csv(path, usecols=cols)
    if fmt == "tsv":
        return pd.read_csv(path, sep="\t", usecols=cols)
    if fmt == "parquet":
        if path.is_dir():
            parts = sorted(p for p in path.rglob("*.parquet"))
            if not parts:
                raise ValueError(f"directory {str(path)!r} holds no *.parquet parts.")
        return pd.read_parquet(path, columns=cols)
    if fmt == "jsonl":
        frame = pd.read_json(path, lines=True)
        return frame if cols is None else frame[cols]
    raise ValueError(f"unknown format {fmt!r}; use csv, tsv, parquet or jsonl.")


def read(
    path: str | Path,
    *,
    algorithm: str,
    seed: str,
    score: str,
    objective: Objective,
    benchmark: str | None = None,
    budget: str | None = None,
    metafeatures: Sequence[str] = (),
    on_invalid: Literal["raise", "drop"] = "raise",
    kind: Kind | None = None,
    format: Format | None = None,
) -> Results:
    """Read a results file and validate it into a :class:`Results`.

    The role options are those of :meth:`Results.from_frame`. Only the
    mapped columns are read, so wide files load fast.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.tsv")
    >>> pd.DataFrame({"m": ["x", "y"], "s": [1, 1], "f1": [0.5, 0.6]}).to_csv(
    ...     p, sep="\\t", index=False)
    >>> read(p, algorithm="m", seed="s", score="f1", objective="maximize").algorithms
    ['x', 'y']
    """
    wanted = [c for c in (algorithm, benchmark, seed, budget, score) if c is not None]
    wanted += list(metafeatures)
    fmt = format or detect_format(path)
    try:
        frame = read_frame(path, format=fmt, columns=wanted if fmt == "parquet" else None)
    except (KeyError, ValueError) as err:
        if fmt != "parquet":
            raise
        # A missing column in a Parquet read: fall back to a full read so validation
        # can name the column and list the ones that exist.
        if "column" not in str(err).lower() and "field" not in str(err).lower():
            raise
        frame = read_frame(path, format=fmt)
    return Results.from_frame(
        frame,
        algorithm=algorithm,
        seed=seed,
        score=score,
        objective=objective,
        benchmark=benchmark,
        budget=budget,
        metafeatures=metafeatures,
        on_invalid=on_invalid,
        kind=kind,
    )


__all__ = ["detect_format", "read", "read_frame"]
