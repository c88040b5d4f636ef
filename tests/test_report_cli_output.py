"""``benchverdict report`` writes its directory all at once (issue 10, the command line).

Ctrl-C leaves the previous report intact and exits 130 with one line; a re-run leaves no
stale files; ``-o`` naming a file (or a directory of other files) is a usage error; progress
is shown on stderr only on a terminal or with ``--progress``.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchverdict import _output_dir as _output
from benchverdict import cli
from benchverdict.report.runner import Comparison

#: A quick report: the built-in example, rank tests only.
QUICK = ["report", "--example", "--analyses", "ranks", "--no-progress"]


def snapshot(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with the SHA-256 of its content."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*")) if p.is_file()
    }


def leftovers(directory: Path) -> list[str]:
    """Staging or backup directories left beside ``directory``."""
    return sorted(p.name for p in directory.parent.iterdir()
                  if p.name.startswith(f".{directory.name}."))


@pytest.fixture
def previous(tmp_path) -> tuple[Path, dict[str, str]]:
    """An earlier report in tmp_path/out, and its files."""
    out = tmp_path / "out"
    assert cli.main([*QUICK, "-o", str(out)]) == 0
    return out, snapshot(out)


def test_report_directory_has_every_file_and_the_marker(previous):
    out, files = previous
    for name in ("report.html", "report.md", "report.json", "verdicts.csv", "agreement.csv",
                 "conflicts.csv", "exclusions.csv", "latex/report.tex", _output.MARKER):
        assert name in files, name
    assert not leftovers(out)


def test_a_rerun_leaves_no_stale_files(previous):
    """Issue 10: a re-run left stale files from an earlier report."""
    out, _ = previous
    # Figures of an analysis the earlier report had: its manifest lists them.
    manifest = json.loads((out / _output.MARKER).read_text(encoding="utf-8"))
    for rel, content in [("latex/figures/tuning-gone.pdf", b"%PDF stale"),
                         ("report_figures/tuning-gone.svg", b"<svg/>"),
                         ("gone/only.csv", b"a,b")]:
        (out / rel).parent.mkdir(exist_ok=True)
        (out / rel).write_bytes(content)
        manifest["files"][rel] = [hashlib.sha256(content).hexdigest()]
    (out / _output.MARKER).write_text(json.dumps(manifest), encoding="utf-8")
    assert cli.main([*QUICK, "-o", str(out)]) == 0
    assert not (out / "latex" / "figures" / "tuning-gone.pdf").exists()
    assert not (out / "report_figures" / "tuning-gone.svg").exists()
    assert not (out / "gone").exists()  # the folder it emptied goes too
    assert "gone/only.csv" not in _output.read_manifest(out)
    assert not leftovers(out)


def test_a_folder_without_the_manifest_is_refused_even_with_a_report_json(previous, capsys):
    """Issue 25: a folder that merely held a report.json was replaced whole."""
    out, files = previous
    (out / _output.MARKER).unlink()  # a report from before the manifest, or a user's folder
    assert not _output.is_report_directory(out)
    assert cli.main([*QUICK, "-o", str(out)]) == 2
    assert "no benchverdict manifest" in capsys.readouterr().err
    assert snapshot(out) == {k: v for k, v in files.items() if k != _output.MARKER}


def test_keyboard_interrupt_while_writing_keeps_the_previous_report(previous, monkeypatch,
                                                                   capsys):
    """Issue 10: Ctrl-C printed a traceback and left a mix of new and old files."""
    out, files = previous
    capsys.readouterr()

    def interrupted(self, directory):
        (Path(directory) / "report.tex").parent.mkdir(parents=True, exist_ok=True)
        (Path(directory) / "report.tex").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(Comparison, "to_latex", interrupted)
    assert cli.main([*QUICK, "-o", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted" in err[0] and "Traceback" not in err[0]
    assert snapshot(out) == files
    assert not leftovers(out)


def test_keyboard_interrupt_during_the_analyses_exits_130(previous, monkeypatch, capsys):
    out, files = previous
    import dataclasses

    from benchverdict import families

    def interrupted(results, options):
        raise KeyboardInterrupt

    ranks = dataclasses.replace(families.get_family("ranks"), runner=interrupted)
    monkeypatch.setitem(families._REGISTRY, "ranks", ranks)
    assert cli.main([*QUICK, "-o", str(out)]) == 130
    assert capsys.readouterr().err.count("\n") == 1
    assert snapshot(out) == files


def test_a_failed_swap_restores_the_previous_report(previous, monkeypatch):
    out, files = previous
    real = os.replace
    calls = []

    def replace(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the new directory into place
            raise OSError("disk full")
        return real(src, dst)

    monkeypatch.setattr(_output.os, "replace", replace)
    with pytest.raises(OSError, match="disk full"):
        with _output.staged_directory(out) as stage:
            (stage / "report.html").write_text("new")
    assert snapshot(out) == files
    assert not leftovers(out)


SIGINT_DRIVER = """
import pathlib, sys, time
from benchverdict.report import latex
real = latex.render_latex

