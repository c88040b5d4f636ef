"""DSE comparisons: dominance type-I error and power, crossings, the meanmax finding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.dse import (
    crossings,
    cvar,
    cvar_difference,
    distribution,
    dominance_test,
    quantile,
)


def cp_interval(k: int, n: int, level: float = 0.999) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(level, method="exact")
    return float(ci.low), float(ci.high)


@pytest.mark.parametrize("discrete", [False, True])
def test_dominance_type_one_error_is_at_most_alpha(discrete):
    # Same distribution for A and B: any outcome but "none" is a false claim. The
    # family-wise rate must not exceed alpha beyond binomial error (99.9% CP interval).
    rng = np.random.default_rng(314 + discrete)
    alpha, reps, n = 0.1, 600, 40
    false = 0
    for _ in range(reps):
        a, b = rng.normal(size=n), rng.normal(size=n + 7)
        if discrete:  # heavy ties: the exact KS p-values are then conservative
            a, b = np.round(a), np.round(b)
        false += dominance_test(a, b, alpha=alpha).outcome != "none"
    lo, _ = cp_interval(false, reps)
    assert lo <= alpha, false / reps


def test_dominance_detects_a_shift_and_a_crossing():
    rng = np.random.default_rng(1)
    t = dominance_test(rng.normal(0.5, 1, 300), rng.normal(0, 1, 300))
    assert t.outcome == "a" and t.p_a_better < 1e-3
    t = dominance_test(rng.normal(0, 1, 300), rng.normal(0.5, 1, 300))
    assert t.outcome == "b"
    t = dominance_test(rng.normal(0, 3, 400), rng.normal(0, 0.3, 400))
    assert t.outcome == "crossing"
    assert any(abs(c["score"]) < 1.0 for c in t.crossings)


def test_dominance_honours_objective():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 1, 200), rng.normal(1, 1, 200)
    assert dominance_test(a, b, objective="minimize").outcome == "a"
    t_min = dominance_test(a, b, objective="minimize")
    t_neg = dominance_test(-a, -b)
    assert t_min.p_a_better == pytest.approx(t_neg.p_a_better)


def test_crossings_of_hand_made_cdfs():
    # A: 1, 2, 3, 10; B: 2.5 .. 2.8. Low down B is better (A has the low draws);
    # from 2.7 on A's CDF is below B's (A better), a single crossing.
    out = crossings([1, 2, 3, 10], [2.5, 2.6, 2.7, 2.8])
    assert out == [{"score": 2.7, "level_a": 0.5, "before": "b", "after": "a"}]
    assert crossings([1, 2], [1, 2]) == []


def test_cvar_difference_band_interval_covers():
    # A ~ U(0.2, 1), B ~ U(0, 0.8): CVaR_0.5 difference = 0.2 exactly.
    rng = np.random.default_rng(3)
    reps, hits = 200, 0
    for _ in range(reps):
        iv = cvar_difference(rng.uniform(0.2, 1, 60), rng.uniform(0, 0.8, 60), 0.5,
                             interval="band", low=0, high=1, confidence=0.8)
        hits += iv.lower <= 0.2 <= iv.upper
    _, hi = cp_interval(hits, reps)
    assert hi >= 0.8


def test_meanmax_median_and_cvar_disagree(shared_data):
    # Tang et al.'s hedwig data: the MLP has the higher median, the LSTM the higher
    # CVaR_0.99 (its best draws reach 0.90 F1, the MLP's 0.80): the CDFs cross.
    df = pd.read_csv(shared_data / "meanmax" / "hedwig.tsv", sep="\t")
    mlp = df.loc[df["model_name"] == "mlp", "f1"].to_numpy()
    lstm = df.loc[df["model_name"] == "reg_lstm", "f1"].to_numpy()
    assert quantile(mlp, 0.5) > quantile(lstm, 0.5) + 0.4
    assert cvar(lstm, 0.99) > cvar(mlp, 0.99) + 0.05
    t = dominance_test(mlp, lstm)
    # The MLP is significantly better over most of the range; the LSTM's lead in the
    # top 4% rests on a handful of draws, so no significant reverse difference.
    assert t.outcome == "a"
    assert [c["after"] for c in t.crossings] == ["b"]
    assert 0.79 < t.crossings[0]["score"] <= 0.8024
    # The band interval (distribution-free) cannot confirm the LSTM's CVaR lead.
    iv = cvar_difference(lstm, mlp, 0.99, interval="band", low=0, high=1)
    assert iv.estimate > 0 and iv.lower < 0 < iv.upper
    res = Results.from_frame(df, algorithm="model_name", seed="--seed", score="f1",
                             objective="maximize", kind="trials")
    d = distribution(res, cvar_level=0.99, low=0, high=1)
    verdicts = {v.method: v for v in d.verdicts()}
    assert verdicts["dse.dominance"].winner == "mlp"
    assert "cross at 0.7974" in verdicts["dse.dominance"].explanation
    assert verdicts["dse.cvar"].outcome == "inconclusive"
    assert verdicts["dse.cvar"].effect.estimate < 0  # a = mlp is behind in CVaR_0.99


@pytest.mark.parametrize(("level", "n"), [(0.5, 40), (0.95, 100)])
def test_cvar_permutation_test_type_one_error_is_at_most_alpha(level, n):
    # Exact under F_A = F_B: the rejection rate at alpha = 0.05 is at most 0.05 up to the
    # 99.9% Clopper-Pearson error (400 null data sets, Beta(2, 5) scores).
    from benchverdict.dse.compare import cvar_permutation_test

    rng = np.random.default_rng([int(level * 100), n])
    reps = 400
    rejected = sum(
        cvar_permutation_test(rng.beta(2, 5, n), rng.beta(2, 5, n), level, n_resamples=199,
                              seed=r).p_value <= 0.05
        for r in range(reps))
    lo, _ = cp_interval(rejected, reps)
    assert lo <= 0.05, rejected / reps


def test_cvar_permutation_test_keeps_its_level_for_equal_cvars_and_different_shapes():
    # Studentized, the test is about the CVaRs, not "the distributions differ": two laws
    # with the same CVaR_0.5 but different spread are rejected at about alpha, not more
    # (N(0, 1) vs N(m, 3^2) with m chosen to equalise the upper-half means).
    from benchverdict.dse.compare import cvar_permutation_test

    m = (1.0 - 3.0) * stats.norm.pdf(0) / 0.5  # CVaR_0.5 of N(mu, s^2) = mu + s phi(0)/0.5
    rng = np.random.default_rng(97)
    reps = 300
    rejected = sum(
        cvar_permutation_test(rng.normal(0, 1, 200), rng.normal(m, 3, 200), 0.5, n_resamples=199,
                              seed=r).p_value <= 0.05
        for r in range(reps))
    lo, _ = cp_interval(rejected, reps)
    assert lo <= 0.05 * 1.5, rejected / reps
