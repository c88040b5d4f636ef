"""The Dask engine's per-partition incumbent cube: one binary search per (run, budget).

Held equal, row for row, to the plain form it replaced (a pass over every row per
budget), on random partitions with tied budgets, runs absent from the partition,
budgets below, between and above the rows', and both kinds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.dataframe")

from benchverdict._dask.results import _cube_partition, _run_codes

SIZES = (3, 4, 2)  # algorithms, benchmarks, seeds


def _plain_cube_partition(canon, budgets, kind, sign, sizes):
    """The plain form in pandas: for each budget, the rows at or below it, the last per run."""
    f = pd.DataFrame({"run": _run_codes(canon, sizes), "b": canon["budget"].to_numpy(),
                      "s": canon["score"].to_numpy() * sign})
    f = f.sort_values(["run", "b"], kind="stable")
    if kind == "trials":
        f["s"] = f.groupby("run")["s"].cummax()  # the best trial so far
    pieces = [f[f["b"] <= budget].groupby("run").tail(1).assign(t=t)
              for t, budget in enumerate(budgets)]
    pieces = [p for p in pieces if len(p)]
    if not pieces:
        return None
    return pd.concat(pieces, ignore_index=True)[["run", "t", "b", "s"]]


def _partition(rng, n_rows: int) -> pd.DataFrame:
    codes = [rng.integers(0, k, n_rows) for k in SIZES]
    cats = [pd.Categorical.from_codes(c, [f"{r}{i}" for i in range(k)])
            for c, k, r in zip(codes, SIZES, "abs")]
    return pd.DataFrame({"algorithm": cats[0], "benchmark": cats[1], "seed": cats[2],
                         # few distinct budgets: ties within and across runs
                         "budget": rng.integers(1, 6, n_rows).astype(float) * 2.5,
                         "score": rng.normal(size=n_rows).round(1)})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_rows=st.integers(0, 60),
       kind=st.sampled_from(["runs", "trials"]), sign=st.sampled_from([1.0, -1.0]))
def test_cube_partition_equals_the_pass_per_budget(seed, n_rows, kind, sign):
    rng = np.random.default_rng(seed)
    canon = _partition(rng, n_rows)
    budgets = np.array([0.5, 2.5, 3.0, 7.5, 12.5, 100.0, 2.5])
    got = _cube_partition(canon, budgets, kind, sign, SIZES)
    want = _plain_cube_partition(canon, budgets, kind, sign, SIZES)
    if want is None:
        assert got.empty and list(got.columns) == ["run", "t", "b", "s"]
        return
    pd.testing.assert_frame_equal(got, want)


def _frames(kind: str, seed: int = 7, npartitions: int = 3, objective: str = "minimize"):
    """The same rows in memory and in Dask partitions, every run spread over them."""
    dd = pytest.importorskip("dask.dataframe")
    from benchverdict.io import from_dask_frame
    from benchverdict.results import Results

    rng = np.random.default_rng(seed)
    rows = [(alg, bench, s, float(budget), float(rng.integers(0, 4)))
            for alg in "ABC" for bench in "pq" for s in range(3) for budget in range(1, 9)]
    df = pd.DataFrame(rows, columns=["alg", "bench", "seed", "budget", "score"])
    df = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
    roles = dict(algorithm="alg", benchmark="bench", seed="seed", budget="budget",
                 score="score", objective=objective, kind=kind)
    return (Results.from_frame(df, **roles),
            from_dask_frame(dd.from_pandas(df, npartitions=npartitions, sort=False), **roles))


@pytest.mark.parametrize("kind", ["runs", "trials"])
def test_cube_over_partitions_equals_the_in_memory_cube(kind):
    # Every run's rows shuffled over four partitions (a later partition holds earlier
    # budgets), scores with ties: the winner per cell is the in-memory one (the latest
    # budget for runs, the best score for trials). The partitions' candidates are merged
    # one at a time (a concatenation held 2.3 GB on the client at 10^8 rows).
    mem, dk = _frames(kind, npartitions=4, objective="maximize")
    budgets = [0.5, 1.0, 2.5, 4.0, 7.0, 8.0, 100.0]
    np.testing.assert_array_equal(dk.incumbent_cube(budgets), mem.incumbent_cube(budgets))


def _count_passes(monkeypatch, dk):
    passes = []
    original = type(dk)._cube_pass
    monkeypatch.setattr(type(dk), "_cube_pass",
                        lambda self, b: passes.append(list(b)) or original(self, b))
    return passes


def test_expected_cubes_take_one_pass_and_the_same_values(monkeypatch):
    # Two steps said in advance (12 and 64 budgets in a report; here 3 and 4, sharing
    # one): the first request computes both in one pass, the second is served from it,
    # and once each has asked, nothing is kept. The values are the in-memory cube's.
    mem, dk = _frames("runs")
    passes = _count_passes(monkeypatch, dk)
    first, second = [1.0, 4.0, 8.0], [2.0, 4.0, 6.0, 7.5]
    dk.expect_cube_budgets(first)
    dk.expect_cube_budgets(second)
    np.testing.assert_array_equal(dk.incumbent_cube(first), mem.incumbent_cube(first))
    np.testing.assert_array_equal(dk.incumbent_cube(second), mem.incumbent_cube(second))
    assert len(passes) == 1 and sorted(passes[0]) == [1.0, 2.0, 4.0, 6.0, 7.5, 8.0]
    assert not dk._cache["cube_ready"] and not dk._cache["cube_expected"]
    # Unannounced (and repeated, and unsorted) budgets: a pass of their own, same values.
    asked = [8.0, 0.5, 8.0, 3.0]
    np.testing.assert_array_equal(dk.incumbent_cube(asked), mem.incumbent_cube(asked))
    assert len(passes) == 2 and sorted(passes[1]) == [0.5, 3.0, 8.0]


def test_a_request_that_meets_another_steps_expectation_changes_no_value(monkeypatch):
    # An expectation only decides what a pass computes: a budget asked for by someone
    # else first is served, and the step that said it comes back to a fresh pass.
    mem, dk = _frames("trials", seed=3)
    passes = _count_passes(monkeypatch, dk)
    dk.expect_cube_budgets([2.0, 5.0])
    np.testing.assert_array_equal(dk.incumbent_cube([5.0]), mem.incumbent_cube([5.0]))
    np.testing.assert_array_equal(dk.incumbent_cube([2.0, 5.0]),
                                  mem.incumbent_cube([2.0, 5.0]))
    assert [sorted(p) for p in passes] == [[2.0, 5.0], [5.0]]
    assert dk.incumbent_cube([]).shape == mem.incumbent_cube([]).shape


def test_a_report_on_dask_runs_makes_one_cube_pass(monkeypatch):
    # The anytime ranks (12 budgets) and the LMEM's budget check (64) used to make a
    # pass over every row each.
    from benchverdict.report.runner import compare

    mem, dk = _frames("runs")
    passes = _count_passes(monkeypatch, dk)
    got = compare(dk, analyses=["ranks", "lmem"], progress=False, figures=False)
    assert len(passes) == 1
    want = compare(mem, analyses=["ranks", "lmem"], progress=False, figures=False)
    assert got.verdicts() == want.verdicts()
