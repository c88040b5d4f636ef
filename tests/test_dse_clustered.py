"""DSE on clustered draws (issue #20): runs are the unit when a run holds several draws.

Seeded simulations of each guarantee, with tolerances from binomial error
(``rate <= alpha + 3 * sqrt(alpha (1 - alpha) / reps)``, coverage ``>=
nominal - 3 SE``), and reference checks against scipy and the IID forms.
The null model: per algorithm 10 runs x 20 draws, a run offset N(0, 1)
shared by the draws of a run, draw noise N(0, 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results, dse
from benchverdict.dse.clusters import (
    cluster_bootstrap,
    grouped_statistic,
    run_matrix,
    run_order,
    runs_needed,
    weighted_statistic,
)
from benchverdict.dse.compare import (
    _runs,
    _single_draw_rows,
    cvar_difference,
    cvar_permutation_test,
    dominance_test,
    single_draw_probability,
    single_draw_test,
)
from benchverdict.dse.intervals import bootstrap_interval, bootstrap_statistic
from benchverdict.dse.statistics import statistic

ALPHA = 0.05
RUNS, DRAWS = 10, 20
LABELS = np.repeat(np.arange(RUNS), DRAWS)


def _clustered(rng, shift: float = 0.0, runs: int = RUNS, draws: int = DRAWS) -> np.ndarray:
    """Draws of ``runs`` runs sharing a N(0, 1) run offset, plus N(0, 1) noise each."""
    return np.repeat(rng.normal(0, 1, runs), draws) + rng.normal(0, 1, runs * draws) + shift


def _level_bound(alpha: float, reps: int) -> float:
    return alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)


def _coverage_bound(level: float, reps: int) -> float:
    return level - 3 * np.sqrt(level * (1 - level) / reps)


# ----------------------------------------------------------------------------- (i), (ii) level
def test_clustered_null_holds_the_level_and_pooled_draws_do_not():
    # (i) Under the clustered null the run permutation tests keep their level; the same
    # tests with every draw taken as independent declare winners about half the time,
    # so this simulation detects the failure it guards against.
    rng = np.random.default_rng(20)
    reps = 150
    wins = {"dominance runs": 0, "cvar runs": 0, "dominance draws": 0, "cvar draws": 0}
    for r in range(reps):
        a, b = _clustered(rng), _clustered(rng)
        wins["dominance runs"] += dominance_test(
            a, b, clusters=(LABELS, LABELS), n_permutations=199, seed=r).outcome != "none"
        wins["cvar runs"] += cvar_permutation_test(
            a, b, 0.5, clusters=(LABELS, LABELS), n_resamples=199, seed=r).p_value <= ALPHA
        wins["dominance draws"] += dominance_test(a, b).outcome != "none"
        wins["cvar draws"] += cvar_permutation_test(a, b, 0.5, n_resamples=199,
                                                    seed=r).p_value <= ALPHA
    rates = {k: v / reps for k, v in wins.items()}
    print("false-winner rates, clustered null:", rates)
    bound = _level_bound(ALPHA, reps)
    assert rates["dominance runs"] <= bound and rates["cvar runs"] <= bound, rates
    assert rates["dominance draws"] > bound and rates["cvar draws"] > bound, rates


def test_iid_null_holds_the_level_with_singleton_runs():
    # (ii) One draw per run: scipy's KS (the unchanged IID path) and the run permutation
    # forced on singleton runs both keep the level.
    rng = np.random.default_rng(21)
    reps, n = 150, 60
    singles = np.arange(n)
    scipy_wins = perm_wins = cvar_wins = 0
    for r in range(reps):
        a, b = rng.normal(size=n), rng.normal(size=n)
        scipy_wins += dominance_test(a, b).outcome != "none"
        perm_wins += dominance_test(a, b, method="permutation", n_permutations=199,
                                    seed=r).outcome != "none"
        cvar_wins += cvar_permutation_test(a, b, 0.5, clusters=(singles, singles),
                                           n_resamples=199, seed=r).p_value <= ALPHA
    bound = _level_bound(ALPHA, reps)
    assert max(scipy_wins, perm_wins, cvar_wins) / reps <= bound, (scipy_wins, perm_wins,
                                                                    cvar_wins)


def test_single_draw_test_holds_its_level_and_covers_under_the_clustered_null():
    # (v) The cluster permutation test of P(A beats B) = 1/2, and its interval covering 1/2.
    rng = np.random.default_rng(22)
    reps = 200
    rejections, covered = 0, 0
    for r in range(reps):
        t = single_draw_test(_clustered(rng), _clustered(rng), clusters=(LABELS, LABELS),
                             n_resamples=199, seed=r)
        rejections += t.p_value <= ALPHA
        covered += t.lower <= 0.5 <= t.upper
    print("single-draw test, clustered null: rejection rate", rejections / reps,
          "coverage", covered / reps)
    assert rejections / reps <= _level_bound(ALPHA, reps)
    assert covered / reps >= _coverage_bound(0.95, reps)


def test_single_draw_interval_covers_a_planted_probability():
    # A vs B differ by a shift d: A - B ~ N(d, 4) (two run offsets, two noises), so
    # P(a single draw of A beats one of B) = Phi(d / 2).
    rng = np.random.default_rng(23)
    reps, shift = 200, 0.5
    truth = stats.norm.cdf(shift / 2)
    covered = 0
    for r in range(reps):
        t = single_draw_test(_clustered(rng, shift), _clustered(rng), clusters=(LABELS, LABELS),
                             confidence=0.9, n_resamples=19, seed=r)
        covered += t.lower <= truth <= t.upper
    print("single-draw interval coverage at 0.9:", covered / reps)
    assert covered / reps >= _coverage_bound(0.9, reps)


# ----------------------------------------------------------------------------- (iii) power
def test_run_permutation_tests_detect_a_planted_shift():
    rng = np.random.default_rng(24)
    reps = 40
    dom = cv = single = 0
    for r in range(reps):
        a, b = _clustered(rng, shift=2.0), _clustered(rng)
        dom += dominance_test(a, b, clusters=(LABELS, LABELS), n_permutations=199,
                              seed=r).outcome == "a"
        t = cvar_permutation_test(a, b, 0.5, clusters=(LABELS, LABELS), n_resamples=199, seed=r)
        cv += t.p_value <= ALPHA and t.direction == "a"
        single += single_draw_test(a, b, clusters=(LABELS, LABELS), n_resamples=199,
                                   seed=r).p_value <= ALPHA
    print("power at shift 2:", dom / reps, cv / reps, single / reps)
    # Run means differ by 2 / sqrt(2 * 1.05 / 10) = 4.4 standard errors: power near 1.
    assert min(dom, cv, single) / reps >= 0.8


# ----------------------------------------------------------------------------- (iv) coverage
def _true_cvar(dist: str, level: float) -> float:
    if dist == "exponential":
        return 1.0 - np.log(1.0 - level)
    z = stats.norm.ppf(level)  # lognormal(0, 1): E[Z | Z > q] = e^{1/2} Phi(1 - z) / (1 - l)
    return float(np.exp(0.5) * stats.norm.cdf(1.0 - z) / (1.0 - level))


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["exponential", "lognormal"])
@pytest.mark.parametrize(("level", "n"), [(0.5, 100), (0.95, 200)])
def test_cvar_bootstrap_interval_covers_on_skewed_scores(dist, level, n):
    # Skewed draws, CVaR_0.5 (n = 100) and CVaR_0.95 (n = 200: 10 tail draws, the fewest
    # an interval is given for), at 80% and 95%.
    rng = np.random.default_rng(25 + int(100 * level) + (dist == "lognormal"))
    truth = _true_cvar(dist, level)
    stat = statistic("cvar", cvar_level=level)
    reps = 200
    hits = {0.8: 0, 0.95: 0}
    for r in range(reps):
        x = rng.exponential(size=n) if dist == "exponential" else rng.lognormal(size=n)
        for conf in hits:
            hits[conf] += bootstrap_interval(x, stat, confidence=conf, n_resamples=400,
                                             seed=r).contains(truth)
    print(f"CVaR_{level} bootstrap coverage, {dist}:", {c: h / reps for c, h in hits.items()})
    for conf, h in hits.items():
        assert h / reps >= _coverage_bound(conf, reps), (conf, h / reps)


def test_cvar_intervals_with_too_few_tail_draws_are_refused_with_the_reason():
    # CVaR_0.95 of 100 draws has 5 tail draws: the studentized interval covered 0.72 at a
    # nominal 0.8 on lognormal scores (issue 20), so none is given.
    x = np.random.default_rng(35).lognormal(size=100)
    iv = bootstrap_interval(x, statistic("cvar", cvar_level=0.95), confidence=0.8)
    assert (iv.lower, iv.upper) == (-np.inf, np.inf) and iv.estimate == pytest.approx(
        dse.cvar(x, 0.95))
    assert iv.method == "bootstrap:refused (5 draws in the CVaR tail, fewer than 10)"
    diff = cvar_difference(x, x[::-1] + 1, 0.95, clusters=(LABELS[:100], LABELS[:100]))
    assert diff.method.startswith("bootstrap:refused") and diff.estimate == pytest.approx(-1)
    assert bootstrap_interval(x, statistic("cvar", cvar_level=0.9)).method == (
        "bootstrap:studentized")


def test_cluster_bootstrap_covers_and_the_iid_bootstrap_does_not():
    # Clustered draws: the marginal law is N(0, 2), CVaR_0.5 = sqrt(2) phi(0) / 0.5.
    rng = np.random.default_rng(26)
    truth = np.sqrt(2) * stats.norm.pdf(0) / 0.5
    stat = statistic("cvar", cvar_level=0.5)
    reps = 150
    runs_hit = draws_hit = 0
    for r in range(reps):
        x = _clustered(rng)
        runs_hit += bootstrap_interval(x, stat, confidence=0.8, n_resamples=300, seed=r,
                                       clusters=LABELS).contains(truth)
        draws_hit += bootstrap_interval(x, stat, confidence=0.8, n_resamples=300,
                                        seed=r).contains(truth)
    print("coverage at 0.8, runs resampled / draws resampled:", runs_hit / reps,
          draws_hit / reps)
    assert runs_hit / reps >= _coverage_bound(0.8, reps)
    assert draws_hit / reps < _coverage_bound(0.8, reps)


# ----------------------------------------------------------------------------- (vi) references
def test_permutation_dominance_with_singleton_runs_approaches_scipy():
    rng = np.random.default_rng(27)
    a, b = rng.normal(0.35, 1, 40), rng.normal(0, 1, 35)
    exact = dominance_test(a, b, method="exact")
    # All 4000 splits (no early stop): the Monte Carlo p-values' error is binomial.
    perm = dominance_test(a, b, method="permutation", n_permutations=4000, stop_after=None,
                          seed=1)
    for p_exact, p_perm in ((exact.p_a_better, perm.p_a_better),
                            (exact.p_b_better, perm.p_b_better)):
        tol = 4 * np.sqrt(p_exact * (1 - p_exact) / 4000) + 1 / 4001
        assert abs(p_perm - p_exact) <= tol, (p_exact, p_perm)
    assert perm.d_a_better == pytest.approx(exact.d_a_better)
    assert perm.d_b_better == pytest.approx(exact.d_b_better)


@pytest.mark.parametrize("stat", [statistic("cvar", cvar_level=0.9),
                                  statistic("cvar", cvar_level=0.3, tail="lower"),
                                  statistic("mean"), statistic("threshold_area", threshold=1.0),
                                  statistic("exceedance", threshold=1.0)],
                         ids=lambda s: s.name)
def test_cluster_bootstrap_with_singleton_runs_equals_the_plain_bootstrap(stat):
    x = np.random.default_rng(28).exponential(size=120)  # 12 draws in a CVaR_0.9 tail
    plain = bootstrap_interval(x, stat, n_resamples=300, seed=3)
    runs = bootstrap_interval(x, stat, n_resamples=300, seed=3, clusters=np.arange(120)[::-1])
    assert runs.method == "bootstrap:cluster-studentized"
    assert (runs.lower, runs.upper) == pytest.approx((plain.lower, plain.upper), rel=1e-9)
    values, ses = bootstrap_statistic(x, stat, 300, np.random.default_rng(3), se=True)
    got, got_se = cluster_bootstrap(x, np.arange(120), stat, 300, np.random.default_rng(3),
                                    se=True)
    assert got == pytest.approx(values, rel=1e-9) and got_se == pytest.approx(ses, rel=1e-9)


def test_weighted_and_grouped_forms_match_the_plain_statistics():
    z = np.sort(np.random.default_rng(29).lognormal(size=60))
    for stat in (statistic("cvar", cvar_level=0.8), statistic("cvar", cvar_level=0.2,
                                                              tail="lower"),
                 statistic("mean"), statistic("exceedance", threshold=1.0)):
        est, se = weighted_statistic(stat, z, np.arange(60), np.ones((1, 60)))
        assert est[0] == pytest.approx(stat.of_sample(z), rel=1e-12)
        assert se[0] == pytest.approx(stat.se_rows(z[None])[0], rel=1e-12)
        g_est, g_se = grouped_statistic(stat, z.reshape(1, 60, 1))
        assert (g_est[0], g_se[0]) == pytest.approx((est[0], se[0]), rel=1e-12)
    # Runs of three: the weighted (pooled order) and grouped (run rows) forms agree.
    codes = np.random.default_rng(1).permutation(np.repeat(np.arange(20), 3))
    zs, cs, _ = run_order(z, codes)
    k = np.random.default_rng(2).integers(0, 3, size=(5, 20)).astype(float)
    k[:, 0] += 1  # every row keeps at least one run
    stat = statistic("cvar", cvar_level=0.5)
    est, se = weighted_statistic(stat, zs, cs, k)
    table = run_matrix(zs, cs, 3)
    for row in range(5):
        picked = np.repeat(np.arange(20), k[row].astype(int))
        g_est, g_se = grouped_statistic(stat, table[picked][None])
        assert (g_est[0], g_se[0]) == pytest.approx((est[row], se[row]), rel=1e-9)


def test_cluster_robust_se_is_the_run_means_se_for_the_mean():
    # Runs of equal size: the CR1 standard error of the mean is sd(run means) / sqrt(m).
    x = _clustered(np.random.default_rng(30))
    zs, cs, _ = run_order(x, LABELS)
    _, se = weighted_statistic(statistic("mean"), zs, cs, np.ones((1, RUNS)))
    means = x.reshape(RUNS, DRAWS).mean(axis=1)
    assert se[0] == pytest.approx(means.std(ddof=1) / np.sqrt(RUNS), rel=1e-12)


def test_single_draw_se_with_singleton_runs_is_brunner_munzel():
    rng = np.random.default_rng(31)
    a, b = rng.normal(0.3, 1, 50), np.round(rng.normal(0, 1.5, 70), 1)  # ties in b
    t = single_draw_test(a, b, n_resamples=99)
    assert t.estimate == pytest.approx(single_draw_probability(a, b))
    bm = stats.brunnermunzel(a, b)
    # scipy's statistic is (P(B > A) - 1/2) / se: the negative of ours.
    assert -bm.statistic == pytest.approx((t.estimate - 0.5) / t.se, rel=1e-9)


def test_single_draw_run_products_equal_the_draw_placements():
    rng = np.random.default_rng(32)
    a, b = np.round(_clustered(rng, 0.3), 1), np.round(_clustered(rng), 1)
    runs = _runs(a, b, (LABELS, LABELS), None)
    members = np.stack([rng.permutation(np.repeat([True, False], RUNS)) for _ in range(6)])
    theta_1, se_1 = _single_draw_rows(runs, by_run=True)(members)
    theta_2, se_2 = _single_draw_rows(runs, by_run=False)(members)
    assert theta_1 == pytest.approx(theta_2, rel=1e-12) and se_1 == pytest.approx(se_2,
                                                                                  rel=1e-12)


# ----------------------------------------------------------------------------- few runs
def test_few_runs_give_exact_p_values_and_say_they_cannot_decide():
    rng = np.random.default_rng(33)
    lab = np.repeat([0, 1], 20)
    a, b = _clustered(rng, 5.0, runs=2), _clustered(rng, runs=2)
    t = dominance_test(a, b, clusters=(lab, lab))
    # 2 + 2 runs: C(4, 2) = 6 splits, all enumerated; the observed one is the most extreme.
    assert (t.n_permutations, t.min_p, t.p_a_better) == (6, pytest.approx(1 / 6),
                                                        pytest.approx(1 / 6))
    assert t.outcome == "none"
    c = cvar_permutation_test(a, b, 0.5, clusters=(lab, lab))
    assert c.exact and c.min_p == pytest.approx(1 / 3) and c.p_value == pytest.approx(1 / 3)
    assert runs_needed(ALPHA / 2, False) == 4 and runs_needed(ALPHA, True) == 4


def test_swapping_the_samples_mirrors_every_clustered_result():
    rng = np.random.default_rng(34)
    a, b = _clustered(rng, 0.4), _clustered(rng)
    lab_b = np.repeat(np.arange(RUNS), DRAWS)[::-1]
    d_ab = dominance_test(a, b, clusters=(LABELS, lab_b), n_permutations=99)
    d_ba = dominance_test(b, a, clusters=(lab_b, LABELS), n_permutations=99)
    assert (d_ab.p_a_better, d_ab.p_b_better) == (d_ba.p_b_better, d_ba.p_a_better)
    c_ab = cvar_permutation_test(a, b, 0.5, clusters=(LABELS, lab_b), n_resamples=99)
    c_ba = cvar_permutation_test(b, a, 0.5, clusters=(lab_b, LABELS), n_resamples=99)
    assert c_ab.p_value == c_ba.p_value and c_ab.estimate == -c_ba.estimate
    s_ab = single_draw_test(a, b, clusters=(LABELS, lab_b), n_resamples=99)
    s_ba = single_draw_test(b, a, clusters=(lab_b, LABELS), n_resamples=99)
    assert s_ab.p_value == s_ba.p_value
    assert (s_ab.lower, s_ab.upper) == pytest.approx((1 - s_ba.upper, 1 - s_ba.lower))
    i_ab = cvar_difference(a, b, 0.5, clusters=(LABELS, lab_b), n_resamples=200)
    i_ba = cvar_difference(b, a, 0.5, clusters=(lab_b, LABELS), n_resamples=200)
    assert (i_ab.lower, i_ab.upper) == (-i_ba.upper, -i_ba.lower)
    assert i_ab.method == "bootstrap:cluster-studentized"


def test_bad_cluster_labels_are_refused_with_the_fix():
    a = np.zeros(4)
    with pytest.raises(ValueError, match=r"one run \(cluster\) label per draw"):
        dominance_test(a, a, clusters=([0, 0, 1], [0, 0, 1, 1]))
    with pytest.raises(ValueError, match="use interval='bootstrap'"):
        cvar_difference(np.arange(4.0), np.arange(4.0), 0.5, interval="band", low=0, high=4,
                        clusters=([0, 0, 1, 1], [0, 0, 1, 1]))
    with pytest.raises(ValueError, match="within one stratum"):
        dominance_test(np.arange(4.0), np.arange(4.0) + 1, clusters=([0, 0, 1, 1], [0, 0, 1, 1]),
                       strata=(["p", "q", "p", "p"], ["p", "p", "q", "q"]))


# ----------------------------------------------------------------------------- distribution()
def _trials(runs: int, draws: int, shift: float = 0.0, seed: int = 0) -> Results:
    rng = np.random.default_rng(seed)
    rows = []
    for task in ("p", "q"):
        for alg, s in (("A", shift), ("B", 0.0)):
            for run in range(runs):
                offset = rng.normal()
                rows += [(alg, task, run, trial + 1, offset + rng.normal() + s)
                         for trial in range(draws)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "trial", "acc"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              budget="trial", score="acc", objective="maximize", kind="trials")


def test_distribution_takes_the_run_as_unit_and_says_so():
    d = dse.distribution(_trials(8, 10, shift=1.5), n_resamples=200, n_permutations=199)
    verdicts = d.verdicts()
    for v in verdicts:
        assert v.unit == "random-search run (10 draws each; 8 + 8 runs)"
        assert v.n == 16 and v.details["unit"] == "run (10 draws each; 8 + 8 runs)"
        assert "whole runs permuted" in v.explanation
    dom = [v for v in verdicts if v.method == "dse.dominance"]
    for v in dom:
        assert 0 <= v.single_draw.p_value <= 1
        lo, hi = v.single_draw.lower, v.single_draw.upper
        assert lo <= v.single_draw.probability <= hi
        assert "run permutation" in v.details["test"]
    cv = [v for v in verdicts if v.method == "dse.cvar"]
    assert all(v.details["interval"] == "bootstrap:cluster-studentized" for v in cv)
    pooled = dse.distribution(_trials(8, 10, shift=1.5), pooled=True, normalize="minmax",
                              n_resamples=200, n_permutations=199)
    v = pooled.verdicts()[0]
    assert v.unit == "random-search run (10 draws each; 16 + 16 runs)"
    assert "within strata" in v.details["test"]


def test_distribution_with_one_draw_per_run_is_unchanged():
    res = _trials(40, 1, shift=0.5, seed=3)
    d = dse.distribution(res, n_resamples=200, n_permutations=199)
    for v in d.verdicts():
        assert v.unit == "random-search draw (trial)" and v.details["unit"] == "draw"
        if v.method == "dse.dominance":
            t = dominance_test(d.draws[v.scope.benchmark, "A"], d.draws[v.scope.benchmark, "B"])
            assert v.p_one_sided[0] == t.p_a_better
    assert dse.distribution(res, low=-10, high=10, n_resamples=100).interval == "band"


def test_distribution_refuses_band_intervals_for_runs_of_several_draws():
    with pytest.raises(ValueError, match="band intervals assume independent draws"):
        dse.distribution(_trials(4, 5), interval="band", low=-10, high=10)
    assert dse.distribution(_trials(4, 5), low=-10, high=10,
                            n_resamples=100).interval == "bootstrap"


def test_too_few_runs_are_stated_in_the_verdict():
    d = dse.distribution(_trials(2, 10, shift=5.0), n_resamples=100, n_permutations=99)
    dom, cv = d.verdicts()[:2]
    assert dom.outcome == "inconclusive" and cv.outcome == "inconclusive"
    assert "smallest attainable one-sided p-value is 0.167" in dom.explanation
    assert "at least 4 runs per algorithm" in dom.explanation
    assert "smallest attainable p-value is 0.333" in cv.explanation


def test_example_data_are_runs_of_twenty_draws():
    from benchverdict.examples import load_example

    res = load_example()
    d = dse.distribution(res.subset(benchmarks=res.benchmarks[:1],
                                    algorithms=res.algorithms[:2]),
                         n_resamples=200, n_permutations=199)
    v = d.verdicts()[0]
    assert v.unit.startswith("random-search run (20 draws each")
    assert v.details["unit"].startswith("run (20 draws each")


def test_real_iid_draws_keep_the_draw_as_unit(shared_data):
    from benchverdict.io import adapters

    res = adapters.read_deberta(shared_data / "deberta")
    d = dse.distribution(res, n_resamples=200, n_permutations=199)
    dom = next(v for v in d.verdicts() if v.method == "dse.dominance")
    assert dom.unit == "random-search draw (trial)" and dom.n == 2048
    t = single_draw_test(*(d.draws[dom.scope.benchmark or d.benchmarks[0], a]
                           for a in (dom.a, dom.b)), n_resamples=199)
    assert [dom.single_draw.lower, dom.single_draw.upper] == pytest.approx([t.lower, t.upper])
    # 1,024 draws each: DeBERTaV3's single draws beat DeBERTa's far more than half the time.
    lo, hi = dom.single_draw.lower, dom.single_draw.upper
    assert hi - lo < 0.1


def test_runs_of_unequal_sizes_state_what_is_assumed():
    rng = np.random.default_rng(36)
    rows = [(alg, "p", run, trial + 1, rng.normal() + run % 3)
            for alg in ("A", "B") for run in range(6) for trial in range(4 + run % 2)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "trial", "acc"])
    res = Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                             budget="trial", score="acc", objective="maximize", kind="trials")
    dom, cv = dse.distribution(res, n_resamples=100, n_permutations=99).verdicts()
    for v in (dom, cv):
        assert v.unit == "random-search run (4 to 5 draws; 6 + 6 runs)"
        assert "runs of unequal sizes: assumed exchangeable" in v.explanation
    # The weighted (unequal sizes) path gives a valid p-value in [min_p, 1].
    assert cv.details["min_p"] <= cv.p_value <= 1


def test_placement_matrix_counts_every_pair_of_draws_by_hand():
    """W[c, d] = #(draw of c beats draw of d) + #ties / 2, counted pair by pair."""
    from benchverdict.dse.clusters import placement_matrix

    rng = np.random.default_rng(7)
    for _ in range(40):
        n, m = int(rng.integers(2, 60)), int(rng.integers(1, 6))
        z = np.round(rng.normal(size=n), 1)  # ties on purpose
        codes = np.unique(rng.integers(0, m, size=n), return_inverse=True)[1].reshape(-1)
        k = int(codes.max()) + 1
        wins = (z[:, None] > z[None, :]) + 0.5 * (z[:, None] == z[None, :])
        by_hand = np.zeros((k, k))
        np.add.at(by_hand, (codes[:, None], codes[None, :]), wins)
        assert np.array_equal(placement_matrix(z, codes), by_hand)


