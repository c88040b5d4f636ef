"""Readers: files to :class:`~benchverdict.results.Results`, never guessing silently.

:func:`read` reads CSV, TSV, Parquet (a file or a directory of parts) and
JSON Lines, then validates through :meth:`Results.from_frame`. The format is
taken from the suffix; pass ``format=`` when the suffix does not say.
Adapters for published benchmark formats live in :mod:`benchverdict.io.adapters`.

Identifiers are read as text. In CSV, TSV and JSON Lines the columns mapped
to the algorithm, benchmark and seed roles are read as strings, so ``1.1``
and ``1.10`` stay two algorithms and ``007`` keeps its zeros; in CSV and TSV
only an empty cell is a missing name (``NA``, ``N/A``, ``None``, ``null`` and
``NaN`` are names there, while they still mean missing in score columns); a column whose
every value is an integer written the plain way (``0``, ``17``, ``-3``) is
then turned into integers, which changes no label (so seeds sort 1, 2, 10).
Parquet keeps its stored types (its numbers are numbers already). Empty,
truncated, corrupt or non-UTF-8 files raise :class:`ReadError` naming the
file and the fix.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchverdict._validation import ReadError, ValidationError
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
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
# "-0" is excluded: it would become 0 and merge with a label "0".
_PLAIN_INTEGER = re.compile(r"0|-?[1-9][0-9]{0,17}")


def check_regular(path: str | Path, *, folder_ok: bool = True) -> Path:
    """Refuse a path that is neither a regular file nor (if ``folder_ok``) a folder.

    Reading a named pipe (FIFO), a socket or a device can wait forever or
    never end (``/dev/zero``), so such paths are refused before anything
    opens them. Symbolic links are followed: what counts is the target.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ReadError
        If it is a pipe, socket or device, or a folder where a file is expected.

    Examples
    --------
    >>> import os, tempfile
    >>> fifo = os.path.join(tempfile.mkdtemp(), "runs.csv")
    >>> os.mkfifo(fifo)
    >>> try:
    ...     check_regular(fifo)
    ... except ReadError as err:
    ...     print(str(err).split(": ", 1)[1][:40])
    it is a named pipe (FIFO), not a regular
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file or directory: {str(path)!r}") from None
    if stat.S_ISREG(mode) or (folder_ok and stat.S_ISDIR(mode)):
        return path
    if stat.S_ISDIR(mode):
        raise ReadError(path, f"cannot read {str(path)!r}: it is a folder, and a file is "
                              f"expected here. Fix: name the results file inside it.")
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")
    raise ReadError(path, f"cannot read {str(path)!r}: it is {kind}, not a regular file; "
                          f"reading it could wait forever. Fix: save the data to a file and "
                          f"name that file.")


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
        f"{sorted(_SUFFIXES)} (optionally compressed). Fix: pass format='csv' (or 'tsv', "
        f"'parquet', 'jsonl') if it is a table, or name a results file."
    )


