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
