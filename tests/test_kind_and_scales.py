"""Issue #20, Results level: the kind is never guessed, incomplete runs, mixed scales."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import benchverdict as bv
from benchverdict import Results
from benchverdict.cli import build_parser, main
from benchverdict.lmem import fit
from benchverdict.results import KIND_NEEDED, ValidationError
from benchverdict.scales import scale_check, standardise_per_benchmark

ROLES = dict(algorithm="alg", benchmark="task", seed="seed", score="acc", objective="maximize")


def accuracy_table(seed: int = 0, n_tasks: int = 8, n_seeds: int = 5) -> pd.DataFrame:
    """One final accuracy per (classifier, task, seed); A < B < C by 4 SD on every task."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_tasks):
        base = rng.uniform(0.6, 0.8)
        for i, alg in enumerate("ABC"):
            for s in range(n_seeds):
                rows.append({"alg": alg, "task": f"t{t}", "seed": s,
                             "acc": base + 0.04 * i + rng.normal(0, 0.01)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- 1. kind never guessed
def test_no_budget_without_kind_names_both_readings_and_the_fix():
    with pytest.raises(ValidationError) as err:
        Results.from_frame(accuracy_table(), **ROLES)
    (problem,) = err.value.problems
    assert problem.reason == KIND_NEEDED
    msg = problem.message
    assert "no budget column" in msg and "kind='trials'" in msg and "kind='runs'" in msg
    assert "random-search draw" in msg and "final result of one run" in msg
    assert msg.endswith("Fix: pass kind='trials' or kind='runs'.")
    assert problem.cli_message().endswith("Fix: pass --kind trials or --kind runs.")


def test_kind_problem_is_listed_with_the_other_problems():
    df = accuracy_table()
    df.loc[3, "acc"] = np.nan
    with pytest.raises(ValidationError) as err:
        Results.from_frame(df, **ROLES)
    assert {p.reason for p in err.value.problems} >= {KIND_NEEDED}
    assert len(err.value.problems) == 2


@pytest.mark.parametrize("kind", ["trials", "runs"])
def test_given_kind_is_kept(kind):
    res = Results.from_frame(accuracy_table(), **ROLES, kind=kind)
    assert res.kind == kind and res.kind_reason == "given by the caller"


def test_budget_rule_is_unchanged():
    df = pd.DataFrame({"alg": list("aaaabbbb"), "seed": [0, 0, 1, 1] * 2, "t": [1, 2] * 4,
                       "y": [1, 2, 1, 3, 2, 2, 1, 1]})
    res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
                             objective="maximize")
    assert res.kind == "runs" and res.kind_reason.startswith("inferred")
    res = Results.from_frame(df.assign(y=[2, 1, 1, 3, 2, 2, 1, 1]), algorithm="alg",
                             seed="seed", budget="t", score="y", objective="maximize")
    assert res.kind == "trials" and "worse" in res.kind_reason


def test_read_needs_kind_too(tmp_path):
    path = tmp_path / "acc.csv"
    accuracy_table().to_csv(path, index=False)
    with pytest.raises(ValidationError, match="no budget column"):
        bv.read(path, **ROLES)
    assert bv.read(path, **ROLES, kind="runs").kind == "runs"


def test_dask_constructor_needs_kind():
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(accuracy_table(), npartitions=2)
    with pytest.raises(ValidationError) as err:
        bv.from_dask_frame(ddf, **ROLES)
    assert [p.reason for p in err.value.problems] == [KIND_NEEDED]
    assert bv.from_dask_frame(ddf, **ROLES, kind="runs").kind == "runs"


def test_cli_says_kind_option(tmp_path, capsys):
    path = tmp_path / "acc.csv"
    accuracy_table().to_csv(path, index=False)
    args = ["--algorithm", "alg", "--benchmark", "task", "--seed", "seed", "--score", "acc",
            "--objective", "maximize"]
    assert main(["validate", str(path), *args]) == 1
    out = capsys.readouterr().out
    assert "Fix: pass --kind trials or --kind runs." in out and "kind=" not in out
    assert main(["validate", str(path), *args, "--kind", "runs"]) == 0


def test_every_subcommand_that_reads_a_file_has_kind():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    readers = {name: p for name, p in sub.choices.items()
               if any("--budget" in a.option_strings for a in p._actions)}
    assert {"validate", "tuning", "ranks", "lmem", "dse", "report"} <= set(readers)
    for name, p in readers.items():
        assert any("--kind" in a.option_strings for a in p._actions), name


def test_accuracy_table_read_as_runs_is_separated_by_ranks():
    """The measured failure: as runs, A < B < C (4 SD apart on 8 tasks) is separated."""
    from benchverdict.ranks import friedman

    res = Results.from_frame(accuracy_table(), **ROLES, kind="runs")
    out = friedman(res)
    assert out.p_value < 1e-3


# ---------------------------------------------------------------- 2. incomplete runs
def runs_frame() -> pd.DataFrame:
    rows = []
    for alg, last in (("long", 10), ("short", 4)):
        for task in ("p", "q"):
            for seed in range(3):
                stop = 7 if (alg == "long" and task == "q" and seed == 2) else last
                for b in range(1, stop + 1):
                    rows.append({"alg": alg, "task": task, "seed": seed, "b": b, "y": b})
    return pd.DataFrame(rows)


def test_incomplete_runs_and_completeness():
    res = Results.from_frame(runs_frame(), algorithm="alg", benchmark="task", seed="seed",
                             budget="b", score="y", objective="maximize", kind="runs")
    inc = res.incomplete_runs()
    assert list(inc.columns) == ["algorithm", "benchmark", "seed", "last_budget",
                                 "compared_budget"]
    got = {(str(a), str(b), int(s), lb, cb) for a, b, s, lb, cb in inc.itertuples(index=False)}
    want = {("short", t, s, 4.0, 10.0) for t in "pq" for s in range(3)} | {
        ("long", "q", 2, 7.0, 10.0)}
    assert got == want
    comp = res.completeness()
    assert comp.loc["short"].tolist() == [6, 6, 4.0, 4.0]
    assert comp.loc["long"].tolist() == [6, 1, 7.0, 10.0]
    # An explicit budget: runs reaching it are complete.
    assert len(res.incomplete_runs(budget=4)) == 0
    assert set(res.incomplete_runs(budget=8)["algorithm"].astype(str)) == {"short", "long"}
    with pytest.raises(ValueError, match="finite"):
        res.incomplete_runs(budget=float("nan"))


def test_compared_budget_is_per_benchmark():
    df = runs_frame()
    df = df[(df.task == "p") | (df.b <= 4)]  # on q every run stops at 4: all complete there
    res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed",
                             budget="b", score="y", objective="maximize", kind="runs")
    inc = res.incomplete_runs()
    assert set(inc["benchmark"].astype(str)) == {"p"}
    assert set(inc["compared_budget"]) == {10.0}