def read_frame(path: str | Path, *, format: Format | None = None,
               columns: Sequence[str] | None = None,
               text_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Read a table file into a DataFrame without validation.

    Parameters
    ----------
    path : str or Path
        A CSV/TSV/Parquet/JSON Lines file, or a directory of Parquet parts.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the suffix.
    columns : sequence of str, optional
        Read only these columns (Parquet reads nothing else from disk).
    text_columns : sequence of str
        Identifier columns to read as text in CSV, TSV and JSON Lines (see the
        module docstring); Parquet keeps its types. Names not in the file are
        ignored here (validation names them).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ReadError
        If the file is empty, truncated, corrupt or not UTF-8.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("alg,seed\\n1.1,0\\n1.10,1\\n")
    >>> read_frame(p, text_columns=["alg", "seed"]).to_dict("list")
    {'alg': ['1.1', '1.10'], 'seed': [0, 1]}
    """
    path = check_regular(path)
    fmt = format or detect_format(path)
    if path.is_dir() and fmt != "parquet":
        check_regular(path, folder_ok=False)
    cols = None if columns is None else list(dict.fromkeys(columns))
    if fmt not in ("csv", "tsv", "parquet", "jsonl"):
        raise ValueError(f"unknown format {fmt!r}; use csv, tsv, parquet or jsonl.")
    if fmt == "parquet" and path.is_dir():
        parts = sorted(p for p in path.rglob("*.parquet"))
        if not parts:
            raise ValueError(f"directory {str(path)!r} holds no *.parquet parts.")
    if path.is_file() and path.stat().st_size == 0:
        raise ReadError(path, f"cannot read {str(path)!r}: the file is empty (0 bytes). "
                              f"Fix: check that it was written completely, or name another "
                              f"file.")
    text = list(dict.fromkeys(text_columns))
    try:
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else ","
            header = pd.read_csv(path, sep=sep, nrows=0, usecols=cols).columns
            frame = pd.read_csv(path, sep=sep, usecols=cols,
                                dtype=dict.fromkeys(text, str) or None,
                                keep_default_na=False, na_values=_na_values(header, text))
        elif fmt == "parquet":
            return pd.read_parquet(path, columns=cols)
        else:
            # dtype=False keeps what JSON says: true stays a boolean (pandas' inference
            # would turn it into 1.0 inside a numeric column, which validation then could
            # not refuse) and the string "1.10" stays a string.
            frame = pd.read_json(path, lines=True, dtype=False)
            frame = frame if cols is None else frame[cols]
            for column in text:
                if column in frame.columns:
                    values = frame[column]
                    frame[column] = values.where(values.isna(), values.astype(str))
    except (KeyError, TypeError):
        raise
    except Exception as err:
        if fmt == "parquet" and cols is not None and "field" in str(err).lower():
            raise  # a requested column is missing: read() falls back and validation names it
        if fmt in ("csv", "tsv") and cols is not None and "usecols" in str(err).lower():
            raise
        raise _read_error(path, fmt, err) from err
    if fmt != "parquet" and not len(frame.columns):
        raise ReadError(path, f"cannot read {str(path)!r}: it is empty (no header line, no "
                              f"rows). Fix: check the file, or name another file.")
    for column in text:
        if column in frame.columns:
            frame[column] = _plain_integers(frame[column])
    return frame


#: The cells pandas reads as missing by default (its documented ``na_values``); here they
#: are missing only outside the identifier columns.
_NA_WORDS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
             "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


def _na_values(header: Sequence, text: Sequence[str]) -> dict:
    """Per-column missing-value words: only an empty cell is missing in a name column.

    ``NA``, ``None`` or ``null`` is a valid algorithm or benchmark name (pandas
    would read it as missing, and ``on_invalid="drop"`` would then remove
    that algorithm); in score, budget and other columns the usual words
    still mean missing.

    Examples
    --------
    >>> _na_values(["alg", "acc"], ["alg"])["alg"]
    ['']
    """
    names = set(text)
    return {c: [""] if c in names else list(_NA_WORDS) for c in header}


def _plain_integers(values: pd.Series) -> pd.Series:
    """Text labels as integers when every label is a plainly written integer.

    ``"0"``, ``"17"`` and ``"-3"`` qualify; ``"007"``, ``"-0"``, ``"+1"``,
    ``"1.0"`` and ``"1e3"`` do not (turning them into numbers would change or
    merge labels: every qualifying label is exactly ``str(int(label))``).

    Examples
    --------
    >>> _plain_integers(pd.Series(["10", "2", "-3"])).tolist()
    [10, 2, -3]
    >>> _plain_integers(pd.Series(["0", "-0"])).tolist()
    ['0', '-0']
    """
    if not (pd.api.types.is_string_dtype(values.dtype)
            or pd.api.types.is_object_dtype(values.dtype)):
        return values
    present = values.dropna()
    if not len(present) or len(present) < len(values):
        return values
    unique = pd.unique(present.to_numpy(dtype=object))
    if not all(isinstance(v, str) and _PLAIN_INTEGER.fullmatch(v) for v in unique):
        return values
    return values.astype(np.int64)


def _read_error(path: Path, fmt: str, err: Exception) -> Exception:
    """A clear :class:`ReadError` for what a reader library raised."""
    name = repr(str(path))
    if isinstance(err, UnicodeDecodeError):
        where = _first_undecodable_line(path)
        at = f" (line {where})" if where else ""
        return ReadError(path, (
            f"cannot read {name}: it is not UTF-8 text; byte 0x{err.object[err.start]:02x}"
            f"{at} is not valid UTF-8. Fix: save the file as UTF-8 (e.g. iconv -f latin1 -t "
            f"utf-8 FILE > FILE.utf8.{fmt}), or check that it is a {fmt.upper()} file."
        ))
    if isinstance(err, (gzip.BadGzipFile, EOFError, lzma.LZMAError, OSError)) or (
        type(err).__name__ == "error" and type(err).__module__ == "zlib"
    ):
        if fmt != "parquet" and path.suffix.lower() in _COMPRESSION:
            return ReadError(path, (
                f"cannot read {name}: it is not a complete {path.suffix} archive ({err}). "
                f"Fix: download or write it again (it may be truncated), or remove the "
                f"{path.suffix} suffix if it is not compressed."
            ))
        if isinstance(err, OSError) and not isinstance(err, EOFError):
            return err
    if isinstance(err, pd.errors.EmptyDataError):
        return ReadError(path, f"cannot read {name}: it is empty (no header line, no rows). "
                               f"Fix: check the file, or name another file.")
    if isinstance(err, pd.errors.ParserError):
        return ReadError(path, (
            f"cannot read {name} as {fmt.upper()}: {err}. Fix: every line needs as many "
            f"fields as the header; check the separator (pass --format/format= if the suffix "
            f"is wrong) and quoting."
        ))
    if fmt == "parquet" and type(err).__module__.startswith("pyarrow"):
        return ReadError(path, (
            f"cannot read {name}: it is not a valid Parquet file ({err}). Fix: write it again "
            f"(it may be truncated), or pass the right --format/format= if it is not Parquet."
        ))
    if fmt == "jsonl" and isinstance(err, ValueError):
        return ReadError(path, (
            f"cannot read {name}: it is not valid JSON Lines ({err}). Fix: write one JSON "
            f"object per line, or pass the right --format/format=."
        ))
    return err


def _first_undecodable_line(path: Path) -> int | None:
    """The 1-based number of the first line that is not UTF-8 (None if unknown)."""
    opener = _OPENERS.get(path.suffix.lower(), open)
    try:
        with opener(path, "rb") as fh:
            for number, line in enumerate(fh, start=1):
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError:
                    return number
    except Exception:
        return None
    return None


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
    min_algorithms: int = 2,
    format: Format | None = None,
    engine: Literal["pandas", "dask"] = "pandas",
) -> Results:
    """Read a results file and validate it into a :class:`Results`.

    With ``engine="dask"`` (the ``benchverdict[dask]`` extra), ``path`` is a
    Parquet file, a directory of parts or a glob, and the rows stay in Dask
    partitions (one per file): the result is a
    :class:`~benchverdict._dask.results.DaskResults` with the same API,
    validated per partition, on the current ``dask.distributed`` client if
    there is one.

    The role options are those of :meth:`Results.from_frame`. Only the
    mapped columns are read from Parquet, so wide files load fast. The
    algorithm, benchmark and seed columns are read as text (see the module
    docstring): labels such as ``1.1`` and ``1.10`` never merge.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.tsv")
    >>> pd.DataFrame({"m": ["x", "y"], "s": [1, 1], "f1": [0.5, 0.6]}).to_csv(
    ...     p, sep="\\t", index=False)
    >>> read(p, algorithm="m", seed="s", score="f1", objective="maximize", kind="runs").algorithms
    ['x', 'y']
    """
    wanted = [c for c in (algorithm, benchmark, seed, budget, score) if c is not None]
    wanted += list(metafeatures)
    if engine not in ("pandas", "dask"):
        raise ValueError(f"engine must be 'pandas' or 'dask', got {engine!r}.")
    if engine == "dask":
        from benchverdict._dask.construct import from_dask_frame
        from benchverdict._dask.frame import read_dask

        ddf, names = read_dask(path, columns=wanted, format=format)
        return from_dask_frame(ddf, algorithm=algorithm, seed=seed, score=score,
                               objective=objective, benchmark=benchmark, budget=budget,
                               metafeatures=metafeatures, on_invalid=on_invalid, kind=kind,
                               partition_names=names)
    ids = [c for c in (algorithm, benchmark, seed) if c is not None]
    fmt = format or detect_format(path)
    try:
        frame = read_frame(path, format=fmt, columns=wanted if fmt == "parquet" else None,
                           text_columns=ids)
    except ReadError:
        raise
    except (KeyError, ValueError, TypeError) as err:
        if fmt != "parquet":
            raise
        # A missing column in a Parquet read: fall back to a full read so validation
        # can name the column and list the ones that exist.
        if "column" not in str(err).lower() and "field" not in str(err).lower():
            raise
        frame = read_frame(path, format=fmt)
    roles = dict(algorithm=algorithm, seed=seed, score=score, objective=objective,
                 benchmark=benchmark, budget=budget, metafeatures=metafeatures,
                 on_invalid=on_invalid, kind=kind, min_algorithms=min_algorithms)
    try:
        return Results.from_frame(frame, **roles)
    except ValidationError as err:
        if fmt != "parquet" or not any(p.reason == "duplicate_key" for p in err.problems):
            raise
    # Duplicated keys in a Parquet file read column by column: read every column once more,
    # so the message can name the unmapped column that tells the rows apart.
    return Results.from_frame(read_frame(path, format=fmt), **roles)


def from_dask_frame(ddf: Any, *, algorithm: str, seed: str, score: str, objective: str,
                    benchmark: str | None = None, budget: str | None = None,
                    metafeatures: Sequence[str] = (), on_invalid: str = "raise",
                    kind: str | None = None) -> Results:
    """A :class:`Results` whose rows stay in a Dask DataFrame's partitions (``benchverdict[dask]``).

    The arguments are those of :meth:`Results.from_frame`, and so is the
    result's API: validation runs per partition (duplicate keys across
    partitions included), the analyses run on per-partition reductions, and
    the verdicts equal the in-memory ones. :func:`read` with
    ``engine="dask"`` does the same from (partitioned) files.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> df = pd.DataFrame({"alg": list("aabb"), "seed": [0, 1, 0, 1],
    ...                    "acc": [0.5, 0.6, 0.7, 0.8]})
    >>> res = from_dask_frame(dd.from_pandas(df, npartitions=2), algorithm="alg", seed="seed",
    ...                       score="acc", objective="maximize", kind="trials")
    >>> type(res).__name__, res.algorithms
    ('DaskResults', ['a', 'b'])
    """
    from benchverdict._dask.construct import from_dask_frame as _from_dask_frame

    return _from_dask_frame(ddf, algorithm=algorithm, seed=seed, score=score,
                            objective=objective, benchmark=benchmark, budget=budget,
                            metafeatures=metafeatures, on_invalid=on_invalid, kind=kind)


__all__ = ["ReadError", "check_regular", "detect_format", "from_dask_frame", "read", "read_frame"]
