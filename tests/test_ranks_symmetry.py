"""Rank analyses cannot depend on names, order, direction or (for rank tests) the scale.

* renaming algorithms (also in ways that change their sorted order) or benchmarks, and
  reordering them, maps every verdict onto a verdict, effect intervals included;
* negating every score and flipping the objective changes nothing;
* with one seed per block, Friedman, Nemenyi and Conover (and the Mann-Whitney
  win/tie/loss decisions) are unchanged by any increasing transform of the scores;
  Wilcoxon's signed-rank test only by increasing affine ones (it ranks differences),
  and the results say so.

Before the fix the effect-size bootstrap drew blocks in the input order and took
percentiles of ``a - b`` without mirroring, so renaming moved the intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.exclusions import empty_exclusions
from benchverdict.ranks import anytime_ranks, autorank, friedman, win_tie_loss
from benchverdict.results import BlockMatrix, Results


def blocks_of(x: np.ndarray, names, objective="maximize", rows=None) -> BlockMatrix:
    index = pd.Index(rows if rows is not None else [f"bench{i}" for i in range(len(x))],
                     name="benchmark")
    return BlockMatrix(pd.DataFrame(x, columns=list(names), index=index), "benchmark_seed",
                       None, None, objective,
                       empty_exclusions())


def facts(verdicts, rename=None, keep_effect=True) -> set:
    """Order-free verdict content: pair, method, winner, evidence, effect oriented to the pair."""
    rename = rename or {}
    out = set()
    for v in verdicts:
        a, b = rename.get(v.a, v.a), rename.get(v.b, v.b)
        winner = None if v.winner is None else rename.get(v.winner, v.winner)
        effect = None
        if keep_effect and v.effect is not None:
            e = v.effect
            effect = (e.estimate, e.lower, e.upper)
            if a > b:
                effect = (-e.estimate, None if e.upper is None else -e.upper,
                          None if e.lower is None else -e.lower)
            effect = tuple(None if x is None or x != x else round(x, 12) for x in effect)
        out.add((tuple(sorted((a, b))), v.method, v.outcome in ("a", "b"), winner,
                 round(v.evidence.value, 12) if v.evidence.value is not None else None,
                 effect))
    return out


matrices = st.integers(0, 10**6).flatmap(
    lambda seed: st.tuples(st.just(seed), st.integers(6, 16), st.integers(3, 6),
                           st.booleans()))


def draw(params):
    seed, n, k, ties = params
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, k)) + np.linspace(0, 1.5, k) + 2 * rng.normal(size=(n, 1))
    return np.round(x, 0) if ties else x


NAMES = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]
REVERSED = ["zz", "yy", "xx", "ww", "vv", "uu"]


@settings(max_examples=40, deadline=None)
@given(params=matrices, posthoc=st.sampled_from(["nemenyi", "wilcoxon", "conover"]),
       perm_seed=st.integers(0, 1000))
def test_friedman_verdicts_do_not_depend_on_names_or_order(params, posthoc, perm_seed):
    x = draw(params)
    n, k = x.shape
    kw = {"posthoc": posthoc, "n_resamples": 200}
    base = friedman(blocks_of(x, NAMES[:k]), **kw)
    # rename so that the sorted order reverses, shuffle columns and rows, rename rows
    rng = np.random.default_rng(perm_seed)
    cols, rows = rng.permutation(k), rng.permutation(n)
    other = friedman(blocks_of(x[rows][:, cols], [REVERSED[c] for c in cols],
                               rows=[f"b{r:03d}" for r in rng.permutation(n)]), **kw)
    rename = dict(zip(NAMES, REVERSED))
    assert facts(base.verdicts(), rename) == facts(other.verdicts())


@settings(max_examples=40, deadline=None)
@given(params=matrices, posthoc=st.sampled_from(["nemenyi", "wilcoxon", "conover"]))
def test_friedman_verdicts_survive_negation_with_the_objective_flipped(params, posthoc):
    x = draw(params)
    names = NAMES[: x.shape[1]]
    kw = {"posthoc": posthoc, "n_resamples": 200}
    up = friedman(blocks_of(x, names), **kw)
    down = friedman(blocks_of(-x, names, "minimize"), **kw)
    assert facts(up.verdicts()) == facts(down.verdicts())


TRANSFORMS = {
    "exp": np.exp,
    "cube_shift": lambda v: v**3 + 7.0,
    "tiny": lambda v: v * 1e-150,
    "huge": lambda v: v * 1e150 - 3e150,
    "logistic": lambda v: 1 / (1 + np.exp(-v)),
}


@settings(max_examples=40, deadline=None)
@given(params=matrices, posthoc=st.sampled_from(["nemenyi", "conover"]),
       transform=st.sampled_from(sorted(TRANSFORMS)))
def test_rank_tests_are_unchanged_by_increasing_transforms(params, posthoc, transform):
    x = draw(params)
    y = TRANSFORMS[transform](x)
    # the transform must keep every comparison (no two values merged by rounding)
    order = np.argsort(x, axis=None, kind="stable")
    assert np.all(np.diff(y.ravel()[order]) >= 0)
    assert np.array_equal(np.diff(x.ravel()[order]) > 0, np.diff(y.ravel()[order]) > 0)
    names = NAMES[: x.shape[1]]
    kw = {"posthoc": posthoc, "n_resamples": 200}
    a = friedman(blocks_of(x, names), **kw)
    b = friedman(blocks_of(y, names), **kw)
    assert facts(a.verdicts()) == facts(b.verdicts())
    assert a.statistic == b.statistic


@settings(max_examples=25, deadline=None)
@given(params=matrices, power=st.integers(-400, 400))
def test_wilcoxon_is_unchanged_by_exact_rescaling_and_says_what_it_depends_on(params, power):
    x = draw(params)
    names = NAMES[: x.shape[1]]
    a = friedman(blocks_of(x, names), posthoc="wilcoxon", n_resamples=100)
    b = friedman(blocks_of(x * 2.0**power, names), posthoc="wilcoxon", n_resamples=100)
    assert facts(a.verdicts()) == facts(b.verdicts())
    assert any("depends on the scores' scale" in note for note in a.notes)
    assert a.verdicts()[0].details["invariant_under"] == "increasing affine transforms"


def test_seed_averaging_is_stated():
    rng = np.random.default_rng(0)
    rows = [(alg, f"b{t}", s, rng.normal(i)) for t in range(6) for i, alg in enumerate("ABC")
            for s in range(3)]
    res = Results.from_frame(pd.DataFrame(rows, columns=["alg", "bench", "seed", "acc"]),
                             algorithm="alg", benchmark="bench", seed="seed", score="acc",
                             objective="maximize", kind="trials")
    result = friedman(res)
    assert any("mean over its seeds, taken before ranking: a choice" in n for n in result.notes)
    assert "a choice" in result.summary()
    assert result.verdicts()[0].details["aggregate"] == "mean"


def _runs(seed: int, names, n_bench=8, n_seed=6, objective_sign=1.0):
    rng = np.random.default_rng(seed)
    rows = [(alg, f"task{t}", s, b, objective_sign * (rng.normal(i * 1.5) - 0.01 * b))
            for t in range(n_bench) for i, alg in enumerate(names) for s in range(n_seed)
            for b in (1, 2, 3)]
    return pd.DataFrame(rows, columns=["alg", "bench", "seed", "budget", "score"])


def _results(frame, objective="maximize"):
    return Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              budget="budget", score="score", objective=objective, kind="runs")


@pytest.mark.parametrize("test", ["mannwhitney", "permutation"])
def test_win_tie_loss_does_not_depend_on_names(test):
    frame = _runs(1, ["A", "B", "C"])
    rename = {"A": "zeta", "B": "eta", "C": "alpha"}
    renamed = frame.assign(alg=frame["alg"].map(rename),
                           bench=frame["bench"].map(lambda b: f"z{9 - int(b[-1])}"))
    kw = {"test": test, "n_resamples": 199}
    base = win_tie_loss(_results(frame), **kw).verdicts()
    other = win_tie_loss(_results(renamed), **kw).verdicts()
    assert facts(base, rename) == facts(other)
    assert any(v.winner for v in base)


def test_win_tie_loss_is_unchanged_by_increasing_transforms():
    frame = _runs(2, ["A", "B", "C"])
    base = win_tie_loss(_results(frame)).verdicts()
    other = win_tie_loss(_results(frame.assign(score=np.exp(frame["score"])))).verdicts()
    assert facts(base) == facts(other)
    negated = win_tie_loss(_results(frame.assign(score=-frame["score"]), "minimize"))
    assert facts(base) == facts(negated.verdicts())


def test_win_tie_loss_counts_runs_left_out_at_a_budget():
    frame = _runs(3, ["A", "B"])
    late = (frame["alg"] == "A") & (frame["seed"] == 0) & (frame["bench"] == "task0")
    frame = frame[~(late & (frame["budget"] < 3))]  # that run starts at budget 3
    res = win_tie_loss(_results(frame), budget=2)
    assert len(res.excluded) == 1
    assert res.excluded.iloc[0][["algorithm", "benchmark", "seed"]].tolist() == ["A", "task0", 0]
    assert "left out: 1 run(s)" in res.summary()
    row = res.per_benchmark.query("benchmark == 'task0'").iloc[0]
    assert row["n_a"] == 5 and row["n_b"] == 6
    assert res.verdicts()[0].details["runs_left_out"] == 1


def test_anytime_verdicts_do_not_depend_on_names():
    frame = _runs(4, ["A", "B", "C"], n_seed=5)
    rename = {"A": "zeta", "B": "eta", "C": "alpha"}
    renamed = frame.assign(alg=frame["alg"].map(rename),
                           bench=frame["bench"].map(lambda b: f"z{9 - int(b[-1])}"))
    base = anytime_ranks(_results(frame), n_resamples=300)
    other = anytime_ranks(_results(renamed), n_resamples=300)

    def keyed(v, names=None):
        names = names or {}
        return {(f, v2.scope.budget_low) for v2 in v for f in facts([v2], names)}

    assert keyed(base.verdicts(), rename) == keyed(other.verdicts())


def test_autorank_refuses_its_slow_paths_for_many_algorithms_and_says_why():
    rng = np.random.default_rng(0)
    k = 60
    x = rng.normal(size=(12, k)) + np.linspace(0, 1, k)
    with pytest.raises(ValueError, match=r"ANOVA \+ Tukey HSD path .*1,770 pairs of 60 "
                                         r"algorithms: about 2 seconds\)"):
        autorank(blocks_of(x, [f"m{i}" for i in range(k)]))
    # the Friedman + Nemenyi path has no such limit
    res = autorank(blocks_of(np.exp(3 * x), [f"m{i}" for i in range(k)]), max_pairs=10)
    assert res.omnibus == "friedman"


def test_a_few_hundred_algorithms_stay_polynomial():
    # Before the fix this took minutes (per-pair scipy calls, per-pair bootstrap quantiles,
    # Python loops over pairs) and the grouping recursed once per clique member.
    rng = np.random.default_rng(5)
    k, n = 300, 8
    x = rng.normal(size=(n, k)) + np.linspace(0, 3, k)
    names = [f"alg{i:03d}" for i in range(k)]
    res = friedman(blocks_of(x, names), posthoc="wilcoxon", bootstrap_budget=1e7)
    assert any("effect-size intervals were not computed" in note for note in res.notes)
    assert len(res.verdicts()) == k * (k - 1) // 2
    assert res.pairwise["cliffs_delta_lower"].isna().all()
    assert res.letters().size == k
    nem = res.with_posthoc("nemenyi")
    assert nem.cliques()
    nem.plot()
