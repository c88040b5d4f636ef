"""Agreement between the native engine and R's lme4/emmeans (skipped without R/rpy2/lme4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict.lmem import fit
from benchverdict.lmem.rbackend import available
from benchverdict.lmem.simulate import simulate_results

pytestmark = pytest.mark.skipif(not available(), reason="R, rpy2, lme4, emmeans or lmerTest "
                                                        "not installed")


@pytest.fixture(scope="module")
def data():
    res = simulate_results(
        n_benchmarks=6, n_seeds=8, budgets=(1.0, 2.0, 4.0),
        algorithm_effect={"B": 0.5, "C": 0.8}, seed_sd={"A": 0.6, "B": 0.3, "C": 0.9},
        budget_slope={"A": -0.2, "C": 0.1}, seed=2024,
    )
    return res


MODELS = [
    ("score ~ algorithm + (1|benchmark)", False),
    ("score ~ algorithm + (1|benchmark)", True),
    ("score ~ algorithm + (1|benchmark) + (1|seed)", False),  # crossed
    ("score ~ algorithm + (1|benchmark/seed)", False),  # nested
    ("score ~ algorithm + (1|benchmark) + (0 + algorithm|seed)", False),  # random slopes
    ("score ~ algorithm * budget + (1 + budget|benchmark)", False),  # numeric interaction
    ("score ~ algorithm * budget + (1 + budget|benchmark)", True),
    ("score ~ algorithm + budget", False),  # no random effects
]


def assert_agree(ours, theirs):
    assert ours.loglik == pytest.approx(theirs.loglik, rel=1e-6)
    assert ours.n_params == theirs.n_params
    assert list(ours.fixef.index) == list(theirs.fixef.index)
    np.testing.assert_allclose(ours.fixef, theirs.fixef, rtol=1e-5, atol=1e-5)
    key = ["group", "term1", "term2"]
    merged = ours.varcomp.merge(theirs.varcomp, on=key, suffixes=("_ours", "_lme4"))
    assert len(merged) == len(ours.varcomp) == len(theirs.varcomp)
    np.testing.assert_allclose(merged["value_ours"], merged["value_lme4"], rtol=1e-5, atol=1e-5)
    assert ours.singular == theirs.singular


@pytest.mark.parametrize(("formula", "reml"), MODELS)
def test_native_agrees_with_lme4(data, formula, reml):
    assert_agree(fit(data, formula, reml=reml), fit(data, formula, reml=reml, backend="lme4"))


@pytest.mark.parametrize("df", ["asymptotic", "satterthwaite"])
def test_tukey_contrasts_agree_with_emmeans(data, df):
    formula = "score ~ algorithm * budget + (1 + budget|benchmark)"
    ours = fit(data, formula).pairwise(df=df)
    theirs = fit(data, formula, backend="lme4").pairwise(df=df)
    assert list(ours["contrast"]) == list(theirs["contrast"])
    for col in ("estimate", "se", "statistic"):
        np.testing.assert_allclose(ours[col], theirs[col], rtol=1e-5)
    # Richardson-extrapolated differences (as lmerTest's numDeriv): agreement ~1e-8.
    np.testing.assert_allclose(ours["df"], theirs["df"], rtol=1e-5)
    # R's ptukey is accurate to about 1e-4 relative and floors near 5e-10.
    big = theirs["p_value_adjusted"] > 1e-8
    np.testing.assert_allclose(ours["p_value_adjusted"][big], theirs["p_value_adjusted"][big],
                               rtol=2e-3)
    assert (ours["p_value_adjusted"][~big] < 1e-8).all()
    # the unadjusted p-values are the two-sided t tails of the same statistics
    np.testing.assert_allclose(ours["p_value"], theirs["p_value"], rtol=1e-4, atol=1e-12)
    assert set(ours["adjustment"]) == set(theirs["adjustment"]) == {"tukey"}


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_emmeans_agree_with_r(data, confidence):
    formula = "score ~ algorithm * budget + (1|benchmark)"
    ours = fit(data, formula).emmeans(df="asymptotic", confidence=confidence)
    theirs = fit(data, formula, backend="lme4").emmeans(df="asymptotic", confidence=confidence)
    for col in ("emmean", "se", "lower", "upper"):
        np.testing.assert_allclose(ours[col], theirs[col], rtol=1e-5)


def test_odd_column_names_never_reach_r_unquoted():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"score": rng.normal(size=60), "algorithm": np.repeat(list("AB"), 30),
                       "bench; q()": np.tile([f"b{i}" for i in range(6)], 10)})
    ours = fit(df, "score ~ algorithm + (1|`bench; q()`)")
    theirs = fit(df, "score ~ algorithm + (1|`bench; q()`)", backend="lme4")
    assert ours.loglik == pytest.approx(theirs.loglik, rel=1e-6)
    assert set(theirs.varcomp["group"]) == {"bench; q()", "Residual"}


def test_priorband_agreement(shared_data):
    from benchverdict.io.adapters import read_adapter

    res = read_adapter("priorband", shared_data / "priorband" / "priorband_data.parquet")
    final = res.final().table
    for formula in ("score ~ algorithm + (1|benchmark)", "score ~ algorithm * prior + (1|task)"):
        assert_agree(fit(final, formula), fit(final, formula, backend="lme4"))
    full = "score ~ algorithm + budget + (1|benchmark)"
    assert_agree(fit(res, full), fit(res, full, backend="lme4"))


@pytest.mark.parametrize("formula", ["score ~ algorithm + (0 + algorithm|seed)",
                                     "score ~ algorithm + (1|benchmark:seed)"])
def test_level_by_level_solver_agrees_with_lme4(formula):
    # Many levels of a single random term: the native engine factors level by level.
    res = simulate_results(n_benchmarks=5, n_seeds=30, seed_sd={"A": 0.5, "B": 1.0, "C": 0.2},
                           seed=77)
    ours = fit(res, formula)
    assert ours._deviance.q > 50
    assert_agree(ours, fit(res, formula, backend="lme4"))


def test_starting_r_leaves_child_processes_their_python():
    # R rewrites LD_LIBRARY_PATH when it starts; left in place, a child Python could
    # load the system's libpython and lose its site-packages (numpy, joblib, ...).
    import os
    import subprocess
    import sys

    from benchverdict.lmem import rbackend

    rbackend._r()
    assert "/usr/lib/R/lib" not in os.environ.get("LD_LIBRARY_PATH", "")
    child = subprocess.run([sys.executable, "-c", "import numpy, joblib"], capture_output=True,
                           text=True)
    assert child.returncode == 0, child.stderr


@pytest.mark.parametrize(("formula", "reml"),
                         [("score ~ algorithm + (1|benchmark) + (1|seed)", False),
                          ("score ~ algorithm + (1|benchmark) + (1|seed)", True),
                          ("score ~ algorithm + (1|benchmark) + (0 + algorithm|seed)", False)])
def test_schur_factored_crossed_terms_agree_with_lme4(formula, reml):
    # 70 benchmarks crossed with 8 seeds: one block, factored through the Schur
    # complement of the benchmarks' diagonal part (the seed-dependency check's models).
    res = simulate_results(n_benchmarks=70, n_seeds=8, seed_sd={"A": 0.5, "B": 0.2, "C": 0.8},
                           seed=11)
    ours = fit(res, formula, reml=reml)
    assert ours._deviance.groups[0].n_diagonal == 70
    assert_agree(ours, fit(res, formula, reml=reml, backend="lme4"))


@pytest.mark.parametrize("reml", [False, True])
def test_stacked_schur_blocks_agree_with_lme4(reml):
    # The leaderboard's model over 60 algorithms: one block per benchmark (its intercept
    # and its 60 algorithm cells), all 6 factored together through their Schur complements.
    rng = np.random.default_rng(8)
    cells = [(a, b, s) for a in range(60) for b in range(6) for s in range(3)]
    df = pd.DataFrame(cells, columns=["algorithm", "benchmark", "seed"])
    cell = rng.normal(0, 0.4, (60, 6))
    df["score"] = (0.02 * df["algorithm"] + rng.normal(0, 1.5, 6)[df["benchmark"]]
                   + cell[df["algorithm"], df["benchmark"]] + rng.normal(size=len(df)))
    df["algorithm"] = "a" + df["algorithm"].astype(str).str.zfill(2)
    df["benchmark"] = "b" + df["benchmark"].astype(str)
    formula = "score ~ algorithm + (1|benchmark) + (1|algorithm:benchmark)"
    ours = fit(df, formula, reml=reml)
    (group,) = ours._deviance.groups
    assert (group.nb, group.n_diagonal) == (6, 60)
    assert_agree(ours, fit(df, formula, reml=reml, backend="lme4"))
