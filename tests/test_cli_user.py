"""The command line as a user meets it: pipes, usage errors, unreadable files (issue 10)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchverdict
from benchverdict import _cli_common, cli
from benchverdict.cli import main

ROLE_ARGS = ["--algorithm", "m", "--seed", "s", "--score", "acc", "--objective", "maximize",
             "--kind", "trials"]


@pytest.fixture()
def results_csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"m": np.repeat(["a", "b"], 40), "s": np.tile(np.arange(40), 2),
                       "acc": rng.uniform(size=80)})
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    return path


def run_shell(command: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(benchverdict.__file__).parents[1])}
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True,
                          text=True, env=env)


def test_closed_pipe_is_quiet(results_csv):
    cmd = (f"{sys.executable} -m benchverdict.cli validate {results_csv} {' '.join(ROLE_ARGS)}"
           f" | head -1")
    done = run_shell(cmd)
    assert done.stdout.startswith("80 rows")
    assert done.stderr == ""  # no "Broken pipe", no "Exception ignored"
    assert done.returncode in (0, _cli_common.EXIT_BROKEN_PIPE)


def test_unknown_adapter_is_a_usage_error(results_csv, capsys):
    with pytest.raises(SystemExit) as done:
        main(["validate", str(results_csv), "--adapter", "nope"])
    assert done.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_adapter_names_match_the_library():
    from benchverdict.io.adapters import ADAPTERS

    assert set(_cli_common.ADAPTER_NAMES) == {*ADAPTERS, "autorank-wide"}


def test_autorank_wide_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.7, 0.85, 0.6]}).to_csv(path, index=False)
    assert main(["validate", str(path), "--adapter", "autorank-wide"]) == 2
    assert "needs --objective" in capsys.readouterr().err
    assert main(["validate", str(path), "--adapter", "autorank-wide",
                 "--objective", "maximize"]) == 0


def test_output_path_that_is_a_file(results_csv, tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("x")
    code = main(["ranks", "--example", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and "is a file, not a folder" in err and "Errno" not in err


def test_debug_is_accepted_after_the_subcommand(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty"):
        main(["validate", str(empty), *ROLE_ARGS, "--debug"])
    with pytest.raises(ValueError, match="empty"):
        main(["--debug", "validate", str(empty), *ROLE_ARGS])
    assert main(["validate", str(empty), *ROLE_ARGS]) == 1


def _write_bad(kind: str, tmp_path: Path) -> Path:
    if kind == "empty":
        path = tmp_path / "r.csv"
        path.write_bytes(b"")
    elif kind == "latin1":
        path = tmp_path / "r.csv"
        path.write_bytes("m,s,acc\nété,0,0.5\n".encode("latin-1"))
    elif kind == "bad-gzip":
        path = tmp_path / "r.csv.gz"
        path.write_bytes(b"this is not gzip")
    elif kind == "truncated-gzip":
        path = tmp_path / "r.csv.gz"
        data = gzip.compress(b"m,s,acc\n" + b"a,0,0.5\n" * 5000)
        path.write_bytes(data[: len(data) // 2])
    elif kind == "bad-parquet":
        path = tmp_path / "r.parquet"
        path.write_bytes(b"PAR1 but not really")
    else:
        path = tmp_path / "r.jsonl"
        path.write_text('{"m": "a", "s": 0, "acc": 0.5}\n{"m": \n')
    return path


@pytest.mark.parametrize("kind, words", [
    ("empty", "the file is empty"),
    ("latin1", "not UTF-8 text; byte 0xe9 (line 2)"),
    ("bad-gzip", "not a complete .gz archive"),
    ("truncated-gzip", "not a complete .gz archive"),
    ("bad-parquet", "not a valid Parquet file"),
    ("bad-jsonl", "not valid JSON Lines"),
])
def test_unreadable_files_get_a_clear_message(kind, words, tmp_path, capsys):
    path = _write_bad(kind, tmp_path)
    code = main(["validate", str(path), *ROLE_ARGS])
    err = capsys.readouterr().err
    assert code == 1
    assert words in err and repr(str(path)) in err and "Fix:" in err
    assert "Traceback" not in err and "codec can't decode" not in err


def test_messages_name_command_line_options(results_csv, tmp_path, capsys):
    df = pd.read_csv(results_csv)
    df.loc[3, "acc"] = np.nan
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    assert main(["validate", str(path), *ROLE_ARGS]) == 1
    out = capsys.readouterr().out
    assert "--on-invalid drop" in out and "on_invalid=" not in out
    assert main(["validate", str(results_csv), *ROLE_ARGS[2:], "--algorithm", "model"]) == 1
    out = capsys.readouterr().out
    assert "--algorithm <one of these>" in out and "algorithm=<" not in out


def test_errors_from_analysis_subcommands_name_their_options(tmp_path, capsys):
    df = pd.DataFrame({"m": ["a", "a", "b", "c", "c", "a", "b", "c"],
                       "t": ["p", "p", "p", "p", "p", "q", "q", "q"],
                       "s": [0, 1, 0, 0, 1, 0, 0, 0], "acc": np.linspace(0, 1, 8)})
    df = df[~((df.m == "b") & (df.t == "q"))]
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    code = main(["ranks", str(path), *ROLE_ARGS, "--benchmark", "t", "--kind", "runs"])
    err = capsys.readouterr().err
    assert code == 1 and "--missing drop" in err and "missing='drop'" not in err


def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_validate", interrupted)
    assert main(["validate", "--example"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


@pytest.mark.parametrize("raised", [MemoryError(), MemoryError("Unable to allocate 7.45 GiB")])
def test_running_out_of_memory_says_what_to_do(raised, monkeypatch, capsys):
    # Issue 25: 10^7 rows under an 8 GB limit ended in a bare "MemoryError".
    def exhausted(args):
        raise raised

    monkeypatch.setattr(cli, "_cmd_validate", exhausted)
    assert main(["validate", "--example"]) == 1
    err = capsys.readouterr().err
    assert "ran out of memory" in err and "--analyses" in err and "--engine dask" in err
    assert str(raised) in err and "Traceback" not in err


def test_exit_codes_are_documented_in_help(capsys):
    for command in ([], ["validate"], ["ranks"], ["report"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        for code in ("0", "1", "2", "130", "141"):
            assert f" {code} " in text
        assert "usage error" in text
    assert "130" in cli.__doc__ and "141" in cli.__doc__


def test_example_with_file_or_roles_is_a_usage_error(results_csv, capsys):
    assert main(["validate", "--example", "--adapter", "hpob"]) == 2
    assert "--adapter" in capsys.readouterr().err
    assert main(["validate", str(results_csv), "--example"]) == 2
    assert "FILE" in capsys.readouterr().err


def test_unknown_suffix_is_a_usage_error_naming_format(tmp_path, capsys):
    path = tmp_path / "results.txt"
    path.write_text("m,s,acc\na,0,1\n")
    assert main(["validate", str(path), *ROLE_ARGS]) == 2
    err = capsys.readouterr().err
    assert "--format csv" in err and "format=" not in err


def test_validate_summary_speaks_command_line(results_csv, capsys):
    # Without --budget the kind must be given: the message says how, in options.
    assert main(["validate", str(results_csv), *ROLE_ARGS[:-2]]) == 1
    out = capsys.readouterr().out
    assert "--kind runs" in out and "kind='runs'" not in out


def test_role_options_an_adapter_does_not_use_are_refused_not_ignored(tmp_path, capsys):
    """Issue 25: --benchmark (and every other role option) was silently ignored by adapters."""
    path = tmp_path / "wide.csv"
    pd.DataFrame({"task": ["x", "y", "z"], "A": [0.9, 0.8, 0.7],
                  "B": [0.7, 0.85, 0.6]}).to_csv(path, index=False)
    code = main(["validate", str(path), "--adapter", "autorank-wide", "--objective",
                 "maximize", "--benchmark", "task", "--seed", "s", "--kind", "runs"])
    err = capsys.readouterr().err
    assert code == 2 and "does not use --seed, --kind" in err
    assert "it takes only --benchmark, --objective" in err and "Fix: drop" in err
    assert main(["validate", str(path), "--adapter", "autorank-wide", "--objective",
                 "maximize", "--benchmark", "task"]) == 0


def test_an_objective_contradicting_the_format_is_refused(shared_data, capsys):
    hedwig = str(shared_data / "meanmax" / "hedwig.tsv")
    assert main(["validate", hedwig, "--adapter", "meanmax", "--objective", "minimize"]) == 2
    assert "records the objective 'maximize'" in capsys.readouterr().err
    assert main(["validate", hedwig, "--adapter", "meanmax", "--objective", "maximize"]) == 0
    assert main(["validate", hedwig, "--adapter", "meanmax", "--budget", "trial"]) == 2
    assert "does not use --budget (it takes none of the role options)" in (
        capsys.readouterr().err)
