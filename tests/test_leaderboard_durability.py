"""The leaderboard store on disk: concurrent writers, crashes, a full disk, corruption, links.

Issue 25: two interleaved updates each lost a submission; a kill or a full disk in
the write phase wedged boards ("'versions/v0002' is a file, not a folder") or made
shown submissions vanish; a truncated file gave a bare JSONDecodeError; a planted
link at the temporary file made an update write outside the board; ``-o`` into an
existing folder overwrote the user's files; ``leaderboard.md`` let an ``<img
onerror>`` name run. Every published version must stay intact and the next update
must work.

Crashes are simulated two ways: in-process, by failing the k-th file operation for
every k and then every later one (the process is "dead": nothing it would still do
reaches the disk), and by SIGKILL of a forked child at seeded random moments.
Boards are built once per distinct input (a memo of ``build_leaderboard``), so the
write phase, not the statistics, is what the many attempts exercise.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import fcntl
import json
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from benchverdict.cli import main
from benchverdict.leaderboard import (
    StoreError,
    create_leaderboard,
    load_leaderboard,
    update_leaderboard,
)
from benchverdict.leaderboard import store as store_module
from test_leaderboard import PLANTED, as_results, scores

SMALL = {"n_benchmarks": 6, "n_seeds": 2}
#: The file operations that change what a reader of the folder sees (``open`` when it
#: creates): a crash between two of them leaves what a crash just before the next does.
FILE_OPS = ("open", "write", "mkdir", "rename", "replace", "unlink", "rmdir")


def submission(name: str, offset: float = 0.5):
    return as_results(scores({name: offset}, **SMALL))


@pytest.fixture
def fast_builds(monkeypatch):
    """Memoise ``build_leaderboard`` on its input (rows and version): the crash loops
    repeat the same update many times, and only its writes are under test."""
    real = store_module.build_leaderboard
    memo: dict = {}

    def build(results, **kwargs):
        key = (int(pd.util.hash_pandas_object(results.table, index=False).sum()),
               kwargs["version"])
        if key not in memo:
            memo[key] = real(results, **kwargs)
        return copy.deepcopy(memo[key])  # the store appends notes to the board it gets

    monkeypatch.setattr(store_module, "build_leaderboard", build)
    return memo


@pytest.fixture
def board(tmp_path):
    folder = tmp_path / "board"
    create_leaderboard(folder, as_results(scores({"a": 0.0, "b": 1.0}, **SMALL)),
                       analyses=["ranks"], sources=["base.csv"])
    return folder


# ------------------------------------------------------------------ consistency
def published(folder: Path) -> tuple[int, set[str]]:
    """The published version and every algorithm a published submission holds."""
    manifest = json.loads((folder / "manifest.json").read_text())
    return (max(s["version"] for s in manifest["submissions"]),
            {a for s in manifest["submissions"] for a in s["algorithms"]})


def assert_consistent(folder: Path, shown_before: set[str]) -> int:
    """Every published version reads (digests checked); nothing published vanished; the
    current files never show a version that was not published."""
    version, algorithms = published(folder)
    assert shown_before <= algorithms, f"published submissions vanished: {shown_before}"
    for v in range(1, version + 1):
        assert load_leaderboard(folder, version=v).version == v
    current = load_leaderboard(folder)
    assert current.version == version
    on_board = set(current.entries["algorithm"]) | set(current.incomplete["algorithm"])
    assert algorithms == on_board
    top = json.loads((folder / "leaderboard.json").read_text())
    assert top["version"] <= version  # stale until refreshed, never ahead
    return version


def assert_clean(folder: Path) -> None:
    """No temporary file or folder of a writer is left behind after an update."""
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    leftovers += [p.name for p in (folder / "versions").iterdir() if p.name.startswith(".")]
    assert not leftovers


@contextlib.contextmanager
def failing_file_ops(monkeypatch, at: int, error, kinds=FILE_OPS):
    """The ``at``-th call of the ``kinds`` file operations raises ``error()``, and so does
    every later one: a crashed process does nothing more, a full disk stays full."""
    calls = [0]
    with monkeypatch.context() as patch:
        for name in kinds:
            real = getattr(os, name)

            def op(*args, _real=real, _name=name, **kwargs):
                if _name == "open" and not args[1] & os.O_CREAT:
                    return _real(*args, **kwargs)  # reading changes nothing on disk
                calls[0] += 1
                if calls[0] >= at:
                    raise error()
                return _real(*args, **kwargs)

            patch.setattr(os, name, op)
        yield calls


class Crash(BaseException):
    """The process dies here (not an Exception: no ``except Exception`` handles it)."""


# ------------------------------------------------------------------ 1. concurrent writers
def test_a_held_lock_is_a_clear_error_and_changes_nothing(board):
    lock = os.open(board / ".leaderboard.lock", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with pytest.raises(StoreError, match=r"another update of this leaderboard is running "
                                             r"\(lock held on .*\.leaderboard\.lock'\); wait"):
            update_leaderboard(board, submission("x"), lock_wait=0.2)
    finally:
        os.close(lock)
    assert published(board) == (1, {"a", "b"})
    assert update_leaderboard(board, submission("x"))[0].version == 2


def test_two_concurrent_updates_both_publish_in_turn(board):
    """Two processes update one folder at once: the second waits for the first."""
    children = []
    for name in ("first", "second"):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                update_leaderboard(board, submission(name))
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    assert codes == [0, 0]
    assert published(board) == (3, {"a", "b", "first", "second"})
    manifest = json.loads((board / "manifest.json").read_text())
    assert [(s["submission"], s["version"]) for s in manifest["submissions"]] == [
        (1, 1), (2, 2), (3, 3)]
    assert_consistent(board, {"a", "b", "first", "second"})
    assert_clean(board)


# ------------------------------------------------------------------ 2. crashes, full disk
def test_a_crash_at_every_file_operation_keeps_the_board(board, monkeypatch, fast_builds,
                                                        tmp_path):
    """Die before each file operation of an update in turn (each time from the same
    board): nothing published is lost, the current files never show an unpublished
    version, and the next update works (it clears or finishes what the dead one left)."""
    at, outcomes = 0, []
    while True:
        at += 1
        folder = tmp_path / f"crash{at}"
        shutil.copytree(board, folder)
        with failing_file_ops(monkeypatch, at, Crash) as calls:
            try:
                update_leaderboard(folder, submission("s"))
                break
            except Crash:
                pass
        assert_consistent(folder, {"a", "b"})
        version, algorithms = published(folder)
        outcomes.append(version)
        nxt = "t" if "s" in algorithms else "s"
        assert update_leaderboard(folder, submission(nxt))[0].version == version + 1
        assert_consistent(folder, algorithms | {nxt})
        assert_clean(folder)
    # Every operation of a whole update was a crash point, before and after the commit.
    assert len(outcomes) == calls[0] >= 30
    assert set(outcomes) == {1, 2}


def test_a_full_disk_at_every_write_leaves_the_board_intact(board, monkeypatch, fast_builds):
    shown = published(board)[1]
    name, at, refused = "big", 1, 0
    while True:
        with failing_file_ops(monkeypatch, at, lambda: OSError(errno.ENOSPC, "No space left on "
                                                               "device"), kinds=("write",)):
            try:
                update_leaderboard(board, submission(name))
                break
            except StoreError as err:
                refused += 1
                text = str(err)
                assert "No space left on device" in text
                assert ("stays at version 1, unchanged" in text
                        or "version 2 is published" in text), text
        assert_consistent(board, shown)
        assert_clean(board)  # the failed writer removed its temporary files itself
        if name in published(board)[1]:
            break
        at += 1
    # Every write of the update failed once: the six files of the version folder, the
    # manifest and, after the commit, the current files.
    assert refused >= 7
    assert update_leaderboard(board, submission("after"))[0].version == 3
    assert_consistent(board, shown | {"big", "after"})
    # The current files are those of the last version again.
    for name in ("leaderboard.json", "leaderboard.md", "changes.md"):
        assert ((board / name).read_bytes()
                == (board / "versions" / "v0003" / name).read_bytes())


def test_sigkill_at_random_moments_keeps_the_board(board, monkeypatch, fast_builds, tmp_path):
    """A forked child updates with slowed file operations; it is killed at seeded random
    moments. After each kill every published version reads, no published submission is
    gone, and an update of the folder as the kill left it works.

    The moment is counted in the child's file operations, not in seconds: the child reports
    each one through a pipe, and the parent kills it after a seeded number of them (up to a
    quarter more than an update makes, so some kills come after its end). Timed by the
    clock, a loaded machine slowed the child until every kill came before its commit."""
    rng = random.Random(25)
    names = ("write", "fsync", "rename", "replace", "unlink", "mkdir")
    real = {name: getattr(os, name) for name in names}

    def counted(name, tick):
        def op(*args, **kwargs):
            tick()
            return real[name](*args, **kwargs)
        return op

    shown, killed, kept = published(board)[1], 0, 0
    for round_ in range(14):
        name = f"k{round_}"
        # The folder as it is now (what the last kill left) takes an update: this also
        # builds the board the child will publish, and counts an update's file operations.
        scratch = tmp_path / f"scratch{round_}"
        shutil.copytree(board, scratch)
        n_ops = [0]

        def count(ops: list[int] = n_ops) -> None:
            ops[0] += 1

        with monkeypatch.context() as patch:
            for op_name in names:
                patch.setattr(os, op_name, counted(op_name, count))
            update_leaderboard(scratch, submission(name))
        assert n_ops[0] > 20
        assert_consistent(scratch, shown | {name})
        assert_clean(scratch)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.close(read_end)

                def tick(fd: int = write_end) -> None:
                    real["write"](fd, b".")
                    time.sleep(0.002)  # time for the parent's kill to land here

                for op_name in names:
                    setattr(os, op_name, counted(op_name, tick))
                update_leaderboard(board, submission(name))
            finally:
                os._exit(0)
        os.close(write_end)
        target, seen = rng.randint(0, n_ops[0] + n_ops[0] // 4), 0
        with os.fdopen(read_end, "rb", buffering=0) as reports:
            while seen < target and reports.read(1):
                seen += 1
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
        killed += os.WIFSIGNALED(status)
        assert_consistent(board, shown)
        shown = published(board)[1]
        kept += name in shown
    assert killed >= 7  # most kills landed while the child was still writing
    assert 2 <= kept <= 12  # some kills came before the commit, some after
    final, _ = update_leaderboard(board, submission("final"))
    assert_consistent(board, shown | {"final"})
    assert_clean(board)
    assert final.version == published(board)[0]


def test_a_board_wedged_by_an_earlier_benchverdict_updates_again(board):
    """Boards written before: a kill left ``versions/v0002`` without leaderboard.json and
    the stopped submission's rows in data.parquet. The next update clears and ignores them."""
    # The layout of a board written before this store (no digests, rows only at the top).
    manifest = json.loads((board / "manifest.json").read_text())
    for entry in manifest["submissions"]:
        entry.pop("files", None)
    (board / "manifest.json").write_text(json.dumps(manifest, indent=2))
    for name in ("data.parquet", "manifest.json", ".leaderboard.lock"):
        (board / "versions" / "v0001" / name).unlink(missing_ok=True)
    (board / ".leaderboard.lock").unlink(missing_ok=True)
    stopped = (board / "versions" / "v0002")
    stopped.mkdir()
    (stopped / "leaderboard.md").write_text("# half")
    rows = pd.read_parquet(board / "data.parquet")
    extra = rows[rows["algorithm"] == "a"].assign(algorithm="ghost", submission=2)
    pd.concat([rows, extra]).to_parquet(board / "data.parquet", index=False)
    (board / ".leaderboard.json.tmp").write_text("{")
    assert load_leaderboard(board).version == 1  # old boards still read
    new, _ = update_leaderboard(board, submission("next"))
    assert new.version == 2
    assert set(new.entries["algorithm"]) == {"a", "b", "next"}  # the ghost never published
    assert_consistent(board, {"a", "b", "next"})
    assert_clean(board)


