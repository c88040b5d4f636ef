"""``benchverdict ranks --example`` runs end to end and states its replication unit."""

from __future__ import annotations

import contextlib
import io

import pytest

from benchverdict.cli import main


def test_cli_example_autorank(tmp_path):
    from benchverdict.examples import load_example

    try:
        load_example()
    except FileNotFoundError as err:  # the example file is built by its own script
        pytest.skip(str(err).splitlines()[0])
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["ranks", "--example", "--autorank", "--n-resamples", "50", "-o",
                     str(tmp_path)])
    assert code == 0
    text = buffer.getvalue()
    assert "unit: benchmark" in text and "Autorank" in text and "verdicts:" in text
    assert (tmp_path / "autorank.pdf").exists()


def test_cli_reports_missing_roles():
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["ranks", "nonexistent.csv"])
    assert code == 2 and "--algorithm" in err.getvalue()
