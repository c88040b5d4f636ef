"""The ``benchverdict tuning`` sub-command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from benchverdict.cli import main


def _write(tmp_path, runs: bool = False):
    rng = np.random.default_rng(0)
    rows = []
    for alg, mu in (("good", 0.8), ("bad", 0.5)):
        for i in range(60):
            acc = float(np.clip(rng.normal(mu, 0.05), 0, 1))
            rows.append({"model": alg, "trial": i, "acc": acc})
    frame = pd.DataFrame(rows)
    if runs:
        frame["run"] = 0
    path = tmp_path / "trials.csv"
    frame.to_csv(path, index=False)
    return path


def test_cli_prints_table_verdicts_and_writes_files(tmp_path, capsys):
    path = _write(tmp_path)
    out = tmp_path / "out"
    code = main(["tuning", str(path), "--algorithm", "model", "--seed", "trial", "--score", "acc",
                 "--objective", "maximize", "--low", "0", "--high", "1", "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "ld_highest_density" in text and "verdicts" in text
    assert "good beats bad" in text and "strong evidence" in text
    assert (out / "tuning_curves.csv").exists()
    assert any(p.suffix == ".pdf" for p in out.iterdir())
    doc = json.loads((out / "tuning_verdicts.json").read_text())
    assert doc["schema"] == "benchverdict.verdicts" and doc["verdicts"]


def test_cli_refuses_hpo_runs(tmp_path, capsys):
    path = _write(tmp_path, runs=True)
    code = main(["tuning", str(path), "--algorithm", "model", "--seed", "run", "--budget",
                 "trial", "--score", "acc", "--objective", "maximize", "--kind", "runs"])
    assert code == 1
    assert "IID random-search draws" in capsys.readouterr().err
