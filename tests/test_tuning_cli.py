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
                 "--objective", "maximize", "--low", "0", "--high", "1", "--kind", "trials",
                 "-o", str(out)])
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


def test_cli_figure_names_cannot_collide(tmp_path, capsys):
    # "a b", "a_b" and "a/b" all became tuning-a_b.pdf: one figure overwrote the others.
    rng = np.random.default_rng(1)
    rows = [{"model": alg, "task": task, "trial": i, "acc": float(rng.uniform())}
            for task in ("a b", "a_b", "a/b") for alg in ("x", "y") for i in range(20)]
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "out"
    code = main(["tuning", str(path), "--algorithm", "model", "--benchmark", "task", "--seed",
                 "trial", "--score", "acc", "--objective", "maximize", "--kind", "trials",
                 "-o", str(out)])
    assert code == 0
    pdfs = sorted(p.name for p in out.glob("tuning_*.pdf"))
    assert len(pdfs) == 3, pdfs
    # One naming rule for every figure file (the report's too): a readable slug and a hash.
    from benchverdict._plain_text import file_stem

    assert pdfs == sorted(f"tuning_{file_stem(t)}.pdf" for t in ("a b", "a_b", "a/b"))


def test_cli_counts_excluded_rows(tmp_path, capsys):
    path = _write(tmp_path)
    frame = pd.read_csv(path)
    frame.loc[3, "acc"] = np.nan
    frame.to_csv(path, index=False)
    code = main(["tuning", str(path), "--algorithm", "model", "--seed", "trial", "--score",
                 "acc", "--objective", "maximize", "--on-invalid", "drop", "--kind", "trials"])
    assert code == 0
    assert "excluded rows: 1" in capsys.readouterr().out


def test_cli_states_the_coverage_the_band_has_at_the_budgets_it_is_calibrated_on(tmp_path,
                                                                                   capsys):
    # It said "exact, simultaneous over all budgets k >= 1": the default band is calibrated
    # at the integer budgets (between them it covers less), and with 7 draws the KS band's
    # attainable coverage at 0.9 is a step above it.
    import re

    from benchverdict.tuning import tuning_curve

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": np.repeat(["A", "B"], 7), "trial": np.tile(range(7), 2),
                          "acc": rng.uniform(size=14)})
    path = tmp_path / "tiny.csv"
    frame.to_csv(path, index=False)
    code = main(["tuning", str(path), "--algorithm", "model", "--seed", "trial", "--score",
                 "acc", "--objective", "maximize", "--low", "0", "--high", "1", "--kind",
                 "trials", "--band", "ks", "--confidence", "0.9", "-o", str(tmp_path / "o")])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("band:"))
    assert code == 0
    assert "all budgets k >= 1" not in line and "integer budgets" in line
    stated = float(re.search(r"probability (\d\.\d+)", line).group(1))
    exact = tuning_curve(frame.acc[:7].to_numpy(), band="ks", confidence=0.9, low=0,
                         high=1).cdf.grid_coverage
    assert stated == round(exact, 3) and exact >= 0.9
