"""Point estimates of tuning curves: exact arithmetic, opda 0.8.0, unbiasedness by simulation."""

from __future__ import annotations

import warnings
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.tuning import (
    estimator_weights,
    expected_max,
    quantile_levels,
    quantile_tuning_curve,
)


def exact_estimates(ys: list[int], k: int) -> dict[str, Fraction]:
    # Integer numerators over integer denominators: exact and fast.
    ys = sorted(ys)
    n = len(ys)
    out = {
        "v": Fraction(sum((i**k - (i - 1) ** k) * y for i, y in enumerate(ys, 1)), n**k),
        "w": Fraction(
            sum(comb(i + k - 2, k - 1) * y for i, y in enumerate(ys, 1)), comb(n + k - 1, k)
        ),
    }
    if k <= n:
        out["u"] = Fraction(sum(comb(i - 1, k - 1) * y for i, y in enumerate(ys, 1)), comb(n, k))
    return out


@pytest.mark.parametrize("n", [1, 7, 60, 400])
def test_against_exact_rational_arithmetic_with_ties(n):
    rng = np.random.default_rng(n)
    ys = rng.integers(0, 50, size=n).tolist()  # many ties
    for k in sorted({1, 2, 3, max(1, n // 2), n, n + 5}):
        exact = exact_estimates(ys, k)
        for est, value in exact.items():
            got = expected_max(ys, [k], est)[0]
            assert got == pytest.approx(float(value), rel=1e-13, abs=1e-13), (est, k)
        # Minimisation mirrors: E[min] of y = -E[max] of -y.
        for est in exact:
            got = expected_max(ys, [k], est, objective="minimize")[0]
            mirrored = exact_estimates([-y for y in ys], k)[est]
            assert got == pytest.approx(-float(mirrored), rel=1e-13, abs=1e-13)


def test_u_is_exact_where_opda_overflows():
    # opda's U uses scipy.special.comb in floating point and returns nan above n ~ 1,030.
    rng = np.random.default_rng(3)
    n = 3000
    ys = rng.integers(0, 10_000, size=n).tolist()
    for k in (2, 40, 1500, 3000):
        exact = exact_estimates(ys, k)["u"]
        assert expected_max(ys, [k], "u")[0] == pytest.approx(float(exact), rel=1e-12)


def test_million_draws_with_ties_is_finite_and_consistent():
    rng = np.random.default_rng(0)
    y = np.round(rng.normal(size=1_000_000), 2)  # heavy ties
    ks = np.array([1, 2, 10, 1000, 999_999, 1_000_000])
    u = expected_max(y, ks, "u")
    v = expected_max(y, ks, "v")
    w = expected_max(y, ks, "w")
    assert np.all(np.isfinite(u)) and np.all(np.isfinite(v)) and np.all(np.isfinite(w))
    assert u[0] == pytest.approx(y.mean(), rel=1e-12)
    assert u[-1] == y.max()
    assert np.all(np.diff(u) >= 0) and np.all(np.diff(v) >= 0) and np.all(np.diff(w) >= 0)
    # Exact value of U at k=2: E[max of a random pair] = sum_i y_(i) 2 (i - 1) / (n (n - 1)).
    s = np.sort(y)
    i = np.arange(1, s.size + 1)
    exact_k2 = np.sum(s * 2.0 * (i - 1) / (s.size * (s.size - 1.0)))
    assert u[1] == pytest.approx(exact_k2, rel=1e-10)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(-100, 100, allow_nan=False), min_size=1, max_size=30),
    st.integers(1, 30),
)
def test_w_below_v_below_u_for_maximisation(values, k):
    # Multisets (W) favour repeated draws most, sampling with replacement (V) less,
    # subsets (U) never: the expected maximum increases in that order for every sample.
    v = expected_max(values, [k], "v")[0]
    w = expected_max(values, [k], "w")[0]
    tol = 1e-9 * (1 + max(abs(x) for x in values))
    assert min(values) - tol <= w <= v + tol
    if k <= len(values):
        u = expected_max(values, [k], "u")[0]
        assert v <= u + tol <= max(values) + 2 * tol


def test_u_beyond_n_is_nan():
    assert np.isnan(expected_max([1.0, 2.0], [3], "u")[0])


def test_unbiasedness_of_u_by_simulation():
    # E[max of k Exp(1)] = H_k. U is unbiased for every k <= n; V is biased low.
    rng = np.random.default_rng(42)
    n, reps = 12, 20_000
    ks = np.arange(1, n + 1)
    harmonic = np.cumsum(1.0 / ks)
    samples = np.sort(rng.exponential(size=(reps, n)), axis=1)
    # The estimators are linear in the sorted sample: apply their weight matrices to all
    # replicates at once, after checking them against the public function.
    weights = {est: estimator_weights(n, ks.astype(float), est).T for est in "uv"}
    for s in samples[:5]:
        np.testing.assert_allclose(s @ weights["u"], expected_max(s, ks, "u"), rtol=1e-12)
    u = samples @ weights["u"]
    mean, se = u.mean(axis=0), u.std(axis=0, ddof=1) / np.sqrt(reps)
    # 12 checks at 99.9% each (z = 3.29); Bonferroni-protected family at 98.8%.
    assert np.all(np.abs(mean - harmonic) <= 3.29 * se)
    v = samples @ weights["v"]
    assert v[:, -1].mean() + 3.29 * v[:, -1].std(ddof=1) / np.sqrt(reps) < harmonic[-1]


def test_quantile_tuning_curve_definition():
    y = np.array([0.1, 0.5, 0.4, 0.9])
    # The median of the best of k draws is F^-1(0.5^(1/k)).
    assert quantile_tuning_curve(y, [1])[0] == 0.4
    # Minimising, the same definition on the performance -y: the worse of the two middle draws.
    assert quantile_tuning_curve(y, [1], objective="minimize")[0] == 0.5
    assert quantile_tuning_curve(y, [10])[0] == 0.9
    assert quantile_tuning_curve(y, [10], objective="minimize")[0] == 0.1
    assert quantile_levels([2], 0.5, "minimize")[0] == pytest.approx(1 - 0.5**0.5)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="finite"):
        expected_max([1.0, np.inf], [1])
    with pytest.raises(ValueError, match="integer"):
        expected_max([1.0, 2.0], [1.5], "u")
    with pytest.raises(ValueError, match="estimator"):
        expected_max([1.0, 2.0], [1], "z")
    with pytest.raises(ValueError, match="objective"):
        expected_max([1.0, 2.0], [1], objective="max")