def test_no_budget_means_no_incomplete_run():
    res = Results.from_frame(accuracy_table(), **ROLES, kind="runs")
    assert res.incomplete_runs().empty
    comp = res.completeness()
    assert comp["n_runs"].tolist() == [40, 40, 40] and comp["n_incomplete"].sum() == 0
    assert comp["last_budget_max"].isna().all()


def test_incomplete_runs_on_dask_equal_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    df = runs_frame()
    roles = dict(algorithm="alg", benchmark="task", seed="seed", budget="b", score="y",
                 objective="maximize", kind="runs")
    mem = Results.from_frame(df, **roles)
    big = bv.from_dask_frame(dd.from_pandas(df, npartitions=3), **roles)
    pd.testing.assert_frame_equal(big.incomplete_runs(), mem.incomplete_runs())
    pd.testing.assert_frame_equal(big.completeness(), mem.completeness())


@pytest.mark.shared_data
def test_hpob_flags_every_rf_run_and_nothing_else(shared_data):
    from benchverdict.io.adapters import read_hpob

    res = read_hpob(shared_data / "hpob" / "hpob_results_long.parquet")
    inc = res.incomplete_runs()
    assert set(inc["algorithm"].astype(str)) == {"RF"}
    assert set(inc["last_budget"]) == {5.0} and set(inc["compared_budget"]) == {100.0}
    comp = res.completeness()
    assert comp.loc["RF", "n_incomplete"] == comp.loc["RF", "n_runs"] == 430
    assert comp.drop(index="RF")["n_incomplete"].sum() == 0
    assert (comp.drop(index="RF")["last_budget_min"] == 100.0).all()