# ------------------------------------------------- Besag-Clifford stopping of the dominance test
def _replayed_dominance_p(a, b, n_permutations: int, h: int, seed: int):
    """Each direction's sequential p-value, from the splits replayed one by one; the splits
    needed (``None`` where a direction never stops)."""
    from benchverdict.dse.clusters import splits
    from benchverdict.dse.compare import _ks_rows, _sample_order, comparison_rng

    swap = _sample_order(a, b) > 0
    runs = _runs(a, b, (LABELS, LABELS), None, swap=swap)
    ks = _ks_rows(runs)
    observed = ks.exact(runs.first[None, :])[0]
    rng = comparison_rng(seed, runs.z, runs.first[runs.codes])  # as the test draws them
    hits = np.concatenate([ks(m) for m in splits(rng, n_permutations, runs.strata, runs.first)])
    hits = hits >= observed - 1e-9 * np.maximum(1.0, np.abs(observed))
    p, stops = [], []
    for j in range(2):
        where = np.flatnonzero(np.cumsum(hits[:, j]) == h)
        p.append(h / (where[0] + 1) if where.size else (1 + hits[:, j].sum())
                 / (1 + n_permutations))
        stops.append(int(where[0]) + 1 if where.size else None)
    return ((p[1], p[0]) if swap else (p[0], p[1])), stops


