"""Other metrics, a cost column and the Pareto view of a leaderboard (issue 24, item 6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict import Results
from benchverdict.leaderboard import build_leaderboard
from benchverdict.leaderboard.metrics import (
    MetricSpec,
    check_columns,
    entry_metrics,
    metric_specs,
    pareto_front,
    parse_metric,
    run_values,
)
from benchverdict.leaderboard.store import create_leaderboard, load_leaderboard, update_leaderboard

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _rows(seed: int = 0, n_bench: int = 6, n_seeds: int = 2) -> pd.DataFrame:
    """Four algorithms: x best and dearest, y second and cheapest, z worst, w between."""
    rng = np.random.default_rng(seed)
    rows = []
    for algo, offset, seconds in [("x", 0.3, 30.0), ("y", 0.2, 5.0), ("z", 0.0, 10.0),
                                  ("w", 0.25, 60.0)]:
        for b in range(n_bench):
            for s in range(n_seeds):
                rows.append((algo, f"t{b}", s, offset + 0.02 * rng.normal() + 0.05 * b,
                             0.5 + offset + 0.01 * rng.normal(),
                             seconds * (1 + b) * rng.uniform(0.9, 1.1)))
    return pd.DataFrame(rows, columns=["algo", "task", "seed", "acc", "f1", "seconds"])


def _results(frame: pd.DataFrame, *, objective: str = "maximize", score: str = "acc",
             metafeatures=("f1", "seconds")) -> Results:
    return Results.from_frame(frame, algorithm="algo", benchmark="task", seed="seed",
                              score=score, objective=objective, kind="runs",
                              metafeatures=list(metafeatures), min_algorithms=1)


def _board(res: Results, **kwargs):
    return build_leaderboard(res, analyses=["ranks"], arena=False, **kwargs)


# ----------------------------------------------------------------- closed forms
def test_run_values_runs_read_the_last_row_at_or_below_the_budget():
    t = pd.DataFrame({"algorithm": "a", "benchmark": "p", "seed": 0,
                      "budget": [1.0, 2.0, 3.0, 4.0], "score": [0.5, 0.6, 0.6, 0.9],
                      "acc": [0.4, 0.5, 0.55, 0.8], "s": [10.0, 20.0, 30.0, 40.0]})
    specs = [MetricSpec("acc", "maximize"), MetricSpec("s", "minimize", "cost")]
    got = run_values(t.sample(frac=1, random_state=3), specs, objective="maximize",
                     kind="runs", budget=3.0)
    assert got[["acc", "s"]].values.tolist() == [[0.55, 30.0]]


def test_run_values_trials_pick_the_incumbent_and_sum_the_cost():
    t = pd.DataFrame({"algorithm": "a", "benchmark": "p", "seed": [0] * 4 + [1] * 2,
                      "budget": [1.0, 2.0, 3.0, 4.0, 1.0, 2.0],
                      "score": [0.3, 0.1, 0.2, 0.05, 0.4, 0.5],
                      "acc": [0.6, 0.9, 0.7, 0.95, 0.5, 0.4],
                      "s": [1.0, 2.0, 4.0, 8.0, 3.0, np.nan]})
    specs = [MetricSpec("acc", "maximize"), MetricSpec("s", "minimize", "cost")]
    got = run_values(t, specs, objective="minimize", kind="trials", budget=3.0)
    # seed 0: best loss among the first three trials is 0.1 (acc 0.9); cost 1 + 2 + 4.
    # seed 1: best loss 0.4 (acc 0.5); one trial has no cost, so the run's cost is unknown.
    assert got["acc"].tolist() == [0.9, 0.5]
    assert got["s"].iloc[0] == 7.0 and np.isnan(got["s"].iloc[1])


def test_entry_metrics_by_hand_and_missing_values_are_counted():
    v = pd.DataFrame({"algorithm": ["a", "b", "c"] * 3, "benchmark": list("ppp" "qqq" "rrr"),
                      "seed": 0, "m": [3.0, 1.0, 2.0, 1.0, 2.0, 3.0, 5.0, np.nan, 4.0]})
    got = entry_metrics(v, [MetricSpec("m", "maximize")], ["a", "b", "c"]).set_index(
        "algorithm")
    # r has no value for b: it is left out of every entry's summary and counted for b.
    assert got["n_benchmarks"].tolist() == [2, 2, 2]
    assert got.loc["a", "mean"] == pytest.approx(2.0)
    assert got.loc["c", "median"] == pytest.approx(2.5)
    # ranks (maximize): p -> a 1, c 2, b 3; q -> c 1, b 2, a 3.
    assert got["mean_rank"].tolist() == [2.0, 2.5, 1.5]
    assert got["n_missing"].tolist() == [0, 1, 0]


def test_parse_metric_and_specs_refuse_what_they_cannot_read():
    assert parse_metric("loss:min") == MetricSpec("loss", "minimize")
    assert parse_metric("a:b:max").name == "a:b"  # a colon inside a column name
    for text in ("loss", "loss:down", ":max"):
        with pytest.raises(ValueError, match="NAME:max or NAME:min"):
            parse_metric(text)
    with pytest.raises(ValueError, match="named twice"):
        metric_specs(["s:min"], cost="s")
    with pytest.raises(ValueError, match="a cost is minimized"):
        MetricSpec("s", "maximize", "cost")


def test_columns_are_checked_with_the_column_rows_and_fix():
    t = pd.DataFrame({"algorithm": ["a", "b", "c"], "s": [1.0, "slow", np.inf]})
    with pytest.raises(ValueError, match=r"cost 's' .* not numeric \(row 1: 'slow', row 2: inf"):
        check_columns(t, [MetricSpec("s", "minimize", "cost")], metafeatures=["s"])
    with pytest.raises(ValueError, match=r"--metafeature s"):
        check_columns(t, [MetricSpec("s", "minimize", "cost")], metafeatures=[])
    with pytest.raises(ValueError, match="role of the schema"):
        check_columns(t, [MetricSpec("budget", "minimize", "cost")], metafeatures=[])


# ----------------------------------------------------------------- the Pareto front
points = st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6)), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(points)
def test_pareto_front_is_exactly_the_non_dominated_points(pts):
    x = np.array([p[0] for p in pts], dtype=float)
    y = np.array([p[1] for p in pts], dtype=float)
    front = pareto_front(x, y)
    for i in range(len(pts)):
        dominated = any(x[j] <= x[i] and y[j] <= y[i] and (x[j] < x[i] or y[j] < y[i])
                        for j in range(len(pts)))
        assert front[i] == (not dominated)
    order = np.random.default_rng(len(pts)).permutation(len(pts))
    assert (pareto_front(x[order], y[order]) == front[order]).all()
    assert (pareto_front(x, 1e6 * y + 3) == front).all()  # any increasing cost transform


def test_pareto_front_never_holds_a_point_without_a_cost():
    assert pareto_front([1.0, 2.0], [np.nan, 5.0]).tolist() == [False, True]


# ----------------------------------------------------------------- on a board
def test_board_shows_metrics_cost_and_front():
    board = _board(_results(_rows()), metrics={"f1": "maximize"}, cost="seconds")
    table = board.metrics.set_index(["metric", "algorithm"])
    assert table.loc[("f1", "x"), "mean_rank"] == 1.0
    assert table.loc[("seconds", "y"), "mean_rank"] == 1.0
    front = board.pareto.set_index("algorithm")["on_front"]
    # x ranks first on the score and y costs least: both on the front; z (worse and dearer
    # than y) and w (worse and dearer than x) are not.
    assert front.to_dict() == {"x": True, "y": True, "z": False, "w": False}
    md, html, text = board.to_markdown(), board.to_html(), board.summary()
    for page in (md, html, text):
        assert "Pareto" in page and "descriptive" in page and "seconds" in page
    assert "## Other metrics and cost" in md
    ax = board.plot_pareto()
    assert ax.get_ylabel().startswith("mean seconds per run")
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_metrics_survive_json_and_change_no_position():
    res = _results(_rows())
    plain = _board(res)
    shown = _board(res, metrics=["f1:max"], cost="seconds")
    assert plain.entries.equals(shown.entries)  # descriptive: the positions are the score's
    back = type(shown).from_dict(json.loads(shown.to_json()))
    assert back.metric_specs == shown.metric_specs
    pd.testing.assert_frame_equal(back.metrics.drop(columns="pareto"),
                                  shown.metrics.drop(columns="pareto"), check_dtype=False)
    assert back.pareto["on_front"].tolist() == shown.pareto["on_front"].tolist()


def test_invariants_rename_reorder_rescale_negate():
    frame = _rows(seed=4)
    base = _board(_results(frame), metrics={"f1": "maximize"}, cost="seconds")
    names = {"x": "zeta", "y": "alpha", "z": "mu", "w": "beta"}
    moved = frame.sample(frac=1, random_state=1).assign(
        algo=lambda f: f["algo"].map(names), seconds=lambda f: 3600 * f["seconds"],
        f1=lambda f: -f["f1"], acc=lambda f: -10 * f["acc"])
    other = _board(_results(moved, objective="minimize"), metrics={"f1": "minimize"},
                   cost="seconds")
    a = base.metrics.set_index(["metric", "algorithm"])
    b = other.metrics.assign(algorithm=lambda f: f["algorithm"].map(
        {v: k for k, v in names.items()})).set_index(["metric", "algorithm"]).loc[a.index]
    assert np.allclose(a["mean_rank"], b["mean_rank"])
    assert a["pareto"].tolist() == b["pareto"].tolist()


def test_imputed_runs_have_no_cost_and_are_counted():
    frame = _rows()
    frame = frame[~((frame["algo"] == "w") & (frame["task"] == "t5"))]
    board = _board(_results(frame), cost="seconds", incomplete="impute")
    w = board.metrics.set_index("algorithm").loc["w"]
    assert board.entries["imputed_runs"].max() == 2
    assert w["n_missing"] == 0 and w["n_runs"] == 10  # the imputed runs carry no cost
    assert w["n_benchmarks"] == 5  # t5 lacks w's cost, so no entry's cost counts there


def test_store_keeps_the_columns_and_refuses_a_submission_without_them(tmp_path):
    frame = _rows()
    folder = tmp_path / "board"
    create_leaderboard(folder, _results(frame[frame["algo"] != "w"]), analyses=["ranks"],
                       metrics=["f1:max"], cost="seconds")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert [m["name"] for m in manifest["metrics"]] == ["f1", "seconds"]
    w = frame[frame["algo"] == "w"]
    with pytest.raises(ValueError, match=r"cost 'seconds'.*every submission must hold them"):
        update_leaderboard(folder, _results(w, metafeatures=["f1"]))
    board, _ = update_leaderboard(folder, _results(w))
    assert set(board.metrics["algorithm"]) == {"x", "y", "z", "w"}
    loaded = load_leaderboard(folder)
    assert loaded.pareto["on_front"].tolist() == board.pareto["on_front"].tolist()
    stored = pd.read_parquet(folder / "data.parquet")
    assert {"f1", "seconds"} <= set(stored.columns)
    # The site shows them too; per-run columns describe runs, so they give no benchmark filter.
    index = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert "Other metrics and cost" in index and "bv-metrics" in index
    assert "carried no metafeatures to filter by" in index


def test_cli_metric_and_cost(tmp_path):
    frame = _rows()
    first, second = tmp_path / "first.csv", tmp_path / "w.csv"
    frame[frame["algo"] != "w"].to_csv(first, index=False)
    frame[frame["algo"] == "w"].to_csv(second, index=False)
    roles = ["--algorithm", "algo", "--benchmark", "task", "--seed", "seed", "--score", "acc",
             "--objective", "maximize", "--kind", "runs", "--analyses", "ranks"]
    cli = [sys.executable, "-m", "benchverdict.cli", "leaderboard"]
    done = subprocess.run([*cli, str(first), *roles, "--metric", "f1:max", "--cost", "seconds",
                           "-o", str(tmp_path / "b")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Pareto yes" in done.stdout
    clash = subprocess.run([*cli, "--update", str(tmp_path / "b"), str(second), *roles,
                            "--cost", "f1"], capture_output=True, text=True)
    assert clash.returncode != 0 and "shows f1 (metric, maximize)" in clash.stderr
    done = subprocess.run([*cli, "--update", str(tmp_path / "b"), str(second), *roles],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "w " in done.stdout and "seconds" in done.stdout
    bad = subprocess.run([*cli, str(first), *roles, "--metric", "f1:up", "-o",
                          str(tmp_path / "c")], capture_output=True, text=True)
    assert bad.returncode != 0 and "NAME:max or NAME:min" in bad.stderr


# ----------------------------------------------------------------- real data
@pytest.mark.skipif(not (SHARED / "priorband").exists(), reason="needs ../shared/data")
def test_priorband_board_shows_regret_as_computed_by_hand():
    data = pd.read_parquet(SHARED / "priorband" / "priorband_data.parquet")
    data = data[data["prior"] == "at25"]
    res = Results.from_frame(data, algorithm="algorithm", benchmark="benchmark", seed="seed",
                             budget="used_fidelity", score="value", objective="minimize",
                             kind="runs", metafeatures=["normalized_regret"])
    board = _board(res, metrics={"normalized_regret": "minimize"})
    at = data[data["used_fidelity"] <= board.design.final_budget]
    last = at.sort_values("used_fidelity").groupby(["algorithm", "benchmark", "seed"]).tail(1)
    cells = last.groupby(["benchmark", "algorithm"])["normalized_regret"].mean().unstack()
    got = board.metrics.set_index("algorithm")
    for algo in cells.columns:
        assert got.loc[algo, "mean"] == pytest.approx(cells[algo].mean(), rel=1e-12)
        assert got.loc[algo, "mean_rank"] == pytest.approx(
            cells.rank(axis=1).mean()[algo], rel=1e-12)
