"""Tuning curves are exactly equivariant under negating the scores with the objective flipped.

Negating every score and flipping ``objective`` describes the same experiment, so every
curve must come out negated, every band swapped and negated, and every verdict the same.
Before the fix the median curve at k = 1 took the lower middle draw under both objectives
(the 25th of 50 draws when maximising, the mirror of the 26th when minimising).
"""

from __future__ import annotations

import warnings
from dataclasses import astuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.results import Results
from benchverdict.tuning import (
    bootstrap_band,
    compare_curves,
    from_results,
    quantile_tuning_curve,
    tuning_curve,
)

BANDS = [None, "ld_highest_density", "ld_equal_tailed", "ks", "dkw"]
scores = st.lists(
    st.one_of(st.integers(-4, 4).map(float), st.floats(-5, 5, allow_nan=False)),
    min_size=1, max_size=40,
)
budgets = st.lists(st.one_of(st.integers(1, 60).map(float), st.floats(1, 60)), min_size=1,
                   max_size=6)


def _negated(curve, other) -> None:
    np.testing.assert_array_equal(other.point, -curve.point)
    np.testing.assert_array_equal(other.lower, -curve.upper)
    np.testing.assert_array_equal(other.upper, -curve.lower)


@settings(max_examples=120, deadline=None)
@given(y=scores, ks=budgets, band=st.sampled_from(BANDS),
       kind=st.sampled_from(["median", "quantile", "mean"]), q=st.sampled_from([0.1, 0.5, 0.9]),
       calibrate=st.sampled_from(["curve", "cdf"]), bounded=st.booleans(),
       confidence=st.sampled_from([0.5, 0.8, 0.95]))
def test_negation_with_flipped_objective_negates_the_curve(y, ks, band, kind, q, calibrate,
                                                          bounded, confidence):
    y = np.asarray(y)
    a, b = (-5.0, 5.0) if bounded else (-np.inf, np.inf)
    kw = {"kind": kind, "band": band, "q": q, "calibrate": calibrate, "confidence": confidence}
    if kind == "mean":
        ks = [float(round(k)) for k in ks]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        up = tuning_curve(y, ks, low=a, high=b, objective="maximize", **kw)
        down = tuning_curve(-y, ks, low=-b, high=-a, objective="minimize", **kw)
    _negated(up, down)


@settings(max_examples=40, deadline=None)
@given(y=scores, ks=budgets, q=st.sampled_from([0.2, 0.5, 0.8]))
def test_quantile_estimator_is_equivariant(y, ks, q):
    y = np.asarray(y)
    np.testing.assert_array_equal(quantile_tuning_curve(-y, ks, q, "minimize"),
                                  -quantile_tuning_curve(y, ks, q, "maximize"))


def test_even_sample_median_at_budget_one_used_to_break_symmetry():
    # The case: n = 50, median at k = 1. Maximising takes the 25th order statistic;
    # minimising the negated scores must give minus the same draw (it gave minus the 26th).
    y = np.arange(1.0, 51.0)
    up = tuning_curve(y, [1], band="ld_highest_density")
    down = tuning_curve(-y, [1], band="ld_highest_density", objective="minimize")
    assert up.point[0] == 25.0 and down.point[0] == -25.0
    _negated(up, down)


@settings(max_examples=20, deadline=None)
@given(y=st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=30),
       seed=st.integers(0, 5))
def test_bootstrap_band_is_equivariant(y, seed):
    y = np.asarray(y)
    kw = {"estimator": "v", "n_resamples": 50, "seed": seed}
    _negated(bootstrap_band(y, [1, 2, 5], **kw),
             bootstrap_band(-y, [1, 2, 5], objective="minimize", **kw))


@settings(max_examples=40, deadline=None)
@given(shift=st.floats(-1, 1), n=st.integers(5, 40), seed=st.integers(0, 10**6),
       band=st.sampled_from(BANDS[1:]), kind=st.sampled_from(["median", "mean", "quantile"]))