@pytest.mark.parametrize("shift, stopping", [(0.0, 2), (1.5, 1), (3.0, 1)])
def test_dominance_stops_each_direction_at_its_h_th_extreme_split(shift, stopping):
    # Each direction's p-value is h / L at its own h-th split at least as extreme (or the
    # plain Monte Carlo p-value if that never comes), from the same random splits as the
    # test without stopping. Drawing ends when both have stopped.
    rng = np.random.default_rng(43)
    a, b = _clustered(rng, shift), _clustered(rng)
    t = dominance_test(a, b, clusters=(LABELS, LABELS), n_permutations=299, stop_after=10,
                       seed=3)
    want, stops = _replayed_dominance_p(a, b, 299, 10, 3)
    assert (t.p_a_better, t.p_b_better) == pytest.approx(want, rel=1e-12)
    assert sum(s is not None for s in stops) == stopping  # the case this shift makes
    assert t.n_permutations == (max(stops) if None not in stops else 299)
    full = dominance_test(a, b, clusters=(LABELS, LABELS), n_permutations=299,
                          stop_after=None, seed=3)
    # A direction that did not stop has exactly the p-value without stopping.
    for got, plain in ((t.p_a_better, full.p_a_better), (t.p_b_better, full.p_b_better)):
        if plain < 10 / 300:
            assert got == plain
    # A stop_after no split count can reach is no stopping at all.
    never = dominance_test(a, b, clusters=(LABELS, LABELS), n_permutations=299,
                           stop_after=300, seed=3)
    assert (never.p_a_better, never.p_b_better, never.n_permutations) == (
        full.p_a_better, full.p_b_better, full.n_permutations)
    assert "Besag-Clifford" in t.test and "Besag-Clifford" not in full.test


