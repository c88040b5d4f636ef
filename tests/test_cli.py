"""The command line: validate, version, errors without tracebacks."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchverdict
from benchverdict import __version__
from benchverdict.cli import main


@pytest.fixture()
def results_csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"m": np.repeat(["a", "b"], 4), "s": np.tile([0, 1, 2, 3], 2),
                       "acc": rng.uniform(size=8)})
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    return path, df


ROLE_ARGS = ["--algorithm", "m", "--seed", "s", "--score", "acc", "--objective", "maximize",
             "--kind", "trials"]


def test_validate_clean_file_exits_zero(results_csv, capsys):
    path, _ = results_csv
    assert main(["validate", str(path), *ROLE_ARGS]) == 0
    out = capsys.readouterr().out
    assert "OK: no problems found" in out and "8 rows" in out


def test_validate_bad_file_exits_one_and_lists_problems(tmp_path, results_csv, capsys):
    _, df = results_csv
    df.loc[2, "acc"] = np.nan
    df = pd.concat([df, df.iloc[[0]]])
    path = tmp_path / "bad.csv"
    df.to_csv(path, index=False)
    assert main(["validate", str(path), *ROLE_ARGS]) == 1
    out = capsys.readouterr().out
    assert "INVALID: 2 problem(s)" in out and "'acc'" in out and "share their key" in out
    assert main(["validate", str(path), *ROLE_ARGS, "--on-invalid", "drop"]) == 1
    out = capsys.readouterr().out
    assert "PROBLEMS: 3 row(s) were dropped" in out


def test_missing_role_option_is_a_usage_error(results_csv, capsys):
    path, _ = results_csv
    assert main(["validate", str(path), "--algorithm", "m"]) == 2
    err = capsys.readouterr().err
    assert "--seed" in err and "--score" in err and "Traceback" not in err


def test_errors_have_no_traceback_unless_debug(tmp_path, capsys):
    missing = tmp_path / "nope.csv"
    assert main(["validate", str(missing), *ROLE_ARGS]) == 2  # a usage error: wrong path
    err = capsys.readouterr().err
    assert "no such file" in err and "Traceback" not in err
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert main(["validate", str(empty), *ROLE_ARGS]) == 1
    err = capsys.readouterr().err
    assert "empty" in err and "Traceback" not in err and "--debug" in err
    with pytest.raises(ValueError, match="empty"):
        main(["--debug", "validate", str(empty), *ROLE_ARGS])


def test_version_and_console_script(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"benchverdict {__version__}"
    assert main(["--debug", "--version"]) == 0
    assert capsys.readouterr().out.strip() == f"benchverdict {__version__}"
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("benchverdict") == "benchverdict.cli:main"


def test_module_entry_point_runs():
    env = {**os.environ, "PYTHONPATH": str(Path(benchverdict.__file__).parents[1])}
    out = subprocess.run([sys.executable, "-m", "benchverdict.cli", "--version"],
                         capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == f"benchverdict {__version__}"


def test_version_answers_before_pandas_and_the_modules_load():
    """``benchverdict --version`` exits before building the parser (no pandas, no modules)."""
    env = {**os.environ, "PYTHONPATH": str(Path(benchverdict.__file__).parents[1])}
    code = ("import sys, contextlib, io\n"
            "from benchverdict.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['--version']) == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pandas', 'numpy', 'matplotlib', 'scipy') or m.startswith('benchverdict.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    assert out.stdout.strip() == "['benchverdict._version', 'benchverdict.cli']"


def test_adapter_option(shared_data, capsys):
    code = main(["validate", str(shared_data / "meanmax" / "hedwig.tsv"), "--adapter", "meanmax"])
    assert code == 0
    assert "297 rows" in capsys.readouterr().out


def test_every_option_a_help_text_names_exists_in_that_command():
    """Issue 25: ``sanity --help`` told users to use ``--formula``, which sanity lacks."""
    import argparse
    import re

    from benchverdict.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    named = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
    wrong = []
    for name, command in commands.choices.items():
        options = {o for a in command._actions for o in a.option_strings}
        texts = [command.description or ""] + [a.help or "" for a in command._actions]
        wrong += [(name, ref) for text in texts for ref in named.findall(text)
                  if ref not in options]
    assert len(commands.choices) >= 5  # the walk sees the sub-commands
    assert not wrong, wrong
