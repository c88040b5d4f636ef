"""The ranks module on the real PriorBand and HPO-B results in ../shared/data, and its CLI."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.cli import main
from benchverdict.ranks import anytime_ranks, autorank, friedman, win_tie_loss

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def priorband(shared_data):
    df = pd.read_parquet(shared_data / "priorband" / "priorband_data.parquet")
    return Results.from_frame(df, algorithm="algorithm", benchmark="bench_prior", seed="seed",
                              budget="used_fidelity", score="value", objective="minimize")


@pytest.fixture(scope="module")
def hpob(shared_data):
    df = pd.read_parquet(shared_data / "hpob" / "hpob_results_long.parquet")
    df["benchmark"] = df["search_space"].astype(str) + "/" + df["dataset"].astype(str)
    return Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              budget="trial", score="incumbent_accuracy", objective="maximize")


def test_priorband_friedman_matches_scipy_at_budgets(priorband, shared_data):
    """HB's and RS's runs are copied between a task's two prior variants: each task is one
    replicate, ranked by the mean of its variants' ranks (re-ranked). Without the copies
    joined, the statistic is scipy's on the 24 benchmarks."""
    from benchverdict.replicates import BenchmarkReplicates

    df = pd.read_parquet(shared_data / "priorband" / "priorband_data.parquet")
    for budget in (5.0, 10.0, 15.0):
        res = friedman(priorband, budget=budget, n_resamples=0)
        wide = (df[df["used_fidelity"] == budget]
                .groupby(["bench_prior", "algorithm"])["value"].mean().unstack())
        ranks = wide.rank(axis=1)
        task = ranks.index.str.rsplit("_", n=1).str[0]
        per_task = ranks.groupby(task).mean().rank(axis=1)
        ref = stats.friedmanchisquare(*per_task.to_numpy().T)
        assert res.statistic == pytest.approx(ref.statistic)
        assert (res.n_blocks, res.n_units) == (24, 12)
        assert res.average_ranks.sort_index().to_numpy() == pytest.approx(
            per_task.mean().sort_index().to_numpy())
        alone = friedman(priorband, budget=budget, n_resamples=0, copies=BenchmarkReplicates())
        assert alone.statistic == pytest.approx(
            stats.friedmanchisquare(*wide.to_numpy().T).statistic)
        assert alone.n_units == 24
        # the data's own rel_rank column ranks algorithms per (bench_prior, seed, budget)
        assert set(res.average_ranks.index) == {"PB", "HB", "RS"}


def test_priorband_rel_rank_column_matches_benchmark_seed_blocks(priorband, shared_data):
    df = pd.read_parquet(shared_data / "priorband" / "priorband_data.parquet")
    from benchverdict.replicates import BenchmarkReplicates

    # Every (benchmark, seed) a block, as the column ranks them (copies not joined).
    res = friedman(priorband, budget=24, unit="benchmark_seed", n_resamples=0,
                   copies=BenchmarkReplicates())
    at = df[df["used_fidelity"] == 24]
    expected = at.groupby("algorithm")["rel_rank"].mean()
    assert np.allclose(res.average_ranks.sort_index(), expected.sort_index())
    # With the copies joined, each (task, seed) is one replicate: 12 tasks x 50 seeds.
    joined = friedman(priorband, budget=24, unit="benchmark_seed", n_resamples=0)
    assert (joined.n_blocks, joined.n_units) == (1200, 600)


def test_priorband_anytime_per_seed_ranks_equal_the_rel_rank_column(priorband, shared_data):
    df = pd.read_parquet(shared_data / "priorband" / "priorband_data.parquet")
    ranks = anytime_ranks(priorband, budgets=[5, 10, 15], rank_by="seed", n_resamples=200)
    expected = df[df["used_fidelity"].isin([5, 10, 15])].groupby(
        ["used_fidelity", "algorithm"])["rel_rank"].mean()
    for row in ranks.table.itertuples():
        assert row.average_rank == pytest.approx(expected[(row.budget, row.algorithm)])
        assert row.lower <= row.average_rank <= row.upper


def test_priorband_autorank_and_win_tie_loss(priorband):
    ar = autorank(priorband, budget=10)
    assert ar.omnibus in ("friedman", "anova")
    assert "Shapiro-Wilk" in str(ar)
    wtl = win_tie_loss(priorband, budget=10)
    assert int(wtl.table[["wins", "ties", "losses"]].sum(axis=1).unique()[0]) == 24
    ranks = anytime_ranks(priorband, budgets=[5, 10, 15], n_resamples=100)
    assert set(ranks.table["budget"]) == {5.0, 10.0, 15.0}
    # PriorBand improves with budget relative to HyperBand (Geburek et al., Fig. 5 left)
    assert ranks.at(15)["PB"] < ranks.at(5)["PB"]


def test_hpob_fourteen_algorithms(hpob):
    res = friedman(hpob, budget=6, missing="drop", n_resamples=200)
    assert len(res.algorithms) == 14 and res.n_blocks > 50
    assert len(res.verdicts()) == 14 * 13 // 2
    assert res.p_value < 1e-6
    wil = friedman(hpob, budget=6, missing="drop", posthoc="wilcoxon", n_resamples=0)
    letters = wil.letters()
    nd = wil.not_different()
    for a in letters.index:
        for b in letters.index:
            assert bool(set(letters[a]) & set(letters[b])) == bool(nd.loc[a, b])


def test_cli_ranks_writes_outputs(tmp_path, shared_data):
    out = tmp_path / "out"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main([
            "ranks", str(shared_data / "priorband" / "priorband_data.parquet"),
            "--algorithm", "algorithm", "--benchmark", "bench_prior", "--seed", "seed",
            "--budget", "used_fidelity", "--score", "value", "--objective", "minimize",
            "--at-budget", "10", "--posthoc", "wilcoxon", "--win-tie-loss", "--n-resamples", "100",
            "-o", str(out),
        ])
    assert code == 0
    text = buffer.getvalue()
    assert "unit: benchmark" in text and "Friedman" in text
    assert (out / "cd_diagram.pdf").exists() and (out / "pairwise.csv").exists()
    doc = json.loads((out / "verdicts.json").read_text())
    assert len(doc["verdicts"]) == 6
