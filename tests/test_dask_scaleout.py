"""The Dask scale-out (issue 12): same answers as in memory, per-partition reductions.

Everything runs on one session-scoped ``LocalCluster`` with 2 worker
processes, on data split into many partitions so that runs and duplicated
keys cross partition boundaries (contiguous pieces and interleaved rows).
Skipped when the ``dask`` extra is not installed.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import benchverdict as bv  # noqa: E402
from benchverdict._validation import ValidationError  # noqa: E402
from benchverdict.examples import load_example_frame  # noqa: E402
from benchverdict.io import from_dask_frame  # noqa: E402
from benchverdict.lmem import fit, glrt  # noqa: E402
from benchverdict.results import Results  # noqa: E402

EXAMPLE_ROLES = dict(algorithm="algorithm", benchmark="benchmark", seed="seed", budget="trial",
                     score="accuracy", objective="maximize")
PRIORBAND_ROLES = dict(algorithm="algorithm", benchmark="bench_prior", seed="seed",
                       budget="used_fidelity", score="value", objective="minimize",
                       metafeatures=["prior"])


@pytest.fixture(scope="session")
def cluster_client():
    """Two worker processes with one thread each (this is a 2-core machine)."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit="2GiB")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _both(df: pd.DataFrame, npartitions: int, **roles) -> tuple[Results, Results]:
    mem = Results.from_frame(df, **roles)
    dk = from_dask_frame(dd.from_pandas(df, npartitions=npartitions, sort=False), **roles)
    return mem, dk


def _assert_same_views(mem: Results, dk: Results, budgets) -> None:
    assert type(dk).__name__ == "DaskResults"
    assert (dk.kind, dk.kind_reason, len(dk)) == (mem.kind, mem.kind_reason, len(mem))
    assert (dk.algorithms, dk.benchmarks, dk.seeds) == (mem.algorithms, mem.benchmarks,
                                                        mem.seeds)
    pd.testing.assert_frame_equal(dk.exclusions, mem.exclusions)
    pd.testing.assert_frame_equal(dk.final().table, mem.final().table)
    np.testing.assert_array_equal(dk.budgets, mem.budgets)
    pd.testing.assert_series_equal(dk.run_sizes(), mem.run_sizes())
    for b in budgets:
        pd.testing.assert_series_equal(dk.run_sizes(b), mem.run_sizes(b))
        got, want = dk.at_budget(b), mem.at_budget(b)
        pd.testing.assert_frame_equal(got.table, want.table)
        pd.testing.assert_frame_equal(got.exclusions, want.exclusions)
        pd.testing.assert_frame_equal(dk.runs_without_incumbent(b), mem.runs_without_incumbent(b))
    np.testing.assert_array_equal(dk.incumbent_cube(budgets), mem.incumbent_cube(budgets))
    for kw in ({}, {"unit": "benchmark_seed"}, {"budget": budgets[0], "missing": "drop"},
               {"seeds": "available"}, {"aggregate": "median"}):
        a, b = mem.blocks(**kw), dk.blocks(**kw)
        pd.testing.assert_frame_equal(b.matrix, a.matrix)
        pd.testing.assert_frame_equal(b.exclusions, a.exclusions)
        assert b.describe_unit() == a.describe_unit()
    d_mem, d_dk = mem.describe(), dk.describe()
    assert str(d_dk) == str(d_mem)
    for name in ("counts", "balance", "missing_cells", "budgets", "metafeatures", "exclusions"):
        pd.testing.assert_frame_equal(getattr(d_dk, name), getattr(d_mem, name),
                                      check_dtype=False, check_index_type=False)
    assert (d_dk.n_missing_cells, d_dk.paired, d_dk.warnings) == (
        d_mem.n_missing_cells, d_mem.paired, d_mem.warnings)


def _assert_same_report(mem: Results, dk: Results) -> None:
    a = bv.compare(mem, progress=False)
    b = bv.compare(dk, progress=False)
    pd.testing.assert_frame_equal(b.verdict_table, a.verdict_table)
    assert [(r.name, r.status, r.reason) for r in b.runs] == [
        (r.name, r.status, r.reason) for r in a.runs]
    for ra, rb in zip(a.runs, b.runs):
        assert len(ra.exclusions) == len(rb.exclusions)


def _assert_same_fit(mem: Results, dk: Results, formula: str) -> None:
    a, b = fit(mem, formula), fit(dk, formula)
    assert b.nobs == a.nobs
    assert abs(b.loglik - a.loglik) <= 1e-9 * abs(a.loglik)
    np.testing.assert_allclose(b.fixef.to_numpy(), a.fixef.to_numpy(), rtol=1e-6, atol=1e-10)
    pa, pb = a.pairwise(), b.pairwise()
    np.testing.assert_allclose(pb["p_value"], pa["p_value"], rtol=1e-5, atol=1e-12)
    assert [v.outcome for v in b.verdicts()] == [v.outcome for v in a.verdicts()]
    pd.testing.assert_frame_equal(b.exclusions, a.exclusions)


