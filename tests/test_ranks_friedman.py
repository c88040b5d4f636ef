"""Friedman, Nemenyi, Wilcoxon-Holm and Conover against references, closed forms and simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from benchverdict.exclusions import empty_exclusions
from benchverdict.ranks import _stats, friedman
from benchverdict.ranks._examples import small_runs
from benchverdict.results import BlockMatrix, Results
from benchverdict.stats.multiple_testing import adjust_p_values


def block_matrix(x, objective="maximize", names=None):
    names = names or [f"alg{i}" for i in range(x.shape[1])]
    return BlockMatrix(
        matrix=pd.DataFrame(x, columns=names, index=pd.Index(range(len(x)), name="benchmark")),
        unit="benchmark", aggregate="mean", budget=None, objective=objective,
        exclusions=empty_exclusions(),
    )


def clopper_pearson(successes, trials, level=0.999):
    a = (1 - level) / 2
    lo = stats.beta.ppf(a, successes, trials - successes + 1) if successes > 0 else 0.0
    hi = stats.beta.ppf(1 - a, successes + 1, trials - successes) if successes < trials else 1.0
    return lo, hi


# ---------------------------------------------------------------------- references
@pytest.mark.parametrize("seed", range(8))
def test_friedman_matches_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(3, 30), rng.integers(3, 8)
    x = rng.integers(0, 4, size=(n, k)).astype(float)  # many ties
    res = friedman(block_matrix(x), n_resamples=0)
    ref = stats.friedmanchisquare(*x.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.df == k - 1
    # Kendall's W and Iman-Davenport from Q
    assert res.kendall_w == pytest.approx(ref.statistic / (n * (k - 1)))
    f = (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    assert res.iman_davenport == pytest.approx(f)
    assert res.iman_davenport_p_value == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def test_kendall_w_without_ties_matches_its_definition():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(9, 4))
    r = _stats.block_ranks(x)
    n, k = r.shape
    s = np.sum((r.sum(0) - n * (k + 1) / 2) ** 2)
    w = 12 * s / (n**2 * (k**3 - k))
    assert _stats.friedman_statistic(r).kendall_w == pytest.approx(w)


def test_direction_follows_objective():
    x = np.array([[1.0, 2, 3], [1, 3, 2], [1, 2, 3]])
    low = friedman(block_matrix(x, "minimize"), n_resamples=0).average_ranks
    high = friedman(block_matrix(x, "maximize"), n_resamples=0).average_ranks
    assert low["alg0"] == 1.0 and high["alg0"] == 3.0
    assert low.index[0] == "alg0" and high.index[-1] == "alg0"


# Demšar (2006), Table 5: critical values q_alpha for the two-tailed Nemenyi test.
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize("k", range(2, 11))
def test_nemenyi_cd_matches_demsar_table(k):
    n = 14
    factor = np.sqrt(k * (k + 1) / (6 * n))
    # the table is printed to 3 decimals (rounded), so agree within 1.5e-3
    assert _stats.nemenyi_critical_difference(k, n, 0.05) / factor == pytest.approx(
        DEMSAR_Q05[k - 2], abs=1.5e-3)
    assert _stats.nemenyi_critical_difference(k, n, 0.10) / factor == pytest.approx(
        DEMSAR_Q10[k - 2], abs=1.5e-3)


def test_demsar_worked_example_cd():
    # Demšar §3.2.4: 4 algorithms, 14 data sets, CD = 1.25 at alpha = 0.05
    assert _stats.nemenyi_critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=0.005)


def test_nemenyi_p_below_alpha_exactly_when_difference_exceeds_cd():
    rng = np.random.default_rng(11)
    for _ in range(30):
        n, k = rng.integers(5, 40), rng.integers(3, 9)
        x = rng.normal(size=(n, k)) + np.linspace(0, 1, k)
        res = friedman(block_matrix(x), n_resamples=0, posthoc="nemenyi")
        for row in res.pairwise.itertuples():
            beyond = abs(row.rank_a - row.rank_b) > res.critical_difference
            assert (row.p_value_adjusted < res.alpha) == beyond


def test_wilcoxon_matches_scipy_and_holm_matches_statsmodels():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(20, 5)) + np.array([0, 0.2, 0.5, 0.9, 2.0])
    for adjust, sm in (("holm", "holm"), ("bonferroni", "bonferroni")):
        res = friedman(block_matrix(x), posthoc="wilcoxon", adjust=adjust, n_resamples=0)
        raw = [stats.wilcoxon(x[:, i], x[:, j]).pvalue
               for i, j in itertools.combinations(range(5), 2)]
        assert np.allclose(res.pairwise["p_value"], raw, rtol=1e-12)
        assert np.allclose(res.pairwise["p_value_adjusted"], multipletests(raw, method=sm)[1])
    # direction: alg4 has the largest scores (maximize) and wins against alg0
    row = res.pairwise.query("a == 'alg0' and b == 'alg4'").iloc[0]
    assert row.better == "alg4"


def test_adjust_p_values_matches_statsmodels_randomly():
    rng = np.random.default_rng(9)
    for _ in range(12):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 30))
        assert np.allclose(adjust_p_values(p, "holm"), multipletests(p, method="holm")[1])


def test_posthocs_match_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    rng = np.random.default_rng(4)
    x = rng.normal(size=(15, 4)) + np.array([0, 0.3, 0.6, 1.2])
    res = friedman(block_matrix(x), posthoc="nemenyi", n_resamples=0)
    ref = sp.posthoc_nemenyi_friedman(x)
    names = [f"alg{i}" for i in range(4)]
    ours = res.p_values_adjusted.loc[names, names].to_numpy()
    assert np.allclose(ours[np.triu_indices(4, 1)], ref.to_numpy()[np.triu_indices(4, 1)],
                       atol=1e-6)
    res = friedman(block_matrix(x), posthoc="conover", adjust="holm", n_resamples=0)
    ref = sp.posthoc_conover_friedman(x, p_adjust="holm")
    ours = res.p_values_adjusted.loc[names, names].to_numpy()
    assert np.allclose(ours[np.triu_indices(4, 1)], ref.to_numpy()[np.triu_indices(4, 1)],
                       atol=1e-8)


def test_cliffs_delta_interval_covers_estimate_with_block_effects():
    rng = np.random.default_rng(12)
    x = rng.normal(size=(24, 3)) * 0.1 + np.array([0, 0.1, 0.2]) + 10 * rng.normal(size=(24, 1))
    res = friedman(block_matrix(x), n_resamples=2000)
    for row in res.pairwise.itertuples():
        assert row.cliffs_delta_lower <= row.cliffs_delta <= row.cliffs_delta_upper


def test_effect_sizes_match_autorank_definitions():
    from autorank import _util

    rng = np.random.default_rng(8)
    x = rng.normal(size=(25, 3))
    res = friedman(block_matrix(x), n_resamples=200)
    for row in res.pairwise.itertuples():
        i, j = int(row.a[-1]), int(row.b[-1])
        assert row.cliffs_delta == pytest.approx(_util._cliffs_delta(x[:, i], x[:, j]))
        assert row.akinshin_gamma == pytest.approx(_util._akinshin_gamma(x[:, i], x[:, j]))
        assert row.cliffs_delta_lower <= row.cliffs_delta <= row.cliffs_delta_upper


def test_effect_intervals_equal_brute_force():
    """Cliff's delta: U-statistic over distinct blocks, leave-one-block-out jackknife, hull
    with the score part and the estimate (direct loops). Gamma: percentile block bootstrap."""
    rng = np.random.default_rng(0)
    # strong block effects: the case where naive resampling of Cliff's delta is biased
    x = rng.normal(size=(30, 2)) + np.array([0, 0.3]) + 5 * rng.normal(size=(30, 1))
    got = _stats.bootstrap_effect_intervals(x, [(0, 1)], n_resamples=500, confidence=0.9,
                                            rng=np.random.default_rng(1))[(0, 1)]
    n = len(x)

    def u(blocks):
        return np.mean([np.sign(x[a, 0] - x[b, 1]) for a in blocks for b in blocks if a != b])

    whole = u(range(n))
    left_out = np.array([u([b for b in range(n) if b != a]) for a in range(n)])
    v = (n - 1) / n * np.sum((left_out - left_out.mean()) ** 2)
    z = stats.t.ppf(0.95, n - 1)
    theta = np.linspace(-1, 1, 400_001)
    score = theta[(whole - theta) ** 2 <= z**2 * 0.5 * (1 - theta**2) / n]
    estimate = _stats.cliffs_delta(x[:, 0], x[:, 1])
    low = max(min(whole - z * np.sqrt(v), score.min(), estimate), -1)
    high = min(max(whole + z * np.sqrt(v), score.max(), estimate), 1)
    assert np.allclose(got["cliffs_delta"], (low, high), atol=1e-5)
    idx = np.random.default_rng(1).integers(0, 30, size=(500, 30))
    g = [_stats.akinshin_gamma(x[i, 0], x[i, 1]) for i in idx]
    assert np.allclose(got["akinshin_gamma"],
                       np.quantile(g, [0.05, 0.95], method="inverted_cdf"))


def _awkward_columns(rng, kind, n, k):
    if kind == "normal":
        return rng.normal(size=(n, k)) + 3 * rng.normal(size=(n, 1))
    if kind == "ties":
        return rng.integers(0, 4, size=(n, k)).astype(float)
    if kind == "heavy":  # Cauchy, rounded: ties and far outliers at a tiny scale
        return np.round(rng.standard_cauchy(size=(n, k)) * 1e3, 1) * 1e-7
    if kind == "offset":  # large offset: every subtraction rounds
        return rng.normal(size=(n, k)) * 1e10 + 1e14
    # signed zeros and subnormals
    return np.where(rng.random((n, k)) < 0.5, 0.0, -0.0) + rng.integers(0, 2, (n, k)) * 5e-324


AWKWARD = ["normal", "ties", "heavy", "offset", "zeros"]


@pytest.mark.parametrize("kind", AWKWARD)
@pytest.mark.parametrize("rank_sort", [None, (np.int16, "stable"), (np.int32, "quicksort")])
def test_resampled_medians_mads_equal_numpy_bit_for_bit(kind, rank_sort, monkeypatch):
    """The sorted-rank medians and MADs behind gamma's bootstrap are numpy.median's and
    _mad's exactly (odd and even blocks, one block, chunks smaller than a column), with
    whichever integer sort this machine would pick."""
    if rank_sort is not None:
        monkeypatch.setattr(_stats, "_small_rank_sort", lambda: rank_sort)
    rng = np.random.default_rng(AWKWARD.index(kind))
    for n, k, b, chunk in ((1, 2, 5, 1 << 22), (2, 3, 40, 1), (7, 4, 60, 100),
                           (30, 3, 80, 1 << 22), (31, 5, 50, 3000), (200, 2, 30, 1 << 22)):
        x = _awkward_columns(rng, kind, n, k)
        idx = rng.integers(0, n, size=(b, n))
        med, mad = _stats.resampled_medians_mads(x, idx, chunk=chunk)
        ref_med, ref_mad = _stats._resampled_medians_mads_numpy(x, idx)
        assert np.array_equal(med, ref_med), (n, k)
        assert np.array_equal(mad, ref_mad), (n, k)


def test_gamma_bootstrap_intervals_unchanged_and_infinite_scores_still_work():
    """Seeded gamma intervals equal the numpy reference's (the same draws, the same
    percentiles), and an infinite score falls back to numpy's rules (no error)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 5)) + np.linspace(0, 1, 5) + 2 * rng.normal(size=(40, 1))
    pairs = list(itertools.combinations(range(5), 2))
    got = _stats.bootstrap_effect_intervals(x, pairs, n_resamples=300, confidence=0.9,
                                            rng=np.random.default_rng(4))
    idx = np.random.default_rng(4).integers(0, 40, size=(300, 40))
    med, mad = _stats._resampled_medians_mads_numpy(x, idx)
    for i, j in pairs:
        gamma = (med[:, i] - med[:, j]) / np.sqrt((mad[:, i] ** 2 + mad[:, j] ** 2) / 2)
        expected = np.quantile(gamma, [0.05, 0.95], method="inverted_cdf")
        assert got[(i, j)]["akinshin_gamma"] == tuple(expected)
    x[0, 1] = np.inf
    low, high = _stats.bootstrap_effect_intervals(
        x, [(0, 1)], n_resamples=50, confidence=0.9,
        rng=np.random.default_rng(4))[(0, 1)]["akinshin_gamma"]
    assert low <= high


