"""Performance profiles and probability of improvement (rliable): closed forms, rliable itself,
and the coverage of their bootstrap intervals by seeded simulation."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.dse.profiles import improvement_probabilities, performance_profile

#: ``nox -s simulations`` multiplies the replications (BENCHVERDICT_SIM_SCALE).
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))


def _results(draws: dict[str, np.ndarray], objective: str = "maximize") -> Results:
    """``draws[alg]`` is runs x benchmarks."""
    rows = [{"alg": alg, "task": f"t{t}", "seed": i, "score": float(m[i, t])}
            for alg, m in draws.items() for i in range(m.shape[0]) for t in range(m.shape[1])]
    return Results.from_frame(pd.DataFrame(rows), algorithm="alg", benchmark="task", seed="seed",
                              score="score", objective=objective, kind="trials")


def test_profile_of_known_samples_is_the_share_above_tau_per_benchmark_averaged():
    # benchmark t0: runs 1, 2, 3, 4; t1: runs 10, 20, 30, 40 (no normalisation)
    a = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0], [4.0, 40.0]])
    prof = performance_profile(_results({"A": a, "B": a + 0.5}), normalize=None,
                               taus=[0.0, 2.0, 3.5, 25.0], n_resamples=50)
    got = prof.table[prof.table["algorithm"] == "A"]["fraction"].tolist()
    # tau 2: t0 {3, 4} -> 1/2, t1 all -> 1; tau 3.5: 1/4 and 1; tau 25: 0 and 1/2
    assert got == pytest.approx([1.0, 0.75, 0.625, 0.25])
    assert ((prof.table["lower"] <= prof.table["fraction"] + 1e-12)
            & (prof.table["fraction"] <= prof.table["upper"] + 1e-12)).all()
    # a minimised score counts the runs below tau, in the score's units
    low = performance_profile(_results({"A": a, "B": a + 0.5}, "minimize"), normalize=None,
                              taus=[2.0, 25.0], n_resamples=50)
    assert low.table[low.table["algorithm"] == "A"]["fraction"].tolist() == pytest.approx(
        [0.125, 0.75])


def test_probability_of_improvement_is_mann_whitney_u_over_nm_averaged_over_benchmarks():
    rng = np.random.default_rng(3)
    x = rng.normal(0.3, 1, size=(7, 4)).round(1)  # rounded: ties count half
    y = rng.normal(0.0, 1, size=(9, 4)).round(1)
    rows = []
    for alg, m in (("X", x), ("Y", y)):
        rows += [{"alg": alg, "task": f"t{t}", "seed": i, "score": m[i, t]}
                 for i in range(m.shape[0]) for t in range(4)]
    res = Results.from_frame(pd.DataFrame(rows), algorithm="alg", benchmark="task", seed="seed",
                             score="score", objective="maximize", kind="trials")
    imp = improvement_probabilities(res, n_resamples=200)
    want = np.mean([stats.mannwhitneyu(x[:, t], y[:, t]).statistic / (7 * 9) for t in range(4)])
    assert imp.table["probability"].iloc[0] == pytest.approx(want, abs=1e-12)
    flipped = improvement_probabilities(res, pairs=[("Y", "X")], n_resamples=200)
    assert flipped.table["probability"].iloc[0] == pytest.approx(1 - want, abs=1e-12)
    with pytest.raises(ValueError, match=r"\['Z'\]"):
        improvement_probabilities(res, pairs=[("X", "Z")])


def test_point_estimates_match_rliable_if_installed():
    metrics = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(0)
    draws = {"A": rng.beta(2, 3, size=(10, 6)), "B": rng.beta(3, 2, size=(10, 6))}
    res = _results(draws)
    taus = np.linspace(0.05, 0.95, 10)
    ours = performance_profile(res, normalize=None, taus=taus, n_resamples=100)
    for alg, scores in draws.items():
        # rliable.library.run_score_deviation (its module needs arch, whose current release
        # it cannot import): np.mean(scores > tau) over the runs x tasks matrix
        want = [np.mean(scores > tau) for tau in taus]
        got = ours.table[ours.table["algorithm"] == alg]["fraction"]
        np.testing.assert_allclose(got, want, atol=1e-12)
    imp = improvement_probabilities(res, n_resamples=100)
    want = metrics.probability_of_improvement(draws["A"], draws["B"])
    assert imp.table["probability"].iloc[0] == pytest.approx(want, abs=1e-12)


def test_vectorised_bootstrap_intervals_equal_a_per_replicate_loop():
    """rliable's StratifiedBootstrap written as a loop (resample runs within each task)."""
    rng = np.random.default_rng(5)
    draws = {"A": rng.beta(2, 3, size=(8, 5)), "B": rng.beta(3, 2, size=(8, 5))}
    res = _results(draws)
    taus = np.array([0.2, 0.5, 0.8])
    reps = 3000
    loop = np.empty((reps, taus.size))
    p_loop = np.empty(reps)
    for r in range(reps):
        idx = rng.integers(0, 8, size=(8, 5))
        a = np.take_along_axis(draws["A"], idx, axis=0)
        b = np.take_along_axis(draws["B"], rng.integers(0, 8, size=(8, 5)), axis=0)
        loop[r] = [np.mean(a > tau) for tau in taus]
        p_loop[r] = np.mean([((a[:, t, None] > b[None, :, t])
                              + 0.5 * (a[:, t, None] == b[None, :, t])).mean()
                             for t in range(5)])
    prof = performance_profile(res, normalize=None, taus=taus, n_resamples=reps, seed=2)
    t = prof.table[prof.table["algorithm"] == "A"]
    # the same bootstrap with other random numbers: Monte Carlo error of a 2.5% quantile
    np.testing.assert_allclose(t["lower"], np.percentile(loop, 2.5, axis=0), atol=0.03)
    np.testing.assert_allclose(t["upper"], np.percentile(loop, 97.5, axis=0), atol=0.03)
    imp = improvement_probabilities(res, n_resamples=reps, seed=2)
    assert imp.table[["lower", "upper"]].iloc[0].to_numpy() == pytest.approx(
        np.percentile(p_loop, [2.5, 97.5]), abs=0.02)


