"""DSE results cannot depend on names, argument order or the direction of the score.

* swapping the two algorithms of a pair mirrors every difference interval exactly
  (``interval(b - a) == -interval(a - b)``) and the verdict with it;
* renaming algorithms (also in ways that change their sorted order) or benchmarks
  maps verdicts onto verdicts;
* negating every score and flipping the objective changes nothing;
* the CVaR level is ``cvar_level`` (``alpha`` means significance only).
"""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.dse import aggregate, cvar_difference, distribution, dominance_test, statistic
from benchverdict.results import Results

samples = st.lists(
    st.one_of(st.integers(-3, 3).map(float), st.floats(-10, 10, allow_nan=False)),
    min_size=2, max_size=25,
)


def _mirrored(ab, ba) -> bool:
    return (ba.estimate, ba.lower, ba.upper) == (-ab.estimate, -ab.upper, -ab.lower)


@settings(max_examples=60, deadline=None)
@given(a=samples, b=samples, level=st.sampled_from([0.0, 0.5, 0.9]),
       objective=st.sampled_from(["maximize", "minimize"]), seed=st.integers(0, 3))
def test_cvar_bootstrap_difference_is_exactly_antisymmetric(a, b, level, objective, seed):
    kw = {"objective": objective, "n_resamples": 300, "seed": seed}
    ab = cvar_difference(a, b, level, **kw)
    ba = cvar_difference(b, a, level, **kw)
    assert _mirrored(ab, ba)
    # identical data: a symmetric interval (which is what antisymmetry demands of a - a)
    aa = cvar_difference(a, list(reversed(a)), level, **kw)
    assert aa.estimate == 0 and aa.lower == -aa.upper


@settings(max_examples=30, deadline=None)
@given(a=samples, b=samples, level=st.sampled_from([0.0, 0.5]))
def test_cvar_band_difference_is_exactly_antisymmetric(a, b, level):
    kw = {"interval": "band", "low": -10.0, "high": 10.0, "band": "ks"}
    assert _mirrored(cvar_difference(a, b, level, **kw), cvar_difference(b, a, level, **kw))


def test_swapping_the_pair_used_to_flip_a_cvar_verdict():
    # Before the fix the two samples drew from the random stream in argument order, so the
    # percentile interval of b - a was not minus that of a - b: here a - b excluded 0 and
    # b - a did not (a win turned inconclusive by renaming).
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(200):
        a, b = rng.normal(0.3, 1, 30), rng.normal(0, 1, 30)
        ab = cvar_difference(a, b, 0.5, n_resamples=400, seed=0)
        ba = cvar_difference(b, a, 0.5, n_resamples=400, seed=0)
        assert _mirrored(ab, ba)
        found += (ab.lower > 0) != (ba.upper < 0)
    assert found == 0


@settings(max_examples=40, deadline=None)
@given(a=samples, b=samples)
def test_dominance_test_swaps_exactly(a, b):
    ab, ba = dominance_test(a, b), dominance_test(b, a)
    assert (ab.p_a_better, ab.p_b_better) == (ba.p_b_better, ba.p_a_better)
    assert {"a": "b", "b": "a"}.get(ab.outcome, ab.outcome) == ba.outcome


def _results(frame: pd.DataFrame, objective: str = "maximize") -> Results:
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              score="acc", objective=objective, kind="trials")


def _trials(seed: int, n: int = 25) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(alg, task, s, float(rng.normal(shift + 0.2 * t, 1.0)))
            for t, task in enumerate(("p", "q"))
            for alg, shift in (("A", 1.0), ("B", 0.0), ("C", 0.5))
            for s in range(n)]
    return pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])


def _canonical(verdicts, names=None) -> set:
    """Verdicts as order-free facts: (pair, method, scope, winner, effect oriented to the pair)."""
    names = names or {}
    out = set()
    for v in verdicts:
        a, b = names.get(v.a, v.a), names.get(v.b, v.b)
        winner = None if v.winner is None else names.get(v.winner, v.winner)
        effect = None
        if v.effect is not None:
            effect = astuple(v.effect)[1:4]  # estimate and interval ends (names: verdict.py's)
            if a > b:
                effect = tuple(None if x is None else -x
                               for x in (effect[0], effect[2], effect[1]))
        bench = v.scope.benchmark
        out.add((tuple(sorted((a, b))), v.method, names.get(bench, bench), v.outcome
                 in ("a", "b"), winner, effect))
    return out


@pytest.mark.parametrize("interval", ["bootstrap", "band"])
def test_distribution_verdicts_do_not_depend_on_names(interval):
    # 80 draws a cell: a CVaR_0.5 direction needs 30 draws in each tail.
    frame = _trials(3, n=80)
    bounds = {"low": -10.0, "high": 10.0} if interval == "band" else {}
    kw = {"interval": interval, "n_resamples": 500, "cvar_level": 0.5, **bounds}
    base = distribution(_results(frame), **kw).verdicts()
    # Reverse the sorted order of the algorithms and of the benchmarks.
    rename = {"A": "zeta", "B": "eta", "C": "alpha", "p": "y", "q": "x"}
    renamed = frame.assign(alg=frame["alg"].map(rename), task=frame["task"].map(rename))
    other = distribution(_results(renamed), **kw).verdicts()
    assert _canonical(base, rename) == _canonical(other)
    # The test data hold decided verdicts, so the check has teeth.
    method = "dse.cvar" if interval == "bootstrap" else "dse.dominance"
    assert any(v.method == method and v.winner for v in base)


def test_distribution_verdicts_survive_negation_with_the_objective_flipped():
    frame = _trials(4)
    kw = {"n_resamples": 500, "cvar_level": 0.5}
    base = distribution(_results(frame), **kw)
    flipped = distribution(_results(frame.assign(acc=-frame["acc"]), "minimize"), **kw)
    assert _canonical(base.verdicts()) == _canonical(flipped.verdicts())


def test_aggregate_differences_do_not_depend_on_names():
    frame = _trials(5, n=15)
    base = aggregate(_results(frame), n_resamples=400, metrics=["iqm", "optimality_gap"])
    rename = {"A": "zeta", "B": "eta", "C": "alpha", "p": "y", "q": "x"}
    other = aggregate(_results(frame.assign(alg=frame["alg"].map(rename),
                                            task=frame["task"].map(rename))),
                      n_resamples=400, metrics=["iqm", "optimality_gap"])
    a = base.table.assign(algorithm=base.table["algorithm"].map(rename))
    pd.testing.assert_frame_equal(
        a.sort_values(["algorithm", "metric"]).reset_index(drop=True),
        other.table.sort_values(["algorithm", "metric"]).reset_index(drop=True))
    assert _canonical(base.verdicts(), rename) == _canonical(other.verdicts())


def test_aggregate_difference_of_identical_algorithms_is_symmetric():
    frame = _trials(6, n=10)
    twin = frame[frame["alg"] == "A"].assign(alg="A2")
    res = aggregate(_results(pd.concat([frame, twin], ignore_index=True)), n_resamples=300,
                    metrics=["mean"])
    row = res.differences.query("a == 'A' and b == 'A2'").iloc[0]
    assert row["estimate"] == 0 and row["lower"] == -row["upper"] and row["upper"] > 0


def test_alpha_is_not_a_cvar_level():
    with pytest.raises(TypeError, match="cvar_level"):
        statistic("cvar", alpha=0.5)
    with pytest.raises(TypeError):
        distribution(_results(_trials(0, n=5)), alpha=0.5)  # type: ignore[call-arg]
