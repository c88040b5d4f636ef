"""The LMEM's claims across benchmarks when algorithms vary unequally across benchmarks.

The generalising model shares one algorithm x benchmark variance among all
algorithms. With one brittle algorithm among ten (interaction SD 1, the others
0), the pooled variance understates its contrasts' variance about fivefold and
the model's Tukey tests settled false relations in most null data sets. A pair
is now settled only when its own paired test agrees (``lmem.paired``). Checked
here: the paired test against scipy's paired t test and closed forms, the
family-wise error under that null and under the equal-variance null (binomial
tolerances), that the old rule fails the same simulation (so it can detect the
failure), power against a planted effect, and real data.
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict.analysis import Options
from benchverdict.lmem.paired import paired_contrasts, with_paired_test
from benchverdict.lmem.runner import run_lmem
from benchverdict.results import Results

ALPHA = 0.05
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))


def study(seed: int, *, n_algorithms: int = 10, n_benchmarks: int = 20, n_seeds: int = 2,
          brittle_sd: float = 1.0, other_sd: float = 0.0, effect: float = 0.0,
          noise_sd: float = 0.3) -> Results:
    """Runs: benchmark offset + algorithm x benchmark shift + noise; ``a0`` is brittle.

    ``a0``'s shifts have SD ``brittle_sd``, every other algorithm's ``other_sd``;
    no algorithm is better on average over benchmarks unless ``effect`` moves ``a1``.
    """
    rng = np.random.default_rng([25, seed])
    rows = []
    for b in range(n_benchmarks):
        base = rng.normal(0.0, 2.0)
        for j in range(n_algorithms):
            shift = rng.normal(0.0, brittle_sd if j == 0 else other_sd)
            mu = base + shift + (effect if j == 1 else 0.0)
            rows += [(f"a{j}", f"b{b}", s, mu + e)
                     for s, e in enumerate(rng.normal(0.0, noise_sd, n_seeds))]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "score"])
    return Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              score="score", objective="maximize", kind="runs")


def across(run) -> list:
    """The LMEM's verdicts about all benchmarks."""
    return [v for v in run.verdicts if v.method == "lmem.tukey" and v.scope.benchmark is None
            and not v.scope.metafeature]


def lmem_run(results: Results):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_lmem(results, Options(alpha=ALPHA, figures=False, sanity_checks=False))


def at_most_alpha(hits: int, n: int, alpha: float = ALPHA) -> bool:
    """Whether ``hits`` in ``n`` is consistent with a rate <= alpha (one-sided, 0.001)."""
    return stats.binomtest(hits, n, alpha, alternative="greater").pvalue > 0.001


# ------------------------------------------------------------------ against references
def test_paired_contrasts_equal_scipys_paired_t_test_on_cell_means():
    res = study(3, n_algorithms=4, n_benchmarks=7, brittle_sd=0.8, other_sd=0.3)
    cells = res.table.groupby(["algorithm", "benchmark"], observed=True)["score"].mean()
    out = paired_contrasts(res, alpha=0.1).set_index(["a", "b"])
    m = len(out)
    assert m == 6
    for (a, b), row in out.iterrows():
        x, y = cells.loc[a].sort_index(), cells.loc[b].sort_index()
        ref = stats.ttest_rel(x, y)
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
        assert row["df"] == len(x) - 1 == row["n_benchmarks"] - 1
        assert row["p_value_adjusted"] == pytest.approx(min(1.0, m * ref.pvalue), rel=1e-10)
        # The Bonferroni interval: ttest_rel's own interval at level 1 - alpha / m.
        lo, hi = ref.confidence_interval(confidence_level=1 - 0.1 / m)
        assert (row["lower"], row["upper"]) == pytest.approx((lo, hi), rel=1e-10)


def test_paired_contrasts_use_the_benchmarks_both_algorithms_ran():
    frame = pd.DataFrame({
        "algorithm": ["A", "B", "C"] * 3 + ["A", "B"],
        "benchmark": ["p"] * 3 + ["q"] * 3 + ["r"] * 3 + ["s"] * 2,
        "seed": 0, "score": [3.0, 1.0, 2.0, 5.0, 2.0, 2.5, 4.0, 2.5, 1.0, 6.0, 1.0]})
    res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                             seed="seed", score="score", objective="maximize", kind="runs")
    out = paired_contrasts(res).set_index(["a", "b"])
    assert out.loc[("A", "B"), "n_benchmarks"] == 4
    assert out.loc[("A", "C"), "n_benchmarks"] == 3
    assert out.loc[("A", "B"), "estimate"] == pytest.approx(np.mean([2.0, 3.0, 1.5, 5.0]))


