"""Metafeature analysis (Geburek et al. §4.3): planted interactions, size, PriorBand finding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.lmem.metafeature import metafeature_analysis


def _results(effect: float, rng, n_seeds: int = 8) -> Results:
    df = pd.DataFrame([(a, t, m, s) for a in "ABC" for t in ("t1", "t2") for m in ("good", "bad")
                       for s in range(n_seeds)], columns=["alg", "task", "prior", "seed"])
    df["loss"] = rng.normal(size=len(df)) + (df["task"] == "t2") * 3.0
    df["loss"] -= effect * ((df["alg"] == "A") & (df["prior"] == "good") & (df["task"] == "t1"))
    df["bench"] = df["task"] + "_" + df["prior"]
    return Results.from_frame(df, algorithm="alg", benchmark="bench", seed="seed", score="loss",
                              objective="minimize", metafeatures=["task", "prior"], kind="trials")


def test_planted_interaction_is_found_only_where_planted():
    res = _results(3.0, np.random.default_rng(1))
    out = metafeature_analysis(res, ("A", "B"), "prior", by="task")
    assert out.differing == ["t1"]
    row = out.table.set_index(["group", "level"]).loc[("t1", "good")]
    assert row["lower"] < -3.0 < row["upper"]  # A - B = -3 (A's loss lower) at the good prior
    vs = {(v.scope.benchmark, dict(v.scope.metafeature)["prior"]): v for v in out.verdicts()}
    assert vs[("t1", "good")].outcome == "a"  # minimise: A wins
    assert vs[("t1", "good")].effect.estimate > 0  # positive favours a


def test_interaction_test_has_size_alpha_on_null_data():
    rng = np.random.default_rng(43)
    reps, hits, total = 150, 0, 0
    for _ in range(reps):
        out = metafeature_analysis(_results(0.0, rng, n_seeds=4), ("A", "B"), "prior", by="task")
        first = out.table.drop_duplicates("group")
        hits += int((first["p_value_f"] < 0.05).sum())
        total += len(first)
    ci = stats.binomtest(hits, total).proportion_ci(0.999)
    assert ci.low <= 0.05 <= ci.high, (hits, total)


def test_groups_with_a_single_level_get_a_clear_error():
    res = _results(0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="pass by="):
        metafeature_analysis(res, ("A", "B"), "prior")  # benchmark labels include the level


def test_priorband_pb_vs_hb_does_not_depend_on_prior_on_lc167190_and_lc168910(shared_data):
    from benchverdict.io.adapters import read_adapter

    res = read_adapter("priorband", shared_data / "priorband" / "priorband_data.parquet")
    out = metafeature_analysis(res, ("PB", "HB"), "prior", by="task")
    per_task = out.table.drop_duplicates("group").set_index("group")
    for task in ("LC-167190", "LC-168910"):
        assert not per_task.loc[task, "differs"], per_task.loc[task]
        assert per_task.loc[task, "p_value_glrt"] > 0.05