# ------------------------------------------------------------------------ no Dask by default
def test_import_benchverdict_does_not_import_dask():
    code = ("import sys, benchverdict, benchverdict.io, benchverdict.lmem, benchverdict.ranks; "
            "from benchverdict.results import _example_small; _example_small().describe(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_default_engine_is_in_memory(tmp_path):
    df = load_example_frame()
    df.to_parquet(tmp_path / "r.parquet")
    res = bv.read(tmp_path / "r.parquet", **{k: v for k, v in EXAMPLE_ROLES.items()})
    assert type(res) is Results


# ------------------------------------------------------------------------ example data
@pytest.mark.parametrize("layout", ["shuffled", "contiguous"])
def test_example_equals_in_memory(cluster_client, layout):
    # Six of the example's 20 benchmarks (6,000 rows in 13 partitions): the two full
    # reports below stay affordable, and every partition still cuts runs.
    df = load_example_frame()
    df = df[df["benchmark"].isin(sorted(df["benchmark"].unique())[:6])].reset_index(drop=True)
    if layout == "shuffled":  # every run interleaved across partitions
        df = df.sample(frac=1, random_state=3).reset_index(drop=True)
    mem, dk = _both(df, 13, **EXAMPLE_ROLES)
    assert dk.npartitions == 13
    _assert_same_views(mem, dk, [1.0, 4.0, 20.0])
    for alg in mem.algorithms[:2]:
        np.testing.assert_array_equal(dk.draws(alg, mem.benchmarks[0]),
                                      mem.draws(alg, mem.benchmarks[0]))
    got = [(a, b, list(v)) for a, b, v in dk.iter_draws()]
    assert got == [(a, b, list(v)) for a, b, v in mem.iter_draws()]
    _assert_same_fit(mem, dk, "score ~ algorithm + (1|benchmark)")
    _assert_same_report(mem, dk)


def test_runs_split_at_partition_boundaries(cluster_client):
    # Incumbent series, each run cut by partition boundaries into ordered pieces.
    df = load_example_frame().sort_values(["algorithm", "benchmark", "seed", "trial"])
    df = df.reset_index(drop=True)
    mem = Results.from_frame(df, **EXAMPLE_ROLES)
    traj = mem.table.reset_index(drop=True)
    oriented = traj.groupby(["algorithm", "benchmark", "seed"], observed=True)["score"].cummax()
    traj["score"] = oriented
    roles = dict(algorithm="algorithm", benchmark="benchmark", seed="seed", budget="budget",
                 score="score", objective="maximize")
    mem, dk = _both(traj, 17, **roles)  # 20000 rows / 17: boundaries fall inside runs
    assert mem.kind == dk.kind == "runs"
    _assert_same_views(mem, dk, [2.0, 10.0])
    _assert_same_report(mem, dk)


def test_kind_inference_sees_a_worse_step_across_a_boundary(cluster_client):
    # Each run is non-worsening inside every partition; only the step across the boundary
    # gets worse, so only the boundary check can call these trials.
    df = pd.DataFrame({"alg": ["a"] * 4 + ["b"] * 4, "seed": [0] * 8,
                       "t": [1, 2, 3, 4] * 2, "y": [0.1, 0.2, 0.1, 0.3, 0.1, 0.2, 0.3, 0.4]})
    mem, dk = _both(df, 4, algorithm="alg", seed="seed", budget="t", score="y",
                    objective="maximize")
    assert mem.kind == "trials"
    assert (dk.kind, dk.kind_reason) == (mem.kind, mem.kind_reason)


# ------------------------------------------------------------------------ LMEM
@pytest.mark.parametrize("formula", [
    "score ~ algorithm + (1|benchmark)",
    "score ~ 1 + (1|benchmark)",
    "score ~ algorithm + budget + (1|benchmark) + (1|benchmark:seed)",
    "score ~ 0 + algorithm + (1|benchmark) + (0 + budget|algorithm)",
])
def test_lmem_on_the_long_table_equals_in_memory(cluster_client, formula):
    df = load_example_frame().sample(frac=1, random_state=5).reset_index(drop=True)
    mem, dk = _both(df, 11, **EXAMPLE_ROLES)
    a, b = fit(mem, formula), fit(dk, formula)
    assert abs(b.loglik - a.loglik) <= 1e-9 * abs(a.loglik)
    np.testing.assert_allclose(b.fixef.to_numpy(), a.fixef.to_numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b.theta, a.theta, rtol=1e-4, atol=1e-6)


def test_glrt_and_tukey_equal_in_memory(cluster_client):
    df = load_example_frame().sample(frac=1, random_state=6).reset_index(drop=True)
    mem, dk = _both(df, 9, **EXAMPLE_ROLES)
    ta = glrt(fit(mem, "score ~ 1 + (1|benchmark)"), fit(mem, "score ~ algorithm + (1|benchmark)"))
    tb = glrt(fit(dk, "score ~ 1 + (1|benchmark)"), fit(dk, "score ~ algorithm + (1|benchmark)"))
    assert abs(tb.chi2 - ta.chi2) <= 1e-6 * abs(ta.chi2)
    assert tb.df == ta.df
    _assert_same_fit(mem, dk, "score ~ algorithm + (1|benchmark)")


def test_lmem_exact_fit_is_found_across_partitions(cluster_client):
    # Scores constant per algorithm: the fixed effects reproduce every score (checked on
    # the rows, summed over partitions).
    df = pd.DataFrame({"alg": list("ab") * 20, "bench": np.repeat(list("pqrs"), 10),
                       "seed": np.tile(np.repeat(range(5), 2), 4),
                       "y": [1.0, 3.0] * 20})
    roles = dict(algorithm="alg", benchmark="bench", seed="seed", score="y",
                 objective="maximize", kind="trials")
    mem, dk = _both(df, 6, **roles)
    a, b = fit(mem, "score ~ algorithm + (1|benchmark)"), fit(dk, "score ~ algorithm + "
                                                                   "(1|benchmark)")
    assert a.exact and b.exact
    np.testing.assert_allclose(b.fixef.to_numpy(), a.fixef.to_numpy())


def test_lme4_backend_is_refused_clearly(cluster_client):
    df = load_example_frame()
    _, dk = _both(df, 3, **EXAMPLE_ROLES)
    with pytest.raises(ValueError, match="native"):
        fit(dk, "score ~ algorithm + (1|benchmark)", backend="lme4")


# ------------------------------------------------------------------------ bad input per file
def _write_parts(tmp_path, frames):
    for i, f in enumerate(frames):
        f.to_parquet(tmp_path / f"part-{i:02d}.parquet", index=False)
    return tmp_path


def _parts(n=4):
    df = load_example_frame()[["algorithm", "benchmark", "seed", "trial", "accuracy"]]
    return [df.iloc[idx].reset_index(drop=True) for idx in np.array_split(np.arange(len(df)), n)]


@pytest.mark.parametrize("bad", ["nan", "inf"])
@pytest.mark.parametrize("on_invalid", ["raise", "drop"])
def test_bad_score_in_one_file(cluster_client, tmp_path, bad, on_invalid):
    parts = _parts()
    parts[2].loc[[3, 7], "accuracy"] = np.nan if bad == "nan" else np.inf
    _write_parts(tmp_path, parts)
    roles = {**EXAMPLE_ROLES, "on_invalid": on_invalid}
    if on_invalid == "raise":
        with pytest.raises(ValidationError) as mem_err:
            bv.read(tmp_path, **roles)
        with pytest.raises(ValidationError) as dk_err:
            bv.read(tmp_path, engine="dask", **roles)
        (pm,), (pd_,) = mem_err.value.problems, dk_err.value.problems
        assert (pd_.column, pd_.reason, pd_.rows) == (pm.column, pm.reason, pm.rows)
        assert pd_.message.startswith(pm.message)
        assert "part-02.parquet" in pd_.message and "(its rows 3 and 7)" in pd_.message
    else:
        mem = bv.read(tmp_path, **roles)
        dk = bv.read(tmp_path, engine="dask", **roles)
        pd.testing.assert_frame_equal(dk.exclusions, mem.exclusions)
        _assert_same_views(mem, dk, [3.0])


@pytest.mark.parametrize("on_invalid", ["raise", "drop"])
def test_duplicated_keys_across_files(cluster_client, tmp_path, on_invalid):
    parts = _parts()
    parts[3] = pd.concat([parts[3], parts[0].iloc[[5]]], ignore_index=True)  # a key twice
    parts[1] = pd.concat([parts[1], parts[1].iloc[[2]]], ignore_index=True)  # within a file
    _write_parts(tmp_path, parts)
    roles = {**EXAMPLE_ROLES, "on_invalid": on_invalid}
    if on_invalid == "raise":
        with pytest.raises(ValidationError) as mem_err:
            bv.read(tmp_path, **roles)
        with pytest.raises(ValidationError) as dk_err:
            bv.read(tmp_path, engine="dask", **roles)
        (pm,), (pk,) = mem_err.value.problems, dk_err.value.problems
        assert (pk.column, pk.reason) == (pm.column, pm.reason) == ("(key)", "duplicate_key") or (
            pk.reason == pm.reason == "duplicate_key")
        assert sorted(pk.rows) == sorted(pm.rows)
        assert "part-00.parquet" in pk.message and "part-03.parquet" in pk.message
    else:
        mem = bv.read(tmp_path, **roles)
        dk = bv.read(tmp_path, engine="dask", **roles)
        pd.testing.assert_frame_equal(dk.exclusions, mem.exclusions)
        assert len(dk.exclusions) == 4
        _assert_same_views(mem, dk, [3.0])


def test_wrong_score_dtype_in_one_file(cluster_client, tmp_path):
    parts = _parts()
    parts[1]["accuracy"] = parts[1]["accuracy"].astype(str)
    parts[1].loc[4, "accuracy"] = "n/a"
    _write_parts(tmp_path, parts)
    whole = pd.concat(parts, ignore_index=True)
    with pytest.raises(ValidationError) as mem_err:
        Results.from_frame(whole, **EXAMPLE_ROLES)
    with pytest.raises(ValidationError) as dk_err:
        bv.read(tmp_path, engine="dask", **EXAMPLE_ROLES)
    reasons = {p.reason for p in mem_err.value.problems}
    got = {p.reason: p for p in dk_err.value.problems}
    assert set(got) == reasons
    for p in mem_err.value.problems:
        assert got[p.reason].rows == p.rows
        assert "part-01.parquet" in got[p.reason].message


def test_mixed_id_types_across_files_are_refused(cluster_client, tmp_path):
    parts = _parts()
    parts[2]["seed"] = parts[2]["seed"].astype(str)
    _write_parts(tmp_path, parts)
    with pytest.raises(ValidationError, match=r"mixes value types across files.*part-02"):
        bv.read(tmp_path, engine="dask", **EXAMPLE_ROLES)


def test_missing_column_is_named(cluster_client, tmp_path):
    _write_parts(tmp_path, _parts())
    with pytest.raises(ValidationError, match="nope"):
        bv.read(tmp_path, engine="dask", **{**EXAMPLE_ROLES, "score": "nope"})


def test_whole_table_views_refuse_beyond_the_client_limit(cluster_client, monkeypatch):
    from benchverdict._dask import results as dask_results

    _, dk = _both(load_example_frame(), 3, **EXAMPLE_ROLES)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 100)
    with pytest.raises(dask_results.RowsTooLargeError, match="MAX_CLIENT_ROWS"):
        dk.table  # noqa: B018
    # The reductions still work: one final incumbent per run.
    assert len(dk.final().table) == len(load_example_frame().groupby(
        ["algorithm", "benchmark", "seed"]).size())