def test_sequential_dominance_p_values_are_valid_under_the_clustered_null():
    # P(p <= u) <= u for each direction and every u (Besag & Clifford 1991), here at three
    # levels; the winner rate is at most alpha.
    rng = np.random.default_rng(41)
    reps, levels = 300, np.array([0.05, 0.2, 0.5])
    below = np.zeros((2, levels.size))
    wins = 0
    for r in range(reps):
        t = dominance_test(_clustered(rng), _clustered(rng), clusters=(LABELS, LABELS),
                           n_permutations=199, stop_after=20, seed=r)
        below += np.array([[t.p_a_better], [t.p_b_better]]) <= levels
        wins += t.outcome != "none"
    rates = below / reps
    print("P(p <= u) at u =", levels, ":", rates, "winner rate", wins / reps)
    assert np.all(rates <= levels + 3 * np.sqrt(levels * (1 - levels) / reps)), rates
    assert wins / reps <= _level_bound(ALPHA, reps)


def test_dominance_refuses_a_bad_stop_after():
    rng = np.random.default_rng(42)
    a, b = _clustered(rng), _clustered(rng)
    for bad in (0, 2.5, -1):
        with pytest.raises(ValueError, match="stop_after"):
            dominance_test(a, b, clusters=(LABELS, LABELS), stop_after=bad)


