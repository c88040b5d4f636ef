"""DSE statistics: closed forms, exactness for discrete laws, and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchverdict.dse import (
    au_cdf,
    cvar,
    exceedance_probability,
    quantile,
    threshold_area,
)
from benchverdict.dse.statistics import DiscreteLaw, statistic

# ----------------------------------------------------------------------------- closed forms
LAM = 2.0
DISTS = {
    "uniform": stats.uniform(0, 1),
    "normal": stats.norm(1.5, 2.0),
    "exponential": stats.expon(scale=1 / LAM),
}


def cvar_upper_exact(name: str, a: float) -> float:
    if name == "uniform":
        return (1 + a) / 2
    if name == "normal":
        return 1.5 + 2.0 * stats.norm.pdf(stats.norm.ppf(a)) / (1 - a)
    return -np.log(1 - a) / LAM + 1 / LAM  # memorylessness: quantile + mean


def cvar_lower_exact(name: str, a: float) -> float:
    if name == "uniform":
        return a / 2
    if name == "normal":
        return 1.5 - 2.0 * stats.norm.pdf(stats.norm.ppf(a)) / a
    return ((1 - a) * np.log(1 - a) + a) / (LAM * a)


def area_exact(name: str, tau: float) -> float:
    """E[(Z - tau)^+]."""
    if name == "uniform":
        return (1 - tau) ** 2 / 2
    if name == "normal":
        d = (1.5 - tau) / 2.0
        return (1.5 - tau) * stats.norm.cdf(d) + 2.0 * stats.norm.pdf(d)
    return np.exp(-LAM * tau) / LAM


TAUS = {"uniform": 0.3, "normal": 2.0, "exponential": 0.4}


@pytest.mark.parametrize("name", list(DISTS))
@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
def test_cvar_matches_closed_form_on_quantile_grid(name, alpha):
    # Plugging in the law's quantiles at the midpoints (i - 1/2)/n integrates F^{-1}
    # by the midpoint rule: the error is O(1/n) up to the tail's log factor.
    n = 200_000
    grid = DISTS[name].ppf((np.arange(n) + 0.5) / n)
    assert cvar(grid, alpha) == pytest.approx(cvar_upper_exact(name, alpha), rel=2e-3)
    assert cvar(grid, alpha, tail="lower") == pytest.approx(
        cvar_lower_exact(name, alpha), rel=2e-3, abs=1e-4
    )
    tau = TAUS[name]
    assert threshold_area(grid, tau) == pytest.approx(area_exact(name, tau), rel=1e-3)
    assert exceedance_probability(grid, tau) == pytest.approx(DISTS[name].sf(tau), abs=1e-5)


@pytest.mark.parametrize("name", list(DISTS))
def test_estimators_are_consistent_by_simulation(name):
    # A seeded sample; tolerance: 4.5 asymptotic standard errors (two-sided miss
    # probability about 7e-6 per check), from each estimator's influence function.
    rng = np.random.default_rng(20180 + len(name))
    n = 20_000
    z = DISTS[name].rvs(size=n, random_state=rng)
    for alpha in (0.5, 0.9):
        q = np.quantile(z, alpha)
        se = np.std(np.clip(z - q, 0, None)) / (1 - alpha) / np.sqrt(n)
        assert abs(cvar(z, alpha) - cvar_upper_exact(name, alpha)) < 4.5 * se
        ql = np.quantile(z, 0.2)
        se_l = np.std(np.clip(ql - z, 0, None)) / 0.2 / np.sqrt(n)
        assert abs(cvar(z, 0.2, tail="lower") - cvar_lower_exact(name, 0.2)) < 4.5 * se_l
    tau = TAUS[name]
    se = np.std(np.clip(z - tau, 0, None)) / np.sqrt(n)
    assert abs(threshold_area(z, tau) - area_exact(name, tau)) < 4.5 * se


def test_au_cdf_and_normalised_area_closed_forms():
    grid = (np.arange(100_000) + 0.5) / 100_000  # uniform on [0, 1]
    assert au_cdf(grid, low=0.0, high=1.0) == pytest.approx(0.5, abs=1e-6)
    # Normalised area above tau with bound 1: (1 - tau)^2 / 2 / (1 - tau).
    assert threshold_area(grid, 0.4, bound=1.0, normalize=True) == pytest.approx(0.3, abs=1e-6)
    # AU-CDF is one minus the normalised area at tau = low.
    x = np.random.default_rng(1).beta(2, 5, size=500)
    assert au_cdf(x, low=0.0, high=1.0) == pytest.approx(
        1 - threshold_area(x, 0.0, bound=1.0, normalize=True)
    )


# ----------------------------------------------------------------------------- exactness
def test_cvar_is_exact_for_a_discrete_law_with_fractional_atom():
    # Z = 0 w.p. 3/4, 1 w.p. 1/4. Upper CVaR_0.5 integrates F^{-1} over [0.5, 1]:
    # 0 on [0.5, 0.75] and 1 on [0.75, 1], so (0.25 * 1) / 0.5 = 0.5.
    x = np.array([0.0, 0.0, 0.0, 1.0])
    assert cvar(x, 0.5) == pytest.approx(0.5)
    assert cvar(x, 0.6) == pytest.approx(0.25 / 0.4)
    assert cvar(x, 0.8) == pytest.approx(1.0)
    law = DiscreteLaw(np.array([0.0, 1.0]), np.array([0.75, 0.25]))
    assert law.cvar(0.6, "upper") == pytest.approx(cvar(x, 0.6))
    # Lower tail: the worst 80% has 75% zeros and 5% ones.
    assert cvar(x, 0.8, tail="lower") == pytest.approx(0.05 / 0.8)


def test_cvar_equals_mean_of_top_k_when_n_times_tail_is_an_integer():
    x = np.random.default_rng(3).normal(size=40)
    top = np.sort(x)[-10:]
    assert cvar(x, 0.75) == pytest.approx(top.mean())
    assert cvar(x, 0.25, tail="lower") == pytest.approx(np.sort(x)[:10].mean())


def test_objective_minimize_means_best_is_smallest():
    loss = np.array([0.1, 0.2, 0.3, 0.4])
    assert cvar(loss, 0.5, objective="minimize") == pytest.approx(0.15)
    assert cvar(loss, 0.5, tail="lower", objective="minimize") == pytest.approx(0.35)
    assert quantile(loss, 0.75, objective="minimize") == pytest.approx(np.quantile(loss, 0.25))
    assert threshold_area(loss, 0.25, objective="minimize") == pytest.approx(
        (0.15 + 0.05) / 4
    )
    assert exceedance_probability(loss, 0.25, objective="minimize") == 0.5


def test_bad_input_fails_loudly():
    with pytest.raises(ValueError, match="non-finite"):
        cvar([1.0, np.nan], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        cvar([1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        cvar([1.0, 2.0], 0.0, tail="lower")
    with pytest.raises(ValueError, match="tail"):
        cvar([1.0, 2.0], 0.5, tail="best")
    with pytest.raises(ValueError, match="objective"):
        cvar([1.0, 2.0], 0.5, objective="max")
    with pytest.raises(ValueError, match="empty"):
        cvar([], 0.5)
    with pytest.raises(ValueError, match="bound"):
        threshold_area([0.5], 0.2, normalize=True)


# ----------------------------------------------------------------------------- properties
samples = st.lists(
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False),
    min_size=1, max_size=40,
).map(np.array)
levels = st.floats(min_value=0.0, max_value=0.99)


@settings(max_examples=150, deadline=None)
@given(samples, levels, levels)
def test_cvar_monotone_in_alpha(x, a1, a2):
    lo, hi = sorted((a1, a2))
    assert cvar(x, lo) <= cvar(x, hi) + 1e-9 * (1 + np.abs(x).max())
    lo, hi = max(lo, 0.01), max(hi, 0.01)
    assert cvar(x, lo, tail="lower") <= cvar(x, hi, tail="lower") + 1e-9 * (1 + np.abs(x).max())


@settings(max_examples=150, deadline=None)
@given(samples, st.floats(min_value=0.0, max_value=0.99))
def test_tail_symmetry_under_negation(x, a):
    # The best 1 - a of x are the negated worst 1 - a of -x.
    tol = 1e-9 * (1 + np.abs(x).max())
    assert cvar(x, a) == pytest.approx(-cvar(-x, 1 - a, tail="lower"), abs=tol)
    assert cvar(x, a, objective="minimize") == pytest.approx(-cvar(-x, a), abs=tol)
    assert x.min() - tol <= cvar(x, a) <= x.max() + tol


@settings(max_examples=100, deadline=None)
@given(samples, st.integers(min_value=2, max_value=5), levels)
def test_cvar_is_a_functional_of_the_empirical_law(x, k, a):
    # Repeating the sample leaves its empirical distribution, hence CVaR, unchanged.
    tol = 1e-9 * (1 + np.abs(x).max())
    assert cvar(np.tile(x, k), a) == pytest.approx(cvar(x, a), abs=tol)
    assert cvar(x, 0.0) == pytest.approx(x.mean(), abs=tol)
    assert cvar(x, 1.0, tail="lower") == pytest.approx(x.mean(), abs=tol)


@settings(max_examples=100, deadline=None)
@given(samples, levels)
def test_vectorised_rows_match_the_law(x, a):
    s = statistic("cvar", cvar_level=a, tail="upper")
    tol = 1e-9 * (1 + np.abs(x).max())
    assert s.of_sample(x) == pytest.approx(DiscreteLaw.empirical(x).cvar(a, "upper"), abs=tol)
    q = statistic("quantile", q=a)
    assert DiscreteLaw.empirical(x).quantile(a) == np.quantile(x, a, method="inverted_cdf")
    assert q.of_law(DiscreteLaw.empirical(x)) <= x.max()
