"""Tests of the exact order-statistic probabilities and the simultaneous CDF bands.

Three kinds of checks: closed forms / exact references (scipy's KS
distributions), seeded Monte Carlo with 99.9% Clopper-Pearson tolerances,
and opda 0.8.0 on the DeBERTa data.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from benchverdict.stats import (
    cdf_band,
    dkw_epsilon,
    ks_critical_value,
    ld_band_probability,
    ld_critical_value,
    order_statistic_bounds,
    order_statistic_intervals,
    order_statistics_band_probability,
)


def clopper_pearson(k: int, n: int, level: float = 0.999) -> tuple[float, float]:
    alpha = 1 - level
    lo = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return lo, hi


# ----------------------------------------------------------- exact probabilities
@pytest.mark.parametrize("n", [1, 2, 3, 7, 20, 60, 140])
@pytest.mark.parametrize("q", [0.1, 0.5, 0.8, 0.95, 0.999])
def test_two_sided_ks_matches_scipy_exact(n, q):
    # scipy.stats.kstwo is exact for n <= 140 (Simard & L'Ecuyer).
    d = stats.kstwo(n).ppf(q)
    i = np.arange(1, n + 1)
    p = order_statistics_band_probability(i / n - d, (i - 1) / n + d)
    assert p == pytest.approx(stats.kstwo(n).cdf(d), rel=1e-11, abs=1e-13)


@pytest.mark.parametrize("n", [5, 50, 500, 3000])
@pytest.mark.parametrize("d", [0.02, 0.05, 0.1, 0.3])
def test_one_sided_ks_matches_exact_smirnov(n, d):
    # Asymmetric corridor (no symmetry shortcut): P(D-_n <= d) = 1 - smirnov(n, d),
    # which scipy computes exactly (Birnbaum-Tingey).
    i = np.arange(1, n + 1)
    p = order_statistics_band_probability(np.zeros(n), (i - 1) / n + d)
    assert p == pytest.approx(1 - special.smirnov(n, d), rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("n", [300, 2000])
def test_two_sided_ks_large_n_matches_scipy_where_scipy_is_exact(n):
    # For x >= 0.5 scipy uses the exact 2 * smirnov; for n x^1.5 <= 1.4 the Durbin matrix.
    i = np.arange(1, n + 1)
    for d in (0.5, 0.6, (1.0 / n) ** (2 / 3)):
        p = order_statistics_band_probability(i / n - d, (i - 1) / n + d)
        assert p == pytest.approx(stats.kstwo(n).cdf(d), rel=1e-8, abs=1e-14)


def _two_point_probability(l1, u1, l2, u2):
    # P(l1 <= U_(1) <= u1, l2 <= U_(2) <= u2) = 2 * int_{l1}^{u1} |[max(x, l2), u2]| dx.
    value, _ = integrate.quad(
        lambda x: max(0.0, u2 - max(x, l2)), l1, u1, points=[l2, u2], epsabs=1e-14
    )
    return 2 * value


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=4, max_size=4))
def test_two_order_statistics_against_integral(xs):
    l1, u1, l2, u2 = xs
    l1, u1 = min(l1, u1), max(l1, u1)
    l2, u2 = min(l2, u2), max(l2, u2)
    # The function normalises non-monotone bounds; the integral needs them monotone.
    l2 = max(l2, l1)
    u1 = min(u1, u2)
    expected = _two_point_probability(l1, u1, l2, u2) if l1 <= u1 and l2 <= u2 else 0.0
    got = order_statistics_band_probability([l1, l2], [u1, u2])
    assert got == pytest.approx(expected, abs=1e-10)


def test_arbitrary_bounds_against_monte_carlo():
    rng = np.random.default_rng(12)
    n, reps = 12, 40_000
    lower = np.sort(rng.uniform(0, 0.8, n)) * np.linspace(0.3, 1, n)
    upper = np.clip(lower + rng.uniform(0.15, 0.6, n), 0, 1)
    p = order_statistics_band_probability(lower, upper)
    u = np.sort(rng.uniform(size=(reps, n)), axis=1)
    hits = int(np.all((u >= np.maximum.accumulate(lower)) & (u <= upper), axis=1).sum())
    lo, hi = clopper_pearson(hits, reps)
    assert lo <= p <= hi


def test_impossible_and_certain_corridors():
    assert order_statistics_band_probability([0.5, 0.2], [0.4, 0.9]) == 0.0
    assert order_statistics_band_probability(np.zeros(5), np.ones(5)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same length"):
        order_statistics_band_probability([0.1], [0.2, 0.3])


def test_large_n_is_finite_and_stable():
    # n = 20,000 KS corridor: result must match the asymptotic Kolmogorov law closely.
    n = 20_000
    d = stats.kstwo(n).ppf(0.9)
    i = np.arange(1, n + 1)
    p = order_statistics_band_probability(i / n - d, (i - 1) / n + d)
    assert p == pytest.approx(0.9, abs=2e-6)


def _corridors(n, alpha):
    """LD, level-restricted, asymmetric and one-sided corridors of size n."""
    from benchverdict.stats.cdf_bands import restrict_to_levels

    lower, upper = order_statistic_intervals(n, alpha, "highest_density")
    yield "ld", lower, upper
    yield "levels", *restrict_to_levels(lower, upper, (0.5, 0.9))
    yield "asymmetric", lower, np.minimum(upper * 1.0005, 1.0)
    yield "one-sided", np.zeros(n), upper


@pytest.mark.parametrize("n,alpha,min_width", [(3_000, 1e-8, 0), (20_000, 2e-3, None)])
def test_blocks_equal_the_corner_by_corner_reference(n, alpha, min_width, monkeypatch):
    # Issue 25: wide corridors advance a block of corners at a time (exact up to the
    # same 1e-30 kernel tails); the old corner-by-corner loop is the reference.
    # min_width=0 tries blocks wherever the corridor is wide enough at all (a small
    # alpha makes it so at n = 3,000).
    from benchverdict.stats import order_statistics as os_

    if min_width is not None:
        monkeypatch.setattr(os_, "_MIN_WIDTH", min_width)
    used = []
    block = os_._block

    def counting_block(*args):
        out = block(*args)
        used.append(out is not None)
        return out

    monkeypatch.setattr(os_, "_block", counting_block)
    for name, lower, upper in _corridors(n, alpha):
        used.clear()
        fast = os_._band_probability(lower, upper, blocks=True)
        assert any(used), name  # the blocks really ran
        slow = os_._band_probability(lower, upper, blocks=False)
        assert fast == pytest.approx(slow, rel=1e-10, abs=1e-300), name


def test_ld_critical_value_at_large_n_against_the_reference():
    # The critical value found with the blocks has exact coverage by the reference path.
    from benchverdict.stats import cdf_bands
    from benchverdict.stats import order_statistics as os_

    n, confidence = 20_000, 0.8
    _, lower, upper = cdf_bands._ld_solve(n, confidence, "highest_density")
    p = os_._band_probability(lower, upper, blocks=False)
    assert p == pytest.approx(confidence, abs=1e-9)


# ------------------------------------------------------------ critical values
@pytest.mark.parametrize("n", [2, 10, 48, 200])
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("kind", ["highest_density", "equal_tailed"])
def test_ld_critical_value_solves_its_equation(n, confidence, kind):
    c = ld_critical_value(n, confidence, kind)
    assert confidence <= c < 1
    assert ld_band_probability(n, c, kind) == pytest.approx(confidence, rel=2e-8)


def test_ld_critical_value_n1_is_confidence():
    assert ld_critical_value(1, 0.8) == pytest.approx(0.8)


@pytest.mark.parametrize("n,confidence", [(10, 0.8), (48, 0.5), (48, 0.95), (200, 0.8)])
@pytest.mark.parametrize("kind", ["highest_density", "equal_tailed"])
def test_ld_band_coverage_by_simulation(n, confidence, kind):
    # The exact critical value must give exact coverage: simulate uniform samples and
    # count those whose every order statistic lies in its interval.
    rng = np.random.default_rng(n * 1000 + int(confidence * 100))
    reps = 20_000
    lower, upper, _ = order_statistic_bounds(n, confidence, f"ld_{kind}")
    hits = 0
    for _ in range(reps // 5000):
        u = np.sort(rng.uniform(size=(5000, n)), axis=1)
        hits += int(np.all((u >= lower) & (u <= upper), axis=1).sum())
    lo, hi = clopper_pearson(hits, reps)
    assert lo <= confidence <= hi


@pytest.mark.parametrize("n", [5, 48, 141, 500])
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
def test_ks_critical_value_exact(n, confidence):
    d = ks_critical_value(n, confidence)
    i = np.arange(1, n + 1)
    p = order_statistics_band_probability(i / n - d, (i - 1) / n + d)
    assert p == pytest.approx(confidence, abs=1e-10)
    assert d == pytest.approx(stats.kstwo(n).ppf(confidence), rel=1e-4)


@pytest.mark.parametrize("n", [1, 5, 48, 300])
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
def test_dkw_is_conservative_exactly(n, confidence):
    # The exact probability of the DKW corridor is at least the nominal level.
    eps = dkw_epsilon(n, confidence)
    i = np.arange(1, n + 1)
    p = order_statistics_band_probability(i / n - eps, (i - 1) / n + eps)
    assert p >= confidence
    assert eps >= ks_critical_value(n, confidence)


def test_dkw_band_conservative_by_simulation():
    rng = np.random.default_rng(7)
    n, reps, confidence = 30, 4000, 0.8
    covered = 0
    for _ in range(reps):
        band = cdf_band(rng.exponential(size=n), confidence, method="dkw")
        f = stats.expon.cdf(band.scores)
        # F must lie in the band at every order statistic and just before it.
        ok = np.all(band.lower_cdf(band.scores) <= f) and np.all(
            f <= band.upper_cdf(np.nextafter(band.scores, -np.inf))
        )
        covered += bool(ok)
    lo, hi = clopper_pearson(covered, reps)
    assert hi >= confidence
    assert lo >= confidence - 0.02  # conservative, never anti-conservative


# ------------------------------------------------------------ interval shapes
@pytest.mark.parametrize("n", [2, 3, 11, 48])
@pytest.mark.parametrize("alpha", [0.5, 0.1, 1e-6])
def test_highest_density_intervals_against_opda(n, alpha):
    from opda import utils

    lo, hi = order_statistic_intervals(n, alpha, "highest_density")
    i = np.arange(1, n + 1)
    olo, ohi = utils.beta_highest_density_interval(i, n + 1 - i, 1 - alpha)
    np.testing.assert_allclose(lo, olo, atol=1e-9)
    np.testing.assert_allclose(hi, ohi, atol=1e-9)
    cover = stats.beta.cdf(hi, i, n + 1 - i) - stats.beta.cdf(lo, i, n + 1 - i)
    np.testing.assert_allclose(cover, 1 - alpha, rtol=1e-10)


def test_highest_density_intervals_extreme_coverage_large_n():
    n = 5000
    i = np.arange(1, n + 1)
    for alpha in (0.9, 1e-12):
        lo, hi = order_statistic_intervals(n, alpha, "highest_density")
        tails = stats.beta.cdf(lo, i, n + 1 - i) + stats.beta.sf(hi, i, n + 1 - i)
        np.testing.assert_allclose(tails, alpha, rtol=1e-9)
        # Equal density at both ends (log scale) for the unimodal interior laws of the
        # first half (the second half mirrors it; 1 - x loses digits there).
        s = slice(1, n // 2)
        a, b = i[s], n + 1 - i[s]
        hl = (a - 1) * np.log(lo[s]) + (b - 1) * np.log1p(-lo[s])
        hh = (a - 1) * np.log(hi[s]) + (b - 1) * np.log1p(-hi[s])
        np.testing.assert_allclose(hl, hh, rtol=1e-9, atol=1e-7)


# ---------------------------------------------------------------- the band
def _deberta(shared_data, name="deberta-base"):
    path = shared_data / "deberta" / f"{name}.results.jsonl"
    with open(path) as fh:
        rows = [json.loads(line) for line in fh]
    rows.sort(key=lambda r: r["iteration"])
    return np.array([r["learning_curves"]["matched"][-1][1] for r in rows])


@pytest.mark.shared_data
def test_ld_band_against_opda_on_deberta(shared_data):
    # opda estimates the critical value by Monte Carlo (here 10,000 trials, its private
    # helper, to keep the test fast). With 99.9% probability opda's simultaneous level
    # lies within the binomial error of the MC quantile, so its band must lie between
    # our exact bands at those two levels.
    from opda.nonparametric import _ld_band_weights

    n, confidence, trials = 48, 0.8, 10_000
    ys = _deberta(shared_data)[:n]
    o_lo, o_hi = _ld_band_weights(
        n, confidence, "highest_density", np.random.default_rng(0), n_trials=trials, n_jobs=1
    )
    half = 3.3 * np.sqrt(confidence * (1 - confidence) / trials)
    inner_lo, inner_hi, _ = order_statistic_bounds(n, confidence - half, "ld_highest_density")
    outer_lo, outer_hi, _ = order_statistic_bounds(n, confidence + half, "ld_highest_density")
    # opda's arrays are F-bounds on [Y_(j), Y_(j+1)): lower = [0, l_1..l_n], upper = [u_1..u_n, 1].
    assert np.all(o_lo[1:] <= inner_lo + 1e-9) and np.all(o_lo[1:] >= outer_lo - 1e-9)
    assert np.all(o_hi[:-1] >= inner_hi - 1e-9) and np.all(o_hi[:-1] <= outer_hi + 1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        band = cdf_band(ys, confidence, low=0.0, high=1.0)
    assert band.n == n and band.n_ties > 0


@pytest.mark.shared_data
@pytest.mark.parametrize("method", ["ks", "dkw"])
def test_ks_dkw_bands_match_opda_on_deberta(shared_data, method):
    from opda.nonparametric import EmpiricalDistribution

    ys = _deberta(shared_data)[:100]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo, _, hi = EmpiricalDistribution.confidence_bands(ys, 0.9, 0.0, 1.0, method=method)
        band = cdf_band(ys, 0.9, method=method, low=0.0, high=1.0)
    grid = np.concatenate([np.linspace(0.0, 1.0, 301), ys, ys - 1e-9])
    np.testing.assert_allclose(band.lower_cdf(grid), lo.cdf(grid), atol=1e-8)
    np.testing.assert_allclose(band.upper_cdf(grid), hi.cdf(grid), atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40),
    st.sampled_from(["ld_highest_density", "ld_equal_tailed", "ks", "dkw"]),
    st.floats(0.05, 0.99),
)
def test_band_is_ordered_and_quantiles_invert_it(values, method, confidence):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        band = cdf_band(values, confidence, method=method)
    x = np.concatenate([band.scores, band.scores - 1e-6, band.scores + 1e-6])
    lower, upper, ecdf = band.lower_cdf(x), band.upper_cdf(x), band.ecdf(x)
    assert np.all(lower <= ecdf + 1e-12) and np.all(ecdf <= upper + 1e-12)
    q = np.linspace(0.01, 0.99, 25)
    low, high = band.quantile_interval(q)
    point = band.quantile(q)
    assert np.all(low <= point) and np.all(point <= high)
    # Quantile bounds invert the CDF bounds: F_upper(low) >= q where low is finite.
    finite = np.isfinite(low)
    assert np.all(band.upper_cdf(low[finite]) >= q[finite] - 1e-9)
    finite = np.isfinite(high)
    assert np.all(band.lower_cdf(high[finite]) >= q[finite] - 1e-9)


def test_support_bounds_close_the_band():
    band = cdf_band([0.2, 0.4, 0.9], 0.8, low=0.0, high=1.0)
    assert band.upper_cdf(-0.1) == 0.0 and band.lower_cdf(1.0) == 1.0
    low, high = band.quantile_interval([0.0, 1.0])
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))
    assert high[-1] == 1.0


def test_ties_warn_and_state_the_guarantee():
    with pytest.warns(UserWarning, match="at least 0.8"):
        band = cdf_band([1, 1, 2, 3], 0.8)
    assert band.n_ties == 1
    assert "conservative" in band.describe()


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="finite"):
        cdf_band([1.0, np.nan], 0.8)
    with pytest.raises(ValueError, match="confidence"):
        cdf_band([1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="within"):
        cdf_band([1.0, 2.0], 0.8, low=1.5)
    with pytest.raises(ValueError, match="method"):
        cdf_band([1.0, 2.0], 0.8, method="bootstrap")


def test_table_and_plot():
    band = cdf_band(np.linspace(0, 1, 20), 0.9, method="ks", low=0, high=1)
    table = band.table
    assert list(table.columns) == ["i", "score", "ecdf", "lower", "upper"]
    assert len(table) == 20
    ax = band.plot()
    assert ax.get_xlabel() == "score"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=1e-6, max_value=1.0), min_size=1, max_size=30))
def test_a_grid_of_levels_is_sorted_and_deduplicated(levels):
    from benchverdict.stats.cdf_bands import _check_grid

    got = _check_grid(levels + levels[:3])
    assert got == tuple(sorted(set(levels)))
    assert all(type(v) is float for v in got)


@pytest.mark.parametrize("bad", [[], [0.0, 0.5], [0.5, 1.5], [np.nan], [-0.2]])
def test_a_grid_level_outside_0_1_is_refused(bad):
    from benchverdict.stats.cdf_bands import _check_grid

    with pytest.raises(ValueError, match=r"grid levels must lie in \(0, 1\]"):
        _check_grid(bad)


def _plain_probability(monkeypatch):
    """Make every restricted probability computed afresh (the reference for the memo)."""
    from benchverdict.stats import cdf_bands

    monkeypatch.setattr(cdf_bands._RestrictedProbability, "__call__",
                        lambda self, lo, hi: cdf_bands.order_statistics_band_probability(lo, hi))


@pytest.mark.parametrize("n", [12, 48, 300])
@pytest.mark.parametrize("kind", ["highest_density", "equal_tailed"])
@pytest.mark.parametrize("confidence", [0.8, 0.95])
def test_restricted_solves_equal_their_unmemoized_form(n, kind, confidence, monkeypatch):
    # The memo only skips recomputing a constraint set already seen: the solved level and
    # bounds must be the same to the bit (integer budgets as in the report, and a range).
    from benchverdict.stats import cdf_bands

    grid = tuple(np.unique((np.arange(1, 30) / 30.0) ** (1 / 3)).tolist())
    cases = [("ld", (0.0, 1.0), grid), ("ld", (0.2, 0.9), None), ("ks", (0.0, 1.0), grid),
             ("ks", (0.3, 0.7), None)]

    def solve(method, levels, g):
        if method == "ld":
            c, lo, hi = cdf_bands._ld_solve_levels.__wrapped__(n, confidence, kind, levels, g)
            return [c, lo.tolist(), hi.tolist()]
        return cdf_bands._ks_solve_levels.__wrapped__(n, confidence, levels, g)

    memoized = [solve(*case) for case in cases]
    _plain_probability(monkeypatch)
    assert memoized == [solve(*case) for case in cases]


def test_restricted_probability_is_computed_once_per_constraint_set(monkeypatch):
    from benchverdict.stats import cdf_bands

    calls = []
    real = cdf_bands.order_statistics_band_probability
    monkeypatch.setattr(cdf_bands, "order_statistics_band_probability",
                        lambda lo, hi: calls.append(1) or real(lo, hi))
    memo = cdf_bands._RestrictedProbability()
    lo, hi = np.array([0.0, 0.25, 0.5]), np.array([0.5, 0.75, 1.0])
    first = memo(lo, hi)
    assert memo(lo.copy(), hi.copy()) == first and len(calls) == 1
    # Other sets are computed.
    memo(hi * 0.0, hi)
    memo(np.array([0.0, 0.25]), np.array([0.5, 0.5, 0.75, 1.0])[1:3])
    assert len(calls) == 3 and memo.computed == 3
    # On a step-function solve (integer budgets) most evaluations repeat a set.
    counted = []
    original = cdf_bands._RestrictedProbability.__call__

    def counting(self, lo, hi):
        counted.append(1)
        return original(self, lo, hi)

    monkeypatch.setattr(cdf_bands._RestrictedProbability, "__call__", counting)
    calls.clear()
    grid = tuple((np.arange(1, 41) / 40.0).tolist())
    cdf_bands._ld_solve_levels.__wrapped__(400, 0.8, "highest_density", (0.0, 1.0), grid)
    assert len(calls) < len(counted)
