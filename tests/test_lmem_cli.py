"""The ``benchverdict lmem`` and ``benchverdict sanity`` commands."""

from __future__ import annotations

import pytest

from benchverdict.cli import main
from benchverdict.lmem.simulate import simulate_results
from benchverdict.verdict import verdicts_from_json


def _csv(tmp_path):
    res = simulate_results(n_benchmarks=4, n_seeds=6, budgets=(1, 2, 3),
                           algorithm_effect={"A": -1.5}, seed=0)
    path = tmp_path / "runs.csv"
    res.table.to_csv(path, index=False)
    return path


ROLES = ["--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
         "--score", "score", "--budget", "budget", "--objective", "minimize", "--kind", "runs"]


def test_lmem_command_prints_and_writes(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["lmem", str(_csv(tmp_path)), *ROLES, "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "GLRT: chi2" in text and "pairwise contrasts (Tukey HSD)" in text
    assert "72 rows: the final incumbent of every run" in text
    verdicts = verdicts_from_json((out / "lmem_verdicts.json").read_text())
    assert {(v.a, v.b, v.outcome) for v in verdicts} >= {("A", "B", "a"), ("A", "C", "a")}
    for name in ("lmem_fixef.csv", "lmem_varcomp.csv", "lmem_pairwise.csv", "lmem_cd.pdf"):
        assert (out / name).exists()


def test_lmem_command_custom_formula_and_bad_name(tmp_path, capsys):
    path = _csv(tmp_path)
    assert main(["lmem", str(path), *ROLES, "--all-rows",
                 "--formula", "score ~ algorithm * budget + (1|benchmark)"]) == 0
    assert "algorithmB:budget" in capsys.readouterr().out
    assert main(["lmem", str(path), *ROLES, "--formula", "score ~ algo + (1|benchmark)"]) == 1
    assert "unknown column" in capsys.readouterr().err


def test_sanity_command(tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["sanity", str(_csv(tmp_path)), *ROLES, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "seed_dependency" in text and "budget_relevance" in text
    assert (out / "sanity_summary.csv").exists() and (out / "sanity.pdf").exists()


def test_lmem_on_priorband(shared_data, capsys):
    path = shared_data / "priorband" / "priorband_data.parquet"
    assert main(["lmem", str(path), "--adapter", "priorband"]) == 0
    assert "PB beats RS" in capsys.readouterr().out


def test_lmem_command_estimand_sets_the_default_model(tmp_path, capsys):
    path = _csv(tmp_path)
    assert main(["lmem", str(path), *ROLES]) == 0
    text = capsys.readouterr().out
    assert ("estimand: benchmarks (a difference on benchmarks like these; the benchmark is the "
            "unit of replication), so the model is score ~ algorithm + (1|benchmark) + "
            "(1|benchmark:algorithm) fitted by REML.") in text
    assert "GLRT: chi2" in text  # the GLRT compares ML fits of the same models
    assert main(["lmem", str(path), *ROLES, "--estimand", "these"]) == 0
    text = capsys.readouterr().out
    assert "so the model is score ~ algorithm + (1|benchmark)." in text
    with pytest.raises(SystemExit) as exit_:
        main(["lmem", str(path), *ROLES, "--estimand", "all"])
    assert exit_.value.code == 2
    assert "invalid choice: 'all'" in capsys.readouterr().err


def test_lmem_on_trials_compares_run_incumbents(capsys):
    """Random-search trials: the LMEM compares each run's best trial (at a budget), as the
    report's LMEM vote does, not every draw as a replicate (issue 25: 20,000 draws were
    fitted and the command called SVM worst where the report calls LR worst)."""
    assert main(["lmem", "--example"]) == 0
    text = capsys.readouterr().out
    assert "1,000 rows: the final incumbent of every run" in text
    means = text.split("estimated marginal means")[1].split("pairwise contrasts")[0]
    rows = [line.split() for line in means.splitlines()[2:] if line.strip()]
    worst = min(rows, key=lambda row: float(row[1]))[0]
    assert worst == "LR"
    assert main(["lmem", "--example", "--at-budget", "5"]) == 0
    assert "1,000 rows: the incumbent of every run at budget 5" in capsys.readouterr().out