def test_degenerate_pairs_cannot_be_settled_or_are_exact():
    frame = pd.DataFrame({"algorithm": ["A", "B", "C"] * 3, "benchmark": list("pppqqqrrr"),
                          "seed": 0, "score": [2.0, 1.0, 2.0, 3.0, 2.0, 3.0, 0.5, -0.5, 0.5]})
    res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                             seed="seed", score="score", objective="maximize", kind="runs")
    out = paired_contrasts(res).set_index(["a", "b"])
    # A is 1 above B on every benchmark: no variation, an exact difference.
    assert out.loc[("A", "B"), "p_value"] == 0.0
    assert out.loc[("A", "B"), ["lower", "upper"]].tolist() == [1.0, 1.0]
    # A and C are identical everywhere.
    assert out.loc[("A", "C"), "p_value"] == 1.0
    one = paired_contrasts(res.table[res.table["benchmark"] == "p"].pipe(
        lambda t: Results.from_frame(t, algorithm="algorithm", benchmark="benchmark",
                                     seed="seed", score="score", objective="maximize",
                                     kind="runs")))
    assert (one["p_value"] == 1.0).all() and np.isinf(one["upper"]).all()


def test_with_paired_test_keeps_a_verdict_only_when_both_tests_agree():
    run = lmem_run(study(1, n_algorithms=3, effect=3.0, brittle_sd=0.0))
    v = next(v for v in across(run) if {v.a, v.b} == {"a1", "a2"})
    assert v.outcome in ("a", "b") and v.details["p_value_paired"] < ALPHA
    row = {"a": v.a, "b": v.b, "estimate": 0.1, "se": 1.0, "sd": 3.0, "df": 14.0,
           "n_benchmarks": 15, "p_value": 0.9, "p_value_adjusted": 1.0, "lower": -5.0,
           "upper": 5.0}
    blocked = with_paired_test(dataclasses.replace(v, details={}), row, alpha=ALPHA)
    assert blocked.outcome == "inconclusive"
    assert blocked.evidence.value == 1.0 and blocked.p_value == 0.9
    assert "does not confirm the model" in blocked.explanation
    with pytest.raises(ValueError, match=r"the pair.s test row is for"):
        with_paired_test(v, {**row, "a": "zz"}, alpha=ALPHA)


# ------------------------------------------------------------------ error control, simulated
#: 25 null data sets: the model alone settles a false relation in 9 of them (a rate the
#: binomial check rejects), the combined test in none.
N_NULL = int(25 * SCALE)


@pytest.mark.slow
def test_one_brittle_algorithm_no_longer_settles_false_relations():
    hits = old = 0
    for seed in range(N_NULL):
        verdicts = across(lmem_run(study(seed)))
        hits += any(v.outcome in ("a", "b") for v in verdicts)
        # The model alone (the rule before the paired test): its own adjusted p-values.
        old += any(v.details["p_value_model"] < ALPHA for v in verdicts)
    assert at_most_alpha(hits, N_NULL), (hits, N_NULL)
    # The simulation produces the failure it guards against: the model alone fails it.
    assert not at_most_alpha(old, N_NULL), (old, N_NULL)


@pytest.mark.slow
def test_equal_variances_null_and_power():
    # The model's own null (every algorithm varies equally): still at most alpha; and a
    # planted effect of 1.5 interaction SDs on a1 is still found against most algorithms.
    hits = found = 0
    n = int(15 * SCALE)
    for seed in range(n):
        null = across(lmem_run(study(100 + seed, n_algorithms=5, brittle_sd=0.5,
                                     other_sd=0.5)))
        hits += any(v.outcome in ("a", "b") for v in null)
        planted = across(lmem_run(study(200 + seed, n_algorithms=5, brittle_sd=0.5,
                                        other_sd=0.5, effect=1.5)))
        found += sum(v.outcome in ("a", "b") and "a1" in (v.a, v.b)
                     and (v.a if v.outcome == "a" else v.b) == "a1" for v in planted)
    assert at_most_alpha(hits, n), (hits, n)
    assert found >= 0.6 * 4 * n, (found, n)


# ------------------------------------------------------------------ real data
def test_priorband_relations_survive_the_paired_test(shared_data):
    from benchverdict.io.adapters import read_priorband

    res = read_priorband(shared_data / "priorband" / "priorband_data.parquet")
    run = lmem_run(res)
    settled = {(v.a, v.b): v.outcome for v in across(run)}
    # PB > HB > RS on 24 benchmarks is clear in every pair's own differences too.
    assert all(o in ("a", "b") for o in settled.values()), settled
    table = run.tables["pairwise contrasts (paired across benchmarks)"]
    assert (table["p_value_adjusted"] < ALPHA).all()
    # Within each prior level, too, a verdict's units are that level's benchmarks (12, one
    # per task), not the model's 3,600 rows.
    levels = [v for v in run.verdicts if v.method == "lmem.tukey" and v.scope.metafeature]
    assert len(levels) == 6
    assert {(v.n, v.unit.split(" ")[0]) for v in levels} == {(12, "benchmark")}
    assert set(table["n_benchmarks"]) == {len(res.benchmarks)}