# ---------------------------------------------------------------------- simulation
def test_type_one_error_of_friedman_and_posthoc_families():
    """Under H0 (exchangeable algorithms), Friedman rejects at rate alpha and each family's
    family-wise error rate is at most alpha (99.9% Clopper-Pearson bounds)."""
    rng = np.random.default_rng(20240501)
    n, k, reps, alpha = 20, 5, 1500, 0.05
    cd = _stats.nemenyi_critical_difference(k, n, alpha)
    pairs = list(itertools.combinations(range(k), 2))
    reject = fwer_nemenyi = fwer_wilcoxon = fwer_conover = 0
    for _ in range(reps):
        x = rng.normal(size=(n, k)) + rng.normal(size=(n, 1)) * 3  # block effects
        r = _stats.block_ranks(x)
        q = _stats.friedman_statistic(r)
        omnibus = q.p_value < alpha
        reject += omnibus
        mr = r.mean(0)
        fwer_nemenyi += omnibus and (np.ptp(mr) > cd)
        pc = _stats.conover_p_values(r)
        fwer_conover += omnibus and adjust_p_values(
            np.array([pc[i, j] for i, j in pairs])).min() < alpha
        d = np.stack([x[:, i] - x[:, j] for i, j in pairs], axis=1)
        pw = stats.wilcoxon(d, axis=0).pvalue
        fwer_wilcoxon += adjust_p_values(pw).min() < alpha
    lo, hi = clopper_pearson(reject, reps)
    # chi-square approximation with n = 20 blocks: size within binomial error of alpha,
    # allowing the approximation's known slight conservativeness (0.04 < size <= 0.05)
    assert lo <= alpha and hi >= 0.04, (reject / reps, lo, hi)
    for name, count in (("nemenyi", fwer_nemenyi), ("conover", fwer_conover),
                        ("wilcoxon-holm", fwer_wilcoxon)):
        lo, _ = clopper_pearson(count, reps)
        assert lo <= alpha, (name, count / reps)