# ------------------------------------------------------- several CVaR levels, pair by pair
def _levels(results: Results, levels=(0.5, 0.8, 0.95), **kwargs):
    return [dse.distribution(results, cvar_level=a, n_resamples=100, n_permutations=99,
                             **kwargs) for a in levels]


@pytest.mark.parametrize("pooled", [False, True])
def test_verdicts_by_pair_are_each_levels_own_verdicts(pooled):
    from benchverdict.dse.distribution import verdicts_by_pair

    results = _trials(6, 8, shift=0.4, seed=3)
    kwargs = {"pooled": True, "normalize": "minmax"} if pooled else {}
    made = _levels(results, **kwargs)
    kinds = [("dominance", "cvar"), ("cvar",), ("dominance",)]
    together = verdicts_by_pair(made, alpha=0.05, kinds=kinds)
    alone = [r.verdicts(alpha=0.05, kinds=k) for r, k in zip(made, kinds, strict=True)]
    assert together == alone
    assert [len(v) for v in together] == [2 * len(alone[1]), len(alone[1]), len(alone[1])]


def test_verdicts_by_pair_pool_each_pair_once(monkeypatch):
    # The point of going pair by pair: one pooled pair (and its count tables) per pair and
    # scope, shared by every level's tests, where level after level pooled each pair again.
    from benchverdict.dse import compare
    from benchverdict.dse.distribution import verdicts_by_pair

    made = _levels(_trials(6, 8, shift=0.4, seed=3))
    calls = []
    original = compare._pool_runs
    monkeypatch.setattr(compare, "_pool_runs", lambda *a: calls.append(1) or original(*a))
    verdicts_by_pair(made)
    pairs = len(list(made[0]._pairs()))
    assert len(calls) == pairs  # (A, B) pooled once for dominance, single draw and 3 CVaRs
    calls.clear()
    for r in made:
        r.verdicts()
    assert len(calls) == 3 * pairs