def _coverage(n_sets: int, band: str) -> tuple[float, float]:
    """Share of seeded data sets whose band holds the true profile (everywhere / at tau = 0.5),
    and whose P(X > Y) interval holds the true probability."""
    rng = np.random.default_rng(20261127)
    shifts = np.array([0.0, 0.2, -0.3, 0.5])  # benchmark t: runs ~ N(shift_t, 1)
    taus = np.linspace(-1.5, 2.0, 15)
    truth = np.mean([stats.norm.sf(taus - s) for s in shifts], axis=0)
    truth_p = stats.norm.cdf(0.4 / np.sqrt(2))  # X ~ N(s + 0.4, 1) against Y ~ N(s, 1)
    whole = prob = 0
    for _ in range(n_sets):
        draws = {"X": rng.normal(shifts + 0.4, 1, size=(12, 4)),
                 "Y": rng.normal(shifts, 1, size=(12, 4))}
        res = _results(draws)
        prof = performance_profile(res, normalize=None, taus=taus, band=band,
                                   n_resamples=300, confidence=0.9,
                                   seed=int(rng.integers(2**31)))
        t = prof.table[prof.table["algorithm"] == "Y"]
        whole += bool(((t["lower"] <= truth + 1e-12) & (truth <= t["upper"] + 1e-12)).all())
        imp = improvement_probabilities(res, n_resamples=300, confidence=0.9,
                                        seed=int(rng.integers(2**31)))
        lo, hi = imp.table[["lower", "upper"]].iloc[0]
        prob += bool(lo <= truth_p <= hi)
    return whole / n_sets, prob / n_sets


def test_simultaneous_band_covers_the_whole_true_profile_at_its_level():
    n = int(120 * SCALE)
    whole, prob = _coverage(n, "simultaneous")
    # 90% nominal; 3 binomial SEs, and 5 points for the percentile bootstrap's small-sample
    # (48 runs) shortfall, which rliable's intervals share
    slack = 3 * np.sqrt(0.9 * 0.1 / n) + 0.05
    assert whole >= 0.9 - slack, whole
    assert prob >= 0.9 - slack, prob


def test_pointwise_band_does_not_hold_everywhere_which_is_why_the_simultaneous_exists():
    whole, _ = _coverage(int(40 * SCALE), "pointwise")
    simultaneous, _ = _coverage(int(40 * SCALE), "simultaneous")
    assert whole < simultaneous


def test_every_algorithm_must_run_everywhere_and_options_are_checked():
    a = np.arange(8.0).reshape(4, 2)
    res = _results({"A": a, "B": a + 1})
    sub = Results.from_frame(res.table[~((res.table["algorithm"] == "B")
                                         & (res.table["benchmark"] == "t1"))],
                             algorithm="algorithm", benchmark="benchmark", seed="seed",
                             score="score", objective="maximize", kind="trials")
    with pytest.raises(ValueError, match=r"'B' has no runs on benchmark\(s\) \['t1'\]"):
        performance_profile(sub)
    with pytest.raises(ValueError, match="band"):
        performance_profile(res, band="uniform")
    with pytest.raises(ValueError, match="confidence"):
        improvement_probabilities(res, confidence=95)


def test_profiles_on_real_dse_draws(shared_data):
    from benchverdict.io import adapters

    res = adapters.read_deberta(shared_data / "deberta")
    prof = performance_profile(res, n_resamples=200, n_taus=21, band="simultaneous")
    assert prof.table["fraction"].between(0, 1).all()
    for _, t in prof.table.groupby("algorithm"):
        assert np.all(np.diff(t["fraction"].to_numpy()) <= 1e-12)  # non-increasing in tau
        assert (t["lower"] <= t["fraction"]).all() and (t["fraction"] <= t["upper"]).all()
    imp = improvement_probabilities(res, n_resamples=200)
    (a, b), = imp.table[["a", "b"]].to_numpy()
    draws = {alg: res.table.loc[res.table["algorithm"] == alg, "score"].to_numpy()
             for alg in (a, b)}
    u = stats.mannwhitneyu(res.sign * draws[a], res.sign * draws[b]).statistic
    assert imp.table["probability"].iloc[0] == pytest.approx(
        u / (draws[a].size * draws[b].size), abs=1e-12)
    # 1,024 draws each: the interval is narrow
    assert imp.table["upper"].iloc[0] - imp.table["lower"].iloc[0] < 0.1
    assert prof.plot().get_legend() is not None
