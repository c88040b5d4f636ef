"""DSE on a uniform random sample of the draws beyond its size limit (issue 12).

(a) the sample keeps each row with one probability, from a hash of its
    position and the seed: independent of the scores, reproducible;
(b) simulation: a test on the sample of IID draws under the null keeps its
    level (binomial tolerance), i.e. sampling does not bias the draws;
(c) the PriorBand data (every row as a draw).
"""

from __future__ import annotations

import importlib
import os

import numpy as np
import pandas as pd
import pytest

from benchverdict import dse
from benchverdict.dse.compare import dominance_test
from benchverdict.results import Results

#: ``nox -s simulations`` multiplies the replications (BENCHVERDICT_SIM_SCALE).
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))

dse_distribution = importlib.import_module("benchverdict.dse.distribution")


def _draws(n: int, seed: int, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"alg": np.repeat(["a", "b"], n), "trial": np.tile(np.arange(n), 2),
                         "acc": rng.normal(size=2 * n) + shift * np.repeat([1.0, 0.0], n)})


def _results(df: pd.DataFrame) -> Results:
    return Results.from_frame(df, algorithm="alg", seed="trial", score="acc",
                              objective="maximize", kind="trials")


def test_beyond_the_cell_limit_the_sample_is_uniform_and_stated(monkeypatch):
    monkeypatch.setattr(dse_distribution, "MAX_CELL_DRAWS", 1000)
    res = dse.distribution(_results(_draws(5000, 0, shift=0.3)), n_resamples=200,
                           n_permutations=99)
    assert res.sample_rate == pytest.approx(0.2)
    sub = res.subsampled
    assert sub["n_available"].tolist() == [5000, 5000]
    sd = np.sqrt(5000 * 0.2 * 0.8)
    assert np.all(np.abs(sub["n_used"] - 1000) <= 4 * sd)
    assert res.table["n"].tolist() == sub["n_used"].tolist()
    assert all(v.details["sample_rate"] == res.sample_rate for v in res.verdicts())
    assert "uniform random sample" in res.summary()
    # Below the limit nothing changes.
    monkeypatch.setattr(dse_distribution, "MAX_CELL_DRAWS", 10_000)
    full = dse.distribution(_results(_draws(5000, 0, shift=0.3)), n_resamples=200,
                            n_permutations=99)
    assert full.sample_rate == 1.0 and full.table["n"].tolist() == [5000, 5000]


def test_the_sample_does_not_depend_on_the_scores_or_the_row_order():
    df = _draws(3000, 1)
    res = _results(df)
    kept = res.uniform_sample(0.3, seed=4).table.index
    flipped = _results(df.assign(acc=-df["acc"])).uniform_sample(0.3, seed=4).table.index
    assert kept.equals(flipped)
    other_seed = res.uniform_sample(0.3, seed=5).table.index
    assert not kept.equals(other_seed)
    with pytest.raises(ValueError, match="rate must lie in"):
        res.uniform_sample(1.5)


def test_a_test_on_the_sample_keeps_its_level_under_the_null():
    # 200 replications (1,000 in nox -s simulations) of two equal laws, 600 draws each,
    # sampled at rate 0.25: the dominance test's rejection rate at alpha = 0.1 stays within
    # 3 binomial SEs of at most alpha (a sample that depended on the scores would bias one
    # side).
    alpha, reps = 0.1, int(200 * SCALE)
    rejections = 0
    for rep in range(reps):
        sample = _results(_draws(600, 100 + rep)).uniform_sample(0.25, seed=rep)
        table = sample.table
        a = table.loc[table["algorithm"] == "a", "score"].to_numpy()
        b = table.loc[table["algorithm"] == "b", "score"].to_numpy()
        rejections += dominance_test(a, b, alpha=alpha).outcome != "none"
    assert rejections / reps <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)
    assert rejections > 0  # the test can reject: the check is not vacuous


@pytest.mark.shared_data
def test_priorband_rows_as_draws(shared_data, monkeypatch):
    df = pd.read_parquet(shared_data / "priorband" / "priorband_anytime_full.parquet",
                         columns=["algorithm", "bench_prior", "seed", "used_fidelity",
                                  "value"])
    res = Results.from_frame(df, algorithm="algorithm", benchmark="bench_prior", seed="seed",
                             budget="used_fidelity", score="value", objective="minimize",
                             kind="trials")
    monkeypatch.setattr(dse_distribution, "MAX_DRAWS", 200_000)
    got = dse.distribution(res.subset(benchmarks=res.benchmarks[:3]), n_resamples=100,
                           n_permutations=49)
    assert got.sample_rate < 1
    assert got.subsampled["n_used"].sum() <= 200_000 * 1.05
    assert len(got.verdicts()) > 0


@pytest.mark.parametrize("interval", ["cvar_difference", "bootstrap_interval"])
def test_bootstraps_in_memory_bounded_blocks_give_the_same_interval(interval, monkeypatch):
    # Resamples are drawn in blocks of at most RESAMPLE_BLOCK_DRAWS values (2.5M draws per
    # cell once ran out of memory); one random stream, so any block size gives the same
    # resamples and the same interval (up to the rounding of vectorised reductions).
    from benchverdict.dse import intervals
    from benchverdict.dse.compare import cvar_difference
    from benchverdict.dse.statistics import statistic

    rng = np.random.default_rng(6)
    a, b = rng.normal(size=301), rng.normal(0.2, 1.0, size=257)

    def run():
        if interval == "cvar_difference":
            iv = cvar_difference(a, b, 0.5, n_resamples=400, seed=3)
        else:
            iv = intervals.bootstrap_interval(a, statistic("cvar", cvar_level=0.5),
                                              n_resamples=400, seed=3)
        return iv.estimate, iv.lower, iv.upper

    whole = run()
    monkeypatch.setattr(intervals, "RESAMPLE_BLOCK_DRAWS", 1000)  # 3 resamples per block
    np.testing.assert_allclose(run(), whole, rtol=1e-12, atol=0)