def test_verdicts_by_pair_keeps_a_failing_levels_error_to_itself(monkeypatch):
    from benchverdict.dse.distribution import verdicts_by_pair

    made = _levels(_trials(6, 8, shift=0.4, seed=3), levels=(0.5, 0.9))
    expected = made[0].verdicts()
    original = type(made[1])._cvar_verdict

    def broken(self, bench, *args):
        if self is made[1] and bench == "q":
            raise FloatingPointError("boom")
        return original(self, bench, *args)

    monkeypatch.setattr(type(made[1]), "_cvar_verdict", broken)
    first, second = verdicts_by_pair(made)
    assert first == expected
    assert isinstance(second, FloatingPointError)


def test_different_draws_are_taken_one_after_the_other():
    from benchverdict.dse.distribution import verdicts_by_pair

    a = dse.distribution(_trials(6, 8, shift=0.4, seed=3), n_resamples=100, n_permutations=99)
    b = dse.distribution(_trials(6, 8, shift=0.0, seed=4), n_resamples=100, n_permutations=99)
    assert verdicts_by_pair([a, b]) == [a.verdicts(), b.verdicts()]
    with pytest.raises(ValueError, match="one tuple per result"):
        verdicts_by_pair([a, b], kinds=[("cvar",)])


def test_the_report_keeps_the_other_levels_when_one_levels_tests_fail(monkeypatch):
    from benchverdict.dse.distribution import DistributionResult
    from benchverdict.report.runner import compare

    original = DistributionResult._cvar_verdict

    def broken(self, *args):
        if self.cvar_level == 0.95 and not self.pooled:
            raise FloatingPointError("boom")
        return original(self, *args)

    monkeypatch.setattr(DistributionResult, "_cvar_verdict", broken)
    comp = compare(_trials(6, 8, shift=0.4, seed=3), analyses=["dse"], progress=False,
                   figures=False)
    run = comp.runs[0]
    failed = {c["name"] for c in run.failed_steps}
    assert failed == {"distributions per benchmark, CVaR_0.95"}
    kept = {(v.method, v.parameter) for v in run.verdicts}
    assert ("dse.cvar", 0.5) in kept and not any(p == 0.95 for _, p in kept)
    assert any(m == "dse.dominance" for m, _ in kept)
    assert "distributions per benchmark, CVaR_0.95" not in run.tables