def test_cell_sizes_equal_the_table_groupby(cluster_client):
    df = load_example_frame().sample(frac=1, random_state=2).reset_index(drop=True)
    mem, dk = _both(df.iloc[:-7], 4, **EXAMPLE_ROLES)
    want = mem.table.groupby(["algorithm", "benchmark"], observed=True).size()
    pd.testing.assert_series_equal(dk.cell_sizes(), want)


def test_persisted_partitions_give_the_same_answers(cluster_client):

    df = load_example_frame()
    mem = Results.from_frame(df, **EXAMPLE_ROLES)
    from benchverdict._dask import construct as dask_construct

    dk = dask_construct.from_dask_frame(dd.from_pandas(df, npartitions=5), persist=True,
                                    **EXAMPLE_ROLES)
    pd.testing.assert_frame_equal(dk.final().table, mem.final().table)


# ------------------------------------------------------------------------ CLI
def test_cli_report_engine_dask_equals_pandas(cluster_client, tmp_path):
    from benchverdict.cli import main

    (tmp_path / "parts").mkdir()
    data = _write_parts(tmp_path / "parts", _parts(6))
    common = ["--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
              "--budget", "trial", "--score", "accuracy", "--objective", "maximize",
              "--no-progress", "--analyses", "ranks,lmem"]
    assert main(["report", str(data), *common, "-o", str(tmp_path / "mem")]) == 0
    from benchverdict._dask import cli as dask_cli

    try:
        assert main(["report", str(data), *common, "--engine", "dask", "--scheduler",
                     cluster_client.scheduler.address, "-o", str(tmp_path / "dk")]) == 0
    finally:  # the command's own client: close it before the cluster goes away
        for client in dask_cli._CLIENT:
            client.close()
        dask_cli._CLIENT.clear()
    for name in ("verdicts.csv", "agreement.csv", "exclusions.csv"):
        assert (tmp_path / "dk" / name).read_text() == (tmp_path / "mem" / name).read_text()


