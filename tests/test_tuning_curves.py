"""Tuning-curve bands: exact coverage by simulation, opda 0.8.0, comparisons, guidance."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.tuning import (
    bootstrap_band,
    compare_curves,
    from_results,
    largest_budget,
    sample_size,
    tuning_curve,
)
from benchverdict.verdict import verdicts_from_json, verdicts_to_json


def clopper_pearson(k: int, n: int, level: float = 0.999) -> tuple[float, float]:
    alpha = 1 - level
    lo = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return lo, hi


DISTRIBUTIONS = {
    "normal": stats.norm(),
    "exponential": stats.expon(),
    "arcsine": stats.beta(0.5, 0.5),  # U-shaped, bounded
}


def _critical_levels(curve) -> np.ndarray:
    """CDF levels at which the median band is hardest to satisfy (see restrict_to_levels).

    The band's quantile bounds are step functions of the level; checking the true
    quantile at every step's worst end checks every real budget k >= 1 at once.
    """
    band = curve.cdf
    p_lo, p_hi = band.levels
    cand = np.concatenate(
        [band.lower, np.minimum(band.upper + 1e-9, 1.0), [p_lo], 0.5 ** (1 / curve.k)]
    )
    cand = cand.ravel()
    return np.unique(cand[(cand >= p_lo) & (cand < p_hi)])


def _coverage(curve, dist, reps: int, rng) -> int:
    """How many of ``reps`` fresh samples give a band containing the true median curve.

    The band's quantile bounds depend on the data only through ranks, so the order
    statistics they select are read off once (from ``curve``, built on 1..n) and applied
    to every simulated sample; one sample is rebuilt through the public API as a check.
    """
    n = curve.n
    levels = _critical_levels(curve)
    lo_idx, hi_idx = (np.asarray(v).astype(int) for v in curve.cdf.quantile_interval(levels))
    truth = dist.ppf(levels)
    ys = np.sort(dist.rvs(size=(reps, n), random_state=rng), axis=1)
    ext = np.concatenate([np.full((reps, 1), -np.inf), ys, np.full((reps, 1), np.inf)], axis=1)
    lo, hi = ext[:, lo_idx], ext[:, hi_idx]
    check = tuning_curve(ys[0], band=curve.band, confidence=curve.confidence,
                         calibrate=curve.calibrate)
    np.testing.assert_array_equal(check.cdf.quantile_interval(levels)[0], lo[0])
    np.testing.assert_array_equal(check.cdf.quantile_interval(levels)[1], hi[0])
    return int(np.all((lo <= truth) & (truth <= hi), axis=1).sum())


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("n", [10, 48, 200])
@pytest.mark.parametrize("dist_name", list(DISTRIBUTIONS))
def test_ld_median_band_has_exact_coverage(confidence, n, dist_name):
    # 6,000 replications: the 99.9% Clopper-Pearson interval is about +-0.02 wide at 0.8,
    # narrow enough to reject the whole-CDF (opda-style) band, which covers 0.85-0.9.
    rng = np.random.default_rng([n, int(confidence * 100), len(dist_name)])
    reps = 6000
    curve = tuning_curve(np.arange(1.0, n + 1), band="ld_highest_density", confidence=confidence,
                         low=0, high=n + 1, calibrate="curve")
    hits = _coverage(curve, DISTRIBUTIONS[dist_name], reps, rng)
    lo, hi = clopper_pearson(hits, reps)
    assert lo <= confidence <= hi, (hits / reps, lo, hi)


def _integer_coverage(curve, dist, reps: int, rng) -> int:
    """How many fresh samples give bands containing the true curve at every budget ``curve.k``."""
    levels = 0.5 ** (1.0 / curve.k)
    lo_idx, hi_idx = (np.asarray(v).astype(int) for v in curve.cdf.quantile_interval(levels))
    truth = dist.ppf(levels)
    ys = np.sort(dist.rvs(size=(reps, curve.n), random_state=rng), axis=1)
    ext = np.concatenate([np.full((reps, 1), -np.inf), ys, np.full((reps, 1), np.inf)], axis=1)
    return int(np.all((ext[:, lo_idx] <= truth) & (truth <= ext[:, hi_idx]), axis=1).sum())


@pytest.mark.parametrize("confidence", [0.8, 0.95])
@pytest.mark.parametrize("n", [10, 48, 200])
def test_default_band_covers_exactly_at_the_integer_budgets_it_reports(confidence, n):
    # Issue 11: calibrated on every real k >= 1 the band covers 0.88 at the integer budgets
    # 1..n for a nominal 0.80 (as conservative as opda's whole-CDF band there). The default
    # calibrates on the budgets asked for (1..n) and must cover exactly there: 6,000
    # replications, 99.9% Clopper-Pearson interval about +-0.02 at 0.8.
    rng = np.random.default_rng([n, int(confidence * 100), 7])
    reps = 6000
    curve = tuning_curve(np.arange(1.0, n + 1), confidence=confidence, low=0, high=n + 1)
    assert curve.calibrate == "budgets" and curve.k.tolist() == list(range(1, n + 1))
    hits = _integer_coverage(curve, stats.norm(), reps, rng)
    lo, hi = clopper_pearson(hits, reps)
    # With few budgets the attainable probabilities come in steps: the band takes the
    # first at or above the nominal level and states it.
    achieved = curve.cdf.grid_coverage
    assert confidence <= achieved <= confidence + (0.03 if n == 10 else 0.01)
    assert lo <= achieved <= hi, (hits / reps, lo, hi, achieved)
    # The curve-calibrated band over-covers at the integers when there are many of them.
    if n >= 48 and confidence == 0.8:
        wide = tuning_curve(np.arange(1.0, n + 1), confidence=confidence, low=0, high=n + 1,
                            calibrate="curve")
        hits = _integer_coverage(wide, stats.norm(), reps, np.random.default_rng(n))
        assert clopper_pearson(hits, reps)[0] > confidence


@pytest.mark.parametrize("band", ["ks", "ld_equal_tailed", "ld_highest_density"])
@pytest.mark.parametrize("confidence", [0.8, 0.9, float(np.sqrt(0.95))])
def test_band_calibrated_at_budgets_never_covers_less_than_stated(band, confidence):
    # At integer budgets the band probability is a step function of the band's parameter.
    # The KS solver kept the point nearest the root, which could lie below it: exact
    # coverage 0.664 for a stated 0.8 at n = 2, 0.914 for 0.9747 (the decision level) at
    # n = 2, below the stated level at 19-25 of these 45 sizes. The computed coverage is
    # the library's exact one, checked by simulation in the test below.
    for n in [*range(2, 41), 50, 60, 80, 100, 150]:
        curve = tuning_curve(np.linspace(0.0, 1.0, n), band=band, confidence=confidence,
                             low=-1, high=2)
        assert curve.cdf.grid_coverage >= confidence - 1e-12, (n, curve.cdf.grid_coverage)


def test_ks_band_at_two_draws_covers_its_stated_level_by_simulation():
    # The case that covered 0.664 at 0.8 before: every budget 1..2, 20,000 data sets.
    rng = np.random.default_rng(2)
    curve = tuning_curve(np.array([1.0, 2.0]), band="ks", confidence=0.8, low=0, high=3)
    reps = 20000
    hits = _integer_coverage(curve, stats.norm(), reps, rng)
    lo, hi = clopper_pearson(hits, reps)
    assert lo <= curve.cdf.grid_coverage <= hi
    assert hi >= 0.8


def test_whole_cdf_band_is_conservative_for_the_curve():
    # The same check has the power to see opda's (whole-CDF) calibration over-cover.
    rng = np.random.default_rng(5)
    curve = tuning_curve(np.arange(1.0, 49), confidence=0.8, calibrate="cdf", low=0, high=49)
    hits = _coverage_cdf_calibrated(curve, stats.norm(), 6000, rng)
    lo, _ = clopper_pearson(hits, 6000)
    assert lo > 0.8


def _coverage_cdf_calibrated(curve, dist, reps, rng):
    n = curve.n
    band = curve.cdf
    cand = np.concatenate([band.lower, np.minimum(band.upper + 1e-9, 1.0), [0.5]])
    levels = np.unique(cand[(cand >= 0.5) & (cand < 1.0)])
    lo_idx, hi_idx = (np.asarray(v).astype(int) for v in band.quantile_interval(levels))
    ys = np.sort(dist.rvs(size=(reps, n), random_state=rng), axis=1)
    ext = np.concatenate([np.full((reps, 1), -np.inf), ys, np.full((reps, 1), np.inf)], axis=1)
    truth = dist.ppf(levels)
    return int(np.all((ext[:, lo_idx] <= truth) & (truth <= ext[:, hi_idx]), axis=1).sum())


def test_minimisation_band_covers_exactly():
    rng = np.random.default_rng(11)
    n, confidence, reps = 48, 0.8, 6000
    dist = stats.expon()
    curve = tuning_curve(np.arange(1.0, n + 1), confidence=confidence, objective="minimize",
                         low=0, high=n + 1, calibrate="curve")
    p_lo, p_hi = curve.cdf.levels
    assert (p_lo, p_hi) == (0.0, 0.5)
    band = curve.cdf
    cand = np.concatenate([band.lower, np.minimum(band.upper + 1e-9, 1.0), [0.5]])
    levels = np.unique(cand[(cand > 0.0) & (cand <= 0.5)])
    lo_idx, hi_idx = (np.asarray(v).astype(int) for v in band.quantile_interval(levels))
    ys = np.sort(dist.rvs(size=(reps, n), random_state=rng), axis=1)
    ext = np.concatenate([np.full((reps, 1), -np.inf), ys, np.full((reps, 1), np.inf)], axis=1)
    truth = dist.ppf(levels)
    hits = int(np.all((ext[:, lo_idx] <= truth) & (truth <= ext[:, hi_idx]), axis=1).sum())
    lo, hi = clopper_pearson(hits, reps)
    assert lo <= confidence <= hi


def test_curve_on_budget_grid_covers_at_least_nominal_and_is_ordered():
    rng = np.random.default_rng(2)
    n, reps, hits = 30, 400, 0
    ks = np.arange(1, 31)
    truth = stats.norm.ppf(0.5 ** (1 / ks))
    for _ in range(reps):
        curve = tuning_curve(rng.normal(size=n), ks, confidence=0.8)
        assert np.all(curve.lower <= curve.point) and np.all(curve.point <= curve.upper)
        hits += bool(np.all((curve.lower <= truth) & (truth <= curve.upper)))
    _, hi = clopper_pearson(hits, reps)
    assert hi >= 0.8


def test_dkw_median_band_is_conservative():
    rng = np.random.default_rng(3)
    n, reps, hits = 40, 500, 0
    ks = np.arange(1, 41)
    truth = stats.expon.ppf(0.5 ** (1 / ks))
    for _ in range(reps):
        curve = tuning_curve(rng.exponential(size=n), ks, band="dkw", confidence=0.8)
        hits += bool(np.all((curve.lower <= truth) & (truth <= curve.upper)))
    _, hi = clopper_pearson(hits, reps)
    lo, _ = clopper_pearson(hits, reps)
    assert hi >= 0.8 and lo >= 0.75


def test_mean_band_is_conservative_and_needs_bounds():
    rng = np.random.default_rng(4)
    ks = np.arange(1, 21)
    truth = ks / (ks + 1.0)  # E[max of k Uniform(0, 1)]
    reps, hits = 300, 0
    for _ in range(reps):
        curve = tuning_curve(rng.uniform(size=30), ks, kind="mean", confidence=0.8, low=0, high=1)
        hits += bool(np.all((curve.lower <= truth) & (truth <= curve.upper)))
    lo, _ = clopper_pearson(hits, reps)
    assert lo >= 0.8
    unbounded = tuning_curve(rng.uniform(size=30), ks, kind="mean")
    assert np.all(np.isinf(unbounded.upper)) and np.all(np.isinf(unbounded.lower))
    assert unbounded.notes


def test_bootstrap_band_collapses_at_large_budgets():
    # Tang et al. Fig. 4 / Lourie et al. Fig. 4: pointwise coverage of percentile
    # bootstrap bands falls as k approaches n.
    rng = np.random.default_rng(6)
    n, reps = 30, 300
    ks = np.array([1, 30])
    truth = np.cumsum(1.0 / np.arange(1, n + 1))[ks - 1]  # E[max of k Exp(1)] = H_k
    covered = np.zeros(2)
    for _ in range(reps):
        curve = bootstrap_band(rng.exponential(size=n), ks, estimator="u", confidence=0.8,
                               n_resamples=200, seed=rng)
        covered += (curve.lower <= truth) & (truth <= curve.upper)
    lo1, hi1 = clopper_pearson(int(covered[0]), reps)
    _, hi_n = clopper_pearson(int(covered[1]), reps)
    assert lo1 <= 0.8 <= hi1 + 0.05  # about right at k = 1
    assert hi_n < 0.55  # collapsed at k = n (nominal 0.8)
    assert not curve.simultaneous and curve.band == "bootstrap"


@pytest.mark.parametrize("method", ["ks", "dkw"])
@pytest.mark.parametrize("objective", ["maximize", "minimize"])
def test_whole_cdf_curve_bands_match_opda(method, objective):
    from opda.nonparametric import EmpiricalDistribution

    rng = np.random.default_rng(8)
    y = rng.beta(2, 5, size=60)
    ks = np.arange(1, 100)
    minimize = objective == "minimize"
    lo, _, hi = EmpiricalDistribution.confidence_bands(y, 0.8, 0.0, 1.0, method=method)
    ours = tuning_curve(y, ks, band=method, confidence=0.8, low=0, high=1, objective=objective,
                        calibrate="cdf")
    np.testing.assert_allclose(ours.lower, hi.quantile_tuning_curve(ks, minimize=minimize))
    np.testing.assert_allclose(ours.upper, lo.quantile_tuning_curve(ks, minimize=minimize))
    mean = tuning_curve(y, ks, kind="mean", band=method, confidence=0.8, low=0, high=1,
                        objective=objective)
    np.testing.assert_allclose(mean.lower, hi.average_tuning_curve(ks, minimize=minimize),
                               atol=1e-12)
    np.testing.assert_allclose(mean.upper, lo.average_tuning_curve(ks, minimize=minimize),
                               atol=1e-12)


# --------------------------------------------------------------- comparisons
def test_compare_grades_evidence_and_covers_every_budget():
    rng = np.random.default_rng(0)
    ks = np.arange(1, 11)
    good = tuning_curve(rng.normal(1.0, 0.3, 80), ks, name="good")
    bad = tuning_curve(rng.normal(0.0, 0.3, 80), ks, name="bad")
    result = compare_curves(good, bad, benchmark="toy")
    verdicts = list(result)
    assert all(v.winner == "good" for v in verdicts if v.outcome != "inconclusive")
    assert verdicts[0].evidence.strength == "strong"
    # Scopes tile the budget grid in order, without gaps or overlaps.
    covered = [k for v in verdicts for k in v.details["budgets"]]
    assert covered == list(ks)
    assert verdicts_from_json(verdicts_to_json(verdicts)) == verdicts
    assert {"a", "b", "winner", "strength"} <= set(result.table.columns)
    # Swapping the arguments swaps the winner; identical data give no decision.
    assert all(v.outcome == "b" for v in compare_curves(bad, good) if v.outcome != "inconclusive")
    same = list(compare_curves(good, good.with_name("copy")))
    assert [v.outcome for v in same] == ["inconclusive"]


def test_compare_minimisation_prefers_lower_scores():
    rng = np.random.default_rng(1)
    low = tuning_curve(rng.normal(0.0, 0.2, 60), [1, 2, 3], objective="minimize", name="low")
    high = tuning_curve(rng.normal(2.0, 0.2, 60), [1, 2, 3], objective="minimize", name="high")
    verdicts = list(compare_curves(low, high))
    assert verdicts[0].winner == "low" and verdicts[0].evidence.strength == "strong"
    assert verdicts[0].effect.estimate > 0  # positive favours a = low


def test_strength_rules_on_constructed_bands():
    from benchverdict.tuning.compare import _evidence

    # (point, lower, upper) for a and b; larger is better.
    assert _evidence(5, 4, 6, 2, 1, 3, True) == ("a", "strong")
    assert _evidence(5, 2.5, 6, 2, 1, 3, True) == ("a", "fair")  # overlap, both exclude points
    assert _evidence(5, 2.5, 6, 2, 1, 5.5, True) == ("a", "weak")  # only a excludes b
    assert _evidence(5, 1, 6, 2, 1, 3, True) == ("a", "weak")  # only b's band excludes a's point
    assert _evidence(3, 1, 6, 2, 1, 5, True) == (None, None)
    assert _evidence(5, 4, 6, 2, 1, 3, False) == ("b", "strong")


def test_vectorised_strength_rules_equal_the_scalar_rules():
    # compare_curves applies the rules to every budget at once (issue 25: 9M scalar calls on
    # 10^6 draws); they must give what the scalar rules give, budget by budget, including
    # equal ends, NaN and both objectives.
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from benchverdict.tuning.compare import _evidence, _evidence_arrays

    value = st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.0, float("nan")])
    point = st.tuples(value, value, value, value, value, value)

    @settings(max_examples=200, deadline=None)
    @given(st.lists(point, min_size=1, max_size=30), st.booleans())
    def check(rows, maximize):
        cols = [np.array(c) for c in zip(*rows)]
        winners, strengths = _evidence_arrays(*cols, maximize)
        assert list(zip(winners, strengths)) == [_evidence(*r, maximize) for r in rows]

    check()


def test_per_budget_table_follows_the_rules_and_the_verdicts():
    # The per-budget frame is built on first access (issue 25): each row must still hold
    # the display bands, the decision at alpha and otherwise the display bands' lean, by
    # the scalar rules, and agree with the segment verdicts covering its budget.
    from benchverdict.tuning.compare import _evidence

    rng = np.random.default_rng(3)
    ks = np.arange(1, 16)
    for objective in ("maximize", "minimize"):
        a = tuning_curve(rng.normal(0.6, 0.4, 70), ks, name="a1", objective=objective)
        b = tuning_curve(rng.normal(0.0, 0.4, 70), ks, name="b1", objective=objective)
        result = compare_curves(a, b)
        da, db = (c.at_confidence(float(np.sqrt(1 - result.alpha))) for c in (a, b))
        table = result.per_budget
        assert result.per_budget is table  # built once
        assert table["k"].tolist() == ks.tolist()
        np.testing.assert_array_equal(table["b_upper"], b.upper)
        maximize = objective == "maximize"
        by_k = {k: v for v in result for k in v.details["budgets"]}
        for i, row in enumerate(table.astype(object).where(table.notna(), None)
                                .itertuples(index=False)):
            decided, strength = _evidence(da.point[i], da.lower[i], da.upper[i], db.point[i],
                                          db.lower[i], db.upper[i], maximize)
            name = {"a": "a1", "b": "b1"}
            if strength == "strong":
                assert (row.winner, row.lean, row.strength) == (name[decided], None, None)
                assert by_k[ks[i]].winner == name[decided]
            else:
                side, level = _evidence(a.point[i], a.lower[i], a.upper[i], b.point[i],
                                        b.lower[i], b.upper[i], maximize)
                assert (row.winner, row.lean, row.strength) == (None, name.get(side), level)
                assert by_k[ks[i]].outcome == "inconclusive"
        assert table["winner"].notna().any() or table["lean"].notna().any()


def test_compare_refuses_mismatched_curves():
    y = np.linspace(0, 1, 20)
    with pytest.raises(ValueError, match="bands"):
        compare_curves(tuning_curve(y, band=None), tuning_curve(y))
    with pytest.raises(ValueError, match="grid"):
        compare_curves(tuning_curve(y, [1, 2]), tuning_curve(y, [1, 3]))


# ------------------------------------------------------------------ guidance
def test_largest_budget_matches_closed_form_and_grows():
    from benchverdict.stats import ld_critical_value

    for n in (10, 48, 200):
        c = ld_critical_value(n, 0.8)
        # HD interval of Beta(n, 1) is [(1 - c)^(1/n), 1]: k_max = n log(1/2) / log(1 - c).
        assert largest_budget(n, 0.8, calibrate="cdf") == pytest.approx(
            n * np.log(0.5) / np.log1p(-c), rel=1e-9
        )
    ks = [largest_budget(n) for n in (10, 20, 40, 80)]
    assert np.all(np.diff(ks) > 0)
    assert largest_budget(48) > largest_budget(48, calibrate="cdf")


def test_sample_size_reproduces_the_papers_rule():
    # Lourie et al.: about 6.25 k samples bound the first k budgets at 80% (whole-CDF bands).
    for k in (10, 16, 25):
        n = sample_size(k, 0.8, calibrate="cdf")
        assert largest_budget(n, 0.8, calibrate="cdf") >= k > largest_budget(n - 1, 0.8,
                                                                             calibrate="cdf")
        assert 5.5 <= n / k <= 7.0
    assert sample_size(16) < sample_size(16, calibrate="cdf")


def test_upper_band_is_trivial_exactly_beyond_largest_budget():
    rng = np.random.default_rng(9)
    n = 48
    curve = tuning_curve(rng.uniform(size=n), np.arange(1, 30), low=0, high=1, calibrate="curve")
    k_max = largest_budget(n)
    assert np.all(curve.upper[curve.k <= k_max] < 1.0)
    assert np.all(curve.upper[curve.k > k_max] == 1.0)
    # Bands calibrated on the integer budgets only are at most as wide: the budget
    # largest_budget gives for them is a safe lower bound.
    grid = tuning_curve(rng.uniform(size=n), np.arange(1, 30), low=0, high=1)
    assert grid.calibrate == "budgets"
    assert np.all(grid.upper[grid.k <= largest_budget(n, calibrate="budgets")] < 1.0)


# -------------------------------------------------------------- from_results
def _frame(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for alg, shift in (("A", 0.3), ("B", 0.0)):
        for bench in ("p", "q"):
            for i in range(n):
                rows.append({"alg": alg, "bench": bench, "trial": i,
                             "acc": float(np.clip(rng.normal(0.5 + shift, 0.1), 0, 1))})
    return pd.DataFrame(rows)


def test_from_results_builds_curves_and_verdicts():
    results = Results.from_frame(_frame(), algorithm="alg", seed="trial", score="acc",
                                 objective="maximize", benchmark="bench", kind="trials")
    curves = from_results(results, low=0, high=1)
    assert set(curves.curves) == {("A", "p"), ("A", "q"), ("B", "p"), ("B", "q")}
    table = curves.table
    assert list(table.columns) == ["algorithm", "benchmark", "n", "k", "point", "lower", "upper"]
    verdicts = curves.verdicts()
    # Per benchmark (bands and tests), plus the "better on every benchmark" test (None).
    assert {v.scope.benchmark for v in verdicts} == {"p", "q", None}
    assert {v.method for v in verdicts if v.scope.benchmark is None} == {"tuning.median_test"}
    assert all(v.winner in ("A", None) and v.leans_to in ("A", None) for v in verdicts)
    assert len(curves.guidance()) == 4
    assert curves.excluded.empty


def test_from_results_refuses_hpo_runs():
    frame = _frame().rename(columns={"trial": "seed"})
    frame["budget"] = frame["seed"] + 1
    frame["seed"] = 0
    results = Results.from_frame(frame, algorithm="alg", seed="seed", score="acc",
                                 objective="maximize", benchmark="bench", budget="budget",
                                 kind="runs")
    with pytest.raises(ValueError, match="IID random-search draws"):
        from_results(results)


@pytest.mark.shared_data
def test_deberta_tutorial_strong_evidence(shared_data):
    # Lourie et al. §5 (Figs 2-3): with 48 samples each and 80% bands, DeBERTaV3 beats
    # DeBERTa with strong evidence.
    from benchverdict.io.adapters import read_deberta

    full = read_deberta(shared_data / "deberta")
    frame = full.table
    first = frame[frame["seed"].astype(int) <= 48]
    results = Results.from_frame(first, algorithm="algorithm", seed="seed", score="score",
                                 benchmark="benchmark", objective="maximize", kind="trials")
    with pytest.warns(UserWarning, match="ties"):
        curves = from_results(results, low=0, high=1)
    verdicts = curves.verdicts()
    assert all((v.winner or v.leans_to) == "deberta-v3-base" for v in verdicts)
    # Their 80% bands do not overlap over k = 2-11 (strong, as in the paper); that is a
    # lean, with a 20% error rate per band. A decision (error <= 0.05) needs the 97.5%
    # bands to separate: they do at k = 3-6, and the exact test at k = 7 agrees.
    bands = [v for v in verdicts if v.method == "tuning.median_band"]
    strong = [v for v in bands if v.evidence.strength == "strong"]
    assert min(v.scope.trials_low for v in strong) <= 2
    assert max(v.scope.trials_high for v in strong) >= 8
    decided = [v for v in bands if v.outcome != "inconclusive"]
    assert decided and all(v.evidence.level == 0.95 for v in decided)
    assert all(v.lean is None for v in decided)
    assert all(v.outcome == "inconclusive" for v in bands if v.evidence.level == 0.8)


def test_plots():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    curve = tuning_curve(rng.uniform(size=40), low=0, high=1, name="x")
    assert curve.plot().get_xlabel().startswith("budget")
    ax = curve.plot(cdf=True)
    assert isinstance(ax, plt.Axes) and len(ax.figure.axes) == 2
    other = tuning_curve(rng.uniform(size=40), low=0, high=1, name="y")
    assert compare_curves(curve, other).plot() is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = bootstrap_band(rng.uniform(size=20), [1, 5, 20], seed=0)
    assert boot.plot() is not None
    assert "pointwise" in boot.describe()


def test_compare_mean_and_quantile_curves():
    rng = np.random.default_rng(12)
    a = rng.uniform(0.6, 1.0, 50)
    b = rng.uniform(0.0, 0.4, 50)
    for kind in ("mean", "quantile"):
        kw = {"kind": kind, "low": 0, "high": 1, "q": 0.9}
        verdicts = list(compare_curves(tuning_curve(a, [1, 2], name="a", **kw),
                                tuning_curve(b, [1, 2], name="b", **kw)))
        assert verdicts[0].winner == "a" and verdicts[0].method == f"tuning.{kind}_band"
        assert "best score" in verdicts[0].effect.name


def test_compare_records_tie_counts_for_the_report():
    rng = np.random.default_rng(7)
    tied = np.round(rng.uniform(size=60), 1)  # at most 11 distinct values
    continuous = rng.uniform(size=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the tie warning itself
        a = tuning_curve(tied, [1, 2, 4], name="A", low=0, high=1)
    b = tuning_curve(continuous, [1, 2, 4], name="B", low=0, high=1)
    verdicts = list(compare_curves(a, b))
    expected = 60 - np.unique(tied).size
    assert expected > 0
    assert all(v.details["ties"] == expected for v in verdicts)


def test_at_budget_places_every_test_verdict_at_that_budget_and_no_band_verdict():
    import warnings

    from benchverdict import tuning
    from benchverdict.results import _example_small

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curves = tuning.from_results(_example_small())
        plain = curves.verdicts(budget=3)
        placed = curves.verdicts(budget=3, at_budget=30.0)
    assert len(plain) == len(placed)
    tests = [v for v in placed if v.method == "tuning.median_test"]
    # per benchmark (p, q) and the "better on every benchmark" verdict across them
    assert {v.scope.benchmark for v in tests} == {"p", "q", None}
    assert all((v.scope.budget_low, v.scope.budget_high, v.scope.trials_low)
               == (30.0, 30.0, 3.0) for v in tests)
    assert all(v.scope.budget_low is None for v in placed if v.method != "tuning.median_test")
    assert [v.outcome for v in plain] == [v.outcome for v in placed]


def test_long_tuning_curves_are_drawn_at_about_a_thousand_budgets_inside_a_wider_band():
    # 10^4 draws per cell gave 10,000-budget curves: a 4.8 MB SVG per benchmark (issue 25).
    # Drawn at ~1,000 budgets, joined by straight lines, the drawn band must still contain
    # the band at every budget.
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from benchverdict.tuning.curves import (
        MAX_DRAWN_BUDGETS,
        draw_tuning_curves,
        drawn_budgets,
        widened_band,
    )

    @settings(max_examples=60, deadline=None)
    @given(st.integers(2, 4 * MAX_DRAWN_BUDGETS), st.booleans(), st.integers(0, 2**16))
    def contains(n, log_axis, seed):
        rng = np.random.default_rng(seed)
        k = (np.arange(1.0, n + 1.0) if log_axis
             else np.arange(1000.0, 1000.0 + n))
        lower = np.cumsum(rng.normal(size=n))  # not monotone: the rule must not rely on it
        upper = lower + rng.uniform(0.0, 2.0, n)
        keep = drawn_budgets(k)
        assert keep[0] == 0 and keep[-1] == n - 1 and keep.size <= MAX_DRAWN_BUDGETS + 2
        lo, hi = widened_band(lower, upper, keep)
        assert np.all(np.interp(k, k[keep], lo) <= lower + 1e-9)
        assert np.all(np.interp(k, k[keep], hi) >= upper - 1e-9)

    contains()
    rng = np.random.default_rng(0)
    curve = tuning_curve(rng.normal(size=4000), band="ld_highest_density")
    ax = draw_tuning_curves({"A": curve})
    assert curve.k.size == 4000 and len(ax.get_lines()[0].get_xdata()) <= MAX_DRAWN_BUDGETS + 2


def test_tie_count_of_sorted_and_unsorted_scores_equals_the_distinct_count():
    # _n_ties counts repeats along the sorted scores a curve keeps (issue 25: a sort per pair
    # on 10^6 draws); it must equal n - #distinct, also for -0.0 and for unsorted scores.
    import dataclasses

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from benchverdict.tuning.compare import _n_ties

    base = tuning_curve(np.arange(5.0), [1, 2])

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0, 2.0, 1e300]), min_size=1,
                    max_size=30), st.booleans())
    def check(values, keep_order):
        y = np.array(values) if keep_order else np.sort(values)
        for n in (y.size, y.size + 3):  # n is the curve's count, as the plain form reads it
            curve = dataclasses.replace(base, scores=y, n=n)
            assert _n_ties(curve) == n - np.unique(y).size

    check()
