"""Every analysis command's ``-o`` is as safe as the report's (issue 25, data losses).

``benchverdict ranks data.csv -o DIR`` (and tuning, dse, lmem, sanity, plan)
wrote straight into DIR: a user's ``verdicts.csv`` was overwritten and
nothing checked that DIR was theirs. Now each is staged and moved in with a
manifest of its own files (:mod:`benchverdict._output_dir`): a folder
holding other files is refused before the analysis runs, files the command
did not write survive, and a re-run replaces only its own files.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict import _output_dir, cli

ROLES = ["--algorithm", "alg", "--benchmark", "task", "--seed", "seed", "--budget", "trial",
         "--score", "acc", "--objective", "maximize"]
#: command -> its extra options (small, fast settings).
COMMANDS = {
    "ranks": [],
    "lmem": [],
    "sanity": [],
    "tuning": ["--band", "dkw"],
    "dse": ["--n-resamples", "200", "--n-permutations", "99"],
    "plan": [],
}


@pytest.fixture(scope="module")
def trials(tmp_path_factory):
    """3 algorithms x 5 benchmarks x 3 seeds x 4 trials of random search."""
    rng = np.random.default_rng(4)
    rows = [(alg, f"t{b}", s, t, rng.normal(i * 0.3, 1.0))
            for i, alg in enumerate("ABC") for b in range(5) for s in range(3)
            for t in range(1, 5)]
    path = tmp_path_factory.mktemp("data") / "trials.csv"
    pd.DataFrame(rows, columns=["alg", "task", "seed", "trial", "acc"]).to_csv(path, index=False)
    return path


def run(command: str, data, out, capsys) -> tuple[int, str]:
    code = cli.main([command, str(data), *ROLES, *COMMANDS[command], "--no-progress",
                     "-o", str(out)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_folder_of_the_users_is_refused_before_any_work(command, trials, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    (out / "verdicts.csv").write_text("my own table")
    code, err = run(command, trials, out, capsys)
    assert code == 2, err
    assert "never deletes or overwrites" in err and "-o" in err
    assert (out / "thesis.tex").read_text() == "years of work"
    assert (out / "verdicts.csv").read_text() == "my own table"
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex", "verdicts.csv"]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_rerun_replaces_only_its_own_files(command, trials, tmp_path, capsys):
    out = tmp_path / "out"
    code, err = run(command, trials, out, capsys)
    assert code in (0, 1), err
    written = {p.name for p in out.iterdir()}
    assert _output_dir.MARKER in written and len(written) >= 2
    (out / "notes.md").write_text("mine")  # the user adds a file beside the outputs
    code, err = run(command, trials, out, capsys)
    assert code in (0, 1), err
    assert (out / "notes.md").read_text() == "mine"
    assert {p.name for p in out.iterdir()} == written | {"notes.md"}


def test_an_output_edited_since_it_was_written_is_not_replaced(trials, tmp_path, capsys):
    out = tmp_path / "out"
    assert run("ranks", trials, out, capsys)[0] in (0, 1)
    (out / "verdicts.csv").write_text("edited by hand")
    code, err = run("ranks", trials, out, capsys)
    assert code == 2 and "changed since" in err
    assert (out / "verdicts.csv").read_text() == "edited by hand"


def test_an_input_among_the_outputs_is_refused(trials, tmp_path, capsys):
    out = tmp_path / "out"
    assert run("ranks", trials, out, capsys)[0] in (0, 1)
    code, err = run("ranks", out / "verdicts.csv", out, capsys)
    assert code == 2 and "input" in err