# ---------------------------------------------------------------- 3. mixed scales
def amlb_like(seed: int = 0, n_seeds: int = 10, effect: float = 0.0) -> pd.DataFrame:
    """Two AUC tasks in [0.5, 1] and two negated-logloss tasks in [-34, 0]."""
    rng = np.random.default_rng(seed)
    rows = []
    for task, low, high in (("auc1", 0.5, 1.0), ("auc2", 0.5, 1.0), ("ll1", -34.0, 0.0),
                            ("ll2", -34.0, 0.0)):
        for alg in ("A", "B"):
            for s in range(n_seeds):
                y = rng.uniform(low, high) + (effect * (high - low) if alg == "B" else 0.0)
                rows.append({"alg": alg, "task": task, "seed": s, "acc": y})
    return pd.DataFrame(rows)


def test_amlb_like_mixture_is_heterogeneous():
    res = Results.from_frame(amlb_like(), **ROLES, kind="runs")
    check = scale_check(res)
    assert check.heterogeneous
    assert 10 < check.ratio < 100  # the sign rule, not the spread rule, fires here
    assert "all >= 0" in check.reason and "'ll1'" in check.reason and "Fix:" in check.reason
    table = check.table.set_index("benchmark")
    assert list(check.table.columns[:5]) == ["benchmark", "center", "spread", "min", "max"]
    assert table.loc["auc1", "max"] <= 1 and table.loc["ll1", "min"] >= -34


def test_same_metric_is_homogeneous():
    res = Results.from_frame(accuracy_table(), **ROLES, kind="runs")
    check = scale_check(res)
    assert not check.heterogeneous and check.ratio < 10


def test_spread_rule():
    df = accuracy_table()
    df.loc[df.task == "t0", "acc"] *= 1000  # same sign, 1000-fold spread
    check = scale_check(Results.from_frame(df, **ROLES, kind="runs"))
    assert check.heterogeneous and check.ratio > 100 and "'t0'" in check.reason


def test_a_spread_of_round_off_is_no_spread():
    """HPO-B's 5891/9980: ten algorithms at 0.909 that differ in the 16th digit, three at
    1.0. Its IQR of 1e-16 made "a 4.64e15-fold" difference of scales and named it the
    narrowest benchmark; its spread is the 0.091 between the two groups."""
    rows = [{"alg": f"A{i}", "task": "flat", "seed": s, "acc": 0.909 + (i % 3) * 1.1e-16}
            for i in range(10) for s in range(5)]
    rows += [{"alg": f"B{i}", "task": "flat", "seed": s, "acc": 1.0}
             for i in range(3) for s in range(5)]
    rng = np.random.default_rng(0)
    rows += [{"alg": a["alg"], "task": "wide", "seed": a["seed"], "acc": rng.uniform(0, 1)}
             for a in rows]
    check = scale_check(Results.from_frame(pd.DataFrame(rows), **ROLES, kind="runs"))
    spread = check.table.set_index("benchmark")["spread"]
    assert spread["flat"] == pytest.approx(0.091, rel=1e-9)
    assert not check.heterogeneous and check.ratio < 100


