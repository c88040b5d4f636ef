"""A leaderboard kept in a folder: create, update with a submission, say what moved.

Layout of a leaderboard folder::

    leaderboard.json  leaderboard.md  leaderboard.html   the current version
    changes.md                                           what moved in it, and why
    data.parquet                                         every accepted row
    manifest.json                                        design, settings, submissions
    versions/v0001/ ... versions/v000N/                  every version's four files

Versions are never overwritten: an update writes ``versions/v{N+1}`` (it
refuses if that folder exists) and then replaces the current files one by
one through a temporary file (``os.replace``), so a crash leaves either the
old or the new file, never half of one.

The analyses re-run on the whole board at each update: settled relations
have family-wise error control over *all* pairs (Holm), so a new entry
changes every pair's adjusted threshold and no part of the old result can be
reused without breaking that guarantee. What is incremental is the check of
the submission against the design and the account of what moved.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

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
from benchverdict.results import Results

MANIFEST_SCHEMA = "benchverdict.leaderboard-manifest"
CURRENT_FILES = ("leaderboard.json", "leaderboard.md", "leaderboard.html", "changes.md")


@dataclass(frozen=True)
class Change:
    """One thing that moved between two versions of a leaderboard.

    Attributes
    ----------
    kind : str
        ``"entered"``, ``"incomplete"``, ``"completed"``, ``"moved"``,
        ``"newly settled"``, ``"no longer settled"``, ``"removed"``.
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


def changes_between(old: Leaderboard | None, new: Leaderboard) -> list[Change]:
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
    for r in new.incomplete.itertuples():
        if r.algorithm not in old_incomplete:
            changes.append(Change("incomplete", (r.algorithm,),
                                  f"{r.algorithm} was submitted but is incomplete and not "
                                  f"compared: {r.reasons}."))
    for a in old_entries:
        if a not in new_entries:
            changes.append(Change("removed", (a,), f"{a} is no longer ranked."))
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
            changes.append(Change(
                "no longer settled", (w, lo),
                f"{w} > {lo} is no longer settled (now {status}{reason})."))
    arrived = [a for a in new_entries if a not in old_entries]
    for a, r in new_entries.items():
        if a in old_entries and old_entries[a].position != r.position:
            open_with = [b for b in arrived if (a, b) not in new_settled
                         and (b, a) not in new_settled]
            why = (f"; not separated from the new {_listed(open_with)}" if open_with else "")
            changes.append(Change(
                "moved", (a,), f"{a} moves from position {old_entries[a].position} to "
                f"{r.position}: now settled above {r.better_than} and below {r.worse_than} "
                f"of {len(new_entries)} entries{why}."))
    return changes


def _changes_markdown(board: Leaderboard, changes: Sequence[Change],
                      sources: Sequence[str]) -> str:
    lines = [f"# Changes in version {board.version}", ""]
    if sources:
        lines += [f"Submission: {', '.join(sources)}", ""]
    if not changes:
        lines.append("Nothing moved.")
    order = ["entered", "completed", "incomplete", "newly settled", "no longer settled",
             "moved", "removed"]
    for kind in order:
        these = [c for c in changes if c.kind == kind]
        if these:
            lines += [f"## {kind.capitalize()} ({len(these)})", ""]
            lines += [f"- {c.text}" for c in these] + [""]
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
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if first.has_budget else [])
    tables = []
    for part, source in zip(parts, sources, strict=True):
        table = part.table[columns].reset_index(drop=True)
        table.index = [f"{source}:{i}" for i in range(len(table))]
        tables.append(table)
    combined = Results.from_frame(
        pd.concat(tables), algorithm="algorithm", benchmark="benchmark", seed="seed",
        score="score", objective=first.objective,
        budget="budget" if first.has_budget else None, kind=first.kind, min_algorithms=1)
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


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _write_version(directory: Path, board: Leaderboard, changes_md: str) -> None:
    texts = {"leaderboard.json": board.to_json(), "leaderboard.md": board.to_markdown(),
             "leaderboard.html": board.to_html(), "changes.md": changes_md}
    version_dir = directory / "versions" / f"v{board.version:04d}"
    version_dir.mkdir(parents=True, exist_ok=False)  # never overwrite a version
    for name, text in texts.items():
        (version_dir / name).write_text(text, encoding="utf-8")
    for name, text in texts.items():
        _write_atomic(directory / name, text)


