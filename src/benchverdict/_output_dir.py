"""Write an output folder safely: build it beside the target, then move in only its own files.

Every ``-o`` folder of ``benchverdict report`` and of the analysis commands
(``tuning``, ``dse``, ``ranks``, ``lmem``, ``sanity``, ``plan``) is written
here. A report is several files (HTML, Markdown, JSON, CSVs, a LaTeX
folder) that must belong to one run. They are written into a fresh directory beside the
target (same file system, so renames are atomic) and moved in only when all
of them are written. If anything fails or the user interrupts before that,
the target is untouched and the staging directory removed.

The report never deletes or overwrites a file it did not write. Every report
directory holds a manifest, :data:`MARKER`, listing each file the report
wrote with its SHA-256. A re-run into the same directory

- replaces or removes only the files its manifest lists (the previous
  report's files that the new report no longer has are removed: no stale
  figures), and only when each is unchanged since it was written: a listed
  file edited since is refused, naming it, so the edit is not lost;
- leaves every other file (a ``thesis.tex``, a ``figures/`` folder) as it is,
  and refuses to write a file where such a foreign file stands;
- refuses when an input file would be replaced or removed.

A directory that is not empty and has no manifest (a folder of the user's
that merely holds a ``report.json``, or a report from before the manifest)
is refused with the fix: another ``-o``, or an empty folder.

Moving the new files in takes one rename per file, over the old file of the
same name, so each file is always either its old or its new version. Before
the first rename, the manifest is rewritten to accept either content of
every file, and after the last (and the removal of the old report's files
the new one lacks) it lists the new files only: a crash in between leaves a
directory the next run recognises and replaces.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from benchverdict._safe_output import permissions_as_created, replace_atomic

#: The manifest written into every report directory: every file the report wrote, with its
#: SHA-256. Its presence marks the directory as a report's.
MARKER = ".benchverdict-report"
_SCHEMA = "benchverdict.report-files"
_NOTE = ("The files benchverdict wrote into this folder, with their SHA-256. A re-run "
         "replaces only these (and only if unchanged); other files are left as they are.")
#: How the marker of reports before the manifest began (it listed no files).
_OLD_MARKER = "This directory is a benchverdict report."
#: At most this many file names are quoted in a refusal.
_MAX_NAMED = 5


class OutputError(ValueError):
    """The output path cannot hold a report (a file, foreign files, edited report files)."""


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's content, as hex."""
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_manifest(directory: Path) -> dict[str, set[str]] | None:
    """The files a report wrote into ``directory`` (relative POSIX path -> accepted digests).

    ``None`` when ``directory`` holds no manifest. A manifest that cannot be
    read, or names a path outside the directory, raises :class:`OutputError`.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> read_manifest(d) is None
    True
    >>> with staged_directory(d / "r") as stage:
    ...     _ = (stage / "a.txt").write_text("new")
    >>> read_manifest(d / "r") == {"a.txt": {file_digest(d / "r" / "a.txt")}}
    True
    """
    path = Path(directory) / MARKER
    if not path.is_file() or path.is_symlink():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        text = f"unreadable: {err}"
    if text.startswith(_OLD_MARKER):
        raise OutputError(
            f"{directory} is a report of an earlier benchverdict version, which did not list "
            f"the files it wrote, so benchverdict cannot tell its files from yours there. "
            f"Give another -o (a new or empty directory), or delete the old report yourself.")
    try:
        doc = json.loads(text)
        files = doc["files"] if doc.get("schema") == _SCHEMA else None
        if not isinstance(files, dict):
            raise ValueError("no file list")
        listed = {str(rel): set(digests if isinstance(digests, list) else [digests])
                  for rel, digests in files.items()}
    except (ValueError, TypeError, AttributeError, KeyError, UnicodeDecodeError) as err:
        raise OutputError(
            f"{path} is not a benchverdict manifest that can be read ({err}), so benchverdict "
            f"cannot tell its files from yours there. Give another -o (a new or empty "
            f"folder).") from None
    for rel in listed:
        if not _is_inside(rel):
            raise OutputError(f"{path} lists {rel!r}, a path outside the folder; it was not "
                              f"written by benchverdict. Give another -o (a new or empty folder).")
    return listed


