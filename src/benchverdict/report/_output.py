"""Write a report directory all at once: build it beside the target, then swap it in.

A report is several files (HTML, Markdown, JSON, CSVs, a LaTeX folder) that
must belong to one run. Writing them in place leaves a mix of new and old
files when the run is interrupted, and stale files from an earlier report
(figures of benchmarks that are gone) after a re-run. So the files are
written into a fresh directory beside the target (same file system, so
renames are atomic), and only when all of them are written is the target
replaced: the old directory is renamed to a backup, the new one renamed into
place, and the backup removed. If anything fails or the user interrupts
before the swap, the target is untouched and the staging directory removed.

Because the target is replaced as a whole, it must be new, empty, or an
earlier benchverdict report (recognised by :data:`MARKER` or its
``report.json``); anything else is refused, so that ``-o .`` cannot delete
unrelated files.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

#: File written into every report directory: it marks the directory as replaceable.
MARKER = ".benchverdict-report"
_MARKER_TEXT = (
    "This directory is a benchverdict report. `benchverdict report -o` replaces it as a whole\n"
    "when it writes a new report here: do not keep other files in it.\n"
)
_SCHEMA = re.compile(rb'"schema"\s*:\s*"benchverdict\.report"')


class OutputError(ValueError):
    """The output path cannot hold a report (exists as a file, or holds other files)."""


def is_report_directory(path: Path) -> bool:
    """Whether ``path`` is a directory written by ``benchverdict report`` (or is empty).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> is_report_directory(d)
    True
    >>> _ = (d / "notes.txt").write_text("mine")
    >>> is_report_directory(d)
    False
    """
    path = Path(path)
    if not path.is_dir():
        return False
    if (path / MARKER).is_file() or not any(path.iterdir()):
        return True
    document = path / "report.json"
    if document.is_file():
        with document.open("rb") as f:
            return bool(_SCHEMA.search(f.read(4096)))
    return False


def check_target(target: Path) -> Path:
    """The absolute target directory, or :class:`OutputError` saying why it cannot be one.

    Symbolic links are followed, so the report replaces the directory a
    link points at, not the link.
    """
    target = Path(target).expanduser()
    resolved = target.resolve()
    if resolved.exists() and not resolved.is_dir():
        raise OutputError(
            f"{target} exists and is not a directory; -o names the directory the report is "
            f"written to. Give a new directory path (or remove the file).")
    if resolved.is_dir() and not is_report_directory(resolved):
        raise OutputError(
            f"{target} is a directory that holds other files, not an earlier benchverdict "
            f"report. The report replaces its output directory as a whole, so give a new or "
            f"empty directory, or an earlier report's.")
    if resolved.parent == resolved:
        raise OutputError(f"{target} is a file-system root; give a directory inside it.")
    return resolved


@contextlib.contextmanager
def staged_directory(target: Path) -> Iterator[Path]:
    """Yield an empty directory beside ``target``; when the block completes, it becomes ``target``.

    If the block raises (or is interrupted), the staging directory is
    removed and ``target`` is left exactly as it was.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> target = Path(tempfile.mkdtemp()) / "report"
    >>> with staged_directory(target) as stage:
    ...     _ = (stage / "a.txt").write_text("new")
    >>> sorted(p.name for p in target.iterdir())
    ['.benchverdict-report', 'a.txt']
    """
    target = check_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        (staging / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    with _sigint_deferred():
        _swap(staging, target)


def _swap(staging: Path, target: Path) -> None:
    """Replace ``target`` by ``staging``: old to a backup, new into place, backup removed."""
    backup = None
    if target.exists():
        backup = Path(tempfile.mkdtemp(prefix=f".{target.name}.previous-", dir=target.parent))
        os.replace(target, backup / target.name)
    try:
        os.replace(staging, target)
    except BaseException:
        if backup is not None and not target.exists():
            os.replace(backup / target.name, target)
            shutil.rmtree(backup, ignore_errors=True)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C for the few renames of the swap, so it never stops half-way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