def test_public_function_decides_like_the_simulated_pieces():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20, 5)) + np.array([0, 0, 0.8, 1.0, 1.5])
    res = friedman(block_matrix(x), posthoc="nemenyi", n_resamples=0)
    r = _stats.block_ranks(x)
    mr = r.mean(0)
    cd = _stats.nemenyi_critical_difference(5, 20)
    for row in res.pairwise.itertuples():
        i, j = int(row.a[-1]), int(row.b[-1])
        assert row.significant == (res.p_value < 0.05 and abs(mr[i] - mr[j]) > cd)


# ---------------------------------------------------------------------- Results, edges, outputs
def test_from_results_unit_is_printed_and_verdicts_cover_every_pair():
    res = friedman(small_runs(), posthoc="wilcoxon")
    assert "unit: benchmark" in str(res)
    assert res.table.attrs["unit"] == res.unit
    verdicts = res.verdicts()
    assert len(verdicts) == 3
    assert {v.method for v in verdicts} == {"ranks.wilcoxon_holm"}
    assert all(v.unit == res.unit and v.n == 7 for v in verdicts)
    seeds = friedman(small_runs(), unit="benchmark_seed", n_resamples=0)
    assert seeds.n_blocks == 21 and any("independent" in n for n in seeds.notes)


def test_not_significant_omnibus_blocks_nemenyi_verdicts():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 4))
    res = friedman(block_matrix(x), n_resamples=0)
    assert res.p_value >= 0.05
    assert all(v.outcome == "inconclusive" for v in res.verdicts())
    assert res.not_different().to_numpy().all()