def test_verdicts_by_pair_keep_each_results_own_order():
    # The same draws read from rows in another order list the benchmarks (and so the
    # pairs) in another order: such results are taken on their own, in their own order.
    from benchverdict.dse.distribution import verdicts_by_pair

    results = _trials(4, 6, shift=0.4, seed=3)
    frame = results.table
    shuffled = Results.from_frame(
        frame.iloc[np.r_[np.flatnonzero(frame["benchmark"] == "q"),
                         np.flatnonzero(frame["benchmark"] == "p")]],
        algorithm="algorithm", benchmark="benchmark", seed="seed", budget="budget",
        score="score", objective="maximize", kind="trials")
    one = dse.distribution(results, cvar_level=0.5, n_resamples=99, n_permutations=99)
    other = dse.distribution(shuffled, cvar_level=0.9, n_resamples=99, n_permutations=99)
    assert list(one.draws) != list(other.draws)
    assert verdicts_by_pair([one, other]) == [one.verdicts(), other.verdicts()]


def test_failures_are_reported_in_the_order_of_the_steps(monkeypatch):
    # Level 0.95's distributions fail and so does the per-benchmark figure (made after
    # level 0.5): the report lists them in the order the steps come, as before the
    # levels' tests were taken pair by pair.
    from benchverdict.dse import runner as dse_runner
    from benchverdict.dse.distribution import DistributionResult
    from benchverdict.report.runner import compare

    original = dse_runner.distribution

    def failing(results, cvar_level, **kwargs):
        if cvar_level == 0.95:
            raise FloatingPointError("no distributions")
        return original(results, cvar_level=cvar_level, **kwargs)

    def no_figure(self, *args, **kwargs):
        raise FloatingPointError("no figure")

    monkeypatch.setattr(dse_runner, "distribution", failing)
    monkeypatch.setattr(DistributionResult, "plot", no_figure)
    comp = compare(_trials(6, 8, shift=0.4, seed=3), analyses=["dse"], progress=False)
    names = [c["name"] for c in comp.runs[0].failed_steps]
    assert names[:2] == ["figure 'Performance distributions, per benchmark'",
                         "distributions per benchmark, CVaR_0.95"], names
    assert any("pooled" in n for n in names[2:])


