"""Adapters on the real formats in ../shared/data (skipped when absent)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict.io import adapters


def test_deberta(shared_data):
    res = adapters.read_deberta(shared_data / "deberta")
    assert res.kind == "trials" and res.objective == "maximize"
    assert res.algorithms == ["deberta-base", "deberta-v3-base"]
    v3 = res.draws("deberta-v3-base")
    assert len(v3) == 1024
    # The first configuration's final matched accuracy, straight from the file.
    assert v3[0] == pytest.approx(0.8964849719816608)
    best = adapters.read_deberta(shared_data / "deberta", score="best").draws("deberta-v3-base")
    assert (best >= v3).all() and (best > v3).any()
    mism = adapters.read_deberta(shared_data / "deberta", validation="mismatched")
    assert mism.benchmarks == ["MultiNLI-mismatched"]
    assert "learning_rate" in res.metafeatures


def test_deberta_learning_curves(shared_data):
    res = adapters.read_deberta(shared_data / "deberta", learning_curve=True)
    assert res.kind == "runs" and res.has_budget
    final = res.final().table
    trials = adapters.read_deberta(shared_data / "deberta")
    got = final.set_index(["algorithm", "seed"])["score"].sort_index()
    want = trials.table.set_index(["algorithm", "seed"])["score"].sort_index()
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    with pytest.raises(ValueError, match="IID"):
        res.draws("deberta-base")


def test_meanmax(shared_data):
    res = adapters.read_meanmax(shared_data / "meanmax" / "hedwig.tsv")
    assert res.algorithms == ["mlp", "reg_lstm"]
    assert len(res.draws("mlp")) == 145 and len(res.draws("reg_lstm")) == 152
    assert res.benchmarks == ["Reuters"]


def test_priorband(shared_data):
    res = adapters.read_priorband(shared_data / "priorband" / "priorband_data.parquet")
    assert res.kind == "runs" and res.objective == "minimize"
    assert res.algorithms == ["HB", "PB", "RS"]
    assert len(res.benchmarks) == 24 and set(res.metafeatures) == {"task", "prior"}
    d = res.describe()
    assert d.balanced and d.counts.loc["seed", "distinct"] == 50
    assert len(res.budgets) == 24
    one = adapters.read_priorband(shared_data / "priorband" / "priorband_data.parquet",
                                  benchmark="benchmark", priors=["at25"])
    assert len(one.benchmarks) == 12
    assert (one.exclusions["reason"].str.startswith("filtered")).sum() == 43_200
    with pytest.raises(ValueError, match="duplicate every key"):
        adapters.read_priorband(shared_data / "priorband" / "priorband_data.parquet",
                                benchmark="benchmark")


def test_priorband_anytime_full_float_seeds(shared_data):
    res = adapters.read_priorband(shared_data / "priorband" / "priorband_anytime_full.parquet")
    assert len(res) == 3_339_050
    assert res.seeds == [0, 1, 2, 3, 4] or len(res.seeds) == 50
    assert res.kind == "runs"


def test_hpob(shared_data):
    res = adapters.read_hpob(shared_data / "hpob" / "hpob_results_long.parquet")
    assert len(res) == 567_170 and len(res.algorithms) == 14
    assert "n_hyperparameters" in res.metafeatures
    assert any("RF" in w for w in res.describe().warnings)
    sub = adapters.read_hpob(shared_data / "hpob" / "hpob_results_long.parquet",
                             algorithms=["GP", "Random"])
    assert sub.algorithms == ["GP", "Random"]
    assert len(sub.exclusions) == 567_170 - len(sub)


def test_autorank_wide_round_trip():
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(5, 3)), columns=["A", "B", "C"],
                        index=[f"d{i}" for i in range(5)])
    res = adapters.from_autorank_wide(wide, objective="minimize")
    np.testing.assert_allclose(res.blocks().matrix.loc[wide.index, wide.columns], wide)
    with pytest.raises(ValueError, match="not numeric"):
        adapters.from_autorank_wide(wide.assign(name="x"), objective="minimize")
    named = adapters.from_autorank_wide(wide.reset_index(names="ds"), objective="maximize",
                                        benchmark_column="ds")
    assert named.benchmarks == list(wide.index)


def test_read_adapter_dispatch(tmp_path):
    with pytest.raises(ValueError, match="unknown adapter"):
        adapters.read_adapter("nope", tmp_path)
    with pytest.raises(ValueError, match="--objective"):
        adapters.read_adapter("autorank-wide", tmp_path)


def test_neps_runs_are_not_unpickled_without_trust(tmp_path, capsys):
    """Issue 25: NePS's loaders unpickle .trial_cache.pkl and optimizer_state.pkl, which can
    run code; reading them needs trust_pickle (--trust-pickle), checked before NePS loads."""
    from benchverdict.cli import main
    from benchverdict.io import adapters as ad

    (tmp_path / "run-0").mkdir()
    (tmp_path / "run-0" / "optimizer_state.pkl").write_bytes(b"not read")
    with pytest.raises(ValueError, match="trust_pickle=True"):
        ad.read_neps(tmp_path)
    assert main(["validate", str(tmp_path), "--adapter", "neps"]) != 0
    assert "--trust-pickle" in capsys.readouterr().err
