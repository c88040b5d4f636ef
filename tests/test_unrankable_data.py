"""Data that hold nothing to compare are refused with the reason (issue 25).

A table of one score per algorithm (published aggregates) gave 1,500 tuning/DSE
verdicts from samples of size 1, or 300 LMEM verdicts from a model with no
residual; a leaderboard of random-search draws printed "0 entries" or a
[1.00, 1.00] interval and exited 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict.cli import main
from benchverdict.leaderboard.board import build_leaderboard
from benchverdict.leaderboard.design import unrankable_reason
from benchverdict.report import compare
from benchverdict.results import Results


def _one_score_each(kind: str, n: int = 8) -> Results:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"algorithm": [f"alg{i}" for i in range(n)], "seed": 0,
                          "score": rng.random(n)})
    return Results.from_frame(frame, algorithm="algorithm", seed="seed", score="score",
                              objective="maximize", kind=kind)


@pytest.mark.parametrize("kind", ["trials", "runs"])
def test_report_refuses_one_score_per_algorithm(kind):
    with pytest.raises(ValueError, match="no analysis applies") as err:
        compare(_one_score_each(kind), progress=False, figures=False)
    text = str(err.value)
    assert "single" in text and "published" in text
    for name in ("tuning", "dse", "ranks", "lmem"):
        assert f"{name}: " in text


def test_report_cli_refuses_one_score_per_algorithm(tmp_path, capsys):
    path = tmp_path / "aggregates.csv"
    _one_score_each("runs").table.to_csv(path, index=False)
    out = tmp_path / "out"
    code = main(["report", str(path), "--algorithm", "algorithm", "--seed", "seed",
                 "--score", "score", "--objective", "maximize", "--kind", "runs",
                 "-o", str(out), "--no-progress"])
    assert code == 1
    assert "no analysis applies" in capsys.readouterr().err
    assert not out.exists()


def test_draw_families_need_several_draws_but_runs_across_benchmarks_do_not():
    """One row per algorithm x benchmark over several benchmarks is a valid rank-test design;
    only the draw families (one draw per cell) are left out."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame([(a, f"b{j}", 0, rng.random()) for a in "ABCD" for j in range(8)],
                         columns=["algorithm", "benchmark", "seed", "score"])
    res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark", seed="seed",
                             score="score", objective="maximize", kind="runs")
    comp = compare(res, progress=False, figures=False)
    status = {r.name: r.status for r in comp.runs}
    assert status["ranks"] == "ok" and status["lmem"] == "ok"
    trials = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                                seed="seed", score="score", objective="maximize",
                                kind="trials", budget=None)
    asked = compare(trials, analyses=["tuning", "dse"], progress=False, figures=False)
    assert {r.name: r.status for r in asked.runs} == {"tuning": "not applicable",
                                                      "dse": "not applicable"}
    assert all("single draw on each benchmark" in r.reason for r in asked.runs)


def test_leaderboard_refuses_single_draws_with_a_trial_order():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"algorithm": np.repeat(["A", "B"], 50), "seed": np.tile(
        np.arange(50), 2), "trial": 1, "benchmark": "x", "score": rng.random(100)})
    res = Results.from_frame(frame, algorithm="algorithm", seed="seed", score="score",
                             benchmark="benchmark", budget="trial", objective="maximize",
                             kind="trials")
    assert "single trial" in unrankable_reason(res)
    with pytest.raises(ValueError, match="single random-search draws"):
        build_leaderboard(res)


def test_leaderboard_refuses_one_score_per_algorithm():
    with pytest.raises(ValueError, match="single score"):
        build_leaderboard(_one_score_each("runs"))


@pytest.mark.parametrize("adapter, files", [
    ("meanmax", ["meanmax/hedwig.tsv"]),
    ("deberta", ["deberta"]),
])
def test_leaderboard_refuses_random_search_draws(shared_data, tmp_path, capsys, adapter,
                                                  files):
    from benchverdict.io.adapters import read_adapter

    paths = [str(shared_data / f) for f in files]
    res = read_adapter(adapter, paths[0] if len(paths) == 1 else paths)
    assert "no runs to rank" in unrankable_reason(res)
    code = main(["leaderboard", *paths, "--adapter", adapter, "-o", str(tmp_path / "board"),
                 "--no-progress"])
    assert code == 1
    err = capsys.readouterr().err
    assert "random-search draws" in err and "Fix:" in err
    assert not (tmp_path / "board" / "leaderboard.json").exists()


def test_leaderboard_update_with_one_new_algorithm_through_an_adapter(shared_data, tmp_path,
                                                                       capsys):
    """A submission of one algorithm reads through --adapter too (issue 25: 'needs at least 2
    algorithms' through --adapter priorband, while the generic role options worked)."""
    raw = pd.read_parquet(shared_data / "priorband" / "priorband_data.parquet")
    raw = raw[raw["benchmark"].isin(sorted(raw["benchmark"].unique())[:3])]
    first, second = tmp_path / "pb_hb.parquet", tmp_path / "rs.parquet"
    raw[raw["algorithm"] != "RS"].to_parquet(first)
    raw[raw["algorithm"] == "RS"].to_parquet(second)
    board = tmp_path / "board"
    common = ["--adapter", "priorband", "--analyses", "ranks", "--no-progress"]
    assert main(["leaderboard", str(first), "-o", str(board), *common]) == 0
    capsys.readouterr()
    assert main(["leaderboard", str(second), "--update", str(board), *common]) == 0
    out = capsys.readouterr().out
    assert "3 entries" in out and "RS" in out