def test_refined_single_draw_p_values_keep_their_level_below_the_first_floor():
    # A p-value at the floor of the first 19 splits (0.05) is refined on 199 in all. Under
    # the clustered null P(p <= t) <= t still holds below the floor and at it: the
    # refinement only splits the floor's mass.
    rng = np.random.default_rng(25)
    reps = 1500
    p = np.array([single_draw_test(_clustered(rng, runs=6, draws=5),
                                   _clustered(rng, runs=6, draws=5),
                                   clusters=(np.repeat(np.arange(6), 5),) * 2,
                                   n_resamples=19, max_resamples=199, seed=r).p_value
                  for r in range(reps)])
    for t in (0.01, 0.025, 0.05):
        assert (p <= t).mean() <= _level_bound(t, reps), (t, (p <= t).mean())
    # Some refined values lie below the floor of 19 splits.
    assert (p < 0.05).any()


def test_a_clear_single_draw_difference_reaches_the_refined_floor():
    rng = np.random.default_rng(26)
    a, b = _clustered(rng, 3.0), _clustered(rng)
    plain = single_draw_test(a, b, clusters=(LABELS, LABELS), n_resamples=99, seed=0)
    fine = single_draw_test(a, b, clusters=(LABELS, LABELS), n_resamples=99, seed=0,
                            max_resamples=999)
    assert plain.p_value == pytest.approx(1 / 100) and plain.n_resamples == 99
    assert fine.p_value == pytest.approx(1 / 1000) and fine.n_resamples == 999
    assert fine.min_p == pytest.approx(1 / 1000) and plain.min_p == pytest.approx(1 / 100)
    # A p-value above the floor is not refined.
    close = single_draw_test(_clustered(rng, 0.1), _clustered(rng),
                             clusters=(LABELS, LABELS), n_resamples=99, seed=0,
                             max_resamples=999)
    assert close.n_resamples <= 99


def test_min_p_is_the_floor_the_test_could_reach_whichever_way_it_went():
    """Review of 2026-11-29: ``min_p`` depended on the path (an early-stopped test gave the
    runs' own floor, a full one 1 / (1 + B), a refined one 1 / (1 + M)), so the single-draw
    line could blame the data where the evidence was weak. It is now the smallest p-value
    the test could give on these runs: max(runs' floor, 1 / (1 + M))."""
    rng = np.random.default_rng(27)
    null = single_draw_test(_clustered(rng), _clustered(rng), clusters=(LABELS, LABELS),
                            n_resamples=99, seed=0, max_resamples=999)
    assert null.p_value > 0.2 and null.n_resamples < 99  # stopped early, not refined
    assert null.min_p == pytest.approx(1 / 1000)
    plain = single_draw_test(_clustered(rng), _clustered(rng), clusters=(LABELS, LABELS),
                             n_resamples=99, seed=0)
    assert plain.min_p == pytest.approx(1 / 100)
    a, b = _clustered(rng, 3.0), _clustered(rng)
    kept = single_draw_test(a, b, clusters=(LABELS, LABELS), n_resamples=99, seed=0,
                            max_resamples=999, refine=False)
    assert kept.p_value == pytest.approx(1 / 100) and kept.min_p == pytest.approx(1 / 1000)
    # Few runs: the runs' own floor, 2 / C(6, 3), whatever the resamples.
    few = np.repeat(np.arange(3), DRAWS)
    small = single_draw_test(_clustered(rng, runs=3), _clustered(rng, runs=3),
                             clusters=(few, few), n_resamples=9, seed=0, max_resamples=999)
    assert small.min_p == pytest.approx(2 / 20)
