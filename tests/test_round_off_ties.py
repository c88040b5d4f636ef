"""Ties that floating point broke: rank tests and the results table must not depend on them.

The example's MLP, RF and SVM average 0.938 on moons, in decimal; their float means
differed in the 17th digit, so RF ranked 4th instead of tying for 3rd, and the Friedman
statistic (4.99 against 5.28), the average ranks and the Wilcoxon p-values changed
when every score was multiplied by 1000 (which must change nothing).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchverdict.examples import load_example_frame
from benchverdict.ranks import friedman
from benchverdict.results import Results
from benchverdict.stats.round_off import ROUND_OFF, snap_round_off


def example(transform=lambda s: s, objective: str = "maximize") -> Results:
    frame = load_example_frame()
    frame = frame.assign(accuracy=transform(frame["accuracy"]))
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", budget="trial", score="accuracy",
                              objective=objective, kind="trials")


TRANSFORMS = {
    "x1000": (lambda s: s * 1000.0, "maximize"),
    "x1e-7": (lambda s: s * 1e-7, "maximize"),
    "negated": (lambda s: -s, "minimize"),
    "x3 negated": (lambda s: -3.0 * s, "minimize"),
}


@pytest.fixture(scope="module")
def base():
    return {post: friedman(example(), posthoc=post, n_resamples=0)
            for post in ("nemenyi", "wilcoxon")}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_rank_tests_of_the_example_do_not_change_when_scores_are_rescaled(base, name):
    transform, objective = TRANSFORMS[name]
    data = example(transform, objective)
    for post, ref in base.items():
        got = friedman(data, posthoc=post, n_resamples=0)
        assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert got.p_value == pytest.approx(ref.p_value, rel=1e-12)
        pd.testing.assert_series_equal(got.average_ranks, ref.average_ranks, rtol=1e-12)
        pd.testing.assert_frame_equal(got.p_values_adjusted, ref.p_values_adjusted,
                                      rtol=1e-12)


def test_the_examples_friedman_statistic_is_that_of_its_exact_decimal_means(base):
    """The reference: scipy on the seed means rounded to 10 digits (the accuracies are
    fractions of test-set sizes, so their means are exact in 10 digits)."""
    frame = load_example_frame()
    # Each run's final incumbent: the best accuracy of its trials.
    final = frame.groupby(["benchmark", "algorithm", "seed"])["accuracy"].max()
    means = final.groupby(["benchmark", "algorithm"]).mean().round(10).unstack()
    ref = stats.friedmanchisquare(*means.to_numpy().T)
    assert base["nemenyi"].statistic == pytest.approx(ref.statistic, rel=1e-12)
    ranks = stats.rankdata(-means.to_numpy(), axis=1).mean(axis=0)
    assert base["nemenyi"].average_ranks[list(means.columns)].to_numpy() == pytest.approx(
        ranks, rel=1e-12)


def test_the_results_table_ranks_the_exact_decimal_means():
    from benchverdict.report.runner import compare

    plain = compare(example(), analyses=["ranks"], progress=False, figures=False)
    scaled = compare(example(lambda s: s * 1000.0), analyses=["ranks"], progress=False,
                     figures=False)
    ranks = [c.document().results_table.get().record["average_ranks"] for c in (plain, scaled)]
    assert [r["average_rank"] for r in ranks[0]] == pytest.approx(
        [r["average_rank"] for r in ranks[1]], rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), scale=st.sampled_from([1e-9, 1e-3, 1.0, 1e3, 1e12]),
       k=st.integers(2, 7))
def test_snapping_restores_ties_of_decimal_means_and_keeps_the_rest(seed, scale, k):
    """Means of the same multiset of decimals in other orders tie again, at any scale;
    values differing by more than ROUND_OFF of the row's magnitude are left alone."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 1000, size=6) / 1000.0
    shuffled = [rng.permutation(values) * scale for _ in range(k)]
    means = np.array([np.add.reduce(v) / v.size for v in shuffled])  # one order each
    distinct = (np.arange(k) + 1.0) * scale  # clearly different values
    row = np.concatenate([means, distinct])
    out = snap_round_off(row[None, :])[0]
    assert np.all(out[:k] == out[0])
    assert out[0] == pytest.approx(means.mean(), rel=1e-14)
    assert np.array_equal(out[k:], distinct)
    assert np.array_equal(snap_round_off(-row[None, :])[0], -out)  # negation: exact


def test_snapping_leaves_differences_above_the_round_off_alone():
    x = np.array([[1.0, 1.0 + 2 * ROUND_OFF, 1.0 + 1e-9, np.nan]])
    out = snap_round_off(x)
    assert out[0, 0] == 1.0 and out[0, 1] == 1.0 + 2 * ROUND_OFF
    assert out[0, 2] == 1.0 + 1e-9 and np.isnan(out[0, 3])


def test_small_values_beside_a_large_one_keep_their_order():
    """A tolerance relative to the block's largest value tied 1e-8 and 3e-8 beside 1e6
    (a diverged run), and Wilcoxon dropped every difference of the small benchmarks
    beside one benchmark of scale 1e4 (p = 1 where scipy gives 0.0005)."""
    out = snap_round_off([[1e6, 1e-8, 3e-8]])
    assert out.tolist() == [[1e6, 1e-8, 3e-8]]
    rng = np.random.default_rng(1)
    rows = []
    for b in range(12):
        base = 1e4 if b == 0 else 1e-9
        u = rng.uniform(0.9, 1.1)
        rows += [("A", f"f{b}", 0, base * u), ("B", f"f{b}", 0, base * u * 1.5),
                 ("C", f"f{b}", 0, base * u * 3)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "regret"])
    res = Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                             score="regret", objective="minimize", kind="runs")
    got = friedman(res, posthoc="wilcoxon", n_resamples=0)
    matrix = got.blocks.matrix
    for a, b in (("A", "B"), ("A", "C"), ("B", "C")):
        ref = stats.wilcoxon(matrix[a], matrix[b])
        assert got.pairwise.set_index(["a", "b"]).loc[(a, b), "p_value"] == pytest.approx(
            ref.pvalue, rel=1e-12)
    assert got.average_ranks.to_dict() == {"A": 1.0, "B": 2.0, "C": 3.0}


def test_an_outlier_does_not_make_a_spread_of_round_off():
    from benchverdict.scales import _spread

    rng = np.random.default_rng(3)
    values = np.r_[rng.uniform(1e-9, 5e-9, 59), 1e6]
    q1, q3 = np.quantile(values, [0.25, 0.75])
    assert _spread(values) == pytest.approx(q3 - q1)
