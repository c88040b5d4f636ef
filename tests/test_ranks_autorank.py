"""benchverdict.ranks.autorank runs autorank's own path: same numbers as calling it directly."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest
from autorank import autorank as autorank_direct

from benchverdict.exclusions import empty_exclusions
from benchverdict.ranks import autorank
from benchverdict.ranks._examples import small_runs
from benchverdict.results import BlockMatrix


def block_matrix(x, objective="maximize", names=None):
    names = names or [f"alg{i}" for i in range(x.shape[1])]
    return BlockMatrix(
        matrix=pd.DataFrame(x, columns=names), unit="benchmark", aggregate="mean", budget=None,
        objective=objective, exclusions=empty_exclusions(),
    )


def direct(x, names, order):
    with contextlib.redirect_stdout(io.StringIO()):
        return autorank_direct(pd.DataFrame(x, columns=names), alpha=0.05, order=order)


SCENARIOS = {
    # normal, equal variances -> repeated-measures ANOVA + Tukey
    "anova": lambda rng: rng.normal(size=(30, 4)) + np.array([0, 0.3, 0.6, 1.0]),
    # skewed -> Friedman + Nemenyi
    "friedman": lambda rng: rng.exponential(size=(30, 4)) + np.array([0, 0.3, 0.6, 1.0]),
    # two algorithms, skewed -> Wilcoxon
    "two": lambda rng: rng.exponential(size=(25, 2)) + np.array([0, 0.5]),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("objective", ["maximize", "minimize"])
def test_identical_to_calling_autorank_directly(scenario, objective):
    x = SCENARIOS[scenario](np.random.default_rng(7))
    names = [f"alg{i}" for i in range(x.shape[1])]
    ours = autorank(block_matrix(x, objective))
    theirs = direct(x, names, "descending" if objective == "maximize" else "ascending")
    pd.testing.assert_frame_equal(ours.raw.rankdf, theirs.rankdf)
    assert ours.p_value == theirs.pvalue
    assert ours.raw.cd == theirs.cd
    assert (ours.omnibus, ours.posthoc) == (theirs.omnibus, theirs.posthoc)
    assert ours.raw.all_normal == theirs.all_normal
    assert ours.raw.pvals_shapiro == theirs.pvals_shapiro
    assert ours.raw.pval_homogeneity == theirs.pval_homogeneity
    expected = {"anova": "anova", "friedman": "friedman", "two": "wilcoxon"}[scenario]
    assert ours.omnibus == expected


def test_reasons_and_tukey_flag():
    x = SCENARIOS["anova"](np.random.default_rng(7))
    res = autorank(block_matrix(x))
    text = str(res)
    assert "Shapiro-Wilk" in text and "Bartlett" in text and "repeated-measures ANOVA" in text
    assert any("#7566" in f for f in res.flags)
    assert "unit: benchmark" in text
    skewed = autorank(block_matrix(SCENARIOS["friedman"](np.random.default_rng(7))))
    assert "Levene" in str(skewed) and not any("#7566" in f for f in skewed.flags)


def test_flags_autoranks_permuted_shapiro_list():
    # columns a, b, c whose ranking table order is a 3-cycle of the input order
    rng = np.random.default_rng(3)
    x = rng.exponential(size=(30, 3)) + np.array([2.0, 0.0, 1.0])
    res = autorank(block_matrix(x, names=["a", "b", "c"]))
    assert list(res.raw.rankdf.index) == ["b", "c", "a"]
    assert any("pvals_shapiro" in f for f in res.flags)


def test_verdicts_follow_autoranks_rule_and_objective():
    x = SCENARIOS["friedman"](np.random.default_rng(7))
    res = autorank(block_matrix(x, "maximize"))
    by_pair = {(v.a, v.b): v for v in res.verdicts()}
    assert len(by_pair) == 6
    ranks = res.raw.rankdf["meanrank"]
    for (a, b), v in by_pair.items():
        differ = res.p_value < 0.05 and abs(ranks[a] - ranks[b]) > res.critical_difference
        assert (v.outcome != "inconclusive") == differ
        if differ:
            assert v.winner == (a if ranks[a] < ranks[b] else b)
    assert by_pair[("alg0", "alg3")].winner == "alg3"
    low = autorank(block_matrix(x, "minimize"))
    assert {(v.a, v.b): v for v in low.verdicts()}[("alg0", "alg3")].winner == "alg0"


def test_from_results_and_plot():
    res = autorank(small_runs(n_benchmarks=8))
    assert res.table["algorithm"].tolist()
    assert res.plot() is not None
    with pytest.raises(ValueError, match="at least 5 blocks"):
        autorank(small_runs(n_benchmarks=4))


def test_bayesian_path_matches_autorank_and_reads_its_decisions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3)) * 0.01 + np.array([0, 0, 1.0]) + rng.normal(size=(40, 1))
    names = ["a", "b", "c"]
    ours = autorank(block_matrix(x, names=names), approach="bayesian", seed=0,
                    n_resamples=5000, rope=0.5, rope_mode="absolute")
    with contextlib.redirect_stdout(io.StringIO()):
        theirs = autorank_direct(pd.DataFrame(x, columns=names), approach="bayesian",
                                 random_state=0, nsamples=5000, rope=0.5, rope_mode="absolute")
    pd.testing.assert_frame_equal(ours.raw.decision_matrix, theirs.decision_matrix)
    v = {(r.a, r.b): r for r in ours.verdicts()}
    assert v[("a", "b")].outcome == "tie"
    assert v[("a", "c")].winner == "c" and v[("b", "c")].winner == "c"
    assert {r.evidence.kind for r in v.values()} == {"posterior"}
    # minimising flips the winner, not the tie
    low = {(r.a, r.b): r for r in autorank(
        block_matrix(x, "minimize", names), approach="bayesian", seed=0, n_resamples=5000,
        rope=0.5, rope_mode="absolute").verdicts()}
    assert low[("a", "c")].winner == "a" and low[("a", "b")].outcome == "tie"
    assert "Bayesian signed-rank" in str(ours)
    assert ours.plot() is not None and "mean" in ours.table.columns