# ---------------------------------------------------------------- opda 0.8.0
def _opda_distribution(ys):
    from opda.nonparametric import EmpiricalDistribution

    return EmpiricalDistribution(ys)


def _off_grid(levels: np.ndarray, n: int) -> np.ndarray:
    # opda finds quantiles on float cumulative sums; where level * n is an exact integer
    # its rounding may pick the next order statistic. Compare elsewhere.
    return np.abs(levels * n - np.round(levels * n)) > 1e-9


@pytest.mark.shared_data
@pytest.mark.parametrize("model", ["reg_lstm", "mlp"])
def test_against_opda_on_hedwig(shared_data, model):
    from benchverdict.io.adapters import read_meanmax

    ys = read_meanmax(shared_data / "meanmax" / "hedwig.tsv").draws(model)
    dist = _opda_distribution(ys)
    ks = np.arange(1, ys.size + 1)
    for minimize in (False, True):
        objective = "minimize" if minimize else "maximize"
        np.testing.assert_allclose(
            expected_max(ys, ks, "v", objective), dist.v_tuning_curve(ks, minimize=minimize),
            rtol=1e-12,
        )
        np.testing.assert_allclose(
            expected_max(ys, ks, "u", objective), dist.u_tuning_curve(ks, minimize=minimize),
            rtol=1e-10,
        )
        ours = quantile_tuning_curve(ys, ks, 0.5, objective)
        theirs = dist.quantile_tuning_curve(ks, 0.5, minimize=minimize)
        keep = _off_grid(quantile_levels(ks, 0.5, objective), ys.size)
        np.testing.assert_array_equal(ours[keep], theirs[keep])


@pytest.mark.shared_data
def test_against_opda_on_deberta(shared_data):
    from benchverdict.io.adapters import read_deberta

    ys = read_deberta(shared_data / "deberta").draws("deberta-v3-base")
    assert ys.size == 1024
    dist = _opda_distribution(ys)
    ks = np.arange(1, 1025)
    np.testing.assert_allclose(expected_max(ys, ks, "v"), dist.v_tuning_curve(ks), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = dist.u_tuning_curve(ks)
    ours = expected_max(ys, ks, "u")
    assert np.all(np.isfinite(ours))
    finite = np.isfinite(theirs)
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-9)
    keep = _off_grid(quantile_levels(ks, 0.5), ys.size)
    np.testing.assert_array_equal(quantile_tuning_curve(ys, ks)[keep],
                                  dist.quantile_tuning_curve(ks)[keep])
