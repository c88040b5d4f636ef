"""A leaderboard kept in a folder: create, update with a submission, say what moved.

Layout of a leaderboard folder::

    leaderboard.json  leaderboard.md  leaderboard.html   the current version
    changes.md                                           what moved in it, and why
    site/                                                its offline web site (see below)
    data.parquet                                         every accepted row
    manifest.json                                        design, settings, submissions
    versions/v0001/ ... versions/v000N/                  every version's files

Each version folder also keeps the rows (``data.parquet``) and the
manifest it was published with. Writers of one folder are serialised by a
lock (``fcntl.flock`` on ``.leaderboard.lock``); a second update waits for
the first, then fails with "another update of this leaderboard is running".

Versions are never overwritten, and a version is published whole or not at
all: it is written into a temporary folder of a unique name inside
``versions/`` (files created with ``O_EXCL | O_NOFOLLOW``, so a planted link
is never followed), fsynced and renamed to ``versions/v{N+1}``; then
``manifest.json`` is replaced (write a temporary file, fsync, ``os.replace``):
that is the commit point. The current files are then replaced the same way.
A crash (or a full disk) before the commit leaves an unpublished folder that
the next writer removes; after it, the next writer finishes the current
files. Every stored file's SHA-256 is recorded in the manifest and checked
when read; a corrupt file is an error that names it and the last intact
version.

Each version also has a static web site in ``site/``
(:mod:`benchverdict.leaderboard.site`: a sortable, filterable table, a page
per entry with its history, the changes). Its ``SHA256SUMS`` lists the
SHA-256 of its other files and the manifest records that of
``SHA256SUMS``, so a board of 100 entries adds one digest per version, not
100. The current copy at the top is replaced whole: written into a
temporary folder, then renamed into place (a crash in between leaves the
old or no ``site/``, and the next writer copies it from the version). A
``site/`` the store did not write (a board older than sites) is renamed
``site.not-written-by-benchverdict-*``, never removed.

The analyses re-run on the whole board at each update: settled relations
have family-wise error control over *all* pairs (Holm), so a new entry
changes every pair's adjusted threshold and no part of the old result can be
reused without breaking that guarantee. What is incremental is the check of
the submission against the design and the account of what moved.

That guarantee is per version unless the board was created with
``looks="all-versions"`` (kept in the manifest): then version ``v`` runs at
``alpha / (v (v + 1))`` and keeps the relations earlier versions showed, so
the error control covers every version ever published (see
:mod:`benchverdict.leaderboard.looks`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import io
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from pyarrow.lib import ArrowException

try:  # the writer lock; POSIX only (elsewhere, writers are not serialised)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

from benchverdict._safe_output import (
    fsync_directory,
    permissions_as_created,
    replace_atomic,
    write_all,
)
from benchverdict.effects.equivalence import Margin
from benchverdict.exclusions import concat_exclusions
from benchverdict.families import leaderboard_families
from benchverdict.leaderboard.board import (
    Leaderboard,
    build_leaderboard,
    exclusion_note,
    family_names,
)
from benchverdict.leaderboard.design import MAX_LISTED, Design, check_submission
from benchverdict.leaderboard.incomplete import check_policy
from benchverdict.leaderboard.looks import check_looks
from benchverdict.leaderboard.metrics import MetricSpec, check_columns, metric_specs
from benchverdict.leaderboard.site import (
    HISTORY,
    SITE,
    SUMS,
    check_sums,
    history_of,
    read_history,
    render_site,
    with_metafeatures,
)
from benchverdict.results import Results

MANIFEST_SCHEMA = "benchverdict.leaderboard-manifest"
CURRENT_FILES = ("leaderboard.json", "leaderboard.md", "leaderboard.html", "changes.md")


@dataclass(frozen=True)
class Change:
    """One thing that moved between two versions of a leaderboard.

    Attributes
    ----------
    kind : str
        ``"unit"`` (the differences' unit changed), ``"entered"``,
        ``"incomplete"``, ``"completed"``, ``"subset"`` (the common subset
        changed), ``"moved"``, ``"newly settled"``, ``"no longer settled"``,
        ``"removed"``, ``"replaced"`` (an entry's runs were replaced), ``"imputed"``
        (an entry's imputed runs hold other scores).
    algorithms : tuple of str
        The entries concerned.
    text : str
        The sentence that says what moved and why.
    """

    kind: str
    algorithms: tuple[str, ...]
    text: str


def _listed(items: Sequence[str]) -> str:
    items = list(items)
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def _settled_pairs(board: Leaderboard) -> dict[tuple[str, str], Any]:
    rel = board.relations
    decided = rel[rel["status"].isin(["settled", "implied"])]
    return {(r.winner, r.loser): r for r in decided.itertuples()}


def changes_between(old: Leaderboard | None, new: Leaderboard,
                    replaced: Sequence[str] = ()) -> list[Change]:
    """What moved from ``old`` to ``new``, and why.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> from benchverdict.leaderboard import build_leaderboard
    >>> board = build_leaderboard(_example_small(), analyses=["ranks"])
    >>> [c.kind for c in changes_between(None, board)]
    ['entered', 'entered']
    """
    changes: list[Change] = []
    old_entries = {} if old is None else {r.algorithm: r for r in old.entries.itertuples()}
    old_incomplete = set() if old is None else set(old.incomplete["algorithm"])
    new_entries = {r.algorithm: r for r in new.entries.itertuples()}
    new_settled = _settled_pairs(new)
    old_settled = {} if old is None else _settled_pairs(old)

    if old is not None:
        was, now = _difference_unit(old), _difference_unit(new)
        if was and now and was != now:
            # The same numbers would mean something else: say so before any of them.
            changes.append(Change("unit", (), (
                f"Differences are now in {now} (they were in {was}): the scale check over "
                f"the board's data changed its call, so this version's effects and its LMEM "
                f"are on another scale than the last one's.")))

    def families_of(pairs: Iterable[tuple[str, str]]) -> str:
        fams = sorted({f for p in pairs for f in family_names(new_settled[p].families)})
        return f" (by {', '.join(fams)})" if fams else ""

    for a, r in new_entries.items():
        if a in old_entries:
            continue
        above = [lo for (w, lo) in new_settled if w == a]
        below = [w for (w, lo) in new_settled if lo == a]
        parts = []
        if above:
            parts.append(f"settled above {_listed(sorted(above))}"
                         f"{families_of((a, lo) for lo in above)}")
        if below:
            parts.append(f"below {_listed(sorted(below))}{families_of((w, a) for w in below)}")
        why = "; ".join(parts) if parts else "not separated from any entry"
        kind = "completed" if a in old_incomplete else "entered"
        verb = "is now complete and enters" if kind == "completed" else "enters"
        changes.append(Change(kind, (a,), f"{a} {verb} at position {r.position}: {why}."))
    how = {"subset": "compared on the common subset",
           "impute": "compared with its missing runs imputed"}.get(new.incomplete_policy, "")
    for r in new.incomplete.itertuples():
        if r.algorithm not in old_incomplete:
            treated = how if r.compared else "not compared"
            changes.append(Change("incomplete", (r.algorithm,),
                                  f"{r.algorithm} was submitted but is incomplete and "
                                  f"{treated}: {r.reasons}."))
    new_incomplete = set(new.incomplete["algorithm"])
    for a in sorted(old_incomplete - new_incomplete):
        if a in new_entries and a in old_entries:  # it was compared by policy before
            changes.append(Change("completed", (a,), f"{a} is now complete (it was "
                                  f"{how or 'compared by policy'})."))
    if old is not None:
        before, after = old.compared_design, new.compared_design
        if (before.benchmarks, before.seeds) != (after.benchmarks, after.seeds):
            changes.append(Change("subset", (), (
                f"The board is now compared on {new._scope_text()} (it was "
                f"{old._scope_text()}); every position rests on the new set.")))
    for a in old_entries:
        if a not in new_entries:
            changes.append(Change("removed", (a,), f"{a} is no longer ranked."))
    changes += _imputation_changes(old, new, [a for a in new_entries if a not in old_entries])
    for a in replaced:
        if a in old_entries:
            # Its old rows are gone: a reader of "nothing moved" would take its numbers
            # for the ones accepted before.
            where = (f"at position {new_entries[a].position}" if a in new_entries
                     else "and is no longer ranked")
            changes.append(Change("replaced", (a,), (
                f"{a}'s runs were replaced by a new submission; it is now {where}, and its "
                f"mean rank, relations and effects rest on the new runs only.")))
    for (w, lo), r in new_settled.items():
        if w in old_entries and lo in old_entries and (w, lo) not in old_settled:
            changes.append(Change(
                "newly settled", (w, lo),
                f"{w} > {lo} is now {r.status}{families_of([(w, lo)])}."))
    new_by_pair = {frozenset((r.a, r.b)): r for r in new.relations.itertuples()}
    for (w, lo) in old_settled:
        if w in new_entries and lo in new_entries and (w, lo) not in new_settled:
            now = new_by_pair.get(frozenset((w, lo)))
            status = "unsettled" if now is None else now.status
            reason = "" if now is None or not now.reason else f": {now.reason}"
            if now is not None and getattr(now, "winner", None) == lo:
                # Settled the other way: "(now settled: ...)" alone read as if w > lo held.
                text = (f"{w} > {lo} is reversed: now {lo} > {w} is {status}{reason}.")
            else:
                text = f"{w} > {lo} is no longer settled (now {status}{reason})."
            changes.append(Change("no longer settled", (w, lo), text))
    arrived = [a for a in new_entries if a not in old_entries]
    for a, r in new_entries.items():
        if a in old_entries and old_entries[a].position != r.position:
            open_with = [b for b in arrived if (a, b) not in new_settled
                         and (b, a) not in new_settled]
            why = (f"; not separated from the new {_listed(open_with)}" if open_with else "")
            swapped = [b for b in replaced if b != a and b in new_entries]
            if a in replaced:
                why += "; its runs were replaced"
            elif swapped:
                why += f"; the runs of {_listed(swapped)} were replaced"
            changes.append(Change(
                "moved", (a,), f"{a} moves from position {old_entries[a].position} to "
                f"{r.position}: now settled above {r.better_than} and below {r.worse_than} "
                f"of {len(new_entries)} entries{why}."))
    return changes


def _imputation_changes(old: Leaderboard | None, new: Leaderboard,
                        arrived: Sequence[str]) -> list[Change]:
    """Entries whose imputed runs changed value between the versions ("imputed").

    ``"impute"`` fills a missing run with the worst score any compared entry reached on
    that benchmark, so a new entry that scores worse there changes the other entries'
    filled runs (a mean of 3.90 became -500 in a review), and with them their positions,
    without a run of theirs changing: the change says so.
    """
    if old is None or not len(old.imputed) or not len(new.imputed):
        return []
    key = ["algorithm", "benchmark", "seed"]
    before = old.imputed.assign(**{c: old.imputed[c].astype(str) for c in key})
    after = new.imputed.assign(**{c: new.imputed[c].astype(str) for c in key})
    both = before.merge(after, on=key, suffixes=("_old", "_new"))
    moved = both[both["score_old"].astype(float) != both["score_new"].astype(float)]
    out = []
    cause = (f" (the worst score on those benchmarks now comes from the new "
             f"{_listed(list(arrived))})" if arrived else "")
    for a, runs in moved.groupby("algorithm", sort=True):
        out.append(Change("imputed", (str(a),), (
            f"{a}'s {len(runs)} imputed run(s) now hold other scores{cause}; its position "
            f"rests on the new values.")))
    return out


def _difference_unit(board: Leaderboard) -> str:
    """The unit of the board's differences ("" when it has none, or was written before)."""
    units = board.relations.get("difference_unit")
    if units is None:
        return ""
    units = [str(u) for u in units if isinstance(u, str) and u]
    return units[0] if units else ""


def _changes_markdown(board: Leaderboard, changes: Sequence[Change],
                      sources: Sequence[str]) -> str:
    # Names and file names are escaped: the page is rendered (MkDocs) and must stay inert.
    from benchverdict.report.markdown import md_escape

    lines = [f"# Changes in version {board.version}", ""]
    if sources:
        lines += [f"Submission: {md_escape(', '.join(sources))}", ""]
    if not changes:
        lines.append("Nothing moved.")
    order = ["unit", "replaced", "imputed", "entered", "completed", "incomplete", "subset",
             "newly settled", "no longer settled", "moved", "removed"]
    for kind in order:
        these = [c for c in changes if c.kind == kind]
        if these:
            lines += [f"## {kind.capitalize()} ({len(these)})", ""]
            lines += [f"- {md_escape(c.text)}" for c in these] + [""]
    return "\n".join(lines).rstrip() + "\n"


def combine_results(parts: Sequence[Results], sources: Sequence[str]) -> Results:
    """One Results from several files read the same way (exclusions kept, with their file).

    Raises
    ------
    ValueError
        If the parts differ in objective, kind or budget column: they cannot
        be one submission.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> small = _example_small()
    >>> combine_results([small.subset(algorithms=["a"]), small.subset(algorithms=["b"])],
    ...                 ["a.csv", "b.csv"]).algorithms
    ['a', 'b']
    """
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    for part, source in zip(parts[1:], sources[1:], strict=True):
        for what, mine, theirs in (("objective", part.objective, first.objective),
                                   ("kind", part.kind, first.kind),
                                   ("budget column", part.has_budget, first.has_budget)):
            if mine != theirs:
                raise ValueError(
                    f"{what}: {source} differs from {sources[0]} ({mine!r} vs {theirs!r}). "
                    f"Fix: read every file of a submission the same way.")
    # Metafeatures every part carries are kept (the site filters benchmarks by them; a board
    # shows a metric or cost column beside the score).
    shared = [m for m in first.metafeatures if all(m in p.metafeatures for p in parts)]
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if first.has_budget else []) + shared
    tables = []
    for part, source in zip(parts, sources, strict=True):
        table = part.table[columns].reset_index(drop=True)
        table.index = [f"{source}:{i}" for i in range(len(table))]
        tables.append(table)
    combined = Results.from_frame(
        pd.concat(tables), algorithm="algorithm", benchmark="benchmark", seed="seed",
        score="score", objective=first.objective,
        budget="budget" if first.has_budget else None, kind=first.kind, min_algorithms=1,
        metafeatures=shared)
    excluded = [p.exclusions.assign(row=[f"{s}:{r}" for r in p.exclusions["row"]])
                for p, s in zip(parts, sources, strict=True) if len(p.exclusions)]
    if not excluded:
        return combined
    # Results is immutable and from_frame cannot know what the readers left out: the
    # private constructor carries the parts' exclusion records over, with their file.
    return Results(
        combined._frame, objective=combined.objective, kind=combined.kind,
        kind_reason=combined.kind_reason, roles=combined.roles,
        metafeatures=combined.metafeatures,
        exclusions=concat_exclusions([combined.exclusions, *excluded]))


# ----------------------------------------------------------------------------- the folder on disk
#: Files of a version, in ``versions/vNNNN/`` and (the current version's) at the top.
VERSION_FILES = (*CURRENT_FILES, "data.parquet")
#: The lock file that serialises writers of one leaderboard folder.
LOCK_NAME = ".leaderboard.lock"
#: Seconds an update waits for another one on the same folder before it gives up.
LOCK_WAIT = 60.0
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_VERSION_NAME = re.compile(r"^v(\d{4,})$")
#: Name prefixes, inside ``versions/``, of a version being written and of one set aside.
_TMP_PREFIX = ".tmp-"
_ASIDE_PREFIX = ".unpublished-"


class StoreError(ValueError):
    """A leaderboard folder cannot be read or written safely: corrupt, locked or foreign.

    The message names the file, says which published versions are intact and
    how to recover.

    Attributes
    ----------
    path : pathlib.Path
        The file or folder concerned.

    Examples
    --------
    >>> err = StoreError("board/manifest.json", "'board/manifest.json' is corrupt")
    >>> err.path.name
    'manifest.json'
    """

    def __init__(self, path: str | Path, message: str):
        self.path = Path(path)
        super().__init__(message)

    def __reduce__(self):
        return (StoreError, (self.path, str(self)))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (never an existing file, never through a symlink), write it, fsync."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _regular_file(path: Path) -> bool:
    """A regular file itself, not a link to one (nor a FIFO, whose reading would hang)."""
    return not path.is_symlink() and path.is_file()


@contextlib.contextmanager
def _locked(directory: Path, wait: float):
    """Hold the folder's writer lock (``fcntl.flock``), waiting at most ``wait`` seconds."""
    path = directory / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o644)
    except OSError as err:
        raise StoreError(path, (
            f"cannot open the lock file {str(path)!r} ({err.strerror}). Fix: remove it if it "
            f"is a link or not a file (it holds nothing), then run the update again.")) from err
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError(path, f"the lock file {str(path)!r} is not a regular file. Fix: "
                                   f"remove it (it holds nothing), then run the update again.")
        deadline = time.monotonic() + wait
        while fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreError(path, (
                        f"another update of this leaderboard is running (lock held on "
                        f"{str(path)!r}); wait for it to finish, then run this one "
                        f"again.")) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _published_version(manifest: dict[str, Any]) -> int:
    return max(int(s["version"]) for s in manifest["submissions"])


def _version_dir(directory: Path, version: int) -> Path:
    return directory / "versions" / f"v{version:04d}"


def _recorded_files(manifest: dict[str, Any] | None, version: int) -> dict[str, str]:
    """SHA-256 of each file of ``version`` as the manifest records it (none before 0.x)."""
    if manifest is None:
        return {}
    for entry in manifest["submissions"]:
        if entry.get("version") == version and isinstance(entry.get("files"), dict):
            return entry["files"]
    return {}


def _why(err: BaseException) -> str:
    if isinstance(err, json.JSONDecodeError):
        return (f"not valid JSON ({err.msg}: line {err.lineno}, column {err.colno}; "
                f"truncated or edited?)")
    if isinstance(err, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(err, KeyError):
        return f"the entry {err} is missing"
    return str(err) or type(err).__name__


def _intact_versions(directory: Path, manifest: dict[str, Any] | None) -> list[int]:
    """Published versions whose ``leaderboard.json`` reads and matches its recorded digest."""
    versions = directory / "versions"
    if not versions.is_dir():
        return []
    latest = None if manifest is None else _published_version(manifest)
    intact = []
    for entry in versions.iterdir():
        match = _VERSION_NAME.match(entry.name)
        if not match or (latest is not None and int(match.group(1)) > latest):
            continue
        number = int(match.group(1))
        path = entry / "leaderboard.json"
        try:
            if not _regular_file(path):
                continue
            data = path.read_bytes()
            want = _recorded_files(manifest, number).get("leaderboard.json")
            if want is not None and _sha256(data) != want:
                continue
            if Leaderboard.from_dict(json.loads(data.decode("utf-8"))).version == number:
                intact.append(number)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return sorted(intact)


def _corrupt(directory: Path, path: Path, why: str, manifest: dict[str, Any] | None,
             fix: str) -> StoreError:
    intact = _intact_versions(directory, manifest)
    if intact:
        last = _version_dir(directory, intact[-1])
        state = (f"Published versions that read intact: {_listed([f'v{v:04d}' for v in intact])}"
                 f"; the last intact one is {str(last)!r}.")
    else:
        state = "No published version reads intact."
    return StoreError(path, f"{str(path)!r} is corrupt: {why}. {state} Fix: {fix}")


def _read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / "manifest.json"
    kept = sorted((p for p in (directory / "versions").glob("v*/manifest.json")
                   if _VERSION_NAME.match(p.parent.name)), key=lambda p: int(p.parent.name[1:]))
    fix = (f"restore manifest.json from a backup, or copy the manifest the version you want "
           f"back was published with (the newest is {str(kept[-1])!r}) to {str(path)!r}."
           if kept else "restore manifest.json from a backup.")
    if not path.exists() and not path.is_symlink():
        if (directory / "versions").is_dir() and any(
                _VERSION_NAME.match(p.name) for p in (directory / "versions").iterdir()):
            raise _corrupt(directory, path, "it is missing", None, fix)
        raise FileNotFoundError(
            f"{str(directory)!r} holds no leaderboard (no manifest.json). Fix: create one "
            f"with `benchverdict leaderboard FILE -o {directory}`.")
    try:
        if not _regular_file(path):
            raise ValueError("it is not a regular file")
        manifest = json.loads(path.read_bytes().decode("utf-8"))
        if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
            raise ValueError(f"it is not a leaderboard manifest (schema "
                             f"{manifest.get('schema') if isinstance(manifest, dict) else None!r})")
        submissions = manifest["submissions"]
        if not (isinstance(submissions, list) and submissions and all(
                isinstance(s, dict) and isinstance(s.get("submission"), int)
                and isinstance(s.get("version"), int) and isinstance(s.get("algorithms"), list)
                for s in submissions)):
            raise ValueError("its list of submissions is missing or malformed")
        Design.from_dict(manifest["design"])
        if not (isinstance(manifest["analyses"], list) and all(
                isinstance(manifest[k], (int, float)) and not isinstance(manifest[k], bool)
                for k in ("alpha", "confidence"))):
            raise ValueError("its settings (analyses, alpha, confidence) are malformed")
        check_policy(manifest.get("incomplete", "refuse"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise _corrupt(directory, path, _why(err), None, fix) from err
    # The manifest records the digests of every other file; its own check is the copy
    # that its newest version was published with (boards before this store have none).
    copy = _version_dir(directory, _published_version(manifest)) / "manifest.json"
    if _regular_file(copy) and copy.read_bytes() != path.read_bytes():
        raise _corrupt(
            directory, path, f"it differs from {str(copy)!r}, the copy published with its "
            f"newest version (one of the two was changed)", None,
            f"if {str(copy)!r} is the right one, copy it to {str(path)!r}; otherwise restore "
            f"either from a backup.")
    return manifest


def _verified_bytes(directory: Path, path: Path, manifest: dict[str, Any] | None,
                    version: int) -> bytes:
    """The bytes of a version's file, checked against the digest the manifest records."""
    if not _regular_file(path):
        raise _corrupt(directory, path, "it is missing (or not a regular file)", manifest,
                       "restore it from a backup.")
    data = path.read_bytes()
    want = _recorded_files(manifest, version).get(path.name)
    if want is not None and _sha256(data) != want:
        copy = directory / path.name
        fix = (f"the current copy {str(copy)!r} matches the recorded digest: copy it to "
               f"{str(path)!r}." if path.parent != directory and _regular_file(copy)
               and _sha256(copy.read_bytes()) == want
               else "restore it from a backup.")
        raise _corrupt(directory, path, f"its SHA-256 {_sha256(data)[:16]}... differs from "
                       f"the {want[:16]}... that manifest.json records for version {version}",
                       manifest, fix)
    return data


def _read_board(directory: Path, version: int, manifest: dict[str, Any] | None) -> Leaderboard:
    path = _version_dir(directory, version) / "leaderboard.json"
    if not path.exists() and not path.is_symlink():
        if manifest is not None and version <= _published_version(manifest):
            raise _corrupt(directory, path, "it is missing", manifest,
                           "restore it from a backup.")
        raise FileNotFoundError(
            f"no leaderboard at {str(path)!r}. Fix: create one with "
            f"`benchverdict leaderboard FILE -o {directory}`.")
    data = _verified_bytes(directory, path, manifest, version)
    try:
        board = Leaderboard.from_dict(json.loads(data.decode("utf-8")))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise _corrupt(directory, path, _why(err), manifest,
                       "restore it from a backup.") from err
    if board.version != version:
        raise _corrupt(directory, path, f"it holds version {board.version}, not {version}",
                       manifest, "restore it from a backup.")
    return board


_ROW_COLUMNS = ("algorithm", "benchmark", "seed", "score", "submission")


def _read_rows(directory: Path, manifest: dict[str, Any], version: int) -> pd.DataFrame:
    """Every accepted row of ``version``, checked against the digests the manifest records."""
    path = _version_dir(directory, version) / "data.parquet"
    if not (path.exists() or path.is_symlink()):
        path = directory / "data.parquet"  # boards written before versions kept their rows
    data = _verified_bytes(directory, path, manifest, version)
    try:
        stored = pd.read_parquet(io.BytesIO(data))
        missing = [c for c in _ROW_COLUMNS if c not in stored.columns]
        if missing:
            raise ValueError(f"the column(s) {', '.join(missing)} are missing")
    except (OSError, ValueError, TypeError, KeyError, ArrowException) as err:
        raise _corrupt(directory, path, _why(err), manifest,
                       "restore it from a backup.") from err
    submissions = manifest["submissions"]
    # Rows of a submission the manifest does not record come from an update of an earlier
    # benchverdict that stopped before it published: they were never on the board.
    stored = stored[stored["submission"].isin([s["submission"] for s in submissions])]
    if "data.parquet" in _recorded_files(manifest, version):
        return stored.reset_index(drop=True)  # the file's own digest was checked above
    # A board written before files had digests: check each submission's rows against the
    # digest recorded when they were accepted (unless a later submission replaced some).
    by_submission = {key: rows.reset_index(drop=True)
                     for key, rows in stored.groupby("submission", sort=False)}
    replaced_later: set[str] = set()
    for entry in reversed(submissions):
        if not set(entry["algorithms"]) & replaced_later and "digest" in entry:
            rows = by_submission.get(entry["submission"], stored.iloc[:0])
            if _digest(rows) != entry["digest"]:
                raise _corrupt(
                    directory, path, f"the rows of submission {entry['submission']} differ "
                    f"from those manifest.json records ({len(rows)} rows, "
                    f"{entry.get('rows')} recorded)", manifest, "restore it from a backup.")
        replaced_later |= set(entry.get("replaced") or [])
    return stored.reset_index(drop=True)


def _discard_unpublished(entry: Path) -> None:
    """Remove a version that was never published (ours), or set it aside (if not only ours)."""
    if entry.is_symlink():
        entry.unlink()  # the link only, never its target
        return
    if entry.is_dir():
        ours = {*VERSION_FILES, "manifest.json"}
        for child in entry.iterdir():
            if child.name in ours and (child.is_symlink() or child.is_file()):
                child.unlink()
            elif child.name == SITE:
                _remove_tree(child)
        with contextlib.suppress(OSError):  # fails when a file that is not ours is inside
            entry.rmdir()
        if not entry.exists():
            return
    # Something that is not only ours: kept, under a name that no longer blocks a version.
    os.rename(entry, entry.parent / f"{_ASIDE_PREFIX}{entry.name.lstrip('.')}-"
                                    f"{os.urandom(4).hex()}")


def _recover(directory: Path, manifest: dict[str, Any] | None) -> None:
    """Clear what a writer that stopped early left; finish one that stopped after publishing.

    Runs under the lock, so no writer is running.
    """
    published = 0 if manifest is None else _published_version(manifest)
    versions = directory / "versions"
    if versions.is_symlink() or (versions.exists() and not versions.is_dir()):
        raise StoreError(versions, (
            f"{str(versions)!r} is not a folder (a link or a file): versions are read and "
            f"written only inside the leaderboard's folder. Fix: remove it or move it away."))
    temp_of = tuple(f".{n}." for n in (*VERSION_FILES, "manifest.json"))
    for entry in directory.iterdir():
        if entry.name.endswith(".tmp") and entry.name.startswith(temp_of) and (
                entry.is_symlink() or entry.is_file()):
            entry.unlink()
        elif entry.name.endswith(".tmp") and entry.name.startswith(_SITE_TMP):
            _remove_tree(entry)  # a site being written, or the one it replaced
    if versions.is_dir():
        for entry in list(versions.iterdir()):
            match = _VERSION_NAME.match(entry.name)
            if entry.name.startswith(_TMP_PREFIX) or (match and int(match.group(1)) > published):
                _discard_unpublished(entry)
    if manifest is None:
        return
    # Published but the current files not (all) refreshed: copy them from the version.
    recorded = _recorded_files(manifest, published)
    for name in VERSION_FILES:
        source = _version_dir(directory, published) / name
        if not _regular_file(source):
            continue
        data = source.read_bytes()
        if name in recorded and _sha256(data) != recorded[name]:
            continue  # corrupt: the read that needs it says so
        target = directory / name
        if not _regular_file(target) or target.read_bytes() != data:
            replace_atomic(target, data, mode=0o644)
    _refresh_site(directory, published, recorded.get(f"{SITE}/{SUMS}"))


#: Name prefix (with the suffix ``.tmp``) of a site being written at the top, or set aside.
_SITE_TMP = f".{SITE}."


def _remove_tree(path: Path) -> None:
    """Remove a folder the store wrote (a link in its place: the link only, never its target)."""
    import shutil

    if path.is_symlink() or not path.is_dir():
        path.unlink()
    else:
        shutil.rmtree(path)  # removes links inside, never follows them


def _make_parents(root: Path, path: Path, made: set[Path]) -> None:
    """Make the folders between ``root`` and ``path`` once; ``made`` collects them (to fsync)."""
    parent = path.parent
    if parent in made:
        return
    parent.mkdir(parents=True, exist_ok=True)
    while parent != root and parent not in made:
        made.add(parent)
        parent = parent.parent


def _replace_site(directory: Path, files: dict[str, bytes], source: Path) -> None:
    """Replace the current ``site/`` whole by ``files`` (path in the site -> bytes).

    The new site is made in a temporary folder, the old one is renamed
    aside, the new one into place, and the old one removed. A crash leaves
    the old site, none (the next writer copies the published version's,
    :func:`_refresh_site`) or the new one; never a mix. Its files are hard
    links to the same files of the published version in ``source`` (never
    changed once published): no second copy on disk and no data to write for
    a board of many entries; where the file system has no hard links they
    are written (and fsynced).
    """
    tmp = Path(tempfile.mkdtemp(dir=directory, prefix=f"{_SITE_TMP}new-", suffix=".tmp"))
    try:
        permissions_as_created(tmp, directory=True)  # mkdtemp's 0700 would be served
        folders = {tmp}
        for name, data in files.items():
            path = tmp / name
            _make_parents(tmp, path, folders)
            try:
                os.link(source / name, path, follow_symlinks=False)
            except OSError:
                _write_new(path, data)
        for folder in folders:
            fsync_directory(folder)
        current = directory / SITE
        old, ours = None, False
        if os.path.lexists(current):
            # A site/ without our SHA256SUMS (a board older than sites, where someone kept
            # files of their own) is kept under another name, never removed.
            ours = not current.is_symlink() and _regular_file(current / SUMS)
            old = directory / (f"{_SITE_TMP}old-{os.urandom(4).hex()}.tmp" if ours
                               else f"{SITE}.not-written-by-benchverdict-{os.urandom(4).hex()}")
            os.rename(current, old)
        os.rename(tmp, current)
    except BaseException:
        with contextlib.suppress(OSError):
            _remove_tree(tmp)
        raise
    fsync_directory(directory)
    if old is not None and ours:
        _remove_tree(old)


def _refresh_site(directory: Path, version: int, recorded: str | None) -> None:
    """Copy ``version``'s site to the top if the top does not hold it.

    That is an update that stopped after publishing. A version without a site (older
    boards), or whose site does not match its digests, is left alone: the next update
    writes a new one.
    """
    source = _version_dir(directory, version) / SITE
    sums = source / SUMS
    if not _regular_file(sums):
        return
    want = sums.read_bytes()
    if recorded is not None and _sha256(want) != recorded:
        return
    current = directory / SITE / SUMS
    if _regular_file(current) and current.read_bytes() == want:
        return
    files = {SUMS: want}
    for line in want.decode("utf-8", "replace").splitlines():
        name = line.partition("  ")[2]
        path = source / name
        if not name or ".." in Path(name).parts or not _regular_file(path):
            return
        files[name] = path.read_bytes()
    if not check_sums(files):
        _replace_site(directory, files, source)


def _read_history(directory: Path, manifest: dict[str, Any], version: int) -> dict[str, Any]:
    """The site history of ``version`` (every entry's position in every version so far).

    Read from the version's ``site/history.json`` (checked against its SHA256SUMS and the
    manifest); for a board stored before sites, or a site that does not match its digests,
    rebuilt from the versions' ``leaderboard.json`` (each checked as it is read; a version
    that cannot be read is left out of the history rather than stopping the update).
    """
    folder = _version_dir(directory, version) / SITE
    try:
        sums = (folder / SUMS).read_bytes()
        recorded = _recorded_files(manifest, version).get(f"{SITE}/{SUMS}")
        if recorded is None or _sha256(sums) != recorded:
            raise ValueError("no recorded digest")
        files = {SUMS: sums, HISTORY: (folder / HISTORY).read_bytes()}
        if check_sums(files):
            raise ValueError("digest mismatch")
        return read_history(files[HISTORY])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        boards = []
        for v in sorted({int(s["version"]) for s in manifest["submissions"]
                         if int(s["version"]) <= version}):
            with contextlib.suppress(StoreError, FileNotFoundError):
                boards.append(_read_board(directory, v, manifest))
        return history_of(boards)


def _check_new_folder(directory: Path) -> None:
    """Refuse a folder that holds anything but a leaderboard's own files (or is a file)."""
    if not (directory.exists() or directory.is_symlink()):
        return
    if not directory.is_dir():
        raise StoreError(directory, (
            f"{str(directory)!r} is not a folder. Fix: give a new or empty folder for the "
            f"leaderboard."))
    if (directory / "manifest.json").exists():
        raise FileExistsError(
            f"{str(directory)!r} already holds a leaderboard. Fix: add a submission with "
            f"`benchverdict leaderboard --update {directory} FILE`, or choose another folder.")

    def ours_in_versions(entry: Path) -> bool:
        return (_VERSION_NAME.match(entry.name) is not None
                or entry.name.startswith((_TMP_PREFIX, _ASIDE_PREFIX)))

    temp_of = tuple(f".{n}." for n in (*VERSION_FILES, "manifest.json"))
    foreign = []
    for entry in sorted(directory.iterdir()):
        if entry.name == LOCK_NAME or (entry.name.startswith(temp_of)
                                       and entry.name.endswith(".tmp")):
            continue
        if entry.name == "versions" and entry.is_dir() and not entry.is_symlink() and all(
                ours_in_versions(e) for e in entry.iterdir()):
            continue  # what a creation that stopped before publishing left
        foreign.append(entry.name)
    if foreign:
        raise StoreError(directory, (
            f"{str(directory)!r} is not empty and holds no leaderboard ({_listed(foreign)}): "
            f"a leaderboard writes its own files there and never overwrites files it did "
            f"not write. Fix: choose a new or empty folder."))


def _publish(directory: Path, version: int, files: dict[str, bytes],
             manifest: dict[str, Any]) -> None:
    """Publish ``version``: its folder by one rename, the manifest, then the current files.

    The manifest's replacement is the commit point. A crash anywhere leaves the
    published versions intact; the next writer clears or finishes what it left
    (:func:`_recover`).
    """
    versions = directory / "versions"
    if versions.is_symlink() or (versions.exists() and not versions.is_dir()):
        raise StoreError(versions, (
            f"{str(versions)!r} is not a folder (a link or a file): versions are written only "
            f"inside the leaderboard's folder. Fix: remove it or move it away."))
    versions.mkdir(exist_ok=True)
    final = _version_dir(directory, version)
    if os.path.lexists(final):  # only if something appeared since _recover, under the lock
        raise StoreError(final, (
            f"{str(final)!r} exists although the manifest does not publish it: versions are "
            f"never overwritten. Fix: move it away if it is not this leaderboard's."))
    # The site's pages are covered by its SHA256SUMS, whose own digest the manifest records.
    manifest["submissions"][-1]["files"] = {
        name: _sha256(data) for name, data in files.items()
        if not name.startswith(f"{SITE}/") or name == f"{SITE}/{SUMS}"}
    site = {name[len(SITE) + 1:]: data for name, data in files.items()
            if name.startswith(f"{SITE}/")}
    manifest_bytes = json.dumps(manifest, indent=2).encode("utf-8")
    before = version - 1
    try:
        tmp = Path(tempfile.mkdtemp(dir=versions, prefix=f"{_TMP_PREFIX}v{version:04d}-"))
        permissions_as_created(tmp, directory=True)  # mkdtemp's 0700 would be published
        try:
            folders = {tmp}
            for name, data in files.items():
                _make_parents(tmp, tmp / name, folders)  # site/ and site/entry/
                _write_new(tmp / name, data)
            # Each version keeps the manifest it was published with: the way back if the
            # current manifest.json is ever lost.
            _write_new(tmp / "manifest.json", manifest_bytes)
            for folder in folders:  # the version's folder, and its site's
                fsync_directory(folder)
            os.rename(tmp, final)
        except BaseException:
            with contextlib.suppress(OSError):
                _discard_unpublished(tmp)
            raise
        fsync_directory(versions)
        replace_atomic(directory / "manifest.json", manifest_bytes, mode=0o644)
    except OSError as err:
        manifest_path = directory / "manifest.json"
        committed = _regular_file(manifest_path) and manifest_path.read_bytes() == manifest_bytes
        if committed:  # only the folder's fsync failed after the commit: it is published
            raise StoreError(directory, (
                f"version {version} is published but the folder could not be synced to disk "
                f"({err.strerror or err}). Fix: check the disk.")) from err
        with contextlib.suppress(OSError):
            if os.path.lexists(final):
                _discard_unpublished(final)
        where = err.filename or directory
        state = (f"the leaderboard stays at version {before}, unchanged" if before else
                 "nothing was published")
        raise StoreError(where, (
            f"could not write version {version} ({err.strerror or err} at {str(where)!r}); "
            f"{state}. Fix: free space or fix the permissions, then run it again.")) from err
    try:
        for name, data in files.items():
            if not name.startswith(f"{SITE}/"):
                replace_atomic(directory / name, data, mode=0o644)
        if site:
            _replace_site(directory, site, final / SITE)
    except OSError as err:
        raise StoreError(err.filename or directory, (
            f"version {version} is published (in {str(final)!r} and manifest.json) but "
            f"refreshing the current files failed ({err.strerror or err}): they show an "
            f"earlier version until the next update, which refreshes them first. Fix: free "
            f"space or fix the permissions.")) from err


def _version_files(board: Leaderboard, changes_md: str, table: pd.DataFrame,
                   site: dict[str, bytes] | None = None) -> dict[str, bytes]:
    files = {"leaderboard.json": board.to_json().encode("utf-8"),
             "leaderboard.md": board.to_markdown().encode("utf-8"),
             "leaderboard.html": board.to_html().encode("utf-8"),
             "changes.md": changes_md.encode("utf-8"),
             "data.parquet": table.to_parquet(None, index=False)}
    # The site's files, under site/ (see _publish for how they are recorded and replaced).
    files.update({f"{SITE}/{name}": data for name, data in (site or {}).items()})
    return files


def _stored_table(results: Results, submission: int,
                  specs: Sequence[MetricSpec] = ()) -> pd.DataFrame:
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if results.has_budget else []) + [m.name for m in specs]
    table = results.table[columns].reset_index(drop=True)
    for column in ("algorithm", "benchmark", "seed"):
        table[column] = table[column].astype(str)  # one spelling of every name on disk
    table["submission"] = submission
    return with_metafeatures(table, results)  # for the site's filters; absent in older boards


def _digest(table: pd.DataFrame) -> str:
    return hashlib.sha256(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes()
                          ).hexdigest()[:16]


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def create_leaderboard(
    directory: str | Path,
    results: Results,
    *,
    analyses: Sequence[str] | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    sanity_checks: bool = False,
    progress: bool = False,
    sources: Sequence[str] = (),
    margin: float | str | None = None,
    lock_wait: float = LOCK_WAIT,
    incomplete: str = "refuse",
    looks: str = "per-version",
    metrics: Any = (),
    cost: str | None = None,
) -> Leaderboard:
    """Start a leaderboard in ``directory`` from ``results`` (its design is theirs).

    ``metrics`` and ``cost`` (other metrics and a cost shown beside the
    score, metafeatures of ``results``; see
    :mod:`benchverdict.leaderboard.metrics`) are kept in the manifest too:
    every later submission must hold those columns.

    ``margin`` (margin of practical equivalence, see :func:`build_leaderboard`)
    and ``incomplete`` (the policy for incomplete submissions: ``"refuse"``,
    ``"subset"`` or ``"impute"``, see :mod:`benchverdict.leaderboard.incomplete`)
    and ``looks`` (what the error control covers: ``"per-version"`` or
    ``"all-versions"``, see :mod:`benchverdict.leaderboard.looks`) are kept in
    the manifest, so every later version uses them too. ``directory``
    must be new or empty: files the leaderboard did not write are never
    overwritten.

    Raises
    ------
    FileExistsError
        If ``directory`` already holds a leaderboard (use :func:`update_leaderboard`).
    StoreError
        If ``directory`` holds other files, another writer holds it for longer
        than ``lock_wait`` seconds, or the disk refuses the write (nothing is
        published then).

    Examples
    --------
    >>> import tempfile
    >>> from benchverdict.results import _example_small
    >>> folder = tempfile.mkdtemp()
    >>> board = create_leaderboard(folder, _example_small(), analyses=["ranks"])
    >>> sorted(p.name for p in Path(folder).iterdir())  # doctest: +NORMALIZE_WHITESPACE
    ['.leaderboard.lock', 'changes.md', 'data.parquet', 'leaderboard.html', 'leaderboard.json',
     'leaderboard.md', 'manifest.json', 'site', 'versions']
    """
    directory = Path(directory)
    check_policy(incomplete)
    check_looks(looks)
    _check_new_folder(directory)
    analyses = leaderboard_families() if analyses is None else tuple(analyses)
    design = Design.from_results(results)
    specs = metric_specs(metrics, cost)
    created = _now()
    board = build_leaderboard(results, design=design, analyses=analyses, alpha=alpha,
                              confidence=confidence, sanity_checks=sanity_checks,
                              progress=progress, version=1, created=created, margin=margin,
                              incomplete=incomplete, looks=looks, metrics=specs)
    table = _stored_table(results, 1, specs)
    changes = changes_between(None, board)
    manifest = {
        "schema": MANIFEST_SCHEMA, "schema_version": 1, "design": design.to_dict(),
        "analyses": list(analyses), "alpha": float(alpha), "confidence": float(confidence),
        "sanity_checks": sanity_checks,
        # A margin as given ("0.2sd" or a number): an optional key, absent in older boards.
        "margin": None if margin is None else Margin.parse(margin).spec,
        # The policy for incomplete submissions: an optional key, absent (refuse) in older boards.
        "incomplete": incomplete,
        # What the error control covers: an optional key, absent (per-version) in older boards.
        "looks": looks,
        # Other metrics and a cost shown beside the score: optional, absent (none) in older boards.
        "metrics": [m.to_dict() for m in specs],
        "submissions": [{"submission": 1, "version": 1, "created": created,
                         "sources": list(sources), "algorithms": list(results.algorithms),
                         "rows": len(table), "digest": _digest(table)}],
    }
    directory.mkdir(parents=True, exist_ok=True)
    with _locked(directory, lock_wait):
        _check_new_folder(directory)  # again: another creation may have won the lock
        _recover(directory, None)
        _publish(directory, 1, _version_files(
            board, _changes_markdown(board, changes, sources), table,
            render_site(board, table, changes)), manifest)
    return board


def load_leaderboard(directory: str | Path, version: int | None = None) -> Leaderboard:
    """The current leaderboard in ``directory`` (or an earlier ``version``).

    The current version is the last one the manifest records as published;
    its file is checked against the digest recorded then.

    Raises
    ------
    FileNotFoundError
        If there is no leaderboard (or no such version).
    StoreError
        If a file is corrupt: the message names it, the intact versions and
        how to recover.

    Examples
    --------
    >>> import tempfile
    >>> from benchverdict.results import _example_small
    >>> folder = tempfile.mkdtemp()
    >>> _ = create_leaderboard(folder, _example_small(), analyses=["ranks"])
    >>> load_leaderboard(folder).version
    1
    """
    directory = Path(directory)
    manifest = None
    if (directory / "manifest.json").exists() or (directory / "manifest.json").is_symlink():
        try:
            manifest = _read_manifest(directory)
        except StoreError:
            if version is None:
                raise
            # An earlier version can still be read (to recover), unchecked.
    if version is not None:
        return _read_board(directory, int(version), manifest)
    if manifest is not None:
        return _read_board(directory, _published_version(manifest), manifest)
    path = directory / "leaderboard.json"  # a copied folder without its manifest
    if not _regular_file(path):
        raise FileNotFoundError(
            f"no leaderboard at {str(path)!r}. Fix: create one with "
            f"`benchverdict leaderboard FILE -o {directory}`.")
    try:
        return Leaderboard.from_dict(json.loads(path.read_bytes().decode("utf-8")))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise _corrupt(directory, path, _why(err), None, "restore it from a backup.") from err


def update_leaderboard(
    directory: str | Path,
    results: Results,
    *,
    replace: bool = False,
    progress: bool = False,
    sources: Sequence[str] = (),
    lock_wait: float = LOCK_WAIT,
    incomplete: str | None = None,
    looks: str | None = None,
) -> tuple[Leaderboard, list[Change]]:
    """Add a submission to the leaderboard in ``directory``; write a new version.

    The submission is checked against the leaderboard's design: an
    algorithm that misses benchmarks, seeds or the final budget is kept as an
    *incomplete* entry, treated by the board's policy (set when it was
    created: listed with what it misses and not compared, compared on the
    common subset, or with its missing runs imputed); rows
    outside the design are left out and counted. Then every analysis re-runs
    on the whole board (see the module docstring for why) and ``changes.md``
    says what moved and why.

    Updates of one folder are serialised by a lock; a version is published
    whole or not at all (see the module docstring).

    Parameters
    ----------
    directory : str or Path
        A leaderboard folder made by :func:`create_leaderboard`.
    results : Results
        The submission (one or more algorithms).
    replace : bool
        Replace the rows of algorithms already on the board (otherwise a
        name clash is an error).
    progress : bool
        Show progress.
    sources : sequence of str
        Where the submission came from (file names), for the record.
    lock_wait : float
        Seconds to wait for another update of the same folder to finish.
    incomplete : {"refuse", "subset", "impute"}, optional
        The board's policy for incomplete submissions, if given: it must be
        the one the board was created with (the default, ``None``, uses it).
    looks : {"per-version", "all-versions"}, optional
        What the board's error control covers, if given: it must be the one
        the board was created with (the default, ``None``, uses it). With
        ``"all-versions"`` the new version keeps the relations the previous
        one showed, except those of entries whose rows are replaced.

    Returns
    -------
    board : Leaderboard
        The new version.
    changes : list of Change

    Raises
    ------
    ValueError
        If the objective or kind differs from the leaderboard's, an
        algorithm is already on the board and ``replace`` is false,
        ``incomplete`` or ``looks`` differs from the board's policy, or the ``"subset"``
        policy leaves too few benchmarks.
    StoreError
        If another update holds the folder for longer than ``lock_wait``
        seconds ("another update of this leaderboard is running"), a stored
        file is corrupt (named, with the last intact version), or the disk
        refuses the write (the board stays at its version).

    Examples
    --------
    >>> import tempfile
    >>> from benchverdict.results import _example_small
    >>> small, folder = _example_small(), tempfile.mkdtemp()
    >>> _ = create_leaderboard(folder, small.subset(algorithms=["a"]), analyses=["ranks"])
    >>> board, changes = update_leaderboard(folder, small.subset(algorithms=["b"]))
    >>> board.version, [c.kind for c in changes if c.kind == "entered"]
    (2, ['entered'])
    """
    directory = Path(directory)
    if incomplete is not None:
        check_policy(incomplete)
    if looks is not None:
        check_looks(looks)
    _read_manifest(directory)  # no leaderboard: say so before waiting for a lock
    with _locked(directory, lock_wait):
        manifest = _read_manifest(directory)  # as the writer before us left it
        _recover(directory, manifest)
        current = _published_version(manifest)
        design = Design.from_dict(manifest["design"])
        policy = manifest.get("incomplete", "refuse")
        if incomplete is not None and incomplete != policy:
            raise ValueError(
                f"incomplete: this leaderboard treats incomplete submissions by the policy "
                f"{policy!r}, set when it was created; {incomplete!r} would change every "
                f"version's meaning. Fix: drop --incomplete (the board keeps {policy!r}), or "
                f"start a new leaderboard from its data with --incomplete {incomplete}.")
        fixed = manifest.get("looks", "per-version")
        if looks is not None and looks != fixed:
            raise ValueError(
                f"looks: this leaderboard's error control is {fixed!r}, set when it was "
                f"created; {looks!r} would change what its published versions guarantee "
                f"(the levels spent so far assume {fixed!r} from version 1). Fix: drop --looks "
                f"(the board keeps {fixed!r}), or start a new leaderboard from its data with "
                f"--looks {looks}.")
        check_submission(design, results)  # objective/kind/budget mismatches raise here
        specs = [MetricSpec.from_dict(m) for m in manifest.get("metrics") or []]
        if specs:
            try:
                check_columns(results.table, specs, metafeatures=results.metafeatures,
                              what="the submission")
            except ValueError as err:
                raise ValueError(f"{err} This leaderboard shows "
                                 f"{', '.join(m.name for m in specs)} beside the score (set "
                                 f"when it was created), so every submission must hold "
                                 f"them.") from None
        old = _read_board(directory, current, manifest)
        stored = _read_rows(directory, manifest, current)
        clash = sorted(set(results.algorithms) & set(stored["algorithm"]))
        if clash and not replace:
            raise ValueError(
                f"algorithm: {_listed(clash)} already on the leaderboard. Fix: rename the "
                f"submission's algorithms, or pass --replace to replace their rows.")
        submission = 1 + max(s["submission"] for s in manifest["submissions"])
        new_rows = _stored_table(results, submission, specs)
        kept = stored[~stored["algorithm"].isin(clash)]
        combined = pd.concat([kept, new_rows], ignore_index=True)
        columns = ["algorithm", "benchmark", "seed", "score"] + (
            ["budget"] if design.final_budget is not None else []) + [m.name for m in specs]
        everything = Results.from_frame(
            combined[columns], algorithm="algorithm", benchmark="benchmark", seed="seed",
            score="score", objective=design.objective,
            budget="budget" if design.final_budget is not None else None, kind=design.kind,
            metafeatures=[m.name for m in specs])
        version = current + 1
        created = _now()
        board = build_leaderboard(
            everything, design=design, analyses=manifest["analyses"],
            alpha=manifest["alpha"], confidence=manifest["confidence"],
            sanity_checks=manifest.get("sanity_checks", False), progress=progress,
            version=version, created=created, margin=manifest.get("margin"),
            incomplete=policy, looks=fixed, earlier=old, replaced=clash, metrics=specs)
        if len(results.exclusions):
            board.notes.append(exclusion_note(results.exclusions, f"submission {submission}"))
        if clash:
            board.notes.append(f"Rows of {_listed(clash)} were replaced by submission "
                               f"{submission}.")
        changes = changes_between(old, board, replaced=clash)
        manifest["submissions"].append({
            "submission": submission, "version": version, "created": created,
            "sources": list(sources), "algorithms": list(results.algorithms),
            "replaced": clash, "rows": len(new_rows), "digest": _digest(new_rows)})
        history = _read_history(directory, manifest, current)
        _publish(directory, version, _version_files(
            board, _changes_markdown(board, changes, sources), combined,
            render_site(board, combined, changes, history)), manifest)
    return board, changes