def _is_inside(rel: str) -> bool:
    p = PurePosixPath(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts and "\\" not in rel


def _named(paths: Iterable[str]) -> str:
    paths = sorted(paths)
    shown = ", ".join(paths[:_MAX_NAMED])
    return shown + (f" and {len(paths) - _MAX_NAMED} more" if len(paths) > _MAX_NAMED else "")


def is_report_directory(path: Path) -> bool:
    """Whether ``path`` is a directory ``benchverdict report`` may write into.

    True for an empty directory and for one with a readable report manifest
    (:data:`MARKER`); a directory of other files is not one, even when it
    holds a ``report.json``.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> is_report_directory(d)
    True
    >>> _ = (d / "report.json").write_text('{"schema": "benchverdict.report"}')
    >>> is_report_directory(d)
    False
    """
    path = Path(path)
    if not path.is_dir():
        return False
    if not any(path.iterdir()):
        return True
    try:
        return read_manifest(path) is not None
    except OutputError:
        return False


def check_target(target: Path, inputs: Iterable[Path] = ()) -> Path:
    """The absolute target directory, or :class:`OutputError` saying why it cannot be one.

    Symbolic links are followed, so the report is written into the directory
    a link points at. ``inputs`` are the files (or folders) the report reads:
    a target whose report files include one of them is refused.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "thesis.tex").write_text("years of work")
    >>> check_target(d)
    Traceback (most recent call last):
    ...
    benchverdict._output_dir.OutputError: ... holds other files ...
    """
    target = Path(target).expanduser()
    resolved = target.resolve()
    if resolved.exists() and not resolved.is_dir():
        raise OutputError(
            f"{target} exists and is not a directory; -o names the directory the report is "
            f"written to. Give a new directory path (or remove the file).")
    if resolved.parent == resolved:
        raise OutputError(f"{target} is a file-system root; give a directory inside it.")
    if resolved.is_dir():
        _ours(resolved, label=target)
        _check_inputs(resolved, inputs, label=target)
    return resolved


def _ours(target: Path, label: Path) -> dict[str, set[str]]:
    """The previous report's files in ``target`` (verified unchanged), or OutputError."""
    if not any(target.iterdir()):
        return {}
    listed = read_manifest(target)
    if listed is None:
        raise OutputError(
            f"{target} is a directory that holds other files and no benchverdict manifest "
            f"({MARKER}), so it is not an earlier report (a report.json alone does not make "
            f"it one). benchverdict never deletes or overwrites files it did not write: give "
            f"another -o (a new or empty directory).")
    changed = []
    for rel, digests in listed.items():
        path = target / rel
        if path.is_symlink() or (path.exists() and not path.is_file()):
            changed.append(rel)
        elif path.is_file() and file_digest(path) not in digests:
            changed.append(rel)
    if changed:
        raise OutputError(
            f"{label} holds report files changed since benchverdict wrote them: "
            f"{_named(changed)}. A new report would replace them and lose the changes: move "
            f"them out of the folder (or give another -o).")
    return listed


def _check_inputs(target: Path, inputs: Iterable[Path], label: Path) -> None:
    listed = read_manifest(target) or {}
    ours = {(target / rel).resolve(strict=False): rel for rel in listed}
    for given in inputs:
        if given is None:
            continue
        source = Path(given).expanduser().resolve()
        hit = [rel for path, rel in ours.items() if path == source or source in path.parents]
        if hit:
            raise OutputError(
                f"the input {given} is (or holds) the report file(s) {_named(hit)} of {label}, "
                f"which a new report would replace. Copy the input elsewhere first, or give "
                f"another -o.")


def _files(root: Path) -> dict[str, Path]:
    """Every file under ``root`` (not the manifest), by relative POSIX path."""
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != MARKER}


def _write_manifest(path: Path, files: dict[str, list[str]], complete: bool) -> None:
    """Write a manifest atomically (a temporary file beside it, then a rename)."""
    text = json.dumps({"schema": _SCHEMA, "note": _NOTE, "complete": complete,
                       "files": files}, indent=1, sort_keys=True, ensure_ascii=True) + "\n"
    replace_atomic(path, text.encode("utf-8"), durable=False)