def _stored_table(results: Results, submission: int) -> pd.DataFrame:
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if results.has_budget else [])
    table = results.table[columns].reset_index(drop=True)
    for column in ("algorithm", "benchmark", "seed"):
        table[column] = table[column].astype(str)  # one spelling of every name on disk
    table["submission"] = submission
    return table


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
) -> Leaderboard:
    """Start a leaderboard in ``directory`` from ``results`` (its design is theirs).

    ``margin`` (margin of practical equivalence, see :func:`build_leaderboard`)
    is kept in the manifest, so every later version uses it too.

    Raises
    ------
    FileExistsError
        If ``directory`` already holds a leaderboard (use :func:`update_leaderboard`).

    Examples
    --------
    >>> import tempfile
    >>> from benchverdict.results import _example_small
    >>> folder = tempfile.mkdtemp()
    >>> board = create_leaderboard(folder, _example_small(), analyses=["ranks"])
    >>> sorted(p.name for p in Path(folder).iterdir())  # doctest: +NORMALIZE_WHITESPACE
    ['changes.md', 'data.parquet', 'leaderboard.html', 'leaderboard.json', 'leaderboard.md',
     'manifest.json', 'versions']
    """
    directory = Path(directory)
    if (directory / "manifest.json").exists():
        raise FileExistsError(
            f"{str(directory)!r} already holds a leaderboard. Fix: add a submission with "
            f"`benchverdict leaderboard --update {directory} FILE`, or choose another folder.")
    directory.mkdir(parents=True, exist_ok=True)
    analyses = leaderboard_families() if analyses is None else tuple(analyses)
    design = Design.from_results(results)
    created = _now()
    board = build_leaderboard(results, design=design, analyses=analyses, alpha=alpha,
                              confidence=confidence, sanity_checks=sanity_checks,
                              progress=progress, version=1, created=created, margin=margin)
    table = _stored_table(results, 1)
    changes = changes_between(None, board)
    _write_version(directory, board, _changes_markdown(board, changes, sources))
    table.to_parquet(directory / "data.parquet", index=False)
    manifest = {
        "schema": MANIFEST_SCHEMA, "schema_version": 1, "design": design.to_dict(),
        "analyses": list(analyses), "alpha": alpha, "confidence": confidence,
        "sanity_checks": sanity_checks,
        # A margin as given ("0.2sd" or a number): an optional key, absent in older boards.
        "margin": None if margin is None else Margin.parse(margin).spec,
        "submissions": [{"submission": 1, "version": 1, "created": created,
                         "sources": list(sources), "algorithms": list(results.algorithms),
                         "rows": len(table), "digest": _digest(table)}],
    }
    _write_atomic(directory / "manifest.json", json.dumps(manifest, indent=2))
    return board


def load_leaderboard(directory: str | Path, version: int | None = None) -> Leaderboard:
    """The current leaderboard in ``directory`` (or an earlier ``version``)."""
    directory = Path(directory)
    path = (directory / "leaderboard.json" if version is None
            else directory / "versions" / f"v{version:04d}" / "leaderboard.json")
    if not path.exists():
        raise FileNotFoundError(
            f"no leaderboard at {str(path)!r}. Fix: create one with "
            f"`benchverdict leaderboard FILE -o {directory}`.")
    return Leaderboard.from_dict(json.loads(path.read_text(encoding="utf-8")))


def update_leaderboard(
    directory: str | Path,
    results: Results,
    *,
    replace: bool = False,
    progress: bool = False,
    sources: Sequence[str] = (),
) -> tuple[Leaderboard, list[Change]]:
    """Add a submission to the leaderboard in ``directory``; write a new version.

    The submission is checked against the leaderboard's design: an
    algorithm that misses benchmarks, seeds or the final budget is kept as an
    *incomplete* entry (listed with what it misses, not compared); rows
    outside the design are left out and counted. Then every analysis re-runs
    on the whole board (see the module docstring for why) and ``changes.md``
    says what moved and why.

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

    Returns
    -------
    board : Leaderboard
        The new version.
    changes : list of Change

    Raises
    ------
    ValueError
        If the objective or kind differs from the leaderboard's, or an
        algorithm is already on the board and ``replace`` is false.
    """
    directory = Path(directory)
    manifest_path = directory / "manifest.json"
    if not manifest_path.exists():
        raise FileNotFoundError(
            f"{str(directory)!r} holds no leaderboard (no manifest.json). Fix: create one "
            f"with `benchverdict leaderboard FILE -o {directory}`.")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    design = Design.from_dict(manifest["design"])
    check_submission(design, results)  # objective/kind/budget mismatches raise here
    old = load_leaderboard(directory)
    stored = pd.read_parquet(directory / "data.parquet")
    clash = sorted(set(results.algorithms) & set(stored["algorithm"]))
    if clash and not replace:
        raise ValueError(
            f"algorithm: {_listed(clash)} already on the leaderboard. Fix: rename the "
            f"submission's algorithms, or pass --replace to replace their rows.")
    submission = 1 + max(s["submission"] for s in manifest["submissions"])
    new_rows = _stored_table(results, submission)
    kept = stored[~stored["algorithm"].isin(clash)]
    combined = pd.concat([kept, new_rows], ignore_index=True)
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if design.final_budget is not None else [])
    everything = Results.from_frame(
        combined[columns], algorithm="algorithm", benchmark="benchmark", seed="seed",
        score="score", objective=design.objective,
        budget="budget" if design.final_budget is not None else None, kind=design.kind)
    version = old.version + 1
    created = _now()
    board = build_leaderboard(
        everything, design=design, analyses=manifest["analyses"], alpha=manifest["alpha"],
        confidence=manifest["confidence"], sanity_checks=manifest.get("sanity_checks", False),
        progress=progress, version=version, created=created, margin=manifest.get("margin"))
    if len(results.exclusions):
        board.notes.append(exclusion_note(results.exclusions, f"submission {submission}"))
    if clash:
        board.notes.append(f"Rows of {_listed(clash)} were replaced by submission "
                           f"{submission}.")
    changes = changes_between(old, board)
    _write_version(directory, board, _changes_markdown(board, changes, sources))
    tmp = directory / ".data.parquet.tmp"
    combined.to_parquet(tmp, index=False)
    os.replace(tmp, directory / "data.parquet")
    manifest["submissions"].append({
        "submission": submission, "version": version, "created": created,
        "sources": list(sources), "algorithms": list(results.algorithms),
        "replaced": clash, "rows": len(new_rows), "digest": _digest(new_rows)})
    _write_atomic(manifest_path, json.dumps(manifest, indent=2))
    return board, changes
