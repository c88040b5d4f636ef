"""Every CSV file the project writes goes through :func:`write_csv` (no formula injection).

A spreadsheet opening a CSV file runs a cell that starts with ``=``, ``+``,
``-`` or ``@`` (or with a tab or carriage return before one) as a formula:
an algorithm named ``=HYPERLINK("http://x")`` would become a link a reader
may click. Names come from the user's data (or a leaderboard submitter's),
so every CSV cell that holds such text is neutralised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["fsync_directory", "neutralise_cell", "replace_atomic", "write_csv"]

#: First characters a spreadsheet treats as the start of a formula (OWASP, "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: A text cell that is a plain number (``-0.5``, ``+1e-3``): a spreadsheet reads it as one.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise_cell(value: Any) -> Any:
    """``value``, with ``'`` put before a text that a spreadsheet would run as a formula.

    Text starting with one of :data:`FORMULA_START` gets a leading single
    quote (the OWASP rule: spreadsheets show the text and do not evaluate
    it), unless the whole text is a plain number such as ``-0.5``. Anything
    that is not text (numbers, missing values) is returned unchanged.

    Examples
    --------
    >>> neutralise_cell('=HYPERLINK("http://x")'), neutralise_cell("-cmd")
    ('\\'=HYPERLINK("http://x")', "'-cmd")
    >>> neutralise_cell("-0.5"), neutralise_cell(-0.5), neutralise_cell("SVM")
    ('-0.5', -0.5, 'SVM')
    """
    if isinstance(value, str) and value.startswith(FORMULA_START) \
            and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def _neutralise_column(column: Any) -> Any:
    """``column.astype(object).map(neutralise_cell)``, judging each distinct value once.

    Report tables repeat few values many times (200 algorithms give 280,000
    verdict rows): the distinct values are found by hashing, in C, and only
    the cells of values that change are replaced.
    """
    import pandas as pd

    def objects(cells: list[Any]) -> Any:
        # An object Series given its dtype: Series.map would infer text, which cannot hold
        # a lone surrogate (a name read with surrogateescape) and raised.
        return pd.Series(cells, index=column.index, name=column.name, dtype=object)

    try:
        uniques = pd.unique(column)
    except TypeError:  # unhashable cells (lists): one by one
        return objects([neutralise_cell(v) for v in column.tolist()])
    changed = {}
    for u in uniques:
        if isinstance(u, str):
            n = neutralise_cell(u)
            if n is not u:
                changed[u] = n
    if not changed:
        # Written as it is: the same text, without a Python string per cell (a text
        # column of 280,000 verdicts as objects took a hundred megabytes).
        return column
    return objects([changed.get(v, v) if isinstance(v, str) else v
                    for v in column.astype(object).tolist()])


def write_csv(frame: Any, path: str | Path, *, index: bool = False, **options: Any) -> Path:
    """Write a data frame as CSV (UTF-8) with every formula-like text cell neutralised.

    Every text cell and every column name (and, with ``index=True``, every
    index label) goes through :func:`neutralise_cell`: text starting with
    ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, and not a plain
    number, is written with a leading ``'`` so that a spreadsheet shows it
    instead of running it (spreadsheet formula injection). Numeric columns
    are written as they are, so ``-0.5`` stays a number. A lone surrogate in
    a name (not encodable as UTF-8) is written as its backslash escape.
    ``options`` are passed to :meth:`pandas.DataFrame.to_csv`.

    Returns the path written.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> p = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = write_csv(pd.DataFrame({"algorithm": ["=1+1", "SVM"], "d": [-0.5, 1.0]}), p)
    >>> print(p.read_text(encoding="utf-8"), end="")
    algorithm,d
    '=1+1,-0.5
    SVM,1.0
    """
    shown = frame.reset_index() if index else frame
    options.setdefault("errors", "backslashreplace")
    if len(shown) <= CSV_CHUNK_ROWS or "mode" in options or "header" in options:
        _neutralised(shown).to_csv(path, index=False, **options)
        return Path(path)
    # In chunks: the neutralised copy and pandas' text buffers of 278,600 verdicts took
    # 0.3 GB at once, the peak of a 200-algorithm report. The bytes are the same.
    return write_csv_parts((shown.iloc[start:start + CSV_CHUNK_ROWS]
                            for start in range(0, len(shown), CSV_CHUNK_ROWS)), path, **options)


def write_csv_parts(parts: Iterable[Any], path: str | Path, **options: Any) -> Path:
    """Write data frames with the same columns, one after another, as one CSV.

    Each part is neutralised as :func:`write_csv` does and written before the
    next is asked for, so a table made part by part is never whole in memory.
    The header comes from the first part (no part: no file). ``options`` are
    passed to :meth:`pandas.DataFrame.to_csv`.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> p = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = write_csv_parts((pd.DataFrame({"algorithm": [n]}) for n in ("@SUM(1)", "SVM")), p)
    >>> print(p.read_text(encoding="utf-8"), end="")
    algorithm
    '@SUM(1)
    SVM
    """
    options.setdefault("errors", "backslashreplace")
    plain = set(options) == {"errors"} and _plain_local_file(path)
    for i, part in enumerate(parts):
        shown = _neutralised(part)
        body = _csv_body(shown) if plain else None
        if body is None:
            shown.to_csv(path, index=False, mode="w" if i == 0 else "a", header=i == 0,
                         **options)
            continue
        if i == 0:
            shown.iloc[:0].to_csv(path, index=False, **options)  # pandas' own header
        with open(path, "a", encoding="utf-8", errors=options["errors"], newline="") as f:
            f.write(body)
    return Path(path)


def _plain_local_file(path: Any) -> bool:
    """Whether pandas would write ``path`` as a plain local file (what :func:`_csv_body` does).

    pandas also expands ``~``, opens URLs and compresses by the file's suffix
    (``.gz``, ``.zip``, ...); rows appended by ``open`` would corrupt such a
    file, so those take pandas' own writer.
    """
    import os

    from pandas.io.common import infer_compression

    if not isinstance(path, (str, os.PathLike)):
        return False
    text = os.fspath(path)
    return (isinstance(text, str) and not text.startswith("~") and "://" not in text
            and infer_compression(text, "infer") is None)


#: Text whose CSV cell :func:`_csv_body` can write: no line break (the csv module's rules
#: for a lone ``\r`` have changed between Python versions) and no NUL (the csv module of
#: Python 3.10 refuses it unquoted, later ones write it).
_WRITABLE = re.compile(r'[^\r\n\x00]*')
#: Text that the csv module's minimal quoting puts in quotes (with pandas' ``,`` and ``"``).
_QUOTED = re.compile(r'[,"]')


def _csv_cell(text: str) -> str:
    """``text`` as the csv module's minimal quoting writes it (``"`` doubled inside quotes)."""
    return '"' + text.replace('"', '""') + '"' if _QUOTED.search(text) else text


def _csv_body(frame: Any) -> str | None:
    """The rows pandas' ``to_csv(index=False, header=False)`` would write, or None.

    For frames of float64, integer, boolean and text columns: the same text,
    made column by column (a float through ``repr``, as numpy's
    ``astype(str)``, which pandas uses, writes it; a text with ``,`` or ``"``
    in quotes, with ``"`` doubled, as the csv module's minimal quoting writes
    it), then joined row by row; about twice as fast as pandas' writer on the
    report's largest table (a million rows of tuning curves), and three times
    on the verdict table, whose explanations hold commas. Any other column
    (dates, nullable integers, float32, mixed objects, text with a line break
    or a NUL), a single column (whose empty cell the csv module quotes) or no
    rows: None, and pandas writes the part. Lines end with ``os.linesep``, as
    pandas' do.
    """
    import os

    import numpy as np
    import pandas as pd

    if frame.shape[1] < 2 or not len(frame):
        return None
    columns = []
    for i in range(frame.shape[1]):
        column = frame.iloc[:, i]
        dtype = column.dtype
        if isinstance(dtype, np.dtype) and (dtype.kind in "iub" or dtype == np.float64):
            values = column.to_numpy()
            texts = list(map(repr if dtype.kind == "f" else str, values.tolist()))
            if dtype.kind == "f":
                for j in np.flatnonzero(np.isnan(values)).tolist():
                    texts[j] = ""  # pandas' na_rep
            columns.append(texts)
            continue
        if not (pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
                or isinstance(dtype, pd.CategoricalDtype)):
            return None
        try:
            codes, uniques = pd.factorize(column, use_na_sentinel=True)
        except TypeError:  # unhashable cells
            return None
        uniques = list(uniques)
        if not all(type(u) is str and _WRITABLE.fullmatch(u) for u in uniques):
            return None
        cells = [_csv_cell(u) for u in uniques]
        columns.append(np.array([*cells, ""], dtype=object)[codes].tolist())
    end = os.linesep  # pandas' default line terminator
    return "".join(line + end for line in map(",".join, zip(*columns)))


#: :func:`write_csv` writes frames longer than this in chunks of this many rows.
CSV_CHUNK_ROWS = 10_000


def _neutralised(frame: Any) -> Any:
    """A shallow copy of ``frame`` with its column names and text cells neutralised."""
    import pandas as pd

    shown = frame.copy(deep=False)
    shown.columns = [neutralise_cell(c) if isinstance(c, str) else c for c in shown.columns]
    for i in range(shown.shape[1]):
        column = shown.iloc[:, i]
        if (pd.api.types.is_object_dtype(column.dtype)
                or pd.api.types.is_string_dtype(column.dtype)
                or isinstance(column.dtype, pd.CategoricalDtype)):
            shown.isetitem(i, _neutralise_column(column))
    return shown


def permissions_as_created(path: str | Path, *, directory: bool) -> None:
    """Give ``path`` the mode a plain ``mkdir``/``open`` would have (the process's umask).

    ``tempfile.mkdtemp`` and ``mkstemp`` create private (0700/0600) entries; a
    report or leaderboard published by renaming them would stay unreadable by
    the others who could read a folder made the ordinary way.

    Examples
    --------
    >>> import os, stat, tempfile
    >>> d = tempfile.mkdtemp()
    >>> permissions_as_created(d, directory=True)
    >>> old = os.umask(0); _ = os.umask(old)
    >>> stat.S_IMODE(os.stat(d).st_mode) == 0o777 & ~old
    True
    """
    import os

    mask = os.umask(0)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    os.chmod(path, (0o777 if directory else 0o666) & ~mask)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to the open file ``fd`` (``os.write`` may write part)."""
    import os

    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def fsync_directory(path: str | Path) -> None:
    """Flush a folder's entries to disk (a rename is durable only once its folder is)."""
    import os

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_atomic(path: str | Path, data: bytes, *, mode: int | None = None,
                   durable: bool = True) -> None:
    """Replace ``path`` whole: readers see its old or its new content, never a mix.

    The bytes go to a new file of a unique name beside ``path`` (``mkstemp``
    opens it with ``O_EXCL``, so a symbolic link planted beside the target is
    never followed), which is then renamed over ``path``. ``mode``: the file's
    permission bits (``None``: those a plain ``open`` gives under the umask).
    ``durable``: fsync the file before the rename and the folder after it, so
    a crash or power loss cannot leave an empty or partial file.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "board.json"
    >>> replace_atomic(target, b"{}")
    >>> target.read_bytes(), sorted(p.name for p in target.parent.iterdir())
    (b'{}', ['board.json'])
    """
    import contextlib
    import os
    import tempfile

    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            if mode is None:
                permissions_as_created(tmp, directory=False)
            else:
                os.fchmod(fd, mode)
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_directory(path.parent)