def test_a_copy_that_lacks_a_run_is_found_on_both_engines(cluster_client):
    """Run fingerprints add across partitions: a copy missing a seed is found on Dask as in
    memory, with the rows of one run split between partitions."""
    rng = np.random.default_rng(8)
    rows = [(a, f"t{t}-{v}", s, b, float(x))
            for t in range(5) for a in ("A", "B") for s in range(4)
            for x_run in [np.minimum.accumulate(rng.normal(size=3))]
            for v in ("at25", "bad") for b, x in zip((1.0, 2.0, 3.0), x_run
                                                       if a == "A" else rng.normal(size=3))]
    df = pd.DataFrame(rows, columns=["alg", "bench", "seed", "t", "y"])
    df = df[~((df["alg"] == "A") & df["bench"].str.endswith("-bad") & (df["seed"] == 0))]
    df = df.sample(frac=1, random_state=2).reset_index(drop=True)
    roles = dict(algorithm="alg", benchmark="bench", seed="seed", budget="t", score="y",
                 objective="minimize")
    mem, dk = _both(df, 5, **roles)
    assert len(mem.copied_benchmarks().copies["A"]) == 5
    assert dk.copied_benchmarks() == mem.copied_benchmarks()


# ------------------------------------------------------------------------ shared data
@pytest.mark.shared_data
@pytest.mark.parametrize("layout", ["contiguous", "shuffled"])
def test_priorband_equals_in_memory(cluster_client, shared_data, layout):
    df = pd.read_parquet(shared_data / "priorband" / "priorband_data.parquet")
    if layout == "shuffled":
        df = df.sample(frac=1, random_state=0).reset_index(drop=True)
    mem, dk = _both(df, 12, **PRIORBAND_ROLES)
    _assert_same_views(mem, dk, [1.0, 5.0, 24.0])
    # HB and RS ignore the prior: their runs are copied across its variants, on both engines.
    assert dk.copied_runs() == mem.copied_runs() != ""
    for formula in ("score ~ algorithm + (1|benchmark)",
                    "score ~ algorithm * prior + (1|benchmark)"):
        _assert_same_fit(mem, dk, formula)
    _assert_same_report(mem, dk)