def test_two_algorithms_switch_to_wilcoxon():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(15, 2)) + np.array([0, 1])
    res = friedman(block_matrix(x), posthoc="nemenyi", n_resamples=0)
    assert res.posthoc == "wilcoxon"
    assert any("sign test" in n for n in res.notes)
    assert res.pairwise["p_value_adjusted"].iloc[0] == pytest.approx(
        stats.wilcoxon(x[:, 0], x[:, 1]).pvalue)


def test_single_block_is_a_clear_error():
    df = pd.DataFrame({"alg": list("abc") * 2, "seed": [0, 0, 0, 1, 1, 1],
                       "loss": [1.0, 2, 3, 1, 2, 3]})
    res = Results.from_frame(df, algorithm="alg", seed="seed", score="loss",
                             objective="minimize", kind="trials")
    with pytest.raises(ValueError, match="at least 2 blocks"):
        friedman(res)
    assert friedman(res, unit="benchmark_seed", n_resamples=0).n_blocks == 2


def test_missing_cells_raise_or_are_dropped_and_recorded():
    table = small_runs().table
    table = table[~((table["algorithm"] == "RS") & (table["benchmark"] == "bench0"))]
    res = Results.from_frame(table, algorithm="algorithm", benchmark="benchmark", seed="seed",
                             budget="budget", score="score", objective="minimize", kind="runs")
    with pytest.raises(ValueError, match="bench0"):
        friedman(res)
    out = friedman(res, missing="drop", n_resamples=0)
    assert out.n_blocks == 6
    assert any("missing" in n for n in out.notes)


