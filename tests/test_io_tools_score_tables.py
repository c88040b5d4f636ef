"""The rliable and AMLB readers.

rliable consumes score arrays rather than writing them, so its test checks that
what is read is exactly what rliable's own metrics see. AMLB cannot be installed
from a registry or run here (its runs need OpenML's servers): its tests read
real AMLB result files (tests/data/amlb, copied unchanged from AMLB's repository).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchverdict as bv
from benchverdict.cli import main
from benchverdict.io import adapters

AMLB = Path(__file__).parent / "data" / "amlb"
OLD = AMLB / "results_small-2c1h_excerpt.csv"
V2 = AMLB / "results_v2_randomforest_sample.csv"


def score_dict(seed=0):
    rng = np.random.default_rng(seed)
    return {"DQN": rng.normal(1.0, 0.3, (5, 4)), "C51": rng.normal(1.3, 0.3, (5, 4)),
            "Rainbow": rng.normal(1.6, 0.3, (5, 4))}


def back_to_arrays(res, algs):
    t = res.table
    return {a: t[t["algorithm"] == a].pivot(index="seed", columns="benchmark", values="score")
            .reindex(columns=res.benchmarks).to_numpy() for a in algs}


def test_rliable_round_trip_and_rliables_own_metrics():
    metrics = pytest.importorskip("rliable.metrics")
    scores = score_dict()
    tasks = ["Pong", "Breakout", "Seaquest", "Qbert"]
    res = adapters.read_rliable(scores, objective="maximize", tasks=tasks)
    assert res.kind == "runs" and res.objective == "maximize" and not res.has_budget
    assert sorted(res.benchmarks) == sorted(tasks) and res.seeds == [0, 1, 2, 3, 4]
    order = [tasks.index(b) for b in res.benchmarks]
    rebuilt = back_to_arrays(res, scores)
    for alg, array in scores.items():
        np.testing.assert_array_equal(rebuilt[alg], array[:, order])
        assert metrics.aggregate_iqm(rebuilt[alg]) == pytest.approx(
            metrics.aggregate_iqm(array), abs=1e-15)
        assert metrics.aggregate_mean(rebuilt[alg]) == pytest.approx(
            metrics.aggregate_mean(array), abs=1e-15)


def test_rliable_three_d_curves_and_npz(tmp_path):
    rng = np.random.default_rng(1)
    scores = {"A": rng.random((3, 2, 4)), "B": rng.random((3, 2, 4))}
    res = adapters.read_rliable(scores, objective="maximize", budgets=[1e5, 2e5, 3e5, 4e5])
    assert list(res.budgets) == [1e5, 2e5, 3e5, 4e5] and len(res) == 2 * 3 * 2 * 4
    at = res.at_budget(2e5).table
    a = at[(at["algorithm"] == "A") & (at["benchmark"] == "task 1")].sort_values("seed")
    np.testing.assert_array_equal(a["score"], scores["A"][:, 1, 1])
    path = tmp_path / "scores.npz"
    np.savez(path, **score_dict())
    assert adapters.read_rliable(path, objective="maximize").algorithms == [
        "C51", "DQN", "Rainbow"]
    assert main(["validate", str(path), "--adapter", "rliable", "--objective", "maximize"]) == 0
    assert main(["validate", str(path), "--adapter", "rliable"]) == 2


def test_rliable_bad_shapes_named():
    with pytest.raises(ValueError, match="different numbers of tasks"):
        adapters.read_rliable({"A": np.ones((3, 2)), "B": np.ones((3, 3))}, objective="maximize")
    with pytest.raises(ValueError, match="runs x tasks"):
        adapters.read_rliable({"A": np.ones(3), "B": np.ones(3)}, objective="maximize")
    with pytest.raises(ValueError, match="tasks must be 2 distinct"):
        adapters.read_rliable({"A": np.ones((3, 2)), "B": np.ones((3, 2))},
                              objective="maximize", tasks=["x", "x"])


def test_rliable_negation_with_flipped_objective_keeps_verdicts():
    scores = score_dict(3)
    up = adapters.read_rliable(scores, objective="maximize")
    down = adapters.read_rliable({k: -v for k, v in scores.items()}, objective="minimize")
    cols = ["a", "b", "outcome"]
    v = [bv.compare(r, analyses=["ranks"], progress=False).verdict_table[cols] for r in (up, down)]
    pd.testing.assert_frame_equal(v[0], v[1])


def test_amlb_old_file_needs_a_metric_column_and_records_failures():
    with pytest.raises(ValueError, match=r"no 'metric' column.*score=<one of \['acc', 'auc', "
                                         r"'logloss'\]>"):
        adapters.read_amlb(OLD)
    res = adapters.read_amlb(OLD, score="logloss")
    assert res.objective == "minimize"  # AMLB defines logloss higher_is_better=False
    assert res.algorithms == ["H2OAutoML", "autosklearn", "oboe"]
    assert res.benchmarks == ["fabert", "jasmine"]
    raw = pd.read_csv(OLD)
    failed = raw["result"].isna() & raw["info"].notna()
    assert failed.sum() == 11 and len(res) == len(raw) - 11
    reasons = res.exclusions["reason"]
    assert (reasons == "AMLB run failed: Error: attempt to get argmin of an empty sequence"
            ).sum() == 10
    assert sorted(res.exclusions["row"]) == sorted(raw.index[failed])
    assert adapters.read_amlb(OLD, score="auc", on_invalid="drop").objective == "maximize"
    with pytest.raises(ValueError, match="contradicts AMLB's definition"):
        adapters.read_amlb(OLD, score="auc", objective="minimize")


def test_amlb_v2_losses_negated_like_amlb_does():
    # One framework only: check the score AMLB's own later convention gives (neg_<loss>).
    raw = pd.read_csv(V2)
    other = raw.assign(framework="RandomForest-copy")  # a second algorithm to make a Results
    res = adapters.read_amlb(pd.concat([raw, other], ignore_index=True))
    assert res.objective == "maximize" and res.roles["score"] == "result (losses negated)"
    t = res.table[res.table["algorithm"] == "RandomForest"].sort_values(["benchmark", "seed"])
    want = {("cholesterol", 0): -44.3352, ("cholesterol", 1): -55.3163,
            ("iris", 0): -0.126485, ("iris", 1): -0.0271781,
            ("kc2", 0): 0.865801, ("kc2", 1): 0.86039}
    got = {(b, s): v for b, s, v in t[["benchmark", "seed", "score"]].itertuples(index=False)}
    assert got == pytest.approx(want)


def test_amlb_unknown_metric_and_constraints():
    df = pd.DataFrame({"task": ["t"] * 4, "framework": ["A", "A", "B", "B"], "fold": [0, 1] * 2,
                       "metric": "my_metric", "result": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="does not define the metric"):
        adapters.read_amlb(df)
    two = pd.concat([df.assign(constraint="1h8c"), df.assign(constraint="4h8c")])
    with pytest.raises(ValueError, match="several constraints"):
        adapters.read_amlb(two, score="result", objective="maximize")
    res = adapters.read_amlb(two, score="result", objective="maximize", constraint="1h8c")
    assert len(res) == 4 and (res.exclusions["columns"] == "constraint").sum() == 4


def test_amlb_cli(tmp_path, capsys):
    assert main(["validate", str(OLD), "--adapter", "amlb", "--score", "auc",
                 "--on-invalid", "drop"]) == 1  # rows were excluded: listed, exit 1
    out = capsys.readouterr().out
    assert "AMLB run failed" in out
    assert main(["validate", str(OLD), "--adapter", "amlb"]) == 1
    assert "no 'metric' column" in capsys.readouterr().err