@pytest.mark.shared_data
@pytest.mark.slow
def test_priorband_anytime_full_equals_in_memory(cluster_client, shared_data, tmp_path):
    path = shared_data / "priorband" / "priorband_anytime_full.parquet"
    df = pd.read_parquet(path)
    for i, part in enumerate(np.array_split(np.arange(len(df)), 16)):
        df.iloc[part].to_parquet(tmp_path / f"part-{i:02d}.parquet", index=False)
    mem = bv.read(path, **PRIORBAND_ROLES)
    dk = bv.read(tmp_path, engine="dask", **PRIORBAND_ROLES)
    assert (dk.kind, dk.kind_reason) == (mem.kind, mem.kind_reason)
    pd.testing.assert_frame_equal(dk.exclusions, mem.exclusions)
    pd.testing.assert_frame_equal(dk.final().table, mem.final().table)
    budgets = [2.0, 8.0, 20.0]
    np.testing.assert_array_equal(dk.incumbent_cube(budgets), mem.incumbent_cube(budgets))
    a, b = mem.blocks(budget=8.0, missing="drop"), dk.blocks(budget=8.0, missing="drop")
    pd.testing.assert_frame_equal(b.matrix, a.matrix)
    assert str(dk.describe()) == str(mem.describe())
    m0 = {e: fit(r, "score ~ 1 + (1|benchmark)") for e, r in (("mem", mem), ("dk", dk))}
    m1 = {e: fit(r, "score ~ algorithm + (1|benchmark)") for e, r in (("mem", mem),
                                                                     ("dk", dk))}
    for e in ("mem", "dk"):
        assert m1[e].nobs == len(df)
    assert abs(m1["dk"].loglik - m1["mem"].loglik) <= 1e-9 * abs(m1["mem"].loglik)
    assert abs(m0["dk"].loglik - m0["mem"].loglik) <= 1e-9 * abs(m0["mem"].loglik)
    ta, tb = glrt(m0["mem"], m1["mem"]), glrt(m0["dk"], m1["dk"])
    assert tb.df == ta.df and abs(tb.chi2 - ta.chi2) <= 1e-6 * abs(ta.chi2)
    assert [v.outcome for v in m1["dk"].verdicts()] == [v.outcome for v in m1["mem"].verdicts()]