def slow(comparison, directory):
    path = real(comparison, directory)
    pathlib.Path(sys.argv[1]).write_text("writing")
    time.sleep(300)
    return path

latex.render_latex = slow
from benchverdict import cli
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_sigint_to_the_command_mid_write_keeps_the_previous_report(previous, tmp_path):
    out, files = previous
    ready = tmp_path / "ready"
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(Path(cli.__file__).parents[1]),
                                          os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", SIGINT_DRIVER, str(ready), *QUICK, "-o",
                             str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        deadline = time.monotonic() + 240
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), proc.communicate(timeout=10)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines() == [
        f"benchverdict report: interrupted; {out} was left as it was."]
    assert snapshot(out) == files
    assert not leftovers(out)


@pytest.mark.parametrize("kind", ["file", "foreign directory"])
def test_out_must_be_a_report_directory(tmp_path, capsys, kind):
    """Issue 10: -o pointing at a file gave "[Errno 17] File exists"."""
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("my notes")
    else:
        target.mkdir()
        (target / "thesis.tex").write_text("years of work")
    before = snapshot(tmp_path)
    assert cli.main([*QUICK, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchverdict report: -o")
    assert str(target) in err
    # A file is refused by the shared output check in cli.py before any work is done.
    assert ("is a file, not a folder" if kind == "file" else "holds other files") in err
    assert "Errno" not in err and "Traceback" not in err
    assert snapshot(tmp_path) == before


def test_out_through_a_symlink_replaces_the_linked_directory(tmp_path):
    real_dir = tmp_path / "real"
    link = tmp_path / "link"
    assert cli.main([*QUICK, "-o", str(real_dir)]) == 0
    link.symlink_to(real_dir, target_is_directory=True)
    assert cli.main([*QUICK, "-o", str(link)]) == 0
    assert link.is_symlink() and (real_dir / "report.html").is_file()


def test_exclusions_csv_lists_every_record(tmp_path):
    out = tmp_path / "out"
    frame = pd.DataFrame({
        "alg": ["A", "B"] * 6, "task": ["p"] * 6 + ["q"] * 6,
        "seed": [0, 0, 1, 1, 2, 2] * 2, "acc": [0.1, 0.2, 0.3, None, 0.5, 0.6] * 2,
    })
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    code = cli.main(["report", str(path), "--algorithm", "alg", "--benchmark", "task",
                     "--seed", "seed", "--score", "acc", "--objective", "maximize",
                     "--on-invalid", "drop", "--kind", "trials", "--no-progress",
                     "--analyses", "dse", "-o", str(out)])
    assert code == 0
    listed = pd.read_csv(out / "exclusions.csv")
    assert listed["analysis"].tolist() == ["validation", "validation"]
    assert sorted(listed["row"]) == [3, 9]
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["exclusions"][0]["count"] == 2


def test_progress_only_on_request_or_on_a_terminal(tmp_path, capsys):
    args = ["report", "--example", "--analyses", "ranks", "-o", str(tmp_path / "o")]
    assert cli.main(args) == 0  # stderr is not a terminal under pytest
    assert "benchverdict report" not in capsys.readouterr().err
    assert cli.main([*args, "--progress"]) == 0
    err = capsys.readouterr().err
    assert "benchverdict report" in err and "writing the report" in err