def test_bad_arguments():
    with pytest.raises(ValueError, match="posthoc"):
        friedman(small_runs(), posthoc="tukey")
    with pytest.raises(TypeError, match="Results"):
        friedman(pd.DataFrame({"a": [1]}))


def test_plot_and_table():
    res = friedman(small_runs())
    ax = res.plot()
    assert any(t.get_text().startswith("CD = ") for t in ax.texts)
    assert list(res.table["algorithm"]) == ["PB", "HB", "RS"]
    assert res.table["letters"].tolist() == ["a", "ab", "b"]


def test_cliffs_delta_bootstrap_interval_coverage():
    """Blocks with strong effects: the 90% block-bootstrap interval of autorank's (unpaired)
    Cliff's delta covers its population value at the nominal rate (99.9% Clopper-Pearson)."""
    rng = np.random.default_rng(1)
    n, sd_block, shift = 30, 2.0, 0.5
    # population value: X = B + E + shift and Y = B' + E' from independent blocks
    draws = rng.normal(size=2_000_000) * np.sqrt(2 * sd_block**2 + 2) + shift
    truth = np.mean(np.sign(draws))
    hits, reps = 0, 300
    for _ in range(reps):
        b = rng.normal(size=n) * sd_block
        x = np.c_[b + rng.normal(size=n) + shift, b + rng.normal(size=n)]
        low, high = _stats.bootstrap_effect_intervals(
            x, [(0, 1)], n_resamples=500, confidence=0.9, rng=rng)[(0, 1)]["cliffs_delta"]
        hits += low <= truth <= high
    lo, hi = clopper_pearson(hits, reps)
    assert hi >= 0.9, (hits / reps, lo, hi)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(3, 6), st.integers(0, 2**31 - 1))
def test_friedman_property_matches_scipy(n, k, seed):
    x = np.random.default_rng(seed).integers(0, 3, size=(n, k)).astype(float)
    r = _stats.block_ranks(x)
    got = _stats.friedman_statistic(r)
    if got.tie_correction <= 0:
        assert got.statistic == 0 and got.p_value == 1
        return
    ref = stats.friedmanchisquare(*x.T)
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
    assert 0 <= got.kendall_w <= 1 + 1e-12
    # average ranks always sum to k (k + 1) / 2
    assert r.mean(0).sum() == pytest.approx(k * (k + 1) / 2)


@pytest.mark.parametrize("kind", ["normal", "ties", "zeros", "nan"])
def test_cliffs_delta_lookup_table_equals_binary_searches(kind, monkeypatch):
    """Cliff's delta and its intervals from the counts table are bit for bit those of the
    binary searches used beyond the table's size (and with NaN)."""
    rng = np.random.default_rng(AWKWARD.index(kind) if kind in AWKWARD else 9)
    for n, k in ((1, 3), (5, 4), (23, 6), (60, 3)):
        x = _awkward_columns(rng, kind if kind != "nan" else "normal", n, k)
        if kind == "nan":
            x[rng.random((n, k)) < 0.2] = np.nan
        first, second = np.triu_indices(k, 1)
        first, second = np.r_[first, second], np.r_[second, first]  # both orientations

        def run(x=x, first=first, second=second):
            with np.errstate(invalid="ignore"):
                delta = _stats.effect_size_matrices(x)[0]
            return delta, *_stats.cliffs_delta_intervals(x, first, second, confidence=0.9)

        table = run()
        monkeypatch.setattr(_stats, "_BALANCE_TABLE_MAX", 0)
        searched = run()
        monkeypatch.undo()
        for got, expected in zip(table, searched):
            assert np.array_equal(got, expected, equal_nan=True), (n, k)