# ------------------------------------------------------------------------ LMEM sanity checks
def _runs_traj() -> tuple[pd.DataFrame, dict]:
    """The example's searches as incumbent series (kind 'runs'), 12,000 rows."""
    df = load_example_frame().sort_values(["algorithm", "benchmark", "seed", "trial"])
    mem = Results.from_frame(df.reset_index(drop=True), **EXAMPLE_ROLES)
    traj = mem.table.reset_index(drop=True)
    traj["score"] = traj.groupby(["algorithm", "benchmark", "seed"],
                                 observed=True)["score"].cummax()
    roles = dict(algorithm="algorithm", benchmark="benchmark", seed="seed", budget="budget",
                 score="score", objective="maximize")
    return traj, roles


def _assert_same_checks(a, b) -> None:
    assert [c.name for c in b.checks] == [c.name for c in a.checks]
    for ca, cb in zip(a.checks, b.checks):
        assert not cb.failed, cb.verdict
        assert (cb.verdict, cb.flagged, cb.data) == (ca.verdict, ca.flagged, ca.data)
        assert list(cb.table.columns) == list(ca.table.columns)
        for col in ca.table.columns:
            if pd.api.types.is_float_dtype(ca.table[col]):
                np.testing.assert_allclose(cb.table[col], ca.table[col], rtol=1e-5, atol=1e-9)
            else:
                assert cb.table[col].tolist() == ca.table[col].tolist()
        for key, t in ca.tests.items():
            assert abs(cb.tests[key].chi2 - t.chi2) <= 1e-6 * max(abs(t.chi2), 1.0)


def test_sanity_checks_beyond_the_client_limit_equal_in_memory(cluster_client, monkeypatch):
    # Beyond MAX_CLIENT_ROWS the long table never reaches the client: the budget check
    # fits its models per partition, the others use the runs' final incumbents.
    from benchverdict._dask import results as dask_results
    from benchverdict.lmem import sanity_checks

    traj, roles = _runs_traj()
    mem, dk = _both(traj, 7, **roles)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 1000)
    a, b = sanity_checks(mem), sanity_checks(dk)
    assert [c.name for c in b.checks] == ["seed_dependency", "benchmark_informativeness",
                                         "budget_relevance"]
    _assert_same_checks(a, b)
    assert b["budget_relevance"].details["slopes"] == pytest.approx(
        a["budget_relevance"].details["slopes"], rel=1e-6)


def test_report_sanity_section_beyond_the_client_limit(cluster_client, monkeypatch):
    from benchverdict._dask import results as dask_results

    traj, roles = _runs_traj()
    mem, dk = _both(traj, 7, **roles)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 1000)
    a = bv.compare(mem, progress=False, analyses=["lmem"])
    b = bv.compare(dk, progress=False, analyses=["lmem"])
    run_a, run_b = (next(r for r in c.runs if r.name == "lmem") for c in (a, b))
    assert run_b.failed_steps == []
    assert [s["name"] for s in run_b.sanity] == [s["name"] for s in run_a.sanity]
    assert [s["conclusion"] for s in run_b.sanity] == [s["conclusion"] for s in run_a.sanity]


def test_trials_sanity_checks_on_dask_within_and_beyond_the_client_limit(cluster_client,
                                                                          monkeypatch):
    # Random-search trials: the report's sanity checks see every search's trajectory.
    # Within the limit it equals the in-memory trajectory; beyond it the seed and
    # benchmark checks run on the final incumbents (the trajectory does not fit) and say
    # so. Before, the Dask path read its empty meta frame and both checks failed.
    from benchverdict._dask import results as dask_results

    rng = np.random.default_rng(8)
    df = pd.DataFrame([(a, b, s, t) for a in "ABC" for b in ("p", "q", "r") for s in range(6)
                       for t in range(1, 21)], columns=["alg", "bench", "seed", "trial"])
    df["acc"] = rng.normal(size=len(df)) + (df["alg"] == "C")
    roles = dict(algorithm="alg", benchmark="bench", seed="seed", budget="trial", score="acc",
                 objective="maximize", kind="trials")
    mem, dk = _both(df, 5, **roles)
    pd.testing.assert_frame_equal(dk.incumbent_trajectories().table,
                                  mem.incumbent_trajectories().table)
    a = bv.compare(mem, progress=False, analyses=["lmem"])
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 300)
    with pytest.raises(dask_results.RowsTooLargeError, match="incumbent trajectories"):
        dk.incumbent_trajectories()
    b = bv.compare(dk, progress=False, analyses=["lmem"])
    run_a, run_b = (next(r for r in c.runs if r.name == "lmem") for c in (a, b))
    assert run_b.failed_steps == [] and run_a.failed_steps == []
    names = [s["name"] for s in run_b.sanity]
    assert names == [n for n in (s["name"] for s in run_a.sanity) if "budget" not in n]
    assert any("final incumbent" in note for note in run_b.notes)