@contextlib.contextmanager
def staged_directory(target: Path, inputs: Iterable[Path] = ()) -> Iterator[Path]:
    """Yield an empty directory beside ``target``; when the block completes, publish it.

    Publishing moves the staged files into ``target`` (see the module
    docstring): the previous report's files are replaced or removed, every
    other file is left untouched. If the block raises (or is interrupted),
    the staging directory is removed and ``target`` is left exactly as it was.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "report"
    >>> target.mkdir()
    >>> with staged_directory(target) as stage:
    ...     _ = (stage / "a.txt").write_text("new")
    >>> _ = (target / "mine.txt").write_text("the user's")
    >>> with staged_directory(target) as stage:
    ...     _ = (stage / "b.txt").write_text("newer")
    >>> sorted(p.name for p in target.iterdir())
    ['.benchverdict-report', 'b.txt', 'mine.txt']
    """
    inputs = list(inputs)
    target = check_target(target, inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    permissions_as_created(staging, directory=True)  # mkdtemp's 0700 would be published
    try:
        yield staging
        new = _files(staging)
        _write_manifest(staging / MARKER, {rel: [file_digest(p)] for rel, p in new.items()},
                        complete=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        with _sigint_deferred():
            if not target.exists():
                os.replace(staging, target)  # a new directory: one atomic rename
                return
            check_target(target, inputs)  # again: the folder may have changed meanwhile
            _publish(staging, target, new)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, target: Path, new: dict[str, Path]) -> None:
    """Move the staged files into ``target``, replacing only the previous report's files."""
    previous = _ours(target, label=target)
    foreign = []
    for rel in new:
        parts = PurePosixPath(rel).parts
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            path = target / sub
            last = i == len(parts)
            if path.is_symlink() or (path.exists() and (not path.is_dir() or last)):
                if sub not in previous:
                    foreign.append(sub)
                break
    if foreign:
        raise OutputError(
            f"{target} holds {_named(set(foreign))}, which benchverdict did not write and the "
            f"new report would overwrite. Move them away, or give another -o.")
    manifest = target / MARKER
    old_manifest = manifest.read_bytes() if manifest.is_file() else None
    digests = {rel: sorted(previous.get(rel, set()) | {file_digest(p)})
               for rel, p in new.items()}
    for rel, accepted in previous.items():
        digests.setdefault(rel, sorted(accepted))
    backup = Path(tempfile.mkdtemp(prefix=f".{target.name}.previous-", dir=target.parent))
    kept: list[str] = []
    moved_in: list[str] = []
    stale = [rel for rel in previous if rel not in new and (target / rel).is_file()]
    try:
        # Either content of every file is the report's until the publishing is over.
        _write_manifest(manifest, digests, complete=False)
        for rel in previous:
            if (target / rel).is_file():  # a second name for the old file, to roll back to
                (backup / rel).parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(target / rel, backup / rel)
                kept.append(rel)
        for rel in new:  # a rename over an old file: each file is always old or new
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / rel, target / rel)
            moved_in.append(rel)
    except BaseException:
        for rel in moved_in:
            if rel in kept:
                os.replace(backup / rel, target / rel)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(target / rel)
        if old_manifest is not None:
            manifest.write_bytes(old_manifest)
        _remove_empty_parents(target, moved_in)
        shutil.rmtree(backup, ignore_errors=True)
        raise
    for rel in stale:  # the old report's files the new one does not have
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target / rel)
    os.replace(staging / MARKER, manifest)
    # Also the folders of files an interrupted run listed but never moved in.
    _remove_empty_parents(target, [rel for rel in previous if rel not in new])
    shutil.rmtree(backup, ignore_errors=True)


def _link_or_copy(source: Path, copy: Path) -> None:
    try:
        os.link(source, copy)
    except OSError:  # a file system without hard links
        shutil.copy2(source, copy)


def _remove_empty_parents(target: Path, rels: Iterable[str]) -> None:
    """Remove the folders that held ``rels`` when nothing is left in them (never ``target``)."""
    for rel in rels:
        parent = (target / rel).parent
        while parent != target and target in parent.parents:
            try:
                parent.rmdir()  # fails, and is left, when anything is still in it
            except OSError:
                break
            parent = parent.parent


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C for the renames of the publishing, so it never stops half-way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
