"""Tuning curves from an exact-count ECDF sketch (tuning/curves.py, issue 12).

(a) exactness: with a bin per distinct value the sketch's curve is the DKW
    curve of the draws, to the last bit, in both directions; with coarse bins
    its point brackets the draws' point and its band contains their band;
(b) simulation: the sketched band covers the true curve of a minimised
    score with at least its confidence (binomial tolerance);
(c) the PriorBand data (one cell's scores as draws).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchverdict.stats.ecdf_sketch import sketch_of
from benchverdict.tuning import tuning_curve

BUDGETS = [1, 2, 3, 5, 8, 20, 50]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 400), decimals=st.sampled_from([1, 2, 6]),
       objective=st.sampled_from(["maximize", "minimize"]),
       kind=st.sampled_from(["median", "quantile"]), q=st.sampled_from([0.2, 0.5, 0.9]),
       seed=st.integers(0, 2**16))
def test_a_fine_sketch_gives_the_dkw_curve_of_the_draws(n, decimals, objective, kind, q, seed):
    y = np.round(np.random.default_rng(seed).normal(size=n), decimals)  # ties too
    kw = dict(kind=kind, q=q, band="dkw", confidence=0.8, objective=objective)
    exact = tuning_curve(y, BUDGETS, calibrate="cdf", **kw)
    sketched = tuning_curve(sketch_of(y, n_bins=2 * n), BUDGETS, **kw)
    assert sketched.sketch.error_bound == 0.0
    for name in ("point", "lower", "upper"):
        np.testing.assert_array_equal(getattr(sketched, name), getattr(exact, name))
    np.testing.assert_array_equal(sketched.point_lower, sketched.point_upper)
    assert sketched.n == n and sketched.band == "dkw" and sketched.simultaneous


@settings(max_examples=40, deadline=None)
@given(n=st.integers(50, 3000), n_bins=st.integers(2, 40),
       objective=st.sampled_from(["maximize", "minimize"]), seed=st.integers(0, 2**16))
def test_a_coarse_sketch_brackets_the_point_and_contains_the_band(n, n_bins, objective, seed):
    y = np.random.default_rng(seed).gamma(2.0, size=n)
    exact = tuning_curve(y, BUDGETS, band="dkw", calibrate="cdf", objective=objective)
    sketched = tuning_curve(sketch_of(y, n_bins=n_bins, seed=seed), BUDGETS, band="dkw",
                            objective=objective)
    assert np.all(sketched.point_lower <= exact.point)
    assert np.all(exact.point <= sketched.point_upper)
    assert np.all(sketched.lower <= exact.lower) and np.all(exact.upper <= sketched.upper)
    table = sketched.table
    assert list(table.columns) == ["k", "point", "lower", "upper", "point_lower",
                                   "point_upper"]


def test_negating_the_scores_and_flipping_the_objective_negates_the_curve():
    y = np.random.default_rng(3).normal(size=5000)
    sketch = sketch_of(y, n_bins=128, seed=2)
    up = tuning_curve(sketch, BUDGETS, band="dkw", objective="maximize")
    down = tuning_curve(sketch.mirrored(), BUDGETS, band="dkw", objective="minimize")
    np.testing.assert_allclose(down.point, -up.point)
    np.testing.assert_allclose(down.lower, -up.upper)
    np.testing.assert_allclose(down.upper, -up.lower)


@pytest.mark.parametrize("n_bins", [16, 512])
def test_the_sketched_band_covers_a_minimised_curve(n_bins):
    # 300 seeded replications of 4,000 exponential losses: the band covers the true
    # median-of-the-minimum curve at every budget at once with probability >= 0.8 (DKW);
    # the tolerance is 3 binomial standard errors.
    confidence, reps = 0.8, 300
    ks = np.array([1.0, 2.0, 4.0, 16.0, 64.0])
    truth = stats.expon.ppf(1 - 0.5 ** (1 / ks))  # median of the min of k draws
    rng = np.random.default_rng(21)
    hits, widths = 0, []
    for _ in range(reps):
        sketch = sketch_of(rng.exponential(size=4000), n_bins=n_bins,
                           seed=int(rng.integers(2**31)))
        curve = tuning_curve(sketch, ks, band="dkw", confidence=confidence,
                             objective="minimize", low=0.0)
        hits += bool(np.all((curve.lower <= truth) & (truth <= curve.upper)))
        widths.append(curve.upper[0] - curve.lower[0])
    assert hits / reps >= confidence - 3 * np.sqrt(confidence * (1 - confidence) / reps)
    # Not vacuous: at k = 1 the band is a small part of the median's scale (0.69).
    assert np.mean(widths) < 0.25


def test_what_a_sketch_cannot_give_is_refused_with_the_fix():
    sketch = sketch_of(np.arange(100.0), n_bins=8)
    with pytest.raises(ValueError, match="mean tuning curve needs every draw"):
        tuning_curve(sketch, [1, 2], kind="mean", band="dkw")
    with pytest.raises(ValueError, match="use band='dkw'"):
        tuning_curve(sketch, [1, 2], band="ld_highest_density")
    with pytest.raises(ValueError, match="within \\[low, high\\]"):
        tuning_curve(sketch, [1, 2], band="dkw", low=10.0)


def test_at_confidence_and_verdicts_keep_the_sketch():
    from benchverdict.tuning import compare_curves

    rng = np.random.default_rng(0)
    good = tuning_curve(sketch_of(rng.normal(1, 1, 20_000), n_bins=64), [1, 4, 16],
                        band="dkw", name="good")
    bad = tuning_curve(sketch_of(rng.normal(0, 1, 20_000), n_bins=64), [1, 4, 16],
                       band="dkw", name="bad")
    wide = good.at_confidence(0.99)
    assert wide.sketch is good.sketch and np.all(wide.lower <= good.lower)
    verdicts = list(compare_curves(good, bad))
    assert [v.winner for v in verdicts] == ["good"]
    details = verdicts[0].details
    assert details["sketch_error_bound_a"] == good.sketch.error_bound > 0
    assert "ECDF sketches" in verdicts[0].explanation


@pytest.mark.shared_data
def test_priorband_cell_sketch_matches_its_draws(shared_data):
    import pandas as pd

    df = pd.read_parquet(shared_data / "priorband" / "priorband_anytime_full.parquet",
                         columns=["algorithm", "bench_prior", "value"])
    first = df["algorithm"].astype(str).iloc[0]
    y = df.loc[df["algorithm"].astype(str) == first, "value"].to_numpy()
    exact = tuning_curve(y, BUDGETS, band="dkw", calibrate="cdf", objective="minimize")
    sketched = tuning_curve(sketch_of(y, n_bins=256, seed=0), BUDGETS, band="dkw",
                            objective="minimize")
    assert np.all(sketched.point_lower <= exact.point) and np.all(
        exact.point <= sketched.point_upper)
    assert np.all(sketched.lower <= exact.lower) and np.all(exact.upper <= sketched.upper)
    # The widening is the sketch's error bound at most (DKW half-width shared).
    assert sketched.sketch.error_bound < 0.01