def test_an_old_board_s_rows_are_checked_against_their_recorded_digests(board):
    """Boards written before recorded only each submission's row digest: it is checked."""
    manifest = json.loads((board / "manifest.json").read_text())
    for entry in manifest["submissions"]:
        entry.pop("files", None)
    (board / "manifest.json").write_text(json.dumps(manifest, indent=2))
    for name in ("data.parquet", "manifest.json"):
        (board / "versions" / "v0001" / name).unlink(missing_ok=True)
    rows = pd.read_parquet(board / "data.parquet")
    rows.loc[0, "score"] += 1.0
    rows.to_parquet(board / "data.parquet", index=False)
    with pytest.raises(StoreError, match=r"data.parquet' is corrupt: the rows of submission 1 "
                                         r"differ from those manifest.json records"):
        update_leaderboard(board, submission("x"))


# ------------------------------------------------------------------ 3. corruption corpus
def _mutations(data: bytes):
    n = len(data)
    yield "empty", b""
    yield "half", data[: n // 2]
    yield "last byte cut", data[:-1]
    for where in (0, n // 3, n - 2):
        flipped = bytearray(data)
        flipped[where] ^= 0x20
        yield f"byte {where} flipped", bytes(flipped)
    yield "deleted", None


def test_store_corruption_corpus(tmp_path, monkeypatch, fast_builds):
    """Truncate, flip a byte in or delete each file of a two-version board: every read
    and update either gives exactly the stored board or fails with StoreError naming the
    file (never a bare JSONDecodeError, KeyError or other traceback)."""
    origin = tmp_path / "origin"
    create_leaderboard(origin, as_results(scores({"a": 0.0, "b": 1.0}, **SMALL)),
                       analyses=["ranks"])
    update_leaderboard(origin, submission("c"))
    expected = {v: load_leaderboard(origin, version=v).to_json() for v in (1, 2)}
    # The sites' pages (benchverdict.leaderboard.site) are written, never read: left out
    # (each case copies the board). What an update reads of them is damaged: the current
    # version's SHA256SUMS and history.json, and the top-level SHA256SUMS.
    read = {Path("site", "SHA256SUMS"), Path("versions", "v0002", "site", "SHA256SUMS"),
            Path("versions", "v0002", "site", "history.json")}
    for path in list(origin.rglob("*")):
        if "site" in path.parts and path.is_file() and path.relative_to(origin) not in read:
            path.unlink()
    files = sorted(p.relative_to(origin) for p in origin.rglob("*")
                   if p.is_file() and p.name != ".leaderboard.lock")
    assert len(files) == 21
    cases = errors = 0
    for relative in files:
        original = (origin / relative).read_bytes()
        for what, mutated in _mutations(original):
            if mutated == original:
                continue
            folder = tmp_path / "case"
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(origin, folder)
            if mutated is None:
                (folder / relative).unlink()
            else:
                (folder / relative).write_bytes(mutated)
            cases += 1
            label = f"{relative} {what}"
            for version in (None, 1, 2):
                try:
                    got = load_leaderboard(folder, version=version)
                except StoreError as err:
                    errors += 1
                    assert str(relative) in str(err), (label, str(err))
                    assert "Fix:" in str(err), (label, str(err))
                    continue
                assert got.to_json() == expected[version or 2], label
            # An update reads what a load reads, and the rows: it runs on every damage to
            # the rows, and on three kinds of damage to the other files (time).
            if relative.name != "data.parquet" and what not in {"empty", "deleted",
                                                                  "half"}:
                continue
            try:
                board, _ = update_leaderboard(folder, submission("d"))
            except StoreError as err:
                assert str(relative) in str(err), (label, str(err))
                assert "intact" in str(err), (label, str(err))
                continue
            assert board.version == 3, label
            assert set(board.entries["algorithm"]) == {"a", "b", "c", "d"}, label
    assert cases >= 120 and errors >= 30


def test_a_corrupt_manifest_names_the_file_and_the_way_back(board):
    update_leaderboard(board, submission("c"))
    text = (board / "manifest.json").read_text()
    (board / "manifest.json").write_text(text[: len(text) // 2])
    with pytest.raises(StoreError) as info:
        update_leaderboard(board, submission("d"))
    message = str(info.value)
    assert "manifest.json' is corrupt: not valid JSON" in message
    assert "the last intact one is" in message and "v0002" in message
    assert "versions/v0002/manifest.json" in message
    # The way back it names works.
    shutil.copy(board / "versions" / "v0002" / "manifest.json", board / "manifest.json")
    assert update_leaderboard(board, submission("d"))[0].version == 3


def test_a_stored_digest_mismatch_is_an_error_naming_the_file(board):
    path = board / "versions" / "v0001" / "leaderboard.json"
    data = json.loads(path.read_text())
    data["headline"] = "edited"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(StoreError, match=r"v0001/leaderboard.json' is corrupt: its SHA-256 "
                                         r".*differs .* copy it to"):
        load_leaderboard(board)


# ------------------------------------------------------------------ 4. planted links
def test_planted_links_never_make_an_update_write_outside_the_board(board, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("precious")
    for name in (".leaderboard.json.tmp", ".data.parquet.tmp", ".manifest.json.tmp",
                 ".leaderboard.md.tmp", ".changes.md.tmp"):
        (board / name).symlink_to(victim)
    assert update_leaderboard(board, submission("x"))[0].version == 2
    assert victim.read_text() == "precious"
    # Links where the next version and its temporary folder go.
    (board / "versions" / "v0003").symlink_to(outside, target_is_directory=True)
    (board / "versions" / ".tmp-v0003-planted").symlink_to(outside, target_is_directory=True)
    assert update_leaderboard(board, submission("w"))[0].version == 3
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert (board / "versions" / "v0003").is_dir()
    assert not (board / "versions" / "v0003").is_symlink()
    # The versions folder itself or the lock file as a link: refused, nothing written there.
    shutil.move(board / "versions", tmp_path / "moved")
    (board / "versions").symlink_to(outside, target_is_directory=True)
    with pytest.raises(StoreError, match="versions' is not a folder"):
        update_leaderboard(board, submission("y"))
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    (board / "versions").unlink()
    shutil.move(tmp_path / "moved", board / "versions")
    (board / ".leaderboard.lock").unlink()
    (board / ".leaderboard.lock").symlink_to(victim)
    with pytest.raises(StoreError, match="lock file"):
        update_leaderboard(board, submission("y"))
    assert victim.read_text() == "precious"


# ------------------------------------------------------------------ 5. -o into a folder
def test_create_never_writes_into_a_foreign_folder(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "work"
    folder.mkdir()
    frame = scores(PLANTED, **SMALL)
    frame.to_parquet(folder / "data.parquet", index=False)
    (folder / "changes.md").write_text("my notes")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(StoreError, match=r"is not empty and holds no leaderboard "
                                         r"\(changes.md, data.parquet\).*new or empty folder"):
        create_leaderboard(folder, as_results(frame), analyses=["ranks"])
    monkeypatch.chdir(folder)
    roles = ["--algorithm", "algo", "--benchmark", "task", "--seed", "seed", "--score", "acc",
             "--objective", "maximize", "--kind", "runs", "--analyses", "ranks"]
    assert main(["leaderboard", "data.parquet", *roles, "-o", "."]) == 1
    assert "holds no leaderboard" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    # An empty folder, and one that a creation stopped before publishing left, are fine.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["leaderboard", "data.parquet", *roles, "-o", str(empty)]) == 0
    stopped = tmp_path / "stopped"
    (stopped / "versions" / ".tmp-v0001-x").mkdir(parents=True)
    (stopped / "versions" / ".tmp-v0001-x" / "leaderboard.json").write_text("{")
    (stopped / ".leaderboard.lock").touch()
    assert main(["leaderboard", "data.parquet", *roles, "-o", str(stopped)]) == 0
    assert load_leaderboard(stopped).version == 1
    assert_clean(stopped)
    # Never into an input: a folder of parquet parts read as one input stays as it was.
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.to_parquet(parts / "part-0.parquet", index=False)
    assert main(["leaderboard", str(parts), *roles, "-o", str(parts / "board")]) == 2
    assert "inside the input folder" in capsys.readouterr().err
    assert [p.name for p in parts.iterdir()] == ["part-0.parquet"]


# ------------------------------------------------------------------ 6. Markdown stays inert
HOSTILE = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "# heading",
           "- item", "[click](javascript:alert(1))", "a|b", "*bold*", "`code`", "1. first"]


def _tags(html_text: str) -> list[str]:
    from html.parser import HTMLParser

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags: list[str] = []
            self.text: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_data(self, data):
            self.text.append(data)

    parser = Tags()
    parser.feed(html_text)
    return parser.tags, "".join(parser.text)


def _hostile_board(tmp_path: Path) -> Path:
    folder = tmp_path / "hostile"
    offsets = {name: float(i) for i, name in enumerate(HOSTILE[:5])}
    create_leaderboard(folder, as_results(scores(offsets, **SMALL)), analyses=["ranks"],
                       sources=["<b>x</b>.csv"])
    late = scores({name: 1.0 for name in HOSTILE[5:]}, **SMALL)
    late = late[~((late["algo"] == "`code`") & (late["task"] == "task1"))]  # incomplete
    update_leaderboard(folder, as_results(late), sources=["<i>y</i>.csv"])
    return folder


@pytest.mark.parametrize("renderer", ["markdown-it", "Python-Markdown"])
def test_leaderboard_markdown_renders_names_as_text(tmp_path, renderer):
    if renderer == "markdown-it":
        markdown_it = pytest.importorskip("markdown_it")
        render = markdown_it.MarkdownIt("commonmark").enable("table").render
    else:
        markdown = pytest.importorskip("markdown")

        def render(text):
            return markdown.markdown(text, extensions=["tables"])
    folder = _hostile_board(tmp_path)
    for name in ("leaderboard.md", "changes.md"):
        text = (folder / name).read_text()
        assert "<img" not in text and "<script" not in text and "<b>" not in text
        tags, shown = _tags(render(text))
        assert not {"img", "script", "a", "b", "i", "code", "em", "strong", "ol"} & set(
            tags) - ({"strong"} if name == "leaderboard.md" else set()), (name, tags)
        for hostile in HOSTILE:
            if name == "leaderboard.md" or hostile in HOSTILE[5:]:
                assert hostile in shown, (name, hostile)
    # The table keeps one cell per column in every row (the pipe stays inside its cell).
    rows = [line for line in (folder / "leaderboard.md").read_text().splitlines()
            if line.startswith("| ")]
    assert {len([c for c in _cells(r)]) for r in rows} == {6}


def _cells(row: str) -> list[str]:
    import re

    return re.split(r"(?<!\\)\|", row)[1:-1]
