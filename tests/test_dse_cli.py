"""`benchverdict dse`: prints the tables and verdicts, writes CSV, JSON and figures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from benchverdict.cli import main


def _write(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(alg, bench, s, rng.uniform(0, 0.7) + shift)
            for bench in ("p", "q") for alg, shift in (("A", 0.3), ("B", 0.0))
            for s in range(40)]
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows, columns=["model", "task", "seed", "acc"]).to_csv(path, index=False)
    return path


def test_dse_command_prints_and_writes(tmp_path, capsys):
    path = _write(tmp_path)
    out = tmp_path / "out"
    code = main(["dse", str(path), "--algorithm", "model", "--benchmark", "task", "--seed",
                 "seed", "--score", "acc", "--objective", "maximize", "--low", "0", "--high",
                 "1", "--kind", "trials", "--cvar-level", "0.5", "--aggregate", "--n-resamples",
                 "500", "-o", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "CVaR_0.5" in text and "A beats B" in text and "aggregates over 2" in text
    for name in ("dse_table.csv", "dse_dominance.csv", "dse_verdicts.csv", "dse_cdf.pdf",
                 "dse_quantile.pdf", "dse_aggregate.csv", "dse_aggregate.pdf"):
        assert (out / name).exists(), name
    doc = json.loads((out / "dse_verdicts.json").read_text())
    assert {v["method"] for v in doc["verdicts"]} == {"dse.dominance", "dse.cvar"}
    table = pd.read_csv(out / "dse_table.csv")
    assert set(table["benchmark"]) == {"p", "q"}


def test_dse_command_errors_cleanly(tmp_path, capsys):
    path = _write(tmp_path)
    code = main(["dse", str(path), "--algorithm", "model", "--benchmark", "task", "--seed",
                 "seed", "--score", "acc", "--objective", "maximize", "--cvar-level", "1.5",
                 "--kind", "trials"])
    assert code == 1
    assert "CVaR level must be in [0, 1)" in capsys.readouterr().err
    assert main(["dse"]) == 2


def test_dse_alpha_is_the_significance_level(tmp_path, capsys):
    # --alpha used to be the CVaR level; now it is the significance level, as everywhere else,
    # and a value that can only be a CVaR level is refused with a pointer to --cvar-level.
    path = _write(tmp_path)
    roles = [str(path), "--algorithm", "model", "--benchmark", "task", "--seed", "seed",
             "--score", "acc", "--objective", "maximize", "--n-resamples", "200",
             "--kind", "trials"]
    try:
        code = main(["dse", *roles, "--alpha", "0.9"])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    assert "--cvar-level" in capsys.readouterr().err
    assert main(["dse", *roles, "--alpha", "0.01", "--cvar-level", "0.9"]) == 0
    text = capsys.readouterr().out
    assert "CVaR_0.9" in text and "alpha = 0.01" in text