def test_every_row_beyond_the_client_limit_says_why(cluster_client, monkeypatch):
    # The seed check on every row needs the long table on the client: beyond the limit,
    # asking for it (results.table) fails with the reason and the way out, never an empty
    # message; the default (final incumbents) runs every check.
    from benchverdict._dask import results as dask_results
    from benchverdict._dask.results import RowsTooLargeError
    from benchverdict.lmem import sanity_checks, seed_dependency

    traj, roles = _runs_traj()
    _, dk = _both(traj, 7, **roles)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 1000)
    with pytest.raises(RowsTooLargeError, match="MAX_CLIENT_ROWS = 1,000"):
        seed_dependency(dk.table)
    report = sanity_checks(dk)
    assert not any(c.failed for c in report.checks), [c.verdict for c in report.checks]


def test_bench_reports_the_message_of_a_failed_step():
    # bench_dask.py read a key the report does not write, so a failed step showed as
    # 'lmem: LMEM sanity checks: ' with no message.
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dask.py"
    spec = importlib.util.spec_from_file_location("bench_dask", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from benchverdict.report.runner import AnalysisRun

    run = AnalysisRun("lmem", "ok")
    run.attempt("LMEM sanity checks", lambda: 1 / 0)

    from types import SimpleNamespace

    text = bench.failed_steps_text(SimpleNamespace(runs=[run]))
    assert text == "lmem: LMEM sanity checks: FAILED: ZeroDivisionError: division by zero"


# ------------------------------------------------------------------------ fused passes
def _no_more_passes(dk, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a pass over the partitions")

    monkeypatch.setattr(type(dk), "_map", refuse)
    monkeypatch.setattr(type(dk), "_map_sum", refuse)


@pytest.mark.parametrize("on_invalid", ["raise", "drop"])
def test_describe_reads_no_partition_after_validation(cluster_client, monkeypatch, on_invalid):
    # Validation computes describe()'s reductions in its own pass (budget grid, metafeature
    # levels): describe() then equals the in-memory one without reading a partition again.
    df = load_example_frame().sample(frac=1, random_state=8).reset_index(drop=True)
    df["family"] = np.where(df["benchmark"].astype(str) < "m", "low", "high")
    if on_invalid == "drop":
        df.loc[[3, 500, 9000], "accuracy"] = np.nan
    roles = {**EXAMPLE_ROLES, "metafeatures": ["family"], "on_invalid": on_invalid}
    mem, dk = _both(df, 7, **roles)
    _no_more_passes(dk, monkeypatch)
    d_mem, d_dk = mem.describe(), dk.describe()
    assert str(d_dk) == str(d_mem)
    for name in ("counts", "budgets", "metafeatures", "exclusions"):
        pd.testing.assert_frame_equal(getattr(d_dk, name), getattr(d_mem, name),
                                      check_dtype=False, check_index_type=False)
    np.testing.assert_array_equal(dk.budgets, mem.budgets)


def test_null_model_after_its_alternative_reads_no_partition(cluster_client, monkeypatch):
    # The null model's X'X, X'Z, X'y are sub-blocks of the alternative's (same random
    # effects, a subset of its fixed columns): its fit reads no partition, and equals the
    # in-memory fit.
    df = load_example_frame().sample(frac=1, random_state=9).reset_index(drop=True)
    mem, dk = _both(df, 6, **EXAMPLE_ROLES)
    full, null = "score ~ algorithm + budget + (1|benchmark)", "score ~ 1 + (1|benchmark)"
    fit(dk, full)
    with monkeypatch.context() as patch:
        _no_more_passes(dk, patch)
        for formula in (null, "score ~ budget + (1|benchmark)"):
            a, b = fit(mem, formula), fit(dk, formula)
            assert abs(b.loglik - a.loglik) <= 1e-9 * abs(a.loglik)
            np.testing.assert_allclose(b.fixef.to_numpy(), a.fixef.to_numpy(), rtol=1e-6)
    # Not nested (other columns or other random effects): a pass of its own, still equal.
    for formula in ("score ~ 0 + algorithm + (1|benchmark)", "score ~ algorithm + (1|seed)"):
        a, b = fit(mem, formula), fit(dk, formula)
        assert abs(b.loglik - a.loglik) <= 1e-9 * abs(a.loglik)


def test_nested_models_share_one_cross_product_pass(cluster_client, monkeypatch):
    from benchverdict._dask.lmem import sum_cross_products_once

    df = load_example_frame().sample(frac=1, random_state=10).reset_index(drop=True)
    mem, dk = _both(df, 5, **EXAMPLE_ROLES)
    formulas = ["score ~ algorithm + (1|benchmark)", "score ~ algorithm * budget + "
                "(1|benchmark)", "score ~ algorithm + budget + (1|benchmark)"]
    assert sum_cross_products_once(dk, formulas)
    with monkeypatch.context() as patch:
        _no_more_passes(dk, patch)
        models = {f: fit(dk, f) for f in formulas}
    for f, b in models.items():
        a = fit(mem, f)
        assert abs(b.loglik - a.loglik) <= 1e-9 * abs(a.loglik)
    ta = glrt(fit(mem, formulas[0]), fit(mem, formulas[1]))
    tb = glrt(models[formulas[0]], models[formulas[1]])
    assert tb.df == ta.df and abs(tb.chi2 - ta.chi2) <= 1e-6 * abs(ta.chi2)
    assert not sum_cross_products_once(dk, ["score ~ algorithm + (1|benchmark)",
                                            "score ~ algorithm + (1|seed)"])


def test_validation_and_describe_read_each_file_once(tmp_path, monkeypatch):
    # The Parquet footers give the row counts, so one read of each file makes the labels,
    # the checks, the run summaries and describe()'s reductions (in-process scheduler, so
    # that the reads can be counted).
    from benchverdict._dask import compute, frame

    reads: list[str] = []
    original = frame._read_part

    def counting(path, columns):
        reads.append(str(path))
        return original(path, columns)

    monkeypatch.setattr(compute, "current_client", lambda: None)
    monkeypatch.setattr(frame, "_read_part", counting)
    parts = _parts(5)
    parts[1].loc[[2, 9], "accuracy"] = np.nan
    _write_parts(tmp_path, parts)
    roles = {**EXAMPLE_ROLES, "on_invalid": "drop"}
    dk = bv.read(tmp_path, engine="dask", **roles)
    assert sorted(reads) == sorted(str(p) for p in tmp_path.glob("*.parquet"))
    mem = bv.read(tmp_path / "*.parquet", engine="dask", **roles).in_memory()
    full = Results.from_frame(pd.concat(parts, ignore_index=True), **roles)
    reads.clear()
    assert str(dk.describe()) == str(full.describe())
    assert reads == []
    pd.testing.assert_frame_equal(dk.exclusions, full.exclusions)
    pd.testing.assert_frame_equal(mem.final().table, full.final().table)


def test_a_file_that_changed_after_its_footer_was_read_is_named(cluster_client, tmp_path):
    from benchverdict._dask.construct import from_dask_frame as _from_dask_frame
    from benchverdict._dask.frame import read_dask

    _write_parts(tmp_path, _parts(3))
    ddf, names = read_dask(tmp_path)
    names.lengths = [names.lengths[0], names.lengths[1] + 1, names.lengths[2]]
    roles = {k: v for k, v in EXAMPLE_ROLES.items()}
    with pytest.raises(ValueError, match=r"part-01\.parquet.*footer said"):
        _from_dask_frame(ddf, partition_names=names, **roles)


def test_an_unhashable_metafeature_does_not_stop_models_that_do_not_use_it(cluster_client):
    # LMEM pass 1 reads every column once for all models: a column of lists must not stop
    # a model that does not use it.
    df = load_example_frame()[["algorithm", "benchmark", "seed", "trial", "accuracy"]].copy()
    df["tags"] = [[i % 3] for i in range(len(df))]
    roles = {**EXAMPLE_ROLES, "metafeatures": ["tags"]}
    mem, dk = _both(df, 4, **roles)
    a, b = (fit(r, "score ~ algorithm + (1|benchmark)") for r in (mem, dk))
    assert abs(b.loglik - a.loglik) <= 1e-9 * abs(a.loglik)


def test_informativeness_ranking_is_skipped_beyond_its_size_limit(monkeypatch):
    # At 10^8 rows the synthetic data have 2,000 benchmarks; the ranking model (a fixed
    # effect and a variance per benchmark) exhausted 24 GB there. Beyond the limit the
    # per-benchmark tests are kept and the verdict says why the ranking is missing.
    from benchverdict.lmem import sanity
    from benchverdict.lmem.simulate import simulate_results

    res = simulate_results(n_benchmarks=4, n_seeds=10, algorithm_effect={"C": 3.0},
                           uninformative=[0], seed=1)
    full = sanity.benchmark_informativeness(res)
    monkeypatch.setattr(sanity, "MAX_RANKED_BENCHMARKS", 3)
    capped = sanity.benchmark_informativeness(res)
    assert "no variance ranking (4 benchmarks, more than MAX_RANKED_BENCHMARKS = 3" in (
        capped.verdict)
    assert "variance_rank" in full.table and "variance_rank" not in capped.table
    pd.testing.assert_frame_equal(capped.table, full.table[capped.table.columns])
    assert capped.flagged == full.flagged