@pytest.mark.parametrize("factor", [1e-6, 0.3, 7.0, 1e6])
@pytest.mark.parametrize("data", ["amlb", "accuracy", "spread"])
def test_verdict_is_invariant_to_a_positive_rescaling(factor, data):
    df = {"amlb": amlb_like, "accuracy": accuracy_table}.get(data, accuracy_table)()
    if data == "spread":
        df.loc[df.task == "t0", "acc"] *= 1000
    base = scale_check(Results.from_frame(df, **ROLES, kind="runs"))
    scaled = scale_check(Results.from_frame(df.assign(acc=df.acc * factor), **ROLES,
                                            kind="runs"))
    assert scaled.heterogeneous == base.heterogeneous
    assert math.isclose(scaled.ratio, base.ratio, rel_tol=1e-9)


def test_metric_column_from_amlb_reader():
    from benchverdict.io.adapters import read_amlb

    rows = []
    for task, metric, values in (("kc2", "auc", [0.8, 0.82, 0.85, 0.86]),
                                 ("cars", "neg_logloss", [-0.3, -0.31, -0.5, -0.52])):
        for (fw, fold), v in zip([("RF", 0), ("RF", 1), ("GBM", 0), ("GBM", 1)], values):
            rows.append({"task": task, "framework": fw, "fold": fold, "metric": metric,
                         "info": None, "result": v})
    res = read_amlb(pd.DataFrame(rows))
    assert "metric" in res.metafeatures
    check = scale_check(res)
    assert check.heterogeneous and "different metrics" in check.reason
    assert "auc on 1 benchmark(s)" in check.reason


def test_scale_check_uses_final_scores_with_a_budget():
    res = Results.from_frame(runs_frame(), algorithm="alg", benchmark="task", seed="seed",
                             budget="b", score="y", objective="maximize", kind="runs")
    check = scale_check(res)
    assert check.table["n"].tolist() == [6, 6]  # one final score per run


def test_standardise_matches_scipy_zscore_per_benchmark():
    df = amlb_like(seed=3)
    res = Results.from_frame(df, **ROLES, kind="runs")
    z = standardise_per_benchmark(res)
    for _task, part in res.table.groupby("benchmark", observed=True):
        got = z.table.loc[part.index, "score"].to_numpy()
        np.testing.assert_allclose(got, stats.zscore(part["score"].to_numpy(), ddof=1),
                                   rtol=1e-12, atol=1e-12)
    assert z.kind == res.kind and z.objective == res.objective
    assert z.roles["score"] == "acc (z per benchmark)"
    assert not scale_check(z).heterogeneous
    # Within a benchmark the order is unchanged.
    for _task, part in res.table.groupby("benchmark", observed=True):
        assert (np.argsort(part["score"].to_numpy(), kind="stable")
                == np.argsort(z.table.loc[part.index, "score"].to_numpy(),
                              kind="stable")).all()


def test_standardise_constant_benchmark_gives_zero():
    df = accuracy_table()
    df.loc[df.task == "t0", "acc"] = 0.5
    z = standardise_per_benchmark(Results.from_frame(df, **ROLES, kind="runs"))
    assert (z.table.loc[z.table.benchmark == "t0", "score"] == 0).all()
    assert np.isfinite(z.table["score"]).all()


def _pair_p(res: Results) -> float:
    return float(fit(res, "score ~ algorithm + (1|benchmark)").pairwise()["p_value"].iloc[0])


def test_standardised_lmem_keeps_a_planted_effect_and_its_level():
    """Planted effect (B ahead by 0.25 of each task's range): detected after standardising.

    Power over 30 seeded data sets is >= 0.8; with no effect the rejection rate at
    alpha = 0.05 stays within alpha + 3 binomial SEs.
    """
    n, alpha = 30, 0.05
    power = np.mean([_pair_p(standardise_per_benchmark(Results.from_frame(
        amlb_like(seed=i, effect=0.25), **ROLES, kind="runs"))) < alpha for i in range(n)])
    assert power >= 0.8
    null = np.mean([_pair_p(standardise_per_benchmark(Results.from_frame(
        amlb_like(seed=100 + i), **ROLES, kind="runs"))) < alpha for i in range(n)])
    assert null <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / n)