def test_comparison_verdicts_survive_negation(shift, n, seed, band, kind):
    rng = np.random.default_rng(seed)
    x, z = rng.normal(shift, 1, n), rng.normal(0, 1, n + 3)
    kw = {"kind": kind, "band": band, "low": -10.0, "high": 10.0, "q": 0.8}
    ks = [1, 2, 3.5, 8]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        up = compare_curves(tuning_curve(x, ks, name="x", **kw),
                            tuning_curve(z, ks, name="z", **kw))
        kw.update(low=-10.0, high=10.0)
        down = compare_curves(tuning_curve(-x, ks, name="x", objective="minimize", **kw),
                              tuning_curve(-z, ks, name="z", objective="minimize", **kw))
    # the effect's estimate and interval ends by position (their field names are verdict.py's)
    assert [(v.outcome, v.evidence.strength, v.scope, astuple(v.effect)[1:4]) for v in up] == [
        (v.outcome, v.evidence.strength, v.scope, astuple(v.effect)[1:4]) for v in down]


@pytest.mark.parametrize("band", ["ld_highest_density", "ks"])
def test_results_verdicts_survive_negation(band):
    rng = np.random.default_rng(3)
    rows = [(alg, task, s, float(rng.normal(shift, 1)))
            for task in ("p", "q") for alg, shift in (("A", 1.5), ("B", 0.0)) for s in range(50)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])

    def verdicts(frame, objective):
        res = Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                                 score="acc", objective=objective, kind="trials")
        return [(v.a, v.b, v.outcome, v.scope, v.evidence.strength)
                for v in from_results(res, band=band).verdicts()]

    base = verdicts(frame, "maximize")
    assert base == verdicts(frame.assign(acc=-frame["acc"]), "minimize")
    assert any(outcome == "a" for _, _, outcome, _, _ in base)


def test_user_scale_cdf_band_is_the_mirror():
    y = np.random.default_rng(0).uniform(size=30)
    up = tuning_curve(y, [1, 2], band="ks", low=0, high=1, calibrate="curve")
    down = tuning_curve(-y, [1, 2], band="ks", low=-1, high=0, objective="minimize",
                        calibrate="curve")
    np.testing.assert_array_equal(down.cdf.scores, -up.cdf.scores[::-1])
    np.testing.assert_allclose(down.cdf.lower, 1 - up.cdf.upper[::-1])
    assert down.cdf.levels == (0.0, 1 - up.cdf.levels[0])
    # Calibrated on the budgets' levels only (the default), the grid mirrors too.
    up = tuning_curve(y, [1, 2], band="ks", low=0, high=1)
    down = tuning_curve(-y, [1, 2], band="ks", low=-1, high=0, objective="minimize")
    np.testing.assert_allclose(down.cdf.lower, 1 - up.cdf.upper[::-1])
    np.testing.assert_allclose(down.cdf.grid, sorted(1 - p for p in up.cdf.grid))


@settings(max_examples=40, deadline=None)
@given(shift=st.floats(-1, 1), n=st.integers(5, 40), seed=st.integers(0, 10**6),
       band=st.sampled_from(BANDS[1:]), objective=st.sampled_from(["maximize", "minimize"]))
def test_swapping_the_pair_mirrors_every_tuning_verdict(shift, n, seed, band, objective):
    rng = np.random.default_rng(seed)
    kw = {"band": band, "low": -10.0, "high": 10.0, "objective": objective}
    ks = [1, 2, 3.5, 8]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = tuning_curve(rng.normal(shift, 1, n), ks, name="x", **kw)
        z = tuning_curve(rng.normal(0, 1, n + 3), ks, name="z", **kw)

    def key(v):
        # the effect's estimate and interval ends by position (their names are verdict.py's)
        return (v.a, v.b, v.outcome, v.scope, v.evidence, astuple(v.effect)[1:4])

    swapped = [key(v.swapped()) for v in compare_curves(x, z)]
    assert swapped == [key(v) for v in compare_curves(z, x)]
