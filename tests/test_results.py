"""The unified schema: validation, exclusions, views, immutability."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchverdict import Results, ValidationError
from benchverdict.results import _example_small


def make_frame(n_alg=3, n_bench=2, n_seed=4, n_budget=3, seed=0, monotone=False):
    rng = np.random.default_rng(seed)
    rows = []
    for a in range(n_alg):
        for b in range(n_bench):
            for s in range(n_seed):
                scores = rng.normal(size=n_budget)
                if monotone:
                    scores = np.maximum.accumulate(scores)
                for t in range(n_budget):
                    rows.append((f"alg{a}", f"bench{b}", s, t + 1, scores[t]))
    return pd.DataFrame(rows, columns=["alg", "task", "rep", "trial", "acc"])


ROLES = dict(algorithm="alg", benchmark="task", seed="rep", budget="trial", score="acc")


def build(df, **kw):
    args = {**ROLES, "objective": "maximize", **kw}
    return Results.from_frame(df, **args)


# ----------------------------------------------------------------------------- construction
def test_canonical_columns_and_dtypes():
    res = build(make_frame())
    t = res.table
    assert list(t.columns) == ["algorithm", "benchmark", "seed", "budget", "score"]
    for c in ("algorithm", "benchmark", "seed"):
        assert isinstance(t[c].dtype, pd.CategoricalDtype)
    assert t["score"].dtype == np.float64 and t["budget"].dtype == np.float64
    assert res.roles == {"algorithm": "alg", "seed": "rep", "score": "acc",
                         "benchmark": "task", "budget": "trial"}
    assert res.algorithms == ["alg0", "alg1", "alg2"]


def test_single_benchmark_gets_explicit_constant():
    df = make_frame(n_bench=1).drop(columns="task")
    res = Results.from_frame(df, algorithm="alg", seed="rep", budget="trial", score="acc",
                             objective="minimize")
    assert res.benchmarks == ["all"]
    assert res.describe().counts.loc["benchmark", "column"] == "(constant)"


def test_objective_is_required_and_checked():
    df = make_frame()
    with pytest.raises(TypeError):
        Results.from_frame(df, algorithm="alg", seed="rep", score="acc")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="maximize' or 'minimize"):
        build(df, objective="max")


def test_missing_column_names_column_and_alternatives():
    with pytest.raises(ValidationError) as err:
        build(make_frame(), score="accuracy")
    msg = str(err.value)
    assert "'accuracy'" in msg and "score" in msg and "'acc'" in msg and "Fix" in msg


def test_empty_frame():
    with pytest.raises(ValidationError, match="no rows"):
        build(make_frame().iloc[:0])


def test_non_numeric_scores_listed_with_rows():
    df = make_frame()
    df["acc"] = df["acc"].astype(object)
    df.loc[[4, 9], "acc"] = "oops"
    with pytest.raises(ValidationError) as err:
        build(df)
    (problem,) = err.value.problems
    assert problem.reason == "non_numeric_score" and problem.rows == (4, 9)
    assert "rows 4 and 9" in problem.message and "'oops'" in problem.message


def test_non_finite_scores():
    df = make_frame()
    df.loc[3, "acc"] = np.inf
    df.loc[7, "acc"] = np.nan
    with pytest.raises(ValidationError) as err:
        build(df)
    reasons = {p.reason: p.rows for p in err.value.problems}
    assert reasons == {"missing_score": (7,), "non_finite_score": (3,)}


def test_duplicated_keys():
    df = make_frame()
    df = pd.concat([df, df.iloc[[5]]], ignore_index=True)
    with pytest.raises(ValidationError) as err:
        build(df)
    (problem,) = err.value.problems
    assert problem.reason == "duplicate_key"
    assert set(problem.rows) == {5, len(df) - 1}
    assert "alg" in problem.column and "trial" in problem.column


def test_fewer_than_two_algorithms():
    df = make_frame(n_alg=1)
    with pytest.raises(ValidationError, match="at least 2 algorithms"):
        build(df)


def test_mixed_types_in_id_column():
    df = make_frame()
    df["rep"] = df["rep"].astype(object)
    df.loc[2, "rep"] = "2"
    with pytest.raises(ValidationError) as err:
        build(df)
    (problem,) = err.value.problems
    assert problem.reason == "mixed_types" and problem.column == "rep"
    assert "astype(str)" in problem.message and 2 in problem.rows
    with pytest.raises(ValidationError):  # not droppable
        build(df, on_invalid="drop")


def test_missing_ids_are_droppable():
    df = make_frame()
    df["alg"] = df["alg"].astype(object)
    df.loc[0, "alg"] = None
    res = build(df, on_invalid="drop")
    assert res.exclusions["row"].tolist() == [0]
    assert "missing algorithm" in res.exclusions["reason"].iloc[0]


def test_drop_records_every_row_and_reason():
    df = make_frame()
    df.loc[1, "acc"] = np.nan
    df["trial"] = df["trial"].astype(float)
    df.loc[2, "trial"] = np.inf
    dup = df.iloc[[10]]
    df = pd.concat([df, dup], ignore_index=True)
    res = build(df, on_invalid="drop")
    excluded = res.exclusions.set_index("row")["reason"]
    assert excluded[1].startswith("missing score")
    assert excluded[2].startswith("infinite budget")
    assert excluded[10].startswith("duplicated key") and excluded[len(df) - 1].startswith(
        "duplicated key")
    assert len(res) + len(res.exclusions) == len(df)
    assert "Excluded in validation: 4 row(s)" in str(res.describe())


def test_custom_index_labels_are_reported():
    df = make_frame().set_index(pd.Index([f"r{i}" for i in range(72)]))
    df.loc["r5", "acc"] = np.nan
    res = build(df, on_invalid="drop")
    assert res.exclusions["row"].tolist() == ["r5"]


# ----------------------------------------------------------------------------- properties
@st.composite
def dirty_frames(draw):
    n_alg = draw(st.integers(2, 4))
    n_seed = draw(st.integers(1, 5))
    n_budget = draw(st.integers(1, 4))
    df = make_frame(n_alg=n_alg, n_bench=2, n_seed=n_seed, n_budget=n_budget,
                    seed=draw(st.integers(0, 10_000)))
    n = len(df)
    bad_score = draw(st.lists(st.integers(0, n - 1), max_size=6, unique=True))
    values = draw(st.lists(st.sampled_from([np.nan, np.inf, -np.inf]), min_size=len(bad_score),
                           max_size=len(bad_score)))
    df.loc[bad_score, "acc"] = values
    dup_of = draw(st.lists(st.integers(0, n - 1), max_size=4))
    df = pd.concat([df, df.iloc[dup_of]], ignore_index=True)
    return df, set(bad_score), dup_of, n


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dirty_frames())
def test_every_bad_row_reported_and_none_lost(case):
    df, bad_score, dup_of, n = case
    # The duplicated rows are the originals (unless already bad) and their copies.
    dup_rows = set()
    for k, original in enumerate(dup_of):
        copy = n + k
        if original not in bad_score:
            dup_rows |= {original, copy}
    expected_bad = bad_score | {n + k for k, o in enumerate(dup_of) if o in bad_score} | dup_rows
    kept_algs = df.drop(index=list(expected_bad))["alg"].nunique()
    if not expected_bad:
        assert len(build(df)) == len(df)
        return
    with pytest.raises(ValidationError) as err:
        build(df)
    reported = set().union(*(set(p.rows) for p in err.value.problems))
    assert reported == expected_bad
    if kept_algs < 2:
        with pytest.raises(ValidationError, match="at least 2"):
            build(df, on_invalid="drop")
        return
    res = build(df, on_invalid="drop")
    excluded = set(res.exclusions["row"])
    kept = set(res.table.index)
    assert excluded == expected_bad
    assert kept.isdisjoint(excluded) and kept | excluded == set(range(len(df)))
    assert res.exclusions["row"].is_unique


# ----------------------------------------------------------------------------- kind
def test_kind_inferred_from_monotone_incumbents():
    assert build(make_frame(monotone=True)).kind == "runs"
    assert build(make_frame(monotone=False)).kind == "trials"
    # Minimising: incumbents never increase.
    df = make_frame(monotone=True)
    df["acc"] = -df["acc"]
    assert build(df, objective="minimize").kind == "runs"
    assert build(df, objective="maximize").kind == "trials"
    assert "inferred" in build(df).kind_reason


def test_kind_can_be_given_and_draws_refuse_runs():
    res = build(make_frame(monotone=True))
    with pytest.raises(ValueError, match="IID random-search draws"):
        res.draws("alg0", "bench0")
    res = build(make_frame(monotone=True), kind="trials")
    assert res.kind_reason == "given by the caller"
    assert len(res.draws("alg0", "bench0")) == 4 * 3


# ----------------------------------------------------------------------------- views
def test_at_budget_trials_is_running_best():
    df = make_frame(n_alg=2, n_bench=1, n_seed=2, n_budget=5, seed=3)
    res = build(df)
    for b in (1, 3, 5):
        got = res.at_budget(b).table.set_index(["algorithm", "seed"])["score"]
        want = df[df.trial <= b].groupby(["alg", "rep"])["acc"].max()
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy())
    # minimising picks the minimum
    res_min = build(df, objective="minimize")
    got = res_min.at_budget(5).table["score"].to_numpy()
    np.testing.assert_allclose(got, df.groupby(["alg", "rep"])["acc"].min().to_numpy())


def test_at_budget_runs_carries_incumbent_forward_and_reports_missing_runs():
    df = pd.DataFrame({
        "alg": ["a", "a", "a", "b", "b"], "rep": [0, 0, 0, 0, 1],
        "trial": [1.0, 2.5, 4.0, 2.0, 3.0], "acc": [0.1, 0.3, 0.5, 0.2, 0.4],
    })
    res = Results.from_frame(df, algorithm="alg", seed="rep", budget="trial", score="acc",
                             objective="maximize", kind="runs")
    at = res.at_budget(2.6)
    assert isinstance(at, Results) and at.kind == "runs" and at.objective == "maximize"
    assert at.table["score"].tolist() == [0.3, 0.2]
    assert set(at.table["budget"]) == {2.6}
    runs = at.exclusions[at.exclusions["unit"] == "run"]
    assert runs[["algorithm", "benchmark", "seed"]].values.tolist() == [["b", "all", 1]]
    assert runs["reason"].tolist() == ["no observation at or below budget 2.6"]
    assert "1 run(s) left out" in at.rows_used()
    assert res.final().table["score"].tolist() == [0.5, 0.2, 0.4]
    assert res.final().exclusions.empty


def test_views_keep_objective_metafeatures_and_validation_exclusions():
    df = pd.DataFrame({
        "alg": ["a", "a", "b", "b", "b"], "rep": [0, 0, 0, 0, 1],
        "trial": [1.0, 2.0, 1.0, 2.0, 3.0], "loss": [0.5, 0.3, 0.4, float("nan"), 0.2],
        "prior": ["good", "good", "bad", "bad", "bad"],
    })
    res = Results.from_frame(df, algorithm="alg", seed="rep", budget="trial", score="loss",
                             objective="minimize", kind="runs", metafeatures=["prior"],
                             on_invalid="drop")
    for view in (res.final(), res.at_budget(2.0), res.incumbents(), res.incumbents(2.0)):
        assert view.kind == "runs" and view.objective == "minimize"
        assert view.metafeatures == ("prior",) and "prior" in view.table.columns
        assert view.roles == res.roles
        # The row validation dropped is still recorded (and counted) in the view.
        rows = view.exclusions[view.exclusions["unit"] == "row"]
        assert rows["row"].tolist() == [3]
        assert "1 invalid input row(s) excluded" in view.rows_used()
    at = res.at_budget(2.0)
    assert dict(zip(at.table["algorithm"].astype(str), at.table["score"])) == {"a": 0.3,
                                                                               "b": 0.4}
    # A view of a view is the same view (incumbents are idempotent).
    assert res.final().final().table.equals(res.final().table)


def test_at_budget_without_any_incumbent_raises():
    from benchverdict.results import NoIncumbentsError

    res = _example_small()
    with pytest.raises(NoIncumbentsError, match="no run has an observation"):
        res.at_budget(0.5)


def test_incumbent_trajectories_are_a_running_best():
    res = _example_small()
    traj = res.incumbent_trajectories()
    assert traj.kind == "runs" and len(traj) == len(res)
    for b in (1, 2):
        assert traj.at_budget(b).table["score"].tolist() == res.at_budget(b).table[
            "score"].tolist()
    assert traj.incumbent_trajectories() is traj


def test_blocks_units_and_missing_cells():
    res = _example_small()
    m = res.blocks()
    assert m.unit == "benchmark" and m.aggregate == "mean"
    np.testing.assert_allclose(m.matrix.loc["p"].to_numpy(), [0.55, 0.35])
    med = res.blocks(aggregate="median")
    assert med.aggregate == "median"
    per_seed = res.blocks(unit="benchmark_seed")
    assert per_seed.matrix.shape == (4, 2) and per_seed.aggregate is None
    assert "benchmark_seed" in per_seed.describe_unit()
    # Remove one algorithm's runs on one benchmark: a hole.
    df = res.table.reset_index(drop=True)
    df = df[~((df.algorithm == "b") & (df.benchmark == "q"))]
    holey = Results.from_frame(df.astype({"algorithm": str, "benchmark": str, "seed": int}),
                               algorithm="algorithm", benchmark="benchmark", seed="seed",
                               budget="budget", score="score", objective="maximize")
    with pytest.raises(ValueError, match=r"\(q, b: no run on this benchmark\)"):
        holey.blocks()
    dropped = holey.blocks(missing="drop")
    assert list(dropped.matrix.index) == ["p"]
    assert dropped.exclusions.to_dict("records") == [
        {"analysis": None, "step": "rank blocks", "unit": "cell", "algorithm": "b",
         "benchmark": "q", "seed": None, "budget": None, "row": None, "columns": None,
         "reason": "no run on this benchmark: block dropped"}]
    assert dropped.dropped_blocks == ["q"] and "1 block(s) dropped" in dropped.describe_unit()


def test_immutable_and_cheap_copies():
    res = _example_small()
    with pytest.raises(AttributeError):
        res.objective = "minimize"
    t = res.table
    t.loc[t.index[0], "score"] = 99.0
    assert res.table["score"].iloc[0] != 99.0
    c = res.copy()
    assert c is not res and c.table.equals(res.table)


def test_describe_counts_missing_cells():
    df = make_frame(n_alg=2, n_bench=2, n_seed=3, n_budget=2)
    df = df[~((df.alg == "alg1") & (df.task == "bench0") & (df.rep == 2))]
    d = build(df).describe()
    assert d.n_missing_cells == 1 and not d.balanced
    assert d.missing_cells.astype(str).values.tolist() == [["alg1", "bench0", "2"]]
    assert d.balance.loc["alg1", "bench0"] == 2
    text = str(d)
    assert "UNBALANCED" in text and "WARNING" in text


def test_metafeatures_kept_and_described():
    df = make_frame()
    df["dim"] = df["task"].map({"bench0": 2, "bench1": 10})
    res = build(df, metafeatures=["dim"])
    assert "dim" in res.table.columns
    d = res.describe()
    assert bool(d.metafeatures.loc["dim", "constant_within_benchmark"])
    with pytest.raises(ValueError, match="clashes"):
        build(df.rename(columns={"dim": "score"}), metafeatures=["score"])


def test_subset():
    res = build(make_frame())
    sub = res.subset(algorithms=["alg0", "alg2"], benchmarks=["bench1"])
    assert sub.algorithms == ["alg0", "alg2"] and sub.benchmarks == ["bench1"]
    with pytest.raises(KeyError, match="unknown algorithm"):
        res.subset(algorithms=["nope"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from(["trials", "runs"]),
       st.sampled_from(["maximize", "minimize"]))
def test_incumbent_cube_equals_at_budget(seed, kind, objective):
    rng = np.random.default_rng(seed)
    df = make_frame(n_alg=3, n_bench=2, n_seed=3, n_budget=4, seed=seed,
                    monotone=(kind == "runs" and objective == "maximize"))
    if kind == "runs" and objective == "minimize":
        df["acc"] = -np.maximum.accumulate(df["acc"].to_numpy().reshape(-1, 4), axis=1).ravel()
    df["trial"] = df["trial"] * rng.uniform(0.5, 2.0)  # non-integer budgets
    df = df.sample(frac=1.0, random_state=seed)  # unsorted rows
    drop = rng.choice(len(df), size=5, replace=False)  # some runs start late or are missing
    df = df.drop(index=df.index[drop])
    res = build(df, kind=kind, objective=objective)
    budgets = np.concatenate([[0.0], np.sort(rng.uniform(0, 10, size=5)), [1e9]])
    cube = res.incumbent_cube(budgets)
    for t, b in enumerate(budgets):
        at = res._incumbent_rows(b)
        want = np.full(cube.shape[1:], np.nan)
        a_i = pd.Categorical(at["algorithm"], categories=res.algorithms).codes
        b_i = pd.Categorical(at["benchmark"], categories=res.benchmarks).codes
        s_i = pd.Categorical(at["seed"], categories=res.seeds).codes
        want[a_i, b_i, s_i] = at["score"].to_numpy()
        np.testing.assert_array_equal(cube[t], want)


def test_budgets_are_the_sorted_distinct_budgets_and_a_callers_own_copy():
    """Computed once per Results (a report asks eight times), handed out as a copy."""
    res = build(make_frame(n_budget=4))
    first = res.budgets
    np.testing.assert_array_equal(first, np.unique(res.table["budget"].to_numpy()))
    first[:] = -1.0  # the caller's array: writing it changes nothing for the next caller
    np.testing.assert_array_equal(res.budgets, np.unique(res.table["budget"].to_numpy()))
